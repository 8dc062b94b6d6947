"""Pairwise mutual information, the threshold tau and the dependency graph (Alg. 4, steps 1-2).

* Mutual information (Eq. (24) of Ren et al.), in nats, from a 2-D joint table;
  by default the margins are taken from the same table, which guarantees
  ``I >= 0`` (the paper suggests separate 1-D estimates; erratum E7).
* Threshold (Eq. (26)): ``tau = min(|Omega_m| - 1, |Omega_n| - 1) phi^2 / 2``.  For weak
  dependence ``I ~ chi^2 / (2N)``, so ``tau`` is the mutual information of a pair
  whose Cramer's V equals ``phi``; this is why the natural log matters.
* Edge rule ``I >= tau`` (Alg. 4 line 10; the prose says ``>``; erratum E6), so that
  ``phi = 0`` gives the complete graph as the paper claims.  ``edge_rule=">"`` gives the
  prose's strict rule, which is also what the authors' public code tests
  (``Dependency.py`` of IoTDATALab/Python_LoPub at commit df08a8b; bib key ``ren2018code``).
* Identification rates against a reference graph (Figs 19-21): accuracy, added
  (false positive) and lost (false negative; the paper calls it "true negative")
  pairs, each as a fraction of the ``C(d, 2)`` pairs, so the three sum to 1.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._checks import check_choice, check_code_matrix, check_joint_distribution, check_probability


def _joint2(table: Any, name: str = "joint") -> np.ndarray:
    return check_joint_distribution(table, name, ndim=2)


def mutual_information(joint: Any, row_marginal: Any = None, col_marginal: Any = None) -> float:
    """Mutual information ``sum_ij p_ij ln(p_ij / (p_i. p_.j))`` in nats (Eq. (24) of Ren et al.).

    ``row_marginal``/``col_marginal`` override the margins of ``joint`` (the paper's
    separate 1-D estimates); by default they come from ``joint`` itself.
    """
    p = _joint2(joint)
    r = p.sum(axis=1) if row_marginal is None else check_joint_distribution(row_marginal, "row_marginal", ndim=None)
    c = p.sum(axis=0) if col_marginal is None else check_joint_distribution(col_marginal, "col_marginal", ndim=None)
    if r.shape != (p.shape[0],) or c.shape != (p.shape[1],):
        raise ValueError(f"marginals must have shapes ({p.shape[0]},) and ({p.shape[1]},)")
    mask = p > 0
    denom = np.outer(r, c)[mask]
    if np.any(denom <= 0):
        raise ValueError("a cell with positive joint probability has a zero marginal")
    return float(np.sum(p[mask] * np.log(p[mask] / denom)))


def entropy(p: Any) -> float:
    """Shannon entropy in nats of a distribution (zeros contribute 0; sum 1 within 1e-6 required).

    Computed in a canonical order: the positive entries sorted, normalised by their exactly rounded sum
    (``math.fsum``) and the terms summed exactly rounded, so the result depends only on the multiset of
    probabilities.  Two attributes with the same distribution up to a relabelling of their values (a
    one-to-one pair such as Adult's education and education-num) get bitwise-equal entropies, and a ranking
    by entropy breaks their tie by its own rule, not by rounding noise.
    """
    q = check_joint_distribution(p, "p", ndim=None).ravel()
    q = np.sort(q[q > 0])
    q = q / math.fsum(q)
    return -math.fsum(q * np.log(q))


def mi_threshold(size_m: int, size_n: int, phi: float) -> float:
    """``tau = min(|Omega_m| - 1, |Omega_n| - 1) phi^2 / 2`` (Eq. (26) of Ren et al.)."""
    phi = check_probability(phi, "phi")
    if size_m < 2 or size_n < 2:
        raise ValueError(f"domain sizes must be >= 2, got {size_m} and {size_n}")
    return min(size_m - 1, size_n - 1) * phi**2 / 2


def empirical_joint(codes: Any, domains: Sequence[int], attrs: Sequence[int]) -> np.ndarray:
    """Empirical joint distribution of the columns ``attrs`` of an ``(N, d)`` integer code matrix."""
    x, sizes = check_code_matrix(codes, domains)
    attrs = tuple(attrs)
    if (
        not attrs
        or len(set(attrs)) != len(attrs)
        or not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) and 0 <= a < len(sizes) for a in attrs)
    ):
        raise ValueError(f"attrs must be distinct column indices in 0..{len(sizes) - 1}, got {attrs!r}")
    shape = tuple(sizes[a] for a in attrs)
    flat = np.ravel_multi_index(tuple(x[:, a] for a in attrs), shape)
    counts = np.bincount(flat, minlength=int(np.prod(shape))).astype(float)
    return (counts / counts.sum()).reshape(shape)


def empirical_mi_matrix(codes: Any, domains: Sequence[int]) -> np.ndarray:
    """Mutual information of every pair of columns of a code matrix (the non-private reference)."""
    d = len(domains)
    return pairwise_mi(lambda pair: empirical_joint(codes, domains, pair), d)


def pairwise_mi(
    joint_fn: Callable[[tuple[int, int]], np.ndarray], d: int, pairs: Sequence[tuple[int, int]] | None = None
) -> np.ndarray:
    """Symmetric ``d x d`` matrix of mutual informations; ``joint_fn((m, n))`` returns the 2-D joint.

    Only ``pairs`` are evaluated (all ``C(d, 2)`` by default); other entries stay 0.
    """
    mi = np.zeros((d, d))
    for m, n in itertools.combinations(range(d), 2) if pairs is None else pairs:
        mi[m, n] = mi[n, m] = mutual_information(joint_fn((m, n)))
    return mi


EDGE_RULES = (">=", ">")


def check_edge_rule(edge_rule: str) -> str:
    """``">="`` (Algorithm 4, line 10) or ``">"`` (the prose, and the authors' code)."""
    return check_choice(edge_rule, EDGE_RULES, "edge_rule")


def dependency_graph(
    mi: Any,
    domains: Sequence[int],
    phi: float,
    pairs: Sequence[tuple[int, int]] | None = None,
    *,
    edge_rule: str = ">=",
) -> np.ndarray:
    """Adjacency matrix ``G`` (0/1, zero diagonal) with ``G[m, n] = 1`` iff ``I_mn >= tau_mn``.

    Only ``pairs`` are tested (all pairs by default).  ``edge_rule=">"`` tests ``I_mn > tau_mn``
    instead (the prose of Sec. 5.4; see erratum E6).
    """
    strict = check_edge_rule(edge_rule) == ">"
    mi = np.asarray(mi, dtype=float)
    d = len(domains)
    if mi.shape != (d, d):
        raise ValueError(f"mi must be ({d}, {d}) for {d} domains, got {mi.shape}")
    g = np.zeros((d, d), dtype=np.int8)
    for m, n in itertools.combinations(range(d), 2) if pairs is None else pairs:
        tau = mi_threshold(domains[m], domains[n], phi)
        if (mi[m, n] > tau) if strict else (mi[m, n] >= tau):
            g[m, n] = g[n, m] = 1
    return g


def edge_count(g: Any, *, diagonal: bool = False) -> int:
    """Number of 1-entries of ``G`` (both symmetric entries; the ``#Dep`` rows of Tables 7-9)."""
    a = np.asarray(g)
    total = int(np.count_nonzero(a))
    if not diagonal:
        total -= int(np.count_nonzero(np.diag(a)))
    return total


def identification_rates(estimated: Any, reference: Any) -> dict[str, float]:
    """Accuracy, added (false positive) and lost (false negative) rates over the ``C(d, 2)`` pairs.

    Also ``dependent``: the share of pairs dependent in ``reference``, so ``1 - dependent``
    is the accuracy an empty graph would score (the baseline an accuracy is read against).
    """
    e = np.asarray(estimated) != 0
    r = np.asarray(reference) != 0
    if e.shape != r.shape or e.ndim != 2 or e.shape[0] != e.shape[1]:
        raise ValueError(f"graphs must be square and of equal shape, got {e.shape} and {r.shape}")
    iu = np.triu_indices(e.shape[0], 1)
    e, r = e[iu], r[iu]
    total = e.size
    if total == 0:
        raise ValueError("graphs need at least two attributes")
    return {
        "accuracy": float(np.mean(e == r)),
        "added": float(np.sum(e & ~r) / total),
        "lost": float(np.sum(~e & r) / total),
        "dependent": float(np.mean(r)),
    }
