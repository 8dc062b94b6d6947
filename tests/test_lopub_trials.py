"""Trial functions of the LoPub experiments notebook and the plot helper, at tiny sizes."""

from __future__ import annotations

import math
from functools import partial

import matplotlib
import numpy as np
import pytest

from ldp.lopub import METHODS, CodedTable
from ldp.lopub.datasets import tpce_standin
from ldp.lopub.evaluation import forest_predict, one_hot
from ldp.lopub.figures import method_style, plot_by_method
from ldp.lopub.joint import estimate_joint, estimate_joints
from ldp.lopub.trials import (
    RELEASE_READINGS,
    estimator_trial,
    nonprivate_trial,
    per_report_em_cost,
    per_report_em_seconds,
    product_of_marginals,
    random_combinations,
    release_reading_trial,
    release_trial,
    sample_rows,
)
from ldp.plotting import new_figure
from ldp.sweep import sweep

matplotlib.use("Agg")


def _table(n=400):
    return tpce_standin(n=n, rng=3).select([0, 1, 2, 9, 13])


def test_sampling_and_combinations_are_reproducible():
    a, b = sample_rows(1000, 0.1, 5), sample_rows(1000, 0.1, 5)
    np.testing.assert_array_equal(a, b)
    assert a.size == 100 and np.all(np.diff(a) > 0)
    combos = random_combinations(6, 3, 50, seed=1)
    assert len(combos) == 20 and len(set(combos)) == 20  # C(6, 3): all of them
    assert random_combinations(6, 3, 4, seed=2) == random_combinations(6, 3, 4, seed=2)
    with pytest.raises(ValueError, match="k must be <= 6"):
        random_combinations(6, 7, 1, seed=0)


def test_product_of_marginals():
    p = np.array([[0.4, 0.1], [0.1, 0.4]])
    np.testing.assert_allclose(product_of_marginals(p), np.full((2, 2), 0.25))
    q = np.random.default_rng(0).dirichlet(np.ones(24)).reshape(2, 3, 4)
    prod = product_of_marginals(q)
    np.testing.assert_allclose(prod.sum(axis=(1, 2)), q.sum(axis=(1, 2)))
    np.testing.assert_allclose(prod.sum(axis=(0, 1)), q.sum(axis=(0, 1)))


def test_estimator_trial_in_a_sweep():
    trial = partial(estimator_trial, _table(), 2, rate=1.0, m=16, n_combos=2)
    df = sweep(trial, {"f": [0.2, 0.8], "sample_seed": [0]}, trials=1, seed=1, progress=False)
    assert set(df["method"]) == set(METHODS)
    assert len(df) == 2 * 2 * 3
    assert df["avd"].between(0, 1).all() and (df["seconds"] > 0).all()
    em = df[df.method == "EM_JD"].groupby("f")["avd"].mean()
    assert em.loc[0.2] < em.loc[0.8]
    # same sample seed -> same combinations at every f
    assert list(df[df.f == 0.2]["combo"]) == list(df[df.f == 0.8]["combo"])


def test_release_trial_rows():
    rows = release_trial(
        _table(500), 0.3, 0, 1, rate=1.0, phi=0.3, m=16, svm_targets=[1, 3], rf_targets=[0, 1], n_estimators=5
    )
    assert [r["method"] for r in rows] == ["non-private", *METHODS]
    for r in rows[1:]:
        assert not r["failed"]
        assert r["accuracy"] + r["added"] + r["lost"] == pytest.approx(1.0)
        assert 0 <= r["svm"] <= 1 and 0 <= r["rf"] <= 1 and r["seconds"] > 0
    tiny = release_trial(_table(300), 0.3, 0, 1, rate=1.0, phi=0.0, m=16, methods=("Lasso_JD",), max_clique_cells=10)
    assert tiny[1]["failed"] and "max_clique_cells" in tiny[1]["reason"]


def test_plot_helper_and_styles():
    df = estimator_trial(_table(), 2, 0.5, 0, 1, m=16, n_combos=1)
    import pandas as pd

    frame = pd.DataFrame(df).assign(f=0.5)
    fig, ax = new_figure()
    plot_by_method(ax, frame, "f", "avd", logy=True)
    assert len(ax.get_lines()) == 3
    assert method_style("EM_JD") != method_style("Lasso_JD")
    with pytest.raises(ValueError, match="lacks the columns"):
        plot_by_method(ax, frame, "f", "nope")
    matplotlib.pyplot.close(fig)


def test_one_hot_and_select():
    codes = np.array([[0, 2], [1, 0]])
    x = one_hot(codes, [2, 3]).toarray()
    np.testing.assert_array_equal(x, [[1, 0, 0, 0, 1], [0, 1, 1, 0, 0]])
    t = CodedTable(codes, ("a", "b"), ((0, 1), ("x", "y", "z")))
    s = t.select([1])
    assert s.names == ("b",) and s.sizes == (3,)
    with pytest.raises(ValueError, match="distinct indices"):
        t.select([0, 0])


def _without_timings(rows):
    return [{k: v for k, v in r.items() if not k.startswith("seconds")} for r in rows]


def test_shared_lasso_fit_gives_the_separate_estimates():
    from ldp.lopub import LoPubEncoder

    table = _table(600)
    reports = LoPubEncoder(table.sizes, f=0.4, m=16, h=2).encode(table, 3, attrs=(0, 2))
    shared = estimate_joints(reports, (0, 1), METHODS)
    assert list(shared) == list(METHODS)
    for method in METHODS:
        alone = estimate_joint(reports.uncached(), (0, 1), method)
        assert np.array_equal(shared[method].joint, alone.joint)
        assert (shared[method].iterations, shared[method].converged) == (alone.iterations, alone.converged)
    # the Lasso fit is charged to both Lasso methods
    assert shared["Lasso+EM_JD"].seconds > shared["Lasso_JD"].seconds > 0


@pytest.mark.parametrize("methods", [METHODS, ("EM_JD", "Lasso+EM_JD"), ("Lasso+EM_JD", "EM_JD"), ("EM_JD",)])
def test_shared_likelihoods_are_built_once_and_charged_to_both_ems(monkeypatch, methods):
    import time

    from ldp.lopub import LoPubEncoder, likelihood

    table = _table(600)
    reports = LoPubEncoder(table.sizes, f=0.4, m=16, h=2).encode(table, 3, attrs=(0, 2))
    alone = {m: estimate_joint(reports.uncached(), (0, 1), m) for m in methods}
    original, builds = likelihood.log_likelihood_table, []

    def slow_table(*args):  # every table build takes at least 50 ms
        builds.append(1)
        time.sleep(0.05)
        return original(*args)

    monkeypatch.setattr(likelihood, "log_likelihood_table", slow_table)
    shared = estimate_joints(reports, (0, 1), methods)
    for m in methods:
        assert np.array_equal(shared[m].joint, alone[m].joint)
        assert shared[m].iterations == alone[m].iterations
    ems = [m for m in methods if m != "Lasso_JD"]
    assert len(builds) == 2  # two attributes, one table each, whatever the number of EMs
    for m in ems:  # each EM is charged the two builds
        assert shared[m].seconds >= 0.1


def test_release_rows_do_not_depend_on_the_nonprivate_row():
    args = dict(rate=1.0, phi=0.3, m=16, svm_targets=[1, 3], rf_targets=[0, 1], n_estimators=5)
    full = release_trial(_table(500), 0.3, 0, 1, **args)
    private = release_trial(_table(500), 0.3, 0, 1, nonprivate=False, **args)
    assert _without_timings(private) == _without_timings(full[1:])
    alone = nonprivate_trial(_table(500), 0, 2, rate=1.0, svm_targets=[1, 3], rf_targets=[0, 1], n_estimators=5)
    assert len(alone) == 1 and alone[0]["method"] == "non-private"
    assert {k: alone[0][k] for k in ("n_train", "n_test", "svm")} == {
        k: full[0][k] for k in ("n_train", "n_test", "svm")
    }


def test_a_release_reading_is_release_trial_with_its_settings_changed():
    args = dict(rate=1.0, phi=0.3, m=16, rf_targets=[0, 1], n_estimators=5, nonprivate=False, methods=["Lasso_JD"])
    for reading, change in RELEASE_READINGS.items():
        got = release_reading_trial(_table(400), 0.5, 0, reading, 3, **args)
        assert _without_timings(got) == _without_timings(release_trial(_table(400), 0.5, 0, 3, **{**args, **change}))
    test_share = release_reading_trial(_table(400), 0.5, 0, "30 % test records", 3, **args)[0]
    assert test_share["n_test"] == 120 and test_share["n_train"] == 280
    with pytest.raises(ValueError, match="reading must be one of"):
        release_reading_trial(_table(400), 0.5, 0, "200 trees", 3, **args)


@pytest.mark.parametrize("distinct", [40, 5000, None])
def test_forest_on_distinct_rows_is_the_scikit_learn_forest(distinct):
    from sklearn.ensemble import RandomForestClassifier

    g = np.random.default_rng(distinct or 1)
    if distinct is None:  # every record distinct, some labels absent from the test set's predictions
        x = g.permutation(np.array(np.unravel_index(np.arange(3000), (10, 10, 30))).T)
        y = np.where(x[:, 0] + g.integers(0, 3, size=3000) > 8, "hi", "lo")
    else:
        pool = g.integers(0, 4, size=(distinct, 5))
        x = pool[g.integers(0, distinct, size=3000)]  # few distinct records when distinct = 40
        y = (x[:, 0] + x[:, 1] + g.integers(0, 2, size=3000)) % 3
    x_test = g.integers(0, 4, size=(500, x.shape[1]))
    for seed in (0, 7, 123456):
        forest = RandomForestClassifier(n_estimators=15, random_state=seed, n_jobs=1).fit(x, y)
        assert np.array_equal(forest_predict(x, y, x_test, n_estimators=15, seed=seed), forest.predict(x_test))


@pytest.mark.parametrize("path", ["builder", "estimator"])
def test_both_tree_paths_give_the_scikit_learn_forest(monkeypatch, path):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier, _criterion

    g = np.random.default_rng(11)
    x = g.integers(0, 6, size=(800, 4))
    y = (x[:, 0] * x[:, 1] + g.integers(0, 3, size=800)) % 4
    x_test = g.integers(0, 6, size=(300, 4))
    expected = RandomForestClassifier(n_estimators=12, random_state=3, n_jobs=1).fit(x, y).predict(x_test)

    def refuse(*args, **kwargs):
        raise TypeError("path switched off by the test")

    if path == "builder":  # the direct builder must serve every tree
        monkeypatch.setattr(DecisionTreeClassifier, "_fit", refuse)
    else:  # a scikit-learn whose builder signature differs falls back to the estimator
        monkeypatch.setattr(_criterion, "Gini", refuse)
    assert np.array_equal(forest_predict(x, y, x_test, n_estimators=12, seed=3), expected)


def test_per_report_em_cost_is_positive_and_linear_in_users():
    """No timing assertion beyond signs: the exponent is printed in the notebook, not tested on a busy machine."""
    from ldp.lopub.encoding import LoPubEncoder

    table = _table(300)
    reports = LoPubEncoder(table.sizes, f=0.5, m=16).encode(table, 0, attrs=(0, 1))
    cost = per_report_em_cost(reports, users=20, extra_iterations=2)
    assert cost["cells"] == table.sizes[0] * table.sizes[1]
    assert cost["setup"] >= 0 and cost["per_iteration"] >= 0 and cost["setup"] + cost["per_iteration"] > 0
    assert math.isfinite(cost["users_exponent"])
    t = per_report_em_seconds(cost, [100, 200], cost["cells"], 5)
    assert t[1] == pytest.approx(2 * t[0])
    with pytest.raises(ValueError, match="half"):
        per_report_em_cost(reports, users=200)


def test_estimator_rows_record_the_support():
    rows = estimator_trial(_table(300), 2, 0.5, 0, 1, m=16, n_combos=1)
    for r in rows:
        assert 1 <= r["support"] <= r["cells"]
