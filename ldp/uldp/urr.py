"""Utility-optimised randomized response, uRR (Murakami & Kawamoto 2019).

One categorical attribute ``{0..d-1}`` with sensitive values ``X_S`` (``s = |X_S|``),
protected outputs ``Y_P = X_S`` and invertible outputs ``Y_I = X_N``.  With
``D = e^ε + s − 1``:

* a sensitive input keeps its value with probability ``e^ε / D`` and moves to each
  other sensitive value with ``1 / D``; it never reports a non-sensitive value;
* a non-sensitive input reports itself with ``(e^ε − 1) / D`` and each sensitive
  value with ``1 / D``.

So sensitive values get GRR-strength protection inside ``X_S`` while a
non-sensitive report reveals its input (allowed by ULDP, Definition 2 of Yin et
al. 2023).  With ``s = d`` it is GRR on ``d`` values; with ``s = 0`` it is the
identity.  The unbiased estimator (the channel inverse) is

    f̂_v = (c_v/N − 1/D) · D/(e^ε − 1)   for v ∈ X_S,
    f̂_v = (c_v/N) · D/(e^ε − 1)          for v ∈ X_N.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import channels
from .._checks import check_allocation, check_domain_size
from .mechanism import ChannelMechanism
from .model import SensitiveDomain

__all__ = ["URR"]


class URR(ChannelMechanism):
    """uRR over ``{0, ..., d-1}`` with sensitive set ``sensitive``.

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    d : int
        Size of the whole domain, sensitive and non-sensitive codes together (>= 2).
    sensitive : iterable of int
        Sensitive codes (any positions; a subset of the domain).

    Examples
    --------
    >>> m = URR(1.0, 4, sensitive=[0, 1])
    >>> bool(np.allclose(m.channel().sum(axis=1), 1))
    True
    """

    name = "uRR"

    def __init__(self, epsilon: float, d: int, sensitive: Iterable[int]) -> None:
        super().__init__(epsilon)
        self.d = check_domain_size(d)
        self.domain = SensitiveDomain(self.d, sensitive)

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.d,)

    @property
    def s(self) -> int:
        return self.domain.n_sensitive

    # ------------------------------------------------------------------ probabilities
    @property
    def denominator(self) -> float:
        """``D = e^ε + s − 1``."""
        return float(np.expm1(self.epsilon) + self.s)

    @property
    def keep_sensitive(self) -> float:
        """``e^ε / D``: a sensitive input reports itself."""
        return float(np.exp(self.epsilon) / self.denominator)

    @property
    def to_protected(self) -> float:
        """``1 / D``: any input reports a given *other* sensitive value (or, if non-sensitive, any sensitive one)."""
        return 1.0 / self.denominator

    @property
    def keep_nonsensitive(self) -> float:
        """``(e^ε − 1) / D``: a non-sensitive input reports itself (equals ``e^ε/D − 1/D``)."""
        return float(np.expm1(self.epsilon) / self.denominator)

    def channel(self) -> np.ndarray:
        check_allocation(self.d * self.d, 8, "the d x d channel", "d", self.d)
        mask = self.domain.mask
        P = np.zeros((self.d, self.d))
        P[:, mask] = self.to_protected
        idx = np.arange(self.d)
        P[idx[mask], idx[mask]] = self.keep_sensitive
        P[idx[~mask], idx[~mask]] = self.keep_nonsensitive
        return P

    # ------------------------------------------------------------------ client side
    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Per-user reports for codes ``x`` (exact categorical draws, vectorised by input value)."""
        from .._checks import check_codes

        return channels.sample_channel(self.channel(), check_codes(x, self.d, "x"), rng)

    def support_counts(self, reports: Any) -> np.ndarray:
        """Counts of each reported value."""
        from .._checks import check_codes

        return np.bincount(check_codes(reports, self.d, "reports"), minlength=self.d)

    # ------------------------------------------------------------------ server side
    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        """Closed-form channel inverse (module docstring)."""
        freq = self._report_freq(report_freq)
        scale = self.denominator / np.expm1(self.epsilon)
        return np.where(self.domain.mask, (freq - self.to_protected) * scale, freq * scale)

    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact variance: sensitive ``[f a(1−a) + (1−f) b(1−b)] / (N (a−b)²)``, non-sensitive ``f (1−t) / (N t)``.

        ``a = e^ε/D``, ``b = 1/D``, ``t = a − b = (e^ε−1)/D``; the dataset is fixed
        (only the perturbation is random).
        """
        n = self._n(n)
        f = self._freq(f)
        a, b, t = self.keep_sensitive, self.to_protected, self.keep_nonsensitive
        sens = (f * a * (1 - a) + (1 - f) * b * (1 - b)) / (n * t**2)
        nons = f * (1 - t) / (n * t)
        return np.where(self.domain.mask, sens, nons)

    def __repr__(self) -> str:
        return f"URR(epsilon={self.epsilon:g}, d={self.d}, sensitive={self.domain.sensitive})"
