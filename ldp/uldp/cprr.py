"""CPRR, Cartesian-product randomized response (Yin, Zhu & Zhang 2023, Sec. 5.2).

Every pair with at least one sensitive coordinate is treated as sensitive:
``S = (X_S×Y_S) ∪ (X_S×Y_N) ∪ (X_N×Y_S)``, ``d = |S| = k_x k_y − |X_N||Y_N|``, and
the protected outputs are the same cells ``S'``.  Then (Algorithm 3, Eqs. (33)-(35))

* an input in ``S`` keeps its cell with ``a' = e^ε/(e^ε + d − 1)`` and moves to
  each other cell of ``S'`` with ``b' = 1/(e^ε + d − 1)``;
* an (N,N) input keeps its cell with ``t' = (e^ε − 1)/(e^ε + d − 1)`` and moves to
  each cell of ``S'`` with ``b'``.

This is exactly uRR on the flattened product domain with sensitive set ``S``,
which is how it is implemented here (an :class:`~ldp.uldp.urr.URR` inside).
It therefore satisfies one-dimensional ULDP on the product domain, a stronger
property than Definition 3 asks for; conversely it does *not* satisfy the
"reveals y"/"reveals x" conditions 2 and 4 of Definition 3 as written, because
a report in ``W_P×V_I`` can come from inputs with different ``y``.

Estimator (Algorithm 4, with ``t'`` where the paper prints ``t``):
``f̂ = (c/N − b')/(a' − b')`` on ``S'`` and ``f̂ = c/(N t')`` on ``W_I×V_I``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .joint import JointMechanism
from .model import ULDPModel2D
from .urr import URR

__all__ = ["CPRR"]


class CPRR(JointMechanism):
    """Cartesian-product randomized response on a :class:`ULDPModel2D`.

    Parameters
    ----------
    epsilon : float
        Privacy budget (any ε > 0; CPRR has no minimum).
    model : ULDPModel2D
        Needs at least two cells.

    Attributes
    ----------
    flat : URR
        The equivalent uRR on the ``k_x k_y`` flat cells with sensitive set ``S``.
    """

    name = "CPRR"

    def __init__(self, epsilon: float, model: ULDPModel2D) -> None:
        super().__init__(epsilon, model)
        if model.n_cells < 2:
            raise ValueError(f"CPRR needs at least 2 cells, got the model {model!r}")
        self.flat = URR(self.epsilon, model.n_cells, model.sensitive_cells())

    @property
    def d(self) -> int:
        """``|S|``, the number of cells with a sensitive coordinate."""
        return self.flat.s

    @property
    def a_prime(self) -> float:
        return self.flat.keep_sensitive

    @property
    def b_prime(self) -> float:
        return self.flat.to_protected

    @property
    def t_prime(self) -> float:
        return self.flat.keep_nonsensitive

    def channel(self) -> np.ndarray:
        return self.flat.channel()

    def output_table(self) -> pd.DataFrame:
        """The channel by case (the table of Algorithm 3)."""
        d, K = self.d, self.n_cells
        rows = [
            ("1-3 (in S)", "(x, y) itself", "a'", self.a_prime, 1),
            ("1-3 (in S)", "other cell of S'", "b'", self.b_prime, d - 1),
            ("4 (N,N)", "cell of S'", "b'", self.b_prime, d),
            ("4 (N,N)", "(x, y) itself", "t'", self.t_prime, 1),
        ]
        df = pd.DataFrame(rows, columns=["case", "output", "symbol", "probability", "how many"])
        keep = [
            (c.startswith("1") and d > 0 and k > 0) or (c.startswith("4") and d < K and k > 0)
            for c, k in zip(df["case"], df["how many"])
        ]
        return df[keep].reset_index(drop=True)

    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        """Algorithm 4 (corrected): the uRR estimator on the flat cells."""
        return self._shaped(self.flat.estimate_from_frequencies(self._report_freq(report_freq)))

    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact variance: Eq. (56) on ``S'``; ``f(1−t')/(N t')`` on ``W_I×V_I`` (Eq. (57) as printed is wrong)."""
        n = self._n(n)
        return self._shaped(self.flat.variance(n, self._flat(f, "f")))
