"""Likelihood of a noisy Bloom filter given a candidate value (Algorithm 1, line 4, and Example 3 of Ren et al.).

Under permanent randomized response every bit of the true filter ``H_j(w)`` is
reported wrongly with probability exactly ``f/2`` and correctly with
probability ``1 - f/2``, independently across bits.  Hence, for a report
``s_hat`` of ``m_j`` bits::

    P(s_hat | w) = (f/2)^mism * (1 - f/2)^(m_j - mism),
    mism = #{b : s_hat[b] != H_j(w)[b]} = |s_hat| + |H_j(w)| - 2 <s_hat, H_j(w)>.

This is the formula that Example 3 of Ren et al. evaluates.  Line 4 of their
Algorithm 1 prints a product that does not involve ``H_j(w)`` at all (erratum
E1 of the errata register): taken literally it would make every candidate equally likely.

The products underflow in float64 once ``k m`` reaches a few hundred bits, so
everything here is computed in log space.  The table itself is the Bloom
oracle's (:func:`ldp.oracles.bloom.bloom_log_likelihood`, the body of
:meth:`ldp.oracles.BloomRAPPOR.log_likelihood`), which evaluates this
mismatch form with one matrix product per attribute; :func:`mismatch_counts`
exposes the Hamming distances themselves for the worked examples.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..oracles.bloom import bloom_log_likelihood
from ..tables import distinct_rows
from .reports import LoPubReports, _as_bits


def mismatch_counts(bits: Any, filters: Any) -> np.ndarray:
    """Hamming distances between every report and every candidate filter.

    Parameters
    ----------
    bits : (N, m) array of 0/1
        Noisy filters of one attribute.
    filters : (v, m) array of 0/1
        Public filters ``H_j(w)`` of the ``v`` values.

    Returns
    -------
    (N, v) int64 array ``mism[i, w]``.
    """
    bits = _as_bits(bits, "bits")
    filters = _as_bits(filters, "filters")
    if bits.shape[1] != filters.shape[1]:
        raise ValueError(f"bits have {bits.shape[1]} columns but filters have {filters.shape[1]}")
    # float32 products of 0/1 matrices are exact far beyond any filter length used here
    inner = bits.astype(np.float32) @ filters.astype(np.float32).T
    ones_r = bits.sum(axis=1, dtype=np.int64)[:, None]
    ones_h = filters.sum(axis=1, dtype=np.int64)[None, :]
    return ones_r + ones_h - 2 * np.rint(inner).astype(np.int64)


def log_likelihood_table(bits: Any, filters: Any, f: float) -> np.ndarray:
    """``log P(s_hat_i | w)`` for every report ``i`` and value ``w`` of one attribute.

    ``m log(1 - f/2) + mism log(f/(2 - f))`` (Example 3 of Ren et al., in log form).
    """
    return bloom_log_likelihood(bits, filters, f)


def scaled_likelihoods(reports: LoPubReports, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-rescaled likelihood table of attribute ``j`` and the log of the removed factors.

    Returns ``(L, offset)`` with ``L[i, w] = P(s_hat_i | w) / exp(offset[i])`` and
    ``max_w L[i, w] = 1``.  Per-user factors cancel in EM posteriors, so EM can
    work with ``L`` directly; ``offset`` restores the absolute log-likelihood.
    The result is cached on ``reports``.
    """

    def build() -> tuple[np.ndarray, np.ndarray]:
        ll = log_likelihood_table(reports.bits[j], reports.filters[j], reports.f)
        off = ll.max(axis=1)
        return np.exp(ll - off[:, None]), off

    return reports.cached(("scaled_likelihoods", j), build)


def likelihood_patterns(reports: LoPubReports, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Users whose rows of attribute ``j``'s likelihood table are equal up to a per-user factor.

    ``log P(s_hat | w) - log P(s_hat | 0) = (|H_j(w)| - |H_j(0)| - 2 <s_hat, H_j(w) - H_j(0)>) log(f/(2-f))``,
    so a user's row, rescaled as in :func:`scaled_likelihoods`, is a function of the integers
    ``<s_hat, H_j(w) - H_j(0)>`` (``w >= 1``); users with the same integers have the same
    posterior under EM, whatever the joint.  Returns ``(first, inverse)``: ``first[g]`` is the
    first user of pattern ``g`` and ``inverse[i]`` the pattern of user ``i``.  Each integer lies in
    a range of ``|H_j(w) xor H_j(0)| + 1 <= 2h + 1`` values, so small domains leave few patterns
    (:func:`pattern_bound`).  Cached on ``reports``.
    """

    def build() -> tuple[np.ndarray, np.ndarray]:
        filters = reports.filters[j].astype(np.float32)
        # float32 products of 0/1 matrices are exact integers far beyond any filter length used here
        diff = np.rint(reports.bits[j].astype(np.float32) @ (filters[1:] - filters[0]).T).astype(np.int64)
        return distinct_rows(diff - diff.min(axis=0))

    return reports.cached(("likelihood_patterns", j), build)


def pattern_bound(filters: Any) -> int:
    """Most patterns :func:`likelihood_patterns` can find for an attribute with these ``(|Omega|, m)`` filters.

    The integers ``<s_hat, H(w) - H(0)>`` depend only on the bits where some filter has a one
    (at most ``2^u`` patterns for ``u`` such bits), and each takes at most ``|H(w) xor H(0)| + 1`` values.
    """
    h = _as_bits(filters, "filters").astype(bool)
    spans = math.prod(int(np.count_nonzero(row ^ h[0])) + 1 for row in h[1:])
    return min(spans, 2 ** int(np.count_nonzero(h.any(axis=0))))


def report_probability(report: Any, candidate: Any, f: float) -> float:
    """``P(s_hat = report | H = candidate)`` for single bit strings (Eq. (11) of Ren et al.).

    ``report`` and ``candidate`` may be 0/1 sequences or strings such as ``"0111"``.
    """
    r = _bitstring(report, "report")
    c = _bitstring(candidate, "candidate")
    if r.size != c.size:
        raise ValueError(f"report has {r.size} bits but candidate has {c.size}")
    return float(np.exp(log_likelihood_table(r[None, :], c[None, :], f)[0, 0]))


def _bitstring(x: Any, name: str) -> np.ndarray:
    if isinstance(x, str):
        if not x or set(x) - {"0", "1"}:
            raise ValueError(f"{name} must be a non-empty string of 0s and 1s, got {x!r}")
        return np.array([int(c) for c in x], dtype=np.uint8)
    arr = _as_bits(np.atleast_2d(x), name)
    if arr.shape[0] != 1:
        raise ValueError(f"{name} must be one bit string, got shape {np.shape(x)}")
    return arr[0]
