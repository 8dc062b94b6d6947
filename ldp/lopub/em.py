"""EM_JD: the k-dimensional joint distribution by expectation maximisation (Alg. 1 of Ren et al.).

The unknown is the joint ``P(w_C)`` of ``k`` attributes, a table of
``prod_j |Omega_j|`` cells.  Each user ``i`` contributes the likelihood
``P(s_hat_i | w_C) = prod_{j in C} P(s_hat_ij | w_j)`` (attributes are perturbed
independently, step 3 of the paper) with the per-attribute factor of
:mod:`ldp.lopub.likelihood`.  One EM step is

    post_i(w) = P_t(w) L_i(w) / Z_i,   Z_i = sum_w P_t(w) L_i(w)        (Eq. (13))
    P_{t+1}(w) = (1/N) sum_i post_i(w)                                   (Eq. (15))

Implementation notes
--------------------
* **Factorised, vectorised.**  The ``N x prod|Omega_j|`` posterior table is never
  stored.  With the lead attribute (the largest domain) kept apart and the other
  factors combined into their row-wise Khatri-Rao product ``K`` (``N x rest``),
  ``Z = rowsum((L_lead @ P) * K)`` and the M-step numerator is
  ``(L_lead / Z)^T @ K``: two BLAS products per iteration, ``O(N prod|Omega_j|)``
  work instead of the paper's ``O(N v^{2k})`` (Theorem 2).
* **Log space.**  Likelihood tables are rescaled per user (their row maximum is
  1); the factors cancel in the posterior and are added back to report the
  log-likelihood.
* **Stopping rule.**  Line 17 of Algorithm 1 prints ``max P_t - max P_{t-1} <= delta``
  (a difference of maxima; the prose even says ``>= delta``), which stops as
  soon as the largest cell shrinks.  The default ``criterion="linf"`` uses the
  sup-norm change ``max_w |P_t(w) - P_{t-1}(w)| <= delta`` (erratum E2);
  ``criterion="paper_max"`` reproduces the printed rule for comparison.
* **Distinct reports.**  Users whose likelihood rows are equal (up to a per-user factor)
  in every attribute of the cluster have equal posteriors, so EM visits each distinct
  combination of rows once, weighted by how many users share it (the counts are a
  sufficient statistic).  The iterates are the per-user ones up to rounding.  Attributes
  with small domains have few distinct rows (:func:`~ldp.lopub.likelihood.likelihood_patterns`),
  which is where this pays; when the combinations cannot be few, or exceed half the users,
  EM runs per user as before.
* **Support.**  With ``support`` (a boolean mask), cells outside it start at 0 and
  stay 0 (EM updates are multiplicative).  When at most half of the cells
  survive and their ``N x v'`` design fits in memory, only the surviving cells
  are evaluated (the saving Lasso+EM, Alg. 3, is designed for); otherwise the
  dense path runs with the zeros in place, which gives the same iterates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_int, check_probability
from ..exceptions import warn_not_converged
from ..tables import distinct_rows
from .likelihood import likelihood_patterns, log_likelihood_table, pattern_bound, scaled_likelihoods
from .reports import LoPubReports

CRITERIA = ("linf", "paper_max")

#: maximum number of float64 entries kept in memory for the per-user design of one estimation
_CACHE_ENTRIES = 8_000_000
#: users per chunk when the design does not fit in the cache
_CHUNK_ENTRIES = 2_000_000
#: EM runs on distinct report patterns when there are at most this share of the users' count of them ...
_GROUP_SHARE = 0.5
#: ... and looks for them only when pattern_bound allows at most this many times the users' count (cost only)
_GROUP_BOUND = 8


@dataclass(frozen=True)
class EMResult:
    """Output of :func:`em_joint`.

    Attributes
    ----------
    joint : ndarray
        Estimated joint, shape ``(|Omega_j|)_{j in C}`` in the order of ``attrs``; sums to 1.
    iterations : int
        Number of EM updates performed (``t`` at exit).
    converged : bool
        True when the stopping rule fired before ``max_iter``.
    loglik : ndarray
        ``loglik[t]`` = data log-likelihood ``sum_i ln P(s_hat_i; P_t)`` of the iterate ``P_t``
        (``t = 0 .. iterations - 1``); non-decreasing by the EM property.
    attrs : tuple of int
        The attribute cluster ``C``.
    """

    joint: np.ndarray
    iterations: int
    converged: bool
    loglik: np.ndarray
    attrs: tuple[int, ...]


def _check_common(delta: Any, criterion: Any, max_iter: Any) -> tuple[float, str, int]:
    delta = check_probability(delta, "delta")
    if delta <= 0:
        raise ValueError(f"delta must be > 0, got {delta}")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    return delta, criterion, max_iter


def _initial(init: Any, support: Any, shape: tuple[int, ...]) -> np.ndarray:
    size = int(np.prod(shape))
    if init is None:
        p = np.full(shape, 1.0 / size)
    else:
        p = np.asarray(init, dtype=float)
        if p.shape != shape:
            raise ValueError(f"init must have shape {shape}, got {p.shape}")
        if not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
            raise ValueError("init must be finite, non-negative and have a positive sum")
        p = p / p.sum()
    if support is not None:
        s = np.asarray(support)
        if s.shape != shape or s.dtype != bool:
            raise ValueError(f"support must be a boolean array of shape {shape}, got {s.dtype} {s.shape}")
        if not s.any():
            raise ValueError("support is empty: at least one cell must be allowed")
        p = np.where(s, p, 0.0)
        if p.sum() <= 0:  # init vanishes on the whole support: restart uniformly there
            p = s / s.sum()
        p = p / p.sum()
    return p


def _stop(new: np.ndarray, old: np.ndarray, delta: float, criterion: str) -> bool:
    if criterion == "linf":
        return float(np.max(np.abs(new - old))) <= delta
    return float(new.max() - old.max()) <= delta


def _em_update(q: np.ndarray, num: np.ndarray, n: int, delta: float, criterion: str) -> tuple[np.ndarray, bool]:
    """One EM update from the summed responsibilities ``num`` of ``n`` users; ``(new q, stop?)``."""
    new = q * num / n
    new /= new.sum()
    return new, _stop(new, q, delta, criterion)


def _khatri_rao(mats: list[np.ndarray], rows: slice) -> np.ndarray:
    """Row-wise Kronecker product of ``mats[r][rows]`` in C order (last factor fastest)."""
    out = np.ones((rows.stop - rows.start, 1))
    for m in mats:
        block = m[rows]
        out = (out[:, :, None] * block[:, None, :]).reshape(out.shape[0], -1)
    return out


def _z_guard(z: np.ndarray) -> None:
    if not np.all(z > 0):
        raise FloatingPointError(
            "a report has zero likelihood under every allowed cell (underflow or an empty support); "
            "use a larger support or a larger f"
        )


def em_joint(
    reports: LoPubReports,
    attrs: Iterable[int] | int,
    *,
    delta: float = 1e-3,
    criterion: str = "linf",
    init: Any = None,
    support: Any = None,
    max_iter: int = 10_000,
) -> EMResult:
    """EM_JD: estimate the joint distribution of the attributes ``attrs`` (Alg. 1 of Ren et al.).

    Parameters
    ----------
    reports : LoPubReports
        Noisy Bloom filters of all users, public filters and ``f``.
    attrs : sequence of int
        The cluster ``C`` (0-based attribute indices, ``1 <= k <= d``).
    delta : float
        Convergence threshold (0.001 in the paper's experiments).
    criterion : {"linf", "paper_max"}
        Stopping rule: sup-norm change (default, erratum E2) or the printed difference of maxima.
    init : array, optional
        Initial joint (renormalised); uniform ``1/prod|Omega_j|`` when omitted (line 1).
    support : boolean array, optional
        Cells allowed to be non-zero (used by Lasso+EM, Alg. 3).
    max_iter : int
        Cap on the number of EM updates.

    Returns
    -------
    EMResult
    """
    attrs = reports.attrs(attrs)
    delta, criterion, max_iter = _check_common(delta, criterion, max_iter)
    shape = tuple(reports.domains[a] for a in attrs)
    p = _initial(init, support, shape)
    tables = [scaled_likelihoods(reports, a) for a in attrs]
    lik = [t[0] for t in tables]
    const = float(sum(t[1].sum() for t in tables))
    n = reports.n
    weights = None
    groups = report_groups(reports, attrs)
    if groups is not None:
        first, weights = groups
        lik = [m[first] for m in lik]
    rows = lik[0].shape[0]
    alive = int(np.count_nonzero(p))
    if support is not None and 2 * alive <= p.size and rows * alive <= _CACHE_ENTRIES:
        flat, it, conv, ll = _em_sparse(lik, p, n, delta, criterion, max_iter, weights)
        joint = flat.reshape(shape)
    else:
        joint, it, conv, ll = _em_dense(lik, p, n, delta, criterion, max_iter, weights)
    warn_not_converged(conv, "EM_JD", max_iter, delta)
    return EMResult(joint, it, conv, ll + const, attrs)


def report_groups(reports: LoPubReports, attrs: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """Users with the same likelihood rows in every attribute of ``attrs``: ``(first, counts)``, or None.

    ``first`` holds one user per distinct combination of patterns (:func:`likelihood_patterns`)
    and ``counts`` how many users share it.  None (EM then runs per user) when the patterns
    cannot be few (:func:`pattern_bound`: more than ``_GROUP_BOUND`` times the users), or when
    the combinations found exceed ``_GROUP_SHARE`` of the users.  Either way the iterates are
    the same up to rounding; the two constants only decide which path is cheaper.
    """
    n = reports.n
    if math.prod(pattern_bound(reports.filters[a]) for a in attrs) > _GROUP_BOUND * n:
        return None
    first, inverse = distinct_rows(np.column_stack([likelihood_patterns(reports, a)[1] for a in attrs]))
    if first.size > _GROUP_SHARE * n:
        return None
    return first, np.bincount(inverse, minlength=first.size).astype(float)


def _em_dense(
    lik: list[np.ndarray],
    p: np.ndarray,
    n: int,
    delta: float,
    criterion: str,
    max_iter: int,
    weights: np.ndarray | None = None,
):
    """EM on the rows of ``lik`` (users, or distinct patterns with ``weights`` users each) over all cells."""
    k = len(lik)
    lead = int(np.argmax([m.shape[1] for m in lik]))
    order = [lead] + [j for j in range(k) if j != lead]
    q = np.transpose(p, order)
    v0 = q.shape[0]
    rest = int(q.size // v0)
    q = q.reshape(v0, rest)
    l0 = lik[lead]
    others = [lik[j] for j in order[1:]]
    rows = l0.shape[0]
    cached = rows * rest <= _CACHE_ENTRIES
    step = rows if cached else max(1, _CHUNK_ENTRIES // max(rest, 1))
    chunks = [slice(s, min(rows, s + step)) for s in range(0, rows, step)]
    kr_cache = [_khatri_rao(others, c) for c in chunks] if cached else None
    history = []
    it, converged = 0, False
    while it < max_iter:
        num = np.zeros_like(q)
        ll = 0.0
        for ci, c in enumerate(chunks):
            kr = kr_cache[ci] if cached else _khatri_rao(others, c)
            z = np.einsum("ir,ir->i", l0[c] @ q, kr)
            _z_guard(z)
            if weights is None:
                ll += float(np.log(z).sum())
                num += (l0[c] / z[:, None]).T @ kr
            else:
                ll += float(weights[c] @ np.log(z))
                num += (l0[c] * (weights[c] / z)[:, None]).T @ kr
        history.append(ll)
        q, done = _em_update(q, num, n, delta, criterion)
        it += 1
        if done:
            converged = True
            break
    inv = np.argsort(order)
    joint = np.transpose(q.reshape([lik[j].shape[1] for j in order]), inv)
    return np.ascontiguousarray(joint), it, converged, np.asarray(history)


def _em_sparse(
    lik: list[np.ndarray],
    p: np.ndarray,
    n: int,
    delta: float,
    criterion: str,
    max_iter: int,
    weights: np.ndarray | None = None,
):
    """EM on the rows of ``lik`` (users, or distinct patterns of ``weights`` users) over the cells of ``p > 0``."""
    shape = p.shape
    flat = p.ravel()
    idx = np.flatnonzero(flat)
    cells = np.unravel_index(idx, shape)
    v = idx.size
    rows = lik[0].shape[0]
    cached = rows * v <= _CACHE_ENTRIES
    step = rows if cached else max(1, _CHUNK_ENTRIES // v)
    chunks = [slice(s, min(rows, s + step)) for s in range(0, rows, step)]

    def design(c: slice) -> np.ndarray:
        out = lik[0][c][:, cells[0]]
        for j in range(1, len(lik)):
            out = out * lik[j][c][:, cells[j]]
        return out

    cache = [design(c) for c in chunks] if cached else None
    q = flat[idx].copy()
    history = []
    it, converged = 0, False
    while it < max_iter:
        num = np.zeros(v)
        ll = 0.0
        for ci, c in enumerate(chunks):
            x = cache[ci] if cached else design(c)
            z = x @ q
            _z_guard(z)
            if weights is None:
                ll += float(np.log(z).sum())
                num += x.T @ (1.0 / z)
            else:
                ll += float(weights[c] @ np.log(z))
                num += x.T @ (weights[c] / z)
        history.append(ll)
        q, done = _em_update(q, num, n, delta, criterion)
        it += 1
        if done:
            converged = True
            break
    out = np.zeros(flat.size)
    out[idx] = q
    return out, it, converged, np.asarray(history)


def em_joint_per_report(
    reports: LoPubReports,
    attrs: Iterable[int] | int,
    *,
    delta: float = 1e-3,
    criterion: str = "linf",
    max_iter: int = 10_000,
) -> EMResult:
    """Reference EM_JD written as a Python loop over reports, line by line as Algorithm 1.

    Same result as :func:`em_joint` (uniform start, no support).  It exists only as an
    independent check in the tests and as the baseline of the speed comparison in the
    experiments notebook; use :func:`em_joint` for real work.
    """
    attrs = reports.attrs(attrs)
    delta, criterion, max_iter = _check_common(delta, criterion, max_iter)
    shape = tuple(reports.domains[a] for a in attrs)
    cells = list(np.ndindex(*shape))
    f = reports.f
    per_attr = [log_likelihood_table(reports.bits[a], reports.filters[a], f) for a in attrs]
    # lines 2-7: conditional probability of each report under each candidate combination
    cond = []
    for i in range(reports.n):
        logs = [sum(per_attr[j][i, w[j]] for j in range(len(attrs))) for w in cells]
        top = max(logs)
        cond.append(([math.exp(x - top) for x in logs], top))
    p = [1.0 / len(cells)] * len(cells)
    history = []
    it, converged = 0, False
    while it < max_iter:
        acc = [0.0] * len(cells)
        ll = 0.0
        for lik_i, top in cond:  # lines 10-14: posterior of every user
            z = sum(pc * lc for pc, lc in zip(p, lik_i))
            ll += math.log(z) + top
            for c in range(len(cells)):
                acc[c] += p[c] * lik_i[c] / z
        history.append(ll)
        new = [a / reports.n for a in acc]  # line 15
        it += 1
        old = np.asarray(p)
        p = new
        if _stop(np.asarray(new), old, delta, criterion):
            converged = True
            break
    warn_not_converged(converged, "EM_JD (per report)", max_iter, delta)
    return EMResult(np.asarray(p).reshape(shape), it, converged, np.asarray(history), attrs)
