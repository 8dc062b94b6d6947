"""Post-processing of frequency estimates and EM (iterative Bayesian update) estimators.

The oracles in :mod:`ldp.oracles` return *raw unbiased* estimates, which can be
negative and need not sum to one.  This module holds the explicit, separate
post-processing steps the papers use:

* :func:`norm_sub` -- Norm-Sub of Wang et al. (NDSS 2020): zero the negative
  entries and shift the positive ones by a common amount until they sum to the
  total, iterated to its fixed point (solved here exactly by sorting);
* :func:`project_simplex` -- Euclidean projection onto the scaled simplex;
* :func:`clip_normalise` -- clip negatives to zero and rescale;

and the likelihood-based estimators:

* :func:`ibu` -- the iterative Bayesian update (EM for the input distribution
  given output counts of any finite channel; Agrawal & Aggarwal 2001,
  ElSalamouny & Palamidessi 2020), O(d·m) per iteration;
* :func:`ibu_batch` -- :func:`ibu` for many count vectors through one
  channel (the trials of an experiment), the rows' steps run together as
  matrix--matrix products when the channel has no structure;
* :func:`ibu_grr` -- the same iteration exploiting the GRR channel
  ``(p - q) I + q 11ᵀ``, O(d) per iteration;
* :func:`ibu_ue` -- a *composite-likelihood* EM for unary encoding from
  support counts alone, O(d) per iteration (see below for exactly what it
  maximises);
* :func:`grr_mle` and :func:`ue_composite_mle` -- the limits of the two
  structured iterations computed directly (a water-filling formula for GRR, a
  one-dimensional root search for UE), useful when IBU would need many
  thousands of iterations.

Composite likelihood for unary encoding
---------------------------------------
A UE report is a d-bit vector; its exact likelihood under
input distribution π depends on the whole vector, so the exact EM (IBU on the
2^d-output channel) needs the reports themselves.  From the support counts
``C_v`` alone one can use the *marginal composite likelihood*: bit ``v`` of a
report is 1 with probability ``θ_v = q + (p - q) π_v``, so

    CL(π) = sum_v [ C_v log θ_v + (n - C_v) log(1 - θ_v) ],

i.e. each count is treated as ``Bin(n, θ_v)`` and the d counts as if they were
independent (they are not: the bits of one report are dependent through the
user's single value).  The EM for this composite likelihood is IBU applied
jointly to the d binary channels "bit v given input x" (``P(1 | v) = p``,
``P(1 | x != v) = q``), pooling the expected input counts over all d
components:

    π'(u) ∝ π(u) · [ (p - q)(C_u/θ_u - (n - C_u)/(1 - θ_u)) + q S_1 + (1 - q) S_0 ],

with ``S_1 = sum_v C_v/θ_v`` and ``S_0 = sum_v (n - C_v)/(1 - θ_v)``, which is
O(d).  CL never decreases along the iteration; CL is concave in π, and a
fixed point with π > 0 satisfies the Lagrange condition ``∂CL/∂π_u = const``,
so the limit is the maximum composite-likelihood estimate on the simplex.
It is consistent (each binomial margin is correctly specified) but it is
**not** the full-report maximum-likelihood estimate, and its efficiency can
differ from it.  When the raw estimate ``(C/n - q)/(p - q)`` is a distribution
it is the maximiser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy import optimize

from ._checks import check_distribution, check_init, check_iteration, check_real_rows, check_total, check_weights
from .audit import check_channel
from .exceptions import warn_not_converged

__all__ = [
    "norm_sub",
    "project_simplex",
    "clip_normalise",
    "IBUInfo",
    "ibu",
    "ibu_batch",
    "ibu_grr",
    "ibu_ue",
    "grr_mle",
    "ue_composite_mle",
    "log_likelihood",
    "ue_composite_log_likelihood",
]


# ---------------------------------------------------------------------------- validation (ldp._checks)
_vector_or_rows = check_real_rows
_total = check_total
_weights = check_weights
_iter_args = check_iteration
_init = check_init


# ---------------------------------------------------------------------------- post-processing
def project_simplex(v: Any, total: float = 1.0) -> np.ndarray:
    """Euclidean projection onto ``{w : w >= 0, sum(w) = total}``.

    The projection is ``w = max(v - θ, 0)`` with the threshold θ found exactly by
    sorting (Held, Wolfe & Crowder 1974; Duchi et al. 2008): with ``u`` the
    entries in decreasing order, θ = (sum of the ρ largest - total)/ρ for the
    largest ρ with ``u_ρ > (sum_{j<=ρ} u_j - total)/ρ``.  O(d log d).

    Parameters
    ----------
    v : array_like, shape (d,) or (r, d)
        A vector, or rows each projected separately.
    total : float
        The simplex scale (1 for frequencies, ``n`` for counts).
    """
    arr = _vector_or_rows(v, "v")
    t = _total(total)
    rows = np.atleast_2d(arr)
    # Work on (v - max v)/t, clamped at -1: the projection commutes with a common shift, scales with t, and
    # every entry <= max - t gets 0 (the threshold is >= max - t), so the clamp changes nothing.  This keeps
    # every intermediate in [-d, 0] whatever the magnitudes of v and total (no overflow, no cancellation).
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.maximum((rows - rows.max(axis=1, keepdims=True)) / t, -1.0)
    u = -np.sort(-z, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    idx = np.arange(1, rows.shape[1] + 1)
    cond = u - css / idx > 0
    rho = rows.shape[1] - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds (1-based)
    theta = css[np.arange(rows.shape[0]), rho - 1] / rho
    out = np.maximum(z - theta[:, None], 0.0)
    pos = out > 0
    out += np.where(pos, (1.0 - out.sum(axis=1, keepdims=True)) / pos.sum(axis=1, keepdims=True), 0.0)  # rounding
    return (out * t).reshape(arr.shape)


def norm_sub(estimate: Any, total: float = 1.0) -> np.ndarray:
    """Norm-Sub post-processing (Wang, Lopuhaä-Zwakenberg et al., NDSS 2020), at its fixed point.

    The procedure: set negative estimates to 0, subtract a common δ from the
    positive ones so that they sum to ``total``, and repeat while this creates
    new negatives.  It terminates at ``w_v = max(v - δ*, 0)`` for the entries
    that were positive in the input (entries that start non-positive stay 0),
    with δ* chosen so that ``sum(w) = total``.  This function computes that fixed
    point exactly, without iterating:

    * if the positive entries sum to more than ``total`` then δ* > 0 and the
      result is the Euclidean projection (:func:`project_simplex`) of the positive
      entries;
    * otherwise δ* = (sum of positives - total) / #positives <= 0: the positives
      are raised by the same amount and nothing else changes.

    If no entry is positive there is nothing to shift and the uniform vector
    ``total/d`` is returned (the method has no information to prefer any value).

    Parameters
    ----------
    estimate : array_like, shape (d,) or (r, d)
        Raw estimates (frequencies or counts); rows are processed separately.
    total : float
        Required sum (1 for frequencies, ``n`` for counts).
    """
    arr = _vector_or_rows(estimate, "estimate")
    t = _total(total)
    rows = np.atleast_2d(arr)
    out = np.zeros_like(rows)
    for i, row in enumerate(rows):
        pos = row > 0
        k = int(np.count_nonzero(pos))
        if k == 0:
            out[i] = t / row.size
            continue
        with np.errstate(over="ignore"):
            s = float(row[pos].sum())  # inf when the positives overflow: then s > t, the projection branch
        if s > t:
            out[i, pos] = project_simplex(row[pos], t)
        else:
            out[i, pos] = row[pos] - (s - t) / k
    return out.reshape(arr.shape)


def clip_normalise(v: Any, total: float = 1.0) -> np.ndarray:
    """Clip negative entries to 0 and rescale to sum to ``total`` (uniform if nothing is positive).

    Parameters
    ----------
    v : array_like, shape (d,) or (r, d)
    total : float
    """
    arr = _vector_or_rows(v, "v")
    t = _total(total)
    rows = np.maximum(np.atleast_2d(arr), 0.0)
    top = rows.max(axis=1, keepdims=True)
    rows = rows / np.where(top > 0, top, 1.0)  # scaled by the row maximum first: the sum cannot overflow
    s = rows.sum(axis=1, keepdims=True)
    out = np.where(s > 0, rows / np.where(s > 0, s, 1.0) * t, t / rows.shape[1])
    return out.reshape(arr.shape)


# ---------------------------------------------------------------------------- EM / IBU
@dataclass(frozen=True)
class IBUInfo:
    """Diagnostics of an EM run.

    Attributes
    ----------
    n_iter : int
        Iterations performed.
    converged : bool
        Whether the L1 change of the estimate fell below ``tol`` before ``max_iter``.
    log_likelihood : float
        Objective at the returned estimate (the full log-likelihood for
        :func:`ibu` / :func:`ibu_grr`, the composite one for :func:`ibu_ue`).
    objective : str
        ``"likelihood"`` or ``"composite likelihood"``.
    """

    n_iter: int
    converged: bool
    log_likelihood: float
    objective: str


def log_likelihood(channel: Any, output_counts: Any, pi: Any) -> float:
    """``sum_y n_y log (πP)_y``: multinomial log-likelihood of output counts under input distribution π."""
    P = check_channel(channel, atol=1e-9, name="channel")
    counts = _weights(output_counts, "output_counts", P.shape[1])
    if np.ndim(pi) != 1:
        raise ValueError(f"pi must be a vector of shape ({P.shape[0]},), got shape {np.shape(pi)}")
    pi = check_distribution(pi, P.shape[0], "pi")
    probs = pi @ P
    used = counts > 0
    with np.errstate(divide="ignore"):
        return float(np.sum(counts[used] * np.log(probs[used])))


def _run_em(step, pi: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, int, bool]:
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (the count of iterations run is returned)
        new = step(pi)
        change = float(np.abs(new - pi).sum())
        pi = new
        if change <= tol:
            converged = True
            break
    return pi, it, converged


def _run_em_rows(
    step: Callable, pi: np.ndarray, data: tuple[np.ndarray, ...], max_iter: int, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_run_em` for the rows of ``pi`` (shape (B, d)) run together, each stopping on its own.

    ``step(pi, *data)`` advances every row still running; ``data`` holds per-row inputs (arrays of B rows).
    A row stops at its first step whose L1 change is ``<= tol``, as it would alone, and leaves the batch (with
    its rows of ``data``), so the later steps cost only the rows still running.  Returns the rows' estimates,
    the iterations each ran and whether each converged.
    """
    out = np.empty_like(pi)
    n_iter = np.full(pi.shape[0], max_iter)
    converged = np.zeros(pi.shape[0], dtype=bool)
    rows = np.arange(pi.shape[0])
    for it in range(1, max_iter + 1):
        new = step(pi, *data)
        done = np.abs(new - pi).sum(axis=1) <= tol
        pi = new
        if done.any():
            out[rows[done]], n_iter[rows[done]], converged[rows[done]] = pi[done], it, True
            keep = ~done
            rows, pi, data = rows[keep], pi[keep], tuple(a[keep] for a in data)
            if not rows.size:
                break
    out[rows] = pi
    return out, n_iter, converged


def _em_result(
    pi: np.ndarray,
    it: int,
    converged: bool,
    method: str,
    max_iter: int,
    tol: float,
    return_info: bool,
    objective: Callable[[], float],
    kind: str = "likelihood",
) -> np.ndarray | tuple[np.ndarray, IBUInfo]:
    """The end of every EM estimator here: warn when it stopped at ``max_iter``, return ``pi`` (and its
    :class:`IBUInfo` when ``return_info``; ``objective`` is evaluated only then).

    For rows run together (:func:`ibu_batch`) ``it``, ``converged`` and ``objective()`` have one entry per row,
    one warning covers the rows that stopped at ``max_iter`` and the info is a list of one :class:`IBUInfo` per row.
    """
    if np.ndim(converged):
        late = int(np.size(converged) - np.count_nonzero(converged))
        warn_not_converged(not late, f"{method} ({late} of {np.size(converged)} rows)", max_iter, tol)
        if not return_info:
            return pi
        return pi, [IBUInfo(int(i), bool(c), float(o), kind) for i, c, o in zip(it, converged, objective())]
    warn_not_converged(converged, method, max_iter, tol)
    if not return_info:
        return pi
    return pi, IBUInfo(it, converged, float(objective()), kind)


def _ibu_step(pi: np.ndarray, forward: Callable, back: Callable, frac: np.ndarray) -> np.ndarray:
    """One IBU iteration: ``forward(π) = πP`` on the observed outputs, ``back(w) = P w`` (``frac``: their shares).

    ``pi`` may also hold rows (shape (B, d)), with ``frac`` one row per row of ``pi``: each row is normalised alone.
    """
    new = pi * back(frac / forward(pi))
    return new / (new.sum() if new.ndim == 1 else new.sum(axis=1, keepdims=True))  # rows: each its own sum


#: channels with fewer entries than this are always multiplied densely (two BLAS calls beat any structure there)
_STRUCTURE_MIN_ENTRIES = 1 << 14
#: the background + sparse form is used when at most this share of the entries differ from their column minimum
_SPARSE_SHARE = 1 / 64
#: entries within this relative distance of their column minimum are taken as equal to it (8 ulps: a channel
#: normalised row by row carries such noise; treating it as the minimum moves each product by < 1e-14 relative)
_SAME_AS_MINIMUM = 8 * np.finfo(float).eps
#: the Hadamard form is used when the larger of the two channel values is at most this many times the smaller
#: (the transform adds and subtracts, so its rounding error relative to πP grows with that ratio)
_HADAMARD_MAX_RATIO = 64.0


def _channel_products(P: np.ndarray, Pu: np.ndarray, used: np.ndarray) -> tuple[Callable, Callable]:
    """``forward(π) = (πP)[used]`` and ``back(w) = Pu @ w`` (``Pu = P[:, used]``) in the cheapest exact form.

    Three forms, tried in this order (each gives the dense products up to rounding, ~1e-16 relative per call,
    because every sum it forms has non-negative terms or is bounded by ``_HADAMARD_MAX_RATIO``):

    * *background + sparse*: ``P = 1 bᵀ + S`` with ``b`` the column minima and ``S >= 0`` holding at most 1/64
      of the entries (GRR: ``S = (p - q) I``; block channels with a few larger entries per row; entries within
      8 ulps of their column's minimum count as equal to it): O(d + m + nnz(S)) per product, by ``bincount``,
      or three numpy calls when ``S`` is diagonal and ``b`` constant (GRR with every output reported);
    * *Hadamard*: two values ``lo < hi`` laid out as rows of the Sylvester--Hadamard matrix
      (``P[x, y] = lo + (hi - lo)(1 ± H[i_x, y])/2``, e.g. Hadamard response): one Walsh--Hadamard transform
      per product, as two small matrix products (``H_K = H_A ⊗ H_B``), O(K^1.5), about 4 µs at K = 1024;
    * otherwise the dense products (two BLAS matrix-vector products), exactly as before.

    Small channels (fewer than ``_STRUCTURE_MIN_ENTRIES`` entries) always take the dense form.
    """
    return _structured_products(P, Pu, used) or (lambda pi: pi @ Pu, lambda w: Pu @ w)


def _structured_products(P: np.ndarray, Pu: np.ndarray, used: np.ndarray) -> tuple[Callable, Callable] | None:
    """The structured forms of :func:`_channel_products`, or None when it takes the dense products."""
    if P.size < _STRUCTURE_MIN_ENTRIES:
        return None
    return _sparse_products(Pu) or _hadamard_products(P, used)


def _sparse_products(Pu: np.ndarray) -> tuple[Callable, Callable] | None:
    """The background + sparse form of :func:`_channel_products`, or None when ``P - 1 bᵀ`` is not sparse."""
    d, m = Pu.shape
    b = Pu.min(axis=0)
    above = Pu > b * (1.0 + _SAME_AS_MINIMUM)  # a few ulps above the minimum count as the minimum (rounding noise)
    if np.count_nonzero(above) > _SPARSE_SHARE * Pu.size:
        return None
    rows, cols = np.nonzero(above)
    vals = Pu[rows, cols] - b[cols]
    if rows.size == d == m and np.array_equal(rows, cols) and np.all(b == b[0]):
        return _grr_like_products(float(b[0]), vals)

    def forward(pi: np.ndarray) -> np.ndarray:
        return b * pi.sum() + np.bincount(cols, vals * pi[rows], minlength=m)

    def back(w: np.ndarray) -> np.ndarray:
        return np.dot(b, w) + np.bincount(rows, vals * w[cols], minlength=d)

    return forward, back


def _grr_like_products(q: float, diag: np.ndarray) -> tuple[Callable, Callable]:
    """The products for ``P = q 11ᵀ + diag(diag)`` (GRR: ``diag = p - q``), three numpy calls each."""
    total = np.empty(())

    def forward(pi: np.ndarray) -> np.ndarray:
        np.multiply(pi.sum(), q, out=total)
        return np.add(diag * pi, total)

    def back(w: np.ndarray) -> np.ndarray:
        np.multiply(w.sum(), q, out=total)
        return np.add(diag * w, total)

    return forward, back


def _sylvester(k: int) -> np.ndarray:
    idx = np.arange(1 << k)
    return 1.0 - 2.0 * (np.bitwise_count(idx[:, None] & idx[None, :]) & 1)


def _hadamard_products(P: np.ndarray, used: np.ndarray) -> tuple[Callable, Callable] | None:
    """The Hadamard form of :func:`_channel_products`, or None when the channel is not laid out that way."""
    d, K = P.shape
    lo, hi = float(P.min()), float(P.max())
    if K & (K - 1) or K < 4 or not 0 < lo < hi <= _HADAMARD_MAX_RATIO * lo:
        return None
    high = P == hi
    if not np.all(high | (P == lo)) or not (np.all(high[:, 0]) or not np.any(high[:, 0])):
        return None
    sign = 1.0 if high[0, 0] else -1.0  # column 0 of H is all +1: it tells which value goes with +1
    k = K.bit_length() - 1
    row = ((high[:, 1 << np.arange(k)] != high[:, :1]) << np.arange(k)).sum(axis=1)  # H[i, 2^j] = -1 iff bit j
    ys = np.arange(K)
    if not np.array_equal(high != high[:, :1], (np.bitwise_count(row[:, None] & ys) & 1).astype(bool)):
        return None
    mid, half = (lo + hi) / 2, sign * (hi - lo) / 2  # P[x, y] = mid + half H[row_x, y]
    return _walsh_products(row, used, half * _sylvester(k // 2), _sylvester(k - k // 2), mid / half)


def _walsh_products(
    row: np.ndarray, used: np.ndarray, HA: np.ndarray, HB: np.ndarray, shift: float
) -> tuple[Callable, Callable]:
    """The products for ``P[x, y] = half (shift + H[row_x, y])`` with ``H = H_A ⊗ H_B`` and ``half`` folded into ``HA``.

    Row 0 of ``H`` is all ones, so entry 0 of the transform ``T = half H z`` is ``half Σz``, and the constant
    term ``half·shift·Σz`` is ``shift·T[0]``: ``zP = T + shift T[0]`` (no separate sum).  ``H z`` is
    ``HA Z HB`` with ``z`` laid out as an ``A x B`` matrix ``Z``.
    """
    K = used.size
    shape = (HA.shape[0], HB.shape[0])
    every = bool(np.all(used))
    picked = np.flatnonzero(used)
    start = int(row[0])
    block = slice(start, start + row.size) if np.array_equal(row, np.arange(start, start + row.size)) else None
    z, full = np.zeros(K), np.zeros(K)  # outside the rows (forward) or the used outputs (back) they stay 0

    def transform(v: np.ndarray) -> np.ndarray:
        out = np.dot(np.dot(HA, v.reshape(shape)), HB).ravel()
        return np.add(out, shift * out[0], out=out)

    def forward(pi: np.ndarray) -> np.ndarray:
        if block is None:
            out = transform(np.bincount(row, pi, minlength=K))
        else:  # rows in one block (Hadamard response: rows 1..d)
            np.copyto(z[block], pi)
            out = transform(z)
        return out if every else out[picked]

    def back(w: np.ndarray) -> np.ndarray:
        if every:
            np.copyto(full, w)
        else:
            full[picked] = w
        out = transform(full)
        return out[row] if block is None else out[block]

    return forward, back


def ibu(
    channel: Any,
    output_counts: Any,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-12,
    init: Any = None,
    return_info: bool = False,
) -> np.ndarray | tuple[np.ndarray, IBUInfo]:
    """Iterative Bayesian update: EM for the input distribution of a finite channel.

    With ``n_y`` reports of output ``y`` and channel ``P`` (rows = inputs), each
    iteration is

        π'(x) = π(x) · sum_y (n_y / n) · P[x, y] / (πP)_y,

    the EM step for the multinomial likelihood ``sum_y n_y log (πP)_y``
    (Agrawal & Aggarwal 2001; ElSalamouny & Palamidessi 2020).  Every iterate is
    a distribution and the likelihood never decreases.  Vectorised: two
    matrix-vector products, O(d·m) per iteration, or less where the channel has
    structure that gives the same products (found once from the matrix itself;
    see :func:`_channel_products`): O(d + m) for GRR-like channels (a constant
    per column plus a few larger entries), O(K^1.5) for Hadamard response.  Many
    count vectors through one channel (the trials of an experiment): :func:`ibu_batch`.

    Parameters
    ----------
    channel : array_like, shape (d, m)
        Row-stochastic channel ``P(y | x)``.
    output_counts : array_like, shape (m,)
        Counts (or non-negative weights) of each output.
    max_iter : int
        Maximum number of iterations.
    tol : float
        Stop when the L1 change of π in one iteration is <= ``tol``.
    init : array_like, shape (d,), optional
        Starting distribution (uniform by default).  Entries that start at 0
        stay 0.
    return_info : bool
        Also return an :class:`IBUInfo`.

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, IBUInfo)
        The estimated input distribution (sums to 1).
    """
    P = check_channel(channel, atol=1e-9, name="channel")
    counts = _weights(output_counts, "output_counts", P.shape[1])
    max_iter, tol = _iter_args(max_iter, tol)
    pi = _init(init, P.shape[0])
    _check_producible(P, counts, pi, "output_counts")
    pi, it, conv = _ibu_vector(P, counts, pi, max_iter, tol)
    return _em_result(pi, it, conv, "ibu", max_iter, tol, return_info, lambda: _ibu_log_likelihood(P, counts, pi))


def _check_producible(P: np.ndarray, counts: np.ndarray, init: np.ndarray, name: str) -> None:
    """Refuse counts (a vector, or rows) of an output that no input with positive ``init`` can produce."""
    bad = np.argwhere((counts > 0) & (init @ P <= 0))  # a sum of non-negative terms: 0 only if every term is
    if bad.size:
        where = f"{name}[{bad[0, 0]}]" if counts.ndim == 2 else name
        raise ValueError(f"{where} has reports of an output that no input with positive init can produce")


def _ibu_vector(
    P: np.ndarray, counts: np.ndarray, pi: np.ndarray, max_iter: int, tol: float
) -> tuple[np.ndarray, int, bool]:
    """The iteration of :func:`ibu` on checked arguments: ``(π, iterations, converged)``."""
    used = counts > 0
    Pu = P[:, used]  # a copy even when every output is used: BLAS's summation order can depend on the buffer
    frac = counts[used] / counts.sum()
    forward, back = _channel_products(P, Pu, used)
    return _run_em(lambda x: _ibu_step(x, forward, back, frac), pi, max_iter, tol)


def _ibu_log_likelihood(P: np.ndarray, counts: np.ndarray, pi: np.ndarray) -> float:
    """``sum_y n_y log (πP)_y`` over the reported outputs (checked arguments)."""
    used = counts > 0
    return float(np.sum(counts[used] * np.log(pi @ P[:, used])))


def ibu_batch(
    channel: Any,
    output_counts: Any,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-12,
    init: Any = None,
    return_info: bool = False,
    precision: str = "double",
) -> np.ndarray | tuple[np.ndarray, list[IBUInfo]]:
    """:func:`ibu` for many count vectors through one channel: row ``i`` is ``ibu(channel, output_counts[i])``.

    For the trials of an experiment.  A channel with structure (GRR-like, Hadamard response; ``2^14`` entries or
    more; see :func:`_channel_products`) runs each row by :func:`ibu`'s own iteration, exactly.  Any other runs
    all rows still going as two matrix--matrix products per step on the outputs some row reported (an output a
    row did not report adds an exact 0 to its step), so the channel is read once per step for all rows; each
    row's iterates are :func:`ibu`'s up to the summation order (about 1e-16 relative per step).  It pays off for
    large dense channels with one BLAS thread, and can be slower than B calls of :func:`ibu` on small ones.
    Each row stops at its own first step whose L1 change is ``<= tol``, as its own :func:`ibu` run would.

    Parameters
    ----------
    channel : array_like, shape (d, m)
        Row-stochastic channel ``P(y | x)``.
    output_counts : array_like, shape (B, m)
        One row of output counts (or non-negative weights) per estimate, B >= 1; each row must be valid
        input to :func:`ibu` (a single vector is refused: use :func:`ibu`).
    max_iter, tol, init : int, float, array_like of shape (d,), optional
        As in :func:`ibu`, for each row (one start for every row; uniform by default).
    return_info : bool
        Also return a list of B :class:`IBUInfo`, one per row.
    precision : {"double", "single"}
        ``"single"``: float32 products on a channel without structure (float64 update), about 1.8x faster;
        the iterates drift from float64's (1e-7 after 10^3 steps, 7e-7 after 10^4 at d = 1000, where the SD
        across rows is near 1e-3) and ``tol`` much below 1e-7 may not be reached (:func:`_ibu_rows_single`).

    Returns
    -------
    numpy.ndarray of shape (B, d), or (numpy.ndarray, list of IBUInfo)
        The estimated input distributions, one per row.  One :class:`~ldp.exceptions.ConvergenceWarning`
        says how many rows stopped at ``max_iter``.
    """
    if precision not in ("double", "single"):
        raise ValueError(f'precision must be "double" or "single", got {precision!r}')
    P = check_channel(channel, atol=1e-9, name="channel")
    counts = _count_rows(output_counts, P.shape[1])
    max_iter, tol = _iter_args(max_iter, tol)
    init = _init(init, P.shape[0])
    _check_producible(P, counts, init, "output_counts")
    if _structured_products(P, P, np.ones(P.shape[1], dtype=bool)) is not None:
        pi, it, conv = (np.array(v) for v in zip(*[_ibu_vector(P, row, init, max_iter, tol) for row in counts]))
    elif precision == "single":
        pi, it, conv = _ibu_rows_single(P, counts, init, max_iter, tol)
    else:
        pi, it, conv = _ibu_rows(P, counts, init, max_iter, tol)

    def objective() -> list[float]:
        return [_ibu_log_likelihood(P, c, p) for c, p in zip(counts, pi)]

    return _em_result(pi, it, conv, "ibu_batch", max_iter, tol, return_info, objective)


def _ibu_rows_single(
    P: np.ndarray, counts: np.ndarray, init: np.ndarray, max_iter: int, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_ibu_rows` with the two products of each step in float32 (``ibu_batch(precision="single")``).

    The channel, the rows and the ratios ``frac / (πP)`` are float32; the estimates and their update stay
    float64.  Single products run at about twice the float64 rate, but each step's factor carries a relative
    error of a few 1e-7 that does not shrink at the fixed point, so the iterates drift from the float64 ones:
    on a random symmetric 1000 x 1000 channel with 2e5 reports per row, by at most 9e-8 (absolute) after 10^3
    steps and 7e-7 after 10^4, against a statistical standard deviation across rows of 8e-4 and 2e-3 (medians
    over the values).  The float32 products of a row depend slightly on the other rows of the batch (about
    1e-6 after a few thousand steps), and so can its stopping step.  An L1 change ``tol`` much below 1e-7 may
    never be reached: on a random 200 x 300 channel, 1e-7 took between 1 % fewer and 14 % more steps than
    float64, and 1e-8 was not reached in 5·10^4 steps where float64 needed 18,105 for one row.  Channel entries
    or output shares below float32's normal range are refused, and a probability that underflows raises
    ``FloatingPointError`` at that step.
    """
    tiny = np.finfo(np.float32).tiny
    shares = counts / counts.sum(axis=1, keepdims=True)
    for what, arr in (("channel entry", P), ("output's share of a row's counts", shares)):
        if np.any((arr > 0) & (arr < tiny)):
            raise ValueError(
                f'precision="single" needs every positive {what} to be a normal float32 (>= 1.2e-38); '
                'smaller ones would be rounded towards 0: use precision="double"'
            )
    Pu, frac, pad, start = _dense_rows_setup(P, counts, init)
    Pu = Pu.astype(np.float32)
    # OpenBLAS's float32 kernel reads a transposed operand about 1.3x slower (20.8 against 15.6 µs per row at
    # 1000 x 1000, one thread), so the back product gets its own contiguous copy
    PuT = np.ascontiguousarray(Pu.T)

    def step(pi: np.ndarray, frac: np.ndarray, pad: np.ndarray) -> np.ndarray:
        # _ibu_step with the ratio frac / (πP) formed in float32, in place (one pass fewer each way)
        ratio = pi.astype(np.float32) @ Pu
        ratio += pad
        np.divide(frac, ratio, out=ratio)
        new = pi * (ratio @ PuT)
        total = new.sum(axis=1, keepdims=True)
        if not np.all(np.isfinite(total)):
            raise FloatingPointError(
                'ibu_batch with precision="single" lost a reported output (its float32 probability (πP)_y fell '
                'to 0): use precision="double"'
            )
        new /= total
        return new

    with np.errstate(all="ignore"):  # an underflow raises in the step
        return _run_em_rows(step, start, (frac.astype(np.float32), pad.astype(np.float32)), max_iter, tol)


def _count_rows(output_counts: Any, m: int) -> np.ndarray:
    """The rows of counts of :func:`ibu_batch`, shape (B, m), each checked as :func:`ibu` checks its counts."""
    try:
        arr = np.asarray(output_counts)
    except ValueError as exc:  # ragged rows
        raise ValueError(f"output_counts must be a 2-D array of shape (B, {m}): {exc}") from None
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(
            f"output_counts must be a 2-D array of shape (B, {m}) with B >= 1 rows (one count vector per row; "
            f"for a single vector use ibu), got shape {arr.shape}"
        )
    return np.array([_weights(row, f"output_counts[{i}]", m) for i, row in enumerate(arr)])


def _dense_rows_setup(
    P: np.ndarray, counts: np.ndarray, init: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the dense iterations of :func:`ibu_batch` start from: the channel on the outputs some row reported,
    each row's shares of them, the pad of the outputs a row did not report, and every row's start."""
    cols = np.any(counts > 0, axis=0)
    Pu = P[:, cols]  # the outputs some row reported (a C-ordered copy: the forward product is a plain GEMM)
    frac = counts[:, cols] / counts.sum(axis=1, keepdims=True)
    # an output a row did not report has frac 0; adding 1 to its (πP)_y keeps frac/(πP) an exact 0 even where
    # (πP)_y = 0 (a row's support can shrink), and adding 0 elsewhere leaves every other entry as it is
    pad = (frac == 0).astype(float)
    return Pu, frac, pad, np.tile(init, (counts.shape[0], 1))


def _ibu_rows(
    P: np.ndarray, counts: np.ndarray, init: np.ndarray, max_iter: int, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dense iteration of :func:`ibu_batch`: the steps of all rows still running as two matrix products."""
    Pu, frac, pad, start = _dense_rows_setup(P, counts, init)
    PuT = Pu.T  # the back product reads the same buffer transposed (BLAS takes the transpose flag, no copy)

    def step(pi: np.ndarray, frac: np.ndarray, pad: np.ndarray) -> np.ndarray:
        return _ibu_step(pi, lambda x: np.add(x @ Pu, pad), lambda w: w @ PuT, frac)

    return _run_em_rows(step, start, (frac, pad), max_iter, tol)


def _pq(p: Any, q: Any) -> tuple[float, float]:
    for name, val in (("p", p), ("q", q)):
        if isinstance(val, bool) or not isinstance(val, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a real number, got {val!r}")
    p, q = float(p), float(q)
    if not (0 <= q < p <= 1):
        raise ValueError(f"need 0 <= q < p <= 1, got p={p!r}, q={q!r}")
    return p, q


def ibu_grr(
    counts: Any,
    p: float,
    q: float,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-12,
    init: Any = None,
    return_info: bool = False,
) -> np.ndarray | tuple[np.ndarray, IBUInfo]:
    """IBU for generalised randomized response in O(d) per iteration.

    The GRR channel is ``P = (p - q) I + q 11ᵀ`` with ``p + (d - 1) q = 1``, so
    ``(πP)_y = (p - q) π_y + q`` and ``(P w)_x = (p - q) w_x + q sum(w)``: the
    iteration of :func:`ibu` costs O(d) instead of O(d²) and gives the same
    iterates (up to rounding); see :func:`_ibu_grr_loop` for the form used.

    Parameters
    ----------
    counts : array_like, shape (d,)
        Number of GRR reports of each value.
    p, q : float
        GRR keep and flip probabilities (``GRR(eps, d).p``, ``.q``); must satisfy
        ``p + (d - 1) q = 1`` within 1e-9.
    max_iter, tol, init, return_info
        As in :func:`ibu`, except that the L1 change is measured on every 16th iteration only:
        a run stops at the first multiple of 16 (or at ``max_iter``) whose one-step change is
        ``<= tol``, which can be up to 15 iterations after :func:`ibu` would stop.
    """
    p, q = _pq(p, q)
    c = _weights(counts, "counts")
    d = c.size
    if d < 2:
        raise ValueError(f"counts must have length >= 2 (the domain size), got {d}")
    if abs(p + (d - 1) * q - 1.0) > 1e-9:
        raise ValueError(f"p + (d-1) q must equal 1 for a GRR channel with d={d}, got {p + (d - 1) * q!r}")
    max_iter, tol = _iter_args(max_iter, tol)
    pi = _init(init, d)
    frac = c / c.sum()
    used = frac > 0
    a = p - q
    if np.any((a * pi + q)[used] <= 0):
        raise ValueError("counts has reports of a value that no input with positive init can produce")

    pi, it, conv = _ibu_grr_loop(pi, frac, used, a, q, max_iter, tol)
    return _em_result(
        pi, it, conv, "ibu_grr", max_iter, tol, return_info, lambda: np.sum(c[used] * np.log(a * pi[used] + q))
    )


def _ibu_grr_loop(
    pi: np.ndarray, frac: np.ndarray, used: np.ndarray, a: float, q: float, max_iter: int, tol: float
) -> tuple[np.ndarray, int, bool]:
    """The IBU iteration for GRR in ``ψ = a π`` with five O(g) calls per step; convergence tested every 16 steps.

    With ``w = frac / (a π + q)`` the update is ``π' = π ∘ (a w + q Σw)``.  Multiplying by ``a``
    and writing ``r = a w = (a frac)/(ψ + q)`` gives

        ψ' = ψ ∘ (r + (q/a) Σr),

    one add, one divide, one dot product (``Σr`` times ``q/a``, into a 0-d array that is then added in
    place) and one multiply: the same iterates as :func:`ibu` up to rounding.  Two values with the same
    report share and the same starting value follow the same path (the update couples them only through
    ``Σr``), so the iteration runs on the ``g <= d`` distinct (share, start) pairs, each weighted by how
    many values carry it (``Σr`` becomes a weighted sum).  GRR counts are integers spread over a few
    multiples of ``sqrt(n/d)``, so ``g`` is often much smaller than ``d``.  No normalisation is needed
    (``Σψ' = a`` exactly); ``ψ`` is rescaled to sum to ``a`` at every check to remove rounding drift.  The
    L1 change of ``π`` over one step, ``|ψ' - ψ|_1 / a``, is measured only on every 16th step (and on the
    last one), so a run stops at the first such step whose change is ``<= tol``: up to 15 steps later
    than checking every step, never earlier, which can only bring the result closer to the fixed point.
    A step is bound by Python call overhead.
    """
    first, inverse, weight = _distinct_pairs(frac, pi)
    psi = a * pi[first]
    afrac = a * frac[first]
    used = used[first]
    g = psi.size
    scale = weight * (q / a)  # dot(r, scale) = (q/a) Σr, each distinct pair counted as often as it occurs
    den, r, prev = (np.empty(g) for _ in range(3))
    shift, qs = np.empty(()), np.full(g, q)  # 0-d and full arrays: no Python scalars in the loop
    add, div, mul, dot = np.add, np.divide, np.multiply, np.dot
    exact_zero = q == 0.0  # identity channel: ψ + q can be 0 where frac is 0 (0/0); use a masked divide
    converged, it = False, 0
    while it < max_iter:
        block = min(_IBU_CHECK_EVERY, max_iter - it)
        for step in range(block):
            if step == block - 1:
                np.copyto(prev, psi)
            add(psi, qs, den)
            if exact_zero:
                r.fill(0.0)
                div(afrac, den, out=r, where=used)
            else:
                div(afrac, den, r)
            dot(r, scale, out=shift)
            add(r, shift, r)
            mul(psi, r, psi)
        it += block
        np.subtract(psi, prev, out=prev)
        change = float(dot(np.abs(prev, out=prev), weight)) / a
        psi *= a / dot(psi, weight)
        if change <= tol:
            converged = True
            break
    pi = psi[inverse] / a
    return pi / pi.sum(), it, converged


def _distinct_pairs(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the pairs ``(u_i, v_i)``: the index of one occurrence of each distinct pair, the distinct pair of
    every ``i`` (``inverse``) and how many times each occurs (as floats)."""
    order = np.lexsort((v, u))
    su, sv = u[order], v[order]
    new = np.ones(u.size, dtype=bool)
    new[1:] = (su[1:] != su[:-1]) | (sv[1:] != sv[:-1])
    group = np.cumsum(new) - 1
    inverse = np.empty(u.size, dtype=np.intp)
    inverse[order] = group
    return order[new], inverse, np.bincount(group).astype(float)


#: :func:`ibu_grr` measures the L1 change on every 16th step only (the check costs as much as a step)
_IBU_CHECK_EVERY = 16


def ue_composite_log_likelihood(support_counts: Any, n: int, p: float, q: float, pi: Any) -> float:
    """Composite log-likelihood of UE support counts: ``sum_v log Bin(C_v; n, q + (p - q) π_v)`` (no constants)."""
    p, q = _pq(p, q)
    C, n = _ue_counts(support_counts, n)
    theta = q + (p - q) * np.asarray(pi, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(C > 0, C * np.log(theta), 0.0) + np.where(n - C > 0, (n - C) * np.log1p(-theta), 0.0)
    return float(terms.sum())


def _ue_counts(support_counts: Any, n: Any) -> tuple[np.ndarray, int]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1 (the number of reports), got {n!r}")
    C = _weights(support_counts, "support_counts")
    if C.size < 2:
        raise ValueError(f"support_counts must have length >= 2 (the domain size), got {C.size}")
    if np.any(C > n):
        raise ValueError(f"support_counts cannot exceed n={n}, got maximum {C.max()!r}")
    return C, int(n)


def _ue_step(pi: np.ndarray, C: np.ndarray, Z: np.ndarray, a: float, q: float) -> np.ndarray:
    """One composite-likelihood EM iteration for UE support counts ``C`` (``Z = n - C``, ``a = p - q``)."""
    theta = q + a * pi
    r1 = C / theta
    r0 = Z / (1.0 - theta)
    new = pi * (a * (r1 - r0) + q * r1.sum() + (1.0 - q) * r0.sum())
    return new / new.sum()


def ibu_ue(
    support_counts: Any,
    n: int,
    p: float,
    q: float,
    *,
    method: str = "exact",
    max_iter: int = 10_000,
    tol: float = 1e-12,
    init: Any = None,
    return_info: bool = False,
) -> np.ndarray | tuple[np.ndarray, IBUInfo]:
    """Composite-likelihood EM for unary encoding (SUE/OUE) from support counts, O(d) per iteration.

    It maximises the *marginal composite likelihood* of the counts, not the
    full-report likelihood: see "Composite likelihood for unary encoding" in
    the module docstring for the iteration and what its limit is.

    Each component carries only about 1/d of the information on π_u, so the
    iteration moves slowly (thousands of iterations at d = 100).  By default
    (``method="exact"``) the limit is therefore computed directly with
    :func:`ue_composite_mle`; ``method="em"`` runs the iteration itself.

    Parameters
    ----------
    support_counts : array_like, shape (d,)
        ``C_v``: number of reports with bit ``v`` set.
    n : int
        Number of reports.
    p, q : float
        UE bit probabilities (0 < q < p < 1).
    method : {"exact", "em"}
        Compute the fixed point directly, or iterate the EM.
    max_iter, tol, init
        As in :func:`ibu` (used by ``method="em"`` only).
    return_info : bool
        Also return an :class:`IBUInfo` (``objective == "composite likelihood"``;
        for ``"exact"``, ``n_iter`` counts root-search evaluations).
    """
    if method == "exact":
        return ue_composite_mle(support_counts, n, p, q, return_info=return_info)
    if method != "em":
        raise ValueError(f"method must be 'exact' or 'em', got {method!r}")
    p, q = _ue_pq(p, q)
    C, n = _ue_counts(support_counts, n)
    max_iter, tol = _iter_args(max_iter, tol)
    pi = _init(init, C.size)
    pi, it, conv = _run_em(lambda x: _ue_step(x, C, n - C, p - q, q), pi, max_iter, tol)
    objective = partial(ue_composite_log_likelihood, C, n, p, q, pi)
    return _em_result(pi, it, conv, "ibu_ue", max_iter, tol, return_info, objective, "composite likelihood")


def _ue_pq(p: Any, q: Any) -> tuple[float, float]:
    p, q = _pq(p, q)
    if not (0 < q and p < 1):
        raise ValueError(f"unary encoding needs 0 < q < p < 1, got p={p!r}, q={q!r}")
    return p, q


def ue_composite_mle(
    support_counts: Any, n: int, p: float, q: float, *, return_info: bool = False
) -> np.ndarray | tuple[np.ndarray, IBUInfo]:
    """The maximiser of the UE composite likelihood on the simplex (the limit of :func:`ibu_ue`).

    CL (see :func:`ibu_ue`) is a sum of concave functions of one coordinate
    each, so the KKT conditions read ``π_u = clip(θ_u(μ) - q, 0, p - q)/(p - q)``
    where ``θ_u(μ)`` solves ``(p - q)(C_u/θ - (n - C_u)/(1 - θ)) = μ``:

        θ_u(μ) = 2 a C_u / ( (μ + a n) + sqrt((μ + a n)² - 4 μ a C_u) ),   a = p - q,

    and the multiplier μ is the root of ``sum_u π_u(μ) = 1`` (decreasing in μ),
    found by Brent's method.  O(d) per evaluation, about 50 evaluations.

    Parameters
    ----------
    support_counts : array_like, shape (d,)
    n : int
    p, q : float
        0 < q < p < 1.
    return_info : bool
        Also return an :class:`IBUInfo` (``n_iter`` = function evaluations).
    """
    p, q = _ue_pq(p, q)
    C, n = _ue_counts(support_counts, n)
    a = p - q

    def pi_of(mu: float) -> np.ndarray:
        b = mu + a * n
        disc = np.maximum(b * b - 4.0 * mu * a * C, 0.0)
        root = np.sqrt(disc)
        if b > 0:  # stable form of the root in (0, 1)
            theta = 2.0 * a * C / (b + root)
        else:  # here mu <= -a n < 0, and b - root <= 0
            theta = (b - root) / (2.0 * mu)
        return np.clip((theta - q) / a, 0.0, 1.0)

    def deriv(theta: float) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return a * (C / theta - (n - C) / (1.0 - theta))

    lo = float(np.min(deriv(p)))  # every π_u = 1 at or below this multiplier
    hi = float(np.max(deriv(q)))  # every π_u = 0 at or above it
    span = max(abs(lo), abs(hi), 1.0)
    lo, hi = lo - 1e-9 * span, hi + 1e-9 * span
    mu, res = optimize.brentq(
        lambda m: pi_of(m).sum() - 1.0, lo, hi, xtol=1e-15 * span, rtol=4 * np.finfo(float).eps, full_output=True
    )
    pi = pi_of(mu)
    pi = pi / pi.sum()
    if not return_info:
        return pi
    return pi, IBUInfo(
        int(res.function_calls),
        bool(res.converged),
        ue_composite_log_likelihood(C, n, p, q, pi),
        "composite likelihood",
    )


def grr_mle(counts: Any, p: float, q: float) -> np.ndarray:
    """Maximum-likelihood estimate of the input distribution from GRR counts (the limit of :func:`ibu_grr`).

    The GRR log-likelihood ``sum_y c_y log((p - q) π_y + q)`` is separable and
    concave; its KKT conditions on the simplex give the water-filling solution

        π_y = max(c_y / μ - q/(p - q), 0),

    with μ fixed by ``sum_y π_y = 1``.  With the counts sorted in decreasing
    order and k values active, μ = (c_1 + ... + c_k) / (1 + k q/(p - q)); k is the
    largest for which the k-th count stays active.  O(d log d), no iteration.

    Parameters
    ----------
    counts : array_like, shape (d,)
        GRR report counts.
    p, q : float
        GRR probabilities with ``p + (d - 1) q = 1``.
    """
    p, q = _pq(p, q)
    c = _weights(counts, "counts")
    d = c.size
    if d < 2:
        raise ValueError(f"counts must have length >= 2 (the domain size), got {d}")
    if abs(p + (d - 1) * q - 1.0) > 1e-9:
        raise ValueError(f"p + (d-1) q must equal 1 for a GRR channel with d={d}, got {p + (d - 1) * q!r}")
    s = q / (p - q)
    srt = np.sort(c)[::-1]
    k = np.arange(1, d + 1)
    mu = np.cumsum(srt) / (1.0 + k * s)
    active = srt / mu > s
    kk = int(np.flatnonzero(active)[-1]) + 1
    pi = np.maximum(c / mu[kk - 1] - s, 0.0)
    return pi / pi.sum()
