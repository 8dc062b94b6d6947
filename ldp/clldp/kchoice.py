"""Choosing the number of heads ``k`` (Xue et al., Theorem 3 and Eq. (8)).

Because ``ω`` depends on ``k`` (an output with more ones names more attribute
values, Def. 5), every candidate ``k`` must be evaluated with its own ``ω(k)``.
Eq. (8) compares only two candidates, ``k = 1`` and ``k = ⌈m/(e^ε + 1)⌉``, using
the approximate variance of Eq. (7).  :func:`select_k` offers that rule
(``"paper"``), a three-candidate variant that also tries the floor
(``"floor_ceil"``), and the brute-force argmin over every ``k`` in ``[1, ⌊m/2⌋]``
(``"oracle"``) used to check the others.

The floor/ceil values reuse :func:`ldp.oracles.subset_size`, whose ``"floor"``
and ``"ceil"`` rules clamp exactly as this paper needs: at least 1, and the
ceiling at most ``⌊m/2⌋``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._checks import check_domain_size, check_epsilon, check_int
from ..oracles import subset_size
from .khr import approx_n_variance, khr_p
from .omega import check_label_conditional, omega_curve

__all__ = ["k_floor", "k_ceil", "approx_n_variance_k", "select_k", "K_RULES", "resolve_k"]

K_RULES = ("paper", "paper_floor", "floor_ceil", "oracle")


def k_floor(epsilon: float, m: int) -> int:
    """``max(1, ⌊m/(e^ε + 1)⌋)``: the third curve of Fig. 3 (clamped to ``[1, ⌊m/2⌋]``, our reading of Eq. (8))."""
    return subset_size(epsilon, check_domain_size(m, "m"), "floor")


def k_ceil(epsilon: float, m: int) -> int:
    """``⌈m/(e^ε + 1)⌉`` clamped to ``[1, ⌊m/2⌋]``: the second candidate of Eq. (8)."""
    return subset_size(epsilon, check_domain_size(m, "m"), "ceil")


def _omega_fn(omega_of_k: Any) -> Callable[[int], float]:
    if callable(omega_of_k):
        return lambda k: float(omega_of_k(k))
    table = check_label_conditional(omega_of_k, "omega_of_k")
    return lambda k: float(omega_curve(table, np.array([k]))[0])


def approx_n_variance_k(epsilon: float, m: int, k: int, omega: float) -> float:
    """``q(1-q)/(p-q)^2`` of kHR with ``k`` heads and belief ``omega`` (``n Var`` of Eq. (7), approx.)."""
    p = khr_p(epsilon, omega, k, m)
    return approx_n_variance(p, (k - p) / (m - 1))


def select_k(epsilon: float, m: int, omega_of_k: Any, rule: str = "paper") -> int:
    """Eq. (8): the number of heads with the smaller approximate variance.

    Parameters
    ----------
    epsilon : float
        CLLDP budget.
    m : int
        Product-domain size ``m^s m^l`` (>= 2).
    omega_of_k : callable or array_like
        ``k -> ω(k)``, or a conditional table ``Pr{s_v | l}`` from which
        ``ω(k)`` is computed (:func:`ldp.clldp.omega_curve`).
    rule : {"paper", "paper_floor", "floor_ceil", "oracle"}
        ``"paper"``: candidates ``{1, ⌈m/(e^ε+1)⌉}``, ties to the larger k as
        Eq. (8) is written (``k = 1`` only if ``Var_1 < Var_2``).
        ``"paper_floor"``: the same rule with the floor ``⌊m/(e^ε+1)⌋`` (clamped)
        that Sec. 7.2 uses for the second candidate.
        ``"floor_ceil"``: candidates ``{1, ⌊·⌋, ⌈·⌉}`` (clamped).
        ``"oracle"``: argmin over all ``k`` in ``[1, max(1, ⌊m/2⌋)]``.
    """
    eps = check_epsilon(epsilon)
    m = check_domain_size(m, "m", minimum=2)
    if rule not in K_RULES:
        raise ValueError(f"rule must be one of {K_RULES}, got {rule!r}")
    wk = _omega_fn(omega_of_k)

    def var(k: int) -> float:
        return approx_n_variance_k(eps, m, k, wk(k))

    if rule in ("paper", "paper_floor"):
        k2 = k_ceil(eps, m) if rule == "paper" else k_floor(eps, m)
        return 1 if var(1) < var(k2) else k2
    if rule == "floor_ceil":
        cands = sorted({1, k_floor(eps, m), k_ceil(eps, m)})
    else:
        cands = list(range(1, max(1, m // 2) + 1))
    values = [var(k) for k in cands]
    return int(cands[int(np.argmin(values))])


def resolve_k(spec: Any, epsilon: float, m: int, omega_of_k: Any) -> int:
    """Turn a k specification into a number of heads.

    ``spec`` is an int in ``[1, m-1]`` (used as is), ``"one"``, ``"floor"``,
    ``"ceil"``, ``"eq8"`` (= ``select_k(..., "paper")``), ``"floor_ceil"`` or ``"oracle"``.
    """
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        return check_int(spec, "k", minimum=1, maximum=m - 1)
    if spec == "one":
        return 1
    if spec == "floor":
        return k_floor(epsilon, m)
    if spec == "ceil":
        return k_ceil(epsilon, m)
    if spec == "eq8":
        return select_k(epsilon, m, omega_of_k, "paper")
    if spec in ("floor_ceil", "oracle"):
        return select_k(epsilon, m, omega_of_k, spec)
    raise ValueError(
        f"k must be a positive int or one of 'one', 'floor', 'ceil', 'eq8', 'floor_ceil', 'oracle'; got {spec!r}"
    )
