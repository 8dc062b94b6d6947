"""Tests for GRR (generalised randomized response, ``ldp.oracles.grr``).

Statistical tolerances come from the closed forms: a mean of R unbiased estimates
is within 5 standard errors ``sqrt(Var/R)`` of the truth, and the sample variance
over R repetitions satisfies ``s^2/Var ~ chi2_{R-1}/(R-1)`` (estimates are sums
of many independent indicators, hence close to normal), whose standard deviation
is ``sqrt(2/(R-1))``; we allow 5 of those.  Seeds are fixed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from stat_checks import assert_mean_and_variance
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement, two_sample_agreement
from ldp.oracles import GRR, OLH, Exponential, SubsetSelection

SETTINGS = settings(max_examples=25, deadline=None)
R = 2000  # repetitions of the count-level sampler




# ------------------------------------------------------------------ probabilities and channel
@pytest.mark.parametrize("eps,d", [(0.1, 2), (0.5, 3), (1.0, 8), (4.0, 40), (10.0, 5)])
def test_channel_rows_sum_to_one_and_audit_is_tight(eps, d):
    o = GRR(eps, d)
    P = check_channel(o.channel(), atol=1e-12)
    assert P.shape == (d, d)
    assert o.p == pytest.approx(math.exp(eps) / (math.exp(eps) + d - 1), rel=1e-12)
    assert o.q == pytest.approx(1 / (math.exp(eps) + d - 1), rel=1e-12)
    eps_hat = channel_epsilon(P)
    assert eps_hat <= eps + 1e-9
    assert eps_hat == pytest.approx(eps, abs=1e-9)


def test_large_epsilon_gives_finite_probabilities():
    o = GRR(600.0, 4)  # e^600 is finite but huge; p and q must not become nan
    assert o.p == 1.0 and 0.0 < o.q < 1e-250


@pytest.mark.parametrize("make", [lambda: GRR(800.0, 4), lambda: Exponential(1600.0, 4),
                                  lambda: SubsetSelection(800.0, 6, 2), lambda: OLH(710.0, 5)])
def test_budgets_whose_q_underflows_are_refused(make):
    """A q that rounds to 0 would make the channel infinitely revealing: refuse, naming epsilon."""
    with pytest.raises(ValueError, match="epsilon"):
        make()


# ------------------------------------------------------------------ sampling
def test_perturb_follows_channel_row():
    o = GRR(1.0, 5)
    y = o.perturb(np.full(20_000, 3), rng=1)
    assert chi_square_agreement(y, o.channel()[3], kind="samples") > 1e-3


def test_estimator_unbiased_and_variance_matches_closed_form():
    o = GRR(1.0, 6)
    counts = np.array([2500, 1500, 600, 400, 0, 0])
    gen = np.random.default_rng(2)
    est = np.stack([o.estimate_from_support(o.simulate_counts(counts, gen), counts.sum()) for _ in range(R)])
    assert_mean_and_variance(o, counts, est)


def test_per_user_estimate_within_five_standard_errors():
    o = GRR(2.0, 10)
    gen = np.random.default_rng(3)
    x = gen.integers(0, 4, size=50_000)  # values 4..9 have frequency 0
    f = np.bincount(x, minlength=10) / x.size
    est = o.estimate(o.perturb(x, gen))
    assert np.all(np.abs(est - f) < 5 * np.sqrt(o.variance(x.size, f)))


def test_simulate_counts_agrees_with_perturb():
    o = GRR(0.7, 4)
    x = np.repeat(np.arange(4), [60, 25, 15, 0])
    counts = np.bincount(x, minlength=4)
    gen = np.random.default_rng(4)
    fast = np.stack([o.simulate_counts(counts, gen) for _ in range(600)])
    slow = np.stack([o.support_counts(o.perturb(x, gen)) for _ in range(600)])
    for v in (0, 3):
        assert two_sample_agreement(fast[:, v], slow[:, v], kind="samples") > 1e-3
    assert np.all(fast.sum(axis=1) == x.size)


def test_same_seed_same_reports():
    o = GRR(1.0, 7)
    x = np.arange(7).repeat(10)
    assert np.array_equal(o.perturb(x, 11), o.perturb(x, np.random.default_rng(11)))


# ------------------------------------------------------------------ validation
@SETTINGS
@given(st.one_of(st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf, -math.inf])))
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        GRR(eps, 4)


@SETTINGS
@given(st.integers(max_value=1))
def test_bad_domain(d):
    with pytest.raises(ValueError, match="d must be >= 2"):
        GRR(1.0, d)


def test_wrong_types():
    with pytest.raises(TypeError, match="epsilon"):
        GRR("1", 4)
    with pytest.raises(TypeError, match="d must be an integer"):
        GRR(1.0, 4.0)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        GRR(1.0, 4).perturb(np.array([0.0, 1.0]))


@SETTINGS
@given(st.one_of(st.integers(min_value=-(2**62), max_value=-1), st.integers(min_value=5, max_value=2**62)))
def test_codes_out_of_range(bad):
    o = GRR(1.0, 5)
    with pytest.raises(ValueError, match="x contains the code"):
        o.perturb(np.array([0, bad]))
    with pytest.raises(ValueError, match="reports contains the code"):
        o.support_counts(np.array([0, bad]))


def test_empty_input():
    o = GRR(1.0, 5)
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=int))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(np.array([], dtype=int))
    with pytest.raises(ValueError, match="true_counts"):
        o.simulate_counts(np.zeros(5, dtype=int))


@pytest.mark.parametrize("support, n, match", [([1.0, 2.0], 10, r"shape \(5,\)"), ([-3, 1, 1, 1, 1], 10, "non-negative"),
                                               ([np.nan, 1, 1, 1, 1], 10, "finite"), ([1, 1, 1, 1, 1], 0, "n must be"),
                                               ([1, 1, 1, 1, 1], 2.5, "n must be an integer")])
def test_server_side_inputs_are_validated(support, n, match):
    with pytest.raises((ValueError, TypeError), match=match):
        GRR(1.0, 5).estimate_from_support(support, n)


@pytest.mark.parametrize("f", [-0.1, 1.5, np.nan, [0.5, 7.0]])
def test_variance_refuses_frequencies_outside_the_unit_interval(f):
    with pytest.raises(ValueError, match="f must hold frequencies"):
        GRR(1.0, 5).variance(10, f)


@pytest.mark.parametrize("eps,d", [(1.0, 1000), (5.0, 2), (0.5, 3)])
def test_perturb_and_count_same_as_the_previous_casting_path(eps, d):
    """Copying only the kept users' values (or casting x before the masked copy, when many keep them) and
    casting the reports before bincount change no report or count: same stream as the previous path."""
    o = GRR(eps, d)
    x = np.random.default_rng(3).integers(0, d, size=50_000)
    gen = np.random.default_rng(4)
    old = gen.integers(0, d, size=x.size, dtype=np.int32)
    np.copyto(old, x, where=gen.random(x.size) < (o.p - o.q), casting="unsafe")
    new = o.perturb(x, np.random.default_rng(4))
    assert new.dtype == np.int32
    np.testing.assert_array_equal(new, old)
    np.testing.assert_array_equal(o.support_counts(new), np.bincount(old, minlength=d))
