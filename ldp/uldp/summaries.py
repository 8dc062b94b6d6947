"""Exact error grids and the comparisons the ULDP experiments' claims rest on.

Most claims of Yin et al. are orderings of the mechanisms' errors.  The book tests
them on the *exact* expected error ``sqrt(E[ED²])`` computed from each channel
(:func:`ldp.uldp.trials.analytic_ed`), which has no Monte-Carlo error, so an
ordering needs no noise margin: it must hold strictly.  This module builds those
grids and extracts the one number each claim compares:

* :func:`exact_grid` -- exact errors, one row per (setting, ε), one column per mechanism;
* :func:`smallest_drop` -- the smallest fall of any mechanism's error between two
  consecutive budgets (positive when every curve decreases);
* :func:`smallest_gap` -- the smallest ``worse - better`` over the rows where both exist;
* :func:`smallest_mean_gap` -- the same for each setting's mean over those rows (an "overall" ordering);
* :func:`tdrr_floor` -- TDRR's error from its independence bias alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .datasets import JointTable
from .trials import analytic_ed, make_mechanism

__all__ = ["exact_grid", "smallest_drop", "smallest_gap", "smallest_mean_gap", "tdrr_floor"]

_MECHS = ("JuRR", "CPRR", "TDRR", "JD_GRR")


def exact_grid(
    tables: Mapping[Any, JointTable], epsilons: Sequence[float], mechanisms: Sequence[str] = _MECHS
) -> pd.DataFrame:
    """Exact ``sqrt(E[ED²])`` per (setting, ε) and mechanism; NaN where a mechanism does not exist (JuRR).

    ``tables`` maps a setting name (or any key, e.g. a number of users) to its table.
    """
    if not isinstance(tables, Mapping) or not tables:
        raise ValueError("tables must be a non-empty mapping of setting names to JointTable")
    eps = [float(e) for e in np.asarray(epsilons, dtype=float).ravel()]
    if not eps or any(not math.isfinite(e) or e <= 0 for e in eps):
        raise ValueError(f"epsilons must be finite numbers > 0, got {epsilons!r}")
    rows = {(key, e): {m: analytic_ed(m, e, t) for m in mechanisms} for key, t in tables.items() for e in eps}
    grid = pd.DataFrame.from_dict(rows, orient="index")
    grid.index = pd.MultiIndex.from_tuples(grid.index, names=["setting", "epsilon"])
    return grid[list(mechanisms)]


def smallest_drop(grid: pd.DataFrame) -> tuple[float, str]:
    """The smallest ``ED(ε_i) - ED(ε_{i+1})`` over consecutive defined budgets, and where it occurs.

    Positive exactly when every curve of every setting strictly decreases in ε.
    """
    best, where = math.inf, ""
    for setting, rows in grid.groupby(level="setting"):
        rows = rows.droplevel("setting").sort_index()
        for mech in rows.columns:
            s = rows[mech].dropna()
            drops = -s.diff().dropna()
            if len(drops) and drops.min() < best:
                best = float(drops.min())
                e1 = drops.idxmin()
                e0 = s.index[list(s.index).index(e1) - 1]
                where = f"{mech} on {setting}: {s[e0]:.4f} at ε = {e0:g}, {s[e1]:.4f} at ε = {e1:g}"
    if not math.isfinite(best):
        raise ValueError("grid has no two consecutive defined budgets")
    return best, where


def _both_defined(grid: pd.DataFrame, worse: str, better: str) -> pd.DataFrame:
    """The two columns, on the rows where both are defined (an error naming what is missing otherwise)."""
    for name in (worse, better):
        if name not in grid.columns:
            raise ValueError(f"grid has no column {name!r}; it has {list(grid.columns)}")
    both = grid[[worse, better]].dropna()
    if both.empty:
        raise ValueError(f"{worse} and {better} are never both defined")
    return both


def smallest_gap(grid: pd.DataFrame, worse: str, better: str) -> tuple[float, str]:
    """The smallest ``grid[worse] - grid[better]`` over rows where both are defined, and where it occurs."""
    both = _both_defined(grid, worse, better)
    gaps = both[worse] - both[better]
    key = gaps.idxmin()
    label = f"{key[0]} at ε = {key[1]:.4g}" if isinstance(key, tuple) else str(key)
    return float(gaps.min()), f"{label}: {worse} {grid.loc[key, worse]:.4f}, {better} {grid.loc[key, better]:.4f}"


def smallest_mean_gap(grid: pd.DataFrame, worse: str, better: str) -> tuple[float, str]:
    """The smallest, over settings, of ``mean(worse) - mean(better)`` over the budgets where both exist.

    An ordering that holds "overall" in each panel rather than at every budget.
    """
    both = _both_defined(grid, worse, better)
    means = both.groupby(level="setting").mean()
    gaps = means[worse] - means[better]
    key = gaps.idxmin()
    n = int((both.index.get_level_values("setting") == key).sum())
    return float(gaps.min()), (
        f"{key}, mean over its {n} budgets where both exist: {worse} {means.loc[key, worse]:.4f}, "
        f"{better} {means.loc[key, better]:.4f}"
    )


def tdrr_floor(table: JointTable) -> float:
    """TDRR's root-mean-square bias over the cells: its error floor, the same at every ε."""
    if not isinstance(table, JointTable):
        raise TypeError(f"table must be an ldp.uldp.datasets.JointTable, got {type(table).__name__}")
    tdrr = make_mechanism("TDRR", 1.0, table.model)
    return float(np.sqrt(np.mean(tdrr.bias(table.n, table.frequencies) ** 2)))
