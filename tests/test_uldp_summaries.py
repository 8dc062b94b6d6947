"""Exact error grids and comparisons behind the ULDP claims (ldp.uldp.summaries, ldp.uldp.paper, figures)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ldp.data import is_available
from ldp.plotting import finish_figure
from ldp.uldp import paper
from ldp.uldp import summaries as su
from ldp.uldp.datasets import leading_rows_table, load_table
from ldp.uldp.figures import ORDER, error_grid
from ldp.uldp.trials import PAPER_EPSILONS, analytic_curves, analytic_ed

matplotlib.use("Agg")


def test_exact_grid_matches_analytic_ed_and_marks_undefined_jurr():
    tables = {k: load_table(k) for k in ("fig3a", "fig4a")}
    grid = su.exact_grid(tables, PAPER_EPSILONS, ORDER)
    assert list(grid.columns) == list(ORDER)
    assert grid.loc[("fig3a", 2.0), "CPRR"] == pytest.approx(analytic_ed("CPRR", 2.0, tables["fig3a"]))
    assert math.isnan(grid.loc[("fig4a", 0.5), "JuRR"]) and math.isnan(grid.loc[("fig3a", 1.0), "JuRR"])
    assert not math.isnan(grid.loc[("fig3a", 2.0), "JuRR"])
    with pytest.raises(ValueError, match="epsilons"):
        su.exact_grid(tables, [0.0])
    with pytest.raises(ValueError, match="non-empty"):
        su.exact_grid({}, [1.0])


def test_smallest_drop_and_gap_on_a_toy_grid():
    idx = pd.MultiIndex.from_product([["s"], [1.0, 2.0, 3.0]], names=["setting", "epsilon"])
    grid = pd.DataFrame({"A": [3.0, 2.0, 1.5], "B": [np.nan, 2.5, 2.4]}, index=idx)
    drop, where = su.smallest_drop(grid)
    assert drop == pytest.approx(0.1) and "B on s" in where
    gap, where = su.smallest_gap(grid, "B", "A")
    assert gap == pytest.approx(0.5) and "ε = 2" in where
    rising = grid.assign(A=[1.0, 2.0, 3.0])
    assert su.smallest_drop(rising)[0] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="column"):
        su.smallest_gap(grid, "C", "A")


def test_smallest_mean_gap_is_an_overall_ordering_per_setting():
    idx = pd.MultiIndex.from_product([["s", "t"], [1.0, 2.0, 3.0]], names=["setting", "epsilon"])
    # on s, A is above B at ε = 3 but below it on the mean over the budgets where both exist
    grid = pd.DataFrame({"A": [np.nan, 1.0, 2.2, 1.0, 1.0, 1.0], "B": [9.0, 2.0, 2.0, 1.5, 1.2, 1.3]}, index=idx)
    assert su.smallest_gap(grid, "B", "A")[0] == pytest.approx(-0.2)
    gap, where = su.smallest_mean_gap(grid, "B", "A")
    assert gap == pytest.approx(min((2.0 + 2.0) / 2 - (1.0 + 2.2) / 2, (1.5 + 1.2 + 1.3) / 3 - 1.0))
    assert gap == pytest.approx(0.3333333333333333) and where.startswith("t, mean over its 3 budgets")
    with pytest.raises(ValueError, match="never both"):
        su.smallest_mean_gap(grid.assign(A=np.nan), "B", "A")
    with pytest.raises(ValueError, match="column"):
        su.smallest_mean_gap(grid, "C", "A")


def test_tdrr_floor_is_its_error_at_infinite_budget():
    t = load_table("fig3a")
    floor = su.tdrr_floor(t)
    assert floor > 0
    assert analytic_ed("TDRR", 30.0, t) == pytest.approx(floor, rel=1e-3)
    with pytest.raises(TypeError, match="JointTable"):
        su.tdrr_floor(t.counts)


def test_paper_values_are_consistent():
    assert paper.FIG3A_CPRR_RANGE[0] < paper.FIG3A_CPRR_RANGE[1] == paper.FIG4A_CPRR_ABOVE
    assert PAPER_EPSILONS[0] == paper.EPSILON_SPAN[0] and PAPER_EPSILONS[-1] == paper.EPSILON_SPAN[1]
    assert len(PAPER_EPSILONS) == paper.N_EPSILONS
    assert sorted(paper.TIME_ORDER) == sorted(ORDER)


def test_the_papers_own_truncation_lowers_the_error_as_n_grows():
    if not is_available("nursery"):
        pytest.skip("the nursery file is not present")
    grid = su.exact_grid({n: leading_rows_table("fig6", n) for n in paper.FIG6_SIZES}, [2.0], ("CPRR",))
    vals = grid["CPRR"].to_numpy()
    assert np.all(np.diff(vals) < 0)


def test_error_grid_draws_four_panels_and_finish_figure_gives_one_legend():
    keys = ["fig3a", "fig3b", "fig3c", "fig3d"]
    theory = {k: analytic_curves(load_table(k), [1.5, 3.0]) for k in keys}
    sim = pd.concat([th.assign(setting=k, ed_mean=th["expected"], ed_se=0.0) for k, th in theory.items()])
    fig, axes = error_grid(sim, theory, keys, title="t")
    assert axes.shape == (2, 2)
    finish_figure(fig)
    assert len(fig.legends) == 1 and len(fig.legends[0].get_texts()) >= 4
    with pytest.raises(ValueError, match="exactly 4"):
        error_grid(sim, theory, keys[:3])
    with pytest.raises(ValueError, match="theory lacks"):
        error_grid(sim, {}, keys)
