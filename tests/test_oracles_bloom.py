"""Tests for Bloom-filter RAPPOR with permanent randomized response (LoPub's encoding).

Tolerances: 5 standard errors for means; 5 * sqrt(2/(R-1)) for the ratio of sample
to closed-form variance (normal approximation to the law of a sample variance).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import bitwise_channel_epsilon, channel_epsilon, check_channel, chi_square_agreement
from ldp.oracles import BloomRAPPOR
from ldp.oracles.bloom import (
    bloom_log_likelihood,
    bloom_matrix,
    bloom_positions,
    debias_bit_counts,
    epsilon_from_f,
    f_from_epsilon,
    full_rank_seed,
    permanent_rr,
)

SETTINGS = settings(max_examples=25, deadline=None)


# ------------------------------------------------------------------ encoding pieces
def test_hash_positions_are_stable_and_documented():
    """Regression values: the family must never change silently (reports would stop decoding)."""
    assert bloom_positions(3, 16, 4, 0).tolist() == [[0, 5, 8, 7], [3, 11, 2, 12], [2, 5, 12, 9]]
    assert np.array_equal(bloom_positions(50, 128, 4, 7), bloom_positions(50, 128, 4, 7))
    assert not np.array_equal(bloom_positions(50, 128, 4, 7), bloom_positions(50, 128, 4, 8))
    # the first rows do not depend on d
    assert np.array_equal(bloom_positions(10, 64, 3, 1), bloom_positions(200, 64, 3, 1)[:10])


def test_positions_look_uniform():
    pos = bloom_positions(20_000, 32, 2, 3).ravel()
    counts = np.bincount(pos, minlength=32)
    assert chi_square_agreement(counts, np.full(32, 1 / 32)) > 1e-3


def test_bloom_matrix_rows_have_at_most_h_ones():
    B = bloom_matrix(200, 16, 4, 0)
    ones = B.sum(axis=1)
    assert B.dtype == np.uint8 and set(np.unique(B)) <= {0, 1}
    assert ones.min() >= 1 and ones.max() == 4 and ones.min() < 4  # collisions keep set semantics


@pytest.mark.parametrize("h", [1, 2, 4])
@pytest.mark.parametrize("f", [0.1, 0.5, 0.9])
def test_f_epsilon_round_trip(f, h):
    eps = epsilon_from_f(f, h)
    assert eps == pytest.approx(2 * h * math.log((2 - f) / f))
    assert f_from_epsilon(eps, h) == pytest.approx(f, rel=1e-12)
    o = BloomRAPPOR(eps, d=4, m=8, h=h)
    assert o.f == pytest.approx(f, rel=1e-12) and BloomRAPPOR(d=4, m=8, h=h, f=f).epsilon == pytest.approx(eps)


def test_lopub_parameters():
    """LoPub's f = 0.5, h = 4 gives the quoted per-attribute eps = 8 ln 3 = 8.79."""
    o = BloomRAPPOR(d=10, m=128, h=4, f=0.5)
    assert o.epsilon == pytest.approx(8 * math.log(3)) and round(o.epsilon, 2) == 8.79


@pytest.mark.parametrize("sampler", ["uniform", "xor"])
def test_permanent_rr_bit_probabilities(sampler):
    f = 0.4
    n = 200_000
    ones = permanent_rr(np.ones(n, dtype=bool), f, rng=1, sampler=sampler).mean()
    zeros = permanent_rr(np.zeros(n, dtype=np.uint8), f, rng=2, sampler=sampler).mean()
    for rate, target in ((ones, 1 - f / 2), (zeros, f / 2)):
        assert abs(rate - target) < 5 * math.sqrt(target * (1 - target) / n)


# the two samplers of permanent_rr draw one law: every bit wrong w.p. f/2, independently.  Each chi-square test runs
# at level PRR_ALPHA on 100,000 rows of 16 bits.  Power (noncentral chi-square): a flip probability off by 0.005 in
# every column gives the column test a noncentrality of at least 161 (f/2 = 0.45; 16 df), power > 0.9999; a
# correlation of 0.02 between the two bits of the pair test gives a noncentrality of rows x 0.02^2 = 40 (3 df),
# power 0.994.
PRR_ALPHA = 1e-3
PRR_ROWS = 100_000


@pytest.mark.parametrize("f", [0.4, 0.9])
def test_permanent_rr_samplers_draw_one_law(f):
    from scipy import stats

    truth = np.random.default_rng(0).random((PRR_ROWS, 16)) < 0.3  # any fixed true bits, ones and zeros mixed
    draws = {s: permanent_rr(truth, f, rng=7, sampler=s) for s in ("uniform", "xor")}
    for s, rep in draws.items():
        wrong = rep ^ truth
        # every column's count of wrong bits is Binomial(rows, f/2): the sum of squared z-scores is chi-square(16)
        z = (wrong.sum(axis=0) - PRR_ROWS * f / 2) / math.sqrt(PRR_ROWS * f / 2 * (1 - f / 2))
        assert stats.chi2.sf(float(z @ z), df=z.size) > PRR_ALPHA, s
        # wrong bits are independent within a row: their number per row is Binomial(16, f/2)
        per_row = np.bincount(wrong.sum(axis=1), minlength=17)
        expected = PRR_ROWS * stats.binom.pmf(np.arange(17), 16, f / 2)
        keep = expected >= 5  # pool the tails so that every cell's expected count is at least 5
        obs = np.append(per_row[keep], per_row[~keep].sum())
        exp = np.append(expected[keep], expected[~keep].sum())
        assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > PRR_ALPHA, s
        # neighbouring bits (0, 1), wrong or not, are independent: 2 x 2 table against the product law
        pair = np.bincount(2 * wrong[:, 0] + wrong[:, 1], minlength=4)
        p = np.array([1 - f / 2, f / 2])
        assert stats.chisquare(pair, PRR_ROWS * np.outer(p, p).ravel()).pvalue > PRR_ALPHA, s
    # and the two samplers against each other: the law of the first three reported bits, two-sample chi-square
    patterns = [np.bincount(rep[:, 0] * 4 + rep[:, 1] * 2 + rep[:, 2], minlength=8) for rep in draws.values()]
    assert stats.chi2_contingency(np.vstack(patterns))[1] > PRR_ALPHA
    assert not np.array_equal(draws["uniform"], draws["xor"])  # two streams, not one


def test_permanent_rr_refuses_an_unknown_sampler():
    with pytest.raises(ValueError, match="sampler"):
        permanent_rr(np.ones(3, dtype=bool), 0.5, rng=0, sampler="fast")


# ------------------------------------------------------------------ privacy
@pytest.mark.parametrize("d,m,h,f", [(4, 6, 1, 0.5), (5, 8, 2, 0.3), (6, 10, 3, 0.7), (3, 12, 2, 0.5)])
def test_channel_audit_equals_exact_epsilon(d, m, h, f):
    o = BloomRAPPOR(d=d, m=m, h=h, f=f)
    P = check_channel(o.channel(), atol=1e-12)
    assert P.shape == (d, 2**m)
    eps = channel_epsilon(P)
    assert eps == pytest.approx(o.exact_epsilon, abs=1e-9)
    assert eps <= o.epsilon + 1e-9
    bit_probs = np.where(o.bloom_matrix() == 1, o.p, o.q)
    assert bitwise_channel_epsilon(bit_probs) == pytest.approx(o.exact_epsilon, abs=1e-9)


def test_exact_epsilon_is_nominal_when_two_filters_are_disjoint():
    o = BloomRAPPOR(d=30, m=64, h=2, f=0.5)
    B = o.bloom_matrix().astype(int)
    full = B.sum(axis=1) == 2
    disjoint = (B @ B.T == 0) & full[:, None] & full[None, :]
    assert disjoint.any()
    assert o.exact_epsilon == pytest.approx(o.epsilon, abs=1e-12)
    small = BloomRAPPOR(d=3, m=2, h=2, f=0.5)  # two bits: no two filters can differ in 4 bits
    assert small.exact_epsilon <= small.epsilon / 2 + 1e-12


def test_channel_entry_and_log_likelihood_match_channel():
    o = BloomRAPPOR(d=5, m=6, h=2, f=0.4)
    P = o.channel()
    bits = (np.arange(64)[:, None] >> np.arange(6)[None, :]) & 1
    for x in range(5):
        assert np.allclose(o.channel_entry(x, bits), P[x], rtol=1e-12, atol=0)
    assert np.allclose(np.exp(o.log_likelihood(bits)), P.T, rtol=1e-12, atol=0)


def test_channel_refuses_large_m():
    with pytest.raises(ValueError, match="m <= 12"):
        BloomRAPPOR(d=4, m=13, h=2, f=0.5).channel()


# ------------------------------------------------------------------ sampling and estimation
def test_perturb_follows_channel_row():
    o = BloomRAPPOR(d=4, m=5, h=2, f=0.5)
    r = o.perturb(np.full(30_000, 3), rng=4)
    assert r.dtype == bool and r.shape == (30_000, 5)
    codes = r.astype(np.int64) @ (1 << np.arange(5))
    assert chi_square_agreement(codes, o.channel()[3], kind="samples") > 1e-3


def test_encode_is_the_bloom_matrix():
    o = BloomRAPPOR(d=7, m=16, h=3, f=0.5)
    assert np.array_equal(o.encode(np.array([6, 0])), o.bloom_matrix()[[6, 0]].astype(bool))


def test_rank_deficient_filters_refuse_to_estimate():
    o = BloomRAPPOR(d=10, m=6, h=2, f=0.5)
    assert o.rank < 10
    with pytest.raises(ValueError, match="Increase m"):
        o.estimate(o.perturb(np.arange(10), rng=0))
    with pytest.raises(ValueError, match="cannot have rank"):
        full_rank_seed(10, 6, 2)
    seed = full_rank_seed(8, 8, 2)
    assert BloomRAPPOR(d=8, m=8, h=2, f=0.5, hash_seed=seed).rank == 8


# ------------------------------------------------------------------ validation
@SETTINGS
@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(math.nan)))
def test_bad_f(f):
    with pytest.raises(ValueError, match="f must lie in"):
        BloomRAPPOR(d=4, m=8, h=2, f=f)


@SETTINGS
@given(st.integers(max_value=1))
def test_bad_sizes(bad):
    with pytest.raises(ValueError, match="d must be >= 2"):
        BloomRAPPOR(1.0, d=bad, m=8, h=2)
    if bad < 1:
        with pytest.raises(ValueError, match="m must be >= 1"):
            BloomRAPPOR(1.0, d=4, m=bad, h=2)
        with pytest.raises(ValueError, match="h must be >= 1"):
            BloomRAPPOR(1.0, d=4, m=8, h=bad)


def test_parameter_combinations():
    with pytest.raises(ValueError, match="exactly one of epsilon and f"):
        BloomRAPPOR(1.0, d=4, m=8, h=2, f=0.5)
    with pytest.raises(ValueError, match="exactly one of epsilon and f"):
        BloomRAPPOR(d=4, m=8, h=2)
    with pytest.raises(TypeError, match="needs m"):
        BloomRAPPOR(1.0, d=4, h=2)
    with pytest.raises(ValueError, match="too large"):
        BloomRAPPOR(5000.0, d=4, m=8, h=1)


def test_bad_reports():
    o = BloomRAPPOR(1.0, d=4, m=8, h=2)
    with pytest.raises(ValueError, match=r"shape \(n, 8\)"):
        o.support_counts(np.zeros((3, 7), dtype=bool))
    with pytest.raises(TypeError, match="boolean"):
        o.support_counts(np.zeros((3, 8)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        o.support_counts(np.full((3, 8), 2))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(np.zeros((0, 8), dtype=bool))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match=r"counts must have shape \(8,\)"):
        o.estimate_counts(np.zeros(4), 10)


# ------------------------------------------------------------------ explicit filters
def test_explicit_filters_replace_the_hashed_ones():
    B = np.array([[0, 1, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])
    o = BloomRAPPOR(d=3, m=4, h=2, f=0.5, filters=B)
    np.testing.assert_array_equal(o.bloom_matrix(), B)
    np.testing.assert_array_equal(o.encode(np.array([2, 0])), B[[2, 0]].astype(bool))
    assert "filters=explicit" in repr(o)
    # Example 3 of LoPub: report 0111 against filter 0101 at f = 1/2 has probability 27/256
    assert math.exp(o.log_likelihood(np.array([[0, 1, 1, 1]]))[0, 0]) == pytest.approx(27 / 256, rel=1e-14)
    P = o.channel()
    assert np.allclose(np.exp(o.log_likelihood((np.arange(16)[:, None] >> np.arange(4)) & 1)), P.T, rtol=1e-12)


@pytest.mark.parametrize(
    "bad, exc, match",
    [
        (np.ones((3, 5), dtype=int), ValueError, r"shape \(d, m\) = \(3, 4\)"),
        (np.full((3, 4), 2), ValueError, "only 0 and 1"),
        (np.ones((3, 4)), TypeError, "boolean or 0/1 integer"),
        (np.array([[0, 0, 0, 0], [0, 1, 1, 0], [1, 1, 0, 0]]), ValueError, "between 1 and h = 2 ones"),
        (np.array([[1, 1, 1, 0], [0, 1, 1, 0], [1, 1, 0, 0]]), ValueError, "between 1 and h = 2 ones"),
    ],
)
def test_bad_explicit_filters(bad, exc, match):
    with pytest.raises(exc, match=match):
        BloomRAPPOR(d=3, m=4, h=2, f=0.5, filters=bad)


def test_debias_and_log_likelihood_functions():
    # Example 8 of LoPub: counts over 4 reports at f = 1/2
    np.testing.assert_allclose(debias_bit_counts([2, 0, 1, 4, 3, 1], 4, 0.5), [2, -2, 0, 6, 4, 0])
    with pytest.raises(ValueError, match="n must be >= 1"):
        debias_bit_counts([1], 0, 0.5)
    o = BloomRAPPOR(d=6, m=16, h=3, f=0.3, hash_seed=4)
    r = o.perturb(np.arange(6).repeat(4), rng=2)
    np.testing.assert_array_equal(bloom_log_likelihood(r, o.bloom_matrix(), 0.3), o.log_likelihood(r))
    with pytest.raises(ValueError, match=r"shape \(n, 16\)"):
        bloom_log_likelihood(r[:, :5], o.bloom_matrix(), 0.3)
