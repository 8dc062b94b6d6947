"""Lasso_JD (Alg. 2) and Lasso+EM_JD (Alg. 3): worked examples, identifiability, recovery, support."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.exceptions import ConvergenceWarning
from ldp.lopub import (
    EM,
    LASSO,
    LASSO_EM,
    METHODS,
    LoPubEncoder,
    LoPubReports,
    bit_counts,
    candidate_matrix,
    candidate_rank,
    debias_counts,
    empirical_joint,
    estimate_joint,
    identifiability_bound,
    kron_lasso_pair,
    lasso_em_joint,
    lasso_from_counts,
    lasso_joint,
)
from ldp.lopub.paper import table6_reports


# ------------------------------------------------------------------ T-L1, T-L2, Example 9
def test_example7_counts_and_example8_debiasing():
    rep = table6_reports()
    counts = np.concatenate(bit_counts(rep, (0, 1)))
    np.testing.assert_array_equal(counts, [2, 0, 1, 4, 3, 1])
    np.testing.assert_allclose(debias_counts(counts, 4, 0.5), [2, -2, 0, 6, 4, 0])


def test_example9_candidate_matrix():
    M = candidate_matrix(table6_reports().filters)
    expected = ["010101", "010110", "011100", "100101", "100110", "101100"]
    assert ["".join(map(str, row)) for row in M] == expected


def test_candidate_matrix_row_major_order():
    rng = np.random.default_rng(0)
    fs = [
        rng.integers(0, 2, (3, 5)).astype(np.uint8),
        rng.integers(0, 2, (2, 4)).astype(np.uint8),
        rng.integers(0, 2, (4, 3)).astype(np.uint8),
    ]
    M = candidate_matrix(fs)
    for flat in range(24):
        a, b, c = np.unravel_index(flat, (3, 2, 4))
        np.testing.assert_array_equal(M[flat], np.concatenate([fs[0][a], fs[1][b], fs[2][c]]))


# ------------------------------------------------------------------ T-L3: the identifiability limit
def test_example9_rank_is_four():
    assert candidate_rank(table6_reports().filters) == 4 == identifiability_bound((2, 3))


@pytest.mark.parametrize("domains", [(4, 5), (3, 3, 2), (6, 2)])
def test_rank_bound_attained_by_full_rank_filters(domains):
    enc = LoPubEncoder(domains, f=0.5, m=32, h=4)
    assert candidate_rank(enc.filters) == identifiability_bound(domains) < int(np.prod(domains))


def test_equal_marginals_give_identical_lasso_output():
    """Two datasets with the same 1-way marginals but different joints are indistinguishable to Lasso_JD."""
    enc = LoPubEncoder((4, 5), f=0.5, m=32, h=4)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 3000)
    b = np.minimum(a + rng.integers(0, 2, 3000), 4)  # strongly dependent on a
    b_perm = rng.permutation(b)  # same marginal, independent of a
    M = candidate_matrix(enc.filters)
    outs, joints = [], []
    for bb in (b, b_perm):
        # noise-free counts (f = 0): true ones per bit
        y = np.concatenate([enc.filters[0][a].sum(axis=0), enc.filters[1][bb].sum(axis=0)]).astype(float)
        outs.append(lasso_from_counts(y, M, a.size).joint)
        joints.append(empirical_joint(np.column_stack([a, bb]), (4, 5), (0, 1)).ravel())
    assert 0.5 * np.abs(joints[0] - joints[1]).sum() > 0.3
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-12)


# ------------------------------------------------------------------ T-L4: identifiable 1-D case
def test_one_dimensional_lasso_recovers_marginal_with_tiny_f():
    rng = np.random.default_rng(8)
    codes = rng.choice(41, size=20_000, p=rng.dirichlet(np.ones(41)))[:, None]
    rep = LoPubEncoder((41,), f=1e-6, m=128, h=4).encode(codes, rng=1)
    res = lasso_joint(rep, (0,), alpha=1e-6)
    truth = np.bincount(codes[:, 0], minlength=41) / codes.shape[0]
    assert np.max(np.abs(res.joint - truth)) < 1e-3
    assert res.converged and not res.fallback


def test_one_dimensional_lasso_within_noise_of_least_squares_oracle():
    """At f = 0.5 the positive Lasso with tiny alpha is the least-squares RAPPOR estimate (5 sd tolerance)."""
    pi = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    n = 40_000
    codes = np.random.default_rng(2).choice(5, size=n, p=pi)[:, None]
    enc = LoPubEncoder((5,), f=0.5, m=32, h=4)
    rep = enc.encode(codes, rng=3)
    res = lasso_joint(rep, (0,), alpha=1e-8, renormalize=False)
    sd = np.sqrt(np.diag(enc.oracles[0].covariance(n)) + pi * (1 - pi) / n)
    assert np.all(np.abs(res.joint - pi) <= 5 * sd)


def test_lasso_renormalises_and_reports_raw_sum():
    rep = LoPubEncoder((6, 3), f=0.4, m=32, h=4).encode(
        np.column_stack([np.arange(600) % 6, np.arange(600) % 3]), rng=0
    )
    raw = lasso_joint(rep, (0, 1), alpha=1e-3, renormalize=False)
    norm = lasso_joint(rep, (0, 1), alpha=1e-3)
    assert norm.joint.sum() == pytest.approx(1.0)
    assert raw.raw_sum == pytest.approx(raw.joint.sum())
    assert raw.raw_sum < 1.0  # the L1 penalty shrinks the total mass
    assert np.all(norm.joint >= 0)


def test_all_zero_coefficients_fall_back_to_uniform():
    M = np.eye(3, 6)
    with pytest.warns(RuntimeWarning, match="uniform"):
        res = lasso_from_counts(-np.ones(6), M, 10)
    assert res.fallback
    np.testing.assert_allclose(res.joint, np.full(3, 1 / 3))


# ------------------------------------------------------------------ Kronecker extension (not in the paper)
def test_kronecker_variant_identifies_a_joint_that_lasso_cannot():
    rng = np.random.default_rng(6)
    n = 30_000
    a = rng.integers(0, 4, n)
    b = (a + (rng.random(n) < 0.1)) % 4
    codes = np.column_stack([a, b])
    truth = empirical_joint(codes, (4, 4), (0, 1))
    rep = LoPubEncoder((4, 4), f=0.2, m=16, h=2).encode(codes, rng=7)
    plain = lasso_joint(rep, (0, 1))
    kron = kron_lasso_pair(rep, 0, 1)
    avd = lambda p: 0.5 * np.abs(p - truth).sum()  # noqa: E731
    assert avd(kron.joint) < 0.05 < 0.3 < avd(plain.joint)


# ------------------------------------------------------------------ T-L5 and the hybrid
def test_hybrid_support_contained_in_lasso_support_and_beats_lasso():
    rng = np.random.default_rng(1)
    n = 8000
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    codes = np.column_stack([a, b, c])
    truth = empirical_joint(codes, (3, 3, 2), (0, 1, 2))
    rep = LoPubEncoder((3, 3, 2), f=0.3, m=32, h=4).encode(codes, rng=2)
    hy = lasso_em_joint(rep, (0, 1, 2))
    assert np.all(hy.lasso.joint[hy.joint > 0] > 0)
    assert hy.support_size == int(np.count_nonzero(hy.lasso.joint))
    assert hy.joint.sum() == pytest.approx(1.0)
    avd = lambda p: 0.5 * np.abs(p - truth).sum()  # noqa: E731
    assert avd(hy.joint) < avd(hy.lasso.joint)


def test_estimate_joint_dispatch():
    rep = table6_reports()
    for method in METHODS:
        est = estimate_joint(rep, (0, 1), method)
        assert est.joint.shape == (2, 3) and est.seconds >= 0 and est.method == method
    assert estimate_joint(rep, (0, 1), LASSO).iterations == 0
    with pytest.warns(ConvergenceWarning):  # two steps on purpose: the iteration count is tested
        assert estimate_joint(rep, (0, 1), EM, max_iter=2).iterations == 2
    assert estimate_joint(rep, (0, 1), LASSO_EM).iterations >= 1
    with pytest.raises(ValueError, match="method must be one of"):
        estimate_joint(rep, (0, 1), "MLE")


def test_bad_lasso_input():
    with pytest.raises(ValueError, match="alpha must be a positive number"):
        lasso_from_counts(np.ones(6), np.ones((3, 6)), 5, alpha=0.0)
    with pytest.raises(ValueError, match="M must be"):
        lasso_from_counts(np.ones(5), np.ones((3, 6)), 5)
    with pytest.raises(ValueError, match="n must be >= 1"):
        debias_counts([1, 2], 0, 0.5)
    with pytest.raises(ValueError, match="k = 3 attributes"):
        lasso_joint(table6_reports(), (0, 1, 0))
    assert math.isclose(float(debias_counts([3], 4, 0.5)[0]), 4.0)
    assert isinstance(table6_reports(), LoPubReports)


def test_lasso_without_sklearn_input_checks_is_the_checked_fit():
    # lasso_from_counts skips scikit-learn's per-fit validation; the coefficients must be those of the validated fit
    import warnings

    from sklearn.linear_model import Lasso

    g = np.random.default_rng(0)
    for _ in range(20):
        cells, bits, n = int(g.integers(4, 300)), int(g.integers(8, 200)), 5000
        M = (g.random((cells, bits)) < 0.1).astype(float)
        y = M.T @ g.dirichlet(np.ones(cells)) * n + g.normal(0, 30, bits)
        model = Lasso(alpha=1e-5, positive=True, fit_intercept=False, max_iter=100_000, tol=1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            beta = np.clip(model.fit(M.T, y / n).coef_, 0, None)
            design = M.copy()
            got = lasso_from_counts(y, M, n).joint
        np.testing.assert_array_equal(got, beta / beta.sum())
        np.testing.assert_array_equal(M, design)  # the caller's design is not written to


def test_lasso_rejects_non_finite_inputs():
    M = np.ones((3, 4))
    with pytest.raises(ValueError, match="finite"):
        lasso_from_counts(np.array([1.0, np.nan, 1.0, 1.0]), M, 10)
