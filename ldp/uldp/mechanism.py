"""The common interface of this chapter's mechanisms: a square channel over ``K`` cells.

A :class:`ChannelMechanism` maps an input cell to an output cell of the same
domain.  Its data live in arrays of shape :attr:`shape` — ``(d,)`` for one
attribute (uRR) or ``(k_x, k_y)`` for a pair (JuRR, CPRR, TDRR, joint GRR) —
flattened row-major to ``K`` cells when a channel is involved.

Subclasses provide :meth:`channel` and may override
:meth:`estimate_from_frequencies` and :meth:`variance` (``variance(n, f)``, the order of
:mod:`ldp.oracles`) with closed forms (the
defaults are the exact channel-inversion formulas of :mod:`ldp.channels`,
which the tests use as oracles).  Everything random takes ``rng``.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from .. import channels
from .._checks import check_allocation, check_counts, check_distribution, check_reports_not_counts
from ..mechanism import Mechanism

__all__ = ["ChannelMechanism"]


class ChannelMechanism(Mechanism):
    """Base class: validated ``epsilon``, channel, exact sampler, unbiased estimator, exact error.

    Attributes
    ----------
    name : str
        Label used in tables and plots (``ldp.plotting.style_for(name)``).
    unbiased : bool
        True when :meth:`estimate` is unbiased for every input distribution.
    """

    name: str = "mechanism"
    unbiased: bool = True
    notion = "ULDP"
    has_count_sampler = True

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)

    # ------------------------------------------------------------------ structure
    @property
    @abstractmethod
    def shape(self) -> tuple[int, ...]:
        """Shape of a frequency (or count) array of this mechanism."""

    @property
    def n_cells(self) -> int:
        return int(np.prod(self.shape))

    @abstractmethod
    def channel(self) -> np.ndarray:
        """``K × K`` row-stochastic channel, ``P[v, o] = Pr(report o | input v)`` on flat cells."""

    # ------------------------------------------------------------------ array helpers
    def _flat(self, arr: Any, name: str) -> np.ndarray:
        a = np.asarray(arr)
        if a.shape != self.shape and a.shape != (self.n_cells,):
            raise ValueError(f"{name} must have shape {self.shape} (or ({self.n_cells},) flattened), got {a.shape}")
        return a.reshape(-1)

    def _shaped(self, flat: np.ndarray) -> np.ndarray:
        return np.asarray(flat).reshape(self.shape)

    def _counts(self, counts: Any, name: str) -> np.ndarray:
        flat = check_counts(self._flat(counts, name), self.n_cells, name)
        if flat.sum() == 0:
            raise ValueError(f"{name} sums to 0: at least one user is needed")
        return flat

    def _check_channel_size(self) -> None:
        """Refuse, before building it, a ``K x K`` channel above the allocation limit (it names the shape)."""
        check_allocation(self.n_cells**2, 8, f"the K x K channel over K = {self.n_cells} cells", "shape", self.shape)

    def _report_freq(self, report_freq: Any) -> np.ndarray:
        """Report frequencies ``c/N`` as a flat float vector: a distribution over the ``K`` cells."""
        return check_distribution(self._flat(report_freq, "report_freq"), self.n_cells, "report_freq")

    def _freq(self, f: Any, name: str = "f") -> np.ndarray:
        return channels.check_frequencies(self._flat(f, name), self.n_cells, name)

    # ------------------------------------------------------------------ simulation
    def population(self, true_counts: Any) -> tuple[np.ndarray, ...]:
        """One user per unit of ``true_counts`` (validated), as the arguments of :meth:`perturb`."""
        flat = self._counts(true_counts, "true_counts")
        cells = np.repeat(np.arange(self.n_cells, dtype=np.int64), flat)
        return np.unravel_index(cells, self.shape) if len(self.shape) > 1 else (cells,)

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Report counts given the users' true counts, drawn exactly (one multinomial per input cell)."""
        flat = self._counts(true_counts, "true_counts")
        return self._shaped(channels.simulate_channel_counts(self.channel(), flat, rng))

    def output_distribution(self, f: Any) -> np.ndarray:
        """Distribution of one report, ``Pᵀ f``, for input distribution ``f``."""
        return self._shaped(channels.output_distribution(self.channel(), self._freq(f)))

    # ------------------------------------------------------------------ estimation
    def estimate(self, reports: Any) -> np.ndarray:
        """The raw estimate from per-user reports; for a one-attribute mechanism a 1-D vector of exactly ``d``
        reports is refused as ambiguous with counts (:func:`ldp._checks.check_reports_not_counts`)."""
        if len(self.shape) == 1:
            check_reports_not_counts(reports, self.n_cells)
        return super().estimate(reports)

    def estimate_counts(self, counts: Any, n: int | None = None) -> np.ndarray:
        """Raw frequency estimate from integer report counts (entries may be negative).

        ``n`` is optional: the counts sum to the number of users; if given it must agree.
        """
        flat = self._counts(counts, "counts")
        if n is not None and self._n(n) != int(flat.sum()):
            raise ValueError(f"n={n} differs from the number of reports counted, {int(flat.sum())}")
        return self.estimate_from_frequencies(self._shaped(flat / flat.sum()))

    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        """Estimate from report *frequencies* ``c/N`` (real-valued; used for exact expectation checks).

        Default: channel inversion ``solve(Pᵀ, c/N)``.
        """
        freq = self._report_freq(report_freq)
        return self._shaped(channels.inverse_estimate(self.channel(), freq))

    # ------------------------------------------------------------------ exact error
    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact per-cell variance of :meth:`estimate` for ``n`` users whose inputs have frequencies ``f``.

        The argument order is that of :meth:`ldp.oracles.FrequencyOracle.variance`
        (``variance(n, f)``; keywords ``n=`` and ``f=`` work for every mechanism of
        this chapter), and so are :meth:`bias` and :meth:`expected_squared_error`.
        """
        n = self._n(n)
        return self._shaped(channels.inverse_variance(self.channel(), self._freq(f), n))

    def bias(self, n: int, f: Any) -> np.ndarray:
        """Exact per-cell bias ``E[f̂] − f`` (zero for unbiased mechanisms)."""
        self._n(n)
        return np.zeros(self.shape)

    def expected_squared_error(self, n: int, f: Any) -> np.ndarray:
        """Per-cell ``E[(f̂ − f)²] = Var + bias²``."""
        return self.variance(n, f) + self.bias(n, f) ** 2

    @staticmethod
    def _n(n: Any) -> int:
        from .._checks import check_int

        return check_int(n, "n", minimum=1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, shape={self.shape})"
