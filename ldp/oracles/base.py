"""The common interface of every frequency oracle in :mod:`ldp.oracles`.

A frequency oracle is a pair (client perturbation, server estimator) for the
frequencies of a categorical value in ``{0, ..., d-1}``.  All the "pure"
protocols of Wang et al. (2017) share one estimator: each report *supports* a
set of values; a user holding ``v`` supports ``v`` with probability ``p`` and
any other value with probability ``q``; then

    f_hat(v) = (C(v)/n - q) / (p - q)

is unbiased, where ``C(v)`` is the number of reports supporting ``v``
(Wang et al. 2017, Eq. (1)); its variance is

    Var[f_hat(v)] = [f p(1-p) + (1-f) q(1-q)] / (n (p-q)^2)

whenever the support indicators of ``v`` are independent across users (they
are, for every oracle here).  Subclasses implement ``perturb``,
``support_counts`` and, where their output space is finite, ``channel``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from .._checks import as_generator, check_codes, check_counts, check_domain_size, check_epsilon, check_int


class FrequencyOracle(ABC):
    """Base class: validated ``epsilon`` and ``d``, the pure-protocol estimator and variance.

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    d : int
        Domain size, >= 2.  Values are integer codes ``0 .. d-1``.
    """

    #: short label used in tables and plots (colour and marker come from ``ldp.plotting``)
    name: str = "oracle"
    #: True when :meth:`simulate_counts` is exact in distribution
    has_count_sampler: bool = False

    def __init__(self, epsilon: float, d: int) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.d = check_domain_size(d)

    # ------------------------------------------------------------------ support probabilities
    @property
    @abstractmethod
    def p(self) -> float:
        """P(a report supports the user's own value)."""

    @property
    @abstractmethod
    def q(self) -> float:
        """P(a report supports a given other value)."""

    @property
    def one_minus_p(self) -> float:
        """``1 - p``.  Oracles whose ``p`` can approach 1 override this with a closed form, because the
        subtraction loses about ``1e-16/(1 - p)`` of relative accuracy."""
        return 1.0 - self.p

    @property
    def p_minus_q(self) -> float:
        """``p - q``, the denominator of the estimator (closed forms in subclasses where ``p`` nears ``q``)."""
        return self.p - self.q

    # ------------------------------------------------------------------ client side
    @abstractmethod
    def perturb(self, x: Any, rng: Any = None) -> Any:
        """Perturb the whole population ``x`` (int codes) at once; returns the reports."""

    # ------------------------------------------------------------------ server side
    @abstractmethod
    def support_counts(self, reports: Any) -> np.ndarray:
        """``C(v)`` for every ``v``: how many reports support each value (length ``d``)."""

    def n_reports(self, reports: Any) -> int:
        """Number of users behind ``reports`` (first axis by default)."""
        return int(len(reports[0]) if isinstance(reports, tuple) else len(reports))

    def estimate(self, reports: Any) -> np.ndarray:
        """Raw unbiased frequency estimate (may be negative; post-process with :mod:`ldp.estimate`)."""
        n = self.n_reports(reports)
        if n == 0:
            raise ValueError("reports is empty: cannot estimate frequencies from zero users")
        return self.estimate_from_support(self.support_counts(reports), n)

    def estimate_from_support(self, support: Any, n: int) -> np.ndarray:
        """Calibrate support counts: ``(C/n - q)/(p - q)`` (Wang et al. 2017, Eq. (1))."""
        n = check_int(n, "n", minimum=1)
        support = self._check_support(support)
        return (support / n - self.q) / self.p_minus_q

    def variance(self, n: int, f: Any = 0.0) -> np.ndarray | float:
        """Exact variance of the estimate of a value with true frequency ``f`` among ``n`` users."""
        n = check_int(n, "n", minimum=1)
        f = self._check_frequency(f)
        p, q = self.p, self.q
        out = (f * p * self.one_minus_p + (1 - f) * q * (1 - q)) / (n * self.p_minus_q ** 2)
        return float(out) if out.ndim == 0 else out

    # ------------------------------------------------------------------ exact tools
    def channel(self) -> np.ndarray:
        """The channel ``P(y | x)`` as a ``d x |Y|`` row-stochastic matrix (finite outputs only)."""
        raise ValueError(f"{type(self).__name__} has no enumerable finite channel at d={self.d}")

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly from their distribution given the true counts (no per-user work)."""
        raise ValueError(f"{type(self).__name__} has no exact count-level sampler; use perturb()")

    # helpers for subclasses
    #: False for oracles whose "support" is a sum of noisy reals (SHE) and may be negative
    support_is_count: bool = True

    def _check_support(self, support: Any, length: int | None = None, name: str = "support") -> np.ndarray:
        """Support counts as floats: 1-D, of length ``d`` (or ``length``), finite, non-negative counts."""
        length = self.d if length is None else length
        arr = np.asarray(support, dtype=float)
        if arr.shape != (length,):
            raise ValueError(f"{name} must have shape ({length},), got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite")
        if self.support_is_count and np.any(arr < 0):
            raise ValueError(f"{name} must be non-negative counts, got minimum {float(arr.min())!r}")
        return arr

    @staticmethod
    def _check_frequency(f: Any) -> np.ndarray:
        arr = np.asarray(f, dtype=float)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
            raise ValueError(f"f must hold frequencies in [0, 1], got {f!r}")
        return arr

    def _codes(self, x: Any) -> np.ndarray:
        return check_codes(x, self.d, "x")

    def _true_counts(self, true_counts: Any) -> np.ndarray:
        counts = check_counts(true_counts, self.d, "true_counts")
        if counts.sum() == 0:
            raise ValueError("true_counts sums to 0: at least one user is needed")
        return counts

    @staticmethod
    def _rng(rng: Any) -> np.random.Generator:
        return as_generator(rng)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, d={self.d})"
