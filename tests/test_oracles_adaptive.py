"""Tests for the adaptive GRR/OUE choice (``ldp.oracles.adaptive``; Wang et al. 2017, as Mao et al. use it)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon
from ldp.oracles import GRR, OUE, adaptive_oracle, crossover_domain_size

SETTINGS = settings(max_examples=40, deadline=None)


@pytest.mark.parametrize(
    "eps,threshold", [(0.1, 5.32), (0.5, 6.95), (1.0, 10.15), (2.0, 24.17), (2.5, 38.55), (3.0, 62.26), (4.0, 165.79)]
)
def test_adaptive_thresholds(eps, threshold):
    t = crossover_domain_size(eps)
    assert t == pytest.approx(threshold, abs=0.006)
    below, above = math.ceil(t) - 1, math.ceil(t)
    assert type(adaptive_oracle(eps, max(below, 2))) is GRR
    assert type(adaptive_oracle(eps, above)) is OUE


@SETTINGS
@given(st.floats(min_value=0.01, max_value=6.0), st.integers(min_value=2, max_value=2000))
def test_choice_never_has_the_larger_variance(eps, d):
    o = adaptive_oracle(eps, d)
    assert o.epsilon == eps and o.d == d
    g, u = GRR(eps, d).variance(1000), OUE(eps, d).variance(1000)
    assert o.variance(1000) <= min(g, u) * (1 + 1e-12)
    assert (type(o) is GRR) == (d < 3 * math.exp(eps) + 2)


def test_variances_cross_at_the_threshold():
    eps = 1.0
    d_star = crossover_domain_size(eps)
    # the frequency-0 variances are linear in d for GRR and constant for OUE; they meet at 3e^eps + 2
    gd = [GRR(eps, d).variance(1) for d in (10, 11)]
    slope = gd[1] - gd[0]
    d_meet = 10 + (OUE(eps, 10).variance(1) - gd[0]) / slope
    assert d_meet == pytest.approx(d_star, rel=1e-12)


def test_returned_oracle_is_private():
    for eps, d in [(1.0, 4), (1.0, 11)]:
        assert channel_epsilon(adaptive_oracle(eps, d).channel()) == pytest.approx(eps, abs=1e-9)


@SETTINGS
@given(st.one_of(st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf, -math.inf])))
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        adaptive_oracle(eps, 4)
    with pytest.raises(ValueError, match="epsilon"):
        crossover_domain_size(eps)


@SETTINGS
@given(st.integers(max_value=1))
def test_bad_domain(d):
    with pytest.raises(ValueError, match="d must be >= 2"):
        adaptive_oracle(1.0, d)


def test_bad_types():
    with pytest.raises(TypeError, match="d must be an integer"):
        adaptive_oracle(1.0, 4.5)
    with pytest.raises(TypeError, match="epsilon"):
        adaptive_oracle(None, 4)
    with pytest.raises(ValueError, match="x contains the code"):
        adaptive_oracle(1.0, 4).perturb(np.array([4]))
