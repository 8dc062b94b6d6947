"""Utility of a synthetic release: classifiers trained on it, tested on real records (Sec. 6.3).

For every target attribute, a classifier is trained on the synthetic table with
all other attributes as features and scored (accuracy, the paper's
"classification rate") on held-out *real* records; the rates are averaged over
targets.  The paper uses an SVM on the binary attributes and a random forest on
all attributes, and compares with the same models trained on the real training
set and with random guessing (mean of ``1/|Omega_a|`` over targets).

The paper does not state the models' settings.  The authors' evaluation script
(``Evaluation_SVM.py`` of ``ren2018code``, commit 8c9b4a37) fits scikit-learn's
``svm.SVC()`` and ``RandomForestClassifier()`` with their default parameters on
the integer codes.  Their code is Python 2.7, so it ran on scikit-learn 0.20 or
older, whose forests had 10 trees by default (the default became 100 in 0.22):
:data:`AUTHORS_FOREST_TREES` is therefore the default here.  The forest is fitted
on the integer codes (binned, hence ordinal enough for trees), as theirs.  The SVM
differs: a linear SVM (``LinearSVC``) on one-hot features replaces the RBF ``SVC``,
whose fit time grows quadratically with the number of records.  When the synthetic
target column is constant, the constant is predicted.

Speed without changing the model: a table with many repeated records (Retail's
22,018 training baskets are about a thousand distinct records) is fitted by
:func:`forest_predict` on its distinct rows.  A scikit-learn forest already fits
each tree on all rows weighted by that tree's bootstrap counts; summing those
weights over copies of a record gives the same splits, so drawing each tree's
seed and bootstrap exactly as scikit-learn does reproduces its predictions
(tested against ``RandomForestClassifier``, with few and with mostly distinct
records).  Passing the aggregated counts to ``RandomForestClassifier`` as
``sample_weight`` instead would not reproduce the forest: how its bootstrap uses
sample weights depends on the scikit-learn version (1.9 draws rows with
probabilities proportional to the weights, earlier versions drew rows uniformly
and multiplied the counts by the weights), and in neither case are the draws
the ones made on the duplicated rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier, _criterion, _splitter, _tree

from .._checks import as_generator, check_int
from ..tables import CodedTable, distinct_rows

MODELS = ("svm", "rf")
#: trees per random forest in the authors' evaluation: ``RandomForestClassifier()`` with scikit-learn's default of
#: their time (10 trees up to scikit-learn 0.21; the last release for Python 2.7 was 0.20)
AUTHORS_FOREST_TREES = 10
_MAX_INT = np.iinfo(np.int32).max


def forest_predict(
    x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *, n_estimators: int, seed: int
) -> np.ndarray:
    """Predictions of ``RandomForestClassifier(n_estimators, random_state=seed, n_jobs=1)`` fitted on the training rows.

    Each tree is fitted on the distinct ``(features, label)`` rows with the summed bootstrap
    counts of their copies as weights, and predicts the distinct test rows only; the tree
    seeds and bootstraps are drawn as scikit-learn draws them, and the trees are built as the
    forest builds them (``_fit`` with ``check_input=False`` on float32 features and class codes),
    so the predictions are the forest's (tested against ``RandomForestClassifier``).  Skipping
    the forest's per-tree cloning and re-validation is most of the saving when rows are distinct.
    """
    x_train = np.asarray(x_train)
    y_train = np.asarray(y_train)
    n = x_train.shape[0]
    classes, y_code = np.unique(y_train, return_inverse=True)
    labelled = np.column_stack([x_train, y_code.ravel()])
    first, inverse = distinct_rows(labelled)
    xu = np.ascontiguousarray(labelled[first, :-1], dtype=np.float32)
    yu = np.ascontiguousarray(labelled[first, -1:], dtype=np.float64)  # class codes, as the forest passes them
    x_test = np.asarray(x_test)
    test_first, test_inverse = distinct_rows(x_test)
    xt = np.ascontiguousarray(x_test[test_first], dtype=np.float32)
    state = np.random.RandomState(seed)
    tree_seeds = [state.randint(_MAX_INT) for _ in range(n_estimators)]  # as BaseEnsemble._make_estimator
    proba = np.zeros((xt.shape[0], classes.size))
    for tree_seed in tree_seeds:
        # as sklearn.ensemble._forest._generate_sample_indices, then the counts as sample weights
        boot = np.random.RandomState(tree_seed).randint(0, n, n)
        weight = np.bincount(inverse[boot], minlength=first.size).astype(np.float64)
        proba += _tree_proba(xu, yu, weight, xt, classes.size, tree_seed)
    proba /= n_estimators
    return classes.take(np.argmax(proba, axis=1))[test_inverse]


def _tree_proba(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray, x_test: np.ndarray, n_classes: int, seed: int
) -> np.ndarray:
    """Class probabilities on ``x_test`` of one tree of the forest, fitted on ``(x, y)`` with ``weight``.

    The tree is ``DecisionTreeClassifier(max_features="sqrt", random_state=seed)`` fitted as
    ``_forest._parallel_build_trees`` fits it (``_fit(..., check_input=False)``).  Every class
    code ``0..n_classes-1`` occurs in ``y``.  Where scikit-learn's tree builder takes the
    arguments that ``_fit`` passes it for these settings (Gini, best splitter, depth-first, no
    limits, no pruning), the builder is called directly: same tree, without ``_fit``'s per-tree
    target and weight re-checks (a third of a small tree's cost).  Otherwise ``_fit`` is used.
    """
    p = x.shape[1]
    try:
        n_classes_arr = np.array([n_classes], dtype=np.intp)
        criterion = _criterion.Gini(1, n_classes_arr)
        splitter = _splitter.BestSplitter(criterion, max(1, int(np.sqrt(p))), 1, 0.0, np.random.RandomState(seed), None)
        tree = _tree.Tree(p, n_classes_arr, 1)
        builder = _tree.DepthFirstTreeBuilder(splitter, 2, 1, 0.0, np.iinfo(np.int32).max, 0.0)
    except (TypeError, ValueError):  # another scikit-learn layout: let the estimator build it
        clf = DecisionTreeClassifier(max_features="sqrt", random_state=seed)
        clf._fit(x, y, sample_weight=weight, check_input=False)
        return clf.predict_proba(x_test, check_input=False)
    builder.build(tree, x, y, weight, None)
    return tree.predict(x_test)[:, :n_classes]


def random_guess_rate(domains: Sequence[int], targets: Sequence[int]) -> float:
    """Mean of ``1/|Omega_a|`` over the targets (50 %, 15 %, 13 % in the paper)."""
    if len(targets) == 0:
        raise ValueError("targets is empty")
    return float(np.mean([1.0 / domains[t] for t in targets]))


def binary_attributes(domains: Sequence[int]) -> list[int]:
    """Indices of the attributes with exactly two values (the SVM targets)."""
    return [j for j, v in enumerate(domains) if v == 2]


def one_hot(codes: np.ndarray, domains: Sequence[int]) -> sparse.csr_matrix:
    """Sparse one-hot encoding of an ``(n, p)`` code matrix with the declared domains."""
    codes = np.asarray(codes, dtype=np.int64)
    n, p = codes.shape
    offsets = np.concatenate([[0], np.cumsum(domains)[:-1]]).astype(np.int64)
    cols = (codes + offsets[None, :]).ravel()
    rows = np.repeat(np.arange(n), p)
    return sparse.csr_matrix((np.ones(n * p), (rows, cols)), shape=(n, int(np.sum(domains))))


def _features(table: CodedTable, target: int, model: str) -> Any:
    cols = [j for j in range(table.d) if j != target]
    x = table.codes[:, cols]
    return one_hot(x, [table.sizes[j] for j in cols]) if model == "svm" else x


def classification_rate(
    train: CodedTable,
    test: CodedTable,
    target: int,
    *,
    model: str = "rf",
    n_estimators: int = AUTHORS_FOREST_TREES,
    rng: Any = None,
) -> float:
    """Accuracy on ``test`` of a ``model`` trained on ``train`` to predict attribute ``target``."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if train.sizes != test.sizes:
        raise ValueError(f"train and test schemas differ: {train.sizes} vs {test.sizes}")
    target = check_int(target, "target", minimum=0, maximum=train.d - 1)
    n_estimators = check_int(n_estimators, "n_estimators", minimum=1)
    y_train, y_test = train.codes[:, target], test.codes[:, target]
    if np.unique(y_train).size == 1:
        return float(np.mean(y_test == y_train[0]))
    if model == "rf":
        seed = int(as_generator(rng).integers(2**31 - 1))
        pred = forest_predict(
            _features(train, target, model),
            y_train,
            _features(test, target, model),
            n_estimators=n_estimators,
            seed=seed,
        )
        return float(np.mean(pred == y_test))
    clf = LinearSVC(C=1.0, max_iter=5000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(_features(train, target, model), y_train)
    return float(np.mean(clf.predict(_features(test, target, model)) == y_test))


def average_classification_rate(
    train: CodedTable,
    test: CodedTable,
    targets: Sequence[int],
    *,
    model: str = "rf",
    n_estimators: int = AUTHORS_FOREST_TREES,
    rng: Any = None,
) -> float:
    """Mean of :func:`classification_rate` over ``targets``."""
    if len(targets) == 0:
        raise ValueError("targets is empty")
    gen = as_generator(rng)
    return float(
        np.mean([classification_rate(train, test, t, model=model, n_estimators=n_estimators, rng=gen) for t in targets])
    )


def train_test_split_rows(n: int, test_fraction: float = 0.2, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Random disjoint train/test row indices (``test_fraction`` of ``n`` for testing)."""
    n = check_int(n, "n", minimum=2)
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    perm = as_generator(rng).permutation(n)
    n_test = max(1, int(round(n * test_fraction)))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])
