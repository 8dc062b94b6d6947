"""Entropy-based pruning of the pairwise dependency search (Alg. 5 of Ren et al.) and Tables 7-9.

The printed Algorithm 5 is incomplete (line 8 is an ellipsis, loops run to ``k``
where ``d`` is meant, it sorts by ``H`` after computing ``RH``; erratum E9).  This
module follows our reconstruction (erratum E9):

* relative entropy ``RH(A_j) = H(A_j) / |Omega_j|`` from the 1-D marginals (``key="paper"``,
  the paper's text); ``key="authors"`` ranks by ``H(A_j) / (|Omega_j| - 1)`` instead, the key
  with which the authors' computation reproduces Table 7 (see :mod:`ldp.lopub.authors`);
* ``n_keep = half_up(d (1 - phi))`` attributes are kept.  The printed floor does
  not reproduce Tables 7-9, round-half-up does (13 of 15 columns); Python's
  ``round`` is banker's rounding and fails at ``d = 15, phi = 0.3``;
* ``mode="nonbinary"`` (Adult, TPC-E): start from an empty graph, keep the
  ``n_keep`` attributes of **largest** RH, and add the edges found among them;
* ``mode="binary"`` (Retail): start from the complete graph, keep the ``n_keep``
  attributes of **smallest** RH, and remove the pairs among them whose mutual
  information falls below the threshold.

Only ``C(n_keep, 2)`` pairs are evaluated, which defines the "#Pairs (Pruning)"
row of the tables exactly.  The ratios of the tables are
``loss = (#Dep - #Dep_pruning) / #Dep`` and ``reduction = (#Pairs - #Pairs_pruning) / #Pairs``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._checks import check_domain_size, check_probability
from .dependency import check_edge_rule, dependency_graph, edge_count, entropy

MODES = ("nonbinary", "binary")
ROUNDINGS = ("half_up", "floor")
#: ranking keys of Algorithm 5: the paper's ``H / |Omega|`` and the authors' ``H / (|Omega| - 1)``
SORT_KEYS = ("paper", "authors")


def half_up(x: float) -> int:
    """Round half up (``2.5 -> 3``), robust to the float error in ``d (1 - phi)``."""
    return int(math.floor(float(x) + 0.5 + 1e-9))


def n_keep(d: int, phi: float, rounding: str = "half_up") -> int:
    """Number of attributes kept by Algorithm 5: ``half_up(d (1 - phi))`` (or the printed floor)."""
    d = check_domain_size(d, "d", minimum=2)
    phi = check_probability(phi, "phi")
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    x = d * (1 - phi)
    return half_up(x) if rounding == "half_up" else int(math.floor(x + 1e-9))


def relative_entropy(marginal: Any, key: str = "paper") -> float:
    """``RH(A) = H(A) / |Omega_A|`` in nats (line 4 of Algorithm 5).

    ``key="authors"`` divides by ``|Omega_A| - 1`` instead (the ranking that reproduces Table 7).
    """
    if key not in SORT_KEYS:
        raise ValueError(f"key must be one of {SORT_KEYS}, got {key!r}")
    p = np.asarray(marginal, dtype=float).ravel()
    return entropy(p) / (p.size if key == "paper" else p.size - 1)


@dataclass(frozen=True)
class PruneResult:
    """Graph found by Algorithm 5, the kept attributes and the evaluated pairs."""

    graph: np.ndarray
    kept: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    mode: str

    def dep_count(self, *, diagonal: bool = False) -> int:
        """``#Dep (Pruning)``.  With ``diagonal=True`` the binary mode's all-ones start counts its ``d``
        diagonal entries too, the convention that reproduces Table 9's 256 = 16^2 (erratum E16)."""
        extra = self.graph.shape[0] if (diagonal and self.mode == "binary") else 0
        return edge_count(self.graph) + extra


def kept_attributes(
    marginals: Sequence[Any], phi: float, *, mode: str = "nonbinary", rounding: str = "half_up", key: str = "paper"
) -> tuple[int, ...]:
    """The attributes whose pairs Algorithm 5 evaluates (sorted indices).

    ``mode="nonbinary"`` keeps the ``n_keep`` attributes of largest relative entropy,
    ``mode="binary"`` those of smallest; ties go to the smaller index.  ``key`` selects the
    ranking (see :func:`relative_entropy`).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    keep = n_keep(len(marginals), phi, rounding)
    rh = np.array([relative_entropy(m, key) for m in marginals])
    order = np.argsort(-rh if mode == "nonbinary" else rh, kind="stable")
    return tuple(sorted(int(a) for a in order[:keep]))


def entropy_prune(
    mi: Any,
    marginals: Sequence[Any],
    domains: Sequence[int],
    phi: float,
    *,
    mode: str = "nonbinary",
    rounding: str = "half_up",
    key: str = "paper",
    edge_rule: str = ">=",
) -> PruneResult:
    """Algorithm 5.

    Parameters
    ----------
    mi : (d, d) array
        Pairwise mutual informations; only the entries of kept pairs are read, so a full
        matrix computed once can serve every ``phi`` (the pruned search would compute the
        same numbers with the same estimator).
    marginals : sequence of 1-D arrays
        Estimated marginal of every attribute (line 3).
    domains : sequence of int
        ``|Omega_j|``.
    phi : float
        Dependency degree.
    mode : {"nonbinary", "binary"}
    rounding : {"half_up", "floor"}
    key : {"paper", "authors"}
        Ranking key, ``H / |Omega|`` or ``H / (|Omega| - 1)`` (:func:`relative_entropy`).
    edge_rule : {">=", ">"}
        Edge test of :func:`~ldp.lopub.dependency.dependency_graph`.
    """
    check_edge_rule(edge_rule)
    d = len(domains)
    if len(marginals) != d:
        raise ValueError(f"marginals has {len(marginals)} entries for {d} attributes")
    kept = kept_attributes(marginals, phi, mode=mode, rounding=rounding, key=key)
    pairs = tuple(itertools.combinations(kept, 2))
    found = dependency_graph(mi, domains, phi, pairs=pairs, edge_rule=edge_rule) if pairs else np.zeros((d, d), np.int8)
    if mode == "nonbinary":
        graph = found
    else:
        graph = np.ones((d, d), dtype=np.int8)
        np.fill_diagonal(graph, 0)
        for a, b in pairs:
            if not found[a, b]:
                graph[a, b] = graph[b, a] = 0
    return PruneResult(graph, kept, pairs, mode)


def loss_ratio(dep: int, dep_pruning: int) -> float:
    """Dependency loss ratio ``(#Dep - #Dep_pruning) / #Dep`` (negative when pruning adds edges)."""
    if dep <= 0:
        raise ValueError(f"dep must be > 0 to form a ratio, got {dep}")
    return (dep - dep_pruning) / dep


def reduction_ratio(pairs: int, pairs_pruning: int) -> float:
    """Complexity reduction ratio ``(#Pairs - #Pairs_pruning) / #Pairs``."""
    if pairs <= 0:
        raise ValueError(f"pairs must be > 0, got {pairs}")
    return (pairs - pairs_pruning) / pairs


def pruning_table(
    mi: Any,
    marginals: Sequence[Any],
    domains: Sequence[int],
    phis: Sequence[float],
    *,
    mode: str = "nonbinary",
    rounding: str = "half_up",
    key: str = "paper",
    edge_rule: str = ">=",
) -> pd.DataFrame:
    """Tables 7-9 layout for one dataset: one row per ``phi``.

    ``dep`` is the full pairwise graph of Algorithm 4; ``dep_pruning`` follows the
    meaningful convention (diagonal excluded); for the binary mode the column
    ``dep_pruning_diag`` adds the diagonal as the paper's Table 9 does.  ``rounding``, ``key``
    and ``edge_rule`` are passed to :func:`entropy_prune` (``edge_rule`` also to the full search).
    """
    d = len(domains)
    rows = []
    for phi in phis:
        full = dependency_graph(mi, domains, phi, edge_rule=edge_rule)
        pr = entropy_prune(mi, marginals, domains, phi, mode=mode, rounding=rounding, key=key, edge_rule=edge_rule)
        dep = edge_count(full)
        row = {
            "phi": phi,
            "dep_pruning": pr.dep_count(),
            "dep": dep,
            "loss_ratio": loss_ratio(dep, pr.dep_count()) if dep else float("nan"),
            "pairs_pruning": len(pr.pairs),
            "pairs": d * (d - 1) // 2,
            "reduction_ratio": reduction_ratio(d * (d - 1) // 2, len(pr.pairs)),
            "n_keep": len(pr.kept),
        }
        if mode == "binary":
            row["dep_pruning_diag"] = pr.dep_count(diagonal=True)
            row["loss_ratio_diag"] = loss_ratio(dep, row["dep_pruning_diag"]) if dep else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)
