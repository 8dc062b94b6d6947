"""The benchmark's interleaving: every contender runs right after every other one equally often.

A plain rotation of the contenders keeps their cyclic order, so the one listed after the peers always ran
right after a peer's long Python loop; this checks the balanced orders that replaced it.
"""

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "run_benchmarks.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("run_benchmarks", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 7])
def test_each_ordered_pair_adjacent_equally_often(bench, k):
    rows = bench.balanced_orders(k)
    assert all(sorted(row) == list(range(k)) for row in rows)
    pairs = Counter((row[i], row[i + 1]) for row in rows for i in range(k - 1))
    assert len(pairs) == k * (k - 1)  # every ordered pair occurs
    assert len(set(pairs.values())) == 1  # and equally often


def test_interleaved_runs_each_contender_once_per_round(bench):
    calls = []
    contenders = {name: (lambda name=name: calls.append(name)) for name in "abcd"}
    times = bench.interleaved(contenders, rounds=8)
    assert {k: len(v) for k, v in times.items()} == dict.fromkeys("abcd", 8)
    after = Counter(zip(calls, calls[1:]))
    assert after[("c", "d")] < 8 // 2  # a plain rotation: 6 times in 8 rounds


def test_rows_are_summarised_across_processes(bench):
    """Each row: the median of the per-process medians with their range; 'met' only if met in every process."""
    pd = pytest.importorskip("pandas")
    runs = pd.DataFrame(
        [
            {
                "group": "IBU",
                "task": "a",
                "n": 10,
                "target": ">= 100×",
                "ldp_median_s": t,
                "speedup": s,
                "met": s >= 100,
                "process": i,
            }
            for i, (t, s) in enumerate([(1.0, 120.0), (3.0, 90.0), (2.0, 150.0)], start=1)
        ]
        + [
            {
                "group": "IBU",
                "task": "b",
                "n": 10,
                "target": "-",
                "ldp_median_s": 5.0,
                "speedup": None,
                "met": None,
                "process": 1,
            }
        ]
    )
    out = bench.across_processes(runs).set_index("task")
    assert (out.loc["a", "ldp_median_s"], out.loc["a", "ldp_median_s_lo"], out.loc["a", "ldp_median_s_hi"]) == (2, 1, 3)
    assert (out.loc["a", "speedup"], out.loc["a", "speedup_lo"], out.loc["a", "speedup_hi"]) == (120, 90, 150)
    assert not out.loc["a", "met"]  # one process missed the target
    assert out.loc["a", "met_in"] == "2 of 3" and out.loc["a", "processes"] == 3
    assert out.loc["b", "met"] is None and out.loc["b", "processes"] == 1
    table = bench.markdown(out.reset_index())
    assert "2.00 s [1.00 s–3.00 s]" in table and "120× [90×–150×]" in table and "**no** (2 of 3)" in table
