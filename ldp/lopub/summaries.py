"""Summaries behind the LoPub experiments' claims: means with their standard errors, gaps with margins.

The experiments notebook compares the paper's statements with ours under the book's
verdict policy (``book/verdict-policy.md``, applied by :mod:`ldp.claims`): every Monte
Carlo value goes to a rule with its standard error *and* the number of replicates that
standard error came from.  This module turns the sweep frames of :mod:`ldp.lopub.trials`
into exactly those numbers, one :class:`Gaps` per claim:

* :func:`group_stats` -- mean, standard error over the rows (the replicates) and count per group;
* :func:`subset` -- one method's rows for some datasets, other levels fixed;
* :func:`gaps` -- the gaps ``mean_a - mean_b`` of two :func:`group_stats` outputs, group by
  group, with ``sqrt(se_a^2 + se_b^2)`` and the smaller replicate count;
* :func:`paired_gaps` -- the gaps from differences paired by experimental unit (e.g. the
  attribute combination, or the sample a release was drawn from), which removes the
  spread between units from the standard error;
* :func:`exact_mi_inputs` / :func:`ldp_mi_inputs` -- the mutual-information matrix and
  one-way marginals that entropy pruning (Algorithm 5) needs, exact or from LoPub reports;
* :func:`printed_pairs_check` -- Tables 7-9's "#Pairs (Pruning)" against the
  ``C(n_keep, 2)`` of Algorithm 5 under both roundings;
* :func:`cells_matching` -- how many printed cells of a table a computed table matches;
* :func:`per_report_times` -- an estimator sweep's times with EM run report by report, as the
  paper describes it (for the paper's timing claims).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._checks import check_int
from ..tables import CodedTable
from .dependency import empirical_mi_matrix, mutual_information
from .encoding import LoPubEncoder
from .joint import EM, LASSO, METHODS, estimate_joint
from .pipeline import pairwise_joints
from .pruning import n_keep

__all__ = [
    "group_stats",
    "subset",
    "Gaps",
    "gaps",
    "paired_gaps",
    "exact_mi_inputs",
    "ldp_mi_inputs",
    "printed_pairs_check",
    "cells_matching",
    "per_report_times",
]


def _columns(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}; it has {list(frame.columns)}")


def group_stats(frame: pd.DataFrame, by: Sequence[str], value: str) -> pd.DataFrame:
    """Mean, standard error of the mean (``std / sqrt(n)``, 0 for a single row) and count of ``value`` per group.

    Returns a frame indexed by ``by`` with columns ``mean``, ``se`` and ``n``.
    """
    by = list(by)
    _columns(frame, [*by, value])
    if frame.empty:
        raise ValueError("frame is empty")
    g = frame.groupby(by)[value]
    out = pd.DataFrame({"mean": g.mean(), "n": g.count()})
    out["se"] = (g.std(ddof=1) / np.sqrt(out["n"])).fillna(0.0)
    return out[["mean", "se", "n"]]


def _marginals(codes: np.ndarray, domains: Sequence[int]) -> list[np.ndarray]:
    return [np.bincount(codes[:, j], minlength=v) / codes.shape[0] for j, v in enumerate(domains)]


def exact_mi_inputs(table: CodedTable) -> tuple[np.ndarray, list[np.ndarray]]:
    """The exact pairwise mutual-information matrix (nats) and one-way marginals of a coded table."""
    if not isinstance(table, CodedTable):
        raise TypeError(f"table must be an ldp.lopub.CodedTable, got {type(table).__name__}")
    return empirical_mi_matrix(table.codes, table.sizes), _marginals(table.codes, table.sizes)


def ldp_mi_inputs(
    table: CodedTable, *, f: float = 0.5, m: int = 128, h: int = 4, method: str = "Lasso+EM_JD", rng: Any = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Mutual information and marginals estimated from LoPub reports of every record of ``table``.

    Every user encodes her record (``f``, ``m`` bits, ``h`` hashes); the server estimates
    every pairwise joint and every one-way marginal with ``method`` and takes the
    mutual information of each estimated joint, as the dependency search of Sec. 5.5
    of Ren et al. does with LDP estimates.
    """
    if not isinstance(table, CodedTable):
        raise TypeError(f"table must be an ldp.lopub.CodedTable, got {type(table).__name__}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    reports = LoPubEncoder(table.sizes, f=f, m=m, h=h).encode(table, rng=rng)
    mi = np.zeros((table.d, table.d))
    for (i, j), p in pairwise_joints(reports, method).items():
        mi[i, j] = mi[j, i] = mutual_information(p)
    margs = [estimate_joint(reports, (j,), method).joint for j in range(table.d)]
    return mi, margs


def printed_pairs_check(printed: Mapping[str, pd.DataFrame], dims: Mapping[str, int]) -> pd.DataFrame:
    """The printed "#Pairs (Pruning)" of Tables 7-9 against ``C(n_keep, 2)`` of Algorithm 5.

    Parameters
    ----------
    printed : mapping of table name to DataFrame
        The printed tables, with columns ``phi`` and ``pairs_pruning``
        (``ldp.lopub.paper.PAPER_TABLES``).
    dims : mapping of table name to int
        The number of attributes ``d`` of each table's dataset.

    Returns
    -------
    DataFrame
        One row per printed column: ``table``, ``phi``, ``printed``, and ``half_up`` /
        ``floor``, the pair counts ``C(n_keep, 2)`` under each rounding.
    """
    rows = []
    for name, t in printed.items():
        if name not in dims:
            raise ValueError(f"dims lacks the table {name!r}")
        d = check_int(dims[name], f"dims[{name!r}]", minimum=2)
        _columns(t, ["phi", "pairs_pruning"])
        for phi, pairs in zip(t["phi"], t["pairs_pruning"]):
            row = {"table": name, "phi": float(phi), "printed": int(pairs)}
            for rounding in ("half_up", "floor"):
                k = n_keep(d, float(phi), rounding=rounding)
                row[rounding] = k * (k - 1) // 2
            rows.append(row)
    return pd.DataFrame(rows)


def cells_matching(
    computed: pd.DataFrame,
    printed: pd.DataFrame,
    *,
    exact: Sequence[str],
    approx: Sequence[str] = (),
    tol: float = 5e-4,
) -> int:
    """Printed cells that a computed table matches: columns ``exact`` exactly, ``approx`` within ``tol``.

    Both frames must share their index (e.g. ``phi``) and hold the named columns.
    ``tol`` is the printed precision (half a unit of the last printed digit).
    """
    _columns(computed, [*exact, *approx])
    _columns(printed, [*exact, *approx])
    if not computed.index.equals(printed.index):
        raise ValueError("computed and printed must share their index")
    if not (math.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    hits = sum(int((computed[c].to_numpy() == printed[c].to_numpy()).sum()) for c in exact)
    hits += sum(int((np.abs(computed[c].to_numpy(float) - printed[c].to_numpy(float)) <= tol).sum()) for c in approx)
    return hits


def subset(stats: pd.DataFrame, method: str, datasets: Sequence[str], **levels: Any) -> pd.DataFrame:
    """Rows of :func:`group_stats` output for one ``method`` and some ``datasets``, other levels fixed.

    ``stats`` is indexed by levels including ``method`` and ``data``; each keyword
    ``level=value`` keeps the rows at that value and drops the level, so that two
    subsets taken at different values of it (e.g. ``f=0.1`` and ``f=0.9``) share
    their index and can be compared with :func:`gaps`.
    """
    if not isinstance(stats, pd.DataFrame):
        raise TypeError(f"stats must be a pandas DataFrame, got {type(stats).__name__}")
    names = list(stats.index.names)
    for level in ("method", "data", *levels):
        if level not in names:
            raise ValueError(f"stats has no index level {level!r}; it has {names}")
    if isinstance(datasets, str):
        raise TypeError("datasets must be a sequence of names, not a single string")
    s = stats[stats.index.get_level_values("method") == method].droplevel("method")
    s = s[s.index.get_level_values("data").isin(list(datasets))]
    for level, value in levels.items():
        s = s[s.index.get_level_values(level) == value].droplevel(level)
    if s.empty:
        raise ValueError(f"no rows for method={method!r}, datasets={list(datasets)}, {levels}")
    return s


@dataclass(frozen=True)
class Gaps:
    """Gaps ``a - b`` per group with their standard errors and the replicates behind them.

    ``mean`` and ``se`` are arrays (one entry per group, in ``index`` order); ``trials``
    is the smallest number of replicates (units) any group's standard error came from:
    pass ``ours=g.mean, rule=ordered(g.se, trials=g.trials)`` (or ``equivalent``).
    """

    mean: np.ndarray
    se: np.ndarray
    trials: int
    index: pd.Index

    def __len__(self) -> int:
        return int(self.mean.size)

    def concat(self, other: Gaps) -> Gaps:
        """The gaps of two claims' groups together (e.g. two data sets of one claim)."""
        return Gaps(
            np.concatenate([self.mean, other.mean]),
            np.concatenate([self.se, other.se]),
            min(self.trials, other.trials),
            self.index.append(other.index),
        )


def gaps(a: pd.DataFrame, b: pd.DataFrame) -> Gaps:
    """Gaps ``a.mean - b.mean`` over the groups both share, with ``sqrt(se_a² + se_b²)``.

    ``a`` and ``b`` are outputs of :func:`group_stats` (or :func:`subset`) whose
    groups were measured on independent replicates; ``trials`` is the smallest count.
    """
    for side in (a, b):
        _columns(side, ["mean", "se", "n"])
    common = a.index.intersection(b.index)
    if len(common) == 0:
        raise ValueError("a and b share no group")
    a, b = a.loc[common], b.loc[common]
    return Gaps(
        (a["mean"] - b["mean"]).to_numpy(float),
        np.hypot(a["se"], b["se"]).to_numpy(float),
        int(min(a["n"].min(), b["n"].min())),
        common,
    )


def paired_gaps(
    frame: pd.DataFrame,
    value: str,
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    *,
    keys: Sequence[str],
    unit: str,
) -> Gaps:
    """Mean paired differences ``a - b`` per group, with the standard error over the units.

    The rows selected by ``a`` (a mapping ``column: value``, e.g. ``{"method": "EM_JD"}``)
    are paired with the rows selected by ``b`` that share every column of ``keys`` and
    ``unit`` not used in the selections; ``unit`` names the experimental unit (e.g. the
    attribute combination), which both sides share.  Pairing removes the spread between
    units (some combinations are much harder than others) from the comparison: the
    standard error is that of the mean *difference* over the units of a group, and
    ``trials`` the smallest number of units in a group.  Groups are the remaining ``keys``.
    """
    for name, sel in (("a", a), ("b", b)):
        if not isinstance(sel, Mapping) or not sel:
            raise ValueError(f"{name} must be a non-empty mapping of column to value, got {sel!r}")
    chosen = set(a) | set(b)
    _columns(frame, [*keys, unit, value, *chosen])
    on = [k for k in keys if k not in chosen] + [unit]
    groups = [k for k in keys if k not in chosen]
    if not groups:
        raise ValueError("keys must leave at least one grouping column besides the selections")

    def side(sel: Mapping[str, Any]) -> pd.DataFrame:
        mask = np.ones(len(frame), dtype=bool)
        for col, v in sel.items():
            mask &= (frame[col] == v).to_numpy()
        rows = frame.loc[mask, [*on, value]]
        if rows.empty:
            raise ValueError(f"no rows match {dict(sel)}")
        return rows.assign(_u=rows[unit].map(repr)).drop(columns=unit)

    key_cols = [k for k in on if k != unit] + ["_u"]
    merged = side(a).merge(side(b), on=key_cols, suffixes=("_a", "_b"))
    if merged.empty:
        raise ValueError("the selections share no experimental unit")
    merged["_d"] = merged[f"{value}_a"] - merged[f"{value}_b"]
    stats = group_stats(merged, groups, "_d")
    return Gaps(stats["mean"].to_numpy(float), stats["se"].to_numpy(float), int(stats["n"].min()), stats.index)


def per_report_times(frame: pd.DataFrame, costs: Mapping[tuple[str, int], Mapping[str, float]]) -> pd.Series:
    """The time each row of an estimator sweep would take with EM run report by report, as the paper describes it.

    ``frame`` is an estimator sweep (:func:`~ldp.lopub.trials.estimator_trial` rows with
    ``data``, ``k``, ``f``, ``sample_seed``, ``combo``, ``method``, ``seconds``, ``n``,
    ``cells``, ``support``, ``iterations``); ``costs`` maps ``(data, k)`` to a
    :func:`~ldp.lopub.trials.per_report_em_cost` measurement.  EM_JD rows get the loop's
    time on all ``cells`` for the row's ``iterations``; Lasso+EM_JD rows get the Lasso fit
    of the same combination (the Lasso_JD row's ``seconds``) plus the loop on its
    ``support``; Lasso_JD rows keep their ``seconds``.
    """
    from .trials import per_report_em_seconds

    _columns(
        frame, ["data", "k", "f", "sample_seed", "combo", "method", "seconds", "n", "cells", "support", "iterations"]
    )
    key = ["data", "k", "f", "sample_seed", "_u"]
    fr = frame.assign(_u=frame["combo"].map(repr))
    lasso = fr[fr["method"] == LASSO].set_index(key)["seconds"]
    out = fr["seconds"].astype(float).copy()
    for (data, k), rows in fr[fr["method"] != LASSO].groupby(["data", "k"]):
        if (data, k) not in costs:
            raise ValueError(f"costs lacks the panel {(data, k)!r}")
        em = rows["method"] == EM
        cells = np.where(em, rows["cells"], rows["support"])
        loop = per_report_em_seconds(costs[(data, k)], rows["n"], cells, rows["iterations"])
        start = np.where(em, 0.0, lasso.reindex(pd.MultiIndex.from_frame(rows[key])).to_numpy(float))
        if np.isnan(start).any():
            raise ValueError("a Lasso+EM_JD row has no Lasso_JD row of the same combination")
        out.loc[rows.index] = start + loop
    return out
