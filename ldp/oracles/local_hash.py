"""Local hashing: binary (BLH) and optimised (OLH) local hashing.

Wang et al. (USENIX Security 2017, Sec. 4.4) let each user draw a hash function
``H`` from a universal family mapping the domain ``{0, ..., d-1}`` onto a small
range ``{0, ..., g-1}``, then report ``H`` together with a generalised randomized
response (GRR over ``g`` values) of ``H(v)``.  A report ``(H, y)`` *supports* every
value ``v`` with ``H(v) = y``.  BLH takes ``g = 2``; OLH takes the ``g`` that
minimises the variance, ``g = e^eps + 1`` (Wang et al., Sec. 4.4, the equation
after Eq. (15)), which must be rounded to an integer.

The hash family
---------------
We use the Carter--Wegman family over the Mersenne prime ``P = 2^31 - 1``
followed by a *range reduction by scaling*::

    z_{a,b}(v) = (a*v + b) mod P,        a in {1..P-1},  b in {0..P-1}
    H_{a,b}(v) = floor(g * z_{a,b}(v) / P)

Each user draws ``(a, b)`` uniformly and independently.  For two distinct values
``u, v < P`` the pair ``(z(u), z(v))`` is uniform over the ``P(P-1)`` ordered pairs
of *distinct* residues (the map ``(a, b) -> (z(u), z(v))`` is a bijection), so the
collision probability is the same constant for every pair::

    c = sum_j s_j (s_j - 1) / (P (P - 1)),

where ``s_j`` is the number of residues sent to bucket ``j``.  Scaling, like the
textbook ``mod g``, gives ``rho = P mod g`` buckets of size ``ceil(P/g)`` and the
others of size ``floor(P/g)``; hence the two reductions have exactly the same
``c``, and::

    1/g - c = delta = [P (g - 1) - rho (g - rho)] / (g P (P - 1))   (>= 0).

So the family is *universal* in the sense ``c <= 1/g``, and short of the ideal
``1/g`` by ``delta < 1/P`` (about ``4.7e-10`` for ``P = 2^31 - 1``).  We chose the
scaling reduction because it makes the server's test ``H(v) = y`` a range test
``z(v) in [lo_y, hi_y)``, which is what makes support counting fast (below).

Because ``c`` is a known constant, ``q`` below is *exact* for this family:
a user holding ``u`` supports ``v != u`` with probability
``q = q_g + c (p - q_g)`` where ``p = e^eps/(e^eps+g-1)`` and
``q_g = 1/(e^eps+g-1)`` are the GRR probabilities on the hashed value.  With an
ideal hash (``c = 1/g``) this is the familiar ``q = 1/g``; ours differs from it
by ``delta (p - q_g)``.  The estimator is therefore exactly unbiased, and the
variance formula of :class:`~ldp.oracles.base.FrequencyOracle` is exact.

Support counting without O(n d) Python work
-------------------------------------------
For one user, ``z(v+1) = z(v) + a mod P``: the hashed positions form an
arithmetic progression, so no multiplication or division is needed.  The server
tracks ``u = z(v) - lo_y mod P`` in ``uint32`` (all values stay below
``2P < 2^32``) and counts ``u < hi_y - lo_y``.  Per item this is five numpy calls
over a chunk of users (add, subtract, minimum, compare, count); the Python loop
runs over items and user chunks, never over users, and memory is O(chunk).
On the 2-core reference machine, n = 10^6 and d = 1000 take about 0.4 s.
The bucket bounds ``lo_y`` and widths come from a table of ``g`` entries (for
``g <= 2^16``), and :meth:`LocalHashing.perturb_and_count` (used by
``sample_support``) counts its own reports without re-validating them; both give
the same counts as :meth:`LocalHashing.perturb` followed by
:meth:`LocalHashing.support_counts` for the same ``rng``.

There is no exact count-level sampler: the support indicators of different
items in one report are dependent (they share ``H``), so the support-count
vector is not a sum of independent per-item binomials.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .._checks import check_allocation, check_epsilon, check_int
from .base import FrequencyOracle

#: the Mersenne prime 2^31 - 1, the default modulus of the hash family
MERSENNE31 = 2**31 - 1

#: users processed together in :meth:`LocalHashing.support_counts` (arrays stay in cache)
_CHUNK = 1 << 16

#: largest hash range for which bucket bounds come from a table of ``g`` entries
_MAX_BUCKET_TABLE = 1 << 16

#: largest number of channel columns :meth:`LocalHashing.channel` will enumerate
_MAX_CHANNEL_COLUMNS = 1 << 20


class LHReports(NamedTuple):
    """Local-hashing reports: the hash seeds ``(a, b)`` and the perturbed hash ``y`` of every user."""

    a: np.ndarray
    b: np.ndarray
    y: np.ndarray


def _is_prime(n: int) -> bool:
    """Deterministic Miller--Rabin, exact for every ``n < 3.3e24``."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for s in small:
        if n % s == 0:
            return n == s
    dd, r = n - 1, 0
    while dd % 2 == 0:
        dd //= 2
        r += 1
    for base in small:
        x = pow(base, dd, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _check_family(g: Any, prime: Any) -> tuple[int, int]:
    """The hash range ``g`` (an integer in ``[2, 2^31]``) and the family's ``prime`` (a prime <= 2^31 - 1)."""
    g = check_int(g, "g", minimum=2, maximum=2**31)
    prime = check_int(prime, "prime", minimum=2, maximum=MERSENNE31)
    if not _is_prime(prime):
        raise ValueError(f"prime must be a prime number, got {prime}")
    return g, prime


def olh_g(epsilon: float, rule: str = "round") -> int:
    """The integer hash range of OLH for ``epsilon``.

    Wang et al. (2017, Sec. 4.4) show the variance is minimised by the real number
    ``g* = e^eps + 1``; an implementation needs an integer.

    Parameters
    ----------
    epsilon : float
        Privacy budget (> 0).
    rule : {"round", "floor", "ceil", "best"}
        ``"round"``: ``round(e^eps) + 1``, used by pure-LDP and the artifacts of
        the CPL authors' code (the default here; 4 at eps = 1, 21 at eps = 3).
        ``"floor"``/``"ceil"``: ``floor(e^eps) + 1`` / ``ceil(e^eps) + 1``.
        ``"best"``: whichever of floor/ceil gives the smaller variance
        ``q(1-q)/(p-q)^2`` with ideal ``q = 1/g``.
    """
    eps = check_epsilon(epsilon)
    if eps > 700:
        raise ValueError(f"epsilon={eps!r} is too large for OLH: e^eps overflows double precision; use epsilon <= 700")
    e = math.exp(eps)
    if rule == "round":
        return int(round(e)) + 1
    if rule == "floor":
        return int(math.floor(e)) + 1
    if rule == "ceil":
        return int(math.ceil(e)) + 1
    if rule == "best":

        def var(g: int) -> float:
            p, q = e / (e + g - 1), 1.0 / g
            return q * (1 - q) / (p - q) ** 2

        return min((int(math.floor(e)) + 1, int(math.ceil(e)) + 1), key=var)
    raise ValueError(f"rule must be one of 'round', 'floor', 'ceil', 'best', got {rule!r}")


def universal_hash(a: Any, b: Any, v: Any, g: int, prime: int = MERSENNE31) -> np.ndarray:
    """``H_{a,b}(v) = floor(g * ((a v + b) mod prime) / prime)`` with numpy broadcasting.

    Exact int64 arithmetic for ``prime <= 2^31 - 1``, ``v < 2^31`` and ``g <= 2^31``.
    """
    g, prime = _check_family(g, prime)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    return ((a * v + b) % prime) * g // prime


def bucket_sizes(g: int, prime: int = MERSENNE31) -> np.ndarray:
    """How many residues ``z in {0..prime-1}`` the scaling reduction sends to each of the ``g`` buckets.

    Each size is ``ceil((j+1) P/g) - ceil(j P/g)``, i.e. ``floor(P/g)`` or ``ceil(P/g)``;
    O(g) memory, meant for small ``g`` (tests, teaching).
    """
    g, prime = _check_family(g, prime)
    check_allocation(g + 1, 8, "the g + 1 bucket edges", "g", g)
    edges = -((-np.arange(g + 1, dtype=object) * prime) // g)  # ceil(j * prime / g), exact
    return np.diff(edges).astype(np.int64)


def collision_probability(g: int, prime: int = MERSENNE31) -> float:
    """Exact ``P(H(u) = H(v))`` for any ``u != v`` (both ``< prime``), over the family.

    Equals ``1/g - delta`` with ``delta = [P(g-1) - rho(g-rho)]/(g P (P-1))`` and
    ``rho = P mod g`` (module docstring).
    """
    g, prime = _check_family(g, prime)
    k, rho = divmod(prime, g)  # rho buckets hold k + 1 residues, the other g - rho hold k
    pairs = rho * (k + 1) * k + (g - rho) * k * (k - 1)
    return pairs / (prime * (prime - 1))


class LocalHashing(FrequencyOracle):
    """Local hashing with hash range ``g`` (Wang et al. 2017, Sec. 4.4).

    Parameters
    ----------
    epsilon : float
        Privacy budget (> 0, finite).
    d : int
        Domain size (>= 2); values are ``0 .. d-1``.
    g : int
        Hash range, ``2 <= g <= 2^31``.  ``g = 2`` is BLH; OLH uses :func:`olh_g`.
        ``g >= prime`` is allowed (the hash is then injective).
    prime : int
        Modulus of the hash family (a prime with ``d <= prime <= 2^31 - 1``).
        The default ``2^31 - 1`` is near-ideal; a small prime such as 7 or 11 makes
        the whole family enumerable, which the exact channel audit uses.

    Notes
    -----
    Reports are :class:`LHReports` ``(a, b, y)``.  ``p = e^eps/(e^eps+g-1)`` is the
    probability that a report supports its own value; ``q`` is the exact
    probability for any other value (module docstring), ``1/g`` up to ``< 1/P``.
    The channel over outputs ``(a, b, y)`` is
    ``P(a, b, y | x) = [p if y = H_{a,b}(x) else q_g] / ((P-1) P)`` and its
    max log-ratio is exactly ``eps``.
    """

    name = "LH"
    has_count_sampler = False

    def __init__(self, epsilon: float, d: int, g: int, *, prime: int = MERSENNE31) -> None:
        super().__init__(epsilon, d)
        self.g, prime = _check_family(g, prime)
        if prime < self.d:
            raise ValueError(f"prime must be >= d = {self.d} so distinct values stay distinct mod prime, got {prime}")
        self.prime = prime
        self._c = collision_probability(self.g, self.prime)
        if not (0.0 < self.q_hash and self.p < 1.0):
            raise ValueError(
                f"epsilon={self.epsilon!r} is too large: the GRR probabilities on the hash round "
                f"to 0 or 1 in double precision (p={self.p!r}, q_g={self.q_hash!r})"
            )

    # ------------------------------------------------------------------ probabilities
    @property
    def p(self) -> float:
        """GRR keep probability on the hashed value, ``e^eps/(e^eps+g-1)``."""
        # written with e^{-eps} so that large budgets do not overflow
        return 1.0 / (1.0 + (self.g - 1) * math.exp(-self.epsilon))

    @property
    def q_hash(self) -> float:
        """GRR probability of each *other* bucket, ``1/(e^eps+g-1)``."""
        t = math.exp(-self.epsilon)
        return t / (1.0 + (self.g - 1) * t)

    @property
    def one_minus_p(self) -> float:
        """``1 - p = (g-1) e^-eps / (1 + (g-1) e^-eps)``, without cancellation."""
        return (self.g - 1) * self.q_hash

    @property
    def p_minus_q(self) -> float:
        """``p - q = (1 - c)(p - q_g)`` with ``p - q_g = (1 - e^-eps)/(1 + (g-1) e^-eps)``."""
        return (1.0 - self._c) * -math.expm1(-self.epsilon) / (1.0 + (self.g - 1) * math.exp(-self.epsilon))

    @property
    def collision_probability(self) -> float:
        """Exact ``P(H(u) = H(v))`` for ``u != v`` over this family (``<= 1/g``)."""
        return self._c

    @property
    def q(self) -> float:
        """Exact probability that a report supports a value the user does not hold.

        ``q_g + c (p - q_g)``; equals ``1/g`` for an ideal hash (``c = 1/g``).
        """
        return self.q_hash + self._c * (self.p - self.q_hash)

    # ------------------------------------------------------------------ hashing
    def hash_values(self, a: Any, b: Any, v: Any) -> np.ndarray:
        """``H_{a,b}(v)`` of this oracle's family, broadcasting ``a``, ``b`` and ``v``."""
        return universal_hash(a, b, v, self.g, self.prime)

    def draw_hashes(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` independent uniform members ``(a, b)`` of the family."""
        n = check_int(n, "n", minimum=0)
        gen = self._rng(rng)
        a = gen.integers(1, self.prime, size=n, dtype=np.int64)
        b = gen.integers(0, self.prime, size=n, dtype=np.int64)
        return a, b

    # ------------------------------------------------------------------ client side
    def perturb(self, x: Any, rng: Any = None) -> LHReports:
        """Every user draws ``(a, b)``, hashes its value and applies GRR over ``g`` buckets.

        GRR uses its mixture form: keep with probability ``p - q_g``, otherwise
        report a uniform bucket (the true one included).
        """
        x = self._codes(x)
        gen = self._rng(rng)
        a, b = self.draw_hashes(x.size, gen)
        hashed = self.hash_values(a, b, x)
        keep = gen.random(x.size) < (self.p - self.q_hash)
        noise = gen.integers(0, self.g, size=x.size, dtype=np.int64)
        return LHReports(a, b, np.where(keep, hashed, noise))

    # ------------------------------------------------------------------ server side
    def _check_reports(self, reports: Any) -> LHReports:
        if not isinstance(reports, tuple) or len(reports) != 3:
            raise TypeError(
                f"reports must be an LHReports (a, b, y) tuple of three integer arrays, got {type(reports).__name__}"
            )
        arrs = []
        for name, arr, lo, hi in (
            ("a", reports[0], 1, self.prime - 1),
            ("b", reports[1], 0, self.prime - 1),
            ("y", reports[2], 0, self.g - 1),
        ):
            arr = np.asarray(arr)
            if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
                raise TypeError(f"reports.{name} must be an integer array, got dtype {arr.dtype}")
            if arr.ndim != 1:
                raise ValueError(f"reports.{name} must be one-dimensional, got shape {arr.shape}")
            if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
                bad = int(arr.min()) if int(arr.min()) < lo else int(arr.max())
                raise ValueError(f"reports.{name} contains {bad}, outside [{lo}, {hi}]")
            arrs.append(arr.astype(np.int64, copy=False))
        if not (arrs[0].size == arrs[1].size == arrs[2].size):
            raise ValueError(
                f"reports a, b, y must have equal lengths, got {arrs[0].size}, {arrs[1].size}, {arrs[2].size}"
            )
        return LHReports(*arrs)

    def support_counts(self, reports: Any) -> np.ndarray:
        """``C(v) = #{i : H_i(v) = y_i}`` for every ``v``, in O(n d) vectorised uint32 work.

        See the module docstring: per user chunk, ``u = (a v + b - lo_y) mod P`` is
        advanced by ``a`` from one item to the next and compared with the bucket
        width ``hi_y - lo_y``, where bucket ``y`` is ``[lo_y, hi_y)`` with
        ``lo_y = ceil(y P / g)``.
        """
        a, b, y = self._check_reports(reports)
        return self._count(a, b, y)

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        """:meth:`perturb` then :meth:`support_counts`, the same counts for the same ``rng``.

        The reports are built exactly as :meth:`perturb` builds them (same draws, same
        order) and counted without the validation pass that reports from outside need.
        """
        a, b, y = self.perturb(x, rng)
        return self._count(a, b, y)

    def _bucket_bounds(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``lo_y = ceil(y P/g)`` and the width ``hi_y - lo_y`` of every report's bucket, as uint32.

        For ``g <= 2^16`` both come from an O(g) table (one gather per user instead of
        two int64 divisions); larger ``g`` divides per user.  The values are the same.
        """
        P, g = self.prime, self.g
        if g <= _MAX_BUCKET_TABLE:
            edges = -((-np.arange(g + 1, dtype=np.int64) * P) // g)  # ceil(j P / g), j = 0..g
            lo_t = edges[:-1].astype(np.uint32)
            width_t = np.diff(edges).astype(np.uint32)
            return lo_t[y], width_t[y]
        lo = -((-y * P) // g)
        width = -((-(y + 1) * P) // g) - lo
        return lo.astype(np.uint32), width.astype(np.uint32)

    def _count(self, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Support counts of valid reports ``(a, b, y)`` (int64 arrays), chunked over users."""
        P32 = np.uint32(self.prime)
        lo, width = self._bucket_bounds(y)
        # u_0 = (b - lo) mod P in uint32: b - lo wraps above 2^32 - P when negative, and adding P
        # (mod 2^32) brings it back below P; otherwise adding P stays above it.  min picks the residue.
        u_all = b.astype(np.uint32)
        u_all -= lo
        np.minimum(u_all, u_all + P32, out=u_all)
        a_all = a.astype(np.uint32)
        counts = np.zeros(self.d, dtype=np.int64)
        for start in range(0, y.size, _CHUNK):
            stop = start + _CHUNK
            self._count_chunk(u_all[start:stop].copy(), a_all[start:stop], width[start:stop], counts)
        return counts

    def _count_chunk(self, u: np.ndarray, step: np.ndarray, wid: np.ndarray, counts: np.ndarray) -> None:
        """Add one user chunk's hits to ``counts``; ``u`` (uint32, < P) is advanced in place."""
        P32 = np.uint32(self.prime)
        tmp = np.empty_like(u)
        hit = np.empty(u.size, dtype=bool)
        for v in range(self.d):
            np.less(u, wid, out=hit)
            counts[v] += np.count_nonzero(hit)
            np.add(u, step, out=u)  # < 2P <= 2^32 - 2: no overflow
            np.subtract(u, P32, out=tmp)  # wraps to a huge value when u < P
            np.minimum(u, tmp, out=u)  # so this is u mod P

    # ------------------------------------------------------------------ channel
    def channel_entry(self, x: Any, report: Any) -> np.ndarray:
        """Exact ``P(report | x)`` for ``report = (a, b, y)`` (broadcasting over all four)."""
        a, b, y = (np.asarray(r, dtype=np.int64) for r in report)
        x = np.asarray(x, dtype=np.int64)
        if np.any((x < 0) | (x >= self.d)):
            raise ValueError(f"x must lie in {{0, ..., {self.d - 1}}}")
        if (
            np.any((a < 1) | (a >= self.prime))
            or np.any((b < 0) | (b >= self.prime))
            or np.any((y < 0) | (y >= self.g))
        ):
            raise ValueError(
                f"report (a, b, y) must satisfy 1 <= a < {self.prime}, 0 <= b < {self.prime}, 0 <= y < {self.g}"
            )
        hit = self.hash_values(a, b, x) == y
        return np.where(hit, self.p, self.q_hash) / ((self.prime - 1) * self.prime)

    def channel_outputs(self, prime: int | None = None) -> LHReports:
        """The output alphabet in channel-column order: ``a`` outermost, then ``b``, then ``y``."""
        P = self.prime if prime is None else prime
        a, b, y = np.meshgrid(np.arange(1, P), np.arange(P), np.arange(self.g), indexing="ij")
        return LHReports(a.ravel(), b.ravel(), y.ravel())

    def channel(self, prime: int | None = None) -> np.ndarray:
        """The exact ``d x (P-1) P g`` channel over the whole hash family.

        Only feasible for a small prime: pass ``prime=7`` or ``11`` (any prime
        ``>= d``) to get the channel of the same mechanism with that family, or
        build the oracle with a small ``prime``.  Columns follow
        :meth:`channel_outputs`.
        """
        P = self.prime if prime is None else check_int(prime, "prime", minimum=2)
        cols = (P - 1) * P * self.g
        if cols > _MAX_CHANNEL_COLUMNS:
            raise ValueError(
                f"the channel over prime={P} has {cols} columns (> {_MAX_CHANNEL_COLUMNS}); "
                "pass a small prime, e.g. channel(prime=11)"
            )
        oracle = self if P == self.prime else LocalHashing(self.epsilon, self.d, self.g, prime=P)
        out = oracle.channel_outputs()
        return oracle.channel_entry(np.arange(self.d)[:, None], tuple(r[None, :] for r in out))

    def hash_channel(self, a: int, b: int) -> np.ndarray:
        """``d x g`` channel ``P(y | x, H = H_{a,b})`` given one user's hash (GRR on ``H(x)``)."""
        a = check_int(a, "a", minimum=1, maximum=self.prime - 1)
        b = check_int(b, "b", minimum=0, maximum=self.prime - 1)
        hashed = self.hash_values(a, b, np.arange(self.d))
        P = np.full((self.d, self.g), self.q_hash)
        P[np.arange(self.d), hashed] = self.p
        return P

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, d={self.d}, g={self.g}, prime={self.prime})"


class BLH(LocalHashing):
    """Binary local hashing: :class:`LocalHashing` with ``g = 2`` (Wang et al. 2017, Sec. 4.4)."""

    name = "BLH"

    def __init__(self, epsilon: float, d: int, *, prime: int = MERSENNE31) -> None:
        super().__init__(epsilon, d, 2, prime=prime)

    def __repr__(self) -> str:
        return f"BLH(epsilon={self.epsilon:g}, d={self.d}, prime={self.prime})"


class OLH(LocalHashing):
    """Optimised local hashing (Wang et al. 2017, Sec. 4.4).

    ``g`` defaults to ``round(e^eps) + 1`` (:func:`olh_g` with ``rule="round"``);
    pass ``g=`` explicitly or ``rule="floor" | "ceil" | "best"`` for the other
    integer readings of the optimum ``e^eps + 1``.
    """

    name = "OLH"

    def __init__(
        self, epsilon: float, d: int, g: int | None = None, *, rule: str = "round", prime: int = MERSENNE31
    ) -> None:
        if g is None:
            g = olh_g(epsilon, rule)
        super().__init__(epsilon, d, g, prime=prime)
