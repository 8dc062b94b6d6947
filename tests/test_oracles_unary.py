"""Tests for unary encoding: ``UnaryEncoding``, ``SUE`` (basic RAPPOR) and ``OUE``.

Tolerances as in ``test_oracles_grr.py``: 5 standard errors for means.  Unbiasedness, the variance
formula, the count-level sampler and bad budgets/domains/codes are checked for every oracle by
``test_contract.py``; this file keeps what is specific to unary encoding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.audit import bitwise_channel_epsilon, channel_epsilon, check_channel, chi_square_agreement
from ldp.oracles import OUE, SUE, UnaryEncoding
from ldp.oracles.unary import unary_epsilon


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 8.0])
def test_p_q_and_closed_form_variances(eps):
    s, o = SUE(eps, 10), OUE(eps, 10)
    h = math.exp(eps / 2)
    assert s.p == pytest.approx(h / (1 + h), rel=1e-12) and s.q == pytest.approx(1 / (1 + h), rel=1e-12)
    assert o.p == 0.5 and o.q == pytest.approx(1 / (math.exp(eps) + 1), rel=1e-12)
    n = 1000
    # Wang et al. 2017, Eqs. (8) and (12): variance of a frequency-0 value
    assert s.variance(n) == pytest.approx(h / (h - 1) ** 2 / n, rel=1e-9)
    assert o.variance(n) == pytest.approx(4 * math.exp(eps) / (math.exp(eps) - 1) ** 2 / n, rel=1e-9)
    assert s.exact_epsilon == pytest.approx(eps, abs=1e-9)
    assert o.exact_epsilon == pytest.approx(eps, abs=1e-9)


def test_general_unary_encoding_checks_its_claimed_epsilon():
    exact = unary_epsilon(0.6875, 0.5625)  # RAPPOR's fixed f=1/2, p=1/2, q=3/4 per-bit probabilities
    ue = UnaryEncoding(None, 4, 0.6875, 0.5625)
    assert ue.epsilon == pytest.approx(exact) and ue.exact_epsilon == pytest.approx(exact)
    assert UnaryEncoding(1.0, 4, 0.6875, 0.5625).epsilon == 1.0
    with pytest.raises(ValueError, match="epsilon=0.5 is below the exact privacy level"):
        UnaryEncoding(0.5, 4, 0.6875, 0.5625)
    with pytest.raises(ValueError, match="q must be < p"):
        UnaryEncoding(None, 4, 0.3, 0.4)
    with pytest.raises(ValueError, match="p must lie in"):
        UnaryEncoding(None, 4, 1.0, 0.4)


# ------------------------------------------------------------------ channel
@pytest.mark.parametrize("cls", [SUE, OUE])
@pytest.mark.parametrize("eps,d", [(0.5, 2), (1.0, 4), (3.0, 7)])
def test_channel_rows_sum_to_one_and_audit_is_tight(cls, eps, d):
    o = cls(eps, d)
    P = check_channel(o.channel(), atol=1e-12)
    assert P.shape == (d, 2**d)
    eps_hat = channel_epsilon(P)
    assert eps_hat <= eps + 1e-9
    assert eps_hat == pytest.approx(eps, abs=1e-9)


@pytest.mark.parametrize("cls", [SUE, OUE])
def test_product_channel_audit_at_large_d(cls):
    o = cls(2.0, 60)
    bit_probs = np.where(np.eye(60, dtype=bool), o.p, o.q)
    assert bitwise_channel_epsilon(bit_probs) == pytest.approx(2.0, abs=1e-9)


def test_channel_entry_matches_channel_and_log_form():
    o = OUE(1.3, 5)
    P, bits = o.channel(), o.output_bits()
    for x in range(5):
        assert np.allclose(o.channel_entry(x, bits), P[x], rtol=1e-12, atol=0)
    j = 13
    assert o.channel_entry(2, bits[j]) == pytest.approx(P[2, j], rel=1e-12)
    big = OUE(1.0, 3000)
    y = np.zeros(3000, dtype=bool)
    y[7] = True
    expected = math.log(0.5) + 2999 * math.log1p(-big.q)
    assert big.channel_entry(7, y, log=True) == pytest.approx(expected, rel=1e-12)


def test_channel_refuses_large_domains():
    with pytest.raises(ValueError, match="too large to enumerate"):
        OUE(1.0, 13).channel()


# ------------------------------------------------------------------ sampling
@pytest.mark.parametrize("cls", [SUE, OUE])
def test_perturb_follows_channel_row(cls):
    o = cls(1.0, 3)
    reports = o.perturb(np.full(20_000, 1), rng=5)
    assert reports.dtype == bool and reports.shape == (20_000, 3)
    codes = reports.astype(np.int64) @ (1 << np.arange(3))  # column index used by channel()
    assert chi_square_agreement(codes, o.channel()[1], kind="samples") > 1e-3


def test_per_user_estimate_within_five_standard_errors_across_chunks():
    o = OUE(1.0, 3000)  # chunks of 1398 users: the population spans several chunks
    gen = np.random.default_rng(7)
    x = gen.integers(0, 5, size=6000)
    f = np.bincount(x, minlength=3000) / x.size
    reports = o.perturb(x, gen)
    est = o.estimate(reports)
    assert np.all(np.abs(est - f) < 5 * np.sqrt(o.variance(x.size, f)))


def test_perturb_and_count_equals_perturb_then_count():
    o = SUE(0.8, 4000)
    x = np.random.default_rng(8).integers(0, 4000, size=3000)
    assert np.array_equal(o.perturb_and_count(x, 9), o.support_counts(o.perturb(x, 9)))


def test_support_counts_accepts_01_integers():
    o = OUE(1.0, 3)
    assert o.support_counts(np.array([[1, 0, 1], [0, 0, 1]])).tolist() == [1, 0, 2]


# ------------------------------------------------------------------ validation
def test_epsilon_too_large_for_double_precision():
    with pytest.raises(ValueError, match="epsilon=800.0 is too large"):
        OUE(800.0, 4)


def test_bad_reports_and_inputs():
    o = SUE(1.0, 4)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        o.perturb(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=int))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(np.zeros((0, 4), dtype=bool))
    with pytest.raises(ValueError, match="reports must be an n x d"):
        o.support_counts(np.zeros((3, 5), dtype=bool))
    with pytest.raises(TypeError, match="reports must be a boolean"):
        o.support_counts(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        o.support_counts(np.full((3, 4), 2))
    with pytest.raises(ValueError, match="x must be <= 3"):
        o.channel_entry(4, np.zeros(4, dtype=bool))
    with pytest.raises(ValueError, match="true_counts must have length 4"):
        o.simulate_counts([1, 2, 3])


# ------------------------------------------------------------------ the fast exact Bernoulli sampler
def test_bernoulli_bits_edges_are_exact():
    from ldp.oracles.unary import bernoulli_bits

    gen = np.random.default_rng(11)
    assert not bernoulli_bits((1000,), 0.0, gen).any()
    assert bernoulli_bits((1000,), 1.0, gen).all()


@pytest.mark.parametrize("prob", [0.5 / 65536, 1 / (np.e + 1), 0.123456789, 1 - 3.3 / 65536])
def test_bernoulli_bits_mean_is_prob_including_the_extra_marks(prob):
    """The extra marks carry all the mass below 2**-16 (first case): the mean must still be prob within 5 s.e."""
    from ldp.oracles.unary import bernoulli_bits

    gen = np.random.default_rng(12)
    n = 20_000_000
    ones = int(bernoulli_bits((n,), prob, gen).sum())
    se = np.sqrt(n * prob * (1 - prob))
    assert abs(ones - n * prob) <= 5 * se


def test_bernoulli_bits_counts_per_block_are_binomial_including_the_extra_marks():
    """Ones per block of 4,096 bits follow Bin(4096, prob), as independent Bernoulli bits must.

    At prob = 2.5 / 2**16 a fifth of the ones come from the extra marks, so marks that were not independent
    Bernoulli(s) per position (clumped, spread out, or dependent on the thresholded words) would change the
    law of the block counts.  Chi-square over the counts 0, 1, 2 and >= 3, at 1e-4.
    """
    from scipy import stats

    from ldp.oracles.unary import bernoulli_bits

    prob, block = 2.5 / 65536, 4096
    bits = bernoulli_bits((40_000_000 // block, block), prob, np.random.default_rng(21))
    per_block = np.minimum(bits.sum(axis=1), 3)
    observed = np.bincount(per_block, minlength=4)
    law = stats.binom(block, prob)
    expected = per_block.size * np.array([law.pmf(0), law.pmf(1), law.pmf(2), law.sf(2)])
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def _reference_bernoulli_bits(shape, prob, gen):
    """The sampler written with numpy's plain 16-bit primitive: the reference for the raw-word path's stream."""
    from ldp.oracles.unary import bernoulli_marks

    scaled = prob * 65536.0
    t = int(np.floor(scaled))
    out = gen.integers(0, 65536, size=shape, dtype=np.uint16) < t
    flat = out.reshape(-1)
    if scaled > t and flat.size:
        flat[bernoulli_marks(flat.size, (scaled - t) / (65536 - t), gen)] = True
    return out


@pytest.mark.parametrize("d", [2, 3, 1000, 5003])
def test_perturb_and_count_same_counts_as_the_plain_int64_path(d):
    """Narrow per-chunk accumulators and the raw-word sampler change no count: the same seed gives exactly
    the counts of the plain path (numpy's own 16-bit sampler, int64 column sums)."""
    o = OUE(1.0, d)
    x = np.random.default_rng(14).integers(0, d, size=30_000)
    gen = np.random.default_rng(15)
    rows = max(1, (1 << 22) // d)
    old = np.zeros(d, dtype=np.int64)
    for start in range(0, x.size, rows):
        m = min(rows, x.size - start)
        block = _reference_bernoulli_bits((m, d), o.q, gen)
        block[np.arange(m), x[start : start + m]] = gen.random(m) < o.p
        old += np.add.reduce(block.view(np.uint8), axis=0, dtype=np.int64)
    np.testing.assert_array_equal(o.perturb_and_count(x, np.random.default_rng(15)), old)


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 65_536 * 2 + 7, 4_194_000])
@pytest.mark.parametrize("half_word_left", [False, True])
def test_bernoulli_bits_reads_raw_words_with_the_same_bits_as_integers(size, half_word_left):
    """The raw-word path (PCG64, in cache-sized pieces, tail of size % 4) gives the very bits of the plain
    path for the same seed, leaves the generator in the same state, and falls back when a 32-bit half
    is left over; the extra marks (about size / 2**16 of them) are drawn the same way."""
    from ldp.oracles.unary import _raw_uint16_path, bernoulli_bits

    for prob in (1 / (np.e + 1), 777.5 / 65536):
        g_old, g_new = np.random.default_rng(16), np.random.default_rng(16)
        if half_word_left:
            g_old.integers(0, 2**32, size=1, dtype=np.uint32)
            g_new.integers(0, 2**32, size=1, dtype=np.uint32)
        assert _raw_uint16_path(g_new) is not half_word_left
        expected = _reference_bernoulli_bits((size,), prob, g_old)
        np.testing.assert_array_equal(bernoulli_bits((size,), prob, g_new), expected)
        s_old, s_new = g_old.bit_generator.state, g_new.bit_generator.state
        assert s_old["state"] == s_new["state"] and s_old["has_uint32"] == s_new["has_uint32"]
        if s_old["has_uint32"]:  # a stale buffered half is never read when has_uint32 is 0
            assert s_old["uinteger"] == s_new["uinteger"]
        assert (
            g_old.integers(0, 2**32, size=3, dtype=np.uint32).tolist()
            == g_new.integers(0, 2**32, size=3, dtype=np.uint32).tolist()
        )


def test_bernoulli_bits_other_bit_generators_and_out():
    from ldp.oracles.unary import bernoulli_bits

    for bg in (np.random.MT19937, np.random.Philox, np.random.SFC64):
        expected = _reference_bernoulli_bits((300, 7), 0.3, np.random.Generator(bg(17)))
        np.testing.assert_array_equal(bernoulli_bits((300, 7), 0.3, np.random.Generator(bg(17))), expected)
    out = np.empty((300, 7), dtype=bool)
    assert bernoulli_bits((300, 7), 0.3, np.random.default_rng(18), out=out) is out
    np.testing.assert_array_equal(out, _reference_bernoulli_bits((300, 7), 0.3, np.random.default_rng(18)))
    with pytest.raises(ValueError, match="C-contiguous boolean array of shape"):
        bernoulli_bits((300, 7), 0.3, np.random.default_rng(18), out=np.empty((7, 300), dtype=bool))


def test_perturb_writes_the_same_reports_as_the_chunk_buffer_path():
    """perturb writes the blocks straight into its result; perturb_and_count reuses one buffer: same bits."""
    o = OUE(1.0, 1000)
    x = np.random.default_rng(19).integers(0, 1000, size=9_000)  # three chunks of 4,194 rows, the last partial
    gen = np.random.default_rng(20)
    rows = (1 << 22) // 1000
    blocks = []
    for start in range(0, x.size, rows):
        m = min(rows, x.size - start)
        block = _reference_bernoulli_bits((m, 1000), o.q, gen)
        block[np.arange(m), x[start : start + m]] = gen.random(m) < o.p
        blocks.append(block)
    reports = o.perturb(x, np.random.default_rng(20))
    np.testing.assert_array_equal(reports, np.concatenate(blocks))
    np.testing.assert_array_equal(o.support_counts(reports), np.concatenate(blocks).sum(axis=0))
    np.testing.assert_array_equal(o.perturb_and_count(x, np.random.default_rng(20)), o.support_counts(reports))


def test_support_counts_narrow_accumulator_over_many_rows():
    """More than 65,535 rows: the uint16 partial sums are flushed before they could wrap."""
    o = OUE(1.0, 3)
    reports = np.ones((140_000, 3), dtype=bool)
    reports[::7, 1] = False
    np.testing.assert_array_equal(o.support_counts(reports), reports.sum(axis=0))


@pytest.mark.parametrize(
    "size, prob, batch",
    [(1, 0.5, None), (10, 1.0, None), (10, 1.0, 3), (50_000, 1e-3, None), (3_000, 0.02, None), (3_000, 0.02, 7)],
)
def test_bernoulli_marks_are_a_bernoulli_process(size, prob, batch):
    """Every position is marked with probability prob (5 s.e. over many runs), positions ascending and distinct;
    prob = 1 marks everything; several batches are needed when a run holds more marks than the first batch."""
    from ldp.oracles.unary import bernoulli_marks

    gen = np.random.default_rng(22)
    runs = 400
    hits = np.zeros(size, dtype=np.int64)
    for _ in range(runs):
        pos = bernoulli_marks(size, prob, gen, batch)
        assert np.all(np.diff(pos) > 0) and (pos.size == 0 or (pos[0] >= 0 and pos[-1] < size))
        hits[pos] += 1
    if prob == 1.0:
        assert hits.tolist() == [runs] * size
    total, expected = hits.sum(), runs * size * prob
    assert abs(total - expected) <= 5 * np.sqrt(expected * (1 - prob)) + 1e-9


def test_bernoulli_bits_leave_no_half_word_so_the_next_call_reads_raw_words():
    """The marks are drawn from 64-bit words: after a call with marks, the fast raw path is still open."""
    from ldp.oracles.unary import _raw_uint16_path, bernoulli_bits

    gen = np.random.default_rng(23)
    for _ in range(5):
        bits = bernoulli_bits((1_000_003,), 1 / (np.e + 1), gen)
        assert bits.any() and _raw_uint16_path(gen)
