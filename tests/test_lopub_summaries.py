"""Summaries behind the LoPub claims (ldp.lopub.summaries): means, standard errors, gaps and margins."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp.lopub import empirical_mi_matrix, n_keep, pruning_table
from ldp.lopub import paper as ex
from ldp.lopub import summaries as su
from ldp.lopub.datasets import tpce_standin


def _frame():
    rows = []
    for method, base in (("A", 2.0), ("B", 1.0)):
        for f in (0.1, 0.9):
            for noise in (-0.1, 0.0, 0.1):
                rows.append({"data": "X", "f": f, "method": method, "v": base + f + noise})
    return pd.DataFrame(rows)


def test_group_stats_mean_se_count_by_hand():
    s = su.group_stats(_frame(), ["data", "f", "method"], "v")
    row = s.loc[("X", 0.1, "A")]
    assert row["mean"] == pytest.approx(2.1)
    assert row["n"] == 3
    assert row["se"] == pytest.approx(0.1 / math.sqrt(3))  # std of (-0.1, 0, 0.1) is 0.1
    one = su.group_stats(_frame().iloc[:1], ["method"], "v")
    assert one["se"].iloc[0] == 0.0


def test_gaps_are_per_group_with_combined_se_and_the_smallest_count():
    s = su.group_stats(_frame(), ["data", "f", "method"], "v")
    g = su.gaps(su.subset(s, "A", ["X"]), su.subset(s, "B", ["X"]))
    assert len(g) == 2 and g.trials == 3
    np.testing.assert_allclose(g.mean, [1.0, 1.0])
    np.testing.assert_allclose(g.se, math.hypot(0.1 / math.sqrt(3), 0.1 / math.sqrt(3)))
    g2 = su.gaps(su.subset(s, "A", ["X"], f=0.9), su.subset(s, "A", ["X"], f=0.1))
    np.testing.assert_allclose(g2.mean, [0.8])
    both = g.concat(g2)
    assert len(both) == 3 and both.trials == 3 and len(both.index) == 3
    with pytest.raises(ValueError, match="share no group"):
        su.gaps(su.subset(s, "A", ["X"], f=0.9), su.subset(s, "A", ["X"]))


def test_subset_and_group_stats_refuse_bad_input():
    s = su.group_stats(_frame(), ["data", "f", "method"], "v")
    with pytest.raises(ValueError, match="no index level"):
        su.subset(s, "A", ["X"], k=1)
    with pytest.raises(TypeError, match="sequence"):
        su.subset(s, "A", "X")
    with pytest.raises(ValueError, match="no rows"):
        su.subset(s, "C", ["X"])
    with pytest.raises(ValueError, match="lacks the columns"):
        su.group_stats(_frame(), ["data"], "missing")


def test_exact_and_ldp_mi_inputs():
    t = tpce_standin(n=600, rng=2).select([0, 1, 2, 9])
    mi, margs = su.exact_mi_inputs(t)
    np.testing.assert_allclose(mi, empirical_mi_matrix(t.codes, t.sizes))
    assert all(m.sum() == pytest.approx(1.0) for m in margs)
    mi2, margs2 = su.ldp_mi_inputs(t, f=0.3, m=32, rng=1)
    assert mi2.shape == (4, 4) and np.allclose(mi2, mi2.T) and np.all(np.diag(mi2) == 0)
    assert all(len(m) == v for m, v in zip(margs2, t.sizes))
    assert pruning_table(mi2, margs2, t.sizes, [0.2], mode="nonbinary").shape[0] == 1
    with pytest.raises(TypeError, match="CodedTable"):
        su.exact_mi_inputs(t.codes)
    with pytest.raises(ValueError, match="method"):
        su.ldp_mi_inputs(t, method="bogus")


def test_printed_pairs_check_finds_the_two_tpce_columns():
    chk = su.printed_pairs_check(ex.PAPER_TABLES, {"adult": 15, "tpce": 24, "retail": 16})
    assert len(chk) == 15
    off = chk[chk["printed"] != chk["half_up"]]
    assert list(off["table"]) == ["tpce", "tpce"] and list(off["phi"]) == [0.4, 0.5]
    k = n_keep(24, 0.4)
    assert off["half_up"].iloc[0] == k * (k - 1) // 2
    assert (chk["printed"] == chk["floor"]).sum() < (chk["printed"] == chk["half_up"]).sum()
    with pytest.raises(ValueError, match="dims lacks"):
        su.printed_pairs_check(ex.PAPER_TABLES, {"adult": 15})


def test_cells_matching_counts_exact_and_rounded_cells():
    printed = pd.DataFrame({"a": [1, 2], "r": [0.125, 0.5]}, index=[0.1, 0.2])
    computed = pd.DataFrame({"a": [1, 3], "r": [0.1254, 0.6]}, index=[0.1, 0.2])
    assert su.cells_matching(computed, printed, exact=["a"], approx=["r"], tol=5e-4) == 2
    assert su.cells_matching(printed, printed, exact=["a"], approx=["r"]) == 4
    with pytest.raises(ValueError, match="index"):
        su.cells_matching(computed.reset_index(drop=True), printed, exact=["a"])


def test_paired_gaps_remove_the_spread_between_units():
    rows = []
    for unit, level in enumerate((0.0, 10.0, 20.0)):  # very different units, constant difference 1 +- 0.1
        for method, shift in (("A", 1.0 + 0.1 * (unit - 1)), ("B", 0.0)):
            rows.append({"data": "X", "f": 0.1, "combo": (unit, unit + 1), "method": method, "v": level + shift})
    frame = pd.DataFrame(rows)
    g = su.paired_gaps(frame, "v", {"method": "A"}, {"method": "B"}, keys=["data", "f"], unit="combo")
    np.testing.assert_allclose(g.mean, [1.0])
    np.testing.assert_allclose(g.se, [0.1 / math.sqrt(3)])
    assert g.trials == 3
    s = su.group_stats(frame, ["data", "f", "method"], "v")
    unpaired = su.gaps(su.subset(s, "A", ["X"]), su.subset(s, "B", ["X"]))
    assert unpaired.se[0] > 10 * g.se[0]
    with pytest.raises(ValueError, match="no rows"):
        su.paired_gaps(frame, "v", {"method": "C"}, {"method": "B"}, keys=["data", "f"], unit="combo")
    with pytest.raises(ValueError, match="grouping"):
        su.paired_gaps(frame, "v", {"data": "X"}, {"data": "X"}, keys=["data"], unit="combo")


def test_per_report_times_scale_the_loop_and_add_the_lasso_start():
    base = {"data": "X", "k": 2, "f": 0.5, "sample_seed": 0, "combo": (0, 1), "n": 1000, "cells": 50}
    frame = pd.DataFrame(
        [
            {**base, "method": "EM_JD", "seconds": 0.01, "support": 50, "iterations": 10},
            {**base, "method": "Lasso_JD", "seconds": 0.002, "support": 20, "iterations": 0},
            {**base, "method": "Lasso+EM_JD", "seconds": 0.005, "support": 20, "iterations": 4},
        ]
    )
    cost = {("X", 2): {"setup": 1e-6, "per_iteration": 1e-7}}
    t = su.per_report_times(frame, cost).to_numpy()
    assert t[0] == pytest.approx(1000 * 50 * (1e-6 + 10 * 1e-7))
    assert t[1] == 0.002
    assert t[2] == pytest.approx(0.002 + 1000 * 20 * (1e-6 + 4 * 1e-7))
    with pytest.raises(ValueError, match="costs lacks"):
        su.per_report_times(frame, {})
