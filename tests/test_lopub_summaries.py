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


def test_gap_and_margin_is_the_worst_case_over_groups():
    s = su.group_stats(_frame(), ["data", "f", "method"], "v")
    gap, margin = su.gap_and_margin(su.subset(s, "A", ["X"]), su.subset(s, "B", ["X"]))
    assert gap == pytest.approx(1.0)
    assert margin == pytest.approx(3 * math.hypot(0.1 / math.sqrt(3), 0.1 / math.sqrt(3)))
    gap2, _ = su.gap_and_margin(su.subset(s, "A", ["X"], f=0.9), su.subset(s, "A", ["X"], f=0.1))
    assert gap2 == pytest.approx(0.8)
    with pytest.raises(ValueError, match="z"):
        su.gap_and_margin(s, s, z=0)


def test_subset_and_rate_stats_refuse_bad_input():
    s = su.group_stats(_frame(), ["data", "f", "method"], "v")
    with pytest.raises(ValueError, match="no index level"):
        su.subset(s, "A", ["X"], k=1)
    with pytest.raises(TypeError, match="sequence"):
        su.subset(s, "A", "X")
    with pytest.raises(ValueError, match="no rows"):
        su.subset(s, "C", ["X"])
    with pytest.raises(ValueError, match="lacks the columns"):
        su.group_stats(_frame(), ["data"], "missing")


def test_rate_stats_is_binomial_on_the_pooled_items():
    frame = pd.DataFrame({"g": ["a", "a"], "rate": [0.6, 0.8], "n": [50, 50]})
    s = su.rate_stats(frame, ["g"], "rate", "n")
    assert s.loc["a", "mean"] == pytest.approx(0.7)
    assert s.loc["a", "se"] == pytest.approx(math.sqrt(0.7 * 0.3 / 100))
    assert su.binomial_se(0.5, 100) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="rate"):
        su.binomial_se(1.5, 10)
    with pytest.raises(ValueError, match="n must"):
        su.binomial_se(0.5, 0)


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


def test_paired_gap_removes_the_spread_between_units():
    rows = []
    for unit, level in enumerate((0.0, 10.0, 20.0)):  # very different units, constant difference 1 +- 0.1
        for method, shift in (("A", 1.0 + 0.1 * (unit - 1)), ("B", 0.0)):
            rows.append({"data": "X", "f": 0.1, "combo": (unit, unit + 1), "method": method, "v": level + shift})
    frame = pd.DataFrame(rows)
    gap, margin = su.paired_gap(frame, "v", {"method": "A"}, {"method": "B"}, keys=["data", "f"], unit="combo")
    assert gap == pytest.approx(1.0)
    assert margin == pytest.approx(3 * 0.1 / math.sqrt(3))
    s = su.group_stats(frame, ["data", "f", "method"], "v")
    _, unpaired = su.gap_and_margin(su.subset(s, "A", ["X"]), su.subset(s, "B", ["X"]))
    assert unpaired > 10 * margin
    with pytest.raises(ValueError, match="no rows"):
        su.paired_gap(frame, "v", {"method": "C"}, {"method": "B"}, keys=["data", "f"], unit="combo")
    with pytest.raises(ValueError, match="grouping"):
        su.paired_gap(frame, "v", {"data": "X"}, {"data": "X"}, keys=["data"], unit="combo")
