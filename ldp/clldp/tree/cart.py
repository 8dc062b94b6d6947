"""One-shot CART from true attributes and (possibly perturbed) label supports: LabelDP and non-private trees."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .nodes import TreeNode, decide

__all__ = ["grow_from_counts"]


def grow_from_counts(
    X: np.ndarray, support: np.ndarray, sizes: Sequence[int], p: float, q: float, dep: int
) -> TreeNode:
    """Greedy CART from true attributes and (possibly perturbed) label supports.

    ``support`` is ``n x m_label`` (row ``i``: which labels user ``i``'s report supports);
    every node's label mass per attribute value is calibrated as
    ``(C - q n_a)/(p - q)`` and clipped at 0.  ``p = 1, q = 0`` with one-hot supports is
    the non-private tree; a subset-selection label report gives the LabelDP tree.
    """
    m_l = support.shape[1]
    root = TreeNode(1)
    prior = np.clip((support.sum(axis=0) - q * X.shape[0]) / (p - q), 0, None)
    fallback = prior / prior.sum() if prior.sum() > 0 else np.full(m_l, 1.0 / m_l)
    columns = np.ascontiguousarray(np.asarray(X).T)  # one contiguous array per attribute
    labels = np.arange(m_l)
    frontier = [(root, np.arange(X.shape[0]))]
    while frontier:
        node, rows = frontier.pop()
        stats = {}
        sup = support[rows].ravel()  # row-major: user by user, labels within a user
        for c, m_c in enumerate(sizes):
            col = columns[c][rows]
            # one weighted bincount over (value, label) cells; each cell still adds its users' weights
            # in row order from 0, so the sums are those of one bincount per label.  The table is made
            # C-contiguous (label rows) as np.stack made it: numpy's pairwise sums over a row, used
            # by the split search, depend on the memory layout, and a transposed view changes ties.
            cells = (col[:, None] * m_l + labels).ravel()
            C = np.ascontiguousarray(np.bincount(cells, weights=sup, minlength=m_c * m_l).reshape(m_c, m_l).T)
            n_a = np.bincount(col, minlength=m_c)
            stats[c] = np.clip((C - q * n_a[None, :]) / (p - q), 0, None)
        totals = stats[0].sum(axis=1) if stats else None
        for child in decide(node, stats, totals, dep, fallback):
            a, v, eq = child.constraints[-1]
            keep = (columns[a][rows] == v) if eq else (columns[a][rows] != v)
            frontier.append((child, rows[keep]))
    return root
