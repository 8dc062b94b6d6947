"""Trial functions for the LoPub experiments (Sec. 6 of Ren et al.), written for ``ldp.sweep.sweep``.

Each function takes the parameters of one grid point plus ``rng`` and returns a
list of result rows.  The randomness is split in two on purpose:

* ``sample_seed`` (a grid parameter) fixes which records are sampled, how they
  are split into training and test sets, and which attribute combinations are
  drawn, so curves over ``f`` compare the same records and combinations;
* ``rng`` (supplied by the sweep) drives the users' perturbation and the
  synthesis.

* :func:`estimator_trial` -- Figs 7-18: time, AVD and EM iterations of the three
  estimators on random k-attribute combinations, plus the AVD of the product of
  the true marginals (the best any marginal-only method such as Lasso_JD can do
  on average; see :mod:`ldp.lopub.lasso`).
* :func:`release_trial` -- Figs 22-30: one LoPub release per estimator from the
  training users' reports, SVM and random-forest accuracy on real test records,
  and the overall server time; each row also compares the release's dependency
  graph with the graph of the exact mutual informations (Figs 19-21).
* :func:`release_reading_trial` -- :func:`release_trial` under one of :data:`RELEASE_READINGS`, the
  settings the paper does not give (Lasso's α, the forest's trees, the test share), for the rows
  whose value could depend on them.
* :func:`nonprivate_trial` -- the same classifiers trained on the real training
  records; they do not depend on ``f``, so a sweep runs them once per sample.
* :func:`per_report_em_cost` / :func:`per_report_em_seconds` -- the cost of EM_JD run as
  the paper describes it (a loop over every user's report and every candidate cell),
  measured on a few users and scaled to a sweep's sizes, for the paper's timing claims.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._checks import as_generator, check_domain_size, check_int, check_probability
from ..exceptions import ConvergenceWarning
from ..metrics import avd
from ..tables import CodedTable
from .dependency import dependency_graph, empirical_joint, empirical_mi_matrix, identification_rates
from .em import em_joint_per_report
from .encoding import LoPubEncoder
from .evaluation import AUTHORS_FOREST_TREES, average_classification_rate, train_test_split_rows
from .joint import METHODS, estimate_joints
from .paper import HASHES
from .pipeline import lopub_release
from .reports import LoPubReports


def sample_rows(n: int, rate: float, seed: int) -> np.ndarray:
    """Sorted indices of a uniform sample of ``round(rate n)`` rows (``rate = 1`` keeps all)."""
    rate = check_probability(rate, "rate", open_low=True)
    k = max(2, int(round(rate * n)))
    return np.sort(np.random.default_rng(seed).choice(n, size=min(k, n), replace=False))


def random_combinations(d: int, k: int, count: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` distinct random ``k``-subsets of ``range(d)`` (all of them if there are fewer)."""
    d = check_domain_size(d, "d", minimum=1)
    k = check_int(k, "k", minimum=1, maximum=d)
    count = check_int(count, "count", minimum=1)
    total = math.comb(d, k)
    gen = np.random.default_rng(seed)
    seen: list[tuple[int, ...]] = []
    while len(seen) < min(count, total):
        combo = tuple(sorted(gen.choice(d, size=k, replace=False).tolist()))
        if combo not in seen:
            seen.append(combo)
    return seen


def product_of_marginals(joint: np.ndarray) -> np.ndarray:
    """The independent joint with the same one-way marginals as ``joint``."""
    k = joint.ndim
    out = np.ones(())
    for j in range(k):
        out = np.multiply.outer(out, joint.sum(axis=tuple(a for a in range(k) if a != j)))
    return out


def estimator_trial(
    table: CodedTable,
    k: int,
    f: float,
    sample_seed: int,
    rng: Any,
    *,
    rate: float = 1.0,
    m: int = 128,
    h: int = HASHES,
    n_combos: int = 10,
    delta: float = 1e-3,
    alpha: float = 1e-5,
    methods: Sequence[str] = METHODS,
) -> list[dict]:
    """Figs 7-18: estimate the joint of random ``k``-combinations with every method.

    Returns one row per (combination, method) with ``seconds`` (including the
    likelihood tables for EM, from a fresh cache), ``avd`` against the empirical joint
    of the sampled records, ``iterations``, ``support`` (the cells the estimate keeps
    positive: for Lasso+EM_JD the support its EM runs on), the AVD of the product of the
    true marginals (``indep_avd``), and ``n`` (sampled users).
    """
    gen = as_generator(rng)
    rows_idx = sample_rows(table.n, rate, sample_seed)
    data = table.take(rows_idx)
    encoder = LoPubEncoder(data.sizes, f=f, m=m, h=h, names=data.names)
    out = []
    for combo in random_combinations(data.d, k, n_combos, sample_seed):
        truth = empirical_joint(data.codes, data.sizes, combo)
        prod = product_of_marginals(truth)
        reports = encoder.encode(data, gen, attrs=combo)
        for method, est in estimate_joints(reports, tuple(range(k)), methods, delta=delta, alpha=alpha).items():
            out.append(
                {
                    "combo": combo,
                    "cells": int(truth.size),
                    "method": method,
                    "seconds": est.seconds,
                    "avd": avd(est.joint, truth),
                    "iterations": est.iterations,
                    "support": int(np.count_nonzero(est.joint > 0)),
                    "indep_avd": avd(prod, truth),
                    "n": data.n,
                }
            )
    return out


def reference_graph(table: CodedTable, phi: float) -> np.ndarray:
    """Dependency graph of the exact mutual informations of ``table`` (the ``G*`` of Figs 19-21)."""
    return dependency_graph(empirical_mi_matrix(table.codes, table.sizes), table.sizes, phi)


def release_trial(
    table: CodedTable,
    f: float,
    sample_seed: int,
    rng: Any,
    *,
    rate: float = 1.0,
    test_fraction: float = 0.2,
    phi: float = 0.4,
    m: int = 128,
    h: int = HASHES,
    svm_targets: Sequence[int] = (),
    rf_targets: Sequence[int] = (),
    n_estimators: int = AUTHORS_FOREST_TREES,
    delta: float = 1e-3,
    alpha: float = 1e-5,
    methods: Sequence[str] = METHODS,
    max_clique_cells: int = 200_000,
    nonprivate: bool = True,
) -> list[dict]:
    """Figs 22-30: one LoPub release per method from the training users' reports.

    The sampled records are split into training users (who send reports) and real
    test records.  Rows: one per method with the identification rates, the number
    of edges and cliques, the largest clique, the server time (reduction and
    synthesis), the number of synthesis fallback rows and the SVM/RF accuracies on
    the test records; plus, when ``nonprivate``, one ``"non-private"`` row with the
    classifiers trained on the real training set (first).  A release whose junction tree has
    a clique above ``max_clique_cells`` is recorded with ``failed=True``.  The rows of the
    releases do not depend on ``nonprivate``.
    """
    gen = as_generator(rng)
    train, test = _train_test(table, rate, sample_seed, test_fraction)
    truth_graph = reference_graph(train, phi)
    encoder = LoPubEncoder(train.sizes, f=f, m=m, h=h, names=train.names)
    reports = encoder.encode(train, gen)
    clf_seed = int(gen.integers(2**31 - 1))

    def scores(release_table: CodedTable) -> dict:
        return _scores(release_table, test, svm_targets, rf_targets, n_estimators, clf_seed)

    out = []
    if nonprivate:
        out.append({"method": "non-private", "n_train": train.n, "n_test": test.n, "failed": False, **scores(train)})
    for method in methods:
        rep = reports.uncached()
        out.append(
            _release_row(method, rep, train, test, phi, truth_graph, scores, gen, delta, alpha, max_clique_cells)
        )
    return out


def _release_row(
    method: str,
    rep: LoPubReports,
    train: CodedTable,
    test: CodedTable,
    phi: float,
    truth_graph: np.ndarray,
    scores: Callable[[CodedTable], dict],
    gen: np.random.Generator,
    delta: float,
    alpha: float,
    max_clique_cells: int,
) -> dict:
    """One method's row of :func:`release_trial` (``failed=True`` with the reason when a clique is too large)."""
    row = {"method": method, "n_train": train.n, "n_test": test.n}
    try:
        rel = lopub_release(
            rep, train, phi, method, rng=gen, delta=delta, alpha=alpha, max_clique_cells=max_clique_cells
        )
    except ValueError as exc:
        if "max_clique_cells" not in str(exc):
            raise
        return {**row, "failed": True, "reason": str(exc)}
    red = rel.reduction
    row.update(identification_rates(red.graph, truth_graph))
    row.update(
        {
            "failed": False,
            "edges": int(red.graph.sum() // 2),
            "true_edges": int(truth_graph.sum() // 2),
            "cliques": len(red.tree.cliques),
            "max_clique": max(len(c) for c in red.tree.cliques),
            "seconds_reduction": red.seconds,
            "seconds_synthesis": rel.seconds_synthesis,
            "seconds": rel.seconds,
            "fallback_rows": rel.synthesis.fallback_rows,
        }
    )
    row.update(scores(rel.table))
    return row


def _train_test(
    table: CodedTable, rate: float, sample_seed: int, test_fraction: float
) -> tuple[CodedTable, CodedTable]:
    data = table.take(sample_rows(table.n, rate, sample_seed))
    train_idx, test_idx = train_test_split_rows(data.n, test_fraction, rng=sample_seed)
    return data.take(train_idx), data.take(test_idx)


def _scores(
    train: CodedTable,
    test: CodedTable,
    svm_targets: Sequence[int],
    rf_targets: Sequence[int],
    n_estimators: int,
    clf_seed: int,
) -> dict:
    row = {}
    if svm_targets:
        row["svm"] = average_classification_rate(train, test, svm_targets, model="svm")
    if rf_targets:
        row["rf"] = average_classification_rate(
            train, test, rf_targets, model="rf", n_estimators=n_estimators, rng=clf_seed
        )
    return row


#: Settings of a release the paper does not publish, each a change from the defaults of :func:`release_trial`
#: (the authors' Lasso α = 10⁻⁵ of Sec. 6, their script's 10-tree forests and our 20 % test share).
RELEASE_READINGS: dict[str, dict[str, Any]] = {
    "as in the book (α = 10⁻⁵, 10 trees, 20 % test)": {},
    "Lasso α = 10⁻³": {"alpha": 1e-3},
    "Lasso α = 10⁻²": {"alpha": 1e-2},
    "100 trees (today's scikit-learn default)": {"n_estimators": 100},
    "30 % test records": {"test_fraction": 0.3},
}


def release_reading_trial(
    table: CodedTable, f: float, sample_seed: int, reading: str, rng: Any, **settings: Any
) -> list[dict]:
    """:func:`release_trial` with the changes of ``RELEASE_READINGS[reading]`` on top of ``settings``."""
    if reading not in RELEASE_READINGS:
        raise ValueError(f"reading must be one of {list(RELEASE_READINGS)}, got {reading!r}")
    return release_trial(table, f, sample_seed, rng, **{**settings, **RELEASE_READINGS[reading]})


def nonprivate_trial(
    table: CodedTable,
    sample_seed: int,
    rng: Any,
    *,
    rate: float = 1.0,
    test_fraction: float = 0.2,
    svm_targets: Sequence[int] = (),
    rf_targets: Sequence[int] = (),
    n_estimators: int = AUTHORS_FOREST_TREES,
) -> list[dict]:
    """The ``"non-private"`` row of :func:`release_trial` on its own: classifiers trained on the real training set.

    Same sample and split as :func:`release_trial` for the same ``sample_seed``; the forest's
    seed comes from ``rng``.  Nothing here depends on ``f``, so a sweep over ``sample_seed``
    alone gives the non-private reference once per sample instead of once per ``f``.
    """
    train, test = _train_test(table, rate, sample_seed, test_fraction)
    clf_seed = int(as_generator(rng).integers(2**31 - 1))
    return [
        {
            "method": "non-private",
            "n_train": train.n,
            "n_test": test.n,
            "failed": False,
            **_scores(train, test, svm_targets, rf_targets, n_estimators, clf_seed),
        }
    ]


def _time_per_report(reports: LoPubReports, users: int, iterations: int, repeats: int) -> float:
    """The shortest of ``repeats`` timings (the least disturbed by other work on the machine)."""
    cluster = tuple(range(reports.d))
    sub = reports.subset(np.arange(min(users, reports.n)))
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        em_joint_per_report(sub, cluster, delta=1e-12, max_iter=iterations)
        best = min(best, time.perf_counter() - start)
    return best


def per_report_em_cost(
    reports: LoPubReports, *, users: int = 100, extra_iterations: int = 10, repeats: int = 5
) -> dict:
    """Seconds per user and candidate cell of EM_JD run report by report, as Algorithm 1 is written.

    ``reports`` holds the reports of one cluster (all its attributes).  The loop
    :func:`~ldp.lopub.em.em_joint_per_report` is timed on ``users`` and ``2 users`` of them,
    for one and for ``1 + extra_iterations`` iterations, each the shortest of ``repeats``
    runs.  Returns ``setup`` (seconds per user and cell for the likelihood of every report
    under every candidate, lines 2-7), ``per_iteration`` (seconds per user, cell and
    iteration, lines 9-15), ``cells`` and the fitted exponent of the time in the number of
    users, ``users_exponent`` (1 for a loop over reports), from the two user counts.
    """
    users = check_int(users, "users", minimum=2)
    extra = check_int(extra_iterations, "extra_iterations", minimum=1)
    repeats = check_int(repeats, "repeats", minimum=1)
    if 2 * users > reports.n:
        raise ValueError(f"users must be at most half the {reports.n} reports, got {users}")
    with warnings.catch_warnings():
        # a timing run: the tiny delta makes every run do exactly the requested steps, so it never "converges"
        warnings.simplefilter("ignore", ConvergenceWarning)
        one = _time_per_report(reports, users, 1, repeats)
        more = _time_per_report(reports, users, 1 + extra, repeats)
        double = _time_per_report(reports, 2 * users, 1 + extra, repeats)
    cells = int(np.prod([reports.domains[a] for a in range(reports.d)]))
    per_iteration = max(more - one, 0.0) / (extra * users * cells)
    return {
        "cells": cells,
        "setup": max(one / (users * cells) - per_iteration, 0.0),
        "per_iteration": per_iteration,
        "users_exponent": math.log(double / more) / math.log(2.0),
    }


def per_report_em_seconds(cost: dict, users: Any, cells: Any, iterations: Any) -> Any:
    """The time of a per-report EM_JD on ``users`` reports, ``cells`` candidates and ``iterations`` steps.

    ``cost`` is a :func:`per_report_em_cost` result; the time is linear in the users and
    the cells (the loop visits every report under every candidate) and affine in the
    iterations.  Arrays broadcast.
    """
    n, c, it = (np.asarray(v, dtype=float) for v in (users, cells, iterations))
    out = n * c * (cost["setup"] + cost["per_iteration"] * it)
    return float(out) if out.ndim == 0 else out
