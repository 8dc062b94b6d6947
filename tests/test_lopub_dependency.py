"""Mutual information, threshold, dependency graph, junction tree, pruning and Tables 7-9 arithmetic."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from ldp.lopub import (
    covers_edges,
    dependency_graph,
    edge_count,
    entropy_prune,
    half_up,
    has_running_intersection,
    identification_rates,
    junction_tree,
    loss_ratio,
    mi_threshold,
    mutual_information,
    n_keep,
    pairwise_mi,
    pruning_table,
    reduction_ratio,
    relative_entropy,
    triangulate,
)
from ldp.lopub.paper import (
    EXAMPLE11_DOMAINS,
    EXAMPLE12_EDGES,
    FIG5_CLIQUES,
    FIG5_EDGES,
    FIG5_NODES,
    FIG5_SEPARATORS,
    PAPER_TABLE_D,
    PAPER_TABLES,
    example11_mi_matrix,
)


# ------------------------------------------------------------------ T-M1 .. T-M5
def test_mi_independent_is_zero_and_perfect_binary_is_ln2():
    assert mutual_information(np.outer([0.3, 0.7], [0.2, 0.5, 0.3])) == pytest.approx(0.0, abs=1e-15)
    assert mutual_information([[0.5, 0], [0, 0.5]]) == pytest.approx(math.log(2), rel=1e-12)


def test_mi_symmetric_and_non_negative():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.dirichlet(np.full(12, 0.3)).reshape(3, 4)
        i = mutual_information(p)
        assert i >= -1e-15
        assert i == pytest.approx(mutual_information(p.T), rel=1e-12, abs=1e-15)


def test_mi_with_separate_marginals():
    p = np.array([[0.4, 0.1], [0.1, 0.4]])
    assert mutual_information(p, [0.5, 0.5], [0.5, 0.5]) == pytest.approx(mutual_information(p))
    with pytest.raises(ValueError, match="marginals must have shapes"):
        mutual_information(p, [1.0], [0.5, 0.5])


def test_threshold_values_and_monotonicity():
    assert mi_threshold(2, 2, 0.25) == pytest.approx(0.03125)
    assert mi_threshold(2, 2, 0.4) == pytest.approx(0.08)
    assert mi_threshold(35, 4, 0.3) == pytest.approx(3 * 0.09 / 2)
    phis = np.linspace(0, 1, 11)
    taus = [mi_threshold(5, 7, p) for p in phis]
    assert np.all(np.diff(taus) > 0)
    mi = np.zeros((4, 4))
    g = dependency_graph(mi, (2, 3, 4, 5), 0.0)
    assert edge_count(g) == 12  # phi = 0, ">=": complete graph
    with pytest.raises(ValueError, match="phi must lie in"):
        mi_threshold(2, 2, 1.5)


# ------------------------------------------------------------------ T-G1: Examples 11-12
@pytest.mark.parametrize("phi, edges", [(0.32, EXAMPLE12_EDGES), (0.30, EXAMPLE12_EDGES | {(1, 2)}), (0.33, {(3, 4)})])
def test_example12_graph(phi, edges):
    g = dependency_graph(example11_mi_matrix(), EXAMPLE11_DOMAINS, phi)
    found = {(a + 1, b + 1) for a, b in zip(*np.nonzero(np.triu(g)))}
    assert found == edges
    assert np.all(np.diag(g) == 0)


def test_example12_cliques():
    tree = junction_tree(dependency_graph(example11_mi_matrix(), EXAMPLE11_DOMAINS, 0.32))
    assert {frozenset(a + 1 for a in c) for c in tree.cliques} == {frozenset({1, 4}), frozenset({3, 4}), frozenset({2})}


# ------------------------------------------------------------------ T-G2: Fig. 5 / Example 13
def _adjacency(n, edges):
    a = np.zeros((n, n), dtype=int)
    for u, v in edges:
        a[u - 1, v - 1] = a[v - 1, u - 1] = 1
    return a


def test_fig5_junction_tree():
    adj = _adjacency(FIG5_NODES, FIG5_EDGES)
    tree = junction_tree(adj)
    assert {frozenset(a + 1 for a in c) for c in tree.cliques} == {frozenset(c) for c in FIG5_CLIQUES}
    seps = sorted((set(a + 1 for a in s) for s in tree.separators().values()), key=len)
    assert seps == FIG5_SEPARATORS
    assert tree.fill_edges == ()
    assert has_running_intersection(tree) and covers_edges(tree, adj)


@pytest.mark.parametrize("seed", range(8))
def test_random_graphs_give_valid_junction_trees(seed):
    rng = np.random.default_rng(seed)
    n = 9
    a = np.triu((rng.random((n, n)) < 0.3).astype(int), 1)
    a = a + a.T
    tree = junction_tree(a)
    chordal, fill = triangulate(a)
    assert nx.is_chordal(chordal)
    assert set(range(n)) == set().union(*map(set, tree.cliques))
    assert has_running_intersection(tree)
    assert covers_edges(tree, a)
    # cliques are maximal and cover every edge of the triangulated graph
    for c in tree.cliques:
        assert all(chordal.has_edge(u, v) for u, v in itertools.combinations(c, 2))
    assert len(tree.edges) == len(tree.cliques) - nx.number_connected_components(chordal)


def test_running_intersection_detects_a_bad_tree():
    tree = junction_tree(_adjacency(FIG5_NODES, FIG5_EDGES))
    bad = type(tree)(tree.cliques, ((0, 3), (1, 3)), ())  # {1,2}-{6}-{2,3,5}: attribute 2 disconnected
    assert not has_running_intersection(bad)


def test_identification_rates_sum_to_one():
    rng = np.random.default_rng(2)
    g1 = np.triu((rng.random((10, 10)) < 0.4).astype(int), 1)
    g2 = np.triu((rng.random((10, 10)) < 0.4).astype(int), 1)
    r = identification_rates(g1 + g1.T, g2 + g2.T)
    assert r["accuracy"] + r["added"] + r["lost"] == pytest.approx(1.0)
    same = identification_rates(g1 + g1.T, g1 + g1.T)
    assert same == {"accuracy": 1.0, "added": 0.0, "lost": 0.0, "dependent": pytest.approx(g1.sum() / 45)}
    empty = identification_rates(np.zeros((10, 10), dtype=int), g2 + g2.T)
    assert empty["accuracy"] == pytest.approx(1 - r["dependent"]) and r["dependent"] == pytest.approx(g2.sum() / 45)


def test_pairwise_mi_uses_the_given_estimator():
    joints = {(0, 1): np.array([[0.5, 0], [0, 0.5]]), (0, 2): np.full((2, 2), 0.25), (1, 2): np.full((2, 2), 0.25)}
    mi = pairwise_mi(lambda pair: joints[pair], 3)
    assert mi[1, 0] == pytest.approx(math.log(2)) and mi[0, 2] == 0.0


# ------------------------------------------------------------------ T-R1, T-R2: pruning
def test_relative_entropy_of_uniform_binary():
    assert relative_entropy([0.5, 0.5]) == pytest.approx(math.log(2) / 2)


@pytest.mark.parametrize(
    "d, phi, keep",
    [
        (15, 0.3, 11),
        (15, 0.1, 14),
        (16, 0.15, 14),
        (16, 0.2, 13),
        (16, 0.3, 11),
        (24, 0.1, 22),
        (24, 0.2, 19),
        (24, 0.3, 17),
    ],
)
def test_n_keep_half_up(d, phi, keep):
    assert n_keep(d, phi) == keep


def test_bankers_round_would_fail_and_floor_is_printed_rule():
    assert round(15 * (1 - 0.3)) == 10 and half_up(15 * (1 - 0.3)) == 11
    assert n_keep(15, 0.3, rounding="floor") == 10
    with pytest.raises(ValueError, match="rounding must be one of"):
        n_keep(15, 0.3, rounding="nearest")


def test_entropy_prune_modes():
    d = 6
    rng = np.random.default_rng(0)
    margs = [rng.dirichlet(np.ones(3)) for _ in range(d)]
    mi = np.full((d, d), 1.0)
    np.fill_diagonal(mi, 0)
    mi[0, 1] = mi[1, 0] = 0.0
    non = entropy_prune(mi, margs, (3,) * d, 0.5, mode="nonbinary")
    assert len(non.kept) == 3 and len(non.pairs) == 3
    rh = [relative_entropy(m) for m in margs]
    assert set(non.kept) == set(np.argsort(rh)[::-1][:3].tolist())
    assert edge_count(non.graph) <= 6
    binm = entropy_prune(mi, margs, (3,) * d, 0.5, mode="binary")
    assert set(binm.kept) == set(np.argsort(rh)[:3].tolist())
    assert binm.dep_count(diagonal=True) == binm.dep_count() + d
    # binary mode only removes edges among the kept attributes
    outside = [(a, b) for a, b in itertools.combinations(range(d), 2) if not (a in binm.kept and b in binm.kept)]
    assert all(binm.graph[a, b] == 1 for a, b in outside)


# ------------------------------------------------------------------ T-R3: every printed cell of Tables 7-9
def test_ratio_examples_from_tables_7_to_9():
    assert loss_ratio(102, 88) == pytest.approx(0.137, abs=5e-4)
    assert loss_ratio(240, 256) == pytest.approx(-0.0667, abs=5e-5)
    assert reduction_ratio(105, 91) == pytest.approx(0.1333, abs=5e-5)
    assert reduction_ratio(276, 45) == pytest.approx(0.837, abs=5e-4)
    assert reduction_ratio(120, 55) == pytest.approx(0.5417, abs=5e-5)


@pytest.mark.parametrize("name", ["adult", "tpce", "retail"])
def test_paper_tables_arithmetic(name):
    t = PAPER_TABLES[name]
    d = PAPER_TABLE_D[name]
    bad = []
    for _, row in t.iterrows():
        assert row["pairs"] == d * (d - 1) // 2
        assert round(loss_ratio(row["dep"], row["dep_pruning"]), 3) == pytest.approx(row["loss_ratio"], abs=1e-9)
        red = round(reduction_ratio(row["pairs"], row["pairs_pruning"]), 3)
        if abs(red - row["reduction_ratio"]) > 1e-9:
            bad.append((row["phi"], row["reduction_ratio"], red))
        # #Pairs(Pruning) = C(n_keep, 2) with half-up rounding, except TPC-E at phi = 0.4, 0.5
        keep = n_keep(d, row["phi"])
        if not (name == "tpce" and row["phi"] >= 0.4):
            assert row["pairs_pruning"] == keep * (keep - 1) // 2
    # the only arithmetic slip: Table 9, phi = 0.3 prints 0.512 for (120 - 55) / 120 = 0.542 (erratum E15)
    assert bad == ([(0.3, 0.512, 0.542)] if name == "retail" else [])


def test_pruning_table_layout():
    d = 8
    rng = np.random.default_rng(5)
    mi = rng.random((d, d)) * 0.1
    mi = (mi + mi.T) / 2
    np.fill_diagonal(mi, 0)
    margs = [rng.dirichlet(np.ones(2)) for _ in range(d)]
    t = pruning_table(mi, margs, (2,) * d, [0.1, 0.2, 0.3], mode="binary")
    assert list(t["pairs"]) == [28] * 3
    assert list(t["pairs_pruning"]) == [n_keep(d, p) * (n_keep(d, p) - 1) // 2 for p in (0.1, 0.2, 0.3)]
    assert np.all(np.diff(t["reduction_ratio"]) >= 0)
    assert np.all(t["loss_ratio"] <= 0)  # binary mode never loses a dependency
    assert np.all(t["dep_pruning_diag"] == t["dep_pruning"] + d)
