"""Tree nodes, the Gini split of Eqs. (11)-(12) of Xue et al., the stop rules of Sec. 6.1, and routing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TreeNode", "gini", "best_split", "decide", "route"]


@dataclass
class TreeNode:
    """One node: a test ``X[:, attr] == value`` with ``yes``/``no`` children, or a leaf."""

    depth: int
    constraints: tuple = ()  # ((attr, value, is_equal), ...) from the root down
    attr: int | None = None
    value: int | None = None
    yes: TreeNode | None = None
    no: TreeNode | None = None
    dist: np.ndarray | None = None  # class distribution of a leaf (clipped estimates, normalised)
    decided: bool = False

    @property
    def is_leaf(self) -> bool:
        return self.decided and self.attr is None

    @property
    def path_attrs(self) -> frozenset:
        return frozenset(a for a, _, _ in self.constraints)

    def make_leaf(self, totals: np.ndarray | None, fallback: np.ndarray) -> None:
        t = np.clip(np.asarray(totals, dtype=float), 0, None) if totals is not None else None
        self.dist = t / t.sum() if t is not None and t.sum() > 0 else fallback
        self.attr = self.value = None
        self.decided = True

    def iter_nodes(self):
        yield self
        for child in (self.yes, self.no):
            if child is not None:
                yield from child.iter_nodes()

    @property
    def max_depth(self) -> int:
        return max(nd.depth for nd in self.iter_nodes() if nd.is_leaf)


def gini(totals: np.ndarray) -> float:
    """Gini impurity ``1 - Σ p_l^2`` of a label-mass vector (0 for an empty node)."""
    s = totals.sum()
    return float(1 - np.sum((totals / s) ** 2)) if s > 0 else 0.0


def best_split(stats: dict[int, np.ndarray], totals: np.ndarray) -> tuple[float, int | None, int | None]:
    """Eqs. (11)-(12): the (Gini, attribute, value) minimising the weighted Gini of a yes/no split.

    ``stats[c]`` is the non-negative ``(m_label, m_c)`` table of the node's label mass per value
    of attribute ``c``.  Splits with an empty side are skipped.
    """
    best = (np.inf, None, None)
    for c, M in stats.items():
        yes = M
        no = M.sum(axis=1, keepdims=True) - M
        n_yes, n_no = yes.sum(axis=0), no.sum(axis=0)
        ok = (n_yes > 1e-12) & (n_no > 1e-12)
        if not np.any(ok):
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            tot = n_yes + n_no
            g = (n_yes / tot) * (1 - np.sum((yes / n_yes) ** 2, axis=0)) + (n_no / tot) * (
                1 - np.sum((no / n_no) ** 2, axis=0)
            )
        g = np.where(ok, g, np.inf)
        v = int(np.argmin(g))
        if g[v] < best[0]:
            best = (float(g[v]), int(c), v)
    return best


def decide(
    node: TreeNode, stats: dict[int, np.ndarray], totals: np.ndarray | None, dep: int, fallback: np.ndarray
) -> list[TreeNode]:
    """Split ``node`` or make it a leaf (Sec. 6.1 stop rules); return the new undecided children."""
    if totals is None or totals.sum() <= 1e-12 or not stats:
        node.make_leaf(totals, fallback)
        return []
    g, c, v = best_split(stats, totals)
    if c is None or g >= gini(totals) - 1e-12:
        node.make_leaf(totals, fallback)
        return []
    node.attr, node.value, node.decided = c, v, True
    node.yes = TreeNode(node.depth + 1, node.constraints + ((c, v, True),))
    node.no = TreeNode(node.depth + 1, node.constraints + ((c, v, False),))
    if node.depth >= dep:
        M = stats[c]
        here = totals / totals.sum()
        node.yes.make_leaf(M[:, v], here)
        node.no.make_leaf(M.sum(axis=1) - M[:, v], here)
        return []
    return [node.yes, node.no]


def route(node: TreeNode, codes: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out[rows]`` the class distribution of the leaf each row of ``codes`` reaches."""
    if node.is_leaf or not node.decided:
        out[rows] = node.dist if node.dist is not None else 0
        return
    hit = codes[rows, node.attr] == node.value
    route(node.yes, codes, rows[hit], out)
    route(node.no, codes, rows[~hit], out)
