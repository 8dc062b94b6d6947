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

from .._checks import as_generator, check_codes, check_counts, check_domain_size, check_epsilon


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
        if n <= 0:
            raise ValueError(f"n must be >= 1, got {n}")
        support = np.asarray(support, dtype=float)
        return (support / n - self.q) / (self.p - self.q)

    def variance(self, n: int, f: Any = 0.0) -> np.ndarray | float:
        """Exact variance of the estimate of a value with true frequency ``f`` among ``n`` users."""
        if n <= 0:
            raise ValueError(f"n must be >= 1, got {n}")
        f = np.asarray(f, dtype=float)
        p, q = self.p, self.q
        out = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)
        return float(out) if out.ndim == 0 else out

    # ------------------------------------------------------------------ exact tools
    def channel(self) -> np.ndarray:
        """The channel ``P(y | x)`` as a ``d x |Y|`` row-stochastic matrix (finite outputs only)."""
        raise ValueError(f"{type(self).__name__} has no enumerable finite channel at d={self.d}")

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly from their distribution given the true counts (no per-user work)."""
        raise ValueError(f"{type(self).__name__} has no exact count-level sampler; use perturb()")

    # helpers for subclasses
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
