"""Small summaries the multi-class chapters compute from their runs and closed forms.

Each function does one thing the notebooks used to define inline:

* :func:`flipped_share` -- among users reporting a class under GRR, the share whose label flipped;
* :func:`first_c_beating_hec` -- the smallest number of equal classes at which a framework's exact
  variance drops below HEC's;
* :func:`boundary_ties` -- classes whose k-th and (k+1)-th counts tie (where the tie rule matters);
* :func:`zero_drop_inflation` -- how much dropping trials with F1 = 0 (the authors' averaging)
  would raise a mean;
* :func:`mean_relative_gain` -- the average relative improvement of one method over another;
* :func:`pooled_se` -- a standard error pooled over the points of a curve;
* :func:`peak_in_range` -- whether a curve's best point lies in a range, and falls away from it,
  beyond the noise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..oracles import GRR
from . import variance as V

__all__ = [
    "flipped_share",
    "first_c_beating_hec",
    "boundary_ties",
    "zero_drop_inflation",
    "mean_relative_gain",
    "pooled_se",
    "peak_in_range",
]


def flipped_share(epsilon1: float, sizes: Any) -> np.ndarray:
    """Among users reporting class ``C`` (GRR with ``epsilon1`` over ``len(sizes)`` labels), the share not in ``C``."""
    n = np.asarray(sizes, dtype=float)
    if n.ndim != 1 or n.size < 2 or np.any(~np.isfinite(n)) or np.any(n < 0) or n.sum() <= 0:
        raise ValueError(f"sizes must be >= 2 non-negative class sizes with a positive total, got {sizes!r}")
    g = GRR(epsilon1, n.size)
    own, other = n * g.p, (n.sum() - n) * g.q
    return other / (own + other)


def first_c_beating_hec(
    variance: Callable[[np.ndarray, float], float], epsilon: float, *, c_max: int = 60, d: int = 50, per_cell: int = 200
) -> int | None:
    """Smallest ``c`` in ``2..c_max`` at which ``variance(table, ε)`` is below HEC's exact variance, else None.

    The table has ``c`` equal classes, ``d`` items and ``per_cell`` users in every cell;
    ``variance`` returns the variance of the estimate of cell (0, 0).
    """
    if not callable(variance):
        raise TypeError(f"variance must be callable, got {type(variance).__name__}")
    if isinstance(c_max, bool) or not isinstance(c_max, (int, np.integer)) or c_max < 2:
        raise ValueError(f"c_max must be an integer >= 2, got {c_max!r}")
    for c in range(2, int(c_max) + 1):
        tab = np.full((c, d), per_cell)
        if variance(tab, epsilon) < V.hec_variance(tab, epsilon)[0, 0]:
            return c
    return None


def boundary_ties(table: Any, k: int) -> int:
    """Number of classes (rows) whose k-th and (k+1)-th largest counts are equal."""
    s = -np.sort(-np.asarray(table), axis=1)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < s.shape[1]:
        raise ValueError(f"k must be an integer in [1, {s.shape[1] - 1}], got {k!r}")
    return int(np.sum(s[:, k - 1] == s[:, k]))


def zero_drop_inflation(runs: pd.DataFrame, by: list[str], value: str = "f1") -> tuple[float, float]:
    """Share of trials with ``value == 0``, and the largest rise of a group mean if they were dropped.

    Groups all of whose trials are 0 have no mean after dropping and are left out of the maximum.
    """
    mean_all = runs.groupby(by)[value].mean()
    mean_kept = runs[runs[value] > 0].groupby(by)[value].mean().reindex(mean_all.index)
    rise = (mean_kept - mean_all).max()
    return float((runs[value] == 0).mean()), float(0.0 if pd.isna(rise) else rise)


def mean_relative_gain(
    means: pd.DataFrame, better: str, base: str, se: pd.DataFrame | None = None
) -> tuple[float, float]:
    """Mean over the rows of ``means[better] / means[base] - 1``, and its standard error.

    Rows with a zero base are skipped.  ``se`` holds the standard errors of ``means``
    (same shape); the error of each ratio follows from the delta method, the rows being
    independent.  Without ``se`` the standard error is NaN.
    """
    b = means[base]
    keep = b > 0
    if not keep.any():
        return float("nan"), float("nan")
    ratio = means.loc[keep, better] / b[keep]
    gain = float((ratio - 1).mean())
    if se is None:
        return gain, float("nan")
    rel = np.sqrt(
        (se.loc[keep, better] / means.loc[keep, better].where(means.loc[keep, better] > 0)) ** 2
        + (se.loc[keep, base] / b[keep]) ** 2
    )
    return gain, float(np.sqrt(np.nansum((ratio * rel) ** 2)) / keep.sum())


def pooled_se(std: Any, trials: int) -> float:
    """Standard error of one point of a curve from the trial-to-trial spread pooled over its points.

    ``sqrt(mean(std²) / trials)``: with a few trials per point the per-point spreads are
    unreliable, while the spread varies little along a curve.
    """
    s = np.asarray(std, dtype=float)
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ValueError(f"trials must be an integer >= 1, got {trials!r}")
    return math.sqrt(float(np.nanmean(s**2)) / trials)


def peak_in_range(curve: pd.Series, se: float, lo: float, hi: float, *, z: float = 2.0) -> bool:
    """True if no point outside ``[lo, hi]`` beats the best point inside by more than ``z`` SE of a
    difference, and at least one end of the curve lies below that best point by more than that.

    ``curve`` is indexed by the x values; ``se`` is the standard error of one point.
    """
    x = curve.index.to_numpy(dtype=float)
    inside = (x >= lo - 1e-9) & (x <= hi + 1e-9)
    if not inside.any():
        raise ValueError(f"no point of the curve lies in [{lo}, {hi}]")
    best = float(curve[inside].max())
    gap = z * math.sqrt(2) * se
    beaten = bool((curve[~inside] - best > gap).any())
    falls = bool(best - curve.iloc[0] > gap or best - curve.iloc[-1] > gap)
    return not beaten and falls
