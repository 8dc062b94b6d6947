"""Trial functions behind the CLLDP experiments chapter (Xue et al., Sec. 7).

Each function has the signature ``func(**params, rng) -> list of dicts`` expected
by :func:`ldp.sweep.sweep`, so every figure is one sweep with reproducible
per-trial random streams.

* :func:`joint_error_trial` -- Fig. 3: L2 error of the joint estimate on a
  synthetic set for the basic solution and kHR with ``k = 1``,
  ``k = ⌊m/(e^ε+1)⌋`` and Eq. (8);
* :func:`public_joint_error_trial` -- Fig. 3 extended to one (attribute, label) pair of
  each public table (the paper's Fig. 3 covers the synthetic sets only), with ω from a
  10% SS sample as Sec. 7.3 prescribes for real data;
* :func:`k_sweep_trial` -- Fig. 6: the same error for a list of ``k`` at one ε;
* :func:`classifier_trial` -- Fig. 4: test accuracy of Naive Bayes or CART
  under every mechanism on a public table (70/30 split);
* :func:`attack_trial` -- Fig. 5: accuracy of the label-inference attack
  under LabelDP and under CLLDP;
* :func:`summarise_trials` and :func:`paired_gap` -- means with standard errors,
  and differences between two methods measured on the same trials, for the
  claims' noise margins (the book's verdict policy).

Randomness: the dataset draw, the split and every user's perturbation come
from the trial's ``rng``.  The error is measured on the raw, unclipped Eq. (5)
estimates against the empirical joint of the generated records.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_generator, check_codes, check_epsilon, check_int
from ..mechanism import sample_support
from ..sweep import summarise
from .accounting import pl_true_beliefs
from .attack import clldp_attack, labeldp_attack
from .basic import BasicSolution
from .belief import belief_functions, estimate_conditionals, true_conditionals
from .datasets import CodedTable, load_public, make_synthetic, synthetic_conditional
from .encoding import label_attribute_domain
from .kchoice import k_floor, select_k
from .khr import KHR
from .leakage import khr_leakage
from .naive_bayes import CLLDPNaiveBayes
from .omega import conditional_from_joint, omega, omega_curve
from .paper import FIG6_EPSILON, OMEGA_SAMPLE_FRACTION, SYNTHETIC_M_ATTR, SYNTHETIC_M_LABEL, TRAIN_FRACTION, TREE_DEPTH
from .tree import CLLDPDecisionTree
from .tree.protocol import attrs_of_mask

__all__ = [
    "JOINT_METHODS",
    "CLASSIFIER_METHODS",
    "FIG3_PUBLIC_ATTRIBUTE",
    "joint_error_trial",
    "public_joint_error_trial",
    "k_sweep_trial",
    "theory_error",
    "public_table",
    "classifier_trial",
    "attack_trial",
    "tree_true_leakage",
    "tree_leakage_trial",
    "nb_leakage_trial",
    "summarise_trials",
    "paired_gap",
]

_M_ATTR, _M_LABEL = SYNTHETIC_M_ATTR, SYNTHETIC_M_LABEL
_M = _M_ATTR * _M_LABEL
#: the synthetic sets' (label, attribute) domain
_PAIRS = label_attribute_domain(_M_ATTR, _M_LABEL)
#: Fig. 3 legend
JOINT_METHODS = ("basic solution", "kHR k=1", "kHR k=floor", "kHR Eq. 8")
#: Fig. 4 legend (+ the non-private reference line)
CLASSIFIER_METHODS = ("kHR k=1", "kHR k=floor", "kHR Eq. 8", "basic solution", "LabelDP", "non-private")


#: Fig. 3 on the public tables: the attribute paired with the label.  The paper is silent here
#: (the paper's Fig. 3 is synthetic only), so: Adult's ``education`` (16 values, the classic
#: income predictor), SmartGrid's ``stab`` (10 bins; the label is a threshold of it, so the
#: strongest correlation possible) and the Healthcare stand-in's ``Hospital_code`` (32 values).
FIG3_PUBLIC_ATTRIBUTE = {"adult": "education", "smartgrid": "stab", "healthcare": "Hospital_code"}


def _k_of(method: str, epsilon: float, cond: Any, m: int = _M) -> int:
    if method == "kHR k=1":
        return 1
    if method == "kHR k=floor":
        return k_floor(epsilon, m)
    return select_k(epsilon, m, cond, "paper")


def _khr_error(
    attr: np.ndarray,
    label: np.ndarray,
    truth: np.ndarray,
    epsilon: float,
    k: int,
    w: float,
    gen: np.random.Generator,
    m_attr: int = _M_ATTR,
    m_label: int = _M_LABEL,
) -> float:
    mech = KHR(epsilon, w, k, m_attr, m_label)
    x = mech.encode(attr, label)
    n = x.size
    counts = sample_support(mech, np.bincount(x, minlength=m_attr * m_label), gen)
    return float(np.linalg.norm(mech.estimate_counts(counts, n) - truth))


def theory_error(epsilon: float, method: str, dataset: str, n: int, k: int | None = None) -> float:
    """``sqrt(E[err^2])`` from Eq. (7) summed over the 250 cells, with the generator's ω(k)."""
    cond = synthetic_conditional(dataset)
    if method == "basic solution":
        return math.sqrt(BasicSolution(epsilon, _M_ATTR, _M_LABEL).expected_sq_l2(n))
    kk = _k_of(method, epsilon, cond) if k is None else k
    return math.sqrt(KHR(epsilon, omega(cond, kk), kk, _M_ATTR, _M_LABEL).expected_sq_l2(n))


def joint_error_trial(dataset: str, epsilon: float, n: int, rng: Any) -> list[dict]:
    """Fig. 3, one trial: draw ``n`` records, estimate the 5 x 50 joint with each method.

    Methods that end up with the same ``k`` share one simulated run (their curves coincide,
    as Sec. 7.2 says they should).
    """
    eps = check_epsilon(epsilon)
    n = check_int(n, "n", minimum=1)
    gen = as_generator(rng)
    attr, label = make_synthetic(dataset, n, gen)
    truth = np.bincount(_PAIRS.encode(label, attr), minlength=_M) / n
    cond = synthetic_conditional(dataset)
    rows, done = [], {}
    basic = BasicSolution(eps, _M_ATTR, _M_LABEL)
    counts = basic.simulate_counts(np.bincount(basic.encode(attr, label), minlength=_M), gen)
    rows.append(
        dict(
            method="basic solution",
            k=_M,
            omega=1.0,
            err=float(np.linalg.norm(basic.estimate_counts(counts, n) - truth)),
            theory=theory_error(eps, "basic solution", dataset, n),
        )
    )
    for method in JOINT_METHODS[1:]:
        k = _k_of(method, eps, cond)
        w = omega(cond, k)
        if k not in done:
            done[k] = _khr_error(attr, label, truth, eps, k, w, gen)
        rows.append(dict(method=method, k=k, omega=w, err=done[k], theory=theory_error(eps, method, dataset, n, k)))
    return rows


def public_joint_error_trial(
    dataset: str,
    epsilon: float,
    rng: Any,
    max_rows: int | None = None,
    omega_fraction: float = OMEGA_SAMPLE_FRACTION,
    attribute: str | None = None,
) -> list[dict]:
    """Fig. 3 on a public table, one trial: the joint of one attribute and the label.

    A random ``omega_fraction`` of the rows (10%, Sec. 7.3) reports
    ``(attribute, label)`` by subset selection with the full ε; the collector turns
    that into ``Pr{a | l}`` (clipped, row-normalised) and evaluates Def. 5 at every
    ``k`` it needs, Eq. (8) included.  The other rows report by the basic solution or
    kHR, and the error is the L2 norm of the raw Eq. (5) estimate minus their empirical
    joint.  ``theory`` is ``sqrt(E[err^2])`` from Eq. (7) summed over the cells, *given*
    the belief this trial used; ``omega_true`` is Def. 5 on the empirical conditionals
    of the whole table (evaluation only, for footnote 4).
    """
    eps = check_epsilon(epsilon)
    table, _ = public_table(dataset, max_rows)
    name = FIG3_PUBLIC_ATTRIBUTE[dataset] if attribute is None else attribute
    if name not in table.names:
        raise ValueError(f"attribute must be one of {table.names}, got {name!r}")
    col = table.names.index(name)
    m_a, m_l = table.sizes[col], len(table.classes)
    m = m_a * m_l
    gen = as_generator(rng)
    perm = gen.permutation(table.n)
    n_w = int(round(float(omega_fraction) * table.n))
    sample, rest = np.sort(perm[:n_w]), np.sort(perm[n_w:])
    a, y = table.X[:, col], table.y
    est = estimate_conditionals(a[sample, None], y[sample], [m_a], m_l, eps, gen)[0] if n_w else None
    w_of = belief_functions([est], 1)[0]  # ω = 1 (the conservative value) without a sample
    true_cond = true_conditionals(a[:, None], y, [m_a], m_l)[0]
    attr, label = a[rest], y[rest]
    n = attr.size
    truth = np.bincount(label_attribute_domain(m_a, m_l).encode(label, attr), minlength=m) / n
    common = dict(attribute=name, m=m, n=n)
    rows = [{**_basic_solution_row(attr, label, truth, eps, m_a, m_l, gen), **common}]
    done: dict = {}
    for method in JOINT_METHODS[1:]:
        k = _k_of(method, eps, w_of, m)
        w = w_of(k)
        if k not in done:
            done[k] = _khr_error(attr, label, truth, eps, k, w, gen, m_a, m_l)
        rows.append(
            dict(
                method=method,
                k=k,
                omega=w,
                omega_true=omega(true_cond, k),
                err=done[k],
                theory=math.sqrt(KHR(eps, w, k, m_a, m_l).expected_sq_l2(n)),
                **common,
            )
        )
    return rows


def _basic_solution_row(
    attr: np.ndarray, label: np.ndarray, truth: np.ndarray, eps: float, m_a: int, m_l: int, gen: np.random.Generator
) -> dict:
    """The basic solution's row of :func:`public_joint_error_trial`: L2 error vs ``truth``, ``sqrt(E[err^2])``."""
    m, n = m_a * m_l, attr.size
    basic = BasicSolution(eps, m_a, m_l)
    counts = basic.simulate_counts(np.bincount(basic.encode(attr, label), minlength=m), gen)
    err = float(np.linalg.norm(basic.estimate_counts(counts, n) - truth))
    return dict(
        method="basic solution", k=m, omega=1.0, omega_true=1.0, err=err, theory=math.sqrt(basic.expected_sq_l2(n))
    )


def k_sweep_trial(dataset: str, ks: tuple, n: int, rng: Any, epsilon: float = FIG6_EPSILON) -> list[dict]:
    """Fig. 6, one trial: error of kHR for every ``k`` in ``ks`` on one draw of ``dataset``."""
    gen = as_generator(rng)
    attr, label = make_synthetic(dataset, n, gen)
    truth = np.bincount(_PAIRS.encode(label, attr), minlength=_M) / n
    cond = synthetic_conditional(dataset)
    return [dict(k=int(k), err=_khr_error(attr, label, truth, epsilon, int(k), omega(cond, int(k)), gen)) for k in ks]


@cache
def public_table(name: str, max_rows: int | None = None) -> tuple[CodedTable, Any]:
    """A public table (cached per process), uniformly subsampled to ``max_rows`` with a fixed seed."""
    table, source = load_public(name, max_rows)
    if max_rows is not None and table.n > max_rows:
        table = table.subsample(max_rows, rng=12345)
    return table, source


def _split(n: int, gen: np.random.Generator, train: float = TRAIN_FRACTION) -> tuple[np.ndarray, np.ndarray]:
    perm = gen.permutation(n)
    cut = int(round(train * n))
    return np.sort(perm[:cut]), np.sort(perm[cut:])


def classifier_trial(
    dataset: str, model: str, epsilon: float, rng: Any, max_rows: int | None = None, max_depth: int = TREE_DEPTH
) -> list[dict]:
    """Fig. 4, one trial: a fresh 70/30 split, then every method's test accuracy.

    ``model`` is ``"NB"`` or ``"DT"``.  CLLDP methods estimate ω from 10% of the
    training users by SS (Sec. 7.3); those users do not train the model.  The kHR
    variants of one trial use the same random stream (common random numbers), so that
    their differences, paired by trial, carry only the effect of their choice of ``k``.
    """
    table, _ = public_table(dataset, max_rows)
    gen = as_generator(rng)
    tr, te = _split(table.n, gen)
    cls = {"NB": CLLDPNaiveBayes, "DT": CLLDPDecisionTree}[model]
    # the tree follows the paper's reading of the belief update (Sec. 7.3), not the package's safer default
    extra = {"max_depth": max_depth, "omega_update": "previous_estimate"} if model == "DT" else {}
    specs = {
        "kHR k=1": ("khr", 1),
        "kHR k=floor": ("khr", "floor"),
        "kHR Eq. 8": ("khr", "eq8"),
        "basic solution": ("basic", 1),
        "LabelDP": ("labeldp", 1),
        "non-private": ("none", 1),
    }
    rows = []
    # the three kHR variants share one stream (common random numbers): where two of them choose the same k for
    # every attribute they are the same protocol run and give the same model, so their paired difference is 0
    khr_seed = int(gen.integers(0, 2**63 - 1))
    for method in CLASSIFIER_METHODS:
        mech, k = specs[method]
        seed = khr_seed if mech == "khr" else int(gen.integers(0, 2**63 - 1))
        clf = cls(epsilon=epsilon, mechanism=mech, k=k, n_categories=table.sizes, random_state=seed, **extra)
        clf.fit(table.X[tr], table.y[tr])
        row = dict(method=method, accuracy=float(clf.score(table.X[te], table.y[te])))
        if model == "DT" and mech in ("khr", "basic"):
            row["max_log_leakage"] = float(clf.leakage_.max())
        rows.append(row)
    return rows


def attack_trial(dataset: str, epsilon: float, rng: Any, max_rows: int | None = None) -> list[dict]:
    """Fig. 5, one trial: attack accuracy on the training users under LabelDP and CLLDP (variants A, B).

    For CLLDP, 10% of the training users estimate the beliefs by SS and the others
    report by Algorithm 3; the attacked users are the reporters.
    """
    table, _ = public_table(dataset, max_rows)
    gen = as_generator(rng)
    tr, _ = _split(table.n, gen)
    X, y = table.X[tr], table.y[tr]
    m_l = len(table.classes)
    lab = labeldp_attack(X, y, table.sizes, m_l, epsilon, gen)
    perm = gen.permutation(tr.size)
    n_w = int(round(OMEGA_SAMPLE_FRACTION * tr.size))
    sample, rest = np.sort(perm[:n_w]), np.sort(perm[n_w:])
    tables = estimate_conditionals(X[sample], y[sample], table.sizes, m_l, epsilon, gen)
    a = clldp_attack(X[rest], y[rest], table.sizes, m_l, epsilon, tables, gen, variant="A")
    b = clldp_attack(X[rest], y[rest], table.sizes, m_l, epsilon, tables, gen, variant="B", k="eq8")
    return [
        dict(method="LabelDP", accuracy=lab.accuracy, prior_only=lab.prior_only),
        dict(method="CLLDP (attack A)", accuracy=a.accuracy, prior_only=a.prior_only),
        dict(method="CLLDP (attack B)", accuracy=b.accuracy, prior_only=b.prior_only),
    ]


def tree_true_leakage(clf: CLLDPDecisionTree, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each reporter's final ``ln PL`` of a fitted CLLDP tree, re-evaluated with the *true* beliefs.

    ``X, y`` are the integer codes of the users who reported (``clf.reporter_rows_`` of the
    training data).  The true belief of a user's round-``r`` combination at her ``k`` is
    Def. 5 on the exact conditional table of those users (an evaluation-only, non-private
    computation); :func:`ldp.clldp.accounting.pl_true_beliefs` does the rest.
    """
    sizes = tuple(int(m) for m in clf.n_categories_)
    m_l = clf.classes_.size
    cols = [check_codes(X[:, a], m, f"X[:, {a}]") for a, m in enumerate(sizes)]
    y = np.asarray(y, dtype=np.int64)
    w_true = np.zeros(clf.budgets_.shape)
    k = clf.k_.astype(np.int64)
    if k.size and k.min() < 1:
        raise ValueError(f"the tree's heads k_ must be >= 1 (a kHR tree), got {int(k.min())}")
    best: dict = {}  # combination -> ω(K) for K = 1..m_s (Def. 5 on the exact table)
    for r, masks in enumerate(clf.combination_masks_):
        live = np.flatnonzero(clf.budgets_[r] > 0)
        uniq, inverse = np.unique(masks[live], return_inverse=True)
        for g, mask in enumerate(uniq.tolist()):
            if mask not in best:
                attrs = attrs_of_mask(mask)
                m_s = int(np.prod([sizes[a] for a in attrs]))
                sv = np.ravel_multi_index(tuple(cols[a] for a in attrs), tuple(sizes[a] for a in attrs))
                joint = np.bincount(y * m_s + sv, minlength=m_l * m_s).reshape(m_l, m_s).astype(float)
                best[mask] = omega_curve(conditional_from_joint(joint), np.arange(1, m_s + 1))
            members = live[inverse.ravel() == g]
            curve = best[mask]
            w_true[r, members] = curve[np.minimum(k[members], curve.size) - 1]
    return np.log(pl_true_beliefs(clf.budgets_, clf.omegas_, w_true))


def tree_leakage_trial(dataset: str, epsilon: float, omega_update: str, rng: Any, max_rows: int | None = None) -> dict:
    """Ledger leakage versus leakage under the true beliefs for one CLLDP tree (kHR, Eq. 8)."""
    table, _ = public_table(dataset, max_rows)
    gen = as_generator(rng)
    tr, _ = _split(table.n, gen)
    clf = CLLDPDecisionTree(
        epsilon,
        "khr",
        k="eq8",
        omega_update=omega_update,
        n_categories=table.sizes,
        random_state=int(gen.integers(0, 2**63 - 1)),
    ).fit(table.X[tr], table.y[tr])
    rows = tr[clf.reporter_rows_]
    true_pl = tree_true_leakage(clf, table.X[rows], table.y[rows])
    return dict(
        ledger_max=float(clf.leakage_.max()),
        true_max=float(true_pl.max()),
        share_over=float(np.mean(true_pl > epsilon * (1 + 1e-9))),
    )


def nb_leakage_trial(dataset: str, epsilon: float, rng: Any, max_rows: int | None = None) -> dict:
    """Naive Bayes (kHR, Eq. 8, ω from the 10% SS sample): each attribute group's leakage under the true ω.

    Footnote 4: a group calibrated with ``ω`` whose true belief is ``ω*`` leaks
    ``ω* (e^ε + ω - 1)/ω + 1 - ω*``.  Returns the largest ``ln PL`` over the attributes and
    the share of attributes (and of reporters) above ε.
    """
    table, _ = public_table(dataset, max_rows)
    gen = as_generator(rng)
    tr, _ = _split(table.n, gen)
    clf = CLLDPNaiveBayes(
        epsilon, "khr", k="eq8", n_categories=table.sizes, random_state=int(gen.integers(0, 2**63 - 1))
    ).fit(table.X[tr], table.y[tr])
    rows = tr[clf.reporter_rows_]
    truth = true_conditionals(table.X[rows], table.y[rows], table.sizes, len(table.classes))
    logs, weights = [], []
    for c, mech in enumerate(clf.tables_.mechanisms):
        logs.append(math.log(khr_leakage(epsilon, mech.omega, omega(truth[c], mech.k))))
        weights.append(float(np.mean(clf.tables_.groups == c)))
    logs_a, w_a = np.array(logs), np.array(weights)
    over = logs_a > epsilon * (1 + 1e-9)
    return dict(
        max_log_pl=float(logs_a.max()),
        share_attributes_over=float(over.mean()),
        share_users_over=float(w_a[over].sum()),
    )


def summarise_trials(frame: pd.DataFrame, by: list[str], values: list[str]) -> pd.DataFrame:
    """Mean and standard error per group (:func:`ldp.sweep.summarise`); one trial gets a standard error of 0."""
    out = summarise(frame, by=by, values=values)
    return out.fillna({c: 0.0 for c in out.columns if c.endswith(("_se", "_std"))})


def paired_gap(
    frame: pd.DataFrame, value: str, a: str, b: str | list[str], by: list[str], against: str = "min"
) -> pd.DataFrame:
    """Difference ``value[a] - value[b]`` per group, paired by trial, with its standard error.

    All methods of one trial of a sweep see the same data (the same records, split and
    sample), so the difference between two methods is measured within each trial and its
    standard error comes from the spread of those differences over the trials; this is the
    noise an ordering or equality claim is judged against (``our_se`` of the rules in
    :mod:`ldp.claims`, with ``trials`` the number of trials).

    Parameters
    ----------
    frame : DataFrame
        A sweep's trial rows with columns ``method``, ``trial``, ``value`` and ``by``.
    value : str
        The measured column (an error or an accuracy).
    a : str
        The method whose value comes first in the difference.
    b : str or list of str
        The method it is compared with; with a list, per group the one whose mean is
        lowest (``against="min"``) or highest (``against="max"``).
    by : list of str
        Columns that define a group (e.g. ``["dataset", "epsilon"]``).
    against : {"min", "max"}
        How to pick ``b`` from a list.

    Returns
    -------
    DataFrame
        Indexed by ``by``: ``gap`` (mean difference), ``se`` (its standard error over the
        trials, 0 with one trial), ``z`` (``gap / se``: 0 for an exact tie, ±inf when
        ``se`` is 0 and the gap is not) and ``against`` (the method of ``b`` used).
    """
    if against not in ("min", "max"):
        raise ValueError(f"against must be 'min' or 'max', got {against!r}")
    bs = [b] if isinstance(b, str) else list(b)
    missing = [m for m in [a, *bs] if m not in set(frame["method"])]
    if missing:
        raise ValueError(f"methods not in frame: {missing}; available: {sorted(set(frame['method']))}")
    wide = frame.pivot_table(index=[*by, "trial"], columns="method", values=value)
    means = wide[bs].groupby(level=by).mean()
    pick = means.idxmin(axis=1) if against == "min" else means.idxmax(axis=1)
    chosen = pick.reindex(wide.index.droplevel("trial")).to_numpy()
    other = wide[bs].to_numpy()[np.arange(len(wide)), [bs.index(m) for m in chosen]]
    diff = pd.Series(wide[a].to_numpy() - other, index=wide.index)
    g = diff.groupby(level=by)
    out = pd.DataFrame({"gap": g.mean(), "se": (g.std(ddof=1) / np.sqrt(g.count())).fillna(0.0)})
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(out.gap == 0, 0.0, out.gap / out.se)
    out["z"] = z
    out["against"] = pick.reindex(out.index)
    return out
