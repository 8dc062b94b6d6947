"""RAPPOR with Bloom filters, as LoPub uses it (permanent randomized response only).

Erlingsson, Pihur & Korolova (CCS 2014) encode a value ``v`` as an ``m``-bit Bloom
filter ``B_v``: the bits at ``h`` hash positions of ``v`` are set (positions may
coincide, so a filter can hold fewer than ``h`` ones).  LoPub (Ren et al., IEEE
TIFS 2018, Sec. 5.2.2) then applies RAPPOR's *permanent*
randomized response to every bit and sends the result once::

    s_hat[b] = 1      with probability f/2
               0      with probability f/2
               s[b]   with probability 1 - f

so ``P(s_hat[b] = 1 | s[b] = 1) = 1 - f/2`` and ``P(s_hat[b] = 1 | s[b] = 0) = f/2``.
There is no instantaneous randomized response and there are no cohorts.

Privacy.  Bits are perturbed independently, so for two values the likelihood
ratio of any report is at most ``((2-f)/f)^{Ham(B_x, B_x')}``, attained by the
report that agrees with ``B_x`` on every differing bit.  The exact epsilon of the
channel is therefore ``max_{x,x'} Ham(B_x, B_x') * ln((2-f)/f)``, at most the
nominal ``2h ln((2-f)/f)`` of RAPPOR (LoPub Eq. (8)) and equal to it when two
filters have ``h`` ones each and no common bit.

Hash functions.  ``position_t(v)`` for ``t = 0..h-1`` comes from a fixed,
documented integer mixer, so every machine and every Python process gets the
same filters (Python's ``hash()`` is salted per process and must not be used):
with ``mix64`` the SplitMix64 output function (Steele, Lea & Flood, OOPSLA 2014),
``key_t = mix64(mix64(hash_seed) xor (t + 1))`` and
``position_t(v) = mix64(key_t xor v) mod m``.

Estimation.  ``t_b = (c_b/n - f/2)/(1 - f)`` is unbiased for ``sum_v f_v B[v, b]``
(``c_b`` = number of reports with bit ``b`` set), i.e. ``E t = B^T f``.  When the
``d x m`` matrix ``B`` has rank ``d`` (which needs ``m >= d``), the least-squares
solution ``f_hat = (B^T)^+ t`` is exactly unbiased; otherwise the frequencies are
not identifiable from bit counts and :meth:`BloomRAPPOR.estimate` raises.

Count-level sampler.  Given the users' values, all ``n m`` reported bits are
independent, so each bit count is ``Bin(N1_b, 1 - f/2) + Bin(n - N1_b, f/2)``
with ``N1_b = sum_v n_v B[v, b]``, and the ``m`` counts are mutually independent:
the vector sampler is exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import (
    as_generator,
    check_allocation,
    check_choice,
    check_count_array,
    check_domain_size,
    check_epsilon,
    check_int,
    check_probability,
)
from .base import FrequencyOracle
from .unary import bernoulli_bits

_MASK64 = (1 << 64) - 1
#: rows of reports generated at once are chosen so that rows * m stays near this many bits
_CHUNK_BITS = 1 << 22
#: largest 2^m for which :meth:`BloomRAPPOR.channel` enumerates the outputs
_MAX_CHANNEL_BITS = 12


def mix64(z: Any) -> np.ndarray:
    """SplitMix64 output function on uint64 (wrapping arithmetic), vectorised."""
    z = np.array(z, dtype=np.uint64, ndmin=1)
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def bloom_positions(d: int, m: int, h: int, hash_seed: int = 0) -> np.ndarray:
    """``d x h`` table of the hash positions (in ``0..m-1``) of every value.

    ``position_t(v) = mix64(key_t xor v) mod m`` with
    ``key_t = mix64(mix64(hash_seed) xor (t + 1))`` (module docstring).
    """
    d = check_domain_size(d, "d", minimum=1)
    m = check_domain_size(m, "m", minimum=1)
    h = check_domain_size(h, "h", minimum=1)
    hash_seed = check_int(hash_seed, "hash_seed", minimum=0, maximum=_MASK64)
    check_allocation(d * h, 8, "the d x h hash positions", "d", d)
    seed_key = mix64(hash_seed)
    keys = mix64(seed_key ^ np.arange(1, h + 1, dtype=np.uint64))  # (h,)
    mixed = mix64((keys[None, :] ^ np.arange(d, dtype=np.uint64)[:, None]).ravel())
    return (mixed % np.uint64(m)).astype(np.int64).reshape(d, h)


def bloom_matrix(d: int, m: int, h: int, hash_seed: int = 0) -> np.ndarray:
    """The ``d x m`` 0/1 matrix (uint8) whose row ``v`` is the Bloom filter of ``v``."""
    pos = bloom_positions(d, m, h, hash_seed)
    check_allocation(d * m, 1, "the d x m Bloom matrix", "m", m)
    B = np.zeros((d, m), dtype=np.uint8)
    B[np.repeat(np.arange(d), pos.shape[1]), pos.ravel()] = 1
    return B


#: how :func:`permanent_rr` draws its bits: the same law, two random streams
PRR_SAMPLERS = ("uniform", "xor")


def permanent_rr(bits: Any, f: float, rng: Any = None, *, sampler: str = "uniform") -> np.ndarray:
    """RAPPOR's permanent randomized response on any array of bits (LoPub Sec. 5.2.2).

    Each bit independently becomes 1 w.p. ``f/2``, 0 w.p. ``f/2``, and is kept
    w.p. ``1 - f``.  ``sampler="uniform"`` uses one float64 uniform per bit
    (``U < f/2`` -> 1, ``f/2 <= U < f`` -> 0, otherwise kept).  ``sampler="xor"``
    draws the same law another way: whatever its value, a bit ends up wrong with
    probability exactly ``f/2``, independently of the others, so the report is the
    true bits XOR independent Bernoulli(``f/2``) flips, drawn by the exact 16-bit
    sampler :func:`ldp.oracles.unary.bernoulli_bits` (several times faster; a
    different random stream for the same seed).
    """
    f = check_probability(f, "f", open_low=True, open_high=True)
    sampler = check_choice(sampler, PRR_SAMPLERS, "sampler")
    bits = np.asarray(bits)
    if not (bits.dtype == bool or np.issubdtype(bits.dtype, np.integer)):
        raise TypeError(f"bits must be a boolean or 0/1 integer array, got dtype {bits.dtype}")
    if bits.dtype != bool:
        if bits.size and (bits.min() < 0 or bits.max() > 1):
            raise ValueError("bits must contain only 0 and 1")
        bits = bits.astype(bool)
    gen = as_generator(rng)
    if sampler == "xor":
        out = bernoulli_bits(bits.shape, f / 2, gen)
        out ^= bits
        return out
    u = gen.random(bits.shape)
    return (u < f / 2) | ((u >= f) & bits)


def epsilon_from_f(f: float, h: int) -> float:
    """Nominal RAPPOR/LoPub budget ``2h ln((2-f)/f)`` (LoPub Eq. (8))."""
    f = check_probability(f, "f", open_low=True, open_high=True)
    h = check_domain_size(h, "h", minimum=1)
    return 2 * h * math.log((2 - f) / f)


def f_from_epsilon(epsilon: float, h: int) -> float:
    """Invert :func:`epsilon_from_f`: ``f = 2/(1 + e^{eps/(2h)})``, in (0, 1) for every eps > 0."""
    eps = check_epsilon(epsilon)
    h = check_domain_size(h, "h", minimum=1)
    t = math.exp(-eps / (2 * h))  # e^{-eps/(2h)}: no overflow at large budgets
    return 2.0 * t / (1.0 + t)


def debias_bit_counts(counts: Any, n: int, f: float) -> np.ndarray:
    """Unbiased count of true ones from reported bit counts: ``(c - f n / 2) / (1 - f)``.

    Each reported bit is 1 with probability ``f/2 + (1 - f) s`` for a true bit ``s``, so
    ``E[c_b] = (1 - f) N1_b + f n / 2`` over ``n`` reports (LoPub Alg. 2 line 4, Example 8).
    With ``n = 1`` this debiases single reports bit by bit.  Negative values are kept.
    """
    f = check_probability(f, "f", open_low=True, open_high=True)
    n = check_int(n, "n", minimum=1)
    return (check_count_array(counts, n, "counts") - f * n / 2) / (1 - f)


def _check_filter_matrix(filters: Any, name: str = "filters") -> np.ndarray:
    B = np.asarray(filters)
    if not (B.dtype == bool or np.issubdtype(B.dtype, np.integer)):
        raise TypeError(f"{name} must be a boolean or 0/1 integer matrix, got dtype {B.dtype}")
    if B.ndim != 2 or B.shape[0] < 1 or B.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D (values x bits) matrix, got shape {B.shape}")
    if B.dtype != bool and (B.min() < 0 or B.max() > 1):
        raise ValueError(f"{name} must contain only 0 and 1")
    return B.astype(np.uint8)


def bloom_log_likelihood(reports: Any, filters: Any, f: float) -> np.ndarray:
    """``log P(report_i | v)`` for every report ``i`` and every filter row ``v`` (``n x d`` float64).

    ``sum_b [s_b log mu_b(v) + (1 - s_b) log(1 - mu_b(v))]`` with ``mu_b(v) = f/2 + (1-f) B[v, b]``,
    which equals ``m log(1 - f/2) + mism_v log(f/(2-f))`` where ``mism_v`` is the Hamming distance
    between the report and ``B[v]`` (the mismatch form of LoPub's Example 3).  The 0/1 products are
    taken in float32 (exact integers) so that large report matrices need no float64 copy.
    """
    f = check_probability(f, "f", open_low=True, open_high=True)
    B = _check_filter_matrix(filters)
    r = np.asarray(reports)
    if not (r.dtype == bool or np.issubdtype(r.dtype, np.integer)):
        raise TypeError(f"reports must be a boolean or 0/1 integer array, got dtype {r.dtype}")
    if r.ndim != 2 or r.shape[1] != B.shape[1]:
        raise ValueError(f"reports must have shape (n, {B.shape[1]}), got {r.shape}")
    if r.dtype != bool and r.size and (r.min() < 0 or r.max() > 1):
        raise ValueError("reports must contain only 0 and 1")
    m = B.shape[1]
    signed = np.rint(r.astype(np.float32) @ (2 * B.astype(np.float32) - 1).T).astype(np.int64)
    ones = B.sum(axis=1, dtype=np.int64)
    const = ones * math.log(f / 2) + (m - ones) * math.log1p(-f / 2)
    return signed * math.log((2 - f) / f) + const[None, :]


def full_rank_seed(d: int, m: int, h: int, start: int = 0, tries: int = 1000) -> int:
    """The first ``hash_seed >= start`` whose ``d x m`` Bloom matrix has rank ``d``.

    The estimators need identifiable filters (erratum E11); bump the seed deterministically
    until the matrix has full rank.  Raises ``ValueError`` when ``m < d`` (impossible)
    or when ``tries`` seeds all fail.
    """
    d = check_domain_size(d, "d", minimum=1)
    m = check_domain_size(m, "m", minimum=1)
    tries = check_int(tries, "tries", minimum=1)
    if m < d:
        raise ValueError(f"a d x m Bloom matrix cannot have rank d = {d} with m = {m} < d bits; increase m")
    for seed in range(start, start + tries):
        if np.linalg.matrix_rank(bloom_matrix(d, m, h, seed).astype(float)) == d:
            return seed
    raise ValueError(
        f"no hash_seed in [{start}, {start + tries}) gives a rank-{d} Bloom matrix (m = {m}, h = {h}); increase m"
    )


class BloomRAPPOR(FrequencyOracle):
    """RAPPOR with Bloom filters and permanent randomized response (LoPub's encoding).

    Parameters
    ----------
    epsilon : float, optional
        Nominal budget ``2h ln((2-f)/f)``; give exactly one of ``epsilon`` and ``f``.
    d : int
        Domain size (>= 2).
    m : int
        Bloom filter length in bits (>= 1).
    h : int
        Number of hash functions (>= 1).
    f : float, optional
        Flip probability of the permanent randomized response, in (0, 1).
    hash_seed : int
        Selects the hash functions (see :func:`bloom_positions`); public, shared by
        users and server.
    filters : (d, m) 0/1 matrix, optional
        Explicit public Bloom filters (row ``v`` = filter of value ``v``, each with 1 to
        ``h`` ones) instead of the hashed ones, e.g. the printed filters of a worked
        example (LoPub Table 5).  ``hash_seed`` is then unused.

    Notes
    -----
    ``epsilon`` is the nominal RAPPOR guarantee; :attr:`exact_epsilon` is the
    tight value of this particular set of filters.  Reports are ``n x m`` boolean
    arrays.  :meth:`support_counts` returns the *bit counts* (length ``m``), and
    ``p = 1 - f/2`` / ``q = f/2`` are the per-bit probabilities of a set / unset
    true bit being reported as 1; :meth:`estimate_counts` turns bit counts
    into frequencies by least squares.
    """

    name = "RAPPOR"
    has_count_sampler = True

    def __init__(
        self,
        epsilon: float | None = None,
        d: int | None = None,
        m: int | None = None,
        h: int | None = None,
        f: float | None = None,
        *,
        hash_seed: int = 0,
        filters: Any = None,
    ) -> None:
        for label, value in (("d", d), ("m", m), ("h", h)):
            if value is None:
                raise TypeError(f"BloomRAPPOR needs {label}")
        h = check_domain_size(h, "h", minimum=1)
        if (epsilon is None) == (f is None):
            raise ValueError(f"give exactly one of epsilon and f, got epsilon={epsilon!r}, f={f!r}")
        if f is None:
            f = f_from_epsilon(epsilon, h)
            self._p_minus_q = math.tanh(check_epsilon(epsilon) / (4 * h))
            if not 0.0 < f / 2 < 1.0 - f / 2 < 1.0:
                raise ValueError(
                    f"epsilon={epsilon!r} is too large for h={h}: the flip probability f={f!r} "
                    "rounds the bit probabilities to 0 or 1 in double precision"
                )
        else:
            f = check_probability(f, "f", open_low=True, open_high=True)
            if not 1.0 - f / 2 < 1.0:
                raise ValueError(f"f={f!r} is too small: 1 - f/2 rounds to 1 in double precision")
            self._p_minus_q = 1.0 - f
        super().__init__(epsilon_from_f(f, h), d)
        self.m = check_domain_size(m, "m", minimum=1)
        self.h = h
        self.f = f
        self.hash_seed = check_int(hash_seed, "hash_seed", minimum=0, maximum=_MASK64)
        self.explicit_filters = filters is not None
        if filters is None:
            self._B = bloom_matrix(self.d, self.m, self.h, self.hash_seed)
        else:
            B = _check_filter_matrix(filters)
            if B.shape != (self.d, self.m):
                raise ValueError(f"filters must have shape (d, m) = ({self.d}, {self.m}), got {B.shape}")
            ones = B.sum(axis=1)
            if ones.min() < 1 or ones.max() > self.h:
                raise ValueError(
                    f"every filter must have between 1 and h = {self.h} ones, got row sums {ones.min()}..{ones.max()}"
                )
            self._B = B.copy()
        self._pinv: np.ndarray | None = None

    # ------------------------------------------------------------------ encoding
    def bloom_matrix(self) -> np.ndarray:
        """The ``d x m`` 0/1 Bloom matrix (a copy)."""
        return self._B.copy()

    def encode(self, x: Any) -> np.ndarray:
        """Noiseless Bloom filters of the population, ``n x m`` bool."""
        return self._B[self._codes(x)].astype(bool)

    @property
    def p(self) -> float:
        """``P(reported bit = 1 | true bit = 1) = 1 - f/2``."""
        return 1.0 - self.f / 2

    @property
    def q(self) -> float:
        """``P(reported bit = 1 | true bit = 0) = f/2``."""
        return self.f / 2

    @property
    def one_minus_p(self) -> float:
        """``1 - p = f/2`` exactly."""
        return self.f / 2

    @property
    def p_minus_q(self) -> float:
        """``p - q = 1 - f = tanh(eps/(4h))`` for ``f = 2/(1 + e^{eps/(2h)})``: the closed form from the budget
        (accurate for small budgets, where the subtraction ``1 - f`` cancels); ``1 - f`` when built from ``f``."""
        return self._p_minus_q

    @property
    def exact_epsilon(self) -> float:
        """``max_{x,x'} Ham(B_x, B_x') ln((2-f)/f)``: the tight budget of these filters."""
        B = self._B.astype(np.int64)
        ones = B.sum(axis=1)
        ham = ones[:, None] + ones[None, :] - 2 * (B @ B.T)
        return float(ham.max()) * math.log((2 - self.f) / self.f)

    @property
    def rank(self) -> int:
        """Rank of the Bloom matrix; least-squares estimation needs ``rank == d``."""
        return int(np.linalg.matrix_rank(self._B.astype(float)))

    # ------------------------------------------------------------------ client side
    def perturb(self, x: Any, rng: Any = None, *, sampler: str = "uniform") -> np.ndarray:
        """Reports: ``n x m`` bool, the permanent randomized response of each user's filter.

        ``sampler`` chooses how the flips are drawn (:func:`permanent_rr`): the law is the same.
        """
        x = self._codes(x)
        gen = self._rng(rng)
        out = np.empty((x.size, self.m), dtype=bool)
        rows = max(1, _CHUNK_BITS // self.m)
        for start in range(0, x.size, rows):
            stop = min(start + rows, x.size)
            out[start:stop] = permanent_rr(self._B[x[start:stop]], self.f, gen, sampler=sampler)
        return out

    # ------------------------------------------------------------------ server side
    def _check_reports(self, reports: Any) -> np.ndarray:
        r = np.asarray(reports)
        if not (r.dtype == bool or np.issubdtype(r.dtype, np.integer)):
            raise TypeError(f"reports must be a boolean (n x m) array, got dtype {r.dtype}")
        if r.ndim != 2 or r.shape[1] != self.m:
            raise ValueError(f"reports must have shape (n, {self.m}), got {r.shape}")
        if r.dtype != bool and r.size and (r.min() < 0 or r.max() > 1):
            raise ValueError("reports must contain only 0 and 1")
        return r

    def support_counts(self, reports: Any) -> np.ndarray:
        """Bit counts ``c_b``: how many reports have bit ``b`` set (length ``m``)."""
        r = self._check_reports(reports)
        return np.count_nonzero(r, axis=0).astype(np.int64)

    bit_counts = support_counts

    def _least_squares(self) -> np.ndarray:
        if self._pinv is None:
            r = self.rank
            if r < self.d:
                raise ValueError(
                    f"the {self.d} x {self.m} Bloom matrix has rank {r} < d = {self.d}: the frequencies are "
                    "not identifiable from bit counts. Increase m (m >= d is necessary) or pick another "
                    "hash_seed (see ldp.oracles.bloom.full_rank_seed)"
                )
            self._pinv = np.linalg.pinv(self._B.T.astype(float))  # d x m, (B^T)^+
        return self._pinv

    def estimate_counts(self, counts: Any, n: int | None = None) -> np.ndarray:
        """Frequencies from bit counts: ``(B^T)^+ t`` with ``t = (c/n - f/2)/(1 - f)``.

        Exactly unbiased when the Bloom matrix has rank ``d``; raises ``ValueError`` otherwise.
        """
        if n is None:
            raise TypeError("n (the number of users) is required: bit counts do not determine it")
        n = check_int(n, "n", minimum=1)
        c = self._check_support(counts, length=self.m, name="counts", n=n)
        t = debias_bit_counts(c, n, self.f) / n
        return self._least_squares() @ t

    def covariance(self, n: int) -> np.ndarray:
        """``d x d`` covariance of the estimate for a fixed population of ``n`` users.

        Every reported bit has variance ``(f/2)(1 - f/2)`` whatever its true value,
        and bits are independent, so ``Cov = (f/2)(1-f/2)/(1-f)^2 * A A^T / n`` with
        ``A = (B^T)^+``; it does not depend on the frequencies.
        """
        n = check_int(n, "n", minimum=1)
        A = self._least_squares()
        return (self.f / 2) * (1 - self.f / 2) / self.p_minus_q**2 * (A @ A.T) / n

    def variance(self, n: int, f: Any = 0.0) -> np.ndarray:
        """Per-value variance (length ``d``); the true frequency ``f`` does not enter (see :meth:`covariance`).

        ``f`` is still validated (frequencies in [0, 1], a scalar or a length-``d`` vector) so that a
        call with the wrong argument fails as it would for every other oracle.
        """
        f = self._check_frequency(f)
        if f.ndim and f.shape != (self.d,):
            raise ValueError(f"f must be a scalar or have shape ({self.d},), got {f.shape}")
        return np.diag(self.covariance(n)).copy()

    def log_likelihood(self, reports: Any) -> np.ndarray:
        """``log P(report_i | v)`` as an ``n x d`` float array (Algorithm 1, line 4, corrected: erratum E1).

        ``sum_b [s_b log mu_b(v) + (1 - s_b) log(1 - mu_b(v))]`` with
        ``mu_b(v) = f/2 + (1-f) B[v, b]`` (:func:`bloom_log_likelihood`).  Allocates ``n x d``
        floats: call it on chunks (or on distinct reports) when ``n d`` is large.
        """
        return bloom_log_likelihood(self._check_reports(reports), self._B, self.f)

    # ------------------------------------------------------------------ channel
    def channel_entry(self, x: Any, report: Any) -> np.ndarray:
        """Exact ``P(report | x)``; ``report`` is a 0/1 array whose last axis has length ``m``."""
        x = np.asarray(x, dtype=np.int64)
        if np.any((x < 0) | (x >= self.d)):
            raise ValueError(f"x must lie in {{0, ..., {self.d - 1}}}")
        r = np.asarray(report)
        if r.shape[-1:] != (self.m,):
            raise ValueError(f"report must have last dimension m = {self.m}, got shape {r.shape}")
        if r.size and (r.min() < 0 or r.max() > 1):
            raise ValueError("report must contain only 0 and 1")
        r = r.astype(bool)
        set_bit = self._B[x].astype(bool)
        mu = np.where(set_bit, self.p, self.q)
        return np.prod(np.where(r, mu, 1 - mu), axis=-1)

    def channel(self) -> np.ndarray:
        """``d x 2^m`` channel; column ``r`` is the report whose bit ``b`` is ``(r >> b) & 1``.

        Only for ``m <= 12`` (4096 outputs).
        """
        if self.m > _MAX_CHANNEL_BITS:
            raise ValueError(f"the channel has 2^m = 2^{self.m} outputs; enumerated only for m <= {_MAX_CHANNEL_BITS}")
        bits = ((np.arange(2**self.m)[:, None] >> np.arange(self.m)[None, :]) & 1).astype(float)
        mu = np.where(self._B.astype(bool), self.p, self.q)  # d x m
        logp = np.log(mu) @ bits.T + np.log1p(-mu) @ (1 - bits).T  # d x 2^m
        return np.exp(logp)

    # ------------------------------------------------------------------ count-level sampler
    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Bit counts drawn exactly: ``Bin(N1_b, 1 - f/2) + Bin(n - N1_b, f/2)``, independent over bits."""
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        n1 = np.rint(counts.astype(float) @ self._B.astype(float)).astype(np.int64)  # exact below 2^53
        n = int(counts.sum())
        return gen.binomial(n1, self.p) + gen.binomial(n - n1, self.q)

    def __repr__(self) -> str:
        source = "filters=explicit" if self.explicit_filters else f"hash_seed={self.hash_seed}"
        return f"BloomRAPPOR(epsilon={self.epsilon:g}, d={self.d}, m={self.m}, h={self.h}, f={self.f:g}, {source})"
