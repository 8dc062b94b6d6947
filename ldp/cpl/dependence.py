"""Conventional dependence measures that the CPL paper compares CPL against (Section III-D, Fig. 5; GRF).

All functions take a joint contingency table (counts or probabilities) of two
label-encoded attributes, rows = one attribute, columns = the other.

* :func:`mutual_information` in nats;
* :func:`nmi_joint`, normalised by the *joint* entropy, ``I(X;Y)/H(X,Y)``: the only
  normalisation that reproduces the paper's NMI = 0.164 for the joint of
  Appendix K (sklearn's default arithmetic-mean normalisation
  gives 0.283 there);
* :func:`pcc_from_table`, Pearson's correlation of the integer *codes*
  ``0..m-1`` and ``0..t-1`` (PCC = 0.357 for Appendix K).

Both NMI and ``|PCC|`` are symmetric in the two attributes, whereas CPL is not
(observation OB1), which is one reason they cannot characterise it (OB3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["joint_distribution", "mutual_information", "joint_entropy", "nmi_joint", "pcc_from_table"]


def joint_distribution(table: Any) -> np.ndarray:
    """Normalise a non-negative 2-D table (counts or probabilities) to a joint distribution."""
    arr = np.asarray(table)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"table must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"table must be a non-empty 2-D matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("table must be finite and non-negative")
    total = arr.sum()
    if total <= 0:
        raise ValueError("table sums to 0")
    return arr / total


def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def joint_entropy(table: Any) -> float:
    """``H(X, Y)`` in nats."""
    return _entropy(joint_distribution(table).ravel())


def mutual_information(table: Any) -> float:
    """``I(X; Y) = H(X) + H(Y) - H(X, Y)`` in nats."""
    J = joint_distribution(table)
    return max(_entropy(J.sum(1)) + _entropy(J.sum(0)) - _entropy(J.ravel()), 0.0)


def nmi_joint(table: Any) -> float:
    """``I(X; Y) / H(X, Y)`` (0 when both attributes are constant)."""
    h = joint_entropy(table)
    return 0.0 if h == 0 else mutual_information(table) / h


def pcc_from_table(table: Any) -> float:
    """Pearson correlation of the row and column *codes* under the joint table (0 if one is constant)."""
    J = joint_distribution(table)
    xs = np.arange(J.shape[0], dtype=float)
    ys = np.arange(J.shape[1], dtype=float)
    px, py = J.sum(1), J.sum(0)
    mx, my = px @ xs, py @ ys
    vx, vy = px @ (xs - mx) ** 2, py @ (ys - my) ** 2
    if vx <= 0 or vy <= 0:
        return 0.0
    cov = (xs - mx) @ J @ (ys - my)
    return float(cov / np.sqrt(vx * vy))
