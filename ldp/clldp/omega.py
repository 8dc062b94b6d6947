"""Adversarial belief ω (Def. 5 of Xue et al.) and conditional tables Pr{s | l}.

A *conditional table* ``cond`` has one row per label ``l`` and one column per
value ``s_v`` of an attribute combination ``s``; row ``l`` is ``Pr{s_v | l}``.
Definition 5 of Xue et al. sets

    ω_s = max over outputs o and labels l of  Σ_{ν ∈ o_s} Pr{ν | l},

where ``o_s`` is the set of attribute values that output ``o`` names, whatever
label block the named bit sits in (footnote 2).  When every output names at
most ``K`` attribute values and every set of ``K`` values can be named (kHR
with ``K = k``; the basic solution with ``K = m^s`` because the all-ones vector
is a possible output), the maximum is reached by the ``K`` largest entries of
one row, so

    ω_s(K) = max_l  (sum of the min(K, m^s) largest entries of row l).

:func:`omega` evaluates this operational form, :func:`omega_curve` does it for
many ``K`` at once and :func:`omega_bruteforce` evaluates Definition 5 literally
by enumerating every kHR output (small domains only), which the tests use to
check the operational form.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from .._checks import check_domain_size, check_int, check_label_conditional
from ..estimate import clip_normalise

__all__ = ["check_label_conditional", "omega", "omega_curve", "omega_bruteforce", "conditional_from_joint"]

#: the largest number of kHR outputs :func:`omega_bruteforce` agrees to enumerate
MAX_ENUMERATED_OUTPUTS = 2_000_000


def omega_curve(cond: Any, ks: Any) -> np.ndarray:
    """ω_s(K) for every ``K`` in ``ks`` (operational form of Def. 5; see the module docstring).

    Parameters
    ----------
    cond : array_like, shape (m_label, m_s)
        Rows ``Pr{s_v | l}``.
    ks : int or array_like of int
        Numbers of attribute values an output may name, each >= 1.  Values above
        ``m_s`` give 1.

    Returns
    -------
    numpy.ndarray
        ω(K) for each K, same shape as ``np.asarray(ks)``; non-decreasing in K
        and at least ``min(K, m_s)/m_s``.
    """
    table = check_label_conditional(cond)
    k_arr = np.asarray(ks)
    if k_arr.dtype == object or not np.issubdtype(k_arr.dtype, np.integer):
        raise TypeError(f"ks must hold integers, got dtype {k_arr.dtype}")
    if k_arr.size and k_arr.min() < 1:
        raise ValueError(f"every K in ks must be >= 1, got {int(k_arr.min())}")
    m_s = table.shape[1]
    top = -np.sort(-table, axis=1)
    best = np.cumsum(top, axis=1).max(axis=0)  # best[j] = max_l mass of the j+1 largest entries
    best = np.minimum(best, 1.0)
    best[-1] = 1.0  # naming every value covers the whole row, whatever rounding says
    idx = np.minimum(k_arr, m_s) - 1
    return best[idx]


def omega(cond: Any, k: int = 1) -> float:
    """ω_s(k): the largest conditional mass one kHR output with ``k`` ones can name (Def. 5, Eq. (2)).

    Examples
    --------
    Table 1 of Xue et al.: ``omega(TABLE1, 1) = 0.77``, ``omega(TABLE1, 2) = 0.99``,
    ``omega(TABLE1, 3) = 1``.
    """
    k = check_domain_size(k, "k", minimum=1)
    return float(omega_curve(cond, np.array([k]))[0])


def omega_bruteforce(cond: Any, k: int) -> float:
    """Definition 5 evaluated literally over every kHR output on the Cartesian domain.

    Every k-subset of the ``m = m_label * m_s`` cells (index ``x = l * m_s + s_v``,
    our indexing) is an output; ``o_s`` is the set of attribute values of
    its cells.  Exponential: refused above :data:`MAX_ENUMERATED_OUTPUTS` outputs.
    """
    table = check_label_conditional(cond)
    m_l, m_s = table.shape
    m = m_l * m_s
    k = check_int(k, "k", minimum=1, maximum=m)
    if comb(m, k) > MAX_ENUMERATED_OUTPUTS:
        raise ValueError(
            f"omega_bruteforce would enumerate C({m}, {k}) = {comb(m, k)} outputs; "
            f"the limit is {MAX_ENUMERATED_OUTPUTS}"
        )
    best = 0.0
    seen: set[frozenset[int]] = set()
    for cells in combinations(range(m), k):
        named = frozenset(c % m_s for c in cells)
        if named in seen:
            continue
        seen.add(named)
        idx = np.fromiter(named, dtype=np.int64)
        best = max(best, float(table[:, idx].sum(axis=1).max()))
    return min(best, 1.0)


def conditional_from_joint(joint: Any, name: str = "joint") -> np.ndarray:
    """Post-process a (possibly negative) joint estimate ``Pr^{l, s}`` into a conditional table.

    Negative cells are clipped to 0 and each label row is rescaled to sum to 1; a
    row that is entirely <= 0 becomes uniform (nothing is known about it).  This
    is :func:`ldp.estimate.clip_normalise` applied per label row, the post-processing used for ω estimation and for
    Naive Bayes; it is never applied to the raw estimates whose error is measured.

    Parameters
    ----------
    joint : array_like, shape (m_label, m_s)
        Rows indexed by label, as returned by :meth:`ldp.clldp.KHR.estimate_joint`.
    """
    arr = np.asarray(joint)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D table (rows = labels), got shape {arr.shape}")
    return clip_normalise(arr)
