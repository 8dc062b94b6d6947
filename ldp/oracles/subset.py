"""Subset selection (SS; Ye & Barg 2018, Wang et al. 2016/2018 "k-subset").

Each user reports a set ``Omega`` of ``omega`` distinct values.  The true value
``v`` is put in the set with probability

    p = omega e^eps / (omega e^eps + d - omega)

and the set is completed by values drawn uniformly without replacement from the
other ``d - 1``; otherwise all ``omega`` values come from the other ``d - 1``.
So every set containing ``v`` has probability ``p / C(d-1, omega-1)`` and every set
not containing it ``(1-p) / C(d-1, omega)``; their ratio is exactly ``e^eps``.

The report supports each of its ``omega`` values.  A value ``u != v`` lands in the
set with probability ``q = [p (omega-1) + (1-p) omega] / (d-1) = (omega - p)/(d-1)``
(Wang et al. 2016), and the pure-protocol estimator and variance of
:class:`~ldp.oracles.base.FrequencyOracle` apply.  ``omega = 1`` is GRR.

Closed forms used for accuracy (with ``t = e^-eps`` and ``D = omega + (d - omega) t``)::

    p     = omega / D                         1 - p = (d - omega) t / D
    q     = omega (omega - 1 + (d - omega) t) / ((d - 1) D)
    p - q = omega (d - omega) (1 - t) / ((d - 1) D)

none of which subtracts nearly equal numbers (``1 - p`` and ``omega - p`` computed by
subtraction lose about ``1e-16/(1 - p)`` relative accuracy when ``p`` is near 1).

The count-level law
-------------------
The channel is a two-component mixture.  Let ``a = (1 - p) d / (d - omega) = d t / D``.

* with probability ``a`` the report is a uniform ``omega``-subset of all ``d`` values;
* otherwise it is ``{v}`` plus a uniform ``(omega - 1)``-subset of the other ``d - 1``.

Check against the channel: a set without ``v`` gets ``a / C(d, omega)`` from the first
component and 0 from the second; since ``C(d, omega) = C(d-1, omega) d/(d - omega)`` this
is ``(1 - p)/C(d-1, omega)``.  A set with ``v`` gets
``a / C(d, omega) + (1 - a)/C(d-1, omega-1)``; with ``C(d, omega) = C(d-1, omega-1) d/omega``
this is ``[a omega/d + 1 - a] / C(d-1, omega-1) = [1 - (1-p)] / C(d-1, omega-1) = p / C(d-1, omega-1)``.
And ``0 <= a <= 1`` because ``p >= omega/d`` for every ``eps >= 0``.

:meth:`SubsetSelection.simulate_counts` draws the support counts of a whole population
from this mixture without visiting users (:func:`_mixture_counts`): the number of
holders of ``v`` in the first component is ``Bin(n_v, a)``; the uniform subsets of
all users are then drawn *together*, item by item, by selection sampling (Knuth's
Algorithm S): a user who still needs ``r`` of the ``R`` items not yet visited takes the
next one with probability ``r / R``, independently of everyone else, so the number of
users with need ``r`` who take it is binomial, and only the histogram of needs is kept.
Second-component users skip their own value (counted once, for certain); while it lies
ahead their ``R`` excludes it.  When the sweep reaches ``v``, which of the users still
ahead hold ``v`` is a multivariate hypergeometric draw from the histogram of needs:
their needs so far followed the same law whatever their value, so, given that
histogram, the holders of ``v`` are a uniformly random subset of the users ahead.
Every step is exact, so the counts have exactly the law of per-user perturbation
(tested against it); the cost is ``O(d omega)`` whatever ``n``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from .._checks import check_codes, check_domain_size, check_epsilon, check_int
from .base import ClosedFormProbabilities, FrequencyOracle

#: largest number of ``omega``-subsets that :meth:`SubsetSelection.channel` enumerates
MAX_CHANNEL_OUTPUTS = 5000
#: bytes of the per-chunk membership bitmap used by the vectorised Floyd sampler (4 MiB: cache friendly)
_CHUNK_BYTES = 1 << 22
_BITMAP_BYTES = 1 << 20  # Floyd membership bitmap per chunk: small enough to stay in cache
_SPARSE_DOMAIN = 1 << 16  # above this domain size (with omega**2 < d) subsets are drawn by rejection

SUBSET_SIZE_RULES = ("optimal", "floor", "ceil", "rint")


class _SSParts(NamedTuple):
    p: float
    q: float
    one_minus_p: float
    p_minus_q: float
    mix: float  # a = (1 - p) d / (d - omega): weight of the "uniform over all d values" component


def _ss_parts(epsilon: float, d: int, omega: int) -> _SSParts:
    """``p``, ``q``, ``1 - p``, ``p - q`` and the mixture weight from their closed forms (module docstring)."""
    t = math.exp(-epsilon)  # 0.0 beyond eps ~ 745: then p = 1 and the oracle refuses the budget
    big = (d - omega) * t
    den = omega + big
    p = omega / den
    q = omega * (omega - 1 + big) / ((d - 1) * den)
    return _SSParts(p, q, big / den, omega * (d - omega) * -math.expm1(-epsilon) / ((d - 1) * den), d * t / den)


def _zero_frequency_variance(epsilon: float, d: int, omega: int) -> float:
    """``n Var`` of the estimate of a value of frequency 0: ``q(1-q)/(p-q)^2``."""
    parts = _ss_parts(epsilon, d, omega)
    return parts.q * (1 - parts.q) / parts.p_minus_q**2


def subset_size(epsilon: float, d: int, rule: str = "optimal") -> int:
    """The subset size ``omega`` for SS under one of the readings found in the literature.

    Let ``x = d / (e^eps + 1)``, the real-valued optimum (Ye & Barg 2018; Wang et al. 2016).

    * ``"optimal"`` (default): of the two integers ``floor(x)`` and ``ceil(x)`` (kept in
      ``[1, d-1]``), the one with the smaller variance ``q(1-q)/(n (p-q)^2)`` of a value with
      frequency 0 -- the dominant term that Wang et al. (2017) use to compare oracles; ties go
      to the smaller set.  An exhaustive scan over every ``omega`` in ``[1, d-1]`` for
      ``d < 400`` and ``eps`` in ``[0.05, 6]`` never found a better integer than these two.
    * ``"floor"``: ``max(1, floor(x))``, the reading of the CPL paper (its Appendix A).
    * ``"ceil"``: ``ceil(x)`` clamped to ``[1, floor(d/2)]`` (the CLLDP paper's Eq. (8), clamped).
    * ``"rint"``: ``max(1, rint(x))`` (round half to even), what multi-freq-ldpy does.
    """
    eps = check_epsilon(epsilon)
    d = check_domain_size(d)
    if rule not in SUBSET_SIZE_RULES:
        raise ValueError(f"rule must be one of {SUBSET_SIZE_RULES}, got {rule!r}")
    x = d / (math.exp(eps) + 1) if eps < 700 else 0.0
    lo, hi = max(1, math.floor(x)), min(d - 1, max(1, math.ceil(x)))
    if rule == "floor":
        return min(lo, d - 1)
    if rule == "ceil":
        return min(hi, max(1, d // 2))
    if rule == "rint":
        return min(d - 1, max(1, int(np.rint(x))))
    candidates = sorted({min(lo, d - 1), hi})
    return min(candidates, key=lambda w: (_zero_frequency_variance(eps, d, w), w))


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _floyd(m: int, omega: int, big: int, flat: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """``m`` uniform ``omega``-subsets of ``{0, ..., big-1}`` by Floyd's algorithm, vectorised over users.

    ``flat`` is an all-False membership bitmap of at least ``m * big`` entries; it is left all-False.
    Each step is six in-place numpy calls on int32 buffers; keep ``m * big`` small enough for the
    bitmap to stay in cache (the caller's chunking does).
    """
    base = np.arange(m, dtype=np.int32) * np.int32(big)
    idx = np.empty(m, dtype=np.int32)
    # all candidates in one call: row t is uniform on {0..j} with j = big - omega + t (the same stream
    # as one call per step: the draws come in the same order from the same bounded sampler)
    highs = np.arange(big - omega + 1, big + 1, dtype=np.int32)[:, None]
    cols = gen.integers(0, highs, size=(omega, m), dtype=np.int32)
    for t in range(omega):  # Floyd: one new member per step, uniform over the not-yet-chosen values
        j = big - omega + t
        cand = cols[t]
        np.add(cand, base, out=idx)
        np.copyto(cand, j, where=flat[idx])  # already taken: take j instead (j is never taken before step t)
        np.add(cand, base, out=idx)
        flat[idx] = True
    flat[(cols + base).ravel()] = False  # reset only the touched bits for the next chunk
    return np.ascontiguousarray(cols.T)


def _distinct_by_rejection(m: int, omega: int, big: int, gen: np.random.Generator) -> np.ndarray:
    """``m`` uniform ``omega``-subsets of ``{0, ..., big-1}``: i.i.d. draws, rows with a repeat redrawn.

    Conditioning i.i.d. uniform draws on being distinct gives a uniformly ordered uniform subset.  A row
    repeats with probability below ``omega**2 / (2 big)``, so for ``omega**2 < big`` few rounds are needed;
    memory is O(m omega) whatever the domain size.
    """
    out = gen.integers(0, big, size=(m, omega))
    todo = np.arange(m)
    while todo.size:
        rows = np.sort(out[todo], axis=1)
        todo = todo[np.any(rows[:, 1:] == rows[:, :-1], axis=1)]
        if todo.size:
            out[todo] = gen.integers(0, big, size=(todo.size, omega))
    return out


#: numpy's multivariate hypergeometric sampler ("marginals") needs fewer than 10**9 items in the urn
_MVHG_LIMIT = 10**9 - 1


def _split_population(counts: np.ndarray, limit: int) -> Iterator[np.ndarray]:
    """Split true counts into parts of at most ``limit`` users (users are independent: the parts' counts add)."""
    total = int(counts.sum())
    if total <= limit:
        yield counts
        return
    rest = counts.copy()
    while rest.sum() > 0:
        cum = np.cumsum(rest)
        part = np.minimum(rest, np.maximum(limit - (cum - rest), 0))
        rest = rest - part
        yield part


def _mixture_counts(counts: np.ndarray, omega: int, mix: float, gen: np.random.Generator) -> np.ndarray:
    """Exact support counts of SS reports for true counts ``counts`` (module docstring, "The count-level law").

    State: ``need[r]`` for ``r < omega`` counts second-component users whose own value is still
    ahead and who need ``r`` more of the other values; ``need[omega + r]`` for ``r <= omega`` counts
    users with no pending own value (first-component users, and second-component users past their
    value) who need ``r`` more.  At item ``j`` with ``R = d - j`` items left, a user of the first
    kind takes ``j`` with probability ``r / (R - 1)``, one of the second kind with ``r / R``.

    Only the windows ``[lo, hi)`` of the two histograms that hold users are drawn: the needs
    spread over O(sqrt(omega)) values, so a step costs far less than O(omega) in practice.  Both
    kinds take item ``j`` in one binomial call over ``need[lo_a:hi_f]``: cells between the windows
    are empty, and numpy draws nothing for a binomial with ``n = 0`` (nor for ``p = 0``, the users
    who need nothing), so the stream is that of one call per kind.
    """
    d = counts.size
    uniform = gen.binomial(counts, mix)  # first component: uniform omega-subsets of all d values
    own = counts - uniform  # second component: own value + (omega-1) others
    support = own.copy()
    own_list = own.tolist()
    need = np.zeros(2 * omega + 1, dtype=np.int64)
    need[omega - 1] = own.sum()
    need[2 * omega] = uniform.sum()
    r = np.concatenate([np.arange(omega), np.arange(omega + 1)]).astype(float)
    # items each cell's users can still choose from, minus (d - j - 1): 0 ahead of the own value, 1 past it
    extra = np.concatenate([np.zeros(omega), np.ones(omega + 1)])
    lo_a, hi_a, lo_f, hi_f = omega - 1, omega, 2 * omega, 2 * omega + 1  # ahead users, free users
    for j in range(d):
        left = d - j
        mine, m_lo, m_hi = None, lo_a, hi_a
        if own_list[j]:
            mine = gen.multivariate_hypergeometric(need[m_lo:m_hi], own_list[j])
            need[m_lo:m_hi] -= mine
        # at the last item nobody is ahead any more (the holders of it were just removed)
        lo = lo_a if (left > 1 and hi_a > lo_a) else lo_f
        hi = hi_f if hi_f > lo_f else hi_a
        if hi > lo:
            items = extra[lo:hi] + (left - 1)
            took = gen.binomial(need[lo:hi], np.minimum(r[lo:hi] / items, 1.0))  # needs > items have count 0
            support[j] += took.sum()
            need[lo:hi] -= took
            if lo > 0:  # need r -> r - 1 (cells 0 and omega, needing nothing, never take)
                need[lo - 1 : hi - 1] += took
            else:
                need[lo : hi - 1] += took[1:]
            lo_a, lo_f = max(lo_a - 1, 0), max(lo_f - 1, omega)
        if mine is not None:  # holders of j: no pending own value from now on
            need[omega + m_lo : omega + m_hi] += mine
            lo_f, hi_f = min(lo_f, omega + m_lo), max(hi_f, omega + m_hi)  # trimmed below
        lo_a, hi_a = _trim(need, lo_a, hi_a)
        lo_f, hi_f = _trim(need, lo_f, hi_f)
    return support


def _trim(need: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """``[lo, hi)`` shrunk to its first and last non-empty cells (``lo == hi`` when all are empty)."""
    while lo < hi and not need[lo]:
        lo += 1
    while hi > lo and not need[hi - 1]:
        hi -= 1
    return lo, hi


class SubsetSelection(ClosedFormProbabilities, FrequencyOracle):
    """Subset selection over ``{0, ..., d-1}`` (Ye & Barg 2018; Wang et al. 2018).

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    d : int
        Domain size, >= 2.
    subset_size : int or str, optional
        ``omega`` in ``[1, d-1]``, or a rule name accepted by :func:`subset_size`
        (``"optimal"``, ``"floor"``, ``"ceil"``, ``"rint"``).  Default ``"optimal"``: the
        variance-optimal integer next to ``d/(e^eps+1)``.  Pass ``"floor"`` to follow the CPL paper.

    Notes
    -----
    Reports are an ``n x omega`` integer array (int16/int32/int64, the smallest signed type
    holding ``d - 1``); each row lists distinct values in no particular order.  Sampling is
    vectorised over users with Floyd's algorithm (``omega`` steps, each O(n)) and a per-chunk
    membership bitmap, so the cost is O(n omega) plus an O(n d)-byte memset per chunk.

    :meth:`simulate_counts` draws the support counts exactly from the mixture form of the
    channel (module docstring) in ``O(d omega)`` time whatever ``n``.
    """

    name = "SS"
    has_count_sampler = True

    def __init__(self, epsilon: float, d: int, subset_size: int | str | None = None) -> None:
        super().__init__(epsilon, d)
        if subset_size is None or isinstance(subset_size, str):
            omega = _rule_size(self.epsilon, self.d, subset_size or "optimal")
        else:
            omega = check_int(subset_size, "subset_size", minimum=1, maximum=self.d - 1)
        self.subset_size = omega
        self._store_parts(_ss_parts(self.epsilon, self.d, omega))
        if not (self._p > self._q and self._q > 0.0 and self._parts.one_minus_p > 0.0):
            raise ValueError(
                f"epsilon={self.epsilon!r} is too large: p rounds to 1 (or q to 0) in double precision, "
                f"so the channel would not be eps-LDP; use a smaller epsilon"
            )
        self._dtype = (
            np.int16
            if self.d <= np.iinfo(np.int16).max
            else (np.int32 if self.d <= np.iinfo(np.int32).max else np.int64)
        )

    @property
    def exact_epsilon(self) -> float:
        """Exact max log-ratio of the channel: ``eps`` for every ``omega`` in ``[1, d-1]``."""
        return self.epsilon

    # ------------------------------------------------------------------ client side
    @property
    def _sparse(self) -> bool:
        """Huge domains with small subsets: rejection sampling beats a membership bitmap of width d."""
        return self.d > _SPARSE_DOMAIN and self.subset_size**2 < self.d

    def _chunks(self, x: np.ndarray, gen: np.random.Generator) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(user slice, m x omega block of subsets)`` chunk by chunk."""
        omega, big = self.subset_size, self.d - 1
        rows = max(1, _CHUNK_BYTES // (8 * omega) if self._sparse else _BITMAP_BYTES // big)
        flat = None if self._sparse else np.zeros(min(rows, x.size) * big, dtype=bool)
        for start in range(0, x.size, rows):
            stop = min(start + rows, x.size)
            m = stop - start
            block = _distinct_by_rejection(m, omega, big, gen) if flat is None else _floyd(m, omega, big, flat, gen)
            xv = x[start:stop]
            block += block >= xv[:, None]  # map {0..d-2} onto the d-1 values other than x
            # with probability p the true value replaces one uniformly chosen member: by
            # exchangeability the remaining omega-1 form a uniform subset of the others
            keep = gen.random(m) < self.p
            pos = gen.integers(0, omega, size=m)
            block[keep, pos[keep]] = xv[keep]
            yield slice(start, stop), block

    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Reports: an ``n x omega`` integer array, each row a set of distinct values."""
        x = self._codes(x)
        gen = self._rng(rng)
        out = np.empty((x.size, self.subset_size), dtype=self._dtype)
        for rows, block in self._chunks(x, gen):
            out[rows] = block
        return out

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        """Per-user perturbation then aggregation, chunk by chunk (same counts as ``perturb``)."""
        x = self._codes(x)
        gen = self._rng(rng)
        counts = np.zeros(self.d, dtype=np.int64)
        for _, block in self._chunks(x, gen):
            counts += np.bincount(block.ravel().astype(np.intp), minlength=self.d)
        return counts

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly from their law given the true counts, in ``O(d omega)`` time.

        Uses the mixture form of the channel and an item-by-item selection sampler over all users
        at once (module docstring, :func:`_mixture_counts`).  ``omega = 1`` is GRR, whose
        sampler (:meth:`ldp.oracles.GRR.simulate_counts`) is used.
        """
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        if self.subset_size == 1:
            from .grr import GRR  # SS with omega = 1 is GRR: same channel, same count law

            return GRR(self.epsilon, self.d).simulate_counts(counts, gen)
        out = np.zeros(self.d, dtype=np.int64)
        for part in _split_population(counts, _MVHG_LIMIT):
            out += _mixture_counts(part, self.subset_size, self._parts.mix, gen)
        return out

    # ------------------------------------------------------------------ server side
    def support_counts(self, reports: Any) -> np.ndarray:
        """``C(v)``: the number of reported sets containing ``v``."""
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != self.subset_size:
            raise ValueError(f"reports must be an n x omega = n x {self.subset_size} array, got shape {arr.shape}")
        flat = arr.ravel()
        in_domain = flat.dtype.kind in "iu" and (flat.size == 0 or (int(flat.min()) >= 0 and int(flat.max()) < self.d))
        if not in_domain:  # the full check names the problem
            flat = check_codes(flat, self.d, "reports", allow_empty=True)
        # no validating int64 copy; an explicit intp conversion is several times faster than bincount's own
        return np.bincount(flat.astype(np.intp, copy=False), minlength=self.d)

    # ------------------------------------------------------------------ exact tools
    def _check_subset(self, subset: Any) -> np.ndarray:
        s = check_codes(subset, self.d, "subset")
        if s.size != self.subset_size or np.unique(s).size != s.size:
            raise ValueError(f"subset must hold {self.subset_size} distinct values, got {s.tolist()}")
        return s

    def channel_entry(self, x: int, subset: Any, *, log: bool = False) -> float:
        """Exact ``P(Omega | x)``: ``p / C(d-1, omega-1)`` if ``x`` is in ``Omega``, else ``(1-p) / C(d-1, omega)``."""
        x = check_int(x, "x", minimum=0, maximum=self.d - 1)
        s = self._check_subset(subset)
        w = self.subset_size
        if x in s:
            mass, k = self.p, w - 1
        else:
            mass, k = self.one_minus_p, w  # the closed form of 1 - p, not the subtraction
        logc = _log_comb(self.d - 1, k)
        if log:
            return math.log(mass) - logc
        return mass / math.comb(self.d - 1, k) if logc < 700 else math.exp(math.log(mass) - logc)

    def output_subsets(self) -> np.ndarray:
        """All ``C(d, omega)`` subsets (lexicographic), in the column order of :meth:`channel`."""
        # decided in logs first: C(d, omega) may have millions of digits
        log_total = _log_comb(self.d, self.subset_size)
        total = math.comb(self.d, self.subset_size) if log_total < math.log(MAX_CHANNEL_OUTPUTS) + 1 else None
        if total is None or total > MAX_CHANNEL_OUTPUTS:
            size = f"{total}" if total is not None else f"about 10^{log_total / math.log(10):.1f}"
            raise ValueError(
                f"C(d, omega) = C({self.d}, {self.subset_size}) = {size} outputs at d={self.d} is too many to "
                f"enumerate (<= {MAX_CHANNEL_OUTPUTS}); use channel_entry(x, subset) instead"
            )
        return np.array(list(itertools.combinations(range(self.d), self.subset_size)), dtype=np.int64)

    def channel(self) -> np.ndarray:
        """The ``d x C(d, omega)`` channel over all ``omega``-subsets (small domains only)."""
        subsets = self.output_subsets()
        inside = np.zeros((self.d, subsets.shape[0]), dtype=bool)
        inside[subsets.T, np.arange(subsets.shape[0])] = True
        w = self.subset_size
        return np.where(inside, self.p / math.comb(self.d - 1, w - 1), self.one_minus_p / math.comb(self.d - 1, w))

    def __repr__(self) -> str:
        return f"SubsetSelection(epsilon={self.epsilon:g}, d={self.d}, subset_size={self.subset_size})"


def _rule_size(epsilon: float, d: int, rule: str) -> int:
    if rule not in SUBSET_SIZE_RULES:
        raise ValueError(f"subset_size must be an integer in [1, d-1] or one of {SUBSET_SIZE_RULES}, got {rule!r}")
    return subset_size(epsilon, d, rule)
