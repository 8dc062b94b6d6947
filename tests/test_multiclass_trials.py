"""Trial functions of the multi-class experiments (shapes, agreement with the closed forms)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.multiclass import trials
from ldp.multiclass.datasets import diabetes_standin, diabetes_standin_frame, prepare_diabetes, syn_classes_table
from ldp.sweep import sweep


def test_variance_trial_rows():
    rows = trials.variance_trial(np.array([[50, 10], [5, 30]]), 1.0, rng=0)
    assert len(rows) == 4 and {r["method"] for r in rows} == {"PTS", "PTS-CP"}


def test_rmse_trial_matches_analytic():
    tables = {"a": np.array([[400, 100, 20], [30, 60, 90]]), "b": np.array([[200, 5], [10, 300]])}
    for method in trials.FREQUENCY_METHODS:
        df = sweep(
            lambda rng, m=method: {"sq": trials.rmse_trial(tables, m, 1.0, rng)["rmse"] ** 2},
            {},
            trials=800,
            seed=1,
            progress=False,
        )
        expected = trials.analytic_rmse(tables, method, 1.0) ** 2
        assert abs(df.sq.mean() - expected) <= 5 * df.sq.std(ddof=1) / np.sqrt(len(df)), method
    assert trials.analytic_rmse(tables, "HEC", 1.0, as_published=True) > 5 * trials.analytic_rmse(tables, "HEC", 1.0)
    with pytest.raises(ValueError, match="method must be one of"):
        trials.make_framework("PEM", 1.0, 2, 3)


def test_hec_readings_match_a_simulation_of_the_random_item_hec():
    from ldp.multiclass.frameworks import HEC

    table = np.array([[400, 100, 20], [30, 60, 90]])
    gen = np.random.default_rng(7)
    runs = np.array([((HEC(1.0, 2, 3, invalid="random").run(table, gen) - table) ** 2).mean() for _ in range(1500)])
    biased = trials.analytic_rmse({"a": table}, "HEC", 1.0, hec_invalid="random-biased") ** 2
    assert abs(runs.mean() - biased) <= 5 * runs.std(ddof=1) / np.sqrt(runs.size)
    unbiased = trials.analytic_rmse({"a": table}, "HEC", 1.0, hec_invalid="random") ** 2
    assert unbiased < biased  # the bias (N - n_C)/d is not zero here
    with pytest.raises(ValueError, match="hec_invalid must be one of"):
        trials.analytic_rmse({"a": table}, "HEC", 1.0, hec_invalid="uniform")


def test_topk_trial_and_data():
    data = trials.TopKData(syn_classes_table(2, d=200, total=2e4, rng=0))
    out = trials.topk_trial(data, "PTS-opt", 4.0, 5, rng=1)
    assert set(out) == {"f1", "ncr", "f1_class0", "f1_class1"} and 0 <= out["f1"] <= 1
    assert data.truth(5).shape == (2, 5) and data.c == 2 and data.d == 200


def test_diabetes_standin_frame_roundtrip():
    labels, feats = diabetes_standin()
    lab2, feats2 = prepare_diabetes(diabetes_standin_frame())
    assert np.array_equal(labels, lab2)
    assert all(np.array_equal(np.unique(feats[k], return_inverse=True)[1], feats2[k]) for k in feats)


def test_budget_split_trial_runs_pts_opt_without_global_stage_with_the_split():
    from ldp.multiclass.topk import pts_optimised_topk, score_topk

    data = trials.TopKData(syn_classes_table(3, shared=False, d=300, total=3e4, rng=0))
    out = trials.budget_split_trial(data, 0.3, 4.0, 5, rng=11)
    res = pts_optimised_topk(
        data.table,
        5,
        4.0,
        np.random.default_rng(11),
        use_global=False,
        b=None,
        epsilon1=1.2,
        epsilon2=2.8,
    )
    assert res.info["IT_f"] == 0 and res.info["cp_used"].all()
    assert out["f1"] == score_topk(res.items, data.truth(5))["f1"]
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="proportion"):
            trials.budget_split_trial(data, bad, 4.0, 5, rng=0)
    with pytest.raises(TypeError, match="proportion"):
        trials.budget_split_trial(data, "0.5", 4.0, 5, rng=0)


def test_budget_split_extremes_lose_to_an_even_split():
    """Spending almost nothing on the items must hurt (a sanity check that the split reaches the miner; with
    CP the other extreme hurts far less, so it is not asserted)."""
    data = trials.TopKData(syn_classes_table(5, shared=False, d=400, total=2e5, rng=1))
    f1 = {p: np.mean([trials.budget_split_trial(data, p, 4.0, 10, rng=s)["f1"] for s in range(4)]) for p in (0.5, 0.97)}
    assert f1[0.5] > f1[0.97] + 0.1


def test_topk_parameter_trial():
    from ldp.multiclass.topk import pts_optimised_topk, score_topk

    data = trials.TopKData(syn_classes_table(2, d=300, total=3e4, rng=0))
    for parameter, value, opts in (("a", 0.35, {"a": 0.35, "b": 2.0}), ("b", 3.5, {"a": 0.2, "b": 3.5})):
        out = trials.topk_parameter_trial(data, parameter, value, 4.0, 5, rng=3)
        res = pts_optimised_topk(data.table, 5, 4.0, np.random.default_rng(3), **opts)
        assert out["f1"] == score_topk(res.items, data.truth(5))["f1"]
    with pytest.raises(ValueError, match="parameter"):
        trials.topk_parameter_trial(data, "c", 0.5)
    with pytest.raises(ValueError, match="a must lie"):
        trials.topk_parameter_trial(data, "a", 1.2)
    with pytest.raises(ValueError, match="b must be"):
        trials.topk_parameter_trial(data, "b", 0.0)


def test_topk_data_pickles_with_its_table_and_cached_truth():
    import pickle

    from ldp.multiclass import datasets as D

    data = trials.TopKData(D.syn_classes_table(10, shared=True, d=200, total=2e4))
    data.truth(5)
    back = pickle.loads(pickle.dumps(data))
    assert np.array_equal(back.table, data.table) and np.array_equal(back.truth(5), data.truth(5))


def test_dataset_adapters_look_up_by_name():
    from functools import partial

    tables = {"t": np.array([[50, 10], [5, 30]])}
    assert trials.variance_on(tables, "t", 1.0, rng=0) == trials.variance_trial(tables["t"], 1.0, rng=0)
    feats = {"x": {"f": np.array([[40, 10], [5, 30]])}}
    assert trials.rmse_on(feats, "x", "PTS", 1.0, rng=3) == trials.rmse_trial(feats["x"], "PTS", 1.0, rng=3)
    data = {"d": trials.TopKData(syn_classes_table(2, d=200, total=2e4, rng=0))}
    assert trials.topk_on(data, "d", "PTS", 4.0, rng=1, k=5) == trials.topk_trial(data["d"], "PTS", 4.0, 5, rng=1)
    syn = {("SYN4", 2): data["d"]}
    assert trials.syn_topk_on(syn, "SYN4", 2, "PTS-opt", rng=1, k=5) == trials.topk_trial(
        data["d"], "PTS-opt", 4.0, 5, rng=1, use_global=False, b=None
    )
    # the paper's text reading: PTS-opt with its global stage and b-test, as on every other data set
    assert trials.syn_topk_on(syn, "SYN4", 2, "PTS-opt", rng=1, k=5, syn4_reading="paper") == trials.topk_trial(
        data["d"], "PTS-opt", 4.0, 5, rng=1
    )
    with pytest.raises(ValueError, match="syn4_reading"):
        trials.syn_topk_on(syn, "SYN4", 2, "PTS-opt", rng=1, k=5, syn4_reading="text")
    assert trials.budget_split_on({2: data["d"]}, 2, 0.5, rng=2, k=5) == trials.budget_split_trial(
        data["d"], 0.5, 4.0, 5, rng=2
    )
    assert trials.parameter_on(data, "d", "b", 3.0, rng=2, k=5) == trials.topk_parameter_trial(
        data["d"], "b", 3.0, 4.0, 5, rng=2
    )
    # a partial of an adapter is a sweep function whose grid names the remaining arguments
    df = sweep(
        partial(trials.topk_on, data, "d", k=5), {"method": ["PTS"], "epsilon": [4.0]}, trials=2, seed=0, progress=False
    )
    assert len(df) == 2 and df.f1.between(0, 1).all()
    with pytest.raises(ValueError, match="no dataset 'e'"):
        trials.topk_on(data, "e", "PTS", 4.0)
    with pytest.raises(TypeError, match="mapping"):
        trials.rmse_on([1], "x", "PTS", 1.0)


def test_hec_script_trial_scores_the_scripted_miner():
    data = {("SYN3", 2): trials.TopKData(syn_classes_table(2, d=256, total=2e4, rng=0))}
    out = trials.hec_script_topk_on(data, "SYN3", 2, rng=4, k=5)
    assert set(out) == {"f1", "ncr"} and 0 <= out["f1"] <= 1 and 0 <= out["ncr"] <= 1
    assert out == trials.hec_script_topk_on(data, "SYN3", 2, rng=4, k=5)  # same seed, same result
