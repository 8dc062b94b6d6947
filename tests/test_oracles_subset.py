"""Tests for subset selection (``ldp.oracles.subset``).

SS has no exact count-level sampler, so the unbiasedness and variance tests use
per-user perturbation (``perturb_and_count``) on small populations; the
tolerances are the same theory-derived ones as for GRR (5 standard errors;
5 * sqrt(2/(R-1)) on the variance ratio).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stat_checks import assert_mean_and_variance

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement
from ldp.oracles import GRR, SubsetSelection, subset_size

SETTINGS = settings(max_examples=25, deadline=None)


# ------------------------------------------------------------------ subset size
def _brute_force_best(eps, d):
    w = np.arange(1, d)
    e = math.exp(eps)
    p = w * e / (w * e + d - w)
    q = (w - p) / (d - 1)
    return int(w[np.argmin(q * (1 - q) / (p - q) ** 2)])


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
def test_default_size_is_the_variance_optimal_integer(eps):
    for d in (2, 3, 5, 16, 41, 100, 257):
        assert subset_size(eps, d) == _brute_force_best(eps, d)
        assert SubsetSelection(eps, d).subset_size == subset_size(eps, d)


def test_size_rules_from_the_papers():
    # spec 003 §3.3 item 4: k=16, eps=1 gives 4 under floor and rint; k=41, eps=3 gives 1 vs 2
    assert subset_size(1.0, 16, "floor") == subset_size(1.0, 16, "rint") == 4
    assert (subset_size(3.0, 41, "floor"), subset_size(3.0, 41, "rint")) == (1, 2)
    # spec 000 §4.6: ceil clamped to [1, floor(d/2)]; binary labels give 1
    assert subset_size(0.01, 2, "ceil") == 1
    assert subset_size(0.01, 10, "ceil") == 5
    assert subset_size(1.0, 16, "ceil") == 5
    assert SubsetSelection(3.0, 41, "floor").subset_size == 1
    for rule in ("optimal", "floor", "ceil", "rint"):
        assert 1 <= subset_size(0.05, 3, rule) <= 2


def test_q_matches_both_spec_forms():
    eps, d, w = 1.2, 9, 3
    o = SubsetSelection(eps, d, w)
    e = math.exp(eps)
    assert o.p == pytest.approx(w * e / (w * e + d - w), rel=1e-12)
    q003 = ((w - 1) * w * e + (d - w) * w) / ((d - 1) * (w * e + d - w))  # spec 003 §3.6
    q000 = (w - o.p) / (d - 1)  # spec 000 §4.6
    assert o.q == pytest.approx(q003, rel=1e-12) and o.q == pytest.approx(q000, rel=1e-12)


# ------------------------------------------------------------------ channel
@pytest.mark.parametrize("eps,d,w", [(0.5, 2, 1), (1.0, 5, 2), (1.0, 6, 3), (3.0, 7, 1), (0.2, 9, 4)])
def test_channel_rows_sum_to_one_and_audit_is_tight(eps, d, w):
    o = SubsetSelection(eps, d, w)
    P = check_channel(o.channel(), atol=1e-12)
    assert P.shape == (d, math.comb(d, w))
    eps_hat = channel_epsilon(P)
    assert eps_hat <= eps + 1e-9
    assert eps_hat == pytest.approx(eps, abs=1e-9)
    assert o.exact_epsilon == eps
    # the support probabilities implied by the channel are p and q
    subsets = o.output_subsets()
    inside = (subsets[None, :, :] == np.arange(d)[:, None, None]).any(axis=2)  # inside[v, j]
    support = P @ inside.T.astype(float)  # support[x, v] = P(v in Omega | x)
    assert np.allclose(np.diag(support), o.p, rtol=1e-12)
    assert np.allclose(support[~np.eye(d, dtype=bool)], o.q, rtol=1e-12)


def test_size_one_is_grr():
    o, g = SubsetSelection(1.4, 6, 1), GRR(1.4, 6)
    assert np.allclose(o.channel(), g.channel(), rtol=1e-12)
    assert o.variance(1000, 0.2) == pytest.approx(g.variance(1000, 0.2), rel=1e-12)


def test_channel_entry_and_refusal_for_large_domains():
    o = SubsetSelection(1.0, 6, 2)
    P, subsets = o.channel(), o.output_subsets()
    for x, j in itertools.product(range(6), range(len(subsets))):
        assert o.channel_entry(x, subsets[j]) == pytest.approx(P[x, j], rel=1e-12)
    big = SubsetSelection(1.0, 1000, 269)
    with pytest.raises(ValueError, match="too many to enumerate"):
        big.channel()
    inside = big.channel_entry(0, np.arange(269), log=True)
    outside = big.channel_entry(999, np.arange(269), log=True)
    assert inside - outside == pytest.approx(1.0, abs=1e-9)  # the log-ratio is exactly eps


# ------------------------------------------------------------------ sampling
def test_reports_are_distinct_and_follow_the_channel_row():
    o = SubsetSelection(1.0, 5, 2)
    reports = o.perturb(np.full(20_000, 1), rng=12)
    assert reports.shape == (20_000, 2)
    assert np.all(reports[:, 0] != reports[:, 1])
    subsets = [tuple(s) for s in o.output_subsets().tolist()]
    index = {s: j for j, s in enumerate(subsets)}
    cols = np.array([index[tuple(sorted(r))] for r in reports.tolist()])
    assert chi_square_agreement(cols, o.channel()[1], kind="samples") > 1e-3


def test_rows_distinct_at_larger_subset_sizes_across_chunks():
    o = SubsetSelection(0.3, 40, 17)
    reports = o.perturb(np.random.default_rng(13).integers(0, 40, size=3000), 14)
    s = np.sort(reports, axis=1)
    assert np.all(np.diff(s, axis=1) > 0)
    assert o.perturb(np.array([0]), 1).shape == (1, 17)


@pytest.mark.parametrize("d,w", [(6, 2), (8, 3), (6, 5)])
def test_estimator_unbiased_and_variance_matches_closed_form(d, w):
    o = SubsetSelection(1.0, d, w)
    x = np.repeat(np.arange(d), [500, 300, 120, 80] + [0] * (d - 4))
    counts = np.bincount(x, minlength=d)
    gen = np.random.default_rng(15)
    est = np.stack([o.estimate_counts(o.perturb_and_count(x, gen), x.size) for _ in range(1500)])
    assert_mean_and_variance(o, counts, est)


def test_per_user_estimate_at_default_size():
    o = SubsetSelection(1.0, 200)
    gen = np.random.default_rng(16)
    x = gen.integers(0, 10, size=20_000)
    f = np.bincount(x, minlength=200) / x.size
    est = o.estimate(o.perturb(x, gen))
    assert np.all(np.abs(est - f) < 5 * np.sqrt(o.variance(x.size, f)))


def test_perturb_and_count_equals_perturb_then_count():
    o = SubsetSelection(0.5, 300)
    x = np.random.default_rng(17).integers(0, 300, size=20_000)  # several chunks
    assert np.array_equal(o.perturb_and_count(x, 18), o.support_counts(o.perturb(x, 18)))


def test_no_count_sampler():
    o = SubsetSelection(1.0, 5)
    assert o.has_count_sampler is False
    with pytest.raises(ValueError, match="no exact count-level sampler"):
        o.simulate_counts([1, 2, 3, 4, 5])


# ------------------------------------------------------------------ validation
@SETTINGS
@given(st.integers(min_value=-5, max_value=20).filter(lambda w: not 1 <= w <= 7))
def test_bad_subset_size(w):
    with pytest.raises(ValueError, match="subset_size must be"):
        SubsetSelection(1.0, 8, w)


def test_bad_reports_and_inputs():
    o = SubsetSelection(1.0, 6, 2)
    with pytest.raises(TypeError, match="subset_size must be an integer"):
        SubsetSelection(1.0, 6, 2.0)
    with pytest.raises(ValueError, match="subset_size must be an integer in"):
        SubsetSelection(1.0, 6, "round")
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        o.perturb(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=int))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(np.zeros((0, 2), dtype=int))
    with pytest.raises(ValueError, match="n x omega"):
        o.support_counts(np.zeros((3, 3), dtype=int))
    with pytest.raises(ValueError, match="reports contains the code 6"):
        o.support_counts(np.array([[0, 6]]))
    with pytest.raises(ValueError, match="distinct values"):
        o.channel_entry(0, [1, 1])


def test_huge_domain_uses_rejection_sampling_with_the_right_inclusion_rates():
    """Above 2**16 values SS draws subsets by rejection (memory O(n omega)); rows stay distinct and the
    own/other inclusion probabilities stay p and q (z-tests at 5 standard errors)."""
    d, n = 200_000, 100_000
    ss = SubsetSelection(3.0, d, subset_size=4)
    assert ss._sparse
    x = np.full(n, 7)
    R = ss.perturb(x, np.random.default_rng(21))
    srt = np.sort(R, axis=1)
    assert np.all(srt[:, 1:] != srt[:, :-1])
    own = np.mean(np.any(R == 7, axis=1))
    assert abs(own - ss.p) <= 5 * np.sqrt(ss.p * (1 - ss.p) / n)
    counts = ss.support_counts(R)
    others = np.delete(counts, 7)
    # every other value is included with probability q: the total is exactly n*omega - own count
    assert others.sum() == n * 4 - counts[7]
    assert abs(others.mean() / n - ss.q) <= 5 * np.sqrt(ss.q / (n * (d - 1)))
