"""Hadamard response (HR), Acharya, Sun & Zhang (AISTATS 2019).

Let ``K`` be the smallest power of two *strictly* greater than ``d`` and ``H`` the
``K x K`` Sylvester--Hadamard matrix, ``H[i, j] = (-1)^{popcount(i & j)}``.  Value
``x`` is attached to row ``s = x + 1`` (row 0, all ones, is skipped) and to the
half of the columns where that row is ``+1``::

    C_x = {j in [K] : popcount((x + 1) & j) is even},   |C_x| = K/2.

The user reports one index ``y in [K]``: uniform on ``C_x`` with total probability
``e^eps/(e^eps+1)``, uniform on the complement otherwise (Acharya et al., Sec. 3,
high-privacy form with one block).  Hence::

    P(y | x) = (1 + lam * H[x+1, y]) / K,       lam = (e^eps - 1)/(e^eps + 1),

whose max ratio is ``(1+lam)/(1-lam) = e^eps``: exactly eps-LDP.

Support: a report supports ``v`` when ``y in C_v``.  ``p = e^eps/(e^eps+1)``, and
for ``v != x`` two distinct non-zero rows of ``H`` agree on exactly ``K/2``
columns, so ``|C_v n C_x| = |C_v n C_x^c| = K/4`` and ``q = 1/2`` whichever half
``y`` came from.  Support counts come from one fast Walsh--Hadamard transform of
the output histogram: ``C(v) = (n + (H hist)[v+1]) / 2``, O(n + K log K).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .base import FrequencyOracle


def fwht(a: Any) -> np.ndarray:
    """Fast Walsh--Hadamard transform along the last axis, in Sylvester (natural) order.

    Returns ``a @ H`` for the symmetric ``K x K`` Sylvester matrix ``H`` with
    ``H[i, j] = (-1)^{popcount(i & j)}``; ``K`` (the last dimension) must be a power
    of two.  Integer input is transformed exactly in int64, anything else in float64.
    Unnormalised: applying it twice multiplies by ``K``.  O(K log K) numpy work via
    reshapes, no Python loop over entries.
    """
    arr = np.asarray(a)
    if arr.ndim == 0:
        raise ValueError("fwht needs at least one dimension, got a scalar")
    K = arr.shape[-1]
    if K < 1 or K & (K - 1):
        raise ValueError(f"the last dimension of the fwht input must be a power of two, got {K}")
    dtype = np.int64 if (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool) else np.float64
    out = np.array(arr, dtype=dtype, copy=True)
    lead = out.shape[:-1]
    h = 1
    while h < K:
        view = out.reshape(*lead, K // (2 * h), 2, h)
        top, bottom = view[..., 0, :], view[..., 1, :]
        total = top + bottom
        np.subtract(top, bottom, out=bottom)
        top[...] = total
        h *= 2
    return out


def hadamard_matrix(K: int) -> np.ndarray:
    """The explicit ``K x K`` Sylvester--Hadamard matrix (int8), for tests and small examples."""
    if K < 1 or K & (K - 1):
        raise ValueError(f"K must be a power of two, got {K}")
    idx = np.arange(K)
    parity = (np.bitwise_count(idx[:, None] & idx[None, :]) & 1).astype(np.int8)
    return 1 - 2 * parity


class HadamardResponse(FrequencyOracle):
    """Hadamard response over ``{0, ..., d-1}`` with ``K = 2^ceil(log2(d+1))`` outputs.

    Parameters
    ----------
    epsilon : float
        Privacy budget (> 0, finite).
    d : int
        Domain size (>= 2).

    Notes
    -----
    Vectorised sampling: draw ``j`` uniform on ``[K]`` and the wanted side
    (inside ``C_x`` w.p. ``e^eps/(e^eps+1)``); if ``j`` lies on the wrong side,
    flip the lowest set bit ``t`` of ``x + 1`` in ``j``.  Flipping ``t`` changes
    ``popcount((x+1) & j)`` by one, so ``j -> j xor t`` is an involution of
    ``[K]`` that swaps ``C_x`` with its complement.  Hence for every ``y`` on the
    wanted side ``P(y) = P(j = y) + P(j = y xor t) = 2/K``: uniform on that side.
    """

    name = "HR"
    has_count_sampler = True

    def __init__(self, epsilon: float, d: int) -> None:
        super().__init__(epsilon, d)
        if self.lam >= 1.0:
            raise ValueError(f"epsilon={self.epsilon!r} is too large: (e^eps-1)/(e^eps+1) rounds to 1 in "
                             "double precision and the complement of C_x would never be reported")
        self.K = 1 << self.d.bit_length()       # smallest power of two > d
        self._slots: np.ndarray | None = None    # cached d x K/2 positions of C_x (count sampler)

    @property
    def p(self) -> float:
        """``P(y in C_x | x) = e^eps/(e^eps+1)``."""
        return 1.0 / (1.0 + math.exp(-self.epsilon))

    @property
    def q(self) -> float:
        """``P(y in C_v | x)`` for ``v != x``: exactly 1/2 (rows of ``H`` are orthogonal)."""
        return 0.5

    @property
    def lam(self) -> float:
        """``(e^eps - 1)/(e^eps + 1)``: the weight of the informative part of the channel."""
        return math.tanh(self.epsilon / 2)

    # ------------------------------------------------------------------ client side
    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Reports: one int64 index in ``[K]`` per user."""
        x = self._codes(x)
        gen = self._rng(rng)
        s = x + 1
        j = gen.integers(0, self.K, size=x.size, dtype=np.int64)
        want_in = gen.random(x.size) < self.p
        is_in = (np.bitwise_count(s & j) & 1) == 0
        flip = want_in != is_in
        j[flip] ^= (s & -s)[flip]
        return j

    # ------------------------------------------------------------------ server side
    def output_histogram(self, reports: Any) -> np.ndarray:
        """Counts of each output index ``0 .. K-1``."""
        y = np.asarray(reports)
        if y.dtype == object or not np.issubdtype(y.dtype, np.integer):
            raise TypeError(f"reports must be an integer array, got dtype {y.dtype}")
        if y.ndim != 1:
            raise ValueError(f"reports must be one-dimensional, got shape {y.shape}")
        if y.size and (int(y.min()) < 0 or int(y.max()) >= self.K):
            bad = int(y.min()) if int(y.min()) < 0 else int(y.max())
            raise ValueError(f"reports contains {bad}, outside the output range {{0, ..., {self.K - 1}}}")
        return np.bincount(y, minlength=self.K)

    def support_from_histogram(self, hist: Any) -> np.ndarray:
        """``C(v) = (n + (H hist)[v+1]) / 2`` from an output histogram (length ``K``), by one FWHT."""
        hist = np.asarray(hist, dtype=np.int64)
        if hist.shape != (self.K,):
            raise ValueError(f"hist must have shape ({self.K},), got {hist.shape}")
        w = fwht(hist)
        return (int(hist.sum()) + w[1: self.d + 1]) // 2   # n and w[v] have the same parity

    def support_counts(self, reports: Any) -> np.ndarray:
        return self.support_from_histogram(self.output_histogram(reports))

    # ------------------------------------------------------------------ channel
    def channel_entry(self, x: Any, y: Any) -> np.ndarray:
        """Exact ``P(y | x) = (1 + lam H[x+1, y]) / K`` (broadcasting)."""
        x = np.asarray(x, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        if np.any((x < 0) | (x >= self.d)):
            raise ValueError(f"x must lie in {{0, ..., {self.d - 1}}}")
        if np.any((y < 0) | (y >= self.K)):
            raise ValueError(f"y must lie in {{0, ..., {self.K - 1}}}")
        sign = 1 - 2 * (np.bitwise_count((x + 1) & y) & 1).astype(np.int64)  # bitwise_count is uint8
        return (1.0 + self.lam * sign) / self.K

    def channel(self) -> np.ndarray:
        """The ``d x K`` channel."""
        return self.channel_entry(np.arange(self.d)[:, None], np.arange(self.K)[None, :])

    # ------------------------------------------------------------------ count-level sampler
    def _slot_matrix(self) -> np.ndarray:
        """Row ``x``: the ``K/2`` members of ``C_x``, indexed by the other ``log2 K - 1`` bits.

        Member ``f`` is ``f`` with a bit inserted at position ``t = lowbit(x+1)``,
        chosen so that ``popcount((x+1) & j)`` is even.
        """
        if self._slots is None:
            s = np.arange(1, self.d + 1, dtype=np.int64)[:, None]
            t = s & -s
            f = np.arange(self.K // 2, dtype=np.int64)[None, :]
            base = ((f & ~(t - 1)) << 1) | (f & (t - 1))
            parity = np.bitwise_count(base & s) & 1
            self._slots = (base | (parity * t)).astype(np.intp)
        return self._slots

    def simulate_histogram(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Output histogram (length ``K``) drawn exactly given the true counts.

        The channel is the mixture ``(1 - lam) Uniform[K] + lam Uniform(C_x)``, so
        per value ``x`` a ``Bin(n_x, lam)`` number of users is informative and
        spread by a uniform multinomial over ``C_x``; all the others form one
        uniform multinomial over ``[K]``.  O(d K) draws, independent of n.
        """
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        informative = gen.binomial(counts, self.lam)
        rest = int(counts.sum() - informative.sum())
        hist = gen.multinomial(rest, np.full(self.K, 1.0 / self.K))
        half = self.K // 2
        inside = gen.multinomial(informative, np.full(half, 1.0 / half))
        hist += np.bincount(self._slot_matrix().ravel(), weights=inside.ravel(),
                            minlength=self.K).astype(np.int64)
        return hist

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly (via :meth:`simulate_histogram` and one FWHT)."""
        return self.support_from_histogram(self.simulate_histogram(true_counts, rng))

    def __repr__(self) -> str:
        return f"HadamardResponse(epsilon={self.epsilon:g}, d={self.d}, K={self.K})"
