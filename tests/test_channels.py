"""ldp.channels: generic tools for finite channels, on square and non-square channels."""

import numpy as np
import pytest

from ldp import channels
from ldp.audit import chi_square_agreement, two_sample_agreement
from ldp.oracles import GRR

RECT = np.array([[0.5, 0.2, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1], [0.2, 0.2, 0.2, 0.2, 0.2]])


@pytest.mark.parametrize("x", [0, 1, 2])
def test_per_user_sampling_follows_each_row_of_a_rectangular_channel(x):
    reports = channels.sample_channel(RECT, np.full(20_000, x), np.random.default_rng(x))
    assert reports.max() < RECT.shape[1]
    assert chi_square_agreement(reports, RECT[x], kind="samples") > 1e-3


def test_count_sampler_agrees_with_per_user_sampling():
    true_counts = np.array([4000, 2500, 3500])
    codes = np.repeat(np.arange(3), true_counts)
    a = np.bincount(channels.sample_channel(RECT, codes, np.random.default_rng(1)), minlength=5)
    b = channels.simulate_channel_counts(RECT, true_counts, np.random.default_rng(2))
    assert a.sum() == b.sum() == true_counts.sum()
    assert two_sample_agreement(a, b) > 1e-3


def test_inversion_is_unbiased_and_its_variance_is_exact():
    o = GRR(1.0, 4)
    P = o.channel()
    f = np.array([0.4, 0.3, 0.2, 0.1])
    n = 1000
    np.testing.assert_allclose(channels.inverse_estimate(P, channels.output_distribution(P, f)), f, atol=1e-12)
    # GRR's closed-form variance is the channel-inversion variance
    np.testing.assert_allclose(channels.inverse_variance(P, f, n), o.variance(n, f), rtol=1e-10)
    cov = channels.inverse_covariance(P, f, n)
    np.testing.assert_allclose(np.diag(cov), channels.inverse_variance(P, f, n), rtol=1e-12)


def test_square_channel_check_names_the_problem():
    with pytest.raises(ValueError, match="square"):
        channels.check_square_channel(RECT)
    with pytest.raises(ValueError, match="row-stochastic"):
        channels.check_square_channel(np.array([[0.5, 0.4], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="non-negative"):
        channels.check_square_channel(np.array([[1.1, -0.1], [0.5, 0.5]]))
