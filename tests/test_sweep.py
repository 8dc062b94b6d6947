"""Tests for ldp.sweep: identical sweeps on serial, joblib and Dask; seeding; tidy output; validation."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp.sweep import summarise, sweep, trial_rng
from ldp.oracles import GRR

GRID = {"epsilon": [0.5, 2.0], "d": [4, 8]}


def grr_trial(epsilon, d, rng):
    """A realistic small trial: GRR count-level simulation and its squared error."""
    oracle = GRR(epsilon, d)
    true = np.full(d, 50)
    est = oracle.estimate_from_support(oracle.simulate_counts(true, rng), int(true.sum()))
    return {"mse": float(np.mean((est - 1 / d) ** 2)), "draw": float(rng.random())}


def two_rows(a, rng):
    x = rng.normal()
    return [{"method": "first", "value": a + x}, {"method": "second", "value": a - x, "extra": 1}]


def test_serial_output_is_tidy_and_deterministic():
    df = sweep(grr_trial, GRID, trials=3, seed=7, progress=False)
    assert list(df.columns) == ["epsilon", "d", "trial", "mse", "draw"]
    assert len(df) == 2 * 2 * 3
    assert list(df["trial"]) == [0, 1, 2] * 4
    assert list(df["epsilon"]) == [0.5] * 6 + [2.0] * 6
    assert list(df["d"][:6]) == [4, 4, 4, 8, 8, 8]
    pd.testing.assert_frame_equal(df, sweep(grr_trial, GRID, trials=3, seed=7, progress=False))
    other = sweep(grr_trial, GRID, trials=3, seed=8, progress=False)
    assert not np.allclose(df["draw"], other["draw"])


def test_every_task_has_its_own_stream_from_spawn():
    df = sweep(grr_trial, {"epsilon": [1.0], "d": [4]}, trials=2, seed=3, progress=False)
    draws = df["draw"].to_numpy()
    assert draws[0] != draws[1]
    # trial_rng is the (point, trial) grandchild of SeedSequence(seed).spawn
    child = np.random.SeedSequence(3).spawn(5)[2].spawn(4)[1]
    assert trial_rng(3, 2, 1).random() == np.random.default_rng(child).random()
    # adding trials leaves the earlier trials unchanged
    more = sweep(grr_trial, {"epsilon": [1.0], "d": [4]}, trials=4, seed=3, progress=False)
    pd.testing.assert_frame_equal(more.iloc[:2], df)


def test_list_results_give_several_rows_and_union_of_columns():
    df = sweep(two_rows, {"a": [1.0, 2.0]}, trials=2, seed=0, progress=False)
    assert list(df.columns) == ["a", "trial", "method", "value", "extra"]
    assert list(df["method"]) == ["first", "second"] * 4
    assert np.isnan(df["extra"].iloc[0]) and df["extra"].iloc[1] == 1
    first, second = df["value"].iloc[0], df["value"].iloc[1]
    assert first + second == pytest.approx(2.0)


def test_empty_grid_is_one_point():
    df = sweep(lambda rng: {"x": rng.random()}, {}, trials=3, seed=1, progress=False)
    assert list(df.columns) == ["trial", "x"] and len(df) == 3


def test_joblib_matches_serial():
    serial = sweep(grr_trial, GRID, trials=3, seed=11, progress=False)
    par = sweep(grr_trial, GRID, trials=3, seed=11, backend="joblib", n_jobs=2, progress=True, desc="joblib")
    pd.testing.assert_frame_equal(serial, par)


def test_dask_threads_and_processes_match_serial():
    distributed = pytest.importorskip("distributed")
    serial = sweep(grr_trial, GRID, trials=3, seed=5, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        threads = sweep(grr_trial, GRID, trials=3, seed=5, backend="dask", client=client)
        # the default client is used when none is passed
        default = sweep(grr_trial, GRID, trials=3, seed=5, backend="dask", progress=False)
        # a scheduler address opens (and closes) its own client
        by_address = sweep(grr_trial, GRID, trials=3, seed=5, backend="dask",
                           scheduler_address=cluster.scheduler_address, progress=False)
    pd.testing.assert_frame_equal(serial, threads)
    pd.testing.assert_frame_equal(serial, default)
    pd.testing.assert_frame_equal(serial, by_address)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        procs = sweep(grr_trial, GRID, trials=3, seed=5, backend="dask", client=client, progress=False)
        different = sweep(grr_trial, GRID, trials=3, seed=6, backend="dask", client=client, progress=False)
    pd.testing.assert_frame_equal(serial, procs)
    assert not np.allclose(procs["draw"], different["draw"])


def test_errors_in_func_propagate():
    def broken(a, rng):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        sweep(broken, {"a": [1]}, trials=1, seed=0, progress=False)
    with pytest.raises(TypeError, match="dict"):
        sweep(lambda a, rng: 3.0, {"a": [1]}, trials=1, seed=0, progress=False)
    with pytest.raises(ValueError, match="clashes"):
        sweep(lambda a, rng: {"a": 1}, {"a": [1]}, trials=1, seed=0, progress=False)
    with pytest.raises(ValueError, match="clashes"):
        sweep(lambda a, rng: {"trial": 1}, {"a": [1]}, trials=1, seed=0, progress=False)


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(grid={"a": []}), ValueError, "empty"),
    (dict(grid={"a": 3}), TypeError, "list"),
    (dict(grid={"a": "abc"}), TypeError, "list"),
    (dict(grid=[("a", [1])]), TypeError, "dict"),
    (dict(grid={"trial": [1]}), ValueError, "reserved"),
    (dict(grid={"not valid": [1]}), ValueError, "names"),
    (dict(trials=0), ValueError, "trials"),
    (dict(trials=1.5), TypeError, "trials"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(backend="spark"), ValueError, "backend"),
    (dict(n_jobs=0), ValueError, "n_jobs"),
    (dict(client=object()), ValueError, "dask"),
    (dict(backend="dask", client=object()), TypeError, "Client"),
    (dict(backend="dask", client=None, scheduler_address=3), TypeError, "scheduler_address"),
])
def test_validation(kwargs, exc, match):
    args = dict(grid={"a": [1]}, trials=1, seed=0, progress=False)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        sweep(lambda a, rng: {"x": a}, **args)


def test_dask_without_client_is_a_clear_error():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="client"):
        sweep(lambda a, rng: {"x": a}, {"a": [1]}, trials=1, seed=0, backend="dask", progress=False)


def test_summarise():
    df = sweep(grr_trial, GRID, trials=4, seed=2, progress=False)
    s = summarise(df, by=["epsilon", "d"], values=["mse"])
    assert list(s.columns) == ["epsilon", "d", "n", "mse_mean", "mse_std", "mse_se"]
    assert list(s["n"]) == [4] * 4
    sub = df[(df.epsilon == 0.5) & (df.d == 4)]["mse"]
    assert s["mse_mean"].iloc[0] == pytest.approx(sub.mean())
    assert s["mse_se"].iloc[0] == pytest.approx(sub.std(ddof=1) / 2)
    whole = summarise(df, by=[], values=["mse", "draw"])
    assert len(whole) == 1 and whole["n"].iloc[0] == 16
    with pytest.raises(ValueError, match="not in frame"):
        summarise(df, by=["nope"], values=["mse"])
