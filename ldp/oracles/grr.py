"""Generalised randomized response (GRR, k-RR, "direct encoding").

Warner (1965) for d = 2; Kairouz et al. (2016) and Wang et al. (2017, Sec. 4.1)
for general d.  The user reports the true value with probability
``p = e^eps / (e^eps + d - 1)`` and each other value with ``q = 1/(e^eps + d - 1)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_codes
from .base import FrequencyOracle


class GRR(FrequencyOracle):
    """Generalised randomized response over ``{0, ..., d-1}``.

    Sampling uses the mixture form of the channel: with probability ``p - q`` the
    true value is kept, otherwise a value is drawn uniformly from the whole domain
    (the true one included).  One uniform and one integer draw per user.
    """

    name = "GRR"
    has_count_sampler = True

    def __init__(self, epsilon: float, d: int) -> None:
        super().__init__(epsilon, d)
        if not self.q > 0.0:
            raise ValueError(
                f"epsilon={self.epsilon!r} is too large for d={self.d}: q = 1/(e^eps + d - 1) underflows to 0 in "
                f"double precision, so the channel would not be eps-LDP for any finite eps; use epsilon <= 700"
            )

    @property
    def p(self) -> float:
        # written with e^{-eps} so that large budgets give p -> 1 instead of inf/inf = nan
        return float(1.0 / (1.0 + (self.d - 1) * np.exp(-self.epsilon)))

    @property
    def q(self) -> float:
        return float(np.exp(-self.epsilon) / (1.0 + (self.d - 1) * np.exp(-self.epsilon)))

    @property
    def one_minus_p(self) -> float:
        """``1 - p = (d-1) e^-eps / (1 + (d-1) e^-eps)``, without cancellation."""
        return (self.d - 1) * self.q

    @property
    def p_minus_q(self) -> float:
        """``p - q = (1 - e^-eps) / (1 + (d-1) e^-eps)``, accurate for small ``eps`` too."""
        return -math.expm1(-self.epsilon) / (1.0 + (self.d - 1) * math.exp(-self.epsilon))

    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Reports: an int32 array of the same length as ``x`` (domains are at most 2**31 - 1, ``ldp._checks``).

        The uniform draw comes first and the kept users' true values are copied over it in place, which
        saves a temporary per user compared with ``np.where``; the distribution is the same.
        """
        x = self._codes(x)
        gen = self._rng(rng)
        dtype = np.int32 if self.d <= np.iinfo(np.int32).max else np.int64
        reports = gen.integers(0, self.d, size=x.size, dtype=dtype)
        keep = gen.random(x.size) < self.p_minus_q
        if self.p_minus_q < 0.125:  # few keep their value: copy only theirs (no pass over all n, no cast)
            kept = np.flatnonzero(keep)
            reports[kept] = x[kept]
        else:  # cast x first (x < d fits the dtype): a masked copy that also casts is several times slower
            np.copyto(reports, x.astype(dtype, copy=False), where=keep)
        return reports

    def support_counts(self, reports: Any) -> np.ndarray:
        """``C(v)``: how many reports equal ``v``; reports outside the domain raise ``ValueError``."""
        arr = np.asarray(reports)
        in_domain = (
            arr.ndim == 1
            and arr.dtype.kind in "iu"
            and (arr.size == 0 or (int(arr.min()) >= 0 and int(arr.max()) < self.d))
        )
        if not in_domain:  # the full check names the problem
            arr = check_codes(reports, self.d, "reports", allow_empty=True)
        # bincount needs intp; converting explicitly is several times faster than letting bincount do it
        return np.bincount(arr.astype(np.intp, copy=False), minlength=self.d)

    def channel(self) -> np.ndarray:
        P = np.full((self.d, self.d), self.q)
        np.fill_diagonal(P, self.p)
        return P

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Exact: kept users ~ Bin(n_v, p - q) per value, the rest spread by one uniform multinomial."""
        counts = self._true_counts(true_counts)
        gen = self._rng(rng)
        kept = gen.binomial(counts, self.p - self.q)
        spread = gen.multinomial(int(counts.sum() - kept.sum()), np.full(self.d, 1.0 / self.d))
        return kept + spread
