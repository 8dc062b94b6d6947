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

from typing import Any

import numpy as np

from ..oracles.bloom import bloom_log_likelihood
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


def _row_key(table: np.ndarray) -> np.ndarray:
    """One float per row, equal for equal rows (a projection on fixed weights with irrational steps)."""
    return table @ (1.0 + np.sqrt(2.0) * np.arange(table.shape[1]))


def likelihood_patterns(reports: LoPubReports, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Users whose rows of attribute ``j``'s scaled likelihood table (:func:`scaled_likelihoods`) are identical.

    Returns ``(first, inverse)``: ``first[g]`` is the first user with pattern ``g`` and
    ``inverse[i]`` the pattern of user ``i``, so that ``L[first][inverse]`` equals ``L``
    exactly (rows are compared as stored floats).  A row depends on the report only through
    its mismatches with the ``|Omega_j|`` filters, so small domains leave few patterns (in
    exact arithmetic a binary attribute's rows take at most ``2h + 1`` values, the
    difference of its two mismatch counts; rounding of the log-likelihoods splits some of
    them), which EM then visits once each, weighted by its count.  The rows are keyed by one
    fixed projection, and the grouping is checked to be exact (a key shared by two different
    rows falls back to comparing the rows byte by byte).  Cached on ``reports``.
    """

    def build() -> tuple[np.ndarray, np.ndarray]:
        table = np.ascontiguousarray(scaled_likelihoods(reports, j)[0])
        _, first, inverse = np.unique(_row_key(table), return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if not np.array_equal(table[first][inverse], table):
            rows = table.view(np.dtype((np.void, table.shape[1] * table.itemsize))).ravel()
            _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
            inverse = inverse.ravel()
        return first, inverse

    return reports.cached(("likelihood_patterns", j), build)


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
