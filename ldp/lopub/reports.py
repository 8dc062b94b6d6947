"""The server's view of a LoPub collection: noisy per-attribute Bloom filters.

In LoPub (Ren et al., Sec. 5.2.2) every user encodes each of her ``d`` attribute
values into its own Bloom filter, flips every bit with RAPPOR's permanent
randomized response (parameter ``f``) and sends the concatenation once.  All the
server-side algorithms (Algorithms 1-6) only need

* the noisy bits, one ``(N, m_j)`` 0/1 array per attribute, and
* the public filters ``H_j(omega)`` of every value, one ``(|Omega_j|, m_j)`` 0/1
  array per attribute (the server replays the public hash functions),
* the flip parameter ``f``.

:class:`LoPubReports` bundles and validates these three things once, so that the
estimators in :mod:`ldp.lopub.em`, :mod:`ldp.lopub.lasso` and
:mod:`ldp.lopub.hybrid` can trust their inputs.  It is produced by
:meth:`ldp.lopub.encoding.LoPubEncoder.encode` or built directly from the
paper's worked example (:func:`ldp.lopub.paper.table6_reports`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import check_int, check_probability


def _as_bits(arr: Any, name: str) -> np.ndarray:
    a = np.asarray(arr)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.integer) or a.dtype == bool):
        raise TypeError(f"{name} must be an array of 0/1 bits, got dtype {a.dtype}")
    if a.ndim != 2:
        raise ValueError(f"{name} must be two-dimensional, got shape {a.shape}")
    if a.size and (a.min() < 0 or a.max() > 1):
        raise ValueError(f"{name} must hold only 0/1 bits, found values in [{a.min()}, {a.max()}]")
    return a.astype(np.uint8, copy=False)


def check_attrs(attrs: Any, d: int, name: str = "attrs") -> tuple[int, ...]:
    """Validate an attribute cluster ``C``: distinct indices in ``{0, .., d-1}``, 1 <= k <= d."""
    if isinstance(attrs, (int, np.integer)) and not isinstance(attrs, bool):
        attrs = (int(attrs),)
    try:
        out = tuple(check_int(a, f"{name} entry") for a in attrs)
    except TypeError as exc:
        if "not iterable" in str(exc):
            raise TypeError(f"{name} must be a sequence of attribute indices, got {attrs!r}") from None
        raise
    if not out:
        raise ValueError(f"{name} is empty: a cluster needs at least one attribute")
    if len(out) > d:
        raise ValueError(f"{name} asks for k = {len(out)} attributes but the data has only d = {d}")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} contains repeated attributes: {out}")
    bad = [a for a in out if a < 0 or a >= d]
    if bad:
        raise ValueError(f"{name} contains {bad[0]}, outside the attribute range {{0, ..., {d - 1}}}")
    return out


@dataclass(frozen=True)
class LoPubReports:
    """Noisy Bloom filters of ``N`` users over ``d`` attributes, with the public filters and ``f``.

    Parameters
    ----------
    bits : sequence of (N, m_j) arrays of 0/1
        ``bits[j][i]`` is user ``i``'s randomized Bloom filter of attribute ``j``.
    filters : sequence of ``(|Omega_j|, m_j)`` arrays of 0/1
        ``filters[j][w]`` is the public Bloom filter ``H_j(w)`` of value ``w``.
    f : float in (0, 1)
        Flip parameter of the permanent randomized response (Eq. (5) of Ren et al.).
    names : sequence of str, optional
        Attribute names (defaults to ``A1 .. Ad``).
    """

    bits: tuple[np.ndarray, ...]
    filters: tuple[np.ndarray, ...]
    f: float
    names: tuple[str, ...] = ()
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        f = check_probability(self.f, "f", open_low=True, open_high=True)
        bits = tuple(_as_bits(b, f"bits[{j}]") for j, b in enumerate(self.bits))
        filters = tuple(_as_bits(b, f"filters[{j}]") for j, b in enumerate(self.filters))
        if not bits:
            raise ValueError("bits is empty: at least one attribute is needed")
        if len(bits) != len(filters):
            raise ValueError(f"bits has {len(bits)} attributes but filters has {len(filters)}")
        n = bits[0].shape[0]
        if n == 0:
            raise ValueError("bits holds 0 users: at least one report is needed")
        for j, (b, h) in enumerate(zip(bits, filters)):
            if b.shape[0] != n:
                raise ValueError(f"bits[{j}] has {b.shape[0]} users, bits[0] has {n}")
            if b.shape[1] != h.shape[1]:
                raise ValueError(
                    f"bits[{j}] has {b.shape[1]} bits per report but filters[{j}] has {h.shape[1]} bits per value"
                )
            if h.shape[0] < 2:
                raise ValueError(f"filters[{j}] describes a domain of {h.shape[0]} value(s); need >= 2")
        names = tuple(self.names) if self.names else tuple(f"A{j + 1}" for j in range(len(bits)))
        if len(names) != len(bits):
            raise ValueError(f"names has {len(names)} entries for {len(bits)} attributes")
        object.__setattr__(self, "f", f)
        object.__setattr__(self, "bits", bits)
        object.__setattr__(self, "filters", filters)
        object.__setattr__(self, "names", names)

    # ------------------------------------------------------------------ shape information
    @property
    def n(self) -> int:
        """Number of users (reports)."""
        return int(self.bits[0].shape[0])

    @property
    def d(self) -> int:
        """Number of attributes."""
        return len(self.bits)

    @property
    def domains(self) -> tuple[int, ...]:
        """Domain sizes ``|Omega_j|``."""
        return tuple(int(h.shape[0]) for h in self.filters)

    @property
    def m(self) -> tuple[int, ...]:
        """Filter lengths ``m_j``."""
        return tuple(int(h.shape[1]) for h in self.filters)

    def attrs(self, attrs: Iterable[int] | int) -> tuple[int, ...]:
        """Validate a cluster of attribute indices against this collection."""
        return check_attrs(attrs, self.d)

    # ------------------------------------------------------------------ derived collections
    def subset(self, users: Any) -> LoPubReports:
        """The reports of a subset of users (index array or boolean mask), e.g. a uniform sample."""
        idx = np.asarray(users)
        if idx.dtype == bool:
            if idx.shape != (self.n,):
                raise ValueError(f"users mask must have shape ({self.n},), got {idx.shape}")
        elif not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"users must be integer indices or a boolean mask, got dtype {idx.dtype}")
        return LoPubReports(tuple(b[idx] for b in self.bits), self.filters, self.f, self.names)

    def uncached(self) -> LoPubReports:
        """The same reports with an empty cache (for timing an estimator from scratch)."""
        return LoPubReports(self.bits, self.filters, self.f, self.names)

    def cached(self, key: Sequence[Any], builder: Any) -> Any:
        """Memoise a derived quantity (e.g. a likelihood table) on this immutable collection."""
        key = tuple(key)
        if key not in self._cache:
            self._cache[key] = builder()
        return self._cache[key]
