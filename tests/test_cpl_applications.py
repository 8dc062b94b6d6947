"""Section V of Jayawardana et al.: TCPL, utility metrics, the CPL-analysis benchmark, budget calibration;
dependence measures and datasets (Jayawardana et al., Appendix K and Section V)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp.cpl import benchmark as bm
from ldp.cpl import calibration as cal
from ldp.cpl import datasets as ds
from ldp.cpl import dependence as dep
from ldp.cpl import tcpl as tc
from ldp.cpl.theory import conditional, cpl_alg2, cpl_grr
from ldp.tables import CodedTable


def toy_codes(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.7, a % 2, rng.integers(0, 2, n))
    c = rng.integers(0, 4, n)  # independent of the others
    return np.stack([a, b, c], axis=1), [3, 2, 4]


# ----------------------------------------------------------------------------- dependence measures
def test_appendix_k_conventional_metrics():
    J = ds.APPK_JOINT
    assert dep.mutual_information(J) == pytest.approx(0.336506, abs=5e-7)
    assert dep.nmi_joint(J) == pytest.approx(0.16493, abs=5e-6)
    assert dep.pcc_from_table(J) == pytest.approx(0.35716, abs=5e-6)
    assert dep.nmi_joint(J) == pytest.approx(dep.nmi_joint(J.T))  # symmetric, unlike CPL


def test_pcc_from_table_equals_pcc_of_codes():
    codes, sizes = toy_codes()
    t = tc.pair_tables(codes, sizes)[0, 1]
    assert dep.pcc_from_table(t) == pytest.approx(np.corrcoef(codes[:, 0], codes[:, 1])[0, 1], rel=1e-10)
    assert dep.nmi_joint(np.outer([1, 2], [3, 4])) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="non-negative"):
        dep.nmi_joint([[1, -1], [0, 1]])


# ----------------------------------------------------------------------------- matrices and TCPL
def test_cpl_matrix_conventions_and_rules():
    codes, sizes = toy_codes()
    tables = tc.pair_tables(codes, sizes)
    assert np.array_equal(tables[1, 0], tables[0, 1].T)
    L2 = tc.cpl_matrix(tables, 3, "alg2", 1.0)
    Lg = tc.cpl_matrix(tables, 3, "grr", 1.0)
    Lo = tc.cpl_matrix(tables, 3, "limit:OUE", 1.0)
    La = tc.cpl_matrix(tables, 3, "alg1:GRR", 1.0)
    assert np.all(np.isnan(np.diag(L2)))
    assert L2[0, 1] == pytest.approx(cpl_alg2(conditional(tables[0, 1]), 1.0).leakage)  # L_{X_1 → X_0}
    off = tc.off_diagonal
    assert np.all(off(Lo) <= off(Lg) + 1e-12) and np.all(off(Lg) <= off(L2) + 1e-12)
    assert np.allclose(off(La), off(Lg))
    assert tc.tcpl(L2) == pytest.approx(np.nansum(L2))
    assert tc.normalised_tcpl(L2, L2) == 1.0
    assert tc.tpl_upper_bounds(L2, 1.0) == pytest.approx(1.0 + np.nansum(L2, axis=1))
    with pytest.raises(ValueError, match="method"):
        tc.cpl_function("alg3")


def test_tuple_table_matches_pair_tables_and_contingency():
    codes, sizes = toy_codes(2)
    assert np.array_equal(tc.tuple_table(codes, sizes, 0, [1]), tc.pair_tables(codes, sizes)[0, 1])
    t = tc.tuple_table(codes, sizes, 2, [0, 1])
    assert t.shape == (4, 6) and t.sum() == len(codes)
    assert t[codes[0, 2], codes[0, 0] * 2 + codes[0, 1]] >= 1
    with pytest.raises(ValueError, match="released"):
        tc.tuple_table(codes, sizes, 0, [])


def test_utility_metrics():
    assert tc.freq_nmse([[0.5, 0.5], [1.0, 0.0]], [[0.6, 0.4], [1.0, 0.0]]) == pytest.approx(0.02 / 1.52)
    codes = np.array([[0, 1], [1, 1], [2, 0], [0, 0]])
    inferred = np.array([[0, 1], [0, 1], [2, 1], [0, 1]])
    assert tc.zero_one_error(inferred, codes) == pytest.approx((1 / 4 + 2 / 4) / 2)
    with pytest.raises(ValueError, match="same shape"):
        tc.zero_one_error(inferred[:, :1], codes)


# ----------------------------------------------------------------------------- benchmark
def test_benchmark_metric_and_regions():
    rng = np.random.default_rng(3)
    ref = rng.uniform(0, 1, (4, 4))
    np.fill_diagonal(ref, np.nan)
    eps = 1.0
    assert bm.under_over(ref, ref, eps) == (0.0, 0.0)
    x, y = bm.under_over(ref, bm.spl_anl(4, eps), eps)
    assert x == 0.0 and y == pytest.approx(1 - np.nanmean(ref))
    est = ref + rng.normal(0, 0.1, ref.shape)
    x, y = bm.under_over(ref, est, eps)
    assert x + y == pytest.approx(np.nanmean(np.abs(ref - est)) / eps)
    assert bm.region(0, 0) == "P1" and bm.region(0.1, 0) == "R1"
    assert bm.region(0, 0.1) == "R2" and bm.region(0.1, 0.1) == "R3"
    assert bm.region(1e-12, 0.0) == "P1"


def test_predicted_placements_on_adult_like_data():
    codes, sizes = toy_codes(5)
    tables = tc.pair_tables(codes, sizes)
    eps = 1.0
    L2 = tc.cpl_matrix(tables, 3, "alg2", eps)
    Lg = tc.cpl_matrix(tables, 3, "grr", eps)
    Le = tc.cpl_matrix(tables, 3, "exp", eps)
    assert bm.region(*bm.under_over(L2, bm.spl_anl(3, eps), eps)) == "R2"
    assert bm.region(*bm.under_over(Lg, Lg, eps)) == "P1"  # ITS = GRR-ANL against GRR Alg 1
    assert bm.region(*bm.under_over(L2, Le, eps)) == "R1"
    assert bm.region(*bm.under_over(Lg, bm.sym_min(Lg), eps)) in ("R1", "P1")


def test_grf_readouts():
    pcc = np.array([[1, 0.5, 0, 0], [0.5, 1, 0.3, 0], [0, 0.3, 1, 0], [0, 0, 0, 1]])
    comp = bm.grf(pcc, 0.2, 2.0)
    edge = bm.grf(pcc, 0.2, 2.0, readout="edge")
    assert comp[0, 2] == 2.0 and edge[0, 2] == 0.0  # linked through attribute 1
    assert comp[0, 3] == 0.0 and np.isnan(comp[0, 0])
    assert bm.grf(pcc, 0.4, 1.0)[1, 2] == 0.0
    with pytest.raises(ValueError, match="readout"):
        bm.grf(pcc, 0.2, 1.0, readout="path")


# ----------------------------------------------------------------------------- calibration
def _conds(codes, sizes):
    return cal.conditionals_from_tables(tc.pair_tables(codes, sizes), len(sizes))


def test_calibration_independent_and_perfectly_correlated():
    rng = np.random.default_rng(1)
    n, N = 4, 20_000
    indep = np.outer(np.ones(3) / 3, np.ones(3) / 3)
    C_indep = [[None if i == j else indep * 3 for j in range(n)] for i in range(n)]  # rows = P(X_j | X_i)
    res = cal.calibrate_budget(C_indep, 2.0, step=0.01)
    assert 2.0 - 0.01 < res.epsilon <= 2.0
    x = rng.integers(0, 3, N)
    perfect = np.stack([x, (x + 1) % 3, (x + 2) % 3, x], axis=1)
    res = cal.calibrate_budget(_conds(perfect, [3] * 4), 2.0)
    assert res.epsilon == pytest.approx(0.5)  # = ε̄/n (SPL)
    assert res.max_tpl == pytest.approx(2.0)


@pytest.mark.parametrize("method", ["alg2", "grr"])
def test_calibration_returns_the_largest_feasible_budget(method):
    codes, sizes = toy_codes(7)
    C = _conds(codes, sizes)
    eps_bar, step = 3.0, 0.01
    res = cal.calibrate_budget(C, eps_bar, method=method, step=step)
    n = len(sizes)
    assert eps_bar / n <= res.epsilon <= eps_bar
    assert cal.tpl_profile(C, res.epsilon, method).max() <= eps_bar + 1e-12  # recomputed TPL: feasible
    assert cal.tpl_profile(C, res.epsilon + step, method).max() > eps_bar  # next grid point is not
    # linear scan over the same grid gives the same answer
    grid = eps_bar / n + step * np.arange(0, int((eps_bar - eps_bar / n) / step) + 1)
    feasible = [e for e in grid if cal.tpl_profile(C, e, method).max() <= eps_bar + 1e-12]
    assert res.epsilon == pytest.approx(max(feasible))
    bis = cal.calibrate_budget(C, eps_bar, method=method, step=step, search="bisect")
    assert abs(bis.epsilon - res.epsilon) <= step
    assert cal.tpl_profile(C, bis.epsilon, method).max() <= eps_bar + 1e-12


def test_prepared_alg2_tpl_is_the_pairwise_rule_to_the_bit():
    """TPLFunction sorts each pair of rows once for every ε: the same floats as Algorithm 2 pair by pair."""
    rng = np.random.default_rng(5)
    sizes = [2, 3, 2, 4, 1]  # mixed shapes, and a constant attribute (1 value) that leaks nothing
    codes = np.column_stack([rng.integers(0, k, 4000) for k in sizes])
    codes[:, 1] = np.where(rng.random(4000) < 0.6, codes[:, 0], codes[:, 1])  # some dependence
    C = _conds(codes, sizes)
    prepared = cal.TPLFunction(C)
    rule = tc.cpl_function("alg2")
    for eps in (0.0, 0.01, 0.5, 1.0, 3.7, 20.0):
        expected = cal._tpl(cal._check_conditionals(C), eps, rule)
        assert prepared(eps).tolist() == expected.tolist()
        assert cal.tpl_profile(C, eps).tolist() == expected.tolist()
    for eps_bar in (0.7, 2.0, 5.0):
        a, b = cal.calibrate_budget(prepared, eps_bar), cal.calibrate_budget(C, eps_bar)
        assert (a.epsilon, a.max_tpl) == (b.epsilon, b.max_tpl)
    assert cal.calibrate_budget(cal.TPLFunction(C, "grr"), 2.0) == cal.calibrate_budget(C, 2.0, method="grr")
    with pytest.raises(ValueError, match="prepared for method 'alg2'"):
        cal.calibrate_budget(prepared, 2.0, method="grr")
    with pytest.raises(ValueError, match="epsilon"):
        prepared(-1.0)


def test_algorithm3_as_printed_overshoots():
    codes, sizes = toy_codes(7)
    C = _conds(codes, sizes)
    printed = cal.algorithm3_as_printed(C, 3.0)
    fixed = cal.calibrate_budget(C, 3.0).epsilon
    assert printed > fixed
    assert cal.tpl_profile(C, printed).max() > 3.0


def test_calibration_bad_input():
    with pytest.raises(ValueError, match="n x n"):
        cal.calibrate_budget([[None, np.eye(2)]], 1.0)
    with pytest.raises(ValueError, match="missing"):
        cal.calibrate_budget([[None, None], [np.eye(2), None]], 1.0)
    with pytest.raises(ValueError, match="eps_bar"):
        cal.calibrate_budget([[None, np.eye(2)], [np.eye(2), None]], -1.0)
    with pytest.raises(ValueError, match="row-stochastic"):
        cal.calibrate_budget([[None, [[0.5, 0.4], [0.5, 0.5]]], [np.eye(2), None]], 1.0)
    with pytest.raises(ValueError, match="search"):
        cal.calibrate_budget([[None, np.eye(2)], [np.eye(2), None]], 1.0, search="newton")


# ----------------------------------------------------------------------------- datasets
def test_celeba_stand_in_calibration_targets():
    df = ds.celeba_synth(200_000, rng=0)
    assert list(df.columns) == list(ds.CELEBA_ATTRIBUTES) and len(ds.CELEBA_ATTRIBUTES) == 40
    assert set(ds.CALIBRATION_ATTRIBUTES) <= set(ds.CELEBA_ATTRIBUTES) and len(ds.CALIBRATION_ATTRIBUTES) == 21

    def sat(name):
        P = conditional(pd.crosstab(df["Male"], df[name]).to_numpy())
        return float(np.log(np.max(P.max(0) / P.min(0))))

    assert sat("Wearing_Necklace") == pytest.approx(math.log(0.20 / 0.018), abs=0.15)
    assert sat("No_Beard") > 5
    assert sat("Smiling") < 0.05
    lfw = ds.lfw_synth()
    assert lfw.shape == (13_143, 40)


def test_cvd_and_dss_stand_ins_and_fixture():
    J = ds.CVD_FIXTURE_JOINT
    assert cpl_grr(conditional(J, given="columns"), 1.0) == pytest.approx(0.3381, abs=5e-5)
    cvd = ds.cvd_synth(20_000, rng=1)
    assert list(cvd.columns) == list(ds.CVD_ATTRIBUTES)
    enc = CodedTable.from_frame(cvd)
    assert list(enc.sizes) == [2, 3, 3, 2, 2, 2, 2]
    dss = ds.dss_synth(5000, rng=2)
    assert dss.shape == (5000, 27)
    assert sorted(set(CodedTable.from_frame(dss).sizes)) == [2, 3, 5, 8, 12, 20]


def test_adult_scheme_a_shape():
    frame = pd.DataFrame(
        {
            "age": [20, 30, 70],
            "workclass": ["a", "b", None],
            "fnlwgt": [1, 2, 3],
            "education": ["x", "y", "x"],
            "marital_status": ["m", "m", "n"],
            "occupation": ["o", "p", "o"],
            "relationship": ["r", "r", "s"],
            "race": ["w", "w", "b"],
            "sex": ["F", "M", "M"],
            "capital_gain": [0, 5, 0],
            "capital_loss": [0, 0, 3],
            "hours_per_week": [20, 40, 60],
            "native_country": ["US", "US", "MX"],
            "income": ["<=50K", ">50K", ">50K"],
        }
    )
    out = ds.adult_scheme_a(frame)
    assert list(out.columns) == list(ds.ADULT_SCHEME_A) and len(out) == 2
    assert list(out["age"].astype(str)) == ["<25", "25-34"]
    with pytest.raises(ValueError, match="lacks"):
        ds.adult_scheme_a(frame.drop(columns=["income"]))
    with pytest.raises(ValueError, match="missing values"):
        CodedTable.from_frame(frame)


def test_sample_joint():
    codes = ds.sample_joint(ds.APPK_JOINT, 50_000, rng=3)
    counts = np.bincount(codes[:, 0] * 4 + codes[:, 1], minlength=16).reshape(4, 4) / 50_000
    assert np.all(np.abs(counts - ds.APPK_JOINT) < 5 * np.sqrt(ds.APPK_JOINT * (1 - ds.APPK_JOINT) / 50_000) + 1e-12)
    with pytest.raises(ValueError, match="summing to 1"):
        ds.sample_joint([[0.5, 0.6]], 10)


# ----------------------------------------------------------------------------- claims implied by theory
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("eps", [1.0, 3.0, 5.0])
def test_fig6_placements_implied_by_theory(seed, eps):
    """The Fig. 6 claims the notebook checks on data hold for every joint (they follow from theory).

    SPL-ANL (l = ε) is never below Alg. 2 (≤ ε), so it is in R2 (P1 only if every pair leaks ε);
    EXP-ANL is Alg. 1 for an ε/2-LDP channel, never above the Alg. 2 bound at ε, so it is in R1;
    ITS = GRR-ANL is the same formula, and against GRR's Algorithm 1 it is at P1.
    """
    rng = np.random.default_rng(seed)
    sizes = list(rng.integers(2, 6, 3))
    latent = rng.integers(0, 3, 4000)
    codes = np.stack(
        [np.where(rng.random(4000) < rng.uniform(0.2, 0.9), latent % s, rng.integers(0, s, 4000)) for s in sizes],
        axis=1,
    )
    tables = tc.pair_tables(codes, sizes)
    L2, Lg, Le = (tc.cpl_matrix(tables, 3, m, eps) for m in ("alg2", "grr", "exp"))
    assert bm.region(*bm.under_over(L2, bm.spl_anl(3, eps), eps)) == "R2"
    assert bm.region(*bm.under_over(L2, Le, eps)) == "R1"
    assert bm.region(*bm.under_over(Lg, Lg, eps)) == "P1"
    assert np.nanmax(Le - L2) <= 1e-12 and np.nanmax(L2) <= eps + 1e-12


@pytest.mark.parametrize("eps_bar", [1.0, 5.0, 12.0])
def test_fig8b_calibrated_budget_never_worse_than_spl(eps_bar):
    """Fig. 8(b) follows from theory: the calibrated budget is >= ε̄/n (SPL is feasible), and GRR's
    expected 0-1 error ``(1 - p) = (k-1)/(e^ε + k - 1)`` strictly decreases in ε."""
    codes, sizes = toy_codes(11)
    C = _conds(codes, sizes)
    res = cal.calibrate_budget(C, eps_bar, step=0.01)
    spl = eps_bar / len(sizes)
    assert res.epsilon >= spl - 1e-12

    def err(e, k=2):
        return (k - 1) / (math.exp(e) + k - 1)

    assert err(res.epsilon) <= err(spl)
    assert res.epsilon > spl + 0.01 and err(res.epsilon) < err(spl)  # strict once correlation is not perfect
