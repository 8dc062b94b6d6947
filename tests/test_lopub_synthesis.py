"""Synthesis (Alg. 6), the end-to-end pipeline (Alg. 4 + 6), evaluation and the datasets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp.data import is_available, load
from ldp.lopub import (
    EM,
    LASSO,
    LASSO_EM,
    CodedTable,
    JunctionTree,
    LoPubEncoder,
    average_classification_rate,
    binary_attributes,
    classification_rate,
    empirical_joint,
    junction_tree,
    lopub_release,
    random_guess_rate,
    reduce_dimensions,
    synthesize,
    train_test_split_rows,
)
from ldp.lopub.datasets import (
    ADULT_SVM_TARGETS,
    TPCE_SVM_TARGETS,
    adult_standin,
    adult_table,
    domain_bits,
    retail_standin,
    retail_table,
    tpce_standin,
)
from ldp.metrics import avd


def _tv_sd(p: np.ndarray, n: int) -> float:
    """Expected AVD of an n-sample empirical distribution is <= 0.5 * sum sqrt(p(1-p)/n)."""
    return float(0.5 * np.sum(np.sqrt(p * (1 - p) / n)))


# ------------------------------------------------------------------ T-S1: one clique, exact joint
def test_single_clique_reproduces_joint():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(20)).reshape(4, 5)
    tree = JunctionTree(((0, 1),), (), ())
    n = 100_000
    res = synthesize(tree, (4, 5), lambda c: p, n, rng=1)
    emp = empirical_joint(res.codes, (4, 5), (0, 1))
    assert avd(emp.ravel(), p.ravel()) < 0.02
    assert avd(emp.ravel(), p.ravel()) < 3 * _tv_sd(p.ravel(), n)
    assert res.fallback_rows == 0


# ------------------------------------------------------------------ T-S2: the separator is respected
def test_chain_of_two_cliques_matches_both_marginals():
    rng = np.random.default_rng(1)
    pabc = rng.dirichlet(np.full(24, 0.5)).reshape(2, 3, 4)
    pab, pbc = pabc.sum(axis=2), pabc.sum(axis=0)
    tree = JunctionTree(((0, 1), (1, 2)), ((0, 1),), ())
    n = 60_000

    def joint(c):
        return {(0, 1): pab, (1, 2): pbc}[tuple(c)]

    res = synthesize(tree, (2, 3, 4), joint, n, rng=2)
    for attrs, target in (((0, 1), pab), ((1, 2), pbc)):
        emp = empirical_joint(res.codes, (2, 3, 4), attrs)
        assert avd(emp.ravel(), target.ravel()) < 4 * _tv_sd(target.ravel(), n)
    # conditional independence of A and C given B holds in the synthetic data
    emp3 = empirical_joint(res.codes, (2, 3, 4), (0, 1, 2))
    ci = pab[:, :, None] * pbc[None, :, :] / pab.sum(axis=0)[None, :, None]
    assert avd(emp3.ravel(), ci.ravel()) < 4 * _tv_sd(ci.ravel(), n)


# ------------------------------------------------------------------ T-S3: zero-probability separator values
def test_zero_probability_separator_falls_back():
    pab = np.array([[0.25, 0.25], [0.25, 0.25]])
    pbc = np.array([[0.5, 0.5], [0.0, 0.0]])  # B = 1 impossible under the second clique
    tree = JunctionTree(((0, 1), (1, 2)), ((0, 1),), ())

    roots = set()
    for seed in range(12):
        res = synthesize(tree, (2, 2, 2), lambda c: {(0, 1): pab, (1, 2): pbc}[tuple(c)], 4000, rng=seed)
        roots.add(res.order[0])
        assert res.codes.min() >= 0
        if res.order[0] == 0:  # B sampled from the first clique: about half the rows hit B = 1
            assert 1500 < res.fallback_rows < 2500
        else:  # B sampled from the second clique: never 1
            assert res.fallback_rows == 0
    assert roots == {0, 1}  # the root clique is chosen at random (line 3 of Alg. 6)


def test_isolated_attributes_and_bad_input():
    tree = junction_tree(np.zeros((3, 3), dtype=int))
    res = synthesize(tree, (2, 3, 4), lambda c: np.ones(tuple((2, 3, 4)[a] for a in c)), 500, rng=0)
    assert res.codes.shape == (500, 3) and sorted(res.order) == [0, 1, 2]
    with pytest.raises(ValueError, match="cover every attribute"):
        synthesize(JunctionTree(((0,),), (), ()), (2, 3), lambda c: np.ones(2), 10)
    with pytest.raises(ValueError, match="has shape"):
        synthesize(JunctionTree(((0,), (1,)), (), ()), (2, 3), lambda c: np.ones(5), 10)


# ------------------------------------------------------------------ pipeline
def _correlated_table(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.85, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    d = np.where(rng.random(n) < 0.9, c, 1 - c)
    e = rng.integers(0, 4, n)
    codes = np.column_stack([a, b, c, d, e])
    labels = (("lo", "mid", "hi"), ("x", "y", "z"), ("no", "yes"), ("off", "on"), (1, 2, 3, 4))
    return CodedTable(codes, ("a", "b", "c", "d", "e"), labels)


def _perturbation_cov(reports, attrs, p: np.ndarray) -> np.ndarray:
    """Covariance of the EM (maximum-likelihood) joint of ``attrs`` around the users' own empirical joint ``p``.

    Observed Fisher information of the mixture weights, ``I = sum_i g_i g_i^T`` with the score
    ``g_i[c] = L_i[c] / sum_c' p[c'] L_i[c']`` (``L_i[c]`` = likelihood of report ``i`` under cell ``c``),
    inverted on the simplex's tangent space ``{x : sum x = 0}``.  ``I^-1`` is the variance around the
    *population* joint; it splits into the multinomial variance of the users' empirical joint,
    ``(diag p - p p^T) / n``, plus the part added by the randomized response (missing-information
    principle).  Only the latter separates the estimate from ``p``, so it is what is returned.
    """
    from ldp.lopub import log_likelihood_table

    L = np.ones((reports.n, 1))
    for a in attrs:
        ll = log_likelihood_table(reports.bits[a], reports.filters[a], reports.f)
        la = np.exp(ll - ll.max(axis=1, keepdims=True))  # per-report factors cancel in g
        L = (L[:, :, None] * la[:, None, :]).reshape(reports.n, -1)
    g = L / (L @ p)[:, None]
    info = g.T @ g
    z = np.vstack([np.eye(p.size - 1), -np.ones((1, p.size - 1))])  # basis of {x : sum x = 0}
    cov = z @ np.linalg.inv(z.T @ info @ z) @ z.T
    return cov - (np.diag(p) - np.outer(p, p)) / reports.n


def test_release_has_schema_and_marginals_within_tolerance():
    table = _correlated_table()
    rep = LoPubEncoder(table.sizes, f=0.2, m=32, h=4, names=table.names).encode(table, rng=1)
    # EM run to convergence (delta = 1e-6), so the clique joints are maximum-likelihood estimates
    rel = lopub_release(rep, table, phi=0.3, method=EM, rng=2, delta=1e-6)
    out = rel.table
    assert out.names == table.names and out.categories == table.categories and out.n == table.n
    frame = out.to_frame()
    assert list(frame.columns) == list(table.names)
    assert [list(frame[c].cat.categories) for c in frame.columns] == [list(v) for v in table.categories]
    # the strong pairs are found and become their own cliques, so every synthetic marginal below is an
    # i.i.d. sample of size n from one estimated clique joint (no conditioning on a separator)
    edges = {(a, b) for a, b in zip(*np.nonzero(np.triu(rel.reduction.graph)))}
    assert edges == {(0, 1), (2, 3)}
    assert sorted(rel.reduction.tree.cliques) == [(0, 1), (2, 3), (4,)]
    for attrs in ((0, 1), (2, 3), (4,)):
        true = empirical_joint(table.codes, table.sizes, attrs).ravel()
        syn = empirical_joint(out.codes, table.sizes, attrs).ravel()
        # Tolerance from the noise.  Per cell, synthetic - true = (estimate - true) + (sample - estimate):
        # the first has the randomized-response variance of the MLE (Fisher information, see
        # _perturbation_cov), the second the multinomial variance p(1-p)/n of drawing n synthetic records.
        # Each cell lies within 4 sd with probability 1 - 6e-5 (normal approximation), so by a union bound
        # over <= 9 cells, AVD = 0.5 sum |error| <= 0.5 * 4 * sum sd fails with probability < 1e-3.
        # At f = 0.2 and n = 3000 they are about 0.05 (2x2), 0.06 (4 values) and 0.08 (3x3); the perturbation
        # sd per cell is only ~0.001, so the synthetic sampling dominates.
        var = np.clip(np.diag(_perturbation_cov(rep, attrs, true)), 0.0, None) + true * (1 - true) / out.n
        bound = 0.5 * 4 * np.sqrt(var).sum()
        assert avd(true, syn) < bound, (attrs, avd(true, syn), bound)
    assert rel.seconds > 0 and rel.reduction.seconds > 0


def test_reduce_dimensions_clique_guard():
    table = _correlated_table(n=500)
    rep = LoPubEncoder(table.sizes, f=0.2, m=32, h=4).encode(table, rng=1)
    with pytest.raises(ValueError, match="max_clique_cells"):
        reduce_dimensions(rep, 0.0, LASSO, max_clique_cells=10)


def test_schema_coding_rejects_unknown_categories():
    table = _correlated_table(n=10)
    frame = table.to_frame()
    again = table.code_frame(frame)
    np.testing.assert_array_equal(again.codes, table.codes)
    bad = frame.astype(object)
    bad.loc[0, "b"] = "w"
    with pytest.raises(ValueError, match="unknown categories"):
        table.code_frame(bad)
    with pytest.raises(ValueError, match="codes outside"):
        table.with_codes(np.full((2, 5), 3))


# ------------------------------------------------------------------ evaluation
def test_classifiers_learn_a_deterministic_target():
    table = _correlated_table(n=2000, seed=3)
    train_idx, test_idx = train_test_split_rows(table.n, 0.25, rng=0)
    train, test = table.take(train_idx), table.take(test_idx)
    for model in ("svm", "rf"):
        acc = classification_rate(train, test, 3, model=model, n_estimators=20, rng=1)
        assert acc > 0.85  # d copies c with prob. 0.9
    assert binary_attributes(table.sizes) == [2, 3]
    assert random_guess_rate(table.sizes, [2, 3]) == 0.5
    avg = average_classification_rate(train, test, [0, 2], model="rf", n_estimators=10, rng=0)
    assert 0.5 < avg <= 1
    const = train.with_codes(np.where(np.arange(5) == 3, 0, train.codes))
    assert classification_rate(const, test, 3) == pytest.approx(np.mean(test.codes[:, 3] == 0))
    with pytest.raises(ValueError, match="model must be one of"):
        classification_rate(train, test, 3, model="knn")


# ------------------------------------------------------------------ datasets
def test_tpce_standin_schema():
    t = tpce_standin(n=2000, rng=0)
    assert t.d == 24 and t.n == 2000
    assert binary_attributes(t.sizes) == list(TPCE_SVM_TARGETS)
    assert domain_bits(t.sizes) == pytest.approx(76.7, abs=0.05)
    again = tpce_standin(n=2000, rng=0)
    np.testing.assert_array_equal(t.codes, again.codes)


def test_standins_shapes():
    a = adult_standin(n=1000)
    assert a.d == 15 and binary_attributes(a.sizes) == list(ADULT_SVM_TARGETS)
    r = retail_standin(n=1000)
    assert r.d == 16 and set(np.unique(r.codes)) == {0, 1}


@pytest.mark.skipif(not is_available("adult"), reason="Adult files not present")
def test_adult_table_matches_paper_shape():
    t = adult_table(load("adult"))
    assert t.n == 45_222 and t.d == 15
    assert domain_bits(t.sizes) == pytest.approx(52, abs=0.5)
    assert binary_attributes(t.sizes) == list(ADULT_SVM_TARGETS)
    assert random_guess_rate(t.sizes, range(15)) == pytest.approx(0.15, abs=0.01)


@pytest.mark.skipif(not is_available("retail"), reason="retail.dat not present")
def test_retail_table_matches_paper_shape():
    t = retail_table(load("retail"))
    assert t.n == 27_522 and t.d == 16
    assert t.names[:2] == ("item_39", "item_48")
    assert isinstance(t.to_frame(), pd.DataFrame)


@pytest.mark.skipif(not is_available("adult"), reason="Adult files not present")
def test_adult_exact_dependency_counts_match_table7_where_binning_allows():
    """With our binning, exact MI reproduces Table 7's #Dep at phi = 0.3 and 0.4 (24 and 14)."""
    from ldp.lopub import dependency_graph, edge_count, empirical_mi_matrix

    t = adult_table(load("adult"))
    mi = empirical_mi_matrix(t.codes, t.sizes)
    assert edge_count(dependency_graph(mi, t.sizes, 0.3)) == 24
    assert edge_count(dependency_graph(mi, t.sizes, 0.4)) == 14


def test_reduction_with_pruning_estimates_only_kept_pairs():
    table = _correlated_table(n=1500)
    rep = LoPubEncoder(table.sizes, f=0.2, m=32, h=4).encode(table, rng=1)
    full = reduce_dimensions(rep, 0.3, LASSO_EM)
    pruned = reduce_dimensions(rep, 0.3, LASSO_EM, pruning="nonbinary")
    assert len(full.pair_joints) == 10
    assert len(pruned.pair_joints) == 6  # C(half_up(5 * 0.7), 2) = C(4, 2)
    # every edge found with pruning is an edge of the full search (same estimator, same reports)
    assert np.all(pruned.graph <= full.graph)
    binary = reduce_dimensions(rep, 0.3, LASSO_EM, pruning="binary")
    assert np.all(binary.graph >= full.graph)
    with pytest.raises(ValueError, match="pruning must be None or one of"):
        reduce_dimensions(rep, 0.3, LASSO_EM, pruning="sparse")
    rel = lopub_release(rep, table, 0.3, LASSO_EM, pruning="nonbinary", rng=0)
    assert rel.table.n == table.n
