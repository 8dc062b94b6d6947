"""Tests for Hadamard response and the fast Walsh--Hadamard transform.

Tolerances: 5 standard errors for means; 5 * sqrt(2/(R-1)) for the ratio of sample
to closed-form variance (normal approximation to the law of a sample variance).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.audit import channel_epsilon, check_channel, chi_square_agreement, two_sample_agreement
from ldp.oracles import HadamardResponse, fwht
from ldp.oracles.hadamard import hadamard_matrix


# ------------------------------------------------------------------ FWHT
@pytest.mark.parametrize("K", [1, 2, 4, 8, 64, 256])
def test_fwht_equals_explicit_matrix_product(K):
    gen = np.random.default_rng(K)
    H = hadamard_matrix(K).astype(np.int64)
    ints = gen.integers(-50, 50, size=(3, K))
    assert np.array_equal(fwht(ints), ints @ H)
    floats = gen.normal(size=(2, 2, K))
    assert np.allclose(fwht(floats), floats @ H, rtol=1e-12, atol=1e-12)
    assert np.array_equal(fwht(fwht(ints)), K * ints)  # H H = K I
    assert np.array_equal(H @ H.T, K * np.eye(K, dtype=np.int64))


def test_hadamard_matrix_is_sylvester():
    H4 = hadamard_matrix(4)
    H2 = hadamard_matrix(2)
    assert np.array_equal(hadamard_matrix(8), np.block([[H4, H4], [H4, -H4]]))
    assert np.array_equal(H2, [[1, 1], [1, -1]])


def test_fwht_rejects_bad_lengths():
    with pytest.raises(ValueError, match="power of two, got 6"):
        fwht(np.ones(6))
    with pytest.raises(ValueError, match="scalar"):
        fwht(3.0)


# ------------------------------------------------------------------ parameters and channel
@pytest.mark.parametrize("d,K", [(2, 4), (3, 4), (4, 8), (7, 8), (8, 16), (1000, 1024), (1024, 2048)])
def test_output_size_is_smallest_power_of_two_above_d(d, K):
    assert HadamardResponse(1.0, d).K == K


@pytest.mark.parametrize("eps,d", [(0.1, 2), (1.0, 5), (3.0, 7), (6.0, 16)])
def test_channel_audit_is_tight(eps, d):
    o = HadamardResponse(eps, d)
    P = check_channel(o.channel(), atol=1e-12)
    assert P.shape == (d, o.K)
    assert channel_epsilon(P) <= eps + 1e-9
    assert channel_epsilon(P) == pytest.approx(eps, abs=1e-9)
    assert o.p == pytest.approx(math.exp(eps) / (math.exp(eps) + 1), rel=1e-12)


@pytest.mark.parametrize("d", [3, 6, 13])
def test_support_probabilities_p_and_one_half(d):
    """The mass the channel row of x puts on C_v is p for v = x and exactly 1/2 otherwise."""
    o = HadamardResponse(1.5, d)
    P = o.channel()
    in_set = hadamard_matrix(o.K)[1 : d + 1] == 1  # row v: the set C_v
    mass = P @ in_set.T.astype(float)  # mass[x, v] = P(y in C_v | x)
    assert np.allclose(np.diag(mass), o.p, atol=1e-12)
    assert np.allclose(mass[~np.eye(d, dtype=bool)], 0.5, atol=1e-12) and o.q == 0.5


def test_channel_entry_matches_explicit_formula():
    o = HadamardResponse(0.7, 6)
    H = hadamard_matrix(o.K)
    lam = (math.exp(0.7) - 1) / (math.exp(0.7) + 1)
    assert np.allclose(o.channel(), (1 + lam * H[1:7]) / o.K, rtol=1e-14, atol=0)
    assert o.channel_entry(2, 5) == pytest.approx((1 + lam * H[3, 5]) / o.K)


# ------------------------------------------------------------------ sampling and counting
@pytest.mark.parametrize("x", [0, 3, 4])
def test_perturb_follows_channel_row(x):
    o = HadamardResponse(1.0, 5)
    y = o.perturb(np.full(40_000, x), rng=x)
    assert chi_square_agreement(y, o.channel()[x], kind="samples") > 1e-3


def test_support_counts_equal_brute_force():
    o = HadamardResponse(1.0, 100)
    gen = np.random.default_rng(2)
    y = o.perturb(gen.integers(0, 100, size=5000), gen)
    in_set = hadamard_matrix(o.K)[1:101] == 1
    assert np.array_equal(o.support_counts(y), in_set[:, y].sum(axis=1))


def test_simulate_output_counts_agrees_with_perturb():
    o = HadamardResponse(0.8, 6)
    counts = np.array([50, 30, 15, 5, 0, 0])
    x = np.repeat(np.arange(6), counts)
    gen = np.random.default_rng(3)
    reps = 600
    fast = np.stack([o.simulate_output_counts(counts, gen) for _ in range(reps)])
    slow = np.stack([o.output_counts(o.perturb(x, gen)) for _ in range(reps)])
    assert np.all(fast.sum(axis=1) == 100)
    for j in (0, 5):  # per output cell, the count over trials
        assert two_sample_agreement(fast[:, j], slow[:, j], kind="samples") > 1e-3
    sf = np.stack([o.support_from_output_counts(h) for h in fast])
    ss = np.stack([o.support_from_output_counts(h) for h in slow])
    for v in (0, 4):  # per value, the support count over trials
        assert two_sample_agreement(sf[:, v], ss[:, v], kind="samples") > 1e-3
    # the summed histogram over all trials against the mixture of channel rows
    expected = counts @ o.channel() / counts.sum()
    assert chi_square_agreement(fast.sum(axis=0), expected) > 1e-3


@pytest.mark.parametrize("d", [2, 6, 9])
def test_simulate_output_counts_moments_match_the_sum_of_multinomials(d):
    """Mean and covariance of the histogram are those of sum_x Multinomial(n_x, P[x])."""
    o = HadamardResponse(1.3, d)
    counts = np.arange(d, 0, -1) * 7
    P = o.channel()
    mean = counts @ P
    cov = sum(n * (np.diag(P[x]) - np.outer(P[x], P[x])) for x, n in enumerate(counts))
    gen = np.random.default_rng(d)
    reps = 4000
    H = np.stack([o.simulate_output_counts(counts, gen) for _ in range(reps)])
    assert np.all(H.sum(axis=1) == counts.sum())
    z = (H.mean(axis=0) - mean) / np.sqrt(np.diag(cov) / reps)
    assert np.all(np.abs(z) < 5), z
    ratio = H.var(axis=0, ddof=1) / np.diag(cov)
    assert np.all(np.abs(ratio - 1) < 5 * math.sqrt(2 / (reps - 1))), ratio
    # one off-diagonal covariance, standardised by its own sampling error
    i, j = 0, o.K - 1
    prod = (H[:, i] - mean[i]) * (H[:, j] - mean[j])
    assert abs(prod.mean() - cov[i, j]) < 5 * prod.std(ddof=1) / math.sqrt(reps)


# ------------------------------------------------------------------ validation
def test_bad_inputs_and_reports():
    o = HadamardResponse(1.0, 5)
    with pytest.raises(TypeError, match="x must be an array of integer codes"):
        o.perturb(np.array([0.5]))
    with pytest.raises(ValueError, match="x is empty"):
        o.perturb(np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match="reports is empty"):
        o.estimate(np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match="outside the output range"):
        o.support_counts(np.array([0, 8]))
    with pytest.raises(TypeError, match="reports must be an integer array"):
        o.support_counts(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="true_counts must have length 5"):
        o.simulate_counts(np.array([1, 2]))
    with pytest.raises(ValueError, match="epsilon=50.0 is too large"):
        HadamardResponse(50.0, 4)
