"""The scikit-learn estimator: CART trained under CLLDP (Algorithm 4 of Xue et al.), LabelDP, or without privacy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._checks import check_int
from ...oracles import SubsetSelection
from ..accounting import BUDGET_RULES
from ..estimator_base import CLLDPClassifierBase
from ..paper import OMEGA_SAMPLE_FRACTION
from .cart import grow_from_counts
from .nodes import route
from .pool import COMBINE_RULES
from .protocol import CANDIDATE_RULES, OMEGA_UPDATES, clldp_tree

__all__ = ["CLLDPDecisionTree"]


class CLLDPDecisionTree(CLLDPClassifierBase):
    """CART (one-vs-rest splits, Gini) trained under CLLDP (Alg. 4), LabelDP, or without privacy.

    Parameters
    ----------
    epsilon : float, default 1.0
    mechanism : {"khr", "basic", "labeldp", "none"}, default "khr"
    k : int or str, default "eq8"
        kHR heads, fixed per user from round 1 (resolved on ``m^c m^l`` at ``ε/dep``).
    omega : "sample", "true", float or list of tables, default "sample"
    omega_fraction : float, default 0.1
    max_depth : int, default 5
        ``dep``, the number of rounds.
    budget_rule : {"remaining_even", "paper_literal"}
    omega_update : {"first_round", "previous_estimate"}
    candidate_rule : {"covering", "literal"}
    combine : {"inverse_variance", "mean"}
    n_categories : list of int or None
    random_state : int, Generator or None

    Attributes
    ----------
    tree_ : TreeNode
    leakage_ : ndarray
        ``ln PL`` of every reporting user after the last round (CLLDP mechanisms; <= ε).
    budgets_ : ndarray (max_depth, n_reporters)
        ``ε_r`` spent by every user in every round (0 = no report).
    omegas_ : ndarray (max_depth, n_reporters)
        The belief each user calibrated each round with (1 where she did not report).
    k_ : ndarray
        Heads used by every reporting user.
    combinations_ : list of lists of frozenset
        Per round, every reporting user's attribute combination after that round.
    combination_masks_ : ndarray of int64 (rounds, n_reporters)
        The same combinations as bitmasks (bit ``a`` set when attribute ``a`` is in it).
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        mechanism: str = "khr",
        k: Any = "eq8",
        omega: Any = "sample",
        omega_fraction: float = OMEGA_SAMPLE_FRACTION,
        max_depth: int = 5,
        budget_rule: str = "remaining_even",
        omega_update: str = "first_round",
        candidate_rule: str = "covering",
        combine: str = "inverse_variance",
        n_categories: Sequence[int] | None = None,
        random_state: Any = None,
    ) -> None:
        super().__init__(epsilon, mechanism, k, omega, omega_fraction, n_categories, random_state)
        self.max_depth = max_depth
        self.budget_rule = budget_rule
        self.omega_update = omega_update
        self.candidate_rule = candidate_rule
        self.combine = combine

    def fit(self, X: Any, y: Any) -> CLLDPDecisionTree:
        """Simulate the protocol over all training users and grow the collector's tree."""
        self._check_params()
        dep = check_int(self.max_depth, "max_depth", minimum=1)
        for name, val, allowed in (
            ("budget_rule", self.budget_rule, BUDGET_RULES),
            ("omega_update", self.omega_update, OMEGA_UPDATES),
            ("candidate_rule", self.candidate_rule, CANDIDATE_RULES),
            ("combine", self.combine, COMBINE_RULES),
        ):
            if val not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
        codes, y_codes = self._fit_coding(X, y)
        gen = self._generator()
        m_l = self.classes_.size
        rows, omega_fns = self._split_users(codes, y_codes, gen)
        Xr, yr = codes[rows], y_codes[rows]
        self.reporter_rows_ = rows
        self.n_reporters_ = int(rows.size)
        if self.mechanism in ("khr", "basic"):
            res = clldp_tree(
                Xr,
                yr,
                self.n_categories_,
                m_l,
                self.epsilon,
                dep,
                self.mechanism,
                self.k,
                omega_fns,
                gen,
                budget_rule=self.budget_rule,
                omega_update=self.omega_update,
                candidate_rule=self.candidate_rule,
                combine=self.combine,
            )
            self.tree_ = res.root
            self.leakage_ = res.ledger.log_leakage
            self.budgets_ = res.ledger.spent
            self.omegas_ = res.ledger.omega_used
            self.k_ = res.k
            self.groups_per_round_ = res.groups_per_round
            self.combinations_ = res.sets
            self.combination_masks_ = res.masks
        elif self.mechanism == "labeldp":
            oracle = SubsetSelection(self.epsilon, m_l, "ceil")
            reports = np.asarray(oracle.perturb(yr, gen), dtype=np.int64)
            support = np.zeros((yr.size, m_l))
            np.put_along_axis(support, reports, 1.0, axis=1)
            self.tree_ = grow_from_counts(Xr, support, self.n_categories_, oracle.p, oracle.q, dep)
        else:
            support = np.eye(m_l)[yr]
            self.tree_ = grow_from_counts(Xr, support, self.n_categories_, 1.0, 0.0, dep)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class distribution of the leaf each row reaches (routed by its true attribute values)."""
        codes = self._transform_codes(X)
        out = np.zeros((codes.shape[0], self.classes_.size))
        route(self.tree_, codes, np.arange(codes.shape[0]), out)
        return out
