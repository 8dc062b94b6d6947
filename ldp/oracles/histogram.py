"""Summation with histogram encoding (SHE): one-hot vector plus Laplace noise.

Wang et al. (USENIX Security 2017, Sec. 4.1 "histogram encoding") after the
Laplace mechanism of Dwork et al. (2006); used by the CPL paper (Appendix A-6) as
one of the eight mechanisms of its utility-versus-leakage benchmark.  The user
encodes ``v`` as the one-hot vector ``e_v`` in ``R^d`` and reports

    y = e_v + (L_1, ..., L_d),   L_j ~ Laplace(0, b) i.i.d.,   b = 2/eps.

Two one-hot vectors are at L1 distance 2, so the Laplace mechanism with scale
``2/eps`` is eps-LDP, tightly (the density ratio reaches ``e^eps`` on a set of
positive probability).  The server *sums* the reports: ``E[y_v] = 1[x = v]``, so
``f_hat(v) = (1/n) sum_i y_i[v]`` is unbiased with variance ``2 b^2 / n = 8/(eps^2 n)``
for every value, whatever its frequency (the indicator part is fixed by the
population; only the noise varies).

In the vocabulary of :class:`~ldp.oracles.base.FrequencyOracle` a report
supports its own value "with expectation" ``p = 1`` and any other with ``q = 0``;
the "support counts" are the real-valued column sums, and the base estimator
``(C/n - q)/(p - q)`` is exactly the summation estimator above.

Count level: a column sum is ``n_v + sum of n Laplace draws`` and a sum of ``n``
i.i.d. Laplace(b) variables is the difference of two independent
``Gamma(n, b)`` variables (a Laplace variable is the difference of two
exponentials), so :meth:`SHE.simulate_counts` draws the sums exactly without
per-user work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import check_int
from .base import FrequencyOracle

#: number of report entries generated at once (4 M floats = 32 MiB)
_CHUNK_ENTRIES = 1 << 22


class SHE(FrequencyOracle):
    """Summation with histogram encoding (Wang et al. 2017, Sec. 4.1; Jayawardana et al., Appendix A-6).

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0; the Laplace scale is ``b = 2/epsilon``.
    d : int
        Domain size, >= 2.

    Notes
    -----
    Reports are an ``n x d`` float64 matrix, so :meth:`perturb` is meant for
    moderate ``n`` or for chunks of users; :meth:`perturb_and_count` sums the
    reports chunk by chunk without holding them, and :meth:`simulate_counts`
    draws the sums exactly from their law.  The output space is continuous, so
    there is no channel matrix; :meth:`log_likelihood` gives the density.
    """

    name = "SHE"
    support_is_count = False  # summed noisy reals: may be negative
    has_count_sampler = True
    has_channel = False  # continuous output space: see log_likelihood

    @property
    def scale(self) -> float:
        """Laplace scale ``b = 2/epsilon``."""
        return 2.0 / self.epsilon

    @property
    def p(self) -> float:
        """``E[y_v | x = v] = 1``."""
        return 1.0

    @property
    def q(self) -> float:
        """``E[y_v | x != v] = 0``."""
        return 0.0

    @property
    def exact_epsilon(self) -> float:
        """The Laplace mechanism with scale ``2/eps`` on an L1-sensitivity-2 encoding is exactly eps-LDP."""
        return self.epsilon

    # ------------------------------------------------------------------ client side
    def _blocks(self, x: np.ndarray, gen: np.random.Generator):
        rows = max(1, _CHUNK_ENTRIES // self.d)
        for start in range(0, x.size, rows):
            stop = min(start + rows, x.size)
            block = gen.laplace(0.0, self.scale, size=(stop - start, self.d))
            block[np.arange(stop - start), x[start:stop]] += 1.0
            yield slice(start, stop), block

    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Reports ``e_x + Laplace(2/eps)^d`` for every user: an ``n x d`` float matrix."""
        x = self._codes(x)
        gen = self._rng(rng)
        out = np.empty((x.size, self.d))
        for rows, block in self._blocks(x, gen):
            out[rows] = block
        return out

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        """Column sums of the reports, computed chunk by chunk (same values as ``support_counts(perturb(x))``)."""
        x = self._codes(x)
        gen = self._rng(rng)
        total = np.zeros(self.d)
        for _, block in self._blocks(x, gen):
            total += block.sum(axis=0)
        return total

    # ------------------------------------------------------------------ server side
    def support_counts(self, reports: Any) -> np.ndarray:
        """The real-valued column sums ``sum_i y_i[v]``."""
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise ValueError(f"reports must be an n x d = n x {self.d} matrix, got shape {arr.shape}")
        if not np.issubdtype(arr.dtype, np.floating):
            raise TypeError(f"reports must be a float matrix, got dtype {arr.dtype}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("reports must be finite")
        return arr.sum(axis=0)

    def variance(self, n: int, f: Any = 0.0) -> np.ndarray | float:
        """``2 b^2 / n = 8 / (eps^2 n)`` for every value (the frequency ``f`` does not matter)."""
        n = check_int(n, "n", minimum=1)
        f = self._check_frequency(f)
        out = np.full(f.shape, 2.0 * self.scale**2 / n)
        return float(out) if out.ndim == 0 else out

    # ------------------------------------------------------------------ exact tools
    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Column sums drawn exactly: ``n_v + Gamma(n, b) - Gamma(n, b)``, independent over ``v``."""
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        n = float(counts.sum())
        noise = gen.gamma(n, self.scale, size=self.d) - gen.gamma(n, self.scale, size=self.d)
        return counts + noise

    def log_likelihood(self, y: Any) -> np.ndarray:
        """``log f(y | v)`` for every report row and every value ``v``: an ``n x d`` matrix.

        ``f(y | v) = (2b)^{-d} exp(-||y - e_v||_1 / b)`` and
        ``||y - e_v||_1 = ||y||_1 - |y_v| + |y_v - 1|``.
        """
        y = np.asarray(y, dtype=float)
        if y.ndim == 1:
            y = y[None, :]
        if y.ndim != 2 or y.shape[1] != self.d:
            raise ValueError(f"y must have shape (n, {self.d}), got {y.shape}")
        b = self.scale
        base = -self.d * np.log(2 * b) - np.abs(y).sum(axis=1, keepdims=True) / b
        return base + (np.abs(y) - np.abs(y - 1.0)) / b
