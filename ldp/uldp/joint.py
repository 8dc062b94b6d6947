"""Base class of the two-attribute mechanisms: data are ``k_x × k_y`` tables over the pairs ``(x, y)``.

A user holds a pair of codes ``(x, y)``; a mechanism returns a pair
``(x̃, ỹ)``.  The collector only needs the ``k_x × k_y`` table of report counts,
from which every mechanism here estimates the joint distribution ``f_ij``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import channels
from .._checks import check_codes
from .mechanism import ChannelMechanism
from .model import ULDPModel2D

__all__ = ["JointMechanism"]


class JointMechanism(ChannelMechanism):
    """A mechanism on the pairs of a :class:`~ldp.uldp.model.ULDPModel2D`.

    Parameters
    ----------
    epsilon : float
        Privacy budget, finite and > 0.
    model : ULDPModel2D
        Domains and sensitive sets of ``x`` and ``y``.
    """

    def __init__(self, epsilon: float, model: ULDPModel2D) -> None:
        super().__init__(epsilon)
        if not isinstance(model, ULDPModel2D):
            raise TypeError(f"model must be a ULDPModel2D, got {type(model).__name__}")
        self.model = model

    @property
    def shape(self) -> tuple[int, ...]:
        return self.model.shape

    # ------------------------------------------------------------------ client side
    def perturb(self, x: Any, y: Any, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Perturb every user's pair ``(x[u], y[u])``; returns the code arrays ``(x̃, ỹ)``.

        Default: exact categorical draws from the channel row of each user's cell,
        vectorised by input cell.
        """
        flat = self.model.flat_index(x, y)
        out = channels.sample_channel(self.channel(), flat, rng)
        return np.divmod(out, self.model.ky)

    def support_counts(self, reports: Any) -> np.ndarray:
        """``k_x × k_y`` table of report counts from the reports ``(x̃, ỹ)`` returned by :meth:`perturb`."""
        if not isinstance(reports, tuple) or len(reports) != 2:
            raise TypeError(
                f"reports must be the pair (x_report, y_report) returned by perturb, got {type(reports).__name__}"
            )
        x_report, y_report = reports
        flat = self.model.flat_index(
            check_codes(x_report, self.model.kx, "x_report"), check_codes(y_report, self.model.ky, "y_report")
        )
        return np.bincount(flat, minlength=self.n_cells).reshape(self.shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, model={self.model!r})"
