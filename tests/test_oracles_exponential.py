"""Tests for the exponential mechanism of paper 003 (``ldp.oracles.exponential``): EXP(eps) = GRR(eps/2)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement, two_sample_agreement
from ldp.oracles import GRR, Exponential

SETTINGS = settings(max_examples=25, deadline=None)


@pytest.mark.parametrize("eps,d", [(0.5, 2), (1.0, 4), (3.0, 16), (6.0, 5)])
def test_channel_is_grr_at_half_epsilon_and_audit_gives_half(eps, d):
    o = Exponential(eps, d)
    P = check_channel(o.channel(), atol=1e-12)
    # the definition: P(r|x) proportional to exp(eps * 1[x=r] / 2)
    w = np.exp(eps * np.eye(d) / 2)
    assert np.allclose(P, w / w.sum(axis=1, keepdims=True), rtol=1e-12)
    assert np.allclose(P, GRR(eps / 2, d).channel(), rtol=1e-12)
    eps_hat = channel_epsilon(P)
    assert eps_hat <= eps + 1e-9  # eps-LDP as claimed ...
    assert eps_hat == pytest.approx(eps / 2, abs=1e-9)  # ... but tight only at eps/2
    assert o.exact_epsilon == pytest.approx(eps / 2)


def test_expected_zero_one_error_spec_003():
    # spec 003 §8 item 14: EXP's 0-1 error is (k-1)/(k-1+e^{eps/2})
    for eps, k in [(1.0, 2), (3.0, 2), (1.0, 16)]:
        o = Exponential(eps, k)
        assert 1 - o.p == pytest.approx((k - 1) / (k - 1 + math.exp(eps / 2)), rel=1e-12)


def test_sampling_is_grr_at_half_epsilon_draw_for_draw():
    x = np.arange(6).repeat(50)
    o, g = Exponential(1.6, 6), GRR(0.8, 6)
    assert np.array_equal(o.perturb(x, 21), g.perturb(x, 21))
    counts = np.bincount(x, minlength=6)
    assert np.array_equal(o.simulate_counts(counts, 22), g.simulate_counts(counts, 22))
    assert o.as_grr().channel() == pytest.approx(g.channel())


def test_perturb_follows_channel_row():
    o = Exponential(2.0, 4)
    y = o.perturb(np.full(20_000, 2), rng=23)
    assert chi_square_agreement(y, o.channel()[2], kind="samples") > 1e-3


def test_estimator_unbiased_and_variance_matches_closed_form():
    o = Exponential(2.0, 5)
    counts = np.array([3000, 1200, 800, 0, 0])
    n, reps = counts.sum(), 2000
    gen = np.random.default_rng(24)
    est = np.stack([o.estimate_counts(o.simulate_counts(counts, gen), n) for _ in range(reps)])
    f = counts / n
    var = o.variance(n, f)
    assert np.allclose(var, GRR(1.0, 5).variance(n, f), rtol=1e-12)
    assert np.all(np.abs(est.mean(axis=0) - f) < 5 * np.sqrt(var / reps))
    assert np.all(np.abs(est.var(axis=0, ddof=1) / var - 1) < 5 * math.sqrt(2 / (reps - 1)))


def test_simulate_counts_agrees_with_perturb():
    o = Exponential(1.5, 3)
    x = np.repeat(np.arange(3), [70, 30, 0])
    counts = np.bincount(x, minlength=3)
    gen = np.random.default_rng(25)
    fast = np.stack([o.simulate_counts(counts, gen) for _ in range(600)])
    slow = np.stack([o.support_counts(o.perturb(x, gen)) for _ in range(600)])
    for v in (0, 2):
        assert two_sample_agreement(fast[:, v], slow[:, v], kind="samples") > 1e-3


@SETTINGS
@given(st.one_of(st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf, -math.inf])))
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        Exponential(eps, 4)


@SETTINGS
@given(st.integers(max_value=1))
def test_bad_domain(d):
    with pytest.raises(ValueError, match="d must be >= 2"):
        Exponential(1.0, d)


@SETTINGS
@given(st.one_of(st.integers(min_value=-(2**62), max_value=-1), st.integers(min_value=4, max_value=2**62)))
def test_codes_out_of_range(bad):
    with pytest.raises(ValueError, match="x contains the code"):
        Exponential(1.0, 4).perturb(np.array([0, bad]))


def test_bad_inputs():
    o = Exponential(1.0, 4)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        o.perturb(np.array([0.5]))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=np.int64))
    with pytest.raises(TypeError, match="d must be an integer"):
        Exponential(1.0, "4")
