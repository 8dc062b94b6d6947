"""The whole server side of LoPub: dimension reduction (Alg. 4) then synthesis (Alg. 6).

:func:`reduce_dimensions` estimates every pairwise joint with the chosen
estimator, computes the mutual informations, thresholds them into the
dependency graph and builds the junction tree.  :func:`lopub_release` then
synthesizes a table with the input's schema by estimating each clique's joint
with the same estimator.

Two implementation choices, both exact re-uses rather than changes of method:
the per-attribute likelihood tables are computed once per collection and
shared by all estimations (they do not depend on the cluster), and a clique of
two attributes re-uses the pairwise estimate already made during reduction
(the estimators are deterministic, so re-running them would return the same
table).  Singleton cliques are estimated with the same estimator at ``k = 1``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import check_int, check_probability
from ..tables import CodedTable
from .dependency import dependency_graph, mutual_information
from .joint import LASSO_EM, check_method, estimate_joint
from .junction import JunctionTree, junction_tree
from .pruning import MODES, entropy_prune, kept_attributes
from .reports import LoPubReports
from .synthesis import SynthesisResult, synthesize


@dataclass(frozen=True)
class Reduction:
    """Output of Algorithm 4: MI matrix, dependency graph, junction tree and the pairwise estimates."""

    mi: np.ndarray
    graph: np.ndarray
    tree: JunctionTree
    pair_joints: dict = field(repr=False)
    seconds: float
    method: str
    phi: float


@dataclass(frozen=True)
class Release:
    """A synthetic release: the table, how it was built, and the time of each stage."""

    table: CodedTable
    reduction: Reduction
    synthesis: SynthesisResult
    seconds_synthesis: float

    @property
    def seconds(self) -> float:
        """Overall LoPub server time: reduction + synthesis (Figs 28-30)."""
        return self.reduction.seconds + self.seconds_synthesis


def pairwise_joints(
    reports: LoPubReports, method: str = LASSO_EM, pairs: Sequence[tuple[int, int]] | None = None, **options: Any
) -> dict:
    """``{(m, n): 2-D joint}`` for all pairs (or ``pairs``) with one estimator."""
    method = check_method(method)
    todo = list(itertools.combinations(range(reports.d), 2)) if pairs is None else list(pairs)
    return {(a, b): estimate_joint(reports, (a, b), method, **options).joint for a, b in todo}


def reduce_dimensions(
    reports: LoPubReports,
    phi: float,
    method: str = LASSO_EM,
    *,
    pruning: str | None = None,
    max_clique_cells: int = 1_000_000,
    **options: Any,
) -> Reduction:
    """Algorithm 4: pairwise MI from estimated 2-D joints, graph with ``I >= tau``, junction tree.

    With ``pruning="nonbinary"`` or ``"binary"`` the graph comes from Algorithm 5 instead:
    the 1-D marginals are estimated first, and only the pairs among the kept attributes
    are estimated (``Reduction.pair_joints`` then holds only those pairs).

    Raises ``ValueError`` when a clique's domain exceeds ``max_clique_cells`` (EM and Lasso
    both explode there; raise ``phi`` to get smaller cliques).
    """
    phi = check_probability(phi, "phi")
    method = check_method(method)
    max_clique_cells = check_int(max_clique_cells, "max_clique_cells", minimum=1)
    if pruning is not None and pruning not in MODES:
        raise ValueError(f"pruning must be None or one of {MODES}, got {pruning!r}")
    start = time.perf_counter()
    pairs = None
    if pruning is not None:
        marginals = [estimate_joint(reports, (j,), method, **options).joint for j in range(reports.d)]
        pairs = list(itertools.combinations(kept_attributes(marginals, phi, mode=pruning), 2))
    joints = pairwise_joints(reports, method, pairs=pairs, **options)
    mi = np.zeros((reports.d, reports.d))
    for (a, b), p in joints.items():
        mi[a, b] = mi[b, a] = mutual_information(p)
    if pruning is None:
        graph = dependency_graph(mi, reports.domains, phi)
    else:
        graph = entropy_prune(mi, marginals, reports.domains, phi, mode=pruning).graph
    tree = junction_tree(graph)
    seconds = time.perf_counter() - start
    largest = tree.max_clique_cells(reports.domains)
    if largest > max_clique_cells:
        raise ValueError(
            f"the junction tree has a clique with {largest} cells > max_clique_cells = "
            f"{max_clique_cells}; use a larger phi (now {phi}) or raise the limit"
        )
    return Reduction(mi, graph, tree, joints, seconds, method, phi)


def lopub_release(
    reports: LoPubReports,
    schema: CodedTable,
    phi: float,
    method: str = LASSO_EM,
    *,
    n: int | None = None,
    rng: Any = None,
    pruning: str | None = None,
    max_clique_cells: int = 1_000_000,
    **options: Any,
) -> Release:
    """LoPub end to end on collected reports: reduce (Alg. 4), then synthesize ``n`` records (Alg. 6).

    ``schema`` gives the attribute names and value labels of the output (any
    :class:`CodedTable` with the reports' domains, e.g. the original training table;
    only its schema is read).  ``n`` defaults to the number of reports.  ``pruning`` selects
    Algorithm 5 for the dependency search (see :func:`reduce_dimensions`).
    """
    if schema.sizes != reports.domains:
        raise ValueError(f"schema domains {schema.sizes} differ from the reports' {reports.domains}")
    n = reports.n if n is None else check_int(n, "n", minimum=1)
    red = reduce_dimensions(reports, phi, method, pruning=pruning, max_clique_cells=max_clique_cells, **options)
    start = time.perf_counter()

    def clique_joint(clique: tuple[int, ...]) -> np.ndarray:
        if len(clique) == 2 and tuple(sorted(clique)) in red.pair_joints:
            p = red.pair_joints[tuple(sorted(clique))]
            return p if clique[0] < clique[1] else p.T
        return estimate_joint(reports, clique, method, **options).joint

    syn = synthesize(red.tree, reports.domains, clique_joint, n, rng)
    seconds = time.perf_counter() - start
    return Release(schema.with_codes(syn.codes), red, syn, seconds)
