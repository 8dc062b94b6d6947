"""Unary encoding (UE): symmetric (SUE, basic one-time RAPPOR) and optimised (OUE).

Wang et al. (2017, Sec. 4.2).  The value ``v`` is one-hot encoded into ``d``
bits; each bit is then flipped independently: a 1 stays 1 with probability
``p`` and a 0 becomes 1 with probability ``q``.  The report is the whole bit
vector, so it *supports* every value whose bit is set.

* SUE (Erlingsson et al. 2014, basic one-time RAPPOR; Wang et al. 2017, Eq. (7)):
  ``p = e^{eps/2} / (1 + e^{eps/2})`` and ``q = 1 - p``.
* OUE (Wang et al. 2017, Eq. (11)): ``p = 1/2`` and ``q = 1 / (e^eps + 1)``, the
  choice that minimises the variance ``q(1-q)/(p-q)^2`` for a fixed ``eps``.

Two one-hot vectors differ in exactly two bits, so the channel's largest
log-ratio is ``ln[p(1-q) / ((1-p) q)]`` (Wang et al. 2017, Eq. (6)); both SUE and
OUE attain ``eps`` exactly.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._checks import check_epsilon, check_int, check_probability
from .base import FrequencyOracle, StoredProbabilities

#: bits per chunk of users (rows = _CHUNK_BITS // d): bounds the working memory, and fixes the order in which a
#: chunk's draws are taken from the stream (its 16-bit uniforms, then its extra marks, then its users' own bits)
_CHUNK_BITS = 1 << 22
#: largest domain for which :meth:`UnaryEncoding.channel` enumerates the 2^d outputs
MAX_CHANNEL_D = 12


def unary_epsilon(p: float, q: float) -> float:
    """Exact privacy level of unary encoding with bit probabilities ``p`` (own bit) and ``q`` (others).

    ``ln[p (1 - q) / ((1 - p) q)]`` (Wang et al. 2017, Eq. (6)): the worst output
    sets the two bits in which the one-hot encodings of ``x`` and ``x'`` differ
    to (1, 0); every other bit contributes the same factor to both rows.  ``p`` and ``q`` are
    probabilities with ``q <= p`` (the unary-encoding convention; ``q > p`` is refused).
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if q > p:
        raise ValueError(f"q must be <= p (a bit is kept more often than it is set), got p={p!r}, q={q!r}")
    if p in (0.0, 1.0) or q in (0.0, 1.0):
        return math.inf
    return math.log(p * (1 - q)) - math.log((1 - p) * q)


def _check_representable(epsilon: float, p: float, q: float) -> None:
    """Refuse budgets so large that ``p`` or ``q`` rounds to 0 or 1 in double precision."""
    if not (0.0 < q < p < 1.0):
        raise ValueError(
            f"epsilon={epsilon!r} is too large: the bit probabilities round to 0 or 1 "
            f"in double precision (p={p!r}, q={q!r})"
        )


def bernoulli_bits(
    shape: tuple[int, ...], prob: float, gen: np.random.Generator, out: np.ndarray | None = None
) -> np.ndarray:
    """Independent Bernoulli(``prob``) bits, exact to double precision, about 10x faster than ``random() < prob``.

    Write ``prob * 2**16 = t + r`` with integer ``t`` and ``0 <= r < 1``.  A uniform 16-bit integer ``u`` gives
    a 1 when ``u < t`` (probability ``t / 2**16``); independently, every position is also set to 1 with the
    small probability ``s = r / (2**16 - t)`` (:func:`bernoulli_marks`).  A bit is then 1 with probability
    ``t/2**16 + (1 - t/2**16) s = (t + r) / 2**16 = prob`` exactly, and the bits stay independent: nothing is
    rounded, unlike thresholding 16-bit words alone, which would shift ``q`` and hence the privacy level.  The
    marks are drawn after all the ``u``, from geometric gaps: at ``s < 2**-16`` that costs next to nothing, and
    no pass looks for the ``u`` that equal ``t``.

    The 16-bit uniforms are those of ``gen.integers(0, 2**16, size=shape, dtype=np.uint16)``; with numpy's
    default bit generator they are read straight from its raw 64-bit outputs, in cache-sized pieces (see
    :func:`_raw_uint16_path`), which gives the same bits for the same seed at a fraction of the cost.
    ``out``, if given, is a C-contiguous boolean array of ``shape`` that receives the bits (and is returned).
    """
    if out is None:
        out = np.empty(shape, dtype=bool)
    elif out.shape != np.broadcast_shapes(shape) or out.dtype != bool or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous boolean array of shape {shape}")
    scaled = prob * 65536.0
    t = int(np.floor(scaled))
    if t >= 65536:  # prob == 1: consume the same draws as any other prob, then every bit is 1
        gen.integers(0, 65536, size=shape, dtype=np.uint16)
        out[...] = True
        return out
    flat = out.reshape(-1)
    if _raw_uint16_path(gen):
        _threshold_raw(flat, t, gen)
    else:
        np.less(gen.integers(0, 65536, size=flat.size, dtype=np.uint16), t, out=flat)
    extra = scaled - t
    if extra > 0 and flat.size:
        flat[bernoulli_marks(flat.size, extra / (65536 - t), gen)] = True
    return out


def bernoulli_marks(size: int, prob: float, gen: np.random.Generator, batch: int | None = None) -> np.ndarray:
    """Ascending positions, among ``size``, of independent Bernoulli(``prob``) marks (``0 < prob <= 1``).

    The gaps between successive marks of a Bernoulli process are independent geometric variables, so the
    positions are the partial sums of ``gen.geometric(prob)`` draws (minus one) that stay below ``size``; they
    are drawn ``batch`` at a time (by default a little more than the expected count, so one batch nearly
    always suffices).  numpy's geometric sampler reads whole 64-bit
    words, so it leaves no 32-bit half buffered in the generator and the next 16-bit uniforms of
    :func:`bernoulli_bits` can still be read from its raw outputs.
    """
    found = []
    last = -1
    if batch is None:
        mean = size * prob
        batch = int(mean + 6 * math.sqrt(mean) + 16)
    while True:
        steps = last + np.cumsum(gen.geometric(prob, size=batch))
        inside = steps[steps < size]
        found.append(inside)
        if inside.size < batch:
            return np.concatenate(found)
        last = int(steps[-1])


#: 16-bit uniforms drawn and thresholded at a time by :func:`_threshold_raw` (128 KiB: the pass stays in cache)
_SUB_BLOCK = 1 << 16


def _raw_uint16_path(gen: np.random.Generator) -> bool:
    """True when ``gen.integers(0, 2**16, dtype=np.uint16)`` equals the raw outputs of ``gen`` read as 16-bit words.

    numpy's full-range 16-bit sampler splits each 32-bit draw into its low and high halves, and PCG64 makes
    each 32-bit draw from the low, then the high, half of one 64-bit output, unless a high half is left over
    from an earlier 32-bit draw (``has_uint32``).  So, on a little-endian machine and with no half left over,
    ``bit_generator.random_raw(k).view(np.uint16)`` is exactly the next ``4 k`` 16-bit uniforms (tested in
    ``tests/test_oracles_unary.py``).  Other bit generators take the general path.
    """
    bg = gen.bit_generator
    return type(bg) is np.random.PCG64 and sys.byteorder == "little" and not bg.state["has_uint32"]


def _threshold_raw(flat: np.ndarray, t: int, gen: np.random.Generator) -> None:
    """Set ``flat = u < t`` for fresh 16-bit uniforms ``u`` read from raw outputs, piece by piece.

    The last ``size % 4`` uniforms come from ``gen.integers``, which continues the same stream.
    """
    bg = gen.bit_generator
    size = flat.size
    whole = size - size % 4
    for start in range(0, whole, _SUB_BLOCK):
        stop = min(start + _SUB_BLOCK, whole)
        np.less(bg.random_raw((stop - start) // 4).view(np.uint16), t, out=flat[start:stop])
    if whole < size:
        np.less(gen.integers(0, 65536, size=size - whole, dtype=np.uint16), t, out=flat[whole:])


class UnaryEncoding(StoredProbabilities, FrequencyOracle):
    """Unary encoding with arbitrary bit probabilities ``p > q`` (Wang et al. 2017, Sec. 4.2).

    Parameters
    ----------
    epsilon : float or None
        The privacy budget this instance is claimed to satisfy.  It must be at least the
        exact level :func:`unary_epsilon` ``(p, q)`` (1e-9 slack), otherwise a ``ValueError``
        is raised.  ``None`` takes the exact level (useful for fixed-parameter variants such as
        RAPPOR with hard-coded ``f``, ``p``, ``q``, whose privacy does not depend on a budget).
    d : int
        Domain size, >= 2.
    p : float
        P(the bit of the user's own value is reported as 1), in (0, 1).
    q : float
        P(any other bit is reported as 1), in (0, p).

    Notes
    -----
    Reports are an ``n x d`` boolean matrix (one byte per bit).  They are generated in
    chunks of at most ``2^22`` bits, whatever ``n`` is; :meth:`perturb_and_count` goes further
    and never holds the whole report matrix.  Support counts are column sums.

    Because all ``n d`` bits are independent, the support count of ``v`` is exactly
    ``Bin(n_v, p) + Bin(n - n_v, q)``, independently across values: see
    :meth:`simulate_counts`.
    """

    name = "UE"
    has_count_sampler = True

    def __init__(self, epsilon: float | None, d: int, p: float, q: float) -> None:
        p = check_probability(p, "p", open_low=True, open_high=True)
        q = check_probability(q, "q", open_low=True, open_high=True)
        if not q < p:
            raise ValueError(f"q must be < p for the estimator to exist, got p={p!r}, q={q!r}")
        exact = unary_epsilon(p, q)
        if epsilon is None:
            epsilon = exact
        super().__init__(epsilon, d)
        if exact > self.epsilon + 1e-9:
            raise ValueError(
                f"epsilon={self.epsilon!r} is below the exact privacy level ln[p(1-q)/((1-p)q)] = {exact:.6g} "
                f"of p={p!r}, q={q!r}; pass epsilon >= {exact:.6g} (or None)"
            )
        self._p = p
        self._q = q

    @property
    def exact_epsilon(self) -> float:
        """The channel's exact max log-ratio ``ln[p(1-q)/((1-p)q)]`` (<= ``epsilon``)."""
        return unary_epsilon(self.p, self.q)

    # ------------------------------------------------------------------ client side
    def _chunks(
        self, x: np.ndarray, gen: np.random.Generator, out: np.ndarray | None = None
    ) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(user slice, boolean report block)`` over the population, chunk by chunk.

        With ``out`` (an ``n x d`` boolean matrix) every block is written straight into its rows; without
        it, one chunk-sized buffer is reused, so a yielded block is only valid until the next one.
        """
        rows = max(1, _CHUNK_BITS // self.d)
        buf = np.empty((min(rows, x.size), self.d), dtype=bool) if out is None else None
        for start in range(0, x.size, rows):
            stop = min(start + rows, x.size)
            m = stop - start
            target = out[start:stop] if out is not None else buf[:m]
            block = bernoulli_bits((m, self.d), self.q, gen, out=target)
            block[np.arange(m), x[start:stop]] = gen.random(m) < self.p
            yield slice(start, stop), block

    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Perturb every user's one-hot vector; returns an ``n x d`` boolean matrix of reports."""
        x = self._codes(x)
        gen = self._rng(rng)
        out = np.empty((x.size, self.d), dtype=bool)
        for _ in self._chunks(x, gen, out):
            pass
        return out

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        """Per-user perturbation followed by aggregation, without storing the report matrix.

        Gives the same support counts as ``support_counts(perturb(x, rng))`` for the same
        ``rng`` state, in O(chunk x d) memory.
        """
        x = self._codes(x)
        gen = self._rng(rng)
        counts = np.zeros(self.d, dtype=np.int64)
        # a chunk has at most _CHUNK_BITS // d rows, so its column sums fit a narrow accumulator
        # (uint16 up to 65,535 rows): summing bytes into int64 costs about four times as much
        rows = max(1, _CHUNK_BITS // self.d)
        acc = np.uint16 if rows <= np.iinfo(np.uint16).max else np.uint32
        part = np.empty(self.d, dtype=acc)
        for _, block in self._chunks(x, gen):
            np.add.reduce(block.view(np.uint8), axis=0, dtype=acc, out=part)
            counts += part
        return counts

    # ------------------------------------------------------------------ server side
    def _check_reports(self, reports: Any) -> np.ndarray:
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise ValueError(f"reports must be an n x d = n x {self.d} bit matrix, got shape {arr.shape}")
        if arr.dtype != bool:
            if not np.issubdtype(arr.dtype, np.integer):
                raise TypeError(f"reports must be a boolean (or 0/1 integer) matrix, got dtype {arr.dtype}")
            if arr.size and (arr.min() < 0 or arr.max() > 1):
                raise ValueError("reports must contain only 0 and 1 bits")
            arr = arr.astype(bool)
        return arr

    def support_counts(self, reports: Any) -> np.ndarray:
        """``C(v)``: the number of reports whose bit ``v`` is set (column sums)."""
        arr = self._check_reports(reports)
        counts = np.zeros(self.d, dtype=np.int64)
        part = np.empty(self.d, dtype=np.uint16)
        bytes_ = arr.view(np.uint8)
        step = np.iinfo(np.uint16).max  # column sums of this many rows fit 16 bits: summing into int64 is slower
        for start in range(0, arr.shape[0], step):
            np.add.reduce(bytes_[start : start + step], axis=0, dtype=np.uint16, out=part)
            counts += part
        return counts

    # ------------------------------------------------------------------ exact tools
    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly: ``C(v) ~ Bin(n_v, p) + Bin(n - n_v, q)``, independent over ``v``.

        Exactness: every bit of every report is an independent Bernoulli variable
        (independent across users, and across the ``d`` positions within one report).
        ``C(v)`` is the sum of column ``v`` only: ``n_v`` Bernoulli(p) bits and
        ``n - n_v`` Bernoulli(q) bits.  Distinct columns are disjoint sets of independent
        bits, so the coordinates of ``C`` are independent and the vector's joint law is
        the product of these marginals.  (Not true for GRR or subset selection, whose
        supports within one report are dependent.)
        """
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        n = int(counts.sum())
        return gen.binomial(counts, self.p) + gen.binomial(n - counts, self.q)

    def _check_bits(self, y_bits: Any) -> np.ndarray:
        y = np.asarray(y_bits)
        if y.ndim not in (1, 2) or y.shape[-1] != self.d:
            raise ValueError(f"y_bits must have shape (d,) or (m, d) with d={self.d}, got {y.shape}")
        if y.dtype != bool:
            if not np.issubdtype(y.dtype, np.integer):
                raise TypeError(f"y_bits must hold 0/1 bits, got dtype {y.dtype}")
            if y.size and (y.min() < 0 or y.max() > 1):
                raise ValueError("y_bits must contain only 0 and 1")
        return y.astype(bool)

    def channel_entry(self, x: int, y_bits: Any, *, log: bool = False) -> float | np.ndarray:
        """Exact ``P(y | x)`` for a bit vector ``y`` (shape ``(d,)``, or ``(m, d)`` for ``m`` outputs).

        ``P(y|x) = p^{y_x} (1-p)^{1-y_x} * prod_{v != x} q^{y_v} (1-q)^{1-y_v}``.
        With ``log=True`` the natural log is returned (no underflow at large ``d``).
        """
        x = check_int(x, "x", minimum=0, maximum=self.d - 1)
        y = self._check_bits(y_bits)
        ones = y.sum(axis=-1) - y[..., x]
        own = y[..., x]
        logp = (
            np.where(own, math.log(self.p), math.log1p(-self.p))
            + ones * math.log(self.q)
            + (self.d - 1 - ones) * math.log1p(-self.q)
        )
        out = logp if log else np.exp(logp)
        return float(out) if np.ndim(out) == 0 else out

    def channel(self) -> np.ndarray:
        """The ``d x 2^d`` channel; column ``j`` is the bit vector with bit ``v`` = ``(j >> v) & 1``.

        Only for ``d <= 12`` (4096 outputs); use :meth:`channel_entry` beyond that.
        """
        if self.d > MAX_CHANNEL_D:
            raise ValueError(
                f"d={self.d} is too large to enumerate the 2^d outputs of unary encoding "
                f"(d <= {MAX_CHANNEL_D}); use channel_entry(x, y_bits) instead"
            )
        bits = self.output_bits()
        return np.stack([self.channel_entry(x, bits) for x in range(self.d)])

    def output_bits(self) -> np.ndarray:
        """All ``2^d`` outputs as a ``2^d x d`` boolean matrix, in the column order of :meth:`channel`."""
        if self.d > MAX_CHANNEL_D:
            raise ValueError(f"d={self.d} is too large to enumerate 2^d outputs (d <= {MAX_CHANNEL_D})")
        j = np.arange(2**self.d)
        return ((j[:, None] >> np.arange(self.d)) & 1).astype(bool)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, d={self.d}, p={self.p:.6g}, q={self.q:.6g})"


class SUE(UnaryEncoding):
    """Symmetric unary encoding = basic one-time RAPPOR (Erlingsson et al. 2014; Wang et al. 2017, Eq. (7)).

    ``p = e^{eps/2}/(1 + e^{eps/2})``, ``q = 1 - p``; variance ``e^{eps/2}/(e^{eps/2}-1)^2 / n``
    for a value of frequency 0 (Wang et al. 2017, Eq. (8)).
    """

    name = "SUE"

    def __init__(self, epsilon: float, d: int) -> None:
        eps = check_epsilon(epsilon)
        q = 1.0 / (1.0 + math.exp(eps / 2)) if eps < 1400 else 0.0
        _check_representable(eps, 1 - q, q)
        super().__init__(eps, d, 1 - q, q)

    @property
    def one_minus_p(self) -> float:
        """``1 - p = q = 1/(1 + e^{eps/2})`` exactly (``p`` is stored as the rounded ``1 - q``)."""
        return self.q

    @property
    def p_minus_q(self) -> float:
        """``p - q = tanh(eps/4)``, accurate for small ``eps`` too."""
        return math.tanh(self.epsilon / 4)

    def __repr__(self) -> str:
        return f"SUE(epsilon={self.epsilon:g}, d={self.d})"


class OUE(UnaryEncoding):
    """Optimised unary encoding (Wang et al. 2017, Sec. 4.2, Eq. (11)).

    ``p = 1/2``, ``q = 1/(e^eps + 1)``; variance ``4 e^eps/(e^eps - 1)^2 / n`` for a value of
    frequency 0 (Wang et al. 2017, Eq. (12)), equal to OLH's and independent of ``d``.
    """

    name = "OUE"

    def __init__(self, epsilon: float, d: int) -> None:
        eps = check_epsilon(epsilon)
        q = 1.0 / (math.exp(eps) + 1) if eps < 700 else 0.0
        _check_representable(eps, 0.5, q)
        super().__init__(eps, d, 0.5, q)

    @property
    def p_minus_q(self) -> float:
        """``p - q = 1/2 - 1/(e^eps + 1) = tanh(eps/2)/2``, accurate for small ``eps`` too."""
        return math.tanh(self.epsilon / 2) / 2

    def __repr__(self) -> str:
        return f"OUE(epsilon={self.epsilon:g}, d={self.d})"
