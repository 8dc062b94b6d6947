"""Tests for ldp.sweep: identical sweeps on serial, joblib and Dask; seeding; tidy output; validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp import profiles
from ldp.oracles import GRR
from ldp.sweep import backend_settings, summarise, sweep, trial_rng

GRID = {"epsilon": [0.5, 2.0], "d": [4, 8]}
ENV_VARS = ("LDP_BACKEND", "LDP_JOBS", "LDP_SCHEDULER")


@pytest.fixture(autouse=True)
def clean_backend_env(monkeypatch):
    """Every test starts with no back-end variable set and no active profile recorded."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(profiles, "_current", None)


def grr_trial(epsilon, d, rng):
    """A realistic small trial: GRR count-level simulation and its squared error."""
    oracle = GRR(epsilon, d)
    true = np.full(d, 50)
    est = oracle.estimate_counts(oracle.simulate_counts(true, rng), int(true.sum()))
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
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        threads = sweep(grr_trial, GRID, trials=3, seed=5, backend="dask", client=client)
        # the default client is used when none is passed
        default = sweep(grr_trial, GRID, trials=3, seed=5, backend="dask", progress=False)
        # a scheduler address opens (and closes) its own client
        by_address = sweep(
            grr_trial,
            GRID,
            trials=3,
            seed=5,
            backend="dask",
            scheduler_address=cluster.scheduler_address,
            progress=False,
        )
    pd.testing.assert_frame_equal(serial, threads)
    pd.testing.assert_frame_equal(serial, default)
    pd.testing.assert_frame_equal(serial, by_address)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
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


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
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
    ],
)
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


def test_default_backend_follows_the_active_profile(monkeypatch):
    assert backend_settings() == {"backend": "serial", "n_jobs": -1, "scheduler_address": None}
    for profile, expected in (("smoke", "serial"), ("book", "serial"), ("paper", "joblib")):
        monkeypatch.delenv("LDP_PROFILE", raising=False)
        profiles.active_profile(profile)
        assert profiles.current_profile() == profile
        assert backend_settings()["backend"] == expected
    monkeypatch.setenv("LDP_BACKEND", "serial")
    assert backend_settings()["backend"] == "serial"  # the setting wins over the profile


def test_environment_chooses_the_backend_and_results_do_not_change(monkeypatch):
    serial = sweep(grr_trial, GRID, trials=3, seed=13, backend="serial", progress=False)
    monkeypatch.setenv("LDP_BACKEND", "joblib")
    monkeypatch.setenv("LDP_JOBS", "2")
    assert backend_settings() == {"backend": "joblib", "n_jobs": 2, "scheduler_address": None}
    pd.testing.assert_frame_equal(serial, sweep(grr_trial, GRID, trials=3, seed=13, progress=False))
    monkeypatch.setattr(profiles, "_current", "paper")  # paper default: every local core
    monkeypatch.delenv("LDP_BACKEND")
    monkeypatch.delenv("LDP_JOBS")
    assert backend_settings() == {"backend": "joblib", "n_jobs": -1, "scheduler_address": None}
    pd.testing.assert_frame_equal(serial, sweep(grr_trial, GRID, trials=3, seed=13, progress=False))


def test_environment_scheduler_runs_on_a_dask_cluster(monkeypatch):
    distributed = pytest.importorskip("distributed")
    serial = sweep(grr_trial, GRID, trials=3, seed=17, backend="serial", progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        monkeypatch.setenv("LDP_SCHEDULER", cluster.scheduler_address)
        assert backend_settings()["backend"] == "dask"  # the address alone implies Dask
        monkeypatch.setenv("LDP_BACKEND", "dask")
        on_cluster = sweep(grr_trial, GRID, trials=3, seed=17, progress=False)
    pd.testing.assert_frame_equal(serial, on_cluster)


@pytest.mark.parametrize(
    "env,match",
    [
        ({"LDP_BACKEND": "spark"}, "LDP_BACKEND"),
        ({"LDP_BACKEND": "Joblib"}, "LDP_BACKEND"),
        ({"LDP_JOBS": "0"}, "LDP_JOBS"),
        ({"LDP_JOBS": "two"}, "LDP_JOBS"),
        ({"LDP_JOBS": "-2"}, "LDP_JOBS"),
        ({"LDP_SCHEDULER": "localhost"}, "LDP_SCHEDULER"),
        ({"LDP_SCHEDULER": "tcp://h:8786", "LDP_BACKEND": "joblib"}, "LDP_SCHEDULER"),
    ],
)
def test_bad_environment_is_a_clear_error(monkeypatch, env, match):
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    with pytest.raises(ValueError, match=match):
        sweep(lambda a, rng: {"x": a}, {"a": [1]}, trials=1, seed=0, progress=False)


def test_progress_bar_goes_to_stderr_and_can_be_switched_off(monkeypatch, capsys):
    sweep(grr_trial, GRID, trials=2, seed=1, desc="shown")
    assert "shown" in capsys.readouterr().err
    monkeypatch.setenv("LDP_PROGRESS", "0")
    sweep(grr_trial, GRID, trials=2, seed=1, desc="hidden")
    captured = capsys.readouterr()
    assert "hidden" not in captured.err and "hidden" not in captured.out


def test_chunks_cover_every_task_once():
    from ldp.sweep import _chunks

    tasks = [(p, t) for p in range(5) for t in range(7)]
    for workers in (1, 2, 3, 16):
        chunks = _chunks(tasks, workers)
        assert len(chunks) == min(len(tasks), 4 * workers)
        assert sorted(x for c in chunks for x in c) == tasks
    assert _chunks([], 2) == [[]]


def test_closures_run_on_joblib_workers():
    # notebooks pass lambdas and local functions over their data; loky ships them by value
    data = np.arange(10.0)
    trial = lambda a, rng: {"x": float(data[a] + rng.random())}  # noqa: E731
    pd.testing.assert_frame_equal(
        sweep(trial, {"a": [1, 3, 5]}, trials=2, seed=4, backend="serial", progress=False),
        sweep(trial, {"a": [1, 3, 5]}, trials=2, seed=4, backend="joblib", n_jobs=2, progress=False),
    )


def test_dask_without_distributed_installed_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the package were missing
    with pytest.raises(ImportError, match=r"ldp-compendium\[dask\]"):
        sweep(lambda a, rng: {"x": a}, {"a": [1]}, trials=1, seed=0, backend="dask", progress=False)
