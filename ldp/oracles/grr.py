"""Generalised randomized response (GRR, k-RR, "direct encoding").

Warner (1965) for d = 2; Kairouz et al. (2016) and Wang et al. (2017, Sec. 4.1)
for general d.  The user reports the true value with probability
``p = e^eps / (e^eps + d - 1)`` and each other value with ``q = 1/(e^eps + d - 1)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_allocation, check_codes
from .base import FrequencyOracle

#: users whose keep-or-move uniforms :meth:`GRR.perturb` draws at a time (512 KiB of doubles)
_PIECE = 1 << 16


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
        """Reports: an ``intp`` (int64) array of the same length as ``x``, ready for ``np.bincount``.

        The uniform draw comes first and the kept users' true values are copied over it in place, which
        saves a temporary per user compared with ``np.where``; the distribution is the same.  The reports
        are the values ``gen.integers(0, d, dtype=np.int32)`` would give for the same stream (numpy draws
        any bounded integer below ``2**32`` from 32-bit words), held as ``intp`` so that counting them
        needs no conversion.
        """
        x = _codes_fast(x, self.d)
        gen = self._rng(rng)
        reports = gen.integers(0, self.d, size=x.size, dtype=np.intp)
        keep_prob = self.p_minus_q
        # the keep-or-move uniforms are drawn piece by piece into one small buffer (the same stream as one
        # gen.random(n) call): they stay in cache instead of filling 8 bytes per user of fresh memory
        u = np.empty(min(x.size, _PIECE))
        keep = np.empty(u.size, dtype=bool)
        for start in range(0, x.size, _PIECE):
            stop = min(start + _PIECE, x.size)
            k = np.less(gen.random(out=u[: stop - start]), keep_prob, out=keep[: stop - start])
            if keep_prob < 0.125:  # few keep their value: copy only theirs
                kept = k.nonzero()[0] + start
                reports[kept] = x[kept]
            else:
                np.copyto(reports[start:stop], x[start:stop], where=k)
        return reports

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        """``support_counts(perturb(x, rng))`` for the same ``rng`` state, without re-checking the reports.

        The reports come straight from :meth:`perturb`, so they are in the domain by construction: they are
        counted at once, where :meth:`support_counts` must first check reports of unknown origin.
        """
        return np.bincount(self.perturb(x, rng), minlength=self.d)

    def support_counts(self, reports: Any) -> np.ndarray:
        """``C(v)``: how many reports equal ``v``; reports outside the domain raise ``ValueError``.

        In-domain integer reports are checked with one pass (:func:`_in_domain`) and counted with no
        conversion when they are ``intp`` (what :meth:`perturb` returns); anything else goes through the
        full check, which names the problem.
        """
        arr = np.asarray(reports)
        if _in_domain(arr, self.d):
            return np.bincount(arr.astype(np.intp, copy=False), minlength=self.d)
        arr = check_codes(reports, self.d, "reports", allow_empty=True)
        return np.bincount(arr, minlength=self.d)

    def channel(self) -> np.ndarray:
        check_allocation(self.d * self.d, 8, "the d x d channel", "d", self.d)
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


def _in_domain(arr: np.ndarray, d: int) -> bool:
    """True when ``arr`` is a 1-D integer array whose codes all lie in ``{0, ..., d-1}``, found in one pass.

    Read as unsigned (a view, no copy), a negative code becomes at least ``2**(bits-1)``; when that is
    ``>= d`` one maximum finds any code outside the domain, where ``min`` and ``max`` would read the array
    twice.  A narrow signed dtype whose negative codes could pass for codes below ``d`` (``int8`` with
    ``d > 128``) is checked with ``min`` (its ``max`` is below ``d`` anyway).
    """
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        return False
    if arr.size == 0:
        return True
    if arr.dtype.kind == "i" and d > 2 ** (8 * arr.dtype.itemsize - 1):
        return int(arr.min()) >= 0
    return int(arr.view(f"u{arr.dtype.itemsize}").max()) < d


def _codes_fast(x: Any, d: int) -> np.ndarray:
    """``check_codes(x, d, "x")`` with one pass over a valid integer population (:func:`_in_domain`).

    A population with a code outside the domain (or of another kind) goes through the full check, which
    names the problem.  Returns the same int64 array as ``check_codes``.
    """
    arr = np.asarray(x)
    if arr.size and _in_domain(arr, d):
        return arr.astype(np.int64, copy=False)
    return check_codes(x, d, "x")
