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
the output counts: ``C(v) = (n + (H hist)[v+1]) / 2``, O(n + K log K).
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
    from .._checks import check_allocation, check_int

    K = check_int(K, "K", minimum=1)
    check_allocation(K * K, 1, "the K x K Hadamard matrix", "K", K)
    if K & (K - 1):
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
            raise ValueError(
                f"epsilon={self.epsilon!r} is too large: (e^eps-1)/(e^eps+1) rounds to 1 in "
                "double precision and the complement of C_x would never be reported"
            )
        self.K = 1 << self.d.bit_length()  # smallest power of two > d

    @property
    def p(self) -> float:
        """``P(y in C_x | x) = e^eps/(e^eps+1)``."""
        return 1.0 / (1.0 + math.exp(-self.epsilon))

    @property
    def q(self) -> float:
        """``P(y in C_v | x)`` for ``v != x``: exactly 1/2 (rows of ``H`` are orthogonal)."""
        return 0.5

    @property
    def one_minus_p(self) -> float:
        """``1 - p = 1/(e^eps + 1)``, without cancellation."""
        return 1.0 / (1.0 + math.exp(self.epsilon)) if self.epsilon < 700 else 0.0

    @property
    def p_minus_q(self) -> float:
        """``p - q = tanh(eps/2)/2``, accurate for small ``eps`` too."""
        return 0.5 * math.tanh(self.epsilon / 2)

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
    def output_counts(self, reports: Any) -> np.ndarray:
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

    def support_from_output_counts(self, hist: Any) -> np.ndarray:
        """``C(v) = (n + (H hist)[v+1]) / 2`` from the output counts (length ``K``), by one FWHT."""
        from .._checks import check_counts

        hist = check_counts(hist, self.K, "hist")
        w = fwht(hist)
        return (int(hist.sum()) + w[1 : self.d + 1]) // 2  # n and w[v] have the same parity

    def support_counts(self, reports: Any) -> np.ndarray:
        return self.support_from_output_counts(self.output_counts(reports))

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
        from .._checks import check_allocation

        check_allocation(self.d * self.K, 8, f"the d x K = {self.d} x {self.K} channel", "d", self.d)
        return self.channel_entry(np.arange(self.d)[:, None], np.arange(self.K)[None, :])

    # ------------------------------------------------------------------ count-level sampler
    def simulate_output_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Output counts (length ``K``) drawn exactly given the true counts.

        The channel is the mixture ``(1 - lam) Uniform[K] + lam Uniform(C_x)``: per
        value ``x`` a ``Bin(n_x, lam)`` number of users is informative, uniform on
        the hyperplane ``C_x = {y : <x+1, y> = 0}`` of ``F_2^m`` (``K = 2^m``); the
        others are uniform on ``[K]`` (the hyperplane of ``s = 0``).

        The bits of ``y`` are then drawn from the top bit down for whole groups of
        users at once.  A group is a *state* ``(prefix, s, c)``: its users share the
        top bits ``prefix`` already drawn, and their remaining bits are uniform on
        ``{y' : <s, y'> = c}`` where ``s`` keeps the not-yet-drawn bits of ``x+1``.
        The next bit ``b`` is a fair coin for each user (one ``Bin(count, 1/2)``
        split of the group) unless ``b`` is the last bit of ``s``, when it must equal
        ``c``; drawing it removes ``b`` from ``s`` and, if ``b = 1`` and ``s`` had
        bit ``b``, flips ``c``.  Groups reaching the same state have the same
        conditional law from then on, so they are merged (a sum of multinomials
        with equal cell probabilities is multinomial).  After ``log2 K`` levels the
        prefixes are the outputs.  At most ``min(d, 2K/2^L)`` states per prefix
        survive at level ``L``: about ``2 K log2 K`` binomial draws in all instead of
        the ``d K/2`` of one multinomial per value, independent of ``n``.
        """
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        informative = gen.binomial(counts, self.lam)
        rest = int(counts.sum() - informative.sum())
        m = self.K.bit_length() - 1
        prefix = np.zeros(self.d + 1, dtype=np.int64)
        s = np.concatenate([np.arange(1, self.d + 1, dtype=np.int64), [0]])
        c = np.zeros(self.d + 1, dtype=np.int64)
        count = np.concatenate([informative, [rest]]).astype(np.int64)
        for b in range(m - 1, -1, -1):
            has_bit = (s >> b) & 1
            s_next = s & ~(np.int64(1) << b)
            forced = (has_bit == 1) & (s_next == 0)  # b is the last bit of s: y_b = c
            ones = np.where(forced, count * c, gen.binomial(count, 0.5))
            zeros = count - ones
            c_one = np.where(has_bit == 1, c ^ 1, c)  # state after drawing y_b = 1
            prefix = np.concatenate([2 * prefix, 2 * prefix + 1])
            s = np.concatenate([s_next, s_next])
            c = np.concatenate([np.where(s_next == 0, 0, c), np.where(s_next == 0, 0, c_one)])
            count = np.concatenate([zeros, ones])
            keep = count > 0
            key = ((prefix[keep] << b) | s[keep]) * 2 + c[keep]  # s < 2^b now
            uniq, inverse = np.unique(key, return_inverse=True)
            count = np.bincount(inverse, weights=count[keep]).astype(np.int64)
            c = uniq & 1
            s = (uniq >> 1) & ((np.int64(1) << b) - 1)
            prefix = (uniq >> 1) >> b
        return np.bincount(prefix, weights=count, minlength=self.K).astype(np.int64)

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly (via :meth:`simulate_output_counts` and one FWHT)."""
        return self.support_from_output_counts(self.simulate_output_counts(true_counts, rng))

    def __repr__(self) -> str:
        return f"HadamardResponse(epsilon={self.epsilon:g}, d={self.d}, K={self.K})"
