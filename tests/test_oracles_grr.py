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

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement
from ldp.oracles import GRR, OLH, Exponential, SubsetSelection

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


@pytest.mark.parametrize(
    "make",
    [
        lambda: GRR(800.0, 4),
        lambda: Exponential(1600.0, 4),
        lambda: SubsetSelection(800.0, 6, 2),
        lambda: OLH(710.0, 5),
    ],
)
def test_budgets_whose_q_underflows_are_refused(make):
    """A q that rounds to 0 would make the channel infinitely revealing: refuse, naming epsilon."""
    with pytest.raises(ValueError, match="epsilon"):
        make()


# ------------------------------------------------------------------ sampling
def test_perturb_follows_channel_row():
    o = GRR(1.0, 5)
    y = o.perturb(np.full(20_000, 3), rng=1)
    assert chi_square_agreement(y, o.channel()[3], kind="samples") > 1e-3


# ------------------------------------------------------------------ validation
def test_wrong_types():
    with pytest.raises(TypeError, match="epsilon"):
        GRR("1", 4)
    with pytest.raises(TypeError, match="d must be an integer"):
        GRR(1.0, 4.0)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        GRR(1.0, 4).perturb(np.array([0.0, 1.0]))


def test_empty_input():
    o = GRR(1.0, 5)
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=int))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(np.array([], dtype=int))
    with pytest.raises(ValueError, match="true_counts"):
        o.simulate_counts(np.zeros(5, dtype=int))


@pytest.mark.parametrize(
    "support, n, match",
    [
        ([1.0, 2.0], 10, r"shape \(5,\)"),
        ([-3, 1, 1, 1, 1], 10, "non-negative"),
        ([np.nan, 1, 1, 1, 1], 10, "finite"),
        ([1, 1, 1, 1, 1], 0, "n must be"),
        ([1, 1, 1, 1, 1], 2.5, "n must be an integer"),
    ],
)
def test_server_side_inputs_are_validated(support, n, match):
    with pytest.raises((ValueError, TypeError), match=match):
        GRR(1.0, 5).estimate_counts(support, n)


@pytest.mark.parametrize("f", [-0.1, 1.5, np.nan, [0.5, 7.0]])
def test_variance_refuses_frequencies_outside_the_unit_interval(f):
    with pytest.raises(ValueError, match="f must hold frequencies"):
        GRR(1.0, 5).variance(10, f)


def test_reports_outside_the_domain_are_refused():
    with pytest.raises(ValueError, match="reports contains the code 5"):
        GRR(1.0, 5).support_counts(np.array([0, 5]))
    with pytest.raises(ValueError, match="reports contains the code -1"):
        GRR(1.0, 5).support_counts(np.array([0, -1]))


@pytest.mark.parametrize("n", [50_000, 3 * 65_536 + 5])
@pytest.mark.parametrize("eps,d", [(1.0, 1000), (5.0, 2), (0.5, 3)])
def test_perturb_and_count_same_as_the_previous_casting_path(eps, d, n):
    """Copying only the kept users' values (or the masked copy, when many keep them), drawing the uniforms
    piece by piece and holding the reports as intp change no report or count: the values are those of the
    previous int32 path for the same stream, and the generator ends in the same state."""
    o = GRR(eps, d)
    x = np.random.default_rng(3).integers(0, d, size=n)
    gen = np.random.default_rng(4)
    old = gen.integers(0, d, size=x.size, dtype=np.int32)
    np.copyto(old, x, where=gen.random(x.size) < (o.p - o.q), casting="unsafe")
    gen_new = np.random.default_rng(4)
    new = o.perturb(x, gen_new)
    assert new.dtype == np.intp
    np.testing.assert_array_equal(new, old)
    assert gen.random() == gen_new.random()
    np.testing.assert_array_equal(o.support_counts(new), np.bincount(old, minlength=d))
    np.testing.assert_array_equal(o.perturb_and_count(x, np.random.default_rng(4)), np.bincount(old, minlength=d))


@pytest.mark.parametrize(
    "reports,bad",
    [
        (np.array([0, 4, 5], dtype=np.int32), "5"),
        (np.array([0, -1], dtype=np.int8), "-1"),
        (np.array([3, 2**63 + 7], dtype=np.uint64), str(2**63 + 7)),
        (np.array([1, 2**40], dtype=np.int64), str(2**40)),
    ],
)
def test_support_counts_refuses_out_of_domain_reports_of_any_integer_dtype(reports, bad):
    """The fast path lets bincount check the reports; whatever the dtype, a code outside {0..d-1} is named."""
    with pytest.raises(ValueError, match=f"reports contains the code {bad}"):
        GRR(1.0, 5).support_counts(reports)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, bool])
def test_support_counts_same_for_every_integer_dtype(dtype):
    codes = np.random.default_rng(6).integers(0, 2, size=1000)
    expected = np.bincount(codes, minlength=5)
    np.testing.assert_array_equal(GRR(1.0, 5).support_counts(codes.astype(dtype)), expected)
    with pytest.raises(ValueError, match="one-dimensional"):
        GRR(1.0, 5).support_counts(codes.astype(dtype).reshape(10, 100))


@pytest.mark.parametrize(
    "x,bad",
    [(np.array([0, 5]), "5"), (np.array([-1, 0]), "-1"), (np.array([0, -(2**62)], dtype=np.int64), str(-(2**62)))],
)
def test_perturb_refuses_codes_outside_the_domain(x, bad):
    """One unsigned maximum finds negative and too large codes alike; the full check then names the code."""
    with pytest.raises(ValueError, match=f"x contains the code {bad}"):
        GRR(1.0, 5).perturb(x, 0)


def test_narrow_signed_codes_are_checked_against_large_domains():
    """Read as unsigned, int8 -1 is 255 < 1000: the one-pass check must not let it through."""
    o = GRR(1.0, 1000)
    with pytest.raises(ValueError, match="reports contains the code -1"):
        o.support_counts(np.array([3, -1], dtype=np.int8))
    with pytest.raises(ValueError, match="x contains the code -1"):
        o.perturb(np.array([3, -1], dtype=np.int8), 0)
    np.testing.assert_array_equal(o.support_counts(np.array([3, 127], dtype=np.int8))[[3, 127]], [1, 1])
