"""The one vocabulary every LDP mechanism of the package speaks.

Every mechanism class in :mod:`ldp` (the frequency oracles, the CLLDP mechanisms,
the ULDP channel mechanisms, the multi-class frameworks and validity perturbation)
derives from :class:`Mechanism` and offers the same verbs:

=========================================  ================================================================
``epsilon``                                the privacy budget the instance was built for (validated)
``exact_epsilon``                          the tight privacy level of the channel (<= ``epsilon``)
``perturb(*population, rng)``              per-user reports, vectorised over users
``support_counts(reports)``                the server's aggregate of the reports ("counts")
``simulate_counts(true_counts, rng)``      the same aggregate drawn exactly in distribution, without
                                           per-user work (optional: ``has_count_sampler``)
``sample_support(true_counts, rng)``       ``simulate_counts`` when exact, else perturb one user per unit
                                           of ``true_counts`` and aggregate (always available)
``estimate(reports)``                      ``estimate_counts(support_counts(reports), n)``
``estimate_counts(counts, n)``             the raw unbiased estimate from the aggregate
``variance(n, f)``                         the exact variance of every entry of the estimate for ``n``
                                           users with true frequencies ``f``
``channel()``                              ``P(report | input)`` as a row-stochastic matrix
                                           (optional: ``has_channel``; finite and small output spaces)
=========================================  ================================================================

What "true counts", "counts" and the estimate are depends on the family; the shapes
are not forced, they are made precise here:

* **Frequency oracles** (:mod:`ldp.oracles`), **kHR** and the **basic CLLDP solution**:
  ``true_counts`` is the length-``d`` vector of how many users hold each value;
  ``counts`` are the support counts ``C(v)`` (length ``d``; length ``m`` bit counts
  for Bloom RAPPOR); the estimate is the frequency vector; ``f`` is a frequency
  (scalar or vector).  ``estimate_counts`` needs ``n`` because support counts do
  not determine the number of users.
* **ULDP mechanisms** (:mod:`ldp.uldp`): ``true_counts`` and ``counts`` are arrays of
  the mechanism's :attr:`shape` (``(d,)`` for uRR, ``(k_x, k_y)`` for the joint
  ones): how many users hold / report each cell; the estimate is the frequency
  array of that shape; ``n`` is optional (the counts sum to it).
* **Multi-class frameworks** (:mod:`ldp.multiclass`): ``true_counts`` is the ``c x d``
  table of label-item pair counts; ``counts`` is a :class:`~ldp.multiclass.frameworks.Tallies`;
  the estimate is the ``c x d`` table of pair **counts** (the paper's convention,
  ``estimand = "counts"``); ``f`` is the ``c x d`` table of pair frequencies and
  ``variance(n, f)`` the variance of the count estimate for the table ``n f``.
* **Validity perturbation** (:class:`~ldp.multiclass.validity.VP`): ``true_counts``
  has length ``d + 1``, the valid users at each of the ``d`` positions followed by
  the number of invalid users; ``counts`` is a :class:`~ldp.multiclass.validity.VPCounts`;
  the estimate is the number of valid users at each position (``estimand = "counts"``).

Everything random takes ``rng`` (a Generator, a seed or None).  Bad input raises
``ValueError`` or ``TypeError`` naming the parameter (:mod:`ldp._checks`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ._checks import as_generator, check_mechanism_epsilon

__all__ = ["Mechanism", "sample_support"]


class Mechanism(ABC):
    """Base class of every mechanism: the shared vocabulary (module docstring).

    Subclasses set :attr:`has_count_sampler` and :attr:`has_channel` to declare the two
    optional abilities, and :attr:`estimand` to say whether the estimate is of
    frequencies or of counts.
    """

    #: short label used in tables and plots (colour and marker come from ``ldp.plotting``)
    name: str = "mechanism"
    #: True when :meth:`simulate_counts` draws the counts exactly in distribution
    has_count_sampler: bool = False
    #: True when :meth:`channel` returns the full channel matrix (possibly only for small domains)
    has_channel: bool = True
    #: what :meth:`estimate` estimates: ``"frequencies"`` or ``"counts"``
    estimand: str = "frequencies"
    #: the privacy notion ``epsilon`` refers to: ``"LDP"`` (then ``exact_epsilon <= epsilon``), ``"CLLDP"``
    #: (Xue et al.; the channel's ordinary LDP level :attr:`exact_epsilon` exceeds the CLLDP budget) or
    #: ``"ULDP"`` (Murakami & Kawamoto; checked by :func:`ldp.uldp.check_uldp`, not by the max log-ratio)
    notion: str = "LDP"

    def __init__(self, epsilon: float) -> None:
        self.epsilon = check_mechanism_epsilon(epsilon)

    # ------------------------------------------------------------------ privacy
    @property
    def exact_epsilon(self) -> float:
        """The channel's exact max log-ratio; by default the budget (mechanisms tight at ``epsilon``)."""
        return self.epsilon

    # ------------------------------------------------------------------ client side
    @abstractmethod
    def perturb(self, *population: Any, rng: Any = None) -> Any:
        """Per-user reports for the whole population at once."""

    # ------------------------------------------------------------------ server side
    @abstractmethod
    def support_counts(self, reports: Any) -> Any:
        """The server's aggregate of the reports (see the module docstring for its type)."""

    @abstractmethod
    def estimate_counts(self, counts: Any, n: int | None = None) -> np.ndarray:
        """Raw unbiased estimate from the aggregate ``counts`` of ``n`` users (no post-processing)."""

    def estimate(self, reports: Any) -> np.ndarray:
        """``estimate_counts(support_counts(reports))``: the raw unbiased estimate from per-user reports."""
        return self.estimate_counts(self.support_counts(reports))

    @abstractmethod
    def variance(self, n: int, f: Any) -> Any:
        """Exact variance of every entry of the estimate for ``n`` users with true frequencies ``f``."""

    # ------------------------------------------------------------------ optional abilities
    def channel(self) -> np.ndarray:
        """``P(report | input)`` as a row-stochastic matrix (only when :attr:`has_channel`)."""
        raise ValueError(f"{type(self).__name__} has no enumerable finite channel")

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> Any:
        """The aggregate drawn exactly from its law given the true counts (only when :attr:`has_count_sampler`)."""
        raise ValueError(f"{type(self).__name__} has no exact count-level sampler; use sample_support() or perturb()")

    def population(self, true_counts: Any) -> tuple[np.ndarray, ...]:
        """One user per unit of ``true_counts``, as the positional arguments of :meth:`perturb`."""
        counts = np.asarray(true_counts)
        flat = np.repeat(np.arange(counts.size), counts.ravel().astype(np.int64))
        return (flat,)

    def sample_support(self, true_counts: Any, rng: Any = None) -> Any:
        """Counts for the population ``true_counts``: exact count-level draw if offered, else per-user.

        Both routes give the same distribution; the count-level one costs nothing per user.
        """
        gen = as_generator(rng)
        if self.has_count_sampler:
            return self.simulate_counts(true_counts, gen)
        return self.support_counts(self.perturb(*self.population(true_counts), rng=gen))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g})"


def sample_support(mechanism: Mechanism, true_counts: Any, rng: Any = None) -> Any:
    """``mechanism.sample_support(true_counts, rng)``: exact counts if the mechanism can draw them, else per-user.

    The one place where the "count-level sampler if it exists, otherwise perturb every
    user and aggregate" choice is made.
    """
    if not isinstance(mechanism, Mechanism):
        raise TypeError(f"mechanism must be an ldp Mechanism, got {type(mechanism).__name__}")
    return mechanism.sample_support(true_counts, rng)
