"""Pooled joint estimates of the CLLDP tree (Algorithm 4 of Xue et al.) and each node's label mass from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .nodes import TreeNode

__all__ = ["COMBINE_RULES", "JointPool", "masked", "node_stats"]

COMBINE_RULES = ("inverse_variance", "mean")


class JointPool:
    """Pooled joint estimates ``Pr^{l, s}`` keyed by attribute combination (axes: label, sorted attrs).

    Groups are registered with :meth:`add_group` as *builders* that draw the group's
    reports and return its calibrated estimate -- either a dense array or the sparse
    form ``(flat indices, values, constant)`` meaning ``constant + values`` at the indices.
    A combination's estimate is built the first time it is needed, so the (often
    useless) reports on huge combinations cost nothing until a query uses them.

    :meth:`marginal` pools every stored superset of the requested combination: the
    marginal of an unbiased estimate is unbiased; its per-cell variance grows with the
    number of cells summed, so with ``combine="inverse_variance"`` a superset's weight
    is its groups' total weight ``Σ n (p-q)^2/(q(1-q))`` divided by that number, and
    supersets with less than ``min_share`` of the best weight are skipped (they would
    change the pooled value by a negligible amount).  ``combine="mean"`` averages
    groups and supersets with equal weights (the paper's plain average).
    """

    def __init__(
        self, sizes: Sequence[int], m_label: int, combine: str = "inverse_variance", min_share: float = 0.01
    ) -> None:
        if combine not in COMBINE_RULES:
            raise ValueError(f"combine must be one of {COMBINE_RULES}, got {combine!r}")
        self.sizes = tuple(int(s) for s in sizes)
        self.m_label = int(m_label)
        self.combine = combine
        self.min_share = float(min_share)
        self._pending: dict[tuple, list] = {}
        self._sum: dict[tuple, np.ndarray] = {}
        self._w: dict[tuple, float] = {}
        self._cache: dict[tuple, np.ndarray | None] = {}

    def shape(self, attrs: tuple) -> tuple:
        return (self.m_label,) + tuple(self.sizes[a] for a in attrs)

    def add_group(self, attrs: tuple, weight: float, builder: Callable[[], Any]) -> None:
        """Register one group's estimate of ``attrs`` with inverse-variance ``weight``."""
        w = float(weight) if self.combine == "inverse_variance" else 1.0
        self._pending.setdefault(attrs, []).append((w, builder))
        self._w[attrs] = self._w.get(attrs, 0.0) + w
        self._cache.clear()

    def add(self, attrs: tuple, estimate: np.ndarray, weight: float) -> None:
        """Register an already computed dense estimate."""
        est = np.asarray(estimate, dtype=float)
        self.add_group(attrs, weight, lambda: est)

    def _materialise(self, attrs: tuple) -> np.ndarray:
        pending = self._pending.pop(attrs, [])
        if pending:
            total = self._sum.get(attrs)
            if total is None:
                total = np.zeros(self.shape(attrs))
            flat = total.reshape(-1)
            for w, build in pending:
                part = build()
                if isinstance(part, tuple):
                    idx, vals, const = part
                    flat += w * const
                    np.add.at(flat, idx, w * vals)
                else:
                    flat += w * np.asarray(part, dtype=float).reshape(-1)
            self._sum[attrs] = total
        return self._sum[attrs] / self._w[attrs]

    def combinations(self) -> list[tuple]:
        return list(self._w)

    def marginal(self, attrs: tuple) -> np.ndarray | None:
        """Estimate over ``attrs`` (sorted tuple) pooled from the stored supersets; ``None`` if none."""
        if attrs in self._cache:
            return self._cache[attrs]
        cands = []
        for key, wk in self._w.items():
            if set(attrs) <= set(key):
                drop = tuple(1 + j for j, a in enumerate(key) if a not in attrs)
                cells = int(np.prod([self.sizes[key[j - 1]] for j in drop])) if drop else 1
                eff = wk / cells if self.combine == "inverse_variance" else 1.0
                cands.append((eff, key, drop))
        if not cands:
            self._cache[attrs] = None
            return None
        top = max(c[0] for c in cands)
        acc, wsum = None, 0.0
        for eff, key, drop in cands:
            if eff < self.min_share * top:
                continue
            est = self._materialise(key)
            marg = est.sum(axis=drop) if drop else est
            acc = eff * marg if acc is None else acc + eff * marg
            wsum += eff
        result = acc / wsum
        self._cache[attrs] = result
        return result


def masked(J: np.ndarray, attrs: tuple, constraints: tuple) -> np.ndarray:
    """Zero the cells of the raw estimate ``J`` (axes: label, attrs) that violate the path constraints."""
    out = J
    for a, v, eq in constraints:
        ax = 1 + attrs.index(a)
        mask = np.arange(out.shape[ax]) == v
        if not eq:
            mask = ~mask
        shape = [1] * out.ndim
        shape[ax] = -1
        out = out * mask.reshape(shape)
    return out


def node_stats(pool: JointPool, node: TreeNode, t: int) -> tuple[dict[int, np.ndarray], np.ndarray | None]:
    """Label mass of the node per value of every attribute, from the pooled estimates.

    Masks and sums act on the raw (unbiased) estimates; only the final small tables are
    clipped at 0.  Clipping cell by cell before summing would add the positive part of
    the noise of every summed cell, a bias that grows with the size of the combination.
    """
    P = tuple(sorted(node.path_attrs))
    base = pool.marginal(P)
    totals = None
    if base is not None:
        totals = np.clip(masked(base, P, node.constraints).reshape(pool.m_label, -1).sum(axis=1), 0, None)
    stats = {}
    for c in range(t):
        S = tuple(sorted(set(P) | {c}))
        J = pool.marginal(S)
        if J is None:
            continue
        M = masked(J, S, node.constraints)
        ax = 1 + S.index(c)
        other = tuple(i for i in range(1, M.ndim) if i != ax)
        stats[c] = np.clip(M.sum(axis=other) if other else M, 0, None)
    if totals is None and stats:
        totals = next(iter(stats.values())).sum(axis=1)
    return stats, totals
