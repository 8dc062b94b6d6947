"""Tests for ldp.audit: exact channel ε, channel validation, chi-square agreement tests."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ldp.audit import (
    bitwise_channel_epsilon,
    channel_epsilon,
    check_channel,
    chi_square_agreement,
    product_channel_epsilon,
    two_sample_agreement,
)
from ldp.oracles import GRR


def brute_force_epsilon(P: np.ndarray) -> float:
    """The definition, literally: max over y, x, x' of log P[x,y]/P[x',y] with the zero conventions."""
    best = 0.0
    d, m = P.shape
    for y in range(m):
        for x in range(d):
            for x2 in range(d):
                a, b = P[x, y], P[x2, y]
                if a == 0:
                    continue  # 0/b: ratio 0 (or 0/0, no constraint)
                best = max(best, math.inf if b == 0 else math.log(a / b))
    return best


def enumerate_product(factors: list[np.ndarray]) -> np.ndarray:
    """Full channel of a product channel: one column per tuple of part outputs."""
    d = factors[0].shape[0]
    cols = []
    for ys in itertools.product(*[range(F.shape[1]) for F in factors]):
        col = np.ones(d)
        for F, y in zip(factors, ys):
            col = col * F[:, y]
        cols.append(col)
    return np.stack(cols, axis=1)


# ------------------------------------------------------------------ channel_epsilon
@pytest.mark.parametrize("eps,d", [(0.1, 2), (1.0, 5), (3.0, 50), (8.0, 3)])
def test_grr_channel_epsilon_is_tight(eps, d):
    P = GRR(eps, d).channel()
    check_channel(P)
    assert channel_epsilon(P) == pytest.approx(eps, abs=1e-9)


def test_channel_epsilon_matches_brute_force_on_random_channels():
    rng = np.random.default_rng(0)
    for _ in range(30):
        d, m = rng.integers(1, 6), rng.integers(1, 7)
        P = rng.dirichlet(np.ones(m), size=d)
        # sprinkle exact zeros, sometimes whole columns
        if rng.random() < 0.5:
            P[:, rng.integers(m)] = 0.0
        if rng.random() < 0.3:
            P[rng.integers(d), rng.integers(m)] = 0.0
        P = P / np.where(P.sum(1, keepdims=True) > 0, P.sum(1, keepdims=True), 1)
        if not np.any(P > 0):
            continue
        assert channel_epsilon(P) == pytest.approx(brute_force_epsilon(P), rel=1e-12, abs=1e-12)


def test_channel_epsilon_zero_conventions():
    # an all-zero column is ignored
    assert channel_epsilon([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]]) == pytest.approx(math.log(2))
    # a zero against a positive entry is unbounded
    assert channel_epsilon([[1.0, 0.0], [0.5, 0.5]]) == math.inf
    # identical rows: epsilon 0, no witness
    assert channel_epsilon([[0.3, 0.7], [0.3, 0.7]], return_witness=True) == (0.0, None)
    # one input: nothing to distinguish
    assert channel_epsilon([[0.2, 0.8]]) == 0.0


def test_channel_epsilon_witness_attains_the_maximum():
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [0.2, 0.4, 0.4]])
    eps, (y, x, x2) = channel_epsilon(P, return_witness=True)
    assert eps == pytest.approx(math.log(P[x, y] / P[x2, y]))
    assert eps == pytest.approx(math.log(5))


@pytest.mark.parametrize(
    "bad,exc",
    [
        ([[0.5, -0.1]], ValueError),
        ([[np.nan, 1.0]], ValueError),
        ([[np.inf, 1.0]], ValueError),
        ([0.5, 0.5], ValueError),
        (np.zeros((0, 3)), ValueError),
        ([["a", "b"]], TypeError),
        ([[0.0, 0.0]], ValueError),
    ],
)
def test_channel_epsilon_rejects_bad_input(bad, exc):
    with pytest.raises(exc, match="P"):
        channel_epsilon(bad)


# ------------------------------------------------------------------ check_channel
def test_check_channel_accepts_and_returns_float():
    out = check_channel([[1, 0], [0, 1]])
    assert out.dtype == float and out.shape == (2, 2)


@pytest.mark.parametrize(
    "bad,msg",
    [
        ([[0.5, 0.6]], "row 0 sums to"),
        ([[1.2, -0.2]], "non-negative"),
        ([[0.5, 0.5], [0.5, 0.4]], "row 1"),
    ],
)
def test_check_channel_rejects(bad, msg):
    with pytest.raises(ValueError, match=msg):
        check_channel(bad)


def test_check_channel_atol():
    P = [[0.5, 0.5 + 1e-10]]
    with pytest.raises(ValueError):
        check_channel(P)
    check_channel(P, atol=1e-9)
    with pytest.raises(ValueError, match="atol"):
        check_channel(P, atol=-1)


# ------------------------------------------------------------------ product channels
def test_product_epsilon_equals_enumerated_channel():
    rng = np.random.default_rng(1)
    for trial in range(15):
        d = int(rng.integers(2, 5))
        widths = rng.integers(2, 4, size=int(rng.integers(1, 4)))
        factors = [rng.dirichlet(np.ones(k), size=d) for k in widths]
        if trial % 3 == 0:  # include deterministic parts / zeros
            factors[0][0] = 0.0
            factors[0][0, 0] = 1.0
        full = enumerate_product(factors)
        assert product_channel_epsilon(factors) == pytest.approx(channel_epsilon(full), rel=1e-12)


def test_bitwise_epsilon_equals_enumeration_with_zeros():
    B = np.array([[1.0, 0.3, 0.0], [0.5, 0.3, 0.0], [0.9, 0.1, 0.2]])
    factors = [np.stack([1 - B[:, j], B[:, j]], axis=1) for j in range(3)]
    assert bitwise_channel_epsilon(B) == channel_epsilon(enumerate_product(factors))
    B2 = np.array([[0.9, 0.3], [0.5, 0.3]])
    factors2 = [np.stack([1 - B2[:, j], B2[:, j]], axis=1) for j in range(2)]
    assert bitwise_channel_epsilon(B2) == pytest.approx(channel_epsilon(enumerate_product(factors2)))


@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_unary_encoding_epsilon(eps):
    d = 6
    # SUE: p = e^(eps/2)/(e^(eps/2)+1), q = 1 - p
    p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
    B = np.full((d, d), 1 - p)
    np.fill_diagonal(B, p)
    assert bitwise_channel_epsilon(B) == pytest.approx(eps, abs=1e-12)
    # OUE: p = 1/2, q = 1/(e^eps + 1)
    B = np.full((d, d), 1 / (math.exp(eps) + 1))
    np.fill_diagonal(B, 0.5)
    assert bitwise_channel_epsilon(B) == pytest.approx(eps, abs=1e-12)
    # small chunks give the same answer
    assert bitwise_channel_epsilon(B, chunk_elements=10) == pytest.approx(eps, abs=1e-12)


def test_bloom_permanent_randomisation_epsilon():
    f, h, m = 0.5, 2, 8
    bloom = np.zeros((3, m))
    bloom[0, [0, 1]] = 1
    bloom[1, [2, 3]] = 1
    bloom[2, [1, 4]] = 1  # shares one bit with input 0
    B = np.where(bloom == 1, 1 - f / 2, f / 2)
    expected = 2 * h * math.log((1 - f / 2) / (f / 2))
    assert bitwise_channel_epsilon(B) == pytest.approx(expected)


def test_product_epsilon_rejects_bad_input():
    with pytest.raises(ValueError, match="factors"):
        product_channel_epsilon([])
    with pytest.raises(ValueError, match="rows"):
        product_channel_epsilon([np.eye(2), np.eye(3)])
    with pytest.raises(ValueError, match=r"factors\[0\]"):
        product_channel_epsilon([[[0.5, 0.6], [0.5, 0.5]]])
    with pytest.raises(ValueError, match="bit_probs"):
        bitwise_channel_epsilon([[1.5, 0.0]])


# ------------------------------------------------------------------ chi-square goodness of fit
def test_chi_square_agrees_with_grr_row_and_detects_wrong_row():
    oracle = GRR(1.0, 8)
    reports = oracle.perturb(np.full(20_000, 3), rng=7)
    row = oracle.channel()[3]
    assert chi_square_agreement(reports, row, kind="samples") > 1e-3
    counts = np.bincount(reports, minlength=8)
    assert chi_square_agreement(counts, row) == pytest.approx(chi_square_agreement(reports, row, kind="samples"))
    wrong = oracle.channel()[4]
    assert chi_square_agreement(counts, wrong) < 1e-10


def test_chi_square_is_calibrated_under_the_null():
    rng = np.random.default_rng(3)
    p = np.array([0.5, 0.2, 0.2, 0.05, 0.03, 0.02])
    pvals = np.array([chi_square_agreement(rng.multinomial(400, p), p) for _ in range(400)])
    assert 0.02 <= np.mean(pvals < 0.05) <= 0.09


def test_chi_square_pools_tiny_cells_and_handles_impossible_outputs():
    p = np.r_[0.9, np.full(100, 0.1 / 100)]
    counts = np.r_[90, np.zeros(100, int)]
    counts[1:11] = 1
    assert chi_square_agreement(counts, p) > 0.5  # 10 rare reports where 10 expected
    # an observation in a probability-0 cell is decisive
    assert chi_square_agreement([5, 5, 1], [0.5, 0.5, 0.0]) == 0.0
    # fewer than two cells after pooling: no test possible
    assert chi_square_agreement([1, 1], [0.5, 0.5]) == 1.0


@pytest.mark.parametrize(
    "obs,probs,kind,exc",
    [
        ([1, 2], [0.5, 0.6], "counts", ValueError),
        ([1, 2, 3], [0.5, 0.5], "counts", ValueError),
        ([1.5, 2], [0.5, 0.5], "counts", TypeError),
        ([-1, 2], [0.5, 0.5], "counts", ValueError),
        ([0, 0], [0.5, 0.5], "counts", ValueError),
        ([0, 2], [0.5, 0.5], "samples", ValueError),
        ([0.0, 1.0], [0.5, 0.5], "samples", TypeError),
        ([1, 2], [0.5, 0.5], "rows", ValueError),
    ],
)
def test_chi_square_validation(obs, probs, kind, exc):
    with pytest.raises(exc):
        chi_square_agreement(obs, probs, kind=kind)


# ------------------------------------------------------------------ two-sample homogeneity
def test_simulate_counts_agrees_with_perturb_for_grr():
    oracle = GRR(1.0, 4)
    true_counts = np.array([50, 30, 15, 5])
    x = np.repeat(np.arange(4), true_counts)
    rng = np.random.default_rng(11)
    trials = 1500
    sim = np.array([oracle.simulate_counts(true_counts, rng)[0] for _ in range(trials)])
    per_user = np.array([oracle.support_counts(oracle.perturb(x, rng))[0] for _ in range(trials)])
    assert two_sample_agreement(sim, per_user, kind="samples") > 1e-3
    shifted = np.array([oracle.support_counts(oracle.perturb(np.zeros(100, int), rng))[0] for _ in range(trials)])
    assert two_sample_agreement(sim, shifted, kind="samples") < 1e-10


def test_two_sample_counts_path():
    a = np.array([100, 200, 300, 0, 1])
    assert two_sample_agreement(a, a) == pytest.approx(1.0)
    assert two_sample_agreement(a, a[::-1]) < 1e-10
    with pytest.raises(ValueError, match="length"):
        two_sample_agreement([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="non-empty"):
        two_sample_agreement([0, 0], [1, 2])
    with pytest.raises(ValueError, match="kind"):
        two_sample_agreement([1, 2], [1, 2], kind="x")
    with pytest.raises(TypeError):
        two_sample_agreement([0.5, 1.0], [1, 2], kind="samples")
