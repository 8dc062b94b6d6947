"""Tests for subset selection (``ldp.oracles.subset``).

The unbiasedness and variance tests use per-user perturbation
(``perturb_and_count``) on small populations; the count-level law
(``simulate_counts``) is tested against exact moments and against per-user
perturbation in distribution; the
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

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement, two_sample_agreement
from ldp.oracles import GRR, SubsetSelection, subset_size
from ldp.oracles import subset as subset_module

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
    # Jayawardana et al.'s rule vs rounding: k=16, eps=1 gives 4 under floor and rint; k=41, eps=3 gives 1 vs 2
    assert subset_size(1.0, 16, "floor") == subset_size(1.0, 16, "rint") == 4
    assert (subset_size(3.0, 41, "floor"), subset_size(3.0, 41, "rint")) == (1, 2)
    # Xue et al.'s rule: ceil clamped to [1, floor(d/2)]; binary labels give 1
    assert subset_size(0.01, 2, "ceil") == 1
    assert subset_size(0.01, 10, "ceil") == 5
    assert subset_size(1.0, 16, "ceil") == 5
    assert SubsetSelection(3.0, 41, "floor").subset_size == 1
    for rule in ("optimal", "floor", "ceil", "rint"):
        assert 1 <= subset_size(0.05, 3, rule) <= 2


def test_q_matches_both_papers_forms():
    eps, d, w = 1.2, 9, 3
    o = SubsetSelection(eps, d, w)
    e = math.exp(eps)
    assert o.p == pytest.approx(w * e / (w * e + d - w), rel=1e-12)
    q003 = ((w - 1) * w * e + (d - w) * w) / ((d - 1) * (w * e + d - w))  # Jayawardana et al.'s form
    q000 = (w - o.p) / (d - 1)  # Xue et al.'s form
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


# ------------------------------------------------------------------ count-level law
def _exact_moments(o, counts):
    """Exact mean vector and covariance matrix of the support counts (users are independent).

    For one user holding ``x``: ``P(v in report) = p`` if ``v = x`` else ``q``; for ``u != v``,
    ``P(u, v both in report)`` is ``p (w-1)/(d-1)`` when ``x`` is ``u`` or ``v``, and
    ``[p (w-1)(w-2) + (1-p) w (w-1)] / ((d-1)(d-2))`` otherwise (``w`` = subset size).
    """
    d, w, p, q = o.d, o.subset_size, o.p, o.q
    n = counts.sum()
    mean = counts * p + (n - counts) * q
    both_other = (p * (w - 1) * (w - 2) + (1 - p) * w * (w - 1)) / ((d - 1) * (d - 2)) if d > 2 else 0.0
    cov = np.zeros((d, d))
    for x in range(d):
        if counts[x] == 0:
            continue
        inc = np.full(d, q)
        inc[x] = p
        joint = np.full((d, d), both_other)
        joint[x, :] = joint[:, x] = p * (w - 1) / (d - 1)
        c = joint - np.outer(inc, inc)
        np.fill_diagonal(c, inc * (1 - inc))
        cov += counts[x] * c
    return mean, cov


def _moment_errors(sample, mean, cov):
    """z-scores of the sample mean, variances and covariances against exact values.

    Standard errors from the sample itself (CLT): ``sd/sqrt(R)`` for means, and
    ``sd((X_u - m_u)(X_v - m_v))/sqrt(R)`` for the second moments about the exact mean.
    """
    R = sample.shape[0]
    dev = sample - mean
    z_mean = dev.mean(axis=0) / np.sqrt(np.diag(cov) / R)
    prod = dev[:, :, None] * dev[:, None, :]
    se = prod.std(axis=0, ddof=1) / math.sqrt(R)
    z_cov = (prod.mean(axis=0) - cov) / se
    return np.abs(z_mean).max(), np.abs(z_cov).max()


def _two_sample_errors(a, b):
    """z-scores of the differences in means and in (co)variances between two independent samples."""

    def second(x):
        dev = x - x.mean(axis=0)
        return dev[:, :, None] * dev[:, None, :]

    ra, rb = a.shape[0], b.shape[0]
    z_mean = (a.mean(axis=0) - b.mean(axis=0)) / np.sqrt(a.var(axis=0, ddof=1) / ra + b.var(axis=0, ddof=1) / rb)
    pa, pb = second(a), second(b)
    se = np.sqrt(pa.var(axis=0, ddof=1) / ra + pb.var(axis=0, ddof=1) / rb)
    z_cov = (pa.mean(axis=0) - pb.mean(axis=0)) / se
    return np.abs(z_mean).max(), np.abs(z_cov).max()


CASES = [(1.0, 6, 2), (0.5, 10, 4), (2.0, 8, 3), (1.0, 5, 4), (0.3, 12, 5), (3.0, 7, 1)]


def _population(d):
    return np.array([60, 0, 25, 9] + [4] * (d - 4), dtype=np.int64)


def test_mixture_form_of_the_channel():
    """With probability a = (1-p) d/(d-w) a uniform w-subset of all d values, else x plus a uniform
    (w-1)-subset of the others: the mixture's channel equals the SS channel entry by entry."""
    for eps, d, w in [(1.0, 6, 2), (0.4, 7, 3), (2.5, 5, 4), (1.0, 4, 1)]:
        o = SubsetSelection(eps, d, w)
        subsets = o.output_subsets()
        a = o._parts.mix
        assert a == pytest.approx(o.one_minus_p * d / (d - w), rel=1e-14) and 0 <= a <= 1
        mixture = np.empty((d, subsets.shape[0]))
        for x in range(d):
            inside = (subsets == x).any(axis=1)
            mixture[x] = a / math.comb(d, w) + np.where(inside, (1 - a) / math.comb(d - 1, w - 1), 0.0)
        np.testing.assert_allclose(mixture, o.channel(), rtol=1e-12)


@pytest.mark.parametrize("eps,d,w", CASES)
def test_count_law_has_the_exact_moments(eps, d, w):
    """10,000 count-level draws: every mean, variance and covariance within 5 standard errors of the
    exact moments of per-user perturbation; each draw sums to n w exactly."""
    o = SubsetSelection(eps, d, w)
    assert o.has_count_sampler
    counts = _population(d)
    gen = np.random.default_rng(40 + d)
    sample = np.stack([o.simulate_counts(counts, gen) for _ in range(10_000)])
    assert np.all(sample.sum(axis=1) == counts.sum() * w)
    z_mean, z_cov = _moment_errors(sample, *_exact_moments(o, counts))
    assert z_mean < 5 and z_cov < 5, (z_mean, z_cov)


@pytest.mark.parametrize("eps,d,w", CASES)
def test_count_law_equals_per_user_perturbation_in_distribution(eps, d, w):
    """Two-sample checks against per-user perturbation: means, variances and covariances within 5
    standard errors of each other, and a chi-square homogeneity test on the count of value 0."""
    o = SubsetSelection(eps, d, w)
    counts = _population(d)
    x = np.repeat(np.arange(d), counts)
    gen = np.random.default_rng(70 + d)
    R = 3000
    fast = np.stack([o.simulate_counts(counts, gen) for _ in range(R)])
    slow = np.stack([o.perturb_and_count(x, gen) for _ in range(R)])
    z_mean, z_cov = _two_sample_errors(fast, slow)
    assert z_mean < 5 and z_cov < 5, (z_mean, z_cov)
    assert two_sample_agreement(fast[:, 0], slow[:, 0], kind="samples") > 1e-3
    assert two_sample_agreement(fast[:, 1], slow[:, 1], kind="samples") > 1e-3


def test_the_moment_checks_can_fail():
    """Power check: independent binomial counts with the right means and variances (no covariance)
    and a count law with a wrong mixture weight are both rejected by the same checks."""
    o = SubsetSelection(1.0, 6, 2)
    counts = _population(6)
    mean, cov = _exact_moments(o, counts)
    gen = np.random.default_rng(5)
    n = counts.sum()
    indep = np.stack([gen.binomial(counts, o.p) + gen.binomial(n - counts, o.q) for _ in range(10_000)])
    assert _moment_errors(indep, mean, cov)[1] > 5
    wrong = SubsetSelection(1.0, 6, 2)
    wrong._parts = wrong._parts._replace(mix=wrong._parts.mix * 0.9)
    sample = np.stack([wrong.simulate_counts(counts, gen) for _ in range(10_000)])
    assert _moment_errors(sample, mean, cov)[0] > 5


def test_count_law_splits_huge_populations(monkeypatch):
    """Populations above numpy's hypergeometric limit are simulated in independent parts; with a tiny
    limit forced the parts still add up to the exact law (moments within 5 standard errors)."""
    parts = list(subset_module._split_population(np.array([5, 0, 7, 3]), 4))
    assert all(p.sum() <= 4 for p in parts)
    np.testing.assert_array_equal(np.sum(parts, axis=0), [5, 0, 7, 3])
    monkeypatch.setattr(subset_module, "_MVHG_LIMIT", 40)
    o = SubsetSelection(1.0, 6, 2)
    counts = _population(6)
    gen = np.random.default_rng(8)
    sample = np.stack([o.simulate_counts(counts, gen) for _ in range(10_000)])
    z_mean, z_cov = _moment_errors(sample, *_exact_moments(o, counts))
    assert z_mean < 5 and z_cov < 5, (z_mean, z_cov)


def test_count_law_at_scale_and_size_one_is_grr():
    """Large n and d: sums are exact and every count within 5 sd of its mean; omega = 1 uses GRR's law."""
    o = SubsetSelection(1.0, 1024)
    counts = np.random.default_rng(1).multinomial(10**7, np.full(1024, 1 / 1024))
    c = o.simulate_counts(counts, 2)
    assert c.sum() == 10**7 * o.subset_size
    n = counts.sum()
    mean = counts * o.p + (n - counts) * o.q
    sd = np.sqrt(counts * o.p * o.one_minus_p + (n - counts) * o.q * (1 - o.q))
    assert np.all(np.abs(c - mean) < 5 * sd)
    g1 = SubsetSelection(2.0, 9, 1).simulate_counts(_population(9), 3)
    np.testing.assert_array_equal(g1, GRR(2.0, 9).simulate_counts(_population(9), 3))
    with pytest.raises(ValueError, match="true_counts must have length"):
        o.simulate_counts([1, 2, 3])


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


def _old_floyd(m, omega, big, flat, gen):
    """The previous Floyd sampler (one draw call per step), kept as the reference stream."""
    base = np.arange(m, dtype=np.int32) * np.int32(big)
    idx = np.empty(m, dtype=np.int32)
    cols = np.empty((omega, m), dtype=np.int32)
    for t in range(omega):
        j = big - omega + t
        cand = gen.integers(0, j + 1, size=m, dtype=np.int32)
        np.add(cand, base, out=idx)
        np.copyto(cand, j, where=flat[idx])
        np.add(cand, base, out=idx)
        flat[idx] = True
        cols[t] = cand
    flat[(cols + base).ravel()] = False
    return np.ascontiguousarray(cols.T)


@pytest.mark.parametrize("m,omega,big", [(1, 1, 1), (7, 5, 5), (500, 3, 40), (300, 34, 127), (64, 200, 1023)])
def test_floyd_draws_in_one_call_give_the_same_subsets(m, omega, big):
    flat = np.zeros(m * big, dtype=bool)
    g1, g2 = np.random.default_rng(m + omega), np.random.default_rng(m + omega)
    for _ in range(3):  # consecutive chunks keep the streams aligned
        np.testing.assert_array_equal(
            subset_module._floyd(m, omega, big, flat, g1), _old_floyd(m, omega, big, flat, g2)
        )
        assert not flat.any()
    assert g1.random() == g2.random()


def test_support_counts_without_int64_copy_still_validates():
    o = SubsetSelection(1.0, 300)
    reports = o.perturb(np.arange(300), 1)
    assert reports.dtype == np.int16
    np.testing.assert_array_equal(
        o.support_counts(reports), np.bincount(reports.astype(np.int64).ravel(), minlength=300)
    )
    with pytest.raises(ValueError, match="reports contains the code -1"):
        o.support_counts(np.full((2, o.subset_size), -1, dtype=np.int16))
    with pytest.raises(TypeError, match="reports must be an array of integer codes"):
        o.support_counts(np.zeros((2, o.subset_size)))


def _stream_cases():
    g = np.random.default_rng(2027)
    for d, omega, mix, n, conc in [
        (2, 1, 0.5, 1000, 1.0),
        (5, 2, 0.0, 7, 1.0),
        (5, 4, 1.0, 300, 0.1),
        (10, 3, 0.3, 100000, 10.0),
        (50, 25, 0.9, 0, 1.0),
        (250, 1, 0.6, 100000, 1.0),
        (250, 17, 0.6, 100000, 0.1),
        (250, 99, 0.2, 100000, 1.0),
        (250, 249, 0.95, 5000, 1.0),
        (1000, 300, 0.5, 20000, 0.1),
    ]:
        yield f"d{d}-w{omega}", g.multinomial(n, g.dirichlet(np.full(d, conc))), omega, mix


#: digests of the counts (and of the generator's next draw) from the item sampler before it drew both kinds
#: of user in one binomial call and trimmed its windows by scalar scans (commit afa5a0b), same cases and seeds
STREAM_DIGESTS = {
    "d2-w1": "8fa4a4af9bd94508",
    "d5-w2": "6e88df85ec5511d5",
    "d5-w4": "0a3d8288c65271a9",
    "d10-w3": "de4e641310f485da",
    "d50-w25": "bd8bf19229c39252",
    "d250-w1": "a9ed747feee6cc37",
    "d250-w17": "9607d17e8eac7a66",
    "d250-w99": "a0e885cd8de8daf8",
    "d250-w249": "5664e01901ee2dba",
    "d1000-w300": "d2c89514350c9485",
}


def test_count_sampler_keeps_its_random_stream():
    """The faster item loop draws exactly what the earlier one drew: same counts, same generator state after."""
    import hashlib

    seen = {}
    for name, counts, omega, mix in _stream_cases():
        gen = np.random.default_rng(11)
        out = subset_module._mixture_counts(counts, omega, mix, gen)
        tail = gen.integers(0, 2**62)
        assert out.sum() == counts.sum() * omega  # every report supports omega values
        seen[name] = hashlib.sha256(out.astype(np.int64).tobytes() + np.int64(tail).tobytes()).hexdigest()[:16]
    assert seen == STREAM_DIGESTS
