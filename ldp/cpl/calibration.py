"""Correlation-aware budget calibration (Section V-C, Appendix N, Eq. (30), Algorithm 3).

Every attribute is perturbed with the same budget ``ε̃``; the total leakage of
attribute ``i`` is bounded by composition (Eq. (6)):

    TPL_i(ε̃) = ε̃ + Σ_{j ≠ i} L_{X_j → X_i}(ε̃),

and the calibrated budget is the largest ``ε̃`` with ``max_i TPL_i(ε̃) <= ε̄``.
Each CPL is non-decreasing in ``ε̃``, so ``TPL`` is strictly increasing.

**Correction to Algorithm 3 as printed** (erratum C6 of the errata register).  The
printed loop increments ``ε̃`` *after* the check that detects a violation and
never resets ``L``, so it returns a budget one or two steps past the feasible
region (:func:`algorithm3_as_printed` reproduces it).  Its inner sum includes
``j = i``; since ``P(X_i | X_i)`` has disjoint rows, that self-term is exactly
``ε̃`` (Corollary H.1): it *is* the direct-leakage term.  :func:`calibrate_budget`
returns the largest *feasible* point of the same grid ``ε̄/n + jΔ`` (found by
bisection on ``j``, which gives the same answer as a linear scan because TPL is
monotone), or, with ``search="bisect"``, the feasible end of a bisection to
tolerance ``Δ``.

Sanity checks (tests): independent attributes give ``ε* ≈ ε̄``; pairwise
perfectly correlated attributes give ``ε* = ε̄/n`` (the SPL split); always
``ε̄/n <= ε* <= ε̄`` for the Algorithm-2 rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .._checks import check_epsilon
from .tcpl import cpl_function
from .theory import _alg2_prefix_ratios, _alg2_prefix_sums, check_release_channel, conditional

__all__ = [
    "CalibrationResult",
    "TPLFunction",
    "tpl_profile",
    "calibrate_budget",
    "algorithm3_as_printed",
    "conditionals_from_tables",
    "conditionals_from_frame",
]


class CalibrationResult(NamedTuple):
    """The calibrated budget, its worst TPL, and how many TPL profiles were evaluated."""

    epsilon: float
    max_tpl: float
    evaluations: int


def conditionals_from_tables(tables: dict[tuple[int, int], np.ndarray], n: int) -> list[list[np.ndarray | None]]:
    """``C[i][j] = P(X_j | X_i)`` (rows = values of ``X_i``) from :func:`ldp.cpl.tcpl.pair_tables`; diagonal None."""
    C: list[list[np.ndarray | None]] = [[None] * n for _ in range(n)]
    for (i, j), t in tables.items():
        P = conditional(t)
        P = P[:, P.sum(axis=0) > 0]  # neighbour values never observed carry no mass
        C[i][j] = P / P.sum(axis=1, keepdims=True)
    return C


def _check_conditionals(C: Sequence[Sequence[Any]]) -> list[list[np.ndarray | None]]:
    n = len(C)
    if n < 1 or any(len(row) != n for row in C):
        raise ValueError("conditionals must be an n x n nested list (C[i][j] = P(X_j | X_i), diagonal None)")
    out: list[list[np.ndarray | None]] = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                if C[i][j] is None:
                    raise ValueError(f"conditionals[{i}][{j}] is missing")
                out[i][j] = check_release_channel(C[i][j], f"conditionals[{i}][{j}]")
    return out


def tpl_profile(conditionals: Sequence[Sequence[Any]], epsilon: float, method: Any = "alg2") -> np.ndarray:
    """``TPL_i(ε) = ε + Σ_{j≠i} CPL(P(X_j | X_i), ε)`` for every attribute ``i`` (Eq. (6), δ = 0)."""
    return TPLFunction(conditionals, method)(epsilon)


class TPLFunction:
    """``ε -> TPL(ε)`` (:func:`tpl_profile`) for one set of conditionals, checked and prepared once.

    For many budgets on the same conditionals (a calibration curve): pass it to :func:`calibrate_budget`
    instead of the nested list.  Under ``"alg2"`` each pair of rows is sorted once for every ε
    (:class:`_Alg2TPL`); any other rule is evaluated pair by pair, as :func:`tpl_profile` does.
    """

    def __init__(self, conditionals: Sequence[Sequence[Any]], method: Any = "alg2") -> None:
        self.C = _check_conditionals(conditionals)
        self.n = len(self.C)
        self.method = method
        if isinstance(method, str) and method == "alg2":
            self._tpl: Callable[[float], np.ndarray] = _Alg2TPL(self.C)
        else:
            rule = cpl_function(method)
            self._tpl = lambda eps: _tpl(self.C, eps, rule)

    def __call__(self, epsilon: float) -> np.ndarray:
        return self._tpl(check_epsilon(epsilon, allow_zero=True))


def _tpl(C: list[list[np.ndarray | None]], eps: float, rule: Any) -> np.ndarray:
    n = len(C)
    out = np.full(n, eps)
    for i in range(n):
        for j in range(n):
            if i != j:
                P = C[i][j]
                out[i] += 0.0 if (P.shape[0] < 2 or P.shape[1] < 2) else rule(P, eps)
    return out


class _Alg2TPL:
    """``ε -> TPL(ε)`` under Algorithm 2 (δ = 0), the same numbers as ``_tpl(C, ε, cpl_function("alg2"))``.

    Algorithm 2 sorts each pair of rows by their output ratios, which do not depend on ε: the prefix sums
    (:func:`ldp.cpl.theory._alg2_prefix_sums`) are computed once per conditional, stacked by shape, and each ε
    costs a few array operations instead of one sort per conditional and pair of rows.  The arithmetic per
    element, the maximum, ``math.log`` and the order of the sum over ``j`` are those of :func:`ldp.cpl.theory.cpl_alg2`
    and :func:`_tpl`, so the result is identical to the bit.
    """

    def __init__(self, C: list[list[np.ndarray | None]]) -> None:
        self.n = len(C)
        groups: dict[tuple[int, ...], list[tuple[int, int, np.ndarray, np.ndarray]]] = {}
        for i in range(self.n):
            for j in range(self.n):
                P = C[i][j]
                if i != j and P.shape[0] >= 2 and P.shape[1] >= 2:
                    groups.setdefault(P.shape, []).append((i, j, *_alg2_prefix_sums(P)))
        self.groups = []
        for (m, _), pairs in groups.items():
            rows = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
            A, B = np.stack([p[2] for p in pairs]), np.stack([p[3] for p in pairs])
            self.groups.append((rows, A, B, np.eye(m, dtype=bool)))

    def __call__(self, eps: float) -> np.ndarray:
        lam = math.expm1(eps)
        L = np.zeros((self.n, self.n))
        for (i, j), A, B, diag in self.groups:
            best = _alg2_prefix_ratios(A, B, lam).max(axis=-1)
            best[:, diag] = 1.0
            hmax = best.reshape(len(i), -1).max(axis=1)
            L[i, j] = [min(math.log(h), eps) if h > 1.0 else 0.0 for h in hmax.tolist()]
        out = np.full(self.n, eps)
        for j in range(self.n):  # j by j, as _tpl adds them (a diagonal or constant pair adds 0.0)
            out += L[:, j]
        return out


def calibrate_budget(
    conditionals: Sequence[Sequence[Any]] | TPLFunction,
    eps_bar: float,
    *,
    method: Any = None,
    step: float = 0.01,
    search: str = "grid",
) -> CalibrationResult:
    """The largest per-attribute budget whose worst total leakage stays within ``eps_bar`` (Eq. (30)).

    Parameters
    ----------
    conditionals : n x n nested list, or TPLFunction
        ``conditionals[i][j] = P(X_j | X_i)`` (rows sum to 1), diagonal ignored; or
        :class:`TPLFunction` of them, prepared once for many ``eps_bar``.
    eps_bar : float
        The allowed total leakage per attribute ``ε̄``.
    method : str or callable, optional
        Pairwise CPL rule (:func:`ldp.cpl.tcpl.cpl_function`): ``"alg2"`` (any ε-LDP
        mechanism, the default) or ``"grr"`` (Algorithm 1 for GRR), ...; a
        :class:`TPLFunction` carries its own (a different ``method`` is an error).
    step : float
        Grid step ``Δ`` (paper: 0.01).
    search : {"grid", "bisect"}
        ``"grid"``: the largest feasible point of ``ε̄/n + jΔ`` (``<= ε̄``), exactly what
        a corrected Algorithm 3 returns.  ``"bisect"``: bisection on ``[ε̄/n, ε̄]``
        until the bracket is shorter than ``Δ``; returns its feasible end.

    Raises
    ------
    ValueError
        If even ``ε̄/n`` is infeasible (impossible for ``"alg2"``, whose CPLs never
        exceed the budget, but possible for a custom rule).
    """
    tpl = _as_tpl_function(conditionals, method)
    eps_bar = check_epsilon(eps_bar, "eps_bar")
    step = check_epsilon(step, "step")
    evals = 0

    def worst(e: float) -> float:
        nonlocal evals
        evals += 1
        return float(tpl(e).max())

    start = eps_bar / tpl.n
    tol = 1e-12 * eps_bar
    w0 = worst(start)
    if w0 > eps_bar + tol:
        raise ValueError(f"even the equal split eps_bar/n = {start:.6g} violates the bound (max TPL {w0:.6g})")
    if search == "grid":
        eps, w = _grid_search(worst, start, w0, eps_bar + tol, math.floor((eps_bar - start) / step + 1e-9), step)
    elif search == "bisect":
        eps, w = _bisect_search(worst, start, w0, eps_bar, eps_bar + tol, step)
    else:
        raise ValueError(f"search must be 'grid' or 'bisect', got {search!r}")
    return CalibrationResult(eps, w, evals)


def _as_tpl_function(conditionals: Any, method: Any) -> TPLFunction:
    """``conditionals`` as a :class:`TPLFunction` (``method`` None: its own, or ``"alg2"`` for a nested list)."""
    if isinstance(conditionals, TPLFunction):
        if method is not None and method != conditionals.method:
            raise ValueError(f"conditionals were prepared for method {conditionals.method!r}, not {method!r}")
        return conditionals
    return TPLFunction(conditionals, "alg2" if method is None else method)


def _grid_search(
    worst: Callable[[float], float], start: float, w0: float, bound: float, hi_j: int, step: float
) -> tuple[float, float]:
    """Largest feasible grid point ``start + j step``, ``j <= hi_j`` (binary search; ``j = 0`` is feasible)."""
    lo_j, lo_w = 0, w0  # invariant: lo_j feasible
    top = int(hi_j)
    while lo_j < top:
        mid = (lo_j + top + 1) // 2
        wm = worst(start + mid * step)
        if wm <= bound:
            lo_j, lo_w = mid, wm
        else:
            top = mid - 1
    return start + lo_j * step, lo_w


def _bisect_search(
    worst: Callable[[float], float], lo: float, lo_w: float, hi: float, bound: float, step: float
) -> tuple[float, float]:
    """Feasible end of a bisection on ``[lo, hi]`` (``lo`` feasible) stopped once shorter than ``step``."""
    w_hi = worst(hi)
    if w_hi <= bound:
        return hi, w_hi
    while hi - lo > step:
        mid = 0.5 * (lo + hi)
        wm = worst(mid)
        if wm <= bound:
            lo, lo_w = mid, wm
        else:
            hi = mid
    return lo, lo_w


def algorithm3_as_printed(
    conditionals: Sequence[Sequence[Any]],
    eps_bar: float,
    *,
    method: Any = "alg2",
    step: float = 0.01,
    max_steps: int = 100_000,
) -> float:
    """Algorithm 3 exactly as printed (for the errata discussion): overshoots the feasible budget.

    ``while L < ε̄: L = max(L, max_i Σ_j CPL(ε̃)); ε̃ += Δ`` with the self-term
    ``j = i`` contributing ``ε̃``; the increment after the violating evaluation
    returns a budget whose TPL exceeds ``ε̄``.
    """
    tpl = TPLFunction(conditionals, method)
    eps_bar = check_epsilon(eps_bar, "eps_bar")
    step = check_epsilon(step, "step")
    eps_t = eps_bar / tpl.n
    L = 0.0
    for _ in range(max_steps):
        if not L < eps_bar:
            return eps_t
        L = max(L, float(tpl(eps_t).max()))
        eps_t += step
    raise ValueError(f"Algorithm 3 did not stop within max_steps={max_steps}")


def conditionals_from_frame(frame: Any, columns: Sequence[str]) -> list[list[np.ndarray | None]]:
    """The empirical conditionals ``P(X_j | X_i)`` of the given columns of a data frame (label-encoded)."""
    from ..tables import CodedTable
    from .tcpl import pair_tables

    e = CodedTable.from_frame(frame, list(columns))
    return conditionals_from_tables(pair_tables(e.codes, e.sizes), len(e.names))
