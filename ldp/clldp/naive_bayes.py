"""Naive Bayes under CLLDP (Xue et al., Sec. 5, Algorithm 3), under LabelDP, and without privacy.

Protocol (Algorithm 3).  Every user draws an attribute index ``c`` uniformly
(independently of her data: Theorem 4's argument) and reports ``(d^c, l)``
through kHR with the whole budget ε and the belief ``ω_{a^c}(k)``.  For each
attribute the collector calibrates the reports of its group (Eq. (5)) into
the joint table ``Pr^{l, a^c}``; the label prior is the average of the
groups' label marginals (Alg. 3 line 9) and ``Pr{a^c_v | l}`` is the row-wise
normalised joint (Eq. (10)).  Prediction is Eq. (9).

Post-processing (not in the paper but unavoidable; our choice): the raw joints
have negative cells at small ε, so each label row is clipped at 0 and
renormalised, probabilities are floored at 1e-12 before taking logs, and the
prior is clipped and renormalised.  The raw joints are kept in
``joints_`` for inspection.

Baselines with the same estimator: the basic solution (SUE on the pair,
ω = 1), LabelDP (every user releases all true attributes and a subset-selection
label report; joints are calibrated with the label mechanism's ``p, q``), and
the non-private model (exact counts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import as_generator, check_epsilon
from ..estimate import clip_normalise
from ..oracles import SubsetSelection, sample_support
from .basic import BasicSolution
from .estimator_base import CLLDPClassifierBase
from .kchoice import resolve_k
from .khr import KHR
from .omega import conditional_from_joint

__all__ = [
    "NBTables",
    "collect_clldp_joints",
    "labeldp_joints",
    "exact_joints",
    "nb_from_joints",
    "CLLDPNaiveBayes",
    "PROB_FLOOR",
]

PROB_FLOOR = 1e-12


@dataclass
class NBTables:
    """What the collector holds after Algorithm 3 (or a baseline).

    Attributes
    ----------
    joints : list of ndarray (m_label, m_c) or None
        Raw calibrated joint estimates per attribute (``None``: no reports).
    groups : ndarray or None
        The attribute index each user reported (CLLDP protocols), else ``None``.
    reports : dict
        ``c -> (user rows, n x k index reports)`` when reports were kept.
    mechanisms : list
        The per-attribute mechanism objects (``KHR``, ``BasicSolution``) or the label oracle.
    """

    joints: list
    groups: np.ndarray | None = None
    reports: dict = field(default_factory=dict)
    mechanisms: list = field(default_factory=list)


def collect_clldp_joints(
    X: np.ndarray,
    y: np.ndarray,
    sizes: Sequence[int],
    m_label: int,
    epsilon: float,
    mechanism: str,
    k: Any,
    omega_fns: Sequence[Callable[[int], float]],
    rng: Any = None,
    keep_reports: bool = False,
) -> NBTables:
    """Users' side and calibration of Algorithm 3 (``mechanism`` = ``"khr"`` or ``"basic"``).

    Parameters
    ----------
    X, y : ndarray
        Integer codes of the reporting users (n x t, n).
    sizes : sequence of int
        Attribute domain sizes ``m^c``.
    m_label : int
        Number of labels.
    epsilon : float
        Each user's budget.
    mechanism : {"khr", "basic"}
    k : int or str
        kHR heads per attribute group, resolved by :func:`ldp.clldp.resolve_k` on ``m = m^c m^l``.
    omega_fns : sequence of callables
        ``k -> ω_{a^c}(k)`` per attribute.
    keep_reports : bool
        Keep each user's kHR report (needed by the label-inference attack).

    Notes
    -----
    Without ``keep_reports``, groups with ``k = 1`` and the basic solution draw their
    support counts with the exact count-level samplers (same law as per-user
    perturbation); other groups perturb user by user.
    """
    eps = check_epsilon(epsilon)
    if mechanism not in ("khr", "basic"):
        raise ValueError(f"mechanism must be 'khr' or 'basic', got {mechanism!r}")
    gen = as_generator(rng)
    n, t = X.shape
    groups = gen.integers(0, t, size=n)
    out = NBTables(joints=[], groups=groups)
    for c, m_c in enumerate(sizes):
        rows = np.flatnonzero(groups == c)
        mech = _attribute_mechanism(mechanism, eps, m_c, m_label, k, omega_fns[c])
        out.mechanisms.append(mech)
        if rows.size == 0:
            out.joints.append(None)
            continue
        counts, reports = _group_counts(
            mech, mech.encode(X[rows, c], y[rows]), keep_reports and mechanism == "khr", gen
        )
        if reports is not None:
            out.reports[c] = (rows, reports)
        out.joints.append(mech.joint_from_counts(counts, rows.size))
    return out


def _attribute_mechanism(
    mechanism: str, eps: float, m_c: int, m_label: int, k: Any, omega_fn: Callable[[int], float]
) -> BasicSolution | KHR:
    """The basic solution, or kHR with ``k`` resolved on ``m = m^c m^l`` and the belief ``omega_fn(k)``."""
    if mechanism == "basic":
        return BasicSolution(eps, m_c, m_label)
    kc = resolve_k(k, eps, m_c * m_label, omega_fn)
    return KHR(eps, omega_fn(kc), kc, m_c, m_label)


def _group_counts(
    mech: BasicSolution | KHR, x: np.ndarray, keep_reports: bool, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray | None]:
    """Support counts of one group's encoded values ``x``, and its per-user reports when they are kept (else None)."""
    if keep_reports:
        reports = mech.perturb(x, gen)
        return mech.support_counts(reports), reports
    return sample_support(mech, np.bincount(x, minlength=mech.m), gen), None


def labeldp_joints(
    X: np.ndarray, y: np.ndarray, sizes: Sequence[int], m_label: int, epsilon: float, rng: Any = None
) -> NBTables:
    """LabelDP: all true attributes, label by SS (``⌈m^l/(e^ε+1)⌉`` items; GRR for two labels).

    ``Ĵ(a_v, l) = (C(a_v, l) - q n(a_v)) / (n (p - q))`` with ``C(a_v, l)`` the number of
    users with ``d^c = a_v`` whose label report contains ``l`` (the SS estimator); unbiased.
    """
    eps = check_epsilon(epsilon)
    gen = as_generator(rng)
    oracle = SubsetSelection(eps, m_label, "ceil")
    reports = np.asarray(oracle.perturb(y, gen), dtype=np.int64)
    n = y.size
    joints = []
    for c, m_c in enumerate(sizes):
        cells = (X[:, c][:, None] * m_label + reports).ravel()
        C = np.bincount(cells, minlength=m_c * m_label).reshape(m_c, m_label).T.astype(float)
        n_a = np.bincount(X[:, c], minlength=m_c).astype(float)
        joints.append((C - oracle.q * n_a[None, :]) / (n * (oracle.p - oracle.q)))
    return NBTables(joints=joints, reports={"label": reports}, mechanisms=[oracle])


def exact_joints(X: np.ndarray, y: np.ndarray, sizes: Sequence[int], m_label: int) -> NBTables:
    """Non-private reference: the exact joint frequency tables."""
    n = y.size
    joints = [
        np.bincount(y * m_c + X[:, c], minlength=m_label * m_c).reshape(m_label, m_c) / n for c, m_c in enumerate(sizes)
    ]
    return NBTables(joints=joints)


def nb_from_joints(joints: Sequence[np.ndarray | None], m_label: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Alg. 3 lines 7-9 and Eq. (10) with the post-processing above: ``(log prior, [log Pr{a^c | l}])``."""
    priors = [J.sum(axis=1) for J in joints if J is not None]
    prior = clip_normalise(np.mean(priors, axis=0)) if priors else np.full(m_label, 1.0 / m_label)
    log_cond = []
    for J in joints:
        if J is None:
            log_cond.append(None)
            continue
        cond = np.maximum(conditional_from_joint(J), PROB_FLOOR)
        log_cond.append(np.log(cond / cond.sum(axis=1, keepdims=True)))
    return np.log(np.maximum(prior, PROB_FLOOR)), log_cond


def nb_log_scores(log_prior: np.ndarray, log_cond: Sequence[np.ndarray | None], codes: np.ndarray) -> np.ndarray:
    """Eq. (9) in logs, ``n x m_label``; codes ``-1`` (unseen values) and missing tables add nothing."""
    scores = np.tile(log_prior, (codes.shape[0], 1))
    for c, table in enumerate(log_cond):
        if table is None:
            continue
        # one gather from the table transposed with a row of zeros appended: code -1 picks the zeros,
        # and adding 0.0 leaves a score unchanged
        padded = np.concatenate([table.T, np.zeros((1, table.shape[0]))])
        scores += padded[codes[:, c]]
    return scores


class CLLDPNaiveBayes(CLLDPClassifierBase):
    """Categorical Naive Bayes trained on CLLDP (Alg. 3), LabelDP or clean reports.

    Parameters
    ----------
    epsilon : float, default 1.0
        Each user's budget (CLLDP for ``"khr"``/``"basic"``, label LDP for ``"labeldp"``).
    mechanism : {"khr", "basic", "labeldp", "none"}, default "khr"
    k : int or {"one", "floor", "ceil", "eq8", "floor_ceil", "oracle"}, default "eq8"
        kHR heads, resolved per attribute on ``m = m^c m^l`` (Eq. (8) by default).
    omega : "sample", "true", float or list of tables, default "sample"
        Belief source (:mod:`ldp.clldp.belief`); ``"sample"`` sets aside
        ``omega_fraction`` of the users to estimate the tables by SS (Sec. 7.3).
    omega_fraction : float, default 0.1
    n_categories : list of int or None
        Declared attribute domains (codes 0..m-1), or None to learn them from ``X``.
    random_state : int, Generator or None
        Seed of all users' randomness.

    Attributes
    ----------
    classes_, n_features_in_, categories_, n_categories_
    log_prior_ : ndarray (m_label,)
    log_cond_ : list of ndarray (m_label, m_c)
    tables_ : NBTables
        The raw joints and per-attribute mechanisms.
    n_reporters_ : int
        Users who trained the model (the ω-sample excluded).
    """

    def fit(self, X: Any, y: Any, keep_reports: bool = False) -> CLLDPNaiveBayes:
        """Simulate every training user's report and fit the collector's model."""
        self._check_params()
        codes, y_codes = self._fit_coding(X, y)
        gen = self._generator()
        m_l = self.classes_.size
        rows, omega_fns = self._split_users(codes, y_codes, gen)
        Xr, yr = codes[rows], y_codes[rows]
        if self.mechanism in ("khr", "basic"):
            tables = collect_clldp_joints(
                Xr,
                yr,
                self.n_categories_,
                m_l,
                self.epsilon,
                self.mechanism,
                self.k,
                omega_fns,
                gen,
                keep_reports=keep_reports,
            )
        elif self.mechanism == "labeldp":
            tables = labeldp_joints(Xr, yr, self.n_categories_, m_l, self.epsilon, gen)
        else:
            tables = exact_joints(Xr, yr, self.n_categories_, m_l)
        self.tables_ = tables
        self.reporter_rows_ = rows
        self.n_reporters_ = int(rows.size)
        self.log_prior_, self.log_cond_ = nb_from_joints(tables.joints, m_l)
        return self

    def predict_log_scores(self, X: Any) -> np.ndarray:
        """Unnormalised log posterior scores of Eq. (9)."""
        codes = self._transform_codes(X)
        return nb_log_scores(self.log_prior_, self.log_cond_, codes)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior class probabilities under the fitted (private) model."""
        s = self.predict_log_scores(X)
        s = s - s.max(axis=1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=1, keepdims=True)
