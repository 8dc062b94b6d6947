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
The vocabulary is that of :class:`ldp.mechanism.Mechanism`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from .._checks import (
    as_generator,
    check_codes,
    check_counts,
    check_domain_size,
    check_frequency_values,
    check_int,
    check_mechanism_epsilon,
    check_present,
    check_reports_not_counts,
    check_support_counts,
)
from ..mechanism import Mechanism


class FrequencyOracle(Mechanism):
    """Base class: validated ``epsilon`` and ``d``, the pure-protocol estimator and variance.

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    d : int
        Domain size, >= 2.  Values are integer codes ``0 .. d-1``.
    """

    name: str = "oracle"

    def __init__(self, epsilon: float, d: int) -> None:
        self.epsilon = check_mechanism_epsilon(epsilon)
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
        """Raw unbiased frequency estimate (may be negative; post-process with :mod:`ldp.estimate`).

        ``reports`` are per-user reports (the output of :meth:`perturb`); counts go to :meth:`estimate_counts`.
        A 1-D vector of exactly ``d`` entries is refused as ambiguous (it reads as a count vector; see
        :func:`ldp._checks.check_reports_not_counts`).
        """
        check_present(reports, "reports", "per-user reports (the output of perturb)")
        if not isinstance(reports, tuple):
            check_reports_not_counts(reports, self.d)
        n = self.n_reports(reports)
        if n == 0:
            raise ValueError("reports is empty: cannot estimate frequencies from zero users")
        return self.estimate_counts(self.support_counts(reports), n)

    def estimate_counts(self, counts: Any, n: int | None = None) -> np.ndarray:
        """Calibrate support counts of ``n`` users: ``(C/n - q)/(p - q)`` (Wang et al. 2017, Eq. (1))."""
        if n is None:
            raise TypeError("n (the number of users) is required: support counts do not determine it")
        n = check_int(n, "n", minimum=1)
        support = self._check_support(counts, n=n, name="counts")
        return (support / n - self.q) / self.p_minus_q

    def variance(self, n: int, f: Any = 0.0) -> np.ndarray | float:
        """Exact variance of the estimate of a value with true frequency ``f`` among ``n`` users."""
        n = check_int(n, "n", minimum=1)
        f = self._check_frequency(f)
        p, q = self.p, self.q
        out = (f * p * self.one_minus_p + (1 - f) * q * (1 - q)) / (n * self.p_minus_q**2)
        return float(out) if out.ndim == 0 else out

    # ------------------------------------------------------------------ exact tools
    def channel(self) -> np.ndarray:
        """The channel ``P(y | x)`` as a ``d x |Y|`` row-stochastic matrix (finite outputs only)."""
        raise ValueError(f"{type(self).__name__} has no enumerable finite channel at d={self.d}")

    def population(self, true_counts: Any) -> tuple[np.ndarray]:
        """One user per unit of ``true_counts`` (validated): the codes ``x`` to :meth:`perturb`."""
        counts = self._true_counts(true_counts)
        return (np.repeat(np.arange(self.d, dtype=np.int64), counts),)

    def sample_support(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts of the population ``true_counts``: exact count-level draw if offered, else per-user.

        The per-user route perturbs the users in code order (``population``), through
        ``perturb_and_count`` where the oracle has it (same counts as ``perturb`` then
        ``support_counts``, without holding the reports).
        """
        gen = self._rng(rng)
        if self.has_count_sampler:
            return self.simulate_counts(true_counts, gen)
        (x,) = self.population(true_counts)
        count = getattr(self, "perturb_and_count", None)
        return count(x, gen) if count is not None else self.support_counts(self.perturb(x, gen))

    # helpers for subclasses
    #: False for oracles whose "support" is a sum of noisy reals (SHE) and may be negative
    support_is_count: bool = True

    def _check_support(
        self, support: Any, length: int | None = None, name: str = "support", n: int | None = None
    ) -> np.ndarray:
        """Support counts as floats: 1-D, of length ``d`` (or ``length``), finite; counts in ``[0, n]``."""
        length = self.d if length is None else length
        return check_support_counts(
            support, length, n if self.support_is_count else None, name, counts=self.support_is_count
        )

    @staticmethod
    def _check_frequency(f: Any) -> np.ndarray:
        return check_frequency_values(f, "f")

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


class StoredProbabilities:
    """Mixin for oracles that compute ``p`` and ``q`` once, in ``__init__``, and keep them as ``_p`` and ``_q``.

    List it before :class:`FrequencyOracle` among the bases, so that its properties replace the abstract ones.
    """

    _p: float
    _q: float

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q


class ClosedFormProbabilities(StoredProbabilities):
    """Mixin for oracles whose ``p``, ``q``, ``1 - p`` and ``p - q`` come from closed forms computed once.

    :meth:`_store_parts` keeps the named tuple (fields ``p``, ``q``, ``one_minus_p``, ``p_minus_q``, and
    whatever else the oracle needs); :attr:`one_minus_p` and :attr:`p_minus_q` read it, so they keep full
    relative accuracy where the subtractions ``1 - p`` and ``p - q`` would cancel.
    """

    _parts: Any

    def _store_parts(self, parts: Any) -> None:
        self._parts = parts
        self._p, self._q = parts.p, parts.q

    @property
    def one_minus_p(self) -> float:
        return self._parts.one_minus_p

    @property
    def p_minus_q(self) -> float:
        return self._parts.p_minus_q


class DelegatedProbabilities:
    """Mixin for an oracle whose ``p``, ``q``, ``1 - p`` and ``p - q`` are those of another oracle it holds.

    The class names the attribute holding that oracle in ``_delegate``; list the mixin before the oracle base class.
    """

    _delegate: str

    @property
    def p(self) -> float:
        return getattr(self, self._delegate).p

    @property
    def q(self) -> float:
        return getattr(self, self._delegate).q

    @property
    def one_minus_p(self) -> float:
        return getattr(self, self._delegate).one_minus_p

    @property
    def p_minus_q(self) -> float:
        return getattr(self, self._delegate).p_minus_q
