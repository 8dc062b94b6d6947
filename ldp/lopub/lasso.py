"""Lasso_JD: the k-dimensional joint by one Lasso regression on bit counts (Alg. 2 of Ren et al.).

The server counts the ones at every bit position of every attribute's filter,
removes the randomized-response bias,

    y_j[b] = (sum_i s_hat_ij[b] - f N / 2) / (1 - f)          (Alg. 2, line 4; Example 8),

and regresses the concatenated vector ``y`` (length ``sum_j m_j``) on the
*candidate matrix* ``M``: one row per value combination ``w_C`` (row-major
order), equal to the concatenated filters ``H_1(w_1) | ... | H_k(w_k)``
(Example 9).  The non-negative coefficients divided by ``N`` are the estimate.

Identifiability (erratum E4 of the errata register)
---------------------------------------------------
``y_j`` depends on the data only through the one-way marginal counts of
attribute ``j``: ``E[y_j] = sum_w n_j(w) H_j(w)``.  Every joint with the same
one-way marginals produces the same ``y``; algebraically
``rank(M) <= sum_j |Omega_j| - (k - 1)`` while the joint has
``prod_j |Omega_j|`` cells.  Lasso_JD therefore estimates the marginals, and the
coupling between attributes is whatever the solver picks.  The functions
:func:`candidate_rank` and :func:`lasso_from_counts` (noise-free input) let the
tests and the notebook show this directly.  :func:`kron_lasso_pair` is an
identifiable two-attribute variant that is **not in the paper** (it regresses
debiased co-occurrence counts on Kronecker products of filters).

Unspecified details and the choices made here (erratum E5): scikit-learn's
``Lasso(positive=True, fit_intercept=False)`` on the target ``y / N`` (so that
coefficients live on the probability scale) with ``alpha = 1e-5`` by default, and
renormalisation of the coefficients to sum 1 (the raw sum is reported).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso

from .._checks import check_int
from ..oracles.bloom import debias_bit_counts
from .reports import LoPubReports, _as_bits


@dataclass(frozen=True)
class LassoResult:
    """Output of :func:`lasso_joint` / :func:`lasso_from_counts`.

    Attributes
    ----------
    joint : ndarray
        Estimated joint (renormalised when requested), shape ``(|Omega_j|)_{j in C}``.
    raw_sum : float
        Sum of the Lasso coefficients on the probability scale before renormalisation.
    converged : bool
        False when the coordinate-descent solver stopped at ``max_iter``.
    fallback : bool
        True when every coefficient was 0 and the uniform distribution was returned.
    attrs : tuple of int
        The attribute cluster (empty when called on counts directly).
    """

    joint: np.ndarray
    raw_sum: float
    converged: bool
    fallback: bool
    attrs: tuple[int, ...] = ()


def bit_counts(reports: LoPubReports, attrs: Iterable[int] | int) -> list[np.ndarray]:
    """``y_hat_j[b]``: number of reported ones at each bit of each attribute in ``attrs`` (Alg. 2, line 3)."""
    attrs = reports.attrs(attrs)
    return [reports.bits[a].sum(axis=0, dtype=np.int64) for a in attrs]


def debias_counts(counts: Any, n: int, f: float) -> np.ndarray:
    """Unbiased count of true ones: ``(y_hat - f n / 2) / (1 - f)`` (Alg. 2, line 4; Example 8).

    The Bloom oracle's debiasing (:func:`ldp.oracles.bloom.debias_bit_counts`), named as in the paper.
    """
    return debias_bit_counts(counts, n, f)


def candidate_matrix(filters: Sequence[Any]) -> np.ndarray:
    """Candidate matrix ``M``: row ``w_C`` (row-major order) = ``H_1(w_1) | ... | H_k(w_k)`` (Example 9).

    Built by broadcasting, so rows follow ``itertools.product`` / ``numpy.reshape`` order.
    """
    if len(filters) == 0:
        raise ValueError("filters is empty: need at least one attribute")
    fs = [_as_bits(h, f"filters[{j}]") for j, h in enumerate(filters)]
    sizes = [h.shape[0] for h in fs]
    cols = []
    for j, h in enumerate(fs):
        shape = [1] * len(fs) + [h.shape[1]]
        shape[j] = sizes[j]
        block = np.broadcast_to(h.reshape(shape), tuple(sizes) + (h.shape[1],))
        cols.append(block.reshape(-1, h.shape[1]))
    return np.concatenate(cols, axis=1)


def candidate_rank(filters: Sequence[Any]) -> int:
    """Rank of the candidate matrix; at most ``sum_j |Omega_j| - (k - 1)`` (identifiability limit)."""
    return int(np.linalg.matrix_rank(candidate_matrix(filters).astype(float)))


def identifiability_bound(domains: Sequence[int]) -> int:
    """``sum_j |Omega_j| - (k - 1)``: the largest possible rank of ``M`` for these domains."""
    return int(sum(domains) - (len(domains) - 1))


def lasso_from_counts(
    y: Any, M: Any, n: int, *, alpha: float = 1e-5, renormalize: bool = True, max_iter: int = 100_000, tol: float = 1e-6
) -> LassoResult:
    """The regression step of Alg. 2: fit ``y ~ M^T beta`` with ``beta >= 0`` and return ``beta / n``.

    Parameters
    ----------
    y : (sum_j m_j,) array
        Debiased bit counts (:func:`debias_counts`), concatenated over attributes.
    M : (cells, sum_j m_j) array
        Candidate matrix (:func:`candidate_matrix`).
    n : int
        Number of users ``N``.
    alpha : float
        Lasso penalty on the probability scale (objective of ``sklearn.linear_model.Lasso``).
    renormalize : bool
        Divide the coefficients by their sum (default); the raw sum is kept in the result.
    """
    n = check_int(n, "n", minimum=1)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not alpha > 0:
        raise ValueError(f"alpha must be a positive number, got {alpha!r}")
    M = np.asarray(M, dtype=float)
    y = np.asarray(y, dtype=float)
    if M.ndim != 2 or y.ndim != 1 or M.shape[1] != y.size:
        raise ValueError(f"M must be (cells, {y.size}) for a target of length {y.size}, got {M.shape}")
    # copy_X=False: without an intercept scikit-learn neither centres nor otherwise writes to the design (tested)
    model = Lasso(
        alpha=float(alpha),
        positive=True,
        fit_intercept=False,
        max_iter=max_iter,
        tol=tol,
        selection="cyclic",
        copy_X=False,
    )
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(y))):
        raise ValueError("M and y must be finite")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        # the arrays are already what scikit-learn's validation would make of them (finite float64, the design
        # Fortran-ordered, as validation leaves M.T), so its per-fit checks and copy are skipped: same fit, less work
        model.fit(np.asfortranarray(M.T), np.ascontiguousarray(y / n), check_input=False)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    beta = np.clip(model.coef_, 0.0, None)
    raw = float(beta.sum())
    fallback = raw <= 0
    if fallback:
        warnings.warn(
            "Lasso_JD: every coefficient is zero; returning the uniform distribution", RuntimeWarning, stacklevel=2
        )
        beta = np.full(M.shape[0], 1.0 / M.shape[0])
    elif renormalize:
        beta = beta / raw
    return LassoResult(beta, raw, converged, fallback)


def lasso_joint(
    reports: LoPubReports,
    attrs: Iterable[int] | int,
    *,
    alpha: float = 1e-5,
    renormalize: bool = True,
    max_iter: int = 100_000,
) -> LassoResult:
    """Lasso_JD: estimate the joint of ``attrs`` from the reports (Alg. 2 of Ren et al.)."""
    attrs = reports.attrs(attrs)
    y = np.concatenate([debias_counts(c, reports.n, reports.f) for c in bit_counts(reports, attrs)])
    M = candidate_matrix([reports.filters[a] for a in attrs])
    res = lasso_from_counts(y, M, reports.n, alpha=alpha, renormalize=renormalize, max_iter=max_iter)
    shape = tuple(reports.domains[a] for a in attrs)
    return LassoResult(res.joint.reshape(shape), res.raw_sum, res.converged, res.fallback, attrs)


def kron_lasso_pair(
    reports: LoPubReports, a: int, b: int, *, alpha: float = 1e-7, max_iter: int = 100_000
) -> LassoResult:
    """Identifiable two-attribute Lasso (**extension, not in the paper**).

    Uses the debiased co-occurrence matrix ``sum_i u_ia u_ib^T`` with
    ``u_ij = (s_hat_ij - f/2) / (1 - f)``; it is unbiased for ``sum_i s_ia s_ib^T``
    because the noise is independent across attributes, and equals
    ``sum_{w_a, w_b} n(w_a, w_b) H_a(w_a) H_b(w_b)^T``.  Regressing it on the columns
    ``kron(H_a(w_a), H_b(w_b))`` identifies the joint whenever each attribute's
    filter matrix has full column rank.  Cost ``O(N m_a m_b)``.
    """
    a, b = reports.attrs((a, b))
    f = reports.f
    ua = debias_bit_counts(reports.bits[a], 1, f)  # per report: n = 1
    ub = debias_bit_counts(reports.bits[b], 1, f)
    co = (ua.T @ ub).ravel()
    ha = reports.filters[a].astype(float)
    hb = reports.filters[b].astype(float)
    M = np.einsum("ax,by->abxy", ha, hb).reshape(ha.shape[0] * hb.shape[0], -1)
    res = lasso_from_counts(co, M, reports.n, alpha=alpha, max_iter=max_iter)
    return LassoResult(res.joint.reshape(ha.shape[0], hb.shape[0]), res.raw_sum, res.converged, res.fallback, (a, b))
