"""Theoretical correlation-induced privacy leakage (CPL): Section IV of Jayawardana et al.

Setting (Fig. 2(b) of the paper).  A user holds two correlated attributes, the
*primary* ``X_k`` (alphabet size ``m``) and a *neighbour* ``X̂`` (alphabet size
``t``).  Only the neighbour's report ``Ŷ = M̂(X̂)`` is considered here.  Because
``X_k → X̂ → Ŷ`` is a Markov chain (Appendix D), the report is a channel from
``X_k`` to ``Ŷ`` whose matrix is the product

    M = P @ T,   P[x, u] = P(X̂ = u | X_k = x),   T[u, y] = p(y | u),

and the CPL of ``X_k`` caused by ``X̂`` (Proposition IV.1, Eq. (7)-(8)) is the
exact privacy level of that composed channel:

    L_{X̂→X_k} = ln max_y max_{x ≠ x'} M[x, y] / M[x', y].

Everything in this module is a function of ``P`` (always *conditional on the
primary*: rows = values of ``X_k``, each row a distribution over ``X̂``) and
either the neighbour's channel ``T`` (Algorithm 1) or only its privacy
parameters ``(ε, δ)`` (Algorithm 2).  The arrow in ``L_{X̂→X_k}`` is the
direction of leakage; giving ``P(X_k | X̂)`` instead computes the other
direction, which is a different number (observation OB1).

Corrections to the printed paper, each documented where it is implemented:

* Algorithm 1 loops over the *columns* ``C = T[:, y]`` of the transition matrix
  (a fixed output), as Eq. (8) defines ``C``; the printed line 3 takes a row,
  which agrees only for symmetric channels (GRR, EXP).  ``reading="rows"``
  reproduces the printed version for the errata discussion.
* Algorithm 2 sorts the element-wise *ratio* ``G ⊘ G'`` (printed "G ⊙ G'"); a
  ratio ``g / 0`` with ``g > 0`` is ``+inf`` (always selected first) and ``0/0``
  is skipped.
* Corollary H.1's proof means ``H̄* = e^ε``, not ``ε``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .._checks import (
    as_generator,
    check_domain_size,
    check_epsilon,
    check_int,
    check_probability,
    check_release_channel,
)
from ..audit import channel_epsilon, check_channel

__all__ = [
    "CPLPair",
    "random_conditional",
    "Alg2Pair",
    "check_release_channel",
    "conditional",
    "cpl_alg1",
    "alg2_pair",
    "cpl_alg2",
    "cpl_two_level",
    "cpl_grr",
    "cpl_exp",
    "cpl_saturation",
    "disjoint_pairs",
    "hbar",
    "tpl_bound",
    "tpl_exact",
    "appendix_k_closed_form",
]

#: absolute tolerance on the row sums of a conditional table
ROW_SUM_ATOL = 1e-9
#: relative tolerance used to decide that two values of H̄ are tied (Algorithm 2's f̄*)
TIE_RTOL = 1e-12


class CPLPair(NamedTuple):
    """The two-component CPL of Section IV-D: leakage ``l`` and relaxation ``f̄*`` (Eq. (20))."""

    leakage: float
    relaxation: float


class Alg2Pair(NamedTuple):
    """Algorithm 2 for one ordered pair of rows ``(G, G')``: the greedy set and its value."""

    hbar: float  #: H̄* = max_S (1 + λA)/(1 + λB), Eq. (19)
    selected: np.ndarray  #: S*, indices of X̂ values given the large coefficient c_max
    A: float  #: Σ_{j∈S*} g_j
    B: float  #: Σ_{j∈S*} g'_j
    relaxation: float  #: f* = δ·A, Eq. (20)


# ----------------------------------------------------------------------------- inputs
def _check_delta(delta: Any) -> float:
    return check_probability(delta, "delta", open_high=True)


def _check_tie(tie: Any) -> str:
    if tie not in ("strict", "inclusive"):
        raise ValueError(f"tie must be 'strict' or 'inclusive', got {tie!r}")
    return tie


def conditional(table: Any, *, given: str = "rows", mode: str = "empirical", min_count: float = 0) -> np.ndarray:
    """Conditional distribution from a joint table of probabilities or counts.

    Parameters
    ----------
    table : array_like, shape (m, t)
        Joint probabilities ``P(X_k = x, X̂ = u)`` or joint counts; non-negative, finite.
    given : {"rows", "columns"}
        ``"rows"`` returns ``P(column | row)`` (shape (m, t)); ``"columns"`` returns
        ``P(row | column)`` (shape (t, m)): the input of the *other* direction.
    mode : {"empirical", "artifact"}
        ``"empirical"``: plain relative frequencies.  ``"artifact"``: the smoothing
        of the authors' notebook ``CMF_gen`` (tools/CMF_gen.ipynb): add 1 to every count,
        set to 0 every cell whose raw count is <= 1, then normalise.  Only
        meaningful for counts.
    min_count : float
        Conditioning values whose total is below ``min_count`` (and any with total
        0) are dropped, because ``P(· | x)`` is undefined or too noisy for them
        (our choice).  The result therefore may have fewer rows than ``table``.

    Returns
    -------
    numpy.ndarray
        A row-stochastic matrix.
    """
    arr = np.asarray(table)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"table must be a numeric matrix, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"table must be a non-empty 2-D matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("table must contain only finite entries")
    if np.any(arr < 0):
        i, j = np.unravel_index(np.argmin(arr), arr.shape)
        raise ValueError(f"table must be non-negative, got table[{i}, {j}] = {arr[i, j]!r}")
    if given not in ("rows", "columns"):
        raise ValueError(f"given must be 'rows' or 'columns', got {given!r}")
    if mode not in ("empirical", "artifact"):
        raise ValueError(f"mode must be 'empirical' or 'artifact', got {mode!r}")
    if not (np.isfinite(min_count) and min_count >= 0):
        raise ValueError(f"min_count must be finite and >= 0, got {min_count!r}")
    if given == "columns":
        arr = arr.T
    totals = arr.sum(axis=1)
    keep = (totals > 0) & (totals >= min_count)
    if not np.any(keep):
        raise ValueError(f"no conditioning value has total >= max(min_count, >0) (min_count={min_count})")
    arr = arr[keep]
    if mode == "artifact":
        arr = np.where(arr <= 1, 0.0, arr + 1.0)
        totals = arr.sum(axis=1)
        arr = arr[totals > 0]
        if arr.shape[0] == 0:
            raise ValueError("mode='artifact' removed every cell (all counts <= 1)")
    return arr / arr.sum(axis=1, keepdims=True)


# ----------------------------------------------------------------------------- Algorithm 1
def cpl_alg1(P: Any, T: Any, *, reading: str = "columns", return_witness: bool = False) -> Any:
    """Exact CPL ``L_{X̂→X_k}`` from the neighbour's transition matrix (Algorithm 1, Eq. (8)).

    Vectorised form of Algorithm 1: with ``M = P @ T`` (``M[x, y] = p(y | x)``),
    ``L = ln max_y max_{x≠x'} M[x, y]/M[x', y]``, which is the exact privacy level
    of the composed channel ``X_k → Ŷ`` (:func:`ldp.audit.channel_epsilon`).  A
    ratio with a zero denominator and a positive numerator is ``+inf``; ``0/0``
    is skipped.  Cost ``O(m·t·|Y| + m·|Y|)`` instead of the printed ``O(m²t²)``.

    Parameters
    ----------
    P : array_like, shape (m, t)
        ``P(X̂ | X_k)``: rows = values of the primary attribute, rows sum to 1.
    T : array_like, shape (t, n_out)
        The neighbour's channel, ``T[u, y] = p(y | u)`` (rows sum to 1).
    reading : {"columns", "rows"}
        ``"columns"`` (default) is Eq. (8): ``C`` is the column of ``T`` for one
        output.  ``"rows"`` reproduces the printed pseudo-code (line 3 takes
        ``C = P(Ŷ | X̂ = x̂)``, a row of a square ``T``); it is wrong unless ``T``
        is symmetric, and is offered only to exhibit the erratum.
    return_witness : bool
        Also return ``(y, x, x')`` attaining the maximum (``None`` when the CPL is 0).

    Returns
    -------
    float or (float, tuple | None)
        ``L >= 0``, possibly ``inf``.
    """
    P = check_release_channel(P, "P")
    T = check_channel(T, atol=ROW_SUM_ATOL, name="T")
    if T.shape[0] != P.shape[1]:
        raise ValueError(f"T must have one row per value of X̂: P has {P.shape[1]} columns, T has {T.shape[0]} rows")
    if reading == "columns":
        M = P @ T
    elif reading == "rows":
        if T.shape[0] != T.shape[1]:
            raise ValueError(f"reading='rows' needs a square T (|Y| = t), got shape {T.shape}")
        M = P @ T.T
    else:
        raise ValueError(f"reading must be 'columns' or 'rows', got {reading!r}")
    if P.shape[0] < 2:
        return (0.0, None) if return_witness else 0.0
    return channel_epsilon(M, return_witness=return_witness)


# ----------------------------------------------------------------------------- Algorithm 2
def hbar(A: Any, B: Any, epsilon: float) -> Any:
    """``H̄ = (1 + λA)/(1 + λB)`` with ``λ = e^ε - 1`` (Eq. (18))."""
    lam = math.expm1(check_epsilon(epsilon, allow_zero=True))
    return (1.0 + lam * np.asarray(A, dtype=float)) / (1.0 + lam * np.asarray(B, dtype=float))


def alg2_pair(g: Any, gp: Any, epsilon: float, delta: float = 0.0, *, tie: str = "strict") -> Alg2Pair:
    """Algorithm 2's inner greedy for one ordered pair ``(G, G') = (P(X̂|x), P(X̂|x'))``, as printed.

    The ratios ``σ_i = g_i / g'_i`` are sorted in decreasing order (``g/0 = +inf``
    for ``g > 0``; ``0/0`` entries are skipped) and an element enters ``S`` while
    ``σ >= (1+λA)/(1+λB)`` (Lemma IV.5); the loop stops at the first failure,
    since later ratios are smaller.  ``tie="inclusive"`` is the paper's ``>=``;
    ``tie="strict"`` (default, the authors' code) uses ``>``.  Both give the same
    ``H̄*`` (Theorem IV.6) but different ``S*`` and hence ``f* = δ·A`` when a ratio
    ties with a current value above 1 (e.g. ``G = (0.5, 0.3, 0.2)``, ``G' = (0.25, 0.25, 0.5)``
    at ``ε = ln 2``: the second ratio 1.2 equals ``H̄`` after the first step).

    The pair-level greedy follows its tie rule everywhere, lines 5-13 of the printed
    algorithm: for **a pair that does not leak** (``G = G'``, so ``H̄* = 1``) every ratio equals
    the current value 1, so ``tie="inclusive"`` adds every element (``A = B = 1``,
    ``f* = δ``) and ``tie="strict"`` adds none (``A = B = 0``, ``f* = 0``).  Such an ``f*``
    never reaches the result of Algorithm 2: its line 14 keeps a pair's ``f*`` only when
    ``ln H̄*`` exceeds the running maximum, initialised to 0, so :func:`cpl_alg2` returns
    ``(0, 0)`` when no pair leaks, under either tie rule (as the authors' code,
    ``CPL_calculation/Algorithm_2.py`` of ``jayawardana2025code``, which uses the strict test).

    This is the reference (loop) implementation; :func:`cpl_alg2` is the
    vectorised one used everywhere else, and the tests check they agree.
    """
    g = np.asarray(g, dtype=float)
    gp = np.asarray(gp, dtype=float)
    if g.ndim != 1 or g.shape != gp.shape or g.size == 0:
        raise ValueError(f"g and gp must be 1-D vectors of equal non-zero length, got shapes {g.shape}, {gp.shape}")
    for nm, v in (("g", g), ("gp", gp)):
        if not np.all(np.isfinite(v)) or np.any(v < 0):
            raise ValueError(f"{nm} must be finite and non-negative")
        if abs(v.sum() - 1.0) > ROW_SUM_ATOL:
            raise ValueError(f"{nm} must sum to 1 (a conditional distribution), got {v.sum()!r}")
    eps = check_epsilon(epsilon, allow_zero=True)
    delta = _check_delta(delta)
    tie = _check_tie(tie)
    lam = math.expm1(eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = g / gp
    valid = ~np.isnan(sigma)
    idx = np.flatnonzero(valid)
    order = idx[np.argsort(-sigma[idx], kind="stable")]
    A = B = 0.0
    chosen: list[int] = []
    for i in order:
        current = (1.0 + lam * A) / (1.0 + lam * B)
        take = sigma[i] >= current if tie == "inclusive" else sigma[i] > current
        if not take:
            break
        A += g[i]
        B += gp[i]
        chosen.append(int(i))
    value = (1.0 + lam * A) / (1.0 + lam * B)
    return Alg2Pair(float(value), np.array(chosen, dtype=np.int64), float(A), float(B), float(delta * A))


def _alg2_prefix_sums(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A`` and ``B`` of every prefix of the ratio-sorted outputs, for every ordered pair of rows of ``P``.

    Shape ``(m, m, t + 1)``: ``A[x, x', s]`` (``B``) is the mass of row ``x`` (``x'``) on the ``s`` outputs with
    the largest ratio ``P[x, u] / P[x', u]``.  The order does not depend on ε, so these sums serve every budget:
    ``H̄* = max_s (1 + λA) / (1 + λB)`` (:func:`_alg2_prefix_ratios`).
    """
    m, t = P.shape
    G = np.broadcast_to(P[:, None, :], (m, m, t))
    Gp = np.broadcast_to(P[None, :, :], (m, m, t))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = G / Gp
    key = np.where(np.isnan(ratio), -1.0, ratio)  # 0/0 last, never helps
    order = np.argsort(-key, axis=-1, kind="stable")
    Gs = np.take_along_axis(G, order, axis=-1)
    Gps = np.take_along_axis(Gp, order, axis=-1)
    A = np.concatenate([np.zeros((m, m, 1)), np.cumsum(Gs, axis=-1)], axis=-1)
    B = np.concatenate([np.zeros((m, m, 1)), np.cumsum(Gps, axis=-1)], axis=-1)
    return A, B


def _alg2_prefix_ratios(A: np.ndarray, B: np.ndarray, lam: float) -> np.ndarray:
    """``(1 + λA_s) / (1 + λB_s)`` for every prefix of :func:`_alg2_prefix_sums` (any leading axes)."""
    return (1.0 + lam * A) / (1.0 + lam * B)


def _alg2_all_pairs(P: np.ndarray, lam: float, tie: str) -> tuple[np.ndarray, np.ndarray]:
    """H̄* and A_{S*} for every ordered pair of rows (diagonal set to H̄* = 1, A = 0)."""
    m = P.shape[0]
    A, B = _alg2_prefix_sums(P)
    H = _alg2_prefix_ratios(A, B, lam)
    best = H.max(axis=-1)
    # greedy (Theorem IV.6) = best prefix; the tie rule picks the first or the last maximiser
    at_max = H >= best[..., None] * (1.0 - TIE_RTOL)
    if tie == "strict":
        j = np.argmax(at_max, axis=-1)
    else:
        j = H.shape[-1] - 1 - np.argmax(at_max[..., ::-1], axis=-1)
    A_star = np.take_along_axis(A, j[..., None], axis=-1)[..., 0]
    diag = np.eye(m, dtype=bool)
    best[diag] = 1.0
    A_star[diag] = 0.0
    return best, A_star


def cpl_alg2(
    P: Any,
    epsilon: float,
    delta: float = 0.0,
    *,
    tie: str = "strict",
    relaxation: str = "paper",
    return_pair: bool = False,
) -> Any:
    """Upper bound on CPL for any (ε, δ)-LDP neighbour mechanism (Algorithm 2, Eqs. (18)-(20)).

    For each ordered pair ``x ≠ x'`` the greedy of Lemma IV.5 / Theorem IV.6 finds
    ``H̄* = max_S (1+λA_S)/(1+λB_S)``, computed here for all pairs at once as the
    best prefix of the ratio-sorted cumulative sums (equal to the greedy by
    Theorem IV.6).  ``l = ln max_{x≠x'} H̄*``; the relaxation is ``f̄* = δ·A_{S*}``
    of the maximising pair (the first in row-major order on ties, as the printed
    ``if l < ln H̄*`` does).  When no pair leaks (all rows equal) the result is
    ``(0, 0)`` under either tie rule, as :func:`alg2_pair` gives for each such pair.

    Parameters
    ----------
    P : array_like, shape (m, t)
        ``P(X̂ | X_k)``, rows sum to 1.
    epsilon : float
        The neighbour's budget, ``>= 0`` (``ε = 0`` gives ``l = 0``, Corollary H.2).
    delta : float
        The neighbour's relaxation, in ``[0, 1)``.
    tie : {"strict", "inclusive"}
        Tie rule of the greedy (see :func:`alg2_pair`); changes only ``f̄*``.
    relaxation : {"paper", "conservative"}
        ``"paper"``: ``f̄* = δ·A_{S*}`` (Eq. (20)).  ``"conservative"``: ``f̄* = δ``,
        which is what the per-output inequality ``p(y|x) <= H̄* p(y|x') + δA_S``
        guarantees for every ``S``.
    return_pair : bool
        Also return the maximising ordered pair ``(x, x')`` (``None`` if ``l = 0``).

    Returns
    -------
    CPLPair (or (CPLPair, pair))
        ``(leakage, relaxation)`` with ``0 <= leakage <= ε``.
    """
    P = check_release_channel(P, "P")
    eps = check_epsilon(epsilon, allow_zero=True)
    delta = _check_delta(delta)
    tie = _check_tie(tie)
    if relaxation not in ("paper", "conservative"):
        raise ValueError(f"relaxation must be 'paper' or 'conservative', got {relaxation!r}")
    out, pair = _alg2_bound(P, eps, delta, tie, relaxation)
    return (out, pair) if return_pair else out


def _alg2_bound(
    P: np.ndarray, eps: float, delta: float, tie: str, relaxation: str
) -> tuple[CPLPair, tuple[int, int] | None]:
    """:func:`cpl_alg2` on checked arguments: the bound and its maximising pair (None when no pair leaks)."""
    m = P.shape[0]
    if m < 2:  # a constant attribute cannot leak (the authors' code returns a 3-tuple here)
        return CPLPair(0.0, 0.0), None
    lam = math.expm1(eps)
    best, A_star = _alg2_all_pairs(P, lam, tie)
    flat = int(np.argmax(best))
    x, xp = divmod(flat, m)
    hmax = float(best[x, xp])
    if hmax <= 1.0:
        return CPLPair(0.0, 0.0), None
    f = delta * float(A_star[x, xp]) if relaxation == "paper" else delta
    return CPLPair(float(min(math.log(hmax), eps)), float(f)), (x, xp)


# ----------------------------------------------------------------------------- closed forms
def cpl_two_level(P: Any, epsilon: float) -> float:
    """CPL through a GRR-like ("two-level") neighbour channel with privacy level ``ε`` (the two-level closed form).

    A GRR column is ``∝ 1 + λ·1[u = y]`` so ``Cᵀ G ∝ 1 + λ g_y`` and

        L = ln max_y max_{x≠x'} (1 + λ P[x, y]) / (1 + λ P[x', y]),   λ = e^ε − 1,

    independent of the alphabet size.  This is Algorithm 1 for GRR, the "ITS"
    estimate of the benchmark, and, with ``ε`` replaced by the effective level
    ``ε_eff`` of a mechanism + attack (:mod:`ldp.cpl.attacks`), the large-sample
    limit of the statistical CPL.
    """
    P = check_release_channel(P, "P")
    lam = math.expm1(check_epsilon(epsilon, allow_zero=True))
    if P.shape[0] < 2:
        return 0.0
    hi = P.max(axis=0)
    lo = P.min(axis=0)
    return float(max(np.max(np.log1p(lam * hi) - np.log1p(lam * lo)), 0.0))


def cpl_grr(P: Any, epsilon: float) -> float:
    """Algorithm 1 with the GRR channel at ``ε`` in closed form: :func:`cpl_two_level` at ``ε``."""
    return cpl_two_level(P, epsilon)


def cpl_exp(P: Any, epsilon: float) -> float:
    """Algorithm 1 with the paper's exponential mechanism at ``ε``: GRR at ``ε/2`` (Appendix A-3).

    With utility ``1[x = r]`` and sensitivity 1 the selection probability is
    ``∝ exp(ε·1[x=r]/2)``, i.e. exactly GRR with budget ``ε/2``.
    """
    return cpl_two_level(P, check_epsilon(epsilon, allow_zero=True) / 2.0)


def cpl_saturation(P: Any) -> float:
    """Saturation value ``lim_{ε→∞} L = ln max_{u, x, x'} P[x,u]/P[x',u]`` (Corollary IV.4, Eq. (13)).

    This is the CPL when the neighbour is released without noise, i.e. the privacy
    level of ``P`` itself read as a channel; ``inf`` when some ``u`` has
    ``P[x,u] > 0 = P[x',u]``.
    """
    P = check_release_channel(P, "P")
    if P.shape[0] < 2:
        return 0.0
    return channel_epsilon(P)


def disjoint_pairs(P: Any) -> list[tuple[int, int]]:
    """Ordered pairs ``(x, x')`` whose rows have disjoint supports (Corollary H.1: CPL = ε)."""
    P = check_release_channel(P, "P")
    S = (P > 0).astype(np.int64)
    overlap = S @ S.T
    xs, xps = np.nonzero(overlap == 0)
    return [(int(a), int(b)) for a, b in zip(xs, xps) if a != b]


def tpl_bound(epsilon: float, cpls: Any, delta: float = 0.0, relaxations: Any = None) -> CPLPair:
    """Composition upper bound on the total leakage of ``X_k`` (Eq. (6), Theorem II.3).

    ``L̄ = (ε + Σ l_{X→X_k},  δ + Σ f̄*_{X→X_k})``: the direct leakage of ``X_k``'s
    own report plus every neighbour's CPL.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    delta = _check_delta(delta)
    c = np.asarray(cpls, dtype=float).ravel()
    if np.any(np.isnan(c)) or np.any(c < 0):
        raise ValueError("cpls must be non-negative numbers (inf allowed)")
    if relaxations is None:
        f = np.zeros(1)
    else:
        f = np.asarray(relaxations, dtype=float).ravel()
        if f.size != c.size:
            raise ValueError(f"relaxations must have one entry per CPL ({c.size}), got {f.size}")
        if not np.all(np.isfinite(f)) or np.any(f < 0):
            raise ValueError("relaxations must be finite and non-negative")
    return CPLPair(float(eps + c.sum()), float(delta + f.sum()))


def tpl_exact(P_joint: Any, channels: Any, own_channel: Any = None) -> float:
    """Exact leakage of ``X_k`` from the joint release of several neighbours (and its own report), Eq. (5).

    Parameters
    ----------
    P_joint : array_like, shape (m, Π t_j)
        ``P(X̂_1, ..., X̂_s | X_k)``: row ``x`` is the joint distribution of the
        neighbour tuple given ``X_k = x``, flattened in C order.
    channels : sequence of array_like
        The neighbours' channels ``T_j`` (``t_j x |Y_j|``), in the tuple's order.
        Reports are independent given the neighbour values, so the tuple's channel
        is the Kronecker product ``T_1 ⊗ ... ⊗ T_s``.
    own_channel : array_like, optional
        ``X_k``'s own channel ``T_k`` (``m x |Y_k|``); given ``X_k`` its report is
        independent of the neighbours' reports, so the joint row is
        ``T_k[x] ⊗ (P_joint @ ⊗_j T_j)[x]``.  With it the result is the total
        privacy leakage ``L_{X_k}``; without it, the CPL of the tuple ``L_{Z→X_k}``.

    Returns
    -------
    float
        ``ln max_{w, x, x'} p(w|x)/p(w|x')`` of the composed channel (exact, possibly ``inf``).
        By sequential composition it never exceeds ``ε_k + Σ_j L_{X̂_j→X_k}``
        when the neighbours are conditionally independent given ``X_k``.
    """
    P = check_release_channel(P_joint, "P_joint")
    mats = [check_channel(T, atol=ROW_SUM_ATOL, name=f"channels[{i}]") for i, T in enumerate(channels)]
    if not mats:
        raise ValueError("channels must contain at least one neighbour channel")
    K = mats[0]
    for T in mats[1:]:
        K = np.kron(K, T)
    if K.shape[0] != P.shape[1]:
        raise ValueError(
            f"the neighbours' channels cover {K.shape[0]} joint values but P_joint has {P.shape[1]} columns"
        )
    M = P @ K
    if own_channel is not None:
        Tk = check_channel(own_channel, atol=ROW_SUM_ATOL, name="own_channel")
        if Tk.shape[0] != P.shape[0]:
            raise ValueError(f"own_channel must have {P.shape[0]} rows (values of X_k), got {Tk.shape[0]}")
        M = (Tk[:, :, None] * M[:, None, :]).reshape(P.shape[0], -1)
    if P.shape[0] < 2:
        return 0.0
    return channel_epsilon(M)


def appendix_k_closed_form(epsilon: float) -> tuple[float, float]:
    """Exact CPLs for the joint of Eq. (28) (Appendix K), for GRR and for Algorithm 2.

    ``L_{X̂→X_k} = ε`` (rows x1, x2 of ``P(X̂|X_k)`` have disjoint supports) and
    ``L_{X_k→X̂} = ln((1 + e^ε)/2)``, attained by ``G = P(X_k|x̂_1) = (.5, 0, .25, .25)``,
    ``G' = P(X_k|x̂_2) = (0, .4, .3, .3)`` and ``S = {x_1}``:
    ``(1 + λ/2)/(1 + 0) = (1 + e^ε)/2``.
    """
    eps = check_epsilon(epsilon, allow_zero=True)
    return eps, math.log((1.0 + math.exp(eps)) / 2.0)


def random_conditional(m: int, t: int, rng: Any = None, *, zero_frac: float = 0.0) -> np.ndarray:
    """A random ``m x t`` conditional table (rows Dirichlet(1)), optionally with structural zeros.

    Each entry is set to zero with probability ``zero_frac`` and the rows are
    renormalised (a row left empty puts all its mass on the first column).  Used by
    the theory notebook's numerical checks.
    """
    m = check_domain_size(m, "m", minimum=1)
    t = check_int(t, "t", minimum=1)
    if isinstance(zero_frac, bool) or not isinstance(zero_frac, (int, float)) or not 0 <= zero_frac < 1:
        raise ValueError(f"zero_frac must be a number in [0, 1), got {zero_frac!r}")
    gen = as_generator(rng)
    P = gen.dirichlet(np.ones(t), size=m)
    if zero_frac:
        P = np.where(gen.random((m, t)) < zero_frac, 0.0, P)
        P[P.sum(axis=1) == 0, 0] = 1.0
        P /= P.sum(axis=1, keepdims=True)
    return P
