"""The two baselines of Yin et al. (2023, Sec. 7): TDRR and joint GRR ("JD_GRR").

* **TDRR** splits the budget: ``x`` goes through uRR(ε/2, X_S) and ``y`` through
  uRR(ε/2, Y_S), independently (sequential composition gives ε in total).  The
  collector estimates the two marginals with the uRR estimator and reports their
  product ``f̂_ij = f̂^X_i · f̂^Y_j``, as the paper describes.  This estimator
  ignores the correlation of ``x`` and ``y``: it is biased by
  ``f^X_i f^Y_j − f_ij``, which does not vanish as ε grows.
  :class:`TDRRUnbiased` is an ablation that inverts the Kronecker channel instead.
* **Joint GRR** (JD_GRR, after Yilmaz et al. 2020) flattens ``(x, y)`` to one of
  ``k_x k_y`` cells and applies GRR with the whole budget; it is ordinary ε-LDP
  (every value is treated as sensitive).  It is :class:`ldp.oracles.GRR` on the
  product domain.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..oracles import GRR
from .joint import JointMechanism
from .mechanism import ChannelMechanism
from .model import ULDPModel2D
from .urr import URR

__all__ = ["TDRR", "TDRRUnbiased", "JointGRR"]


class TDRR(JointMechanism):
    """Two independent uRRs with ε/2 each; joint estimate = product of the marginal estimates.

    Parameters
    ----------
    epsilon : float
        Total budget; each attribute uses ``epsilon / 2``.
    model : ULDPModel2D
        Both attributes need at least two values.

    Attributes
    ----------
    x_mech, y_mech : URR
        The per-attribute mechanisms.
    """

    name = "TDRR"
    unbiased = False

    def __init__(self, epsilon: float, model: ULDPModel2D) -> None:
        super().__init__(epsilon, model)
        self.x_mech = URR(self.epsilon / 2, model.kx, model.x.sensitive)
        self.y_mech = URR(self.epsilon / 2, model.ky, model.y.sensitive)

    def channel(self) -> np.ndarray:
        """``P[(x,y), (x̃,ỹ)] = P_x[x, x̃] · P_y[y, ỹ]``: the Kronecker product of the two uRR channels."""
        self._check_channel_size()
        return np.kron(self.x_mech.channel(), self.y_mech.channel())

    def perturb(self, x: Any, y: Any, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Each attribute is perturbed on its own (the actual protocol); ``rng`` is shared sequentially."""
        from .._checks import as_generator

        self.model.flat_index(x, y)  # validates both arrays and their lengths
        gen = as_generator(rng)
        return self.x_mech.perturb(x, gen), self.y_mech.perturb(y, gen)

    def marginal_estimates(self, report_freq: Any) -> tuple[np.ndarray, np.ndarray]:
        """uRR estimates of the ``x`` and ``y`` marginals from the joint report frequencies."""
        c = self._report_freq(report_freq).reshape(self.shape)
        return (
            self.x_mech.estimate_from_frequencies(c.sum(axis=1)),
            self.y_mech.estimate_from_frequencies(c.sum(axis=0)),
        )

    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        fx, fy = self.marginal_estimates(report_freq)
        return np.outer(fx, fy)

    def bias(self, n: int, f: Any) -> np.ndarray:
        """``f^X_i f^Y_j − f_ij``: the independence bias (exact; the two marginal estimates are independent)."""
        self._n(n)
        ftab = self._freq(f).reshape(self.shape)
        return np.outer(ftab.sum(axis=1), ftab.sum(axis=0)) - ftab

    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact variance of a product of independent unbiased estimates:
        ``(V_x + μ_x²)(V_y + μ_y²) − μ_x² μ_y²``."""
        n = self._n(n)
        ftab = self._freq(f).reshape(self.shape)
        mx, my = ftab.sum(axis=1), ftab.sum(axis=0)
        vx, vy = self.x_mech.variance(n, mx), self.y_mech.variance(n, my)
        return np.outer(vx + mx**2, vy + my**2) - np.outer(mx**2, my**2)


class TDRRUnbiased(TDRR):
    """Ablation: TDRR's reports, estimated by inverting the Kronecker channel (unbiased, higher variance)."""

    name = "TDRR-Kron"
    unbiased = True

    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        return ChannelMechanism.estimate_from_frequencies(self, report_freq)

    def bias(self, n: int, f: Any) -> np.ndarray:
        return ChannelMechanism.bias(self, n, f)

    def variance(self, n: int, f: Any) -> np.ndarray:
        return ChannelMechanism.variance(self, n, f)


class JointGRR(JointMechanism):
    """JD_GRR: :class:`ldp.oracles.GRR` with the full ε on the ``k_x k_y`` flattened cells.

    Attributes
    ----------
    oracle : ldp.oracles.GRR
        The GRR on the product domain (flat cell ``x * k_y + y``).
    """

    name = "JD_GRR"
    notion = "LDP"  # ordinary GRR on the pairs: no output reveals its input

    def __init__(self, epsilon: float, model: ULDPModel2D) -> None:
        super().__init__(epsilon, model)
        self.oracle = GRR(self.epsilon, model.n_cells)

    def channel(self) -> np.ndarray:
        return self.oracle.channel()

    def perturb(self, x: Any, y: Any, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        return np.divmod(self.oracle.perturb(self.model.flat_index(x, y), rng), self.model.ky)

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """GRR's own exact count-level sampler."""
        return self._shaped(self.oracle.simulate_counts(self._counts(true_counts, "true_counts"), rng))

    def estimate_from_frequencies(self, report_freq: Any) -> np.ndarray:
        """GRR calibration ``(c/N − q)/(p − q)`` (frequencies are the support counts of one unit of mass)."""
        freq = self._report_freq(report_freq)
        return self._shaped(self.oracle.estimate_counts(freq, 1))

    def variance(self, n: int, f: Any) -> np.ndarray:
        """GRR's variance ``[f p(1−p) + (1−f) q(1−q)] / (N (p−q)²)`` per cell."""
        n = self._n(n)
        return self._shaped(self.oracle.variance(n, self._freq(f)))
