"""Per-user label-leakage accounting over several kHR rounds (Xue et al., Thms 5-7, Eqs. (13)-(15)).

In the decision-tree protocol a user reports, in round ``r``, the combination
``s^r`` (a superset of ``s^{r-1}``) with budget ``ε_r`` and belief ``ω_r``.
Theorem 5 bounds her cumulative leakage; in recursive form (equivalent to
Eq. (13), checked in the tests)

    PL_0 = 1,  Π_0 = 1,
    PL_r = PL_{r-1} + (e^{ε_r} - 1) Π_{r-1},      Π_r = Π_{r-1} θ_r,
    θ_r  = (e^{ε_r} + ω_r - 1)/ω_r,

because ``ω_r (θ_r - 1) = e^{ε_r} - 1``.  A round without a report has
``ε_r = 0``, adds nothing and leaves ``Π`` unchanged.  Theorem 6: if the ω's
do not increase along the chain and ``e^{ε_r} <= ω_r e^{ε^{re}} + 1 - ω_r`` with
``ε^{re} = ε - ln PL_{r-1}``, then ``PL_r <= θ_r PL_{r-1} <= e^ε``.  Eq. (15)
picks ``ε_r`` accordingly; the first term is ambiguous in the paper (ε or the
residual ε^{re}), see :data:`BUDGET_RULES`.

**Increasing beliefs are refused.**  Theorem 6 needs ``ω_r <= ω_{r-1}``.  When a belief
rises, ``θ`` of the earlier, smaller-ω rounds has already inflated ``Π``, Eq. (15) can ask for a
negative budget (clamped to 0 by :func:`round_budget`) and the final leakage can exceed
``e^ε`` (e.g. ``ε = 2``, five rounds, ω = 0.1, 0.1, 1, 1, 1 ends at ``ln PL = 2.40``).
:func:`budget_schedule` and :meth:`LeakageLedger.charge` therefore raise ``ValueError`` naming
the round.  Clamping ω down to the previous value instead would calibrate the mechanism with a
belief *smaller* than the one assumed, and an under-estimated belief is exactly the case in
which Theorem 5's bound fails (see :func:`pl_true_beliefs`), so the book does not clamp.

The proof of Theorem 5 assumes ``k = 1``; this module applies the same
recursion for any fixed ``k`` (θ is the same A/B ratio), as the paper's
experiments do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_epsilon, check_int

__all__ = [
    "BUDGET_RULES",
    "pl_recursion",
    "pl_closed_form",
    "round_budget",
    "budget_schedule",
    "LeakageLedger",
    "pl_true_beliefs",
]

#: ``"remaining_even"``: first term ε^{re}/(dep-r+1) (spend the residual evenly; default);
#: ``"paper_literal"``: first term ε/(dep-r+1), as printed in Eq. (15).
BUDGET_RULES = ("remaining_even", "paper_literal")


def _arrays(eps_list: Any, omega_list: Any) -> tuple[np.ndarray, np.ndarray]:
    e = np.asarray(eps_list, dtype=float)
    w = np.broadcast_to(np.asarray(omega_list, dtype=float), e.shape).astype(float)
    if e.ndim != 1 or e.size == 0:
        raise ValueError(f"eps_list must be a non-empty 1-D sequence, got shape {e.shape}")
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError("every per-round budget must be finite and >= 0 (0 = no report)")
    if not np.all(np.isfinite(w)) or np.any(w <= 0) or np.any(w > 1):
        raise ValueError("every omega must lie in (0, 1]")
    return e, w


def _check_non_increasing(prev: np.ndarray, cur: np.ndarray, r: int, users: Any = None) -> None:
    """Raise ``ValueError`` if any belief of round ``r`` exceeds the same user's belief of her previous round."""
    rises = cur > prev
    if np.any(rises):
        j = int(np.flatnonzero(rises)[0])
        who = "" if users is None else f" (user {int(np.asarray(users)[j])}, {int(rises.sum())} user(s) in all)"
        raise ValueError(
            f"omega must not increase between rounds (Theorem 6 of Xue et al.): round {r} uses "
            f"omega = {float(cur[j]):g} after {float(prev[j]):g} in the previous round{who}"
        )


def pl_recursion(eps_list: Any, omega_list: Any) -> np.ndarray:
    """``PL_1, ..., PL_r`` by the recursion of Thm 5 (``ε_r = 0`` marks a round without a report)."""
    e, w = _arrays(eps_list, omega_list)
    pl, pi = 1.0, 1.0
    out = np.empty(e.size)
    for r in range(e.size):
        pl += math.expm1(e[r]) * pi
        pi *= (math.expm1(e[r]) + w[r]) / w[r]
        out[r] = pl
    return out


def pl_closed_form(eps_list: Any, omega_list: Any) -> float:
    """Eq. (13): ``1 - ω_1 + ω_r Π_{1..r} θ + Σ_{r'<r} (ω_{r'} - ω_{r'+1}) Π_{1..r'} θ`` (every round reports)."""
    e, w = _arrays(eps_list, omega_list)
    if np.any(e == 0):
        raise ValueError("pl_closed_form assumes every round reports (all budgets > 0); use pl_recursion")
    theta = (np.expm1(e) + w) / w
    prods = np.cumprod(theta)
    total = 1 - w[0] + w[-1] * prods[-1]
    if e.size > 1:
        total += float(np.sum((w[:-1] - w[1:]) * prods[:-1]))
    return float(total)


def round_budget(
    epsilon: float, dep: int, r: int, pl_prev: Any, omega: Any, rule: str = "remaining_even"
) -> np.ndarray:
    """Eq. (15): ``ε_r`` for users with leakage ``pl_prev`` so far and belief ``omega`` this round.

    ``r = 1`` gives ``ε/dep``.  For ``r > 1``: ``min(base, ln(ω e^{ε^{re}} + 1 - ω))`` with
    ``ε^{re} = ε - ln PL_{r-1}`` and ``base = ε^{re}/(dep-r+1)`` (``"remaining_even"``) or
    ``ε/(dep-r+1)`` (``"paper_literal"``).  Vectorised over users; never negative.
    """
    eps = check_epsilon(epsilon)
    dep = check_int(dep, "dep", minimum=1)
    r = check_int(r, "r", minimum=1, maximum=dep)
    if rule not in BUDGET_RULES:
        raise ValueError(f"rule must be one of {BUDGET_RULES}, got {rule!r}")
    pl = np.asarray(pl_prev, dtype=float)
    w = np.broadcast_to(np.asarray(omega, dtype=float), pl.shape)
    if np.any(pl < 1 - 1e-12):
        raise ValueError("pl_prev must be >= 1 (a leakage ratio)")
    if np.any(w <= 0) or np.any(w > 1):
        raise ValueError("omega must lie in (0, 1]")
    if r == 1:
        return np.full(pl.shape, eps / dep)
    ere = np.maximum(eps - np.log(pl), 0.0)
    base = ere / (dep - r + 1) if rule == "remaining_even" else np.full(pl.shape, eps / (dep - r + 1))
    cap = np.log(w * np.exp(ere) + 1 - w)
    return np.maximum(np.minimum(base, cap), 0.0)


def budget_schedule(
    epsilon: float, dep: int, omegas: Any, rule: str = "remaining_even"
) -> tuple[np.ndarray, np.ndarray]:
    """Per-round budgets and leakages of one user who reports in every round (Eq. (15) + Thm 5).

    Returns ``(eps_r, PL_r)`` for ``r = 1..dep``; ``omegas`` is a scalar or a length-``dep`` sequence.
    The beliefs must not increase from one round to the next (Theorem 6); an increasing sequence
    raises ``ValueError`` naming the round.
    """
    dep = check_int(dep, "dep", minimum=1)
    w = np.broadcast_to(np.asarray(omegas, dtype=float), (dep,))
    if not np.all(np.isfinite(w)) or np.any(w <= 0) or np.any(w > 1):
        raise ValueError(f"omegas must lie in (0, 1], got {np.asarray(omegas)!r}")
    for r in range(2, dep + 1):
        _check_non_increasing(w[r - 2 : r - 1], w[r - 1 : r], r)
    eps_r = np.empty(dep)
    pl = np.empty(dep)
    cur_pl, cur_pi = 1.0, 1.0
    for r in range(1, dep + 1):
        e = float(round_budget(epsilon, dep, r, np.array([cur_pl]), w[r - 1], rule)[0])
        eps_r[r - 1] = e
        cur_pl += math.expm1(e) * cur_pi
        cur_pi *= (math.expm1(e) + w[r - 1]) / w[r - 1]
        pl[r - 1] = cur_pl
    return eps_r, pl


class LeakageLedger:
    """Vectorised per-user state of the recursion: ``PL``, ``Π`` and the last belief used.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon : float
        Each user's total CLLDP budget.
    dep : int
        Number of rounds (tree depth).
    rule : str
        Eq. (15) reading, one of :data:`BUDGET_RULES`.
    """

    def __init__(self, n: int, epsilon: float, dep: int, rule: str = "remaining_even") -> None:
        self.n = check_int(n, "n", minimum=0)
        self.epsilon = check_epsilon(epsilon)
        self.dep = check_int(dep, "dep", minimum=1)
        if rule not in BUDGET_RULES:
            raise ValueError(f"rule must be one of {BUDGET_RULES}, got {rule!r}")
        self.rule = rule
        self.pl = np.ones(self.n)
        self.pi = np.ones(self.n)
        self.omega_prev = np.ones(self.n)
        self.spent = np.zeros((self.dep, self.n))  # ε_r per round (0 = no report)
        self.omega_used = np.ones((self.dep, self.n))  # ω_r per round (1 where no report)

    def budget(self, r: int, idx: Any, omega: Any) -> np.ndarray:
        """Eq. (15) budgets for users ``idx`` in round ``r`` with beliefs ``omega``."""
        return round_budget(self.epsilon, self.dep, r, self.pl[idx], omega, self.rule)

    def charge(self, r: int, idx: Any, eps_r: Any, omega: Any) -> None:
        """Record that users ``idx`` reported in round ``r`` with budgets ``eps_r`` and beliefs ``omega``.

        Raises ``ValueError`` (naming the round and a user) if a belief exceeds the one the same
        user reported with before (Theorem 6 assumes non-increasing beliefs), before any state changes.
        """
        r = check_int(r, "r", minimum=1, maximum=self.dep)
        idx = np.asarray(idx, dtype=np.int64)
        e = np.asarray(eps_r, dtype=float)
        w = np.broadcast_to(np.asarray(omega, dtype=float), idx.shape)
        if not np.all(np.isfinite(w)) or np.any(w <= 0) or np.any(w > 1):
            raise ValueError("omega must lie in (0, 1]")
        _check_non_increasing(self.omega_prev[idx], w, r, idx)
        self.pl[idx] += np.expm1(e) * self.pi[idx]
        self.pi[idx] *= (np.expm1(e) + w) / w
        self.omega_prev[idx] = w
        self.spent[r - 1, idx] = e
        self.omega_used[r - 1, idx] = w

    @property
    def log_leakage(self) -> np.ndarray:
        """``ln PL`` of every user: the effective CLLDP budget consumed so far (<= ε by Thm 6)."""
        return np.log(self.pl)


def pl_true_beliefs(eps_r: Any, omega_used: Any, omega_true: Any) -> np.ndarray:
    """Theorem 5's bound when the mechanism was calibrated with ``omega_used`` but the truth is ``omega_true``.

    Arrays of shape ``(rounds, users)``.  Each round's ``θ_r`` comes from the belief used
    for calibration; the increment uses the true belief,
    ``PL_r = PL_{r-1} + ω*_r (θ_r - 1) Π_{r'<r} θ_{r'}`` (the proof of Thm 5 only needs
    ``Pr{s_v | l} <= ω*_r``).  With ``omega_true <= omega_used`` everywhere this is at most
    the ledger's value; an under-estimated belief can push it above ``e^ε`` (footnote 4
    for one round).  Returns the final ``PL`` of every user.
    """
    e = np.asarray(eps_r, dtype=float)
    w = np.asarray(omega_used, dtype=float)
    wt = np.asarray(omega_true, dtype=float)
    if e.shape != w.shape or e.shape != wt.shape or e.ndim != 2:
        raise ValueError(
            f"eps_r, omega_used and omega_true must be (rounds, users) arrays of one shape, got "
            f"{e.shape}, {w.shape}, {wt.shape}"
        )
    if np.any(e < 0) or np.any(w <= 0) or np.any(w > 1) or np.any(wt < 0) or np.any(wt > 1):
        raise ValueError("budgets must be >= 0 and beliefs in (0, 1]")
    pl = np.ones(e.shape[1])
    pi = np.ones(e.shape[1])
    for r in range(e.shape[0]):
        theta = (np.expm1(e[r]) + w[r]) / w[r]
        pl += wt[r] * (theta - 1) * pi
        pi *= theta
    return pl
