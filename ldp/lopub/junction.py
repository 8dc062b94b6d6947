"""Triangulation, cliques and the junction tree of a dependency graph (Alg. 4, steps 16-17).

The paper leaves the triangulation heuristic open (erratum E8).  Here:

* **Greedy min-fill elimination** with ties broken by the smallest attribute index,
  so the result is deterministic; the added fill edges are reported.
* **Maximal cliques** of the chordal graph with ``networkx.chordal_graph_cliques``;
  isolated attributes become singleton cliques.
* **Junction tree**: a maximum-weight spanning tree (forest, if the graph is
  disconnected) of the clique-intersection graph, weight ``|C_a & C_b|``
  (``networkx.maximum_spanning_tree``).  For a chordal graph every such tree has
  the running-intersection property, checked by
  :func:`has_running_intersection`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np


@dataclass(frozen=True)
class JunctionTree:
    """Cliques (sorted tuples of 0-based attributes), tree edges between clique indices, fill edges."""

    cliques: tuple[tuple[int, ...], ...]
    edges: tuple[tuple[int, int], ...]
    fill_edges: tuple[tuple[int, int], ...]

    def separators(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """Separator ``C_a & C_b`` of every tree edge."""
        return {(a, b): tuple(sorted(set(self.cliques[a]) & set(self.cliques[b]))) for a, b in self.edges}

    def max_clique_cells(self, domains: Sequence[int]) -> int:
        """Largest clique domain ``prod_{j in C} |Omega_j|`` (the cost driver of EM and Lasso)."""
        return max(int(np.prod([domains[a] for a in c])) for c in self.cliques)


def _graph(adjacency: Any) -> nx.Graph:
    a = np.asarray(adjacency)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency must be a square matrix, got shape {a.shape}")
    if not np.array_equal(a != 0, (a != 0).T):
        raise ValueError("adjacency must be symmetric")
    g = nx.Graph()
    g.add_nodes_from(range(a.shape[0]))
    rows, cols = np.nonzero(np.triu(a != 0, 1))
    g.add_edges_from(zip(rows.tolist(), cols.tolist()))
    return g


def triangulate(adjacency: Any) -> tuple[nx.Graph, list[tuple[int, int]]]:
    """Chordal supergraph by greedy min-fill elimination (ties: smallest index); returns (graph, fill edges)."""
    g = _graph(adjacency)
    work = g.copy()
    filled = g.copy()
    fill: list[tuple[int, int]] = []
    while work.number_of_nodes():
        best, best_fill = None, None
        for v in sorted(work.nodes):
            nb = sorted(work.neighbors(v))
            missing = [(a, b) for i, a in enumerate(nb) for b in nb[i + 1 :] if not work.has_edge(a, b)]
            if best_fill is None or len(missing) < len(best_fill):
                best, best_fill = v, missing
                if not missing:
                    break
        for a, b in best_fill:
            work.add_edge(a, b)
            filled.add_edge(a, b)
            fill.append((min(a, b), max(a, b)))
        work.remove_node(best)
    return filled, sorted(fill)


def junction_tree(adjacency: Any) -> JunctionTree:
    """Triangulate, take maximal cliques, connect them by a maximum-weight spanning forest."""
    chordal, fill = triangulate(adjacency)
    cliques = sorted((tuple(sorted(c)) for c in nx.chordal_graph_cliques(chordal)), key=lambda c: (c[0], c))
    cg = nx.Graph()
    cg.add_nodes_from(range(len(cliques)))
    for i in range(len(cliques)):
        for j in range(i + 1, len(cliques)):
            w = len(set(cliques[i]) & set(cliques[j]))
            if w:
                cg.add_edge(i, j, weight=w)
    tree = nx.maximum_spanning_tree(cg, algorithm="kruskal")
    edges = tuple(sorted((min(a, b), max(a, b)) for a, b in tree.edges))
    return JunctionTree(tuple(cliques), edges, tuple(fill))


def has_running_intersection(tree: JunctionTree) -> bool:
    """True iff, for every attribute, the cliques containing it form a connected subtree."""
    t = nx.Graph()
    t.add_nodes_from(range(len(tree.cliques)))
    t.add_edges_from(tree.edges)
    if not nx.is_forest(t):
        return False
    attrs = set().union(*map(set, tree.cliques)) if tree.cliques else set()
    for a in attrs:
        holders = [i for i, c in enumerate(tree.cliques) if a in c]
        if not nx.is_connected(t.subgraph(holders)):
            return False
    return True


def covers_edges(tree: JunctionTree, adjacency: Any) -> bool:
    """True iff every edge of the triangulated graph (original + fill) lies inside some clique."""
    g = _graph(adjacency)
    g.add_edges_from(tree.fill_edges)
    cl = [set(c) for c in tree.cliques]
    return all(any(a in c and b in c for c in cl) for a, b in g.edges)
