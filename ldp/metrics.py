"""Error and accuracy metrics shared by the chapters.

Vector metrics (:func:`mse`, :func:`rmse`, :func:`mae`, :func:`l1`, :func:`linf`,
:func:`total_variation`, :func:`avd`, :func:`kl_divergence`) compare an
estimate with the truth entry by entry; both must have the same shape (no
broadcasting, so a transposed or truncated array is an error rather than a
silently wrong number).  Set metrics (:func:`f1_topk`, :func:`ncr`) score a
mined top-k list against the true one as Mao et al. define them, and
:func:`misclassification_rate` compares labels.

Every metric takes the estimate first and the truth second: ``metric(estimate, truth)``
(``f1_topk(found, truth)``, ``misclassification_rate(y_pred, y_true)``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np

__all__ = [
    "mse",
    "rmse",
    "mae",
    "l1",
    "linf",
    "total_variation",
    "avd",
    "kl_divergence",
    "f1_topk",
    "ncr",
    "misclassification_rate",
]


def _pair(estimate: Any, truth: Any, names: tuple[str, str] = ("estimate", "truth")) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for name, v in zip(names, (estimate, truth)):
        arr = np.asarray(v)
        if (
            arr.dtype == object
            or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool)
            or np.iscomplexobj(arr)
        ):
            raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
        arr = arr.astype(float)
        if arr.size == 0:
            raise ValueError(f"{name} is empty")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must contain only finite values")
        out.append(arr)
    a, b = out
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have the same shape, got {a.shape} and {b.shape}")
    return a, b


def mse(estimate: Any, truth: Any) -> float:
    """Mean squared error over all entries: ``mean((estimate - truth)^2)``."""
    a, b = _pair(estimate, truth)
    return float(np.mean((a - b) ** 2))


def rmse(estimate: Any, truth: Any) -> float:
    """Root mean squared error over all entries (Mao et al. use it on raw counts)."""
    return float(np.sqrt(mse(estimate, truth)))


def mae(estimate: Any, truth: Any) -> float:
    """Mean absolute error over all entries."""
    a, b = _pair(estimate, truth)
    return float(np.mean(np.abs(a - b)))


def l1(estimate: Any, truth: Any) -> float:
    """L1 distance: ``sum |estimate - truth|``."""
    a, b = _pair(estimate, truth)
    return float(np.sum(np.abs(a - b)))


def linf(estimate: Any, truth: Any) -> float:
    """L-infinity distance: ``max |estimate - truth|``."""
    a, b = _pair(estimate, truth)
    return float(np.max(np.abs(a - b)))


def total_variation(p: Any, q: Any) -> float:
    """Total variation distance ``½ sum |p - q|`` (for distributions it lies in [0, 1]).

    The inputs are not required to be normalised (so raw estimates can be
    scored), but the [0, 1] range only holds for distributions.
    """
    a, b = _pair(p, q, ("p", "q"))
    return 0.5 * float(np.sum(np.abs(a - b)))


def avd(estimated_joint: Any, true_joint: Any) -> float:
    """Average variation distance of LoPub (Eq. (32) of Ren et al.).

    ``Dist_AVD(P, Q) = ½ sum_ω |P(ω) - Q(ω)|`` summed over the *whole* product
    domain of the k chosen attributes, where P is the estimated joint
    distribution and Q the empirical joint of the original records.  It is the
    total variation distance (despite the name nothing is averaged over cells;
    the paper averages it over attribute combinations and runs).  Joint tables
    may be passed as k-dimensional arrays; all cells are summed.
    """
    return total_variation(estimated_joint, true_joint)


def kl_divergence(p: Any, q: Any, *, base: float | None = None) -> float:
    """Kullback–Leibler divergence ``sum p log(p/q)`` between two distributions.

    Terms with ``p = 0`` contribute 0; a cell with ``p > 0 = q`` makes the
    divergence ``inf``.  Both inputs must be non-negative and sum to 1 within
    1e-6.  Natural logarithm unless ``base`` is given.
    """
    a, b = _pair(p, q, ("p", "q"))
    for name, arr in (("p", a), ("q", b)):
        if np.any(arr < 0):
            raise ValueError(f"{name} must be non-negative")
        if abs(arr.sum() - 1.0) > 1e-6:
            raise ValueError(f"{name} must sum to 1 (within 1e-6), got {arr.sum()!r}")
    if base is not None and not (np.isfinite(base) and base > 0 and base != 1):
        raise ValueError(f"base must be a positive number other than 1, got {base!r}")
    pos = a > 0
    if np.any(b[pos] == 0):
        return float("inf")
    val = float(np.sum(a[pos] * np.log(a[pos] / b[pos])))
    return val / float(np.log(base)) if base is not None else val


def _items(items: Any, name: str) -> list[Hashable]:
    if isinstance(items, (str, bytes)) or not isinstance(items, (Iterable, np.ndarray)):
        raise TypeError(f"{name} must be a list/array of items, got {type(items).__name__}")
    arr = items.tolist() if isinstance(items, np.ndarray) else list(items)
    for it in arr:
        if not isinstance(it, Hashable):
            raise TypeError(f"{name} must contain hashable items, got {type(it).__name__}")
    return arr


def f1_topk(found_items: Any, true_items: Any) -> float:
    """F1 score of a mined top-k set (Mao et al., Sec. VII-B).

    ``precision = |found ∩ truth| / |found|`` and ``recall = |found ∩ truth| / k``
    with ``k = |truth|``; F1 is their harmonic mean.  When the mined set has
    exactly k items precision = recall = F1.  An empty result scores 0 (as in
    the authors' code).  Both arguments are treated as sets; the true list must
    be non-empty and without repeats.
    """
    truth = _items(true_items, "true_items")
    found = set(_items(found_items, "found_items"))
    if not truth:
        raise ValueError("true_items is empty: the true top-k needs at least one item")
    if len(set(truth)) != len(truth):
        raise ValueError("true_items contains repeated items")
    if not found:
        return 0.0
    hit = len(found & set(truth))
    if hit == 0:
        return 0.0
    precision, recall = hit / len(found), hit / len(truth)
    return 2 * precision * recall / (precision + recall)


def ncr(found: Any, true_ranked: Any) -> float:
    """Normalised cumulative rank of a mined set (Mao et al., Sec. VII-B).

    With ``k = len(true_ranked)`` the true top-k in decreasing order of
    frequency, item ``true_ranked[j]`` (0-based) has score ``q = k - j`` (the top
    item k, the last 1) and every other item scores 0; then

        NCR = sum_{I in found} q(I) / (k (k + 1) / 2).

    How the definition is applied here:

    * ``found`` is a set: its order does not matter and a repeated item counts
      once, so NCR <= 1 with equality exactly when every true item is found.
    * A result of the wrong size is scored by the same formula: a shorter one
      loses the scores of the missing true items, a longer one gains nothing
      from its extra items (it is not penalised beyond that; F1 is).
    * Ties in the true frequencies are resolved by the caller when it builds
      ``true_ranked`` (the paper's code uses ``Counter.most_common(k)``, which
      keeps first-occurrence order among equal counts).

    Example: truth ``[a, b, c]``, found ``{a, c, x}`` gives (3 + 1)/6 = 2/3.
    """
    truth = _items(true_ranked, "true_ranked")
    mined = set(_items(found, "found"))
    if not truth:
        raise ValueError("true_ranked is empty: the true top-k needs at least one item")
    if len(set(truth)) != len(truth):
        raise ValueError("true_ranked contains repeated items")
    k = len(truth)
    score = sum(k - j for j, item in enumerate(truth) if item in mined)
    return score / (k * (k + 1) / 2)


def misclassification_rate(y_pred: Any, y_true: Any) -> float:
    """Fraction of positions where the predicted label differs from the true one (estimate first, as every metric)."""
    a, b = np.asarray(y_true), np.asarray(y_pred)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"y_true and y_pred must be one-dimensional, got shapes {a.shape} and {b.shape}")
    if a.size != b.size:
        raise ValueError(f"y_true and y_pred must have the same length, got {a.size} and {b.size}")
    if a.size == 0:
        raise ValueError("y_true is empty")
    return float(np.mean(a != b))
