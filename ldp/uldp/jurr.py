"""JuRR, joint utility-optimised randomized response (Yin, Zhu & Zhang 2023, Sec. 5.1).

The user's pair ``(x, y)`` falls in one of four regions and is perturbed by a
region-specific rule (Algorithm 1, Eqs. (11)-(14)).  With ``s_x = |X_S|``,
``s_y = |Y_S|``, ``D = e^ε + s_x s_y − 1``, ``D_x = e^ε + s_x − 1``,
``D_y = e^ε + s_y − 1`` (Eqs. (15)-(20)):

* ``a = e^ε/D`` (keep an (S,S) pair), ``b = 1/D`` (land on a given cell of ``X_S×Y_S``);
* ``p = e^ε(e^ε−1)/(D D_x)`` keep an (S,N) pair; ``q = (e^ε−1)/(D D_x)`` move ``x``
  to a given sensitive value while keeping ``y``;
* ``m``, ``n``: the same as ``p``, ``q`` with ``D_y`` (an (N,S) pair keeps ``x``);
* ``t = 1 − s_x s_y b − s_x q − s_y n`` keep an (N,N) pair; in closed form
  ``t = (e^ε−1)((e^ε−1)² − s_x s_y) / (D D_x D_y)``.

``t > 0`` requires ``(e^ε − 1)² > s_x s_y`` (Eq. (21)), i.e.
``ε > ln(1 + √(s_x s_y))``.  The bound only matters when (N,N) pairs exist;
below it :class:`JuRR` raises ``ValueError`` (it never builds a channel with a
negative entry).

The estimator (Algorithm 2) is implemented in its corrected form, which equals
the channel inverse; see :mod:`ldp.uldp.errata` for the formulas as printed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._checks import check_epsilon, check_int
from .joint import JointMechanism
from .model import ULDPModel2D

__all__ = ["JuRRParameters", "jurr_parameters", "jurr_min_epsilon", "jurr_is_defined", "JuRR"]


@dataclass(frozen=True)
class JuRRParameters:
    """The probabilities of Eqs. (15)-(20) and their denominators."""

    a: float
    b: float
    p: float
    q: float
    m: float
    n: float
    t: float
    D: float
    Dx: float
    Dy: float


def jurr_parameters(epsilon: float, sx: int, sy: int) -> JuRRParameters:
    """JuRR's probabilities (Eqs. (15)-(20) of Yin et al.) for sensitive-set sizes ``sx``, ``sy``.

    ``t`` is returned even when it is ``<= 0`` (below :func:`jurr_min_epsilon`),
    so that the validity region can be plotted; :class:`JuRR` refuses such
    settings.  ``t`` uses the closed form, which is exact where Eq. (20) suffers
    cancellation.
    """
    epsilon = check_epsilon(epsilon)
    sx = check_int(sx, "sx", minimum=0)
    sy = check_int(sy, "sy", minimum=0)
    em1 = math.expm1(epsilon)  # e^eps - 1
    e = em1 + 1.0
    D, Dx, Dy = em1 + sx * sy, em1 + sx, em1 + sy
    return JuRRParameters(
        a=e / D,
        b=1.0 / D,
        p=(em1 / D) * (e / Dx),
        q=(em1 / D) / Dx,
        m=(em1 / D) * (e / Dy),
        n=(em1 / D) / Dy,
        t=em1 * (em1 * em1 - sx * sy) / (D * Dx * Dy),
        D=D,
        Dx=Dx,
        Dy=Dy,
    )


def jurr_min_epsilon(sx: int, sy: int) -> float:
    """``ln(1 + √(s_x s_y))``: JuRR needs a strictly larger ε when (N,N) pairs exist (Eq. (21))."""
    sx = check_int(sx, "sx", minimum=0)
    sy = check_int(sy, "sy", minimum=0)
    return math.log1p(math.sqrt(sx * sy))


def jurr_is_defined(epsilon: float, model: ULDPModel2D) -> bool:
    """True when JuRR exists at ``epsilon`` on ``model`` (no (N,N) cells, or ε above the minimum)."""
    epsilon = check_epsilon(epsilon)
    if model.x.n_nonsensitive == 0 or model.y.n_nonsensitive == 0:
        return True
    return epsilon > jurr_min_epsilon(model.sx, model.sy) and jurr_parameters(epsilon, model.sx, model.sy).t > 0


class JuRR(JointMechanism):
    """Joint utility-optimised randomized response on a :class:`ULDPModel2D`.

    Parameters
    ----------
    epsilon : float
        Privacy budget; when both attributes have non-sensitive values it must
        exceed ``ln(1 + √(|X_S||Y_S|))`` (else ``ValueError``).
    model : ULDPModel2D
        Sensitive sets may sit at any positions of the domains.

    Examples
    --------
    >>> m = JuRR(math.log(4), ULDPModel2D.first_sensitive(3, 3, 2, 2))
    >>> round(m.params.t * 35, 9)
    3.0
    """

    name = "JuRR"

    def __init__(self, epsilon: float, model: ULDPModel2D) -> None:
        super().__init__(epsilon, model)
        self.params = jurr_parameters(self.epsilon, model.sx, model.sy)
        if self.has_nn_cells and not jurr_is_defined(self.epsilon, model):
            lo = jurr_min_epsilon(model.sx, model.sy)
            raise ValueError(
                f"epsilon={epsilon!r} is not above JuRR's minimum ln(1+sqrt(|X_S||Y_S|)) = {lo:.5f} for "
                f"|X_S|={model.sx}, |Y_S|={model.sy}: the probability t of keeping a non-sensitive pair would "
                f"be {self.params.t:.3g} <= 0 (Eq. (21) of Yin et al. 2023); use epsilon > {lo:.5f}, or CPRR"
            )

    @property
    def has_nn_cells(self) -> bool:
        return self.model.x.n_nonsensitive > 0 and self.model.y.n_nonsensitive > 0

    # ------------------------------------------------------------------ channel
    def channel(self) -> np.ndarray:
        """The ``K × K`` channel of Algorithm 1 (rows = input cells ``x*k_y + y``)."""
        self._check_channel_size()
        pr = self.params
        kx, ky = self.model.shape
        xs, ys = self.model.x.mask, self.model.y.mask
        pp_out = xs[:, None] & ys[None, :]
        P4 = np.zeros((kx, ky, kx, ky))
        P4[:, :, pp_out] = pr.b  # every input lands on each protected×protected cell with prob b ...
        for i in range(kx):
            for j in range(ky):
                if xs[i] and ys[j]:
                    P4[i, j, i, j] = pr.a  # ... except a PP input on its own cell
                    continue
                if not ys[j]:  # y non-sensitive: x may move within X_S, y kept
                    P4[i, j, xs, j] = pr.q
                if not xs[i]:  # x non-sensitive: y may move within Y_S, x kept
                    P4[i, j, i, ys] = pr.n
                P4[i, j, i, j] = pr.p if xs[i] else (pr.m if ys[j] else pr.t)
        return P4.reshape(self.n_cells, self.n_cells)

    def output_table(self) -> pd.DataFrame:
        """The channel by case (the table of Algorithm 1): probability and number of outputs of each kind."""
        pr, sx, sy = self.params, self.model.sx, self.model.sy
        rows = [
            ("1 (S,S)", "(x, y) itself", "a", pr.a, 1),
            ("1 (S,S)", "other cell of W_P×V_P", "b", pr.b, sx * sy - 1),
            ("2 (S,N)", "cell of W_P×V_P", "b", pr.b, sx * sy),
            ("2 (S,N)", "(x, y) itself", "p", pr.p, 1),
            ("2 (S,N)", "(x', y), x' in X_S other than x", "q", pr.q, sx - 1),
            ("3 (N,S)", "cell of W_P×V_P", "b", pr.b, sx * sy),
            ("3 (N,S)", "(x, y) itself", "m", pr.m, 1),
            ("3 (N,S)", "(x, y'), y' in Y_S other than y", "n", pr.n, sy - 1),
            ("4 (N,N)", "cell of W_P×V_P", "b", pr.b, sx * sy),
            ("4 (N,N)", "(x', y), x' in X_S", "q", pr.q, sx),
            ("4 (N,N)", "(x, y'), y' in Y_S", "n", pr.n, sy),
            ("4 (N,N)", "(x, y) itself", "t", pr.t, 1),
        ]
        df = pd.DataFrame(rows, columns=["case", "output", "symbol", "probability", "how many"])
        present = {"1 (S,S)": "PP", "2 (S,N)": "PI", "3 (N,S)": "IP", "4 (N,N)": "II"}
        masks = self.model.region_masks()
        keep = [bool(masks[present[c]].any()) and k > 0 for c, k in zip(df["case"], df["how many"])]
        return df[keep].reset_index(drop=True)

    # ------------------------------------------------------------------ estimator
    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        """Algorithm 2, corrected (every cell; ``/N`` restored; ``1/D_x`` and ``n`` where the paper has typos).

        * (S,S) cells: ``(c/N − b)/(a − b)``;
        * (N,N) cells: ``c/(N t)``;
        * (S,N) cell ``(i, j)``: with column sums ``S_Sx(j)`` over ``X_S`` and ``S_Nx(j)``
          over ``X_N``: ``F_N = S_Nx/(N t)``, ``F_S = (S_Sx/N − s_x q F_N)/(p + (s_x−1) q)``,
          ``f̂ = (c/N − q (F_N + F_S))/(p − q)``;
        * (N,S) cells: the same with rows, ``m``, ``n``, ``s_y``.
        """
        c = self._report_freq(report_freq).reshape(self.shape)
        pr = self.params
        xs, ys = self.model.x.mask, self.model.y.mask
        sx, sy = self.model.sx, self.model.sy
        masks = self.model.region_masks()
        f = np.zeros(self.shape)
        f[masks["PP"]] = (c[masks["PP"]] - pr.b) / (pr.a - pr.b)
        if masks["II"].any():
            f[masks["II"]] = c[masks["II"]] / pr.t
        if masks["PI"].any():
            F_N = c[~xs, :].sum(axis=0) / pr.t if (~xs).any() else np.zeros(self.model.ky)
            F_S = (c[xs, :].sum(axis=0) - sx * pr.q * F_N) / (pr.p + (sx - 1) * pr.q)
            est = (c - pr.q * (F_N + F_S)[None, :]) / (pr.p - pr.q)
            f[masks["PI"]] = est[masks["PI"]]
        if masks["IP"].any():
            G_N = c[:, ~ys].sum(axis=1) / pr.t if (~ys).any() else np.zeros(self.model.kx)
            G_S = (c[:, ys].sum(axis=1) - sy * pr.n * G_N) / (pr.m + (sy - 1) * pr.n)
            est = (c - pr.n * (G_N + G_S)[:, None]) / (pr.m - pr.n)
            f[masks["IP"]] = est[masks["IP"]]
        return f

    # ------------------------------------------------------------------ exact variance
    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact per-cell variance, region by region (the corrected Eqs. (52)-(54)).

        * (S,S): ``[f a(1−a) + (1−f) b(1−b)] / (N (a−b)²)``;
        * (N,N): ``f (1−t) / (N t)`` (Eq. (53) as printed is wrong);
        * (S,N): the estimate is ``Σ_o w_o c_o / N`` over column ``j`` with weights
          ``w_self = (1−g)/(p−q)``, ``w_o = −g/(p−q)`` (other ``X_S`` cells) and
          ``w_n = −κ/(p−q)`` (``X_N`` cells), ``g = 1/D_x``, ``κ = (q/t)(1 − s_x g)``; hence
          ``Var = [f V_self + (F_S − f) V_other + F_N V_N − f] / N`` with
          ``V_self = p w_self² + q (s_x−1) w_o²``,
          ``V_other = p w_o² + q (w_self² + (s_x−2) w_o²)``,
          ``V_N = q (w_self² + (s_x−1) w_o²) + t w_n²`` and ``F_S``, ``F_N`` the column-``j``
          masses of ``X_S`` and ``X_N``;
        * (N,S): the mirror image (rows, ``m``, ``n``, ``D_y``, ``s_y``).
        """
        N = self._n(n)
        ftab = self._freq(f).reshape(self.shape)
        pr = self.params
        xs, ys = self.model.x.mask, self.model.y.mask
        masks = self.model.region_masks()
        var = np.zeros(self.shape)
        a, b = pr.a, pr.b
        var[masks["PP"]] = (ftab[masks["PP"]] * a * (1 - a) + (1 - ftab[masks["PP"]]) * b * (1 - b)) / (
            N * (a - b) ** 2
        )
        if masks["II"].any():
            var[masks["II"]] = ftab[masks["II"]] * (1 - pr.t) / (N * pr.t)

        def side(
            keep: float,
            move: float,
            d_side: float,
            s: int,
            has_n: bool,
            F_S: np.ndarray,
            F_N: np.ndarray,
            fcell: np.ndarray,
        ) -> np.ndarray:
            g = 1.0 / d_side
            kappa = (move / pr.t) * (1 - s * g) if has_n else 0.0
            w_self, w_o, w_n = (1 - g) / (keep - move), -g / (keep - move), -kappa / (keep - move)
            v_self = keep * w_self**2 + move * (s - 1) * w_o**2
            v_other = keep * w_o**2 + move * (w_self**2 + (s - 2) * w_o**2)
            v_n = move * (w_self**2 + (s - 1) * w_o**2) + (pr.t * w_n**2 if has_n else 0.0)
            return (fcell * v_self + (F_S - fcell) * v_other + F_N * v_n - fcell) / N

        if masks["PI"].any():
            F_S = np.broadcast_to(ftab[xs, :].sum(axis=0)[None, :], self.shape)
            F_N = np.broadcast_to(ftab[~xs, :].sum(axis=0)[None, :], self.shape)
            full = side(pr.p, pr.q, pr.Dx, self.model.sx, bool((~xs).any()), F_S, F_N, ftab)
            var[masks["PI"]] = full[masks["PI"]]
        if masks["IP"].any():
            G_S = np.broadcast_to(ftab[:, ys].sum(axis=1)[:, None], self.shape)
            G_N = np.broadcast_to(ftab[:, ~ys].sum(axis=1)[:, None], self.shape)
            full = side(pr.m, pr.n, pr.Dy, self.model.sy, bool((~ys).any()), G_S, G_N, ftab)
            var[masks["IP"]] = full[masks["IP"]]
        return var
