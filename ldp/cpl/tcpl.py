"""Pairwise CPL matrices, total CPL (TCPL) and the utility-versus-TCPL metrics (Sections II-D, V-B).

Conventions (ours where the paper is silent):

* a CPL matrix ``L`` has ``L[k, j] = L_{X_j → X_k}``: row = the primary attribute
  whose leakage is measured, column = the released neighbour; the diagonal is
  NaN (the direct leakage is not a CPL);
* every sum runs over *ordered* pairs, so TCPL (Eq. (4)) is the sum of all
  off-diagonal entries, and ``q = n(n - 1)`` in the benchmark.

:func:`cpl_matrix` fills such a matrix from the data's pairwise tables with any
pairwise rule (:func:`cpl_function`): Algorithm 2, Algorithm 1 with a
mechanism's raw channel, GRR/EXP closed forms, or the statistical limit of a
mechanism + attack (the two-level formula at ``ε_eff``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._checks import check_epsilon
from ..metrics import misclassification_rate
from .attacks import effective_channel_epsilon, make_oracle
from .theory import conditional, cpl_alg1, cpl_alg2, cpl_exp, cpl_grr, cpl_two_level

__all__ = [
    "pair_tables",
    "tuple_table",
    "cpl_function",
    "cpl_matrix",
    "tcpl",
    "normalised_tcpl",
    "tpl_upper_bounds",
    "off_diagonal",
    "freq_nmse",
    "zero_one_error",
]

CPLRule = Callable[[np.ndarray, float], float]


def pair_tables(codes: Any, sizes: Sequence[int]) -> dict[tuple[int, int], np.ndarray]:
    """Joint count tables of every ordered pair: ``tables[k, j][x, u] = #{X_k = x, X_j = u}``."""
    arr = np.asarray(codes)
    if arr.ndim != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("codes must be a 2-D integer matrix (records x attributes)")
    sz = [int(s) for s in sizes]
    if len(sz) != arr.shape[1]:
        raise ValueError(f"sizes must have {arr.shape[1]} entries, got {len(sz)}")
    if np.any(arr.min(0) < 0) or np.any(arr.max(0) >= np.array(sz)):
        raise ValueError("codes has values outside 0..size-1 for some attribute")
    n = arr.shape[1]
    out: dict[tuple[int, int], np.ndarray] = {}
    for k in range(n):
        for j in range(k + 1, n):
            t = np.bincount(arr[:, k].astype(np.int64) * sz[j] + arr[:, j], minlength=sz[k] * sz[j])
            t = t.reshape(sz[k], sz[j])
            out[k, j] = t
            out[j, k] = t.T
    return out


def tuple_table(codes: Any, sizes: Sequence[int], primary: int, released: Sequence[int]) -> np.ndarray:
    """Counts of (primary value, joint value of the ``released`` attributes); columns in C order.

    Row-normalised (:func:`ldp.cpl.theory.conditional`), it is ``P(X̂_1, ..., X̂_s | X_k)``, the input of
    :func:`ldp.cpl.theory.tpl_exact`, or of Algorithm 1 with a mechanism that perturbs the tuple jointly.
    """
    arr = np.asarray(codes)
    if arr.ndim != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("codes must be a 2-D integer matrix (records x attributes)")
    sz = np.asarray([int(s) for s in sizes], dtype=np.int64)
    if sz.size != arr.shape[1]:
        raise ValueError(f"sizes must have {arr.shape[1]} entries, got {sz.size}")
    cols = [int(primary)] + [int(j) for j in released]
    if not released or any(c < 0 or c >= arr.shape[1] for c in cols):
        raise ValueError(f"primary and released must be column indices in 0..{arr.shape[1] - 1}, released non-empty")
    if np.any(arr.min(0) < 0) or np.any(arr.max(0) >= sz):
        raise ValueError("codes has values outside 0..size-1 for some attribute")
    rel = [int(j) for j in released]
    joint = np.ravel_multi_index(tuple(arr[:, rel].T.astype(np.int64)), tuple(sz[rel]))
    W = int(np.prod(sz[rel]))
    m = int(sz[int(primary)])
    return np.bincount(arr[:, int(primary)].astype(np.int64) * W + joint, minlength=m * W).reshape(m, W)


def cpl_function(method: Any) -> CPLRule:
    """A pairwise rule ``(P, ε) -> CPL`` with ``P = P(X̂ | X_k)``.

    ``method`` is a callable, or one of

    * ``"alg2"``: Algorithm 2 with δ = 0 (the generic ε-LDP upper bound);
    * ``"grr"`` (= GRR-ANL = ITS, the two-level closed form) and ``"exp"`` (= EXP-ANL);
    * ``"alg1:<MECH>"``: Algorithm 1 with the raw channel of mechanism ``MECH``
      (:func:`ldp.cpl.attacks.make_oracle`; finite channels only);
    * ``"limit:<MECH>"``: the infinite-sample statistical CPL of ``MECH`` + its
      attack, i.e. the two-level formula at ``ε_eff``.
    """
    if callable(method):
        return method
    if not isinstance(method, str):
        raise TypeError(f"method must be a string or a callable (P, epsilon) -> float, got {type(method).__name__}")
    if method == "alg2":
        return lambda P, eps: cpl_alg2(P, eps).leakage
    if method == "grr":
        return cpl_grr
    if method == "exp":
        return cpl_exp
    kind, _, mech = method.partition(":")
    if kind == "alg1" and mech:
        make_oracle(mech, 1.0, 2)
        return lambda P, eps: cpl_alg1(P, make_oracle(mech, eps, P.shape[1]).channel())
    if kind == "limit" and mech:
        make_oracle(mech, 1.0, 2)
        memo: dict[tuple[float, int], float] = {}  # ε_eff depends only on (ε, t); SHE needs a quadrature

        def limit(P: np.ndarray, eps: float) -> float:
            key = (eps, P.shape[1])
            if key not in memo:
                memo[key] = effective_channel_epsilon(make_oracle(mech, eps, P.shape[1]))
            return cpl_two_level(P, memo[key])

        return limit
    raise ValueError(
        f"method must be 'alg2', 'grr', 'exp', 'alg1:<MECH>', 'limit:<MECH>' or a callable, got {method!r}"
    )


def cpl_matrix(
    tables: dict[tuple[int, int], np.ndarray],
    n: int,
    method: Any,
    epsilon: float,
    *,
    mode: str = "empirical",
    min_count: float = 0,
) -> np.ndarray:
    """``L[k, j] = L_{X_j → X_k}`` for every ordered pair, from :func:`pair_tables`.

    A neighbour with a single observed value, or a primary with a single observed
    value, cannot leak: its entry is 0.  ``min_count`` drops primary values with
    fewer records (our choice); use the same threshold (times ``r``) in the
    statistical estimator when comparing the two.
    """
    rule = cpl_function(method)
    eps = check_epsilon(epsilon, allow_zero=True)
    L = np.full((n, n), np.nan)
    for (k, j), table in tables.items():
        P = conditional(table, mode=mode, min_count=min_count)
        P = P[:, P.sum(axis=0) > 0]  # unobserved neighbour values carry no mass
        L[k, j] = 0.0 if (P.shape[0] < 2 or P.shape[1] < 2) else rule(P / P.sum(1, keepdims=True), eps)
    return L


def off_diagonal(L: Any) -> np.ndarray:
    """The ``n(n-1)`` ordered-pair entries of a square matrix (row-major)."""
    L = np.asarray(L, dtype=float)
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise ValueError(f"L must be a square matrix, got shape {L.shape}")
    return L[~np.eye(L.shape[0], dtype=bool)]


def tcpl(L: Any) -> float:
    """Total CPL, Eq. (4): the sum over ordered pairs (off-diagonal entries)."""
    vals = off_diagonal(L)
    if np.any(np.isnan(vals)):
        raise ValueError("L has NaN off-diagonal entries")
    return float(vals.sum())


def normalised_tcpl(L: Any, L_reference: Any) -> float:
    """Eq. (22): ``TCPL'/TCPL*`` with ``TCPL*`` from Algorithm 2 on the same data and ε."""
    ref = tcpl(L_reference)
    if ref == 0:
        raise ValueError("the reference TCPL is 0 (independent attributes): normalisation undefined")
    return tcpl(L) / ref


def tpl_upper_bounds(L: Any, epsilon: float) -> np.ndarray:
    """Eq. (6) for every attribute (δ = 0): ``ε + Σ_{j≠k} L[k, j]``."""
    eps = check_epsilon(epsilon, allow_zero=True)
    L = np.asarray(L, dtype=float)
    off = np.where(np.eye(L.shape[0], dtype=bool), 0.0, L)
    return eps + off.sum(axis=1)


def freq_nmse(estimates: Sequence[Any], truths: Sequence[Any]) -> float:
    """Eq. (23): ``Σ (f̃ - f)² / Σ f²`` pooled over every value of every attribute (our reading)."""
    if len(estimates) != len(truths) or len(truths) == 0:
        raise ValueError("estimates and truths must be equally long, non-empty lists (one vector per attribute)")
    est = np.concatenate([np.asarray(e, dtype=float).ravel() for e in estimates])
    tru = np.concatenate([np.asarray(t, dtype=float).ravel() for t in truths])
    if est.shape != tru.shape:
        raise ValueError(f"estimates and truths have different total lengths {est.size} and {tru.size}")
    den = float(np.sum(tru**2))
    if den == 0:
        raise ValueError("the true frequencies are all zero")
    return float(np.sum((est - tru) ** 2) / den)


def zero_one_error(inferred: Any, codes: Any) -> float:
    """Eq. (24) averaged over attributes: the share of records whose inferred value differs from the truth ``codes``."""
    b = np.asarray(inferred)
    a = np.asarray(codes)
    if a.shape != b.shape:
        raise ValueError(f"inferred and codes must have the same shape, got {b.shape} and {a.shape}")
    if a.ndim == 1:
        a, b = a[:, None], b[:, None]
    return float(np.mean([misclassification_rate(b[:, j], a[:, j]) for j in range(a.shape[1])]))
