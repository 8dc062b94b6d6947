"""Synthesis of a new dataset from clique joints (Alg. 6 of Ren et al.).

The printed loop mutates the set it iterates over (erratum E10).  It is read
here as a breadth-first traversal of each component of the junction tree from
a randomly chosen root clique (line 3):

* the root's attributes are drawn i.i.d. from its estimated joint;
* every following clique ``D`` shares the attributes ``S = D & R`` with what is
  already sampled (with the running-intersection property, exactly its separator
  with the parent); its new attributes ``U = D - R`` are drawn from the
  conditional ``P_D(A_U | A_S = x_S)`` computed from the same joint.

Cliques are estimated independently, so a sampled separator value can have
probability 0 under the next clique's joint.  The fallback is the marginal
``P_D(A_U)`` (which always has positive mass); the number of rows that needed it
is reported.  Sampling is vectorised by grouping rows on their separator value.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import as_generator, check_int
from .junction import JunctionTree


@dataclass(frozen=True)
class SynthesisResult:
    """Synthetic codes ``(n, d)``, the clique visiting order and the fallback count."""

    codes: np.ndarray
    order: tuple[int, ...]
    fallback_rows: int


def _check_joint(p: Any, shape: tuple[int, ...], clique: Sequence[int]) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if p.shape != shape:
        raise ValueError(f"joint of clique {tuple(clique)} has shape {p.shape}, expected {shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or not p.sum() > 0:
        raise ValueError(f"joint of clique {tuple(clique)} must be finite, non-negative, with positive sum")
    return p / p.sum()


def _draw(gen: np.random.Generator, probs: np.ndarray, size: int) -> np.ndarray:
    """``size`` i.i.d. indices from ``probs`` by inverse CDF (one uniform per draw)."""
    cdf = np.cumsum(probs)
    cdf /= cdf[-1]
    return np.minimum(np.searchsorted(cdf, gen.random(size), side="right"), probs.size - 1)


def synthesize(
    tree: JunctionTree, domains: Sequence[int], joint_fn: Callable[[tuple[int, ...]], Any], n: int, rng: Any = None
) -> SynthesisResult:
    """Algorithm 6: ``n`` synthetic records over ``len(domains)`` attributes.

    Parameters
    ----------
    tree : JunctionTree
        Cliques and tree edges from :func:`ldp.lopub.junction.junction_tree`; must cover every attribute.
    domains : sequence of int
        ``|Omega_j|``.
    joint_fn : callable
        ``joint_fn(clique)`` returns the estimated joint of the clique's attributes (axes in
        the clique's order); called once per clique.
    n : int
        Number of records to synthesize (the paper uses ``N``).
    rng : Generator, int or None
    """
    n = check_int(n, "n", minimum=1)
    gen = as_generator(rng)
    d = len(domains)
    covered = set().union(*map(set, tree.cliques)) if tree.cliques else set()
    if covered != set(range(d)):
        missing = sorted(set(range(d)) - covered)
        raise ValueError(f"the cliques must cover every attribute; missing {missing}")
    out = np.full((n, d), -1, dtype=np.int64)
    sampled: set[int] = set()
    adjacency: dict[int, list[int]] = {i: [] for i in range(len(tree.cliques))}
    for a, b in tree.edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    remaining = set(range(len(tree.cliques)))
    order: list[int] = []
    fallback = 0
    while remaining:
        root = int(gen.choice(sorted(remaining)))
        queue = deque([root])
        while queue:
            ci = queue.popleft()
            if ci not in remaining:
                continue
            remaining.discard(ci)
            order.append(ci)
            clique = tree.cliques[ci]
            p = _check_joint(joint_fn(tuple(clique)), tuple(domains[a] for a in clique), clique)
            fallback += _sample_clique(gen, out, clique, p, sampled, domains)
            sampled.update(clique)
            queue.extend(j for j in adjacency[ci] if j in remaining)
    return SynthesisResult(out, tuple(order), fallback)


def _sample_clique(
    gen: np.random.Generator,
    out: np.ndarray,
    clique: Sequence[int],
    p: np.ndarray,
    sampled: set[int],
    domains: Sequence[int],
) -> int:
    """Fill the unsampled attributes of ``clique`` in ``out``; return the number of fallback rows."""
    n = out.shape[0]
    s_pos = [i for i, a in enumerate(clique) if a in sampled]
    u_pos = [i for i, a in enumerate(clique) if a not in sampled]
    if not u_pos:
        return 0
    u_attrs = [clique[i] for i in u_pos]
    u_shape = tuple(domains[a] for a in u_attrs)
    q = np.transpose(p, s_pos + u_pos)
    if not s_pos:
        flat = _draw(gen, q.ravel(), n)
        out[:, u_attrs] = np.column_stack(np.unravel_index(flat, u_shape))
        return 0
    s_attrs = [clique[i] for i in s_pos]
    s_shape = tuple(domains[a] for a in s_attrs)
    cond = q.reshape(int(np.prod(s_shape)), -1)
    mass = cond.sum(axis=1)
    marginal_u = cond.sum(axis=0)
    s_flat = np.ravel_multi_index(tuple(out[:, a] for a in s_attrs), s_shape)
    order = np.argsort(s_flat, kind="stable")
    values, starts, counts = np.unique(s_flat[order], return_index=True, return_counts=True)
    drawn = np.empty(n, dtype=np.int64)
    fallback = 0
    for v, st, c in zip(values, starts, counts):
        rows = order[st : st + c]
        if mass[v] > 0:
            drawn[rows] = _draw(gen, cond[v], c)
        else:
            drawn[rows] = _draw(gen, marginal_u, c)
            fallback += int(c)
    out[:, u_attrs] = np.column_stack(np.unravel_index(drawn, u_shape))
    return fallback
