"""Experiment drivers of the CPL notebook, run at toy size (shapes, conventions, limits)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldp.cpl import attacks as at
from ldp.cpl import calibration as cal
from ldp.cpl import datasets as ds
from ldp.cpl import statistical as st
from ldp.cpl import tcpl as tc
from ldp.cpl import trials as tr
from ldp.oracles import GRR
from ldp.tables import CodedTable


@pytest.fixture(scope="module")
def toy():
    enc = CodedTable.from_frame(ds.cvd_synth(3000, rng=4))
    return enc


def test_table_iii_driver():
    df = tr.table_iii(5000, 5, [1.0], rng=1)
    row = df.iloc[0]
    assert row.theory_fwd == 1.0 and abs(row.stat_fwd - 1.0) < 0.1 and abs(row.stat_rev - row.sample_rev) < 0.1


def test_channel_factory_and_fast_matrix(toy):
    f = at.channel_factory("OUE", 1.0)
    assert f(3) is f(3) and f(1).shape == (1, 1)
    tabs = tc.pair_tables(toy.codes, toy.sizes)
    L = st.statistical_cpl_matrix_fast(tabs, len(toy.names), f, 50, rng=2)
    assert np.all(np.isnan(np.diag(L))) and np.all(tc.off_diagonal(L) >= 0)
    limit = tc.cpl_matrix(tabs, len(toy.names), "limit:OUE", 1.0)
    # with r = 50 the estimate sits near its large-sample limit (upward bias only at tiny values)
    assert np.nanmax(np.abs(L - limit)) < 0.1


def test_cpl_matrices_and_benchmark_points(toy):
    M = tr.cpl_matrices(toy.codes, toy.sizes, 1.0, mechanisms=("GRR", "OUE"), r=50, rng=3)
    assert set(M) == {"alg2", "grr", "exp", "stat:GRR", "stat:OUE"}
    pts = tr.benchmark_points(M["alg2"], {"ITS": M["grr"], "EXP-ANL": M["exp"]}, 1.0)
    assert set(pts.region) <= {"P1", "R1"} and list(pts.method) == ["ITS", "EXP-ANL"]
    dep = tr.pairwise_dependence(toy.codes, toy.sizes)
    assert np.allclose(dep["nmi"], dep["nmi"].T, equal_nan=True)


def test_neighbour_cpl_and_utility_trial(toy):
    df = tr.neighbour_cpl(toy.codes, toy.sizes, 6, [1, 2], ["GRR", "EXP"], 1.0, 5, rng=4)
    assert len(df) == 4 and (df.statistical >= 0).all() and (df.limit >= 0).all()
    res = tr.utility_trial("OLH", 1.0, 5, codes=toy.codes, sizes=toy.sizes)
    assert res["freq_nmse"] > 0 and 0 < res["zero_one"] < 1


def test_calibration_curve(toy):
    C = cal.conditionals_from_tables(tc.pair_tables(toy.codes, toy.sizes), len(toy.names))
    df = tr.calibration_curve(C, C, [2.0, 4.0])
    assert (df.calibrated >= df.spl).all() and (df.calibrated_public == df.calibrated).all()
    assert (df.max_tpl <= df.eps_bar + 1e-12).all()


# ----------------------------------------------------------------------------- helpers moved out of the notebooks
def test_empirical_cpl_se_matches_the_spread_of_repeated_estimates():
    """The delta-method s.e. predicts the run-to-run spread of the stage-3 estimate (within its own noise)."""
    joint = np.array([[300, 100, 100], [100, 250, 150]])
    K = at.two_level_channel(at.attack_accuracy(at.make_oracle("GRR", 1.0, 3)), 3)
    gen = np.random.default_rng(5)
    runs = [st.simulate_pair_table(joint, K, 20, gen) for _ in range(300)]
    est = np.array([st.cpl_from_counts(t) for t in runs])
    se = np.mean([tr.empirical_cpl_se(t) for t in runs])
    # the sample sd of 300 draws has relative s.e. about 1/sqrt(2*299) ~ 4%; allow 5 of those plus max-bias slack
    assert abs(est.std(ddof=1) / se - 1) < 0.3
    with pytest.raises(ValueError, match="counts"):
        tr.empirical_cpl_se([[1, -1], [2, 3]])
    with pytest.raises(ValueError, match="two rows"):
        tr.empirical_cpl_se([[0, 0], [2, 3]])


def test_table_iii_standard_errors_cover_the_spread_of_runs():
    se = tr.table_iii_standard_errors(4000, 5, [1.0], n_boot=200, rng=2)
    runs = [tr.table_iii(4000, 5, [1.0], rng=s).iloc[0] for s in range(40)]
    for key in ("fwd", "rev"):
        sd = np.std([r[f"stat_{key}"] for r in runs], ddof=1)
        assert 0.6 < sd / se[f"se_{key}"].item() < 1.6, key  # 40 runs: sd known to about ±11% (1 s.e.)
    with pytest.raises(ValueError):
        tr.table_iii_standard_errors(4000, 5, [1.0], n_boot=1)


def test_fig4b_sweep_columns_and_bounds():
    frame = ds.celeba_synth(4000, rng=0)
    enc = CodedTable.from_frame(frame, ["Male", "No_Beard", "Wearing_Necklace", "Smiling"])
    out = tr.fig4b_sweep(enc.codes, enc.sizes, 0, {"Beard": 1, "Necklace": 2, "Smiling": 3}, [1.0, 4.0], 10, rng=3)
    assert list(out.epsilon) == [1.0, 4.0]
    for label in ("Beard", "Necklace", "Smiling"):
        assert (out[f"theory {label}"] <= out.epsilon + 1e-12).all() and (out[f"se {label}"] > 0).all()
    # the composition bound is ε plus the three statistical CPLs, and the exact TPL is at most ε + Σ Alg. 1
    assert np.allclose(out["L bound"], out.epsilon + out[["stat Beard", "stat Necklace", "stat Smiling"]].sum(axis=1))
    assert (
        out["L exact"] <= out.epsilon + out[["theory Beard", "theory Necklace", "theory Smiling"]].sum(axis=1) + 1e-9
    ).all()


def test_binned_mean_sd():
    b = tr.binned_mean_sd([0.05, 0.15, 0.12, 0.95, 1.0], [1.0, 2.0, 3.0, 4.0, 6.0], np.linspace(0, 1, 11))
    assert list(b["count"]) == [1, 2, 2] and list(b["mean"]) == [1.0, 2.5, 5.0] and list(b.spread) == [0.0, 1.0, 2.0]
    assert np.allclose(b.centre, [0.05, 0.15, 0.95])
    with pytest.raises(ValueError):
        tr.binned_mean_sd([0.1], [1.0, 2.0], [0, 1])
    with pytest.raises(ValueError):
        tr.binned_mean_sd([0.1], [1.0], [1, 0])


def test_grr_zero_one_matches_its_expectation():
    codes = np.random.default_rng(0).integers(0, 2, size=(20000, 3))
    e = 1.0
    expected = 1 / (1 + np.exp(e))  # binary GRR flips with this probability
    got = tr.grr_zero_one(codes, e, rng=1)
    assert abs(got - expected) < 5 * np.sqrt(expected * (1 - expected) / codes.size)
    # the law of the per-record perturbation: mean and variance over repeated draws
    gen = np.random.default_rng(2)
    draws = np.array([tr.grr_zero_one(codes, e, rng=gen) for _ in range(4000)])
    var = expected * (1 - expected) / codes.size
    assert abs(draws.mean() - expected) < 5 * np.sqrt(var / draws.size)
    assert abs(draws.var(ddof=1) / var - 1) < 5 * np.sqrt(2 / (draws.size - 1))
    grr = GRR(e, 2)
    per_record = [
        tc.zero_one_error(np.column_stack([grr.perturb(c, gen) for c in codes[:500].T]), codes[:500])
        for _ in range(400)
    ]
    count_level = [tr.grr_zero_one(codes[:500], e, rng=gen) for _ in range(400)]
    assert stats.ks_2samp(per_record, count_level).pvalue > 1e-3
    with pytest.raises(ValueError, match="binary"):
        tr.grr_zero_one(codes + 1, e)
    with pytest.raises(ValueError, match="2-D"):
        tr.grr_zero_one(codes[:, 0], e)


def test_cross_paper_helpers_on_adult():
    from ldp.data import load

    adult = CodedTable.from_frame(ds.adult_scheme_a(load("adult")))
    sex, rel, inc = (adult.names.index(c) for c in ("sex", "relationship", "income"))
    khr = tr.cross_paper_khr(adult.codes, adult.sizes, secret=sex, label=inc, attribute=rel)
    assert np.allclose(khr.label_leakage, 1.0)  # kHR's label leakage is its CLLDP budget
    assert (khr.cpl_secret <= khr.bound_ldp_level + 1e-9).all()  # Alg. 1 never exceeds Alg. 2 at the report's level
    bloom = tr.cross_paper_bloom(adult.codes, adult.sizes, secret=sex, reported=rel)
    assert (bloom.cpl_secret <= bloom.bound_eps + 1e-9).all() and (bloom.ldp_level <= 1.0 + 1e-9).all()


def test_conditionals_from_frame_matches_tables():
    frame = ds.celeba_synth(2000, rng=1)
    cols = ["Male", "Smiling", "No_Beard"]
    C = cal.conditionals_from_frame(frame, cols)
    enc = CodedTable.from_frame(frame, cols)
    ref = cal.conditionals_from_tables(tc.pair_tables(enc.codes, enc.sizes), 3)
    assert C[0][0] is None and all(np.allclose(C[i][j], ref[i][j]) for i in range(3) for j in range(3) if i != j)


def test_paper_values_carry_their_provenance():
    from ldp.claims import Source
    from ldp.cpl import paper

    assert all(isinstance(s, Source) and not s.read_off for s in paper.SOURCES.values())
    assert all(p > 0 for p in paper.PRECISION.values())
    # Table III values are printed to four decimals: half a unit of the last digit
    assert paper.PRECISION["TABLE_III"] == 5e-5 and paper.TABLE_I_BOUND == 5.5e-3


def test_nmse_standard_error_predicts_the_spread_of_runs():
    """The delta-method s.e. of NMSE-CPL (from cpl_se_matrix) matches the run-to-run sd of the estimate."""
    e = CodedTable.from_frame(ds.cvd_synth(5000, rng=1))
    tabs = tc.pair_tables(e.codes, e.sizes)
    ref = tr.cpl_matrices(e.codes, e.sizes, 1.0, mechanisms=(), r=10, rng=0, min_count=50, references=("alg2",))["alg2"]
    runs = [
        tr.cpl_matrices(e.codes, e.sizes, 1.0, mechanisms=("OUE",), r=10, rng=s, min_count=50, references=())[
            "stat:OUE"
        ]
        for s in range(30)
    ]
    se = tr.cpl_se_matrix(tabs, len(e.names), at.channel_factory("OUE", 1.0), 10, min_count=50)
    predicted = np.mean([tr.nmse_standard_error(L, ref, se) for L in runs])
    sd = np.std([st.nmse_cpl(L, ref) for L in runs], ddof=1)
    assert 0.6 < sd / predicted < 1.6  # 30 runs: the sample sd is known to about ±13 % (1 s.e.)
    with pytest.raises(ValueError):
        tr.nmse_standard_error(runs[0], np.zeros_like(ref), se)


def test_batched_matrix_matches_the_per_pair_draw_in_distribution(toy):
    """statistical_cpl_matrix_fast draws all pairs of one shape at once; its mean equals the per-pair path's."""
    f = at.channel_factory("OUE", 1.0)
    tabs = tc.pair_tables(toy.codes, toy.sizes)
    n, runs = len(toy.names), 40
    batched = np.array([st.statistical_cpl_matrix_fast(tabs, n, f, 5, rng=s) for s in range(runs)])
    gen = np.random.default_rng(123)
    looped = np.array(
        [
            [
                [
                    st.statistical_cpl_fast(tabs[k, j], f(tabs[k, j].shape[1]), 5, gen) if k != j else np.nan
                    for j in range(n)
                ]
                for k in range(n)
            ]
            for _ in range(runs)
        ]
    )
    diff = tc.off_diagonal(batched.mean(0) - looped.mean(0))
    se = tc.off_diagonal(np.sqrt((batched.var(0, ddof=1) + looped.var(0, ddof=1)) / runs))
    assert np.all(np.abs(diff) <= 5 * se + 1e-12)


def test_replicates_and_summaries():
    reps = tr.table_iii_replicates(2000, 5, [1.0], trials=5, rng=1)
    assert len(reps) == 5 and set(reps.columns) >= {"stat_fwd", "stat_rev", "sample_rev"}
    sd = tr.table_iii_standard_errors(2000, 5, [1.0], n_boot=5, rng=1)
    assert np.isclose(sd.se_fwd.iloc[0], reps.stat_fwd.std(ddof=1))
    mean, se = tr.replicate_summary([[1.0, 2.0], [3.0, 4.0]])
    assert np.allclose(mean, [2, 3]) and np.allclose(se, [1, 1])
    with pytest.raises(ValueError):
        tr.replicate_summary([1.0])


def test_runs_of_tables(toy):
    tabs = tc.pair_tables(toy.codes, toy.sizes)
    refs, runs = tr.table_runs(tabs, len(toy.names), 1.0, mechanisms=("GRR",), r=5, trials=3, rng=1)
    assert set(refs) == {"alg2", "grr", "exp"} and runs["GRR"].shape == (3, len(toy.names), len(toy.names))
    assert tr.nmse_runs(runs["GRR"], refs["grr"]).shape == (3,)


def test_cvd_attribute_sets_swap_one_unnamed_attribute():
    cols = ["a", "b", "c", "x", "y"]
    sets = tr.cvd_attribute_sets(cols, ["a"], ["a", "b", "c"], ["x", "y"])
    assert sets["the seven categorical attributes"] == ["a", "b", "c"]
    assert sets["x instead of b"] == ["a", "x", "c"] and len(sets) == 1 + 2 * 2
    with pytest.raises(ValueError):
        tr.cvd_attribute_sets(cols, ["a"], ["a", "z"], ["x"])
