"""Tests for the exponential mechanism of Jayawardana et al. (``ldp.oracles.exponential``): EXP(eps) = GRR(eps/2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement
from ldp.oracles import GRR, Exponential


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


def test_expected_zero_one_error():
    # closed form: EXP's 0-1 error is (k-1)/(k-1+e^{eps/2})
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


def test_bad_inputs():
    o = Exponential(1.0, 4)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        o.perturb(np.array([0.5]))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=np.int64))
    with pytest.raises(TypeError, match="d must be an integer"):
        Exponential(1.0, "4")
