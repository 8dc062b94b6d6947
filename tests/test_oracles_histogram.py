"""SHE: summation with histogram encoding (Laplace noise on a one-hot vector)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldp.oracles import FrequencyOracle
from ldp.oracles.histogram import SHE


def test_is_a_frequency_oracle_with_expected_parameters():
    o = SHE(2.0, 5)
    assert isinstance(o, FrequencyOracle)
    assert (o.p, o.q, o.scale, o.exact_epsilon) == (1.0, 0.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="no enumerable finite channel"):
        o.channel()


def test_privacy_density_ratio_is_at_most_epsilon_and_attained():
    """log f(y|v) - log f(y|v') = (|y_v| - |y_v - 1| - |y_v'| + |y_v' - 1|)/b <= 2/b = eps."""
    eps = 1.3
    o = SHE(eps, 4)
    y = np.random.default_rng(0).normal(0.5, 2.0, size=(5000, 4))
    ll = o.log_likelihood(y)
    worst = (ll[:, :, None] - ll[:, None, :]).max()
    assert worst <= eps + 1e-12
    assert worst == pytest.approx(eps, rel=1e-9)  # reached when y_v >= 1 and y_v' <= 0
    ll1 = o.log_likelihood(np.array([1.5, -0.5, 0.2, 0.3]))
    assert ll1[0, 0] - ll1[0, 1] == pytest.approx(eps)


def test_log_likelihood_is_the_laplace_density():
    o = SHE(0.8, 3)
    y = np.array([[0.3, -1.2, 2.0]])
    for v in range(3):
        e = np.eye(3)[v]
        want = stats.laplace(loc=e, scale=o.scale).logpdf(y[0]).sum()
        assert o.log_likelihood(y)[0, v] == pytest.approx(want, rel=1e-12)


def test_reports_shape_and_validation():
    o = SHE(1.0, 4)
    r = o.perturb(np.array([0, 3, 2]), rng=0)
    assert r.shape == (3, 4) and r.dtype == np.float64
    with pytest.raises(ValueError, match="n x d"):
        o.support_counts(np.zeros((3, 5)))
    with pytest.raises(TypeError, match="float"):
        o.support_counts(np.zeros((3, 4), dtype=int))
    with pytest.raises(ValueError, match="finite"):
        o.support_counts(np.full((1, 4), np.inf))
    with pytest.raises(ValueError, match="outside the domain"):
        o.perturb(np.array([4]))
    with pytest.raises(ValueError, match="n must be"):
        o.variance(0)
