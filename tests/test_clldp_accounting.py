"""Multi-round leakage accounting of Xue et al. (Thms 5-6, Eqs. (13), (15)), checked against exact PL computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon
from ldp.clldp import (
    BUDGET_RULES,
    KHR,
    LeakageLedger,
    budget_schedule,
    omega,
    pl_closed_form,
    pl_recursion,
    round_budget,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 2.0), st.floats(0.01, 1.0)), min_size=1, max_size=6))
def test_recursion_equals_eq13(rounds):
    eps = [e for e, _ in rounds]
    w = [x for _, x in rounds]
    assert pl_recursion(eps, w)[-1] == pytest.approx(pl_closed_form(eps, w), rel=1e-9)
    assert pl_recursion(eps[:1], w[:1])[0] == pytest.approx(math.exp(eps[0]), rel=1e-12)


def test_no_report_round_costs_nothing():
    a = pl_recursion([0.3, 0.0, 0.4], [0.5, 0.5, 0.4])
    b = pl_recursion([0.3, 0.4], [0.5, 0.4])
    assert a[1] == pytest.approx(a[0]) and a[2] == pytest.approx(b[1])


@pytest.mark.parametrize(
    "w,rule,eps_r,log_pl",
    [
        (1.0, "remaining_even", [0.4, 0.4, 0.4, 0.4, 0.4], 2.0),
        (1.0, "paper_literal", [0.4, 0.5, 0.667, 0.433, 0.0], 2.0),
        (0.5, "remaining_even", [0.4, 0.4, 0.366, 0.282, 0.057], 1.992),
        (0.5, "paper_literal", [0.4, 0.5, 0.604, 0.061, 0.004], 1.999),
        (0.1, "remaining_even", [0.4, 0.333, 0.089, 0.013, 0.002], 1.998),
        (0.1, "paper_literal", [0.4, 0.333, 0.089, 0.013, 0.002], 1.998),
    ],
)
def test_schedule_regression_table(w, rule, eps_r, log_pl):
    """Per-round budgets of Algorithm 4 of Xue et al. (ε = 2, dep = 5, constant ω), worked out by hand."""
    e, pl = budget_schedule(2.0, 5, w, rule)
    np.testing.assert_allclose(e, eps_r, atol=1e-3)
    assert math.log(pl[-1]) == pytest.approx(log_pl, abs=1e-3)


@settings(max_examples=100, deadline=None)
@given(
    eps=st.floats(0.1, 8),
    dep=st.integers(1, 6),
    rule=st.sampled_from(BUDGET_RULES),
    ws=st.lists(st.floats(0.01, 1.0), min_size=6, max_size=6),
)
def test_schedule_never_exceeds_budget(eps, dep, rule, ws):
    w = np.sort(np.asarray(ws))[::-1][:dep]  # non-increasing beliefs (Thm 6)
    e, pl = budget_schedule(eps, dep, w, rule)
    assert np.all(e >= 0)
    assert np.all(np.log(pl) <= eps * (1 + 1e-9) + 1e-12)


def test_omega_one_is_sequential_composition():
    e, pl = budget_schedule(3.0, 5, 1.0, "remaining_even")
    np.testing.assert_allclose(e, 0.6)
    assert pl[-1] == pytest.approx(math.exp(3.0), rel=1e-9)


def test_ledger_matches_schedule():
    led = LeakageLedger(3, 2.0, 5)
    idx = np.arange(3)
    for r in range(1, 6):
        e = led.budget(r, idx, 0.5)
        led.charge(r, idx, e, 0.5)
    _, pl = budget_schedule(2.0, 5, 0.5)
    np.testing.assert_allclose(led.pl, pl[-1])
    assert np.all(led.log_leakage <= 2.0 + 1e-12)


def test_round_budget_validation():
    with pytest.raises(ValueError, match="rule must be one of"):
        round_budget(1.0, 5, 2, [1.0], 0.5, "greedy")
    with pytest.raises(ValueError, match="r must be <= 5"):
        round_budget(1.0, 5, 6, [1.0], 0.5)
    with pytest.raises(ValueError, match="omega must lie"):
        round_budget(1.0, 5, 2, [1.0], 0.0)
    with pytest.raises(ValueError, match="pl_prev must be >= 1"):
        round_budget(1.0, 5, 2, [0.5], 0.5)
    with pytest.raises(ValueError, match="omega must lie"):
        pl_recursion([0.1], [1.2])


def _two_round_exact_pl(F, eps1, w1, eps2, w2):
    """Exact PL of two kHR rounds with k = 1: on (u, l), then on ((u, v), l); F has shape (m_l, m_u, m_v)."""
    m_l, m_u, m_v = F.shape
    P1 = KHR(eps1, w1, 1, m_u, m_l).channel().reshape(m_l, m_u, -1)  # (l, u, y1)
    P2 = KHR(eps2, w2, 1, m_u * m_v, m_l).channel().reshape(m_l, m_u, m_v, -1)  # (l, u, v, y2)
    Q = np.einsum("luv,lua,luvb->lab", F, P1, P2).reshape(m_l, -1)
    return math.exp(channel_epsilon(Q))


def test_bruteforce_two_rounds_below_eq13():
    """Exact PL_2 (k = 1, our computation) never exceeds Eq. (13) of Xue et al. on random correlations."""
    rng = np.random.default_rng(11)
    tight = 0
    for _ in range(150):
        m_l, m_u, m_v = 2, int(rng.integers(2, 4)), 2
        F = rng.dirichlet(np.ones(m_u * m_v) * 0.6, size=m_l).reshape(m_l, m_u, m_v)
        w1 = omega(F.sum(axis=2), 1)
        w2 = omega(F.reshape(m_l, -1), 1)
        assert w2 <= w1 + 1e-12
        e1, e2 = rng.uniform(0.1, 1.5, size=2)
        exact = _two_round_exact_pl(F, e1, w1, e2, w2)
        bound = pl_closed_form([e1, e2], [w1, w2])
        assert exact <= bound * (1 + 1e-9)
        tight += exact > bound * (1 - 1e-6)
    assert tight > 0  # the bound is attained for some correlations


def test_increasing_beliefs_refused():
    """Theorem 6 assumes non-increasing beliefs.  Before the check, budget_schedule(2, 5, [0.1, 0.1, 1, 1, 1])
    ran silently, clamped the last two budgets to 0 and ended at ln PL_5 = 2.398 > epsilon = 2."""
    with pytest.raises(ValueError, match=r"round 3 uses omega = 1 after 0.1"):
        budget_schedule(2.0, 5, [0.1, 0.1, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="round 2"):
        budget_schedule(2.0, 3, [0.05, 0.9, 0.9])
    led = LeakageLedger(3, 2.0, 5)
    idx = np.arange(3)
    led.charge(1, idx, led.budget(1, idx, 0.1), 0.1)
    before = led.pl.copy()
    with pytest.raises(ValueError, match=r"round 2 uses omega = 0.5 after 0.1 in the previous round \(user 1"):
        led.charge(2, idx, led.budget(2, idx, [0.1, 0.5, 0.1]), [0.1, 0.5, 0.1])
    np.testing.assert_array_equal(led.pl, before)  # refused before any state changed


def test_non_increasing_beliefs_accepted_and_within_budget():
    w = [0.9, 0.9, 0.5, 0.5, 0.1]  # equal steps are allowed
    e, pl = budget_schedule(2.0, 5, w)
    assert np.all(e >= 0) and math.log(pl[-1]) <= 2.0 + 1e-12
    led = LeakageLedger(2, 2.0, 5)
    idx = np.arange(2)
    for r, wr in enumerate(w, start=1):
        led.charge(r, idx, led.budget(r, idx, wr), wr)
    np.testing.assert_allclose(led.pl, pl[-1])
    # a user who skips a round is compared with her last reported belief
    led = LeakageLedger(2, 2.0, 3)
    led.charge(1, [0, 1], led.budget(1, [0, 1], 0.4), 0.4)
    led.charge(2, [0], led.budget(2, [0], 0.2), 0.2)
    led.charge(3, [1], led.budget(3, [1], 0.4), 0.4)  # user 1: 0.4 then 0.4, fine
    with pytest.raises(ValueError, match="round 3"):
        led.charge(3, [0], led.budget(3, [0], 0.3), 0.3)  # user 0: 0.2 then 0.3
