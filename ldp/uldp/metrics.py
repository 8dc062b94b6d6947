"""Error measures of Yin et al. (2023, Sec. 7.2) and their exact expectations.

* ``ED`` (Eq. (59)) — called a Euclidean distance in the paper but normalised by
  the number of cells, so it is the root mean squared error over the
  ``|X|·|Y|`` cells of the joint distribution;
* the un-normalised Euclidean distance ``‖f − f̂‖₂ = ED · √(|X||Y|)`` — the paper's
  few absolute numbers fit this one better (see the experiments notebook);
* ``MSE`` as printed in Eq. (60), ``(1/N) Σ (f − f̂)²`` (``N`` users, probably a typo
  for the number of cells), and the per-cell mean squared error.

:func:`expected_ed` gives ``sqrt(E[ED²])`` exactly from a mechanism's per-cell
expected squared error; ``E[ED]`` is slightly smaller (Jensen's inequality).
Arguments come in the order of :mod:`ldp.metrics`: estimate first, truth second.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import metrics as _metrics
from .mechanism import ChannelMechanism

__all__ = ["ed", "euclidean", "mse_cells", "mse_eq60", "expected_ed", "expected_euclidean"]


def ed(f_hat: Any, f_true: Any) -> float:
    """Eq. (59): ``sqrt(Σ_ij (f_ij − f̂_ij)² / (|X|·|Y|))`` — :func:`ldp.metrics.rmse` over the cells."""
    return _metrics.rmse(f_hat, f_true)


def euclidean(f_hat: Any, f_true: Any) -> float:
    """Un-normalised Euclidean distance ``sqrt(Σ_ij (f_ij − f̂_ij)²) = ED · sqrt(|X||Y|)``."""
    return float(np.sqrt(_metrics.mse(f_hat, f_true) * np.size(f_true)))


def mse_cells(f_hat: Any, f_true: Any) -> float:
    """Mean squared error over cells, ``Σ (f − f̂)² / (|X||Y|)`` (= ED²; :func:`ldp.metrics.mse`)."""
    return _metrics.mse(f_hat, f_true)


def mse_eq60(f_hat: Any, f_true: Any, n_users: int) -> float:
    """Eq. (60) exactly as printed: ``(1/N) Σ (f − f̂)²`` with ``N`` the number of users."""
    from .._checks import check_int

    n_users = check_int(n_users, "n_users", minimum=1)
    return _metrics.mse(f_hat, f_true) * np.size(f_true) / n_users


def expected_ed(mechanism: ChannelMechanism, f: Any, n: int) -> float:
    """``sqrt(E[ED²]) = sqrt(mean_ij E[(f̂_ij − f_ij)²])``, exact (variance plus squared bias)."""
    return float(np.sqrt(np.mean(mechanism.expected_squared_error(n=n, f=f))))


def expected_euclidean(mechanism: ChannelMechanism, f: Any, n: int) -> float:
    """``sqrt(E[‖f̂ − f‖²])``, exact."""
    return float(np.sqrt(np.sum(mechanism.expected_squared_error(n=n, f=f))))
