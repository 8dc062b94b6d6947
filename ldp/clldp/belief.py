"""Where the adversarial belief ω comes from (Xue et al., Secs. 4.3 and 7.3).

Three sources, each producing, per attribute, a function ``k -> ω(k)``:

* **a sample of users** (the paper's Sec. 7.3): a fraction of the users (10%)
  is set aside; each reports one uniformly chosen attribute with its label by
  subset selection (``ε``-LDP, hence ``ε``-CLLDP for any correlation) on the
  product domain; the collector estimates each joint table, post-processes it
  into ``Pr{a | l}`` and evaluates Def. 5 for whatever ``k`` it needs
  (:func:`estimate_conditionals`).  The sampled users are disjoint from the
  users who later train the model, so nobody pays twice;
* **the truth** (the synthetic sets, where the generator is known, Sec. 7.2; and
  an oracle setting for experiments): :func:`true_conditionals`;
* **public knowledge**: a single number valid for every ``k`` (Sec. 4.3's
  "smoking is linked to 82% of lung-cancer cases" for ``k = 1``) or given tables.

A missing table (an attribute nobody in the sample reported) gives ``ω = 1``,
the conservative value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._checks import as_generator, check_epsilon
from ..oracles import SubsetSelection
from .omega import check_label_conditional, conditional_from_joint, omega_curve

__all__ = ["true_conditionals", "estimate_conditionals", "belief_functions"]

OmegaFn = Callable[[int], float]


def _check_table(X: Any, y: Any, sizes: Sequence[int], m_label: int) -> tuple[np.ndarray, np.ndarray]:
    Xa = np.asarray(X)
    ya = np.asarray(y)
    if Xa.ndim != 2 or Xa.shape[1] != len(sizes):
        raise ValueError(f"X must be an n x t matrix with t = len(sizes) = {len(sizes)}, got shape {Xa.shape}")
    if ya.shape != (Xa.shape[0],):
        raise ValueError(f"y must have one label per row of X ({Xa.shape[0]}), got shape {ya.shape}")
    if not (np.issubdtype(Xa.dtype, np.integer) and np.issubdtype(ya.dtype, np.integer)):
        raise TypeError("X and y must hold integer codes")
    if Xa.size and (Xa.min() < 0 or np.any(Xa.max(axis=0) >= np.asarray(sizes))):
        bad = int(np.flatnonzero((Xa.min(axis=0) < 0) | (Xa.max(axis=0) >= np.asarray(sizes)))[0])
        raise ValueError(
            f"column {bad} of X has codes outside 0..{sizes[bad] - 1} (sizes[{bad}] = {sizes[bad]}): "
            f"found {int(Xa[:, bad].min())}..{int(Xa[:, bad].max())}"
        )
    if ya.size and (ya.min() < 0 or ya.max() >= m_label):
        raise ValueError(
            f"y has codes outside 0..{m_label - 1} (m_label = {m_label}): found {int(ya.min())}..{int(ya.max())}"
        )
    return Xa.astype(np.int64), ya.astype(np.int64)


def true_conditionals(X: Any, y: Any, sizes: Sequence[int], m_label: int) -> list[np.ndarray]:
    """Empirical ``Pr{a^c | l}`` of every attribute (non-private; rows of absent labels are uniform)."""
    Xa, ya = _check_table(X, y, sizes, m_label)
    out = []
    for c, m in enumerate(sizes):
        counts = np.bincount(ya * m + Xa[:, c], minlength=m_label * m).reshape(m_label, m).astype(float)
        out.append(conditional_from_joint(counts))
    return out


def estimate_conditionals(
    X: Any, y: Any, sizes: Sequence[int], m_label: int, epsilon: float, rng: Any = None
) -> list[np.ndarray | None]:
    """Sec. 7.3: conditional tables estimated from users who report by subset selection.

    Each user picks one attribute uniformly at random (independently of her data)
    and reports ``(a^c, l)`` through SS with the full ``epsilon`` and subset size
    ``⌈m/(e^ε+1)⌉`` on the product domain ``m = m^c m^l``.  Tables are clipped at 0
    and row-normalised; an attribute that received no report gets ``None``.
    """
    eps = check_epsilon(epsilon)
    Xa, ya = _check_table(X, y, sizes, m_label)
    gen = as_generator(rng)
    group = gen.integers(0, len(sizes), size=Xa.shape[0])
    tables: list[np.ndarray | None] = []
    for c, m in enumerate(sizes):
        idx = np.flatnonzero(group == c)
        if idx.size == 0:
            tables.append(None)
            continue
        mech = SubsetSelection(eps, m * m_label, "ceil")
        counts = mech.perturb_and_count(ya[idx] * m + Xa[idx, c], gen)
        joint = mech.estimate_counts(counts, idx.size).reshape(m_label, m)
        tables.append(conditional_from_joint(joint))
    return tables


def belief_functions(source: Any, n_attributes: int) -> list[OmegaFn]:
    """Turn a belief source into one ``k -> ω(k)`` function per attribute.

    ``source`` is a float in (0, 1] (the same ω for every attribute and every k),
    or a sequence of conditional tables / ``None`` (one per attribute).
    """
    if isinstance(source, (int, float, np.floating)) and not isinstance(source, bool):
        w = float(source)
        if not 0 < w <= 1:
            raise ValueError(f"omega must lie in (0, 1], got {source!r}")
        return [lambda k, w=w: w for _ in range(n_attributes)]
    if isinstance(source, str) or not isinstance(source, Sequence) or len(source) != n_attributes:
        raise ValueError(f"omega must be a number in (0, 1] or a sequence of {n_attributes} conditional tables")
    fns: list[OmegaFn] = []
    for c, table in enumerate(source):
        if table is None:
            fns.append(lambda k: 1.0)
            continue
        t = check_label_conditional(table, f"omega[{c}]")
        fns.append(lambda k, t=t: float(omega_curve(t, np.array([k]))[0]))
    return fns
