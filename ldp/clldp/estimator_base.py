"""What the CLLDP classifiers share: scikit-learn plumbing, categorical coding and the belief setup.

The classifiers *simulate the whole protocol* inside ``fit``: every training row
is one user who perturbs her own data; the fitted model is what the untrusted
collector can build from the reports.  ``random_state`` drives all of the
users' randomness.

Attributes are categorical.  With ``n_categories=None`` every column's domain
is the set of values seen in ``fit`` (treated as public, like the paper's
attribute domains); unseen values at prediction time carry no evidence.  With
``n_categories=[m_1, ..., m_t]`` the columns must already be integer codes in
``0..m_c - 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._checks import as_generator, check_epsilon, check_int
from .belief import belief_functions, estimate_conditionals, true_conditionals
from .paper import OMEGA_SAMPLE_FRACTION

__all__ = ["MECHANISMS", "CLLDPClassifierBase"]

#: ``"khr"`` (CLLDP with k heads response), ``"basic"`` (CLLDP basic solution = SUE, ω = 1),
#: ``"labeldp"`` (true attributes, label by subset selection), ``"none"`` (non-private reference)
MECHANISMS = ("khr", "basic", "labeldp", "none")
_K_NAMES = ("one", "floor", "ceil", "eq8", "floor_ceil", "oracle")


class CLLDPClassifierBase(ClassifierMixin, BaseEstimator):
    """Base class; see :class:`ldp.clldp.CLLDPNaiveBayes` and :class:`ldp.clldp.CLLDPDecisionTree`.

    Its ``__init__`` is the Naive Bayes classifier's (which adds no parameter); the tree repeats these parameters
    in its own signature because scikit-learn reads an estimator's parameters from its class's ``__init__``.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        mechanism: str = "khr",
        k: Any = "eq8",
        omega: Any = "sample",
        omega_fraction: float = OMEGA_SAMPLE_FRACTION,
        n_categories: Sequence[int] | None = None,
        random_state: Any = None,
    ) -> None:
        # the parameters both classifiers take; stored unchecked, as scikit-learn asks (see _check_params)
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.k = k
        self.omega = omega
        self.omega_fraction = omega_fraction
        self.n_categories = n_categories
        self.random_state = random_state

    # ------------------------------------------------------------------ parameter checks
    def _check_params(self) -> None:
        check_epsilon(self.epsilon)
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {MECHANISMS}, got {self.mechanism!r}")
        k = self.k
        if not ((isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1) or k in _K_NAMES):
            raise ValueError(f"k must be a positive int or one of {_K_NAMES}, got {k!r}")
        w = self.omega
        if isinstance(w, str):
            if w not in ("sample", "true"):
                raise ValueError(f"omega must be 'sample', 'true', a number in (0, 1] or a list of tables, got {w!r}")
        elif isinstance(w, Real) and not isinstance(w, bool):
            if not 0 < float(w) <= 1:
                raise ValueError(f"omega must lie in (0, 1], got {w!r}")
        elif not isinstance(w, Sequence):
            raise ValueError(f"omega must be 'sample', 'true', a number in (0, 1] or a list of tables, got {w!r}")
        frac = self.omega_fraction
        if not (isinstance(frac, Real) and not isinstance(frac, bool) and 0 < float(frac) < 1):
            raise ValueError(f"omega_fraction must lie in (0, 1), got {frac!r}")

    # ------------------------------------------------------------------ data coding
    def _fit_coding(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"y has 1 class ({self.classes_[0]!r}); CLLDP classifiers need at least 2 classes")
        if self.n_categories is None:
            self.categories_ = [np.unique(X[:, c]) for c in range(X.shape[1])]
            codes = np.column_stack([np.searchsorted(cats, X[:, c]) for c, cats in enumerate(self.categories_)])
        else:
            sizes = [check_int(m, f"n_categories[{c}]", minimum=1) for c, m in enumerate(self.n_categories)]
            if len(sizes) != X.shape[1]:
                raise ValueError(f"n_categories has {len(sizes)} entries but X has {X.shape[1]} columns")
            self.categories_ = [np.arange(int(m)) for m in sizes]
            codes = self._declared_codes(X)
        self.n_categories_ = tuple(max(int(c.size), 1) for c in self.categories_)
        return codes.astype(np.int64), y_codes.astype(np.int64)

    def _declared_codes(self, X: np.ndarray) -> np.ndarray:
        if not np.all(X == np.round(X)):
            raise ValueError("with n_categories given, X must hold integer codes")
        sizes = np.array([c.size for c in self.categories_])
        bad = (X < 0) | (X >= sizes[None, :])
        if np.any(bad):
            i, c = np.argwhere(bad)[0]
            raise ValueError(
                f"X[{i}, {c}] = {X[i, c].item()!r} is outside the declared domain 0..{sizes[c] - 1} "
                f"of column {c} (n_categories[{c}] = {sizes[c]})"
            )
        return X.astype(np.int64)

    def _transform_codes(self, X: Any) -> np.ndarray:
        """Codes of new rows; ``-1`` marks a value not in the fitted domain (no evidence)."""
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, reset=False)
        if self.n_categories is not None:
            return self._declared_codes(X)
        out = np.empty(X.shape, dtype=np.int64)
        for c, cats in enumerate(self.categories_):
            pos = np.clip(np.searchsorted(cats, X[:, c]), 0, cats.size - 1)
            out[:, c] = np.where(cats[pos] == X[:, c], pos, -1)
        return out

    # ------------------------------------------------------------------ beliefs and users
    def _split_users(self, codes: np.ndarray, y: np.ndarray, gen: np.random.Generator):
        """Set aside the ω-sample (Sec. 7.3) when needed; return (train rows, belief functions)."""
        n, t = codes.shape
        m_l = self.classes_.size
        all_rows = np.arange(n)
        if self.mechanism != "khr":
            return all_rows, [lambda k: 1.0] * t
        source = self.omega
        if isinstance(source, str) and source == "true":
            return all_rows, belief_functions(true_conditionals(codes, y, self.n_categories_, m_l), t)
        if isinstance(source, str) and source == "sample":
            n_w = int(round(float(self.omega_fraction) * n))
            if n_w < 1 or n - n_w < 1:
                return all_rows, [lambda k: 1.0] * t  # too few users for a sample: the conservative ω = 1
            perm = gen.permutation(n)
            sample, train = np.sort(perm[:n_w]), np.sort(perm[n_w:])
            tables = estimate_conditionals(codes[sample], y[sample], self.n_categories_, m_l, self.epsilon, gen)
            self.omega_tables_ = tables
            return train, belief_functions(tables, t)
        return all_rows, belief_functions(source, t)

    def _generator(self) -> np.random.Generator:
        rs = self.random_state
        if isinstance(rs, np.random.RandomState):
            rs = int(rs.randint(0, 2**31 - 1))
        return as_generator(rs)

    # ------------------------------------------------------------------ prediction
    def predict(self, X: Any) -> np.ndarray:
        """The class with the largest score for every row."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags
