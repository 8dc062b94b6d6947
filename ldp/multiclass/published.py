"""The authors' evaluation quirks behind the HEC and PTJ curves of Fig. 6, as explicit models.

We model three differences between the paper's evaluation
scripts and a correct implementation, for the frequency-estimation experiment:

* **PTJ**: when the adaptive choice picks GRR for the joint domain of ``c·d`` values,
  the estimate is calibrated with the GRR ``p, q`` *of the item domain* ``d``; the
  estimate is then biased.
* **HEC**: (a) the estimate of group ``j`` is scaled by the number of feature groups
  ``F`` instead of by ``c``; (b) every group's estimate is scored on all ``c·d``
  cells, so the cells of the classes the group does not mine enter the RMSE with the
  "estimate" ``F·(0 - N_j q)/(p - q)``; (c) the GRR branch calibrates with the ``p, q``
  of ``d`` values although the oracle runs over ``d + 1`` (dummy item).

This module reproduces those computations (``*_estimate``, applied to the same
tallies as the correct estimators) and their expected squared errors in closed form
(``*_mse``: variance plus squared bias), so the experiments notebook can show that
these quirks, not the frameworks, produce the paper's HEC and PTJ curves.  We did not
see the scripts when writing these models; they are checked by how
well they reproduce the published curves.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import check_int
from ..oracles import GRR
from .frameworks import HEC, PTJ, Tallies, check_table
from .variance import hec_variance

__all__ = ["ptj_as_published_estimate", "ptj_as_published_mse", "hec_as_published_estimate", "hec_as_published_mse"]


def _calibration_pq(oracle: Any, d_claimed: int) -> tuple[float, float]:
    """``p, q`` used by the script: GRR's for ``d_claimed`` values when the oracle is GRR, else the oracle's."""
    if isinstance(oracle, GRR):
        g = GRR(oracle.epsilon, max(2, d_claimed))
        return g.p, g.q
    return oracle.p, oracle.q


def ptj_as_published_estimate(framework: PTJ, tallies: Tallies) -> np.ndarray:
    """PTJ estimate calibrated as in the authors' script (GRR ``p, q`` of ``d`` instead of ``c·d``)."""
    p, q = _calibration_pq(framework.oracle, framework.d)
    return (tallies.pair - tallies.N * q) / (p - q)


def ptj_as_published_mse(table: Any, epsilon: float) -> np.ndarray:
    """Expected squared error of :func:`ptj_as_published_estimate` for every cell (variance + bias^2)."""
    tab = check_table(table).astype(float)
    c, d = tab.shape
    F = PTJ(epsilon, c, d)
    p_true, q_true = F.oracle.p, F.oracle.q
    p, q = _calibration_pq(F.oracle, d)
    N = tab.sum()
    mean = (tab * p_true + (N - tab) * q_true - N * q) / (p - q)
    var = (tab * p_true * (1 - p_true) + (N - tab) * q_true * (1 - q_true)) / (p - q) ** 2
    return var + (mean - tab) ** 2


def hec_as_published_estimate(framework: HEC, tallies: Tallies, n_features: int) -> np.ndarray:
    """The script's HEC estimates: shape ``(c, c, d)``, group ``j``'s estimate of every cell.

    Row ``j`` of ``tallies.pair`` is group ``j``'s support count for class ``j``; for the other
    classes the group has no count, which the script treats as 0.
    """
    n_features = check_int(n_features, "n_features", minimum=1)
    if tallies.group is None:
        raise ValueError("HEC tallies need the group sizes (tallies.group)")
    c, d = framework.c, framework.d
    p, q = _calibration_pq(framework.oracle, d)
    out = np.empty((c, c, d))
    for j in range(c):
        counts = np.zeros((c, d))
        counts[j] = tallies.pair[j]
        out[j] = n_features * (counts - tallies.group[j] * q) / (p - q)
    return out


def hec_as_published_mse(table: Any, epsilon: float, n_features: int) -> np.ndarray:
    """Expected squared error of :func:`hec_as_published_estimate` against the true table, shape ``(c, c, d)``."""
    n_features = check_int(n_features, "n_features", minimum=1)
    tab = check_table(table).astype(float)
    c, d = tab.shape
    F = HEC(epsilon, c, d)
    p_true, q_true = F.oracle.p, F.oracle.q
    p, q = _calibration_pq(F.oracle, d)
    N = tab.sum()
    Nj = F.group_sizes(int(N)).astype(float)
    # variance of group j's support count for its own class, from the exact HEC variance (which is
    # (N/N_j)^2 Var(f~)/(p_true - q_true)^2 in the dummy-item setting)
    var_support = hec_variance(tab, epsilon) * (Nj[:, None] / N) ** 2 * (p_true - q_true) ** 2
    out = np.empty((c, c, d))
    for j in range(c):
        mean_support = (Nj[j] / N) * tab[j] * (p_true - q_true) + Nj[j] * q_true
        for C in range(c):
            if C == j:
                mean = n_features * (mean_support - Nj[j] * q) / (p - q)
                var = n_features ** 2 * var_support[j] / (p - q) ** 2
            else:
                mean = np.full(d, -n_features * Nj[j] * q / (p - q))
                var = np.zeros(d)
            out[j, C] = var + (mean - tab[C]) ** 2
    return out
