"""Tests for local hashing (``LocalHashing``, ``BLH``, ``OLH``) and its hash family.

Tolerances: 5 standard errors for means and for Monte Carlo rates, and
5 * sqrt(2/(R-1)) for the ratio of sample to closed-form variance (normal
approximation to the chi-square law of a sample variance), as in the other
oracle tests.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement
from ldp.oracles import BLH, OLH, LHReports, LocalHashing, olh_g
from ldp.oracles.local_hash import MERSENNE31, bucket_sizes, collision_probability, universal_hash

SETTINGS = settings(max_examples=25, deadline=None)


def _delta(g: int, P: int) -> float:
    rho = P % g
    return (P * (g - 1) - rho * (g - rho)) / (g * P * (P - 1))


# ------------------------------------------------------------------ the hash family
@pytest.mark.parametrize("P", [7, 11, 13])
@pytest.mark.parametrize("g", [2, 3, 4, 5, 21])
def test_collision_probability_exhaustive(P, g):
    """Enumerate the whole family: every pair u != v collides with the same probability c = 1/g - delta."""
    a, b = np.meshgrid(np.arange(1, P), np.arange(P), indexing="ij")
    H = universal_hash(a.ravel()[:, None], b.ravel()[:, None], np.arange(P)[None, :], g, P)
    coll = (H[:, :, None] == H[:, None, :]).mean(axis=0)
    off = coll[~np.eye(P, dtype=bool)]
    c = collision_probability(g, P)
    assert np.allclose(off, c, rtol=0, atol=1e-15)
    assert c == pytest.approx(1 / g - _delta(g, P), abs=1e-15)
    assert c <= 1 / g + 1e-15


@pytest.mark.parametrize("g,P", [(2, 7), (4, 11), (5, 101), (149, MERSENNE31), (3, MERSENNE31)])
def test_buckets_are_balanced(g, P):
    s = bucket_sizes(g, P)
    assert s.sum() == P and s.max() - s.min() <= 1 and np.count_nonzero(s == s.max()) == (P % g or g)


def test_default_prime_is_universal_up_to_one_over_P():
    for g in (2, 4, 21, 149):
        assert 0 <= 1 / g - collision_probability(g) < 1 / MERSENNE31


def test_monte_carlo_collision_rate_matches_theory():
    o = OLH(1.0, 1000)
    a, b = o.draw_hashes(200_000, rng=1)
    c = o.collision_probability
    se = math.sqrt(c * (1 - c) / a.size)
    for u, v in [(0, 1), (3, 999), (500, 501)]:
        rate = np.mean(o.hash_values(a, b, u) == o.hash_values(a, b, v))
        assert abs(rate - c) < 5 * se, (u, v, rate)
        # each bucket is hit with probability about 1/g
        freq = np.bincount(o.hash_values(a, b, u), minlength=o.g) / a.size
        assert np.all(np.abs(freq - 1 / o.g) < 5 * math.sqrt(0.25 / a.size))


def test_hash_values_match_the_definition():
    o = LocalHashing(1.0, 50, 7, prime=101)
    a, b, v = 17, 5, np.arange(50)
    assert np.array_equal(o.hash_values(a, b, v), ((a * v + b) % 101) * 7 // 101)
    assert o.hash_values(np.array([[3], [4]]), 2, np.arange(3)).shape == (2, 3)


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0, 5.0])
def test_olh_g_rules(eps):
    e = math.exp(eps)
    assert olh_g(eps) == int(round(e)) + 1 == OLH(eps, 10).g
    assert olh_g(eps, "floor") == math.floor(e) + 1 and olh_g(eps, "ceil") == math.ceil(e) + 1
    assert olh_g(eps, "best") in (math.floor(e) + 1, math.ceil(e) + 1)
    assert OLH(eps, 10, rule="ceil").g == math.ceil(e) + 1 and OLH(eps, 10, g=9).g == 9
    assert (olh_g(1.0), olh_g(3.0), olh_g(5.0)) == (4, 21, 149)  # g = round(e^ε) + 1


def test_olh_g_best_minimises_variance():
    for eps in (0.3, 1.0, 2.2, 4.0):
        best = olh_g(eps, "best")
        var = {g: OLH(eps, 10, g=g).variance(1000) for g in (olh_g(eps, "floor"), olh_g(eps, "ceil"))}
        assert var[best] == pytest.approx(min(var.values()), rel=1e-6)


@pytest.mark.parametrize("eps,g", [(0.5, 2), (1.0, 4), (3.0, 21)])
def test_p_and_exact_q(eps, g):
    o = LocalHashing(eps, 30, g)
    e = math.exp(eps)
    assert o.p == pytest.approx(e / (e + g - 1), rel=1e-12)
    assert o.q_hash == pytest.approx(1 / (e + g - 1), rel=1e-12)
    assert o.q == pytest.approx(o.q_hash + o.collision_probability * (o.p - o.q_hash), rel=1e-12)
    assert abs(o.q - 1 / g) < 1 / MERSENNE31
    # with a small prime the family is far from ideal and q moves away from 1/g
    small = LocalHashing(eps, 5, 4, prime=11)
    assert small.collision_probability == pytest.approx(20 / 110)  # sizes 3,3,3,2
    assert small.q == pytest.approx(1 / 4 + (20 / 110 - 1 / 4) * (small.p - small.q_hash), rel=1e-12)
    assert small.q < 1 / 4 - 0.005


def test_blh_and_olh_are_local_hashing():
    assert BLH(1.0, 10).g == 2 and isinstance(BLH(1.0, 10), LocalHashing)
    assert OLH(1.0, 10).g == 4 and OLH(1.0, 10).name == "OLH"
    assert not OLH(1.0, 10).has_count_sampler
    with pytest.raises(ValueError, match="no exact count-level sampler"):
        OLH(1.0, 10).simulate_counts(np.array([5, 5] + [0] * 8))


# ------------------------------------------------------------------ channel
@pytest.mark.parametrize(
    "eps,d,g,P", [(0.5, 3, 2, 7), (1.0, 5, 4, 7), (1.0, 7, 3, 11), (3.0, 4, 21, 5), (2.0, 11, 5, 11)]
)
def test_full_family_channel_audit_is_tight(eps, d, g, P):
    o = LocalHashing(eps, d, g)
    C = check_channel(o.channel(prime=P), atol=1e-12)
    assert C.shape == (d, (P - 1) * P * g)
    assert channel_epsilon(C) <= eps + 1e-9
    assert channel_epsilon(C) == pytest.approx(eps, abs=1e-9)
    assert np.allclose(LocalHashing(eps, d, g, prime=P).channel(), C, rtol=0, atol=0)


def test_channel_entry_and_hash_channel_agree_with_channel():
    o = LocalHashing(1.2, 6, 3, prime=7)
    C = o.channel()
    a, b, y = o.channel_outputs()
    assert np.allclose(o.channel_entry(4, (a, b, y)), C[4], rtol=1e-14, atol=0)
    for aa, bb in [(1, 0), (3, 5), (6, 6)]:
        cols = np.flatnonzero((a == aa) & (b == bb))
        hc = o.hash_channel(aa, bb)
        assert np.allclose(hc.sum(axis=1), 1.0)
        assert np.allclose(C[:, cols] * (6 * 7), hc, rtol=1e-13, atol=0)
        assert channel_epsilon(hc) == pytest.approx(1.2, abs=1e-9) or np.allclose(hc, hc[0])


def test_support_probabilities_from_the_channel():
    """Summing the exact channel over outputs that support v gives p (own value) and q (others)."""
    o = LocalHashing(0.9, 5, 3, prime=11)
    C = o.channel()
    a, b, y = o.channel_outputs()
    for v in range(5):
        supports_v = o.hash_values(a, b, v) == y
        mass = C[:, supports_v].sum(axis=1)
        assert mass[v] == pytest.approx(o.p, abs=1e-12)
        assert np.allclose(np.delete(mass, v), o.q, rtol=0, atol=1e-12)


def test_channel_refuses_the_default_prime():
    with pytest.raises(ValueError, match="pass a small prime"):
        OLH(1.0, 5).channel()


# ------------------------------------------------------------------ sampling and counting
def test_perturb_follows_channel_row():
    o = LocalHashing(1.0, 5, 3, prime=7)
    r = o.perturb(np.full(40_000, 2), rng=3)
    col = ((r.a - 1) * 7 + r.b) * 3 + r.y
    assert chi_square_agreement(col, o.channel()[2], kind="samples") > 1e-3


def test_support_counts_equal_brute_force_across_chunks():
    o = OLH(1.0, 40)
    gen = np.random.default_rng(4)
    x = gen.integers(0, 40, size=70_000)  # > one chunk of 65 536 users
    r = o.perturb(x, gen)
    brute = (o.hash_values(r.a[:, None], r.b[:, None], np.arange(40)[None, :]) == r.y[:, None]).sum(axis=0)
    assert np.array_equal(o.support_counts(r), brute)
    small = LocalHashing(1.0, 9, 5, prime=11)
    r = small.perturb(gen.integers(0, 9, size=500), gen)
    brute = (small.hash_values(r.a[:, None], r.b[:, None], np.arange(9)[None, :]) == r.y[:, None]).sum(axis=0)
    assert np.array_equal(small.support_counts(r), brute)


@pytest.mark.parametrize(
    "oracle",
    [
        OLH(1.0, 40),
        BLH(2.0, 33),
        LocalHashing(1.0, 9, 5, prime=11),
        LocalHashing(2.0, 30, 70_000),
        LocalHashing(3.0, 12, 2**31),
    ],
    ids=["OLH", "BLH", "LH-prime11", "LH-g-beyond-table", "LH-g-above-prime"],
)
def test_perturb_and_count_is_perturb_then_count(oracle):
    """The fused per-user path (what sample_support uses) gives the same counts for the same stream,
    across the 65 536-user chunk boundary, for bucket bounds from the table (g <= 2^16) and from division."""
    x = np.random.default_rng(5).integers(0, oracle.d, size=70_000)
    r = oracle.perturb(x, 21)
    brute = (oracle.hash_values(r.a[:, None], r.b[:, None], np.arange(oracle.d)[None, :]) == r.y[:, None]).sum(axis=0)
    assert np.array_equal(oracle.support_counts(r), brute)
    assert np.array_equal(oracle.perturb_and_count(x, 21), brute)
    counts = np.bincount(x, minlength=oracle.d)
    (pop,) = oracle.population(counts)
    assert np.array_equal(oracle.sample_support(counts, 8), oracle.support_counts(oracle.perturb(pop, 8)))


@pytest.mark.parametrize(
    "g,P",
    [
        (2, MERSENNE31),
        (4, MERSENNE31),
        (149, MERSENNE31),
        (5, 11),
        (65_536, MERSENNE31),
        (65_537, MERSENNE31),
        (2**31, MERSENNE31),
    ],
)
def test_bucket_bounds_are_ceil_y_p_over_g(g, P):
    """Table and per-user bounds agree with lo_y = ceil(yP/g), width = ceil((y+1)P/g) - ceil(yP/g), exactly."""
    o = LocalHashing(1.0, 5, g, prime=P)
    y = np.unique(np.r_[np.arange(min(g, 50)), g - 1 - np.arange(min(g, 50)), g // 2]).astype(np.int64)
    lo, width = o._bucket_bounds(y)
    exact_lo = [-((-int(v) * P) // g) for v in y]
    exact_hi = [-((-(int(v) + 1) * P) // g) for v in y]
    assert lo.dtype == width.dtype == np.uint32
    assert lo.tolist() == exact_lo and width.tolist() == [h - lo_ for h, lo_ in zip(exact_hi, exact_lo)]


@pytest.mark.parametrize(
    "oracle", [OLH(1.0, 8), BLH(2.0, 8), LocalHashing(1.0, 8, 4, prime=11)], ids=["OLH", "BLH", "LH-prime11"]
)
def test_estimator_unbiased_and_variance_matches_closed_form(oracle):
    counts = np.array([900, 500, 300, 200, 100, 0, 0, 0])
    x = np.repeat(np.arange(8), counts)
    f = counts / x.size
    gen = np.random.default_rng(11)
    reps = 1000
    est = np.stack([oracle.estimate(oracle.perturb(x, gen)) for _ in range(reps)])
    var = oracle.variance(x.size, f)
    z = (est.mean(axis=0) - f) / np.sqrt(var / reps)
    assert np.all(np.abs(z) < 5), z
    ratio = est.var(axis=0, ddof=1) / var
    assert np.all(np.abs(ratio - 1) < 5 * math.sqrt(2 / (reps - 1))), ratio


def test_ideal_q_would_be_biased_for_a_small_prime():
    """With prime 11 the textbook q = 1/g is visibly biased; the exact q is not (previous test)."""
    o = LocalHashing(1.0, 8, 4, prime=11)
    bias_ideal = (o.q - 1 / o.g) / (o.p - 1 / o.g)
    assert abs(bias_ideal) > 10 * math.sqrt(o.variance(2000) / 1000)


# ------------------------------------------------------------------ validation
@SETTINGS
@given(st.integers(max_value=1))
def test_bad_domain_and_g(bad):
    with pytest.raises(ValueError, match="d must be >= 2"):
        OLH(1.0, bad)
    with pytest.raises(ValueError, match="g must be >= 2"):
        LocalHashing(1.0, 5, bad)


@SETTINGS
@given(st.integers(min_value=2, max_value=10_000))
def test_prime_must_be_prime_and_cover_the_domain(P):
    is_prime = all(P % k for k in range(2, int(P**0.5) + 1))
    if not is_prime:
        with pytest.raises(ValueError, match="prime must be a prime number"):
            LocalHashing(1.0, 2, 2, prime=P)
    elif P < 50:
        with pytest.raises(ValueError, match="prime must be >= d = 50"):
            LocalHashing(1.0, 50, 2, prime=P)
    else:
        assert LocalHashing(1.0, 50, 2, prime=P).prime == P


def test_bad_inputs_and_reports():
    o = OLH(1.0, 5)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        o.perturb(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=int))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(LHReports(np.array([], int), np.array([], int), np.array([], int)))
    ok = o.perturb(np.array([0, 1, 2]), rng=0)
    with pytest.raises(ValueError, match=r"reports.a contains 0"):
        o.support_counts(LHReports(np.array([0, 1, 1]), ok.b, ok.y))
    with pytest.raises(ValueError, match=r"reports.y contains 4"):
        o.support_counts(LHReports(ok.a, ok.b, np.array([0, 1, 4])))
    with pytest.raises(ValueError, match="equal lengths"):
        o.support_counts(LHReports(ok.a, ok.b, ok.y[:2]))
    with pytest.raises(TypeError, match="reports.b must be an integer array"):
        o.support_counts(LHReports(ok.a, ok.b.astype(float), ok.y))
    with pytest.raises(TypeError, match="LHReports"):
        o.support_counts(ok.y)
    with pytest.raises(ValueError, match="epsilon=40.0 is too large"):
        LocalHashing(40.0, 5, 4)
    with pytest.raises(ValueError, match="rule must be one of"):
        olh_g(1.0, "nearest")
