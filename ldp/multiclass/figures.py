"""Plot helpers shared by the figures of the multi-class experiments chapter.

They draw in the house style of :mod:`ldp.plotting` (one style per method, the paper's values
as hollow markers), so that each figure cell of the notebook only chooses its panels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..plotting import overlay_paper_values, style_for

__all__ = ["method_curves"]


def method_curves(
    ax: Any,
    frame: pd.DataFrame,
    x: str,
    value: str,
    methods: Sequence[str],
    *,
    paper_x: Sequence[float] | None = None,
    paper: Mapping[str, Sequence[float]] | None = None,
    paper_label: str = "paper (read off)",
) -> Any:
    """One curve per method: the mean of ``value`` against ``x`` with two standard errors, and the paper's values.

    Parameters
    ----------
    ax : matplotlib Axes
    frame : DataFrame
        A :func:`ldp.sweep.summarise` frame with columns ``method``, ``x``,
        ``{value}_mean`` and ``{value}_se``.
    x, value : str
        Column of the x axis; name of the summarised value (e.g. ``"f1"``).
    methods : sequence of str
        The methods to draw, in legend order.
    paper_x, paper : optional
        The paper's x grid and, per method, its values there (drawn hollow in the method's
        colour and marker; only the first gets a legend entry, ``paper_label``).

    Returns
    -------
    Axes
    """
    for col in ("method", x, f"{value}_mean", f"{value}_se"):
        if col not in frame.columns:
            raise ValueError(f"frame has no column {col!r}; available: {list(frame.columns)}")
    for i, m in enumerate(methods):
        st = style_for(m)
        part = frame[frame.method == m]
        ax.errorbar(
            part[x], part[f"{value}_mean"], yerr=2 * np.nan_to_num(part[f"{value}_se"].to_numpy()), label=m, **st
        )
        if paper is not None and m in paper:
            overlay_paper_values(
                ax,
                paper_x,
                paper[m],
                label=paper_label if i == 0 else None,
                marker=st["marker"],
                markeredgecolor=st["color"],
                markersize=5,
            )
    return ax
