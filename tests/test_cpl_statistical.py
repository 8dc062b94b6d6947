"""Section III of Jayawardana et al.: statistical CPL, count-level path, surrogate test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ldp.audit import chi_square_agreement
from ldp.cpl import attacks as at
from ldp.cpl import statistical as st
from ldp.cpl.theory import appendix_k_closed_form, conditional, cpl_alg1, cpl_grr
from ldp.oracles import GRR
from ldp.oracles.local_hash import BLH, OLH

APPK = np.array([[0.20, 0, 0, 0], [0, 0.20, 0, 0], [0.10, 0.15, 0.03, 0.02], [0.10, 0.15, 0.03, 0.02]])
APPK_COUNTS = np.rint(APPK * 100_000).astype(np.int64)  # the expected 100K-sample table (exact integers)


def appk_sample(n, seed):
    rng = np.random.default_rng(seed)
    cells = rng.choice(16, size=n, p=APPK.ravel())
    return np.stack([cells // 4, cells % 4], axis=1)


# small-prime local hashing: the family is enumerable, so its effective channel is exact
SMALL_LH = {"OLH": lambda eps, d: OLH(eps, d, prime=7), "BLH": lambda eps, d: BLH(eps, d, prime=7)}


@pytest.mark.parametrize("name", at.PAPER_MECHANISMS)
def test_record_level_tables_follow_the_count_level_law(name):
    """Count-level fast path = record level in distribution: every row of the table passes a chi-square test."""
    N, r, eps = 2000, 50, 1.0
    codes = appk_sample(N, 1)
    factory = SMALL_LH.get(name, name)
    inferred = st.perturb_infer(codes, [4, 4], factory, eps, r=r, rng=11, columns=[1])
    oracle = factory(eps, 4) if callable(factory) else at.make_oracle(name, eps, 4)
    K = at.effective_channel(oracle, method="exact" if name in SMALL_LH else "closed")
    table = st.contingency(np.tile(codes[:, 0], r), inferred[:, 0], 4, 4)
    joint = np.bincount(codes[:, 0] * 4 + codes[:, 1], minlength=16).reshape(4, 4)
    expected = joint @ K
    for x in range(4):
        assert chi_square_agreement(table[x], expected[x] / expected[x].sum()) > 1e-4, (name, x)
    fast = st.simulate_pair_table(joint, K, r, rng=5)
    assert fast.shape == table.shape and np.array_equal(fast.sum(1), table.sum(1))


def test_two_level_channels_are_summed_as_keep_or_uniform_with_the_multinomials_law():
    """_sum_of_multinomials: a two-level channel of 3+ values takes the keep-or-uniform mixture (2t draws);
    its outputs have the law of one multinomial per neighbour value, summed."""
    t, trials = 4, 20_000
    K = at.two_level_channel(0.55, t)
    N = np.array([3, 0, 5, 2])
    gen = np.random.default_rng(21)
    mixture = st._sum_of_multinomials(gen, np.tile(N, (trials, 1)), K)
    direct = gen.multinomial(np.tile(N, (trials, 1)), K).sum(axis=-2)
    assert mixture.shape == direct.shape == (trials, t) and (mixture.sum(axis=1) == N.sum()).all()
    mean, cov = N @ K, sum(n * (np.diag(k) - np.outer(k, k)) for n, k in zip(N, K))
    se = np.sqrt(np.diag(cov) / trials)
    assert np.all(np.abs(mixture.mean(axis=0) - mean) < 5 * se)
    assert np.allclose(np.cov(mixture.T), cov, atol=5 * np.sqrt(2 / trials) * np.diag(cov).max())
    a, b = [tuple(r) for r in mixture], [tuple(r) for r in direct]
    keys = sorted(set(a) | set(b))
    ca, cb = np.array([a.count(k) for k in keys]), np.array([b.count(k) for k in keys])
    ok = (ca + cb) >= 10
    table = np.vstack([np.append(ca[ok], ca[~ok].sum()), np.append(cb[ok], cb[~ok].sum())])
    assert stats.chi2_contingency(table[:, table.sum(axis=0) > 0])[1] > 1e-3
    # binary and non-two-level channels keep the multinomial draws (the same stream as before)
    for K2 in (GRR(1.0, 2).channel(), np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])):
        M = np.tile(np.arange(1, K2.shape[0] + 1), (5, 1))
        got = st._sum_of_multinomials(np.random.default_rng(3), M, K2)
        assert np.array_equal(got, np.random.default_rng(3).multinomial(M, K2).sum(axis=-2))


def test_fast_and_record_level_cpl_means_agree():
    N, r, eps, reps = 2000, 50, 1.0, 12
    codes = appk_sample(N, 2)
    joint_rev = np.bincount(codes[:, 1] * 4 + codes[:, 0], minlength=16).reshape(4, 4)  # rows = X̂ (primary)
    K = GRR(eps, 4).channel()
    gen = np.random.default_rng(3)
    rec = [
        st.statistical_cpl_matrix(codes, st.perturb_infer(codes, [4, 4], "GRR", eps, r=r, rng=gen), [4, 4], r=r)[1, 0]
        for _ in range(reps)
    ]
    fast = [st.statistical_cpl_fast(joint_rev, K, r, gen) for _ in range(reps)]
    se = math.sqrt(np.var(rec, ddof=1) / reps + np.var(fast, ddof=1) / reps)
    assert abs(np.mean(rec) - np.mean(fast)) <= 5 * se


DRAWS = 8  # independent draws averaged per r in the convergence test


def _convergence_limit(mechanism, eps):
    """(K, limit) for the convergence test: the count-level channel and the large-sample CPL formula.

    GRR: its own channel, limit = Algorithm 1.  OUE: the *exact* effective channel of
    OUE + argmax attack, enumerated from OUE's output space, against the closed-form
    limit ``cpl_grr(P, ε_eff)`` -- two independent computations.
    """
    if mechanism == "GRR":
        K = GRR(eps, 4).channel()
        return K, lambda P: cpl_alg1(P, K)
    oracle = at.make_oracle(mechanism, eps, 4)
    K = at.effective_channel(oracle, method="exact")
    eps_eff = at.effective_channel_epsilon(oracle)
    assert 0 < eps_eff < eps
    return K, lambda P: cpl_grr(P, eps_eff)


@pytest.mark.parametrize("mechanism", ["GRR", "OUE"])
@pytest.mark.parametrize("direction", ["forward", "reverse"])
def test_statistical_cpl_converges_to_algorithm1_within_its_standard_error(direction, mechanism):
    """Large-sample limit, averaged over DRAWS independent draws per r.

    With ``σ`` the delta-method SE of one estimate (:func:`cpl_standard_error`) and
    ``c`` the number of (output, x, x') candidates in the max (σ is raised to the
    draws' own SD where that is larger), the estimator is
    biased upward by at most ``b = σ·sqrt(2 ln c)`` (expected maximum of ``c``
    errors of SD ``σ``) and never downward to first order.  The mean of the draws
    must therefore lie in ``[L - 3σ/√D, L + b + 3σ/√D]``.
    """
    eps = 1.0
    J = APPK_COUNTS if direction == "forward" else APPK_COUNTS.T  # rows = primary attribute
    P = conditional(J)
    K, limit = _convergence_limit(mechanism, eps)
    truth = limit(P)
    assert truth == pytest.approx(cpl_alg1(P, K), abs=1e-12)  # the effective channel is GRR at ε_eff
    M = P @ K
    c = M.size * M.shape[0]
    gen = np.random.default_rng(17)
    widths = []
    for r in (1, 10, 100, 1000):
        draws = np.array([st.statistical_cpl_fast(J, K, r, gen) for _ in range(DRAWS)])
        # SD of one draw: the delta-method value, or the draws' own SD where near-tied
        # witnesses (identical rows of (28)) make the delta method understate it
        sigma = max(st.cpl_standard_error(M, r * J.sum(axis=1)), draws.std(ddof=1))
        bias = sigma * math.sqrt(2 * math.log(c))
        sem = 3 * sigma / math.sqrt(DRAWS)
        assert truth - sem <= draws.mean() <= truth + bias + sem, (r, draws.mean(), truth, sigma)
        widths.append(bias + sem)
    # ~1/sqrt(r): from r = 1 to 1000 the width shrinks by sqrt(1000), up to the draws' SD standing in for the
    # delta-method one: an SD from DRAWS draws exceeds σ by at most sqrt(χ²_{0.999, D-1} / (D-1)) (1.86 for D = 8)
    inflation = math.sqrt(stats.chi2.ppf(0.999, DRAWS - 1) / (DRAWS - 1))
    assert widths[-1] < widths[0] / (math.sqrt(1000) / inflation)
    assert widths[-1] < 0.01


def test_table_iii_scale_estimate():
    """On (28) with 100K records and r = 50 (5M rows), GRR at ε = 1: L_{X_k→X̂} = 0.62 ± 0.01."""
    gen = np.random.default_rng(4)
    vals = [st.statistical_cpl_fast(APPK_COUNTS.T, GRR(1.0, 4).channel(), 50, gen) for _ in range(5)]
    assert abs(np.mean(vals) - appendix_k_closed_form(1.0)[1]) < 0.01
    fwd = [st.statistical_cpl_fast(APPK_COUNTS, GRR(1.0, 4).channel(), 50, gen) for _ in range(5)]
    assert abs(np.mean(fwd) - 1.0) < 0.01


def test_estimator_zero_handling_min_count_and_clamp():
    counts = np.array([[50, 0, 50], [10, 80, 10], [0, 0, 0]])
    # column 1: 0 vs 0.8 -> masked in the artifact's estimator, +inf when zeros are kept
    assert st.cpl_from_counts(counts, zeros="inf") == math.inf
    masked = st.cpl_from_counts(counts)
    assert masked == pytest.approx(math.log(0.5 / 0.1))
    assert st.cpl_from_counts(counts, clamp=1.0) == 1.0
    assert st.cpl_from_counts(counts, min_count=101) == 0.0  # one row left: nothing to compare
    assert st.cpl_from_counts(np.array([[5, 5]])) == 0.0
    assert st.cpl_from_counts(np.array([[5, 5], [2, 2]])) == 0.0


def test_multi_column_w_and_joint_table_law():
    """TPL path: W = (Y_k, Y_1, Y_2) on a small binary dataset, count-level law vs record level."""
    rng = np.random.default_rng(8)
    N, r, eps = 1500, 20, 1.0
    male = rng.random(N) < 0.4
    beard = np.where(male, rng.random(N) < 0.4, rng.random(N) < 0.01)
    smile = rng.random(N) < 0.5
    codes = np.stack([male, beard, smile], axis=1).astype(np.int64)
    inferred = st.perturb_infer(codes, [2, 2, 2], "GRR", eps, r=r, rng=9)
    x = np.tile(codes[:, 0], r)
    table = st.contingency(x, inferred, 2, [2, 2, 2])
    K = GRR(eps, 2).channel()
    fast = st.simulate_joint_table(codes, [2, 2, 2], 0, [0, 1, 2], [K, K, K], r, rng=10)
    assert fast.shape == table.shape == (2, 8)
    expected = np.zeros((2, 8))
    for row in codes:
        expected[row[0]] += np.kron(np.kron(K[row[0]], K[row[1]]), K[row[2]])
    for v in range(2):
        assert chi_square_agreement(table[v], expected[v] / expected[v].sum()) > 1e-4
        assert chi_square_agreement(fast[v], expected[v] / expected[v].sum()) > 1e-4
    # the TPL bound of Eq. (6) is above the statistical TPL (up to noise)
    tpl = st.cpl_from_counts(table)
    single = [st.statistical_cpl(x, inferred[:, j], 2, 2) for j in (1, 2)]
    assert tpl <= eps + sum(single) + 0.1


@pytest.mark.parametrize("top", [2, 300, 70_000])  # one-, two- and three-byte codes
def test_joint_table_patterns_in_the_order_of_np_unique(top):
    """simulate_joint_table groups records by packed keys: the patterns, counts and order of np.unique(axis=0),
    so the draw from one seed is the one the np.unique grouping gave (to the bit)."""
    gen = np.random.default_rng(top)
    sizes = [3, top, 2]
    codes = np.column_stack([gen.integers(0, k, 5000) for k in sizes])
    K3, K2 = GRR(1.0, 3).channel(), GRR(1.0, 2).channel()
    if top <= 300:
        primary, released, channels = 0, [0, 1, 2], [K3, GRR(1.0, top).channel(), K2]
    else:  # too many values for a channel: the wide attribute is the primary one
        primary, released, channels = 1, [0, 2], [K3, K2]
    got = st.simulate_joint_table(codes, sizes, primary, released, channels, 3, rng=4)
    # the grouping as it was: np.unique over the rows of (primary, released...)
    patterns, counts = np.unique(codes[:, [primary] + released], axis=0, return_counts=True)
    pvals = np.ones((patterns.shape[0], 1))
    for i, K in enumerate(channels):
        pvals = (pvals[:, :, None] * K[patterns[:, 1 + i]][:, None, :]).reshape(patterns.shape[0], -1)
    pvals /= pvals.sum(axis=1, keepdims=True)
    draws = np.random.default_rng(4).multinomial(counts * 3, pvals)
    expected = np.zeros_like(got)
    np.add.at(expected, patterns[:, 0], draws)
    assert np.array_equal(got, expected)


def test_surrogate_count_level_equals_record_level_permutations():
    N, r = 400, 5
    codes = appk_sample(N, 3)
    inferred = st.perturb_infer(codes, [4, 4], "GRR", 0.5, r=r, rng=12, columns=[1])[:, 0].astype(np.int64)
    x = np.tile(codes[:, 0], r)
    res = st.surrogate_test(x, inferred, 4, 4, n_surrogates=400, rng=13)
    gen = np.random.default_rng(14)
    manual = np.array([st.statistical_cpl(x, gen.permutation(inferred), 4, 4) for _ in range(400)])
    assert stats.ks_2samp(res.surrogates, manual).pvalue > 1e-3
    assert res.observed == pytest.approx(st.statistical_cpl(x, inferred, 4, 4))


def test_surrogate_significance_dependent_vs_independent():
    gen = np.random.default_rng(21)
    table = st.simulate_pair_table(APPK_COUNTS.T, GRR(1.0, 4).channel(), 50, gen)
    dep = st.surrogate_test_counts(table, 2000, gen)
    assert dep.p_value < 0.05 and dep.p_value == pytest.approx(1 / 2001)
    indep_joint = np.outer([3000, 2000], [1000, 2500, 1500])
    pvals = [
        st.surrogate_test_counts(st.simulate_pair_table(indep_joint, GRR(1.0, 3).channel(), 1, gen), 200, gen).p_value
        for _ in range(30)
    ]
    assert np.mean(np.array(pvals) < 0.05) < 0.3  # ~5% expected; loose bound for 30 draws
    assert st.surrogate_test_counts(table, 50, gen, correction=False).p_value == 0.0
    xs = gen.integers(0, 2, size=300)
    ws = np.stack([np.where(gen.random(300) < 0.8, xs, 1 - xs) for _ in range(2)], axis=1)
    multi = st.surrogate_test(xs, ws, 2, [2, 2], n_surrogates=50, rng=gen)
    assert multi.p_value < 0.05
    # the artifact's zero masking cannot see a noiseless perfect correlation (every column has one non-zero)
    assert (
        st.cpl_from_counts([[10, 0], [0, 10]]) == 0.0
        and st.cpl_from_counts([[10, 0], [0, 10]], zeros="inf") == math.inf
    )


def test_nmse_cpl_eq29():
    ref = np.array([[np.nan, 1.0], [2.0, np.nan]])
    est = np.array([[np.nan, 1.1], [1.8, np.nan]])
    assert st.nmse_cpl(est, ref) == pytest.approx((0.01 + 0.04) / 5)
    with pytest.raises(ValueError, match="same shape"):
        st.nmse_cpl(est, ref[:1])
    with pytest.raises(ValueError, match="all zero"):
        st.nmse_cpl(est, np.zeros((2, 2)))


def test_bad_input():
    codes = np.array([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="outside"):
        st.perturb_infer(codes, [1, 2], "GRR", 1.0, r=2)
    with pytest.raises(TypeError, match="integer"):
        st.perturb_infer(codes.astype(float), [2, 2], "GRR", 1.0)
    with pytest.raises(ValueError, match="r must be"):
        st.perturb_infer(codes, [2, 2], "GRR", 1.0, r=0)
    with pytest.raises(ValueError, match="epsilon"):
        st.perturb_infer(codes, [2, 2], "GRR", -1.0)
    with pytest.raises(ValueError, match="name"):
        st.perturb_infer(codes, [2, 2], "Laplace", 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        st.cpl_from_counts([[1, -1], [1, 1]])
    with pytest.raises(ValueError, match="zeros"):
        st.cpl_from_counts([[1, 1], [1, 1]], zeros="drop")
    with pytest.raises(ValueError, match="K must have"):
        st.simulate_pair_table(np.ones((2, 3), dtype=int), np.eye(2), 1)
    with pytest.raises(ValueError, match="row-stochastic"):
        st.simulate_pair_table(np.ones((2, 2), dtype=int), [[0.5, 0.4], [0.5, 0.5]], 1)
    with pytest.raises(ValueError, match="outside"):
        st.contingency(np.array([0, 2]), np.array([0, 1]), 2, 2)


def test_binned_readings_of_adult_and_cvd():
    from ldp.cpl import datasets as ds

    adult = pd.DataFrame(
        {
            "age": [20, 40, 70],
            "workclass": ["a"] * 3,
            "education": ["9th", "Masters", "HS-grad"],
            "marital_status": ["Divorced", "Never-married", "Married-civ-spouse"],
            "occupation": ["o"] * 3,
            "relationship": ["r"] * 3,
            "race": ["w"] * 3,
            "sex": ["Male", "Female", "Male"],
            "capital_gain": [0, 5, 0],
            "capital_loss": [0, 0, 1],
            "hours_per_week": [20, 40, 60],
            "native_country": ["United-States", "Mexico", "Peru"],
            "income": ["<=50K", ">50K", "<=50K"],
            "fnlwgt": [1, 1, 1],
            "education_num": [5, 14, 9],
        }
    )
    b = ds.adult_scheme_b(adult)
    assert list(b.age.astype(str)) == ["<30", "30-49", "50+"]
    assert list(b.native_country.astype(str)) == ["United-States", "other", "other"]
    assert list(b.education.astype(str)) == ["no diploma", "postgraduate", "HS-grad"]
    cvd = pd.DataFrame(
        {
            "age": [10958, 21915],
            "gender": [1, 2],
            "height": [170, 160],
            "weight": [60, 90],
            "ap_hi": [110, 150],
            "cholesterol": [1, 3],
            "gluc": [1, 1],
            "smoke": [0, 1],
            "alco": [0, 0],
            "active": [1, 1],
            "cardio": [0, 1],
        }
    )
    w = ds.cvd_with_binned(cvd)
    assert list(w.age_decade.astype(int)) == [3, 6] and list(w.bmi_class.astype(int)) == [1, 3]
    assert list(w.bp_class.astype(int)) == [0, 2]
