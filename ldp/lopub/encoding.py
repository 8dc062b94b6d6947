"""LoPub's local transformation: one Bloom filter per attribute, flipped by RAPPOR's PRR (Sec. 5.2).

Each attribute ``j`` gets its own :class:`ldp.oracles.BloomRAPPOR` (``h`` hash
functions over ``m_j`` bits, public hash seed), whose Bloom matrix is ``H_j`` and
whose :meth:`perturb` is the permanent randomized response of Eq. (5).  The
user's report is the concatenation of the ``d`` noisy filters; the server keeps
them per attribute in a :class:`ldp.lopub.reports.LoPubReports`.

Filters.  The paper asks for "orthogonal" filters, which is impossible once
filters overlap; what the estimators need is that each attribute's ``|Omega_j| x m_j``
matrix has full rank (hence distinct rows).  The hash seed of attribute ``j`` is
the first seed at or after ``hash_seed + 1000 j`` giving a full-rank matrix
(:func:`ldp.oracles.bloom.full_rank_seed`), so filters are deterministic across
machines and processes.

Sizing.  ``sizing="fixed"`` uses ``m_j = m`` for every attribute, as the paper's
experiments do (m = 32 for Retail, 128 for Adult and TPC-E).  ``sizing="optimal"``
uses Eq. (6) with the false-positive rate implied by ``h`` (Eq. (7)),
``m_j = ceil(h |Omega_j| / ln 2)``, capped at ``m``.

Privacy (erratum E3).  Eq. (8), ``2h ln((2-f)/f)``, is the guarantee of **one
attribute's** report.  A record's report concatenates ``d`` of them and two
records may differ in every attribute, so by composition the record-level
guarantee is ``sum_j 2h ln((2-f)/f)`` (``d`` times Eq. (8)), which is tight when
each attribute has two values with disjoint filters.  Everything the server
computes afterwards is post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._checks import as_generator, check_choice, check_domain_size, check_int, check_probability
from ..oracles import BloomRAPPOR
from ..oracles.bloom import PRR_SAMPLERS, epsilon_from_f, full_rank_seed
from ..tables import CodedTable
from .reports import LoPubReports, check_attrs

SIZINGS = ("fixed", "optimal")
#: gap between the starting hash seeds of consecutive attributes
SEED_STRIDE = 1000


def optimal_filter_length(domain: int, p: float) -> float:
    """Eq. (6): ``m_j = ln(1/p) / (ln 2)^2 * |Omega_j|`` for false-positive rate ``p``."""
    domain = check_domain_size(domain, "domain")
    p = check_probability(p, "p", open_low=True, open_high=True)
    return math.log(1 / p) / math.log(2) ** 2 * domain


def optimal_hash_count(p: float) -> float:
    """Eq. (7): ``h = ln(1/p) / ln 2`` (the same for every attribute)."""
    p = check_probability(p, "p", open_low=True, open_high=True)
    return math.log(1 / p) / math.log(2)


def communication_cost(domains: Sequence[int], p: float) -> float:
    """Theorem 1, Eq. (9): LoPub sends ``sum_j m_j = ln(1/p)/(ln 2)^2 sum_j |Omega_j|`` bits."""
    return float(sum(optimal_filter_length(v, p) for v in domains))


def rappor_communication_cost(domains: Sequence[int], p: float) -> float:
    """Eq. (10): RAPPOR on the product domain needs ``ln(1/p)/(ln 2)^2 prod_j |Omega_j|`` bits."""
    for v in domains:
        check_domain_size(v, "domain")
    p = check_probability(p, "p", open_low=True, open_high=True)
    return math.log(1 / p) / math.log(2) ** 2 * float(np.prod([float(v) for v in domains]))


def record_epsilon(f: float, h: int, d: int) -> float:
    """Record-level budget of a ``d``-attribute LoPub report: ``d * 2h ln((2-f)/f)`` (erratum E3)."""
    d = check_domain_size(d, "d", minimum=1)
    return d * epsilon_from_f(f, h)


def amplified_epsilon(epsilon: float, rate: float) -> float:
    """Privacy after uniform sampling with ``rate``: ``ln(1 + rate (e^eps - 1))`` (Sec. 4.1, citing [24]).

    Computed as ``logaddexp(ln(1 - rate), ln(rate) + eps)`` so that large budgets do not overflow.
    """
    rate = check_probability(rate, "rate", open_low=True)
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}")
    if rate == 1.0:
        return float(epsilon)
    return float(np.logaddexp(math.log1p(-rate), math.log(rate) + epsilon))


def _filter_lengths(
    domains: tuple[int, ...], names: tuple[str, ...], m: int, h: int, sizing: str, filters: Sequence[Any] | None
) -> list[int]:
    """Bits ``m_j`` of every attribute's filter (the explicit matrices' widths, or from ``m``, ``h`` and ``sizing``)."""
    lengths = []
    for j, v in enumerate(domains):
        if filters is not None:
            mj = int(np.shape(filters[j])[-1]) if np.ndim(filters[j]) == 2 else 0
            if np.ndim(filters[j]) != 2 or np.shape(filters[j])[0] != v:
                raise ValueError(f"filters[{j}] must have shape ({v}, m_j), got {np.shape(filters[j])}")
        else:
            mj = m if sizing == "fixed" else min(m, math.ceil(h * v / math.log(2)))
        if mj < v:
            raise ValueError(
                f"attribute {names[j]!r} has {v} values but only m = {mj} bits: its "
                "filters cannot be linearly independent; increase m"
            )
        lengths.append(mj)
    return lengths


class LoPubEncoder:
    """User-side transformation of LoPub for ``d`` categorical attributes.

    Parameters
    ----------
    domains : sequence of int
        ``|Omega_j|`` for every attribute (each >= 2).
    f : float
        Flip probability of the permanent randomized response, in (0, 1).
    m : int
        Filter length (``sizing="fixed"``) or its cap (``sizing="optimal"``); ``m >= h``.
    h : int
        Number of hash functions, >= 1.
    sizing : {"fixed", "optimal"}
    hash_seed : int
        Base of the public hash seeds.
    names : sequence of str, optional
        Attribute names carried into the reports.
    filters : sequence of ``(|Omega_j|, m_j)`` 0/1 matrices, optional
        Explicit public filters, one matrix per attribute (e.g. Table 5 of Ren et al.),
        instead of hashed ones; ``m_j`` is then each matrix's width, ``m`` and ``sizing``
        are not used, and every row must have 1 to ``h`` ones.
    sampler : {"xor", "uniform"}
        How the permanent randomized response is drawn (:func:`ldp.oracles.bloom.permanent_rr`):
        the same law either way; ``"xor"`` (flips from the fast exact bit sampler) is the
        default, ``"uniform"`` the oracle's own stream.
    """

    def __init__(
        self,
        domains: Sequence[int],
        *,
        f: float,
        m: int = 128,
        h: int = 4,
        sizing: str = "fixed",
        hash_seed: int = 0,
        names: Sequence[str] | None = None,
        filters: Sequence[Any] | None = None,
        sampler: str = "xor",
    ) -> None:
        self.f = check_probability(f, "f", open_low=True, open_high=True)
        self.sampler = check_choice(sampler, PRR_SAMPLERS, "sampler")
        self.h = check_domain_size(h, "h", minimum=1)
        self.m = check_domain_size(m, "m", minimum=1)
        if self.m < self.h:
            raise ValueError(
                f"m must be >= h: a filter of m = {self.m} bits cannot hold h = {self.h} hash positions meaningfully"
            )
        if sizing not in SIZINGS:
            raise ValueError(f"sizing must be one of {SIZINGS}, got {sizing!r}")
        if len(domains) == 0:
            raise ValueError("domains is empty: at least one attribute is needed")
        self.domains = tuple(check_domain_size(v, f"domains[{j}]") for j, v in enumerate(domains))
        self.sizing = sizing
        self.hash_seed = check_int(hash_seed, "hash_seed", minimum=0)
        self.names = tuple(names) if names is not None else tuple(f"A{j + 1}" for j in range(len(domains)))
        if len(self.names) != len(self.domains):
            raise ValueError(f"names has {len(self.names)} entries for {len(self.domains)} attributes")
        if filters is not None and len(filters) != len(self.domains):
            raise ValueError(f"filters has {len(filters)} matrices for {len(self.domains)} attributes")
        lengths = _filter_lengths(self.domains, self.names, self.m, self.h, sizing, filters)
        if filters is not None:
            self.oracles = tuple(
                BloomRAPPOR(f=self.f, d=v, m=mj, h=self.h, filters=filters[j])
                for j, (v, mj) in enumerate(zip(self.domains, lengths))
            )
        else:
            self.oracles = tuple(
                BloomRAPPOR(
                    f=self.f,
                    d=v,
                    m=mj,
                    h=self.h,
                    hash_seed=full_rank_seed(v, mj, self.h, start=self.hash_seed + SEED_STRIDE * j),
                )
                for j, (v, mj) in enumerate(zip(self.domains, lengths))
            )
        self.filters = tuple(o.bloom_matrix() for o in self.oracles)

    @property
    def d(self) -> int:
        return len(self.domains)

    @property
    def lengths(self) -> tuple[int, ...]:
        """Filter lengths ``m_j``."""
        return tuple(o.m for o in self.oracles)

    @property
    def report_bits(self) -> int:
        """Bits sent per user, ``sum_j m_j`` (Theorem 1)."""
        return int(sum(self.lengths))

    @property
    def epsilon_attribute(self) -> float:
        """Eq. (8): ``2h ln((2-f)/f)``, the nominal guarantee of one attribute's report."""
        return epsilon_from_f(self.f, self.h)

    @property
    def exact_epsilons(self) -> tuple[float, ...]:
        """Tight per-attribute budgets of these filters, ``max Ham(H(w), H(w')) ln((2-f)/f)``."""
        return tuple(o.exact_epsilon for o in self.oracles)

    @property
    def epsilon_record(self) -> float:
        """Record-level nominal budget ``sum_j 2h ln((2-f)/f)`` (erratum E3)."""
        return record_epsilon(self.f, self.h, self.d)

    def encode(self, data: CodedTable | Any, rng: Any = None, attrs: Sequence[int] | None = None) -> LoPubReports:
        """Perturb every user's record; ``data`` is a :class:`CodedTable` or an ``(N, d)`` code array.

        With ``attrs``, only those attributes are encoded and the reports hold them in that order
        (what an experiment on one cluster needs; each user still perturbs each attribute
        independently, so this equals encoding everything and keeping those columns).
        """
        codes = data.codes if isinstance(data, CodedTable) else np.asarray(data)
        if codes.ndim != 2 or codes.shape[1] != self.d:
            raise ValueError(f"data must have shape (N, {self.d}), got {codes.shape}")
        cols = tuple(range(self.d)) if attrs is None else check_attrs(attrs, self.d)
        gen = as_generator(rng)
        bits = tuple(self.oracles[j].perturb(codes[:, j], gen, sampler=self.sampler) for j in cols)
        return LoPubReports(bits, tuple(self.filters[j] for j in cols), self.f, tuple(self.names[j] for j in cols))

    def __repr__(self) -> str:
        return (
            f"LoPubEncoder(d={self.d}, f={self.f:g}, m={self.m}, h={self.h}, sizing={self.sizing!r}, "
            f"hash_seed={self.hash_seed})"
        )
