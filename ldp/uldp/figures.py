"""Figure panels of the chapter, in the house style of :mod:`ldp.plotting`.

The notebooks stay short: each accuracy panel of Figs. 3-6 is one call to
:func:`error_panel`, which draws the simulated means (markers with two-standard-
error bars), the exact expectation ``sqrt(E[ED²])`` as a line over a fine ε
grid, and shades the region where JuRR does not exist; :func:`error_grid` lays
four settings out as a 2×2 grid, and :func:`ldp.plotting.finish_figure` gives it one legend below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..plotting import new_figure, style_for
from .datasets import SETTINGS, load_table
from .jurr import jurr_min_epsilon

__all__ = ["error_panel", "error_grid", "ORDER"]

#: drawing order (and legend order) of the mechanisms
ORDER = ("JuRR", "CPRR", "TDRR", "JD_GRR")


def error_panel(
    ax: Any,
    sim: pd.DataFrame,
    theory: pd.DataFrame,
    *,
    title: str = "",
    sx: int | None = None,
    sy: int | None = None,
    value: str = "ed",
    mechanisms: Sequence[str] = ORDER,
    legend: bool = True,
) -> Any:
    """ED against ε: simulation markers, exact-expectation lines, JuRR's undefined region shaded.

    Parameters
    ----------
    ax : matplotlib Axes
    sim : DataFrame
        Columns ``mechanism``, ``epsilon``, ``{value}_mean`` and ``{value}_se``
        (as from :func:`ldp.sweep.summarise`); NaN rows are skipped.
    theory : DataFrame
        Columns ``mechanism``, ``epsilon``, ``expected`` (NaN where undefined).
    title : str
    sx, sy : int, optional
        Sensitive-set sizes; when given, ``ε <= ln(1+√(s_x s_y))`` is shaded.
    value : str
        Which simulated column to draw (``"ed"`` or ``"euclid"``).
    """
    for name in mechanisms:
        _draw_mechanism(ax, name, sim, theory, value)
    if sx is not None and sy is not None and sx * sy > 0:
        left, right = ax.get_xlim()
        ax.axvspan(left, jurr_min_epsilon(sx, sy), color="#999999", alpha=0.15, lw=0, label="JuRR undefined")
        ax.set_xlim(left, right)
    ax.set_yscale("log")
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel("ED (Eq. 59)" if value == "ed" else "Euclidean distance (un-normalised)")
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(loc="upper right")
    return ax


def _draw_mechanism(ax: Any, name: str, sim: pd.DataFrame, theory: pd.DataFrame, value: str) -> None:
    """One mechanism of :func:`error_panel`: its exact-expectation line and its simulation markers (±2 SE)."""
    st = style_for(name)
    th = theory[theory["mechanism"] == name].sort_values("epsilon")
    ax.plot(
        th["epsilon"],
        th["expected"],
        color=st["color"],
        linestyle=st["linestyle"],
        marker="",
        linewidth=1.3,
        alpha=0.9,
    )
    sm = sim[(sim["mechanism"] == name) & np.isfinite(sim[f"{value}_mean"])].sort_values("epsilon")
    ax.errorbar(
        sm["epsilon"],
        sm[f"{value}_mean"],
        yerr=2 * sm[f"{value}_se"].fillna(0),
        color=st["color"],
        marker=st["marker"],
        linestyle="none",
        label=name,
    )


def error_grid(
    sim: pd.DataFrame, theory: Mapping[str, pd.DataFrame], keys: Sequence[str], *, title: str = ""
) -> tuple[Any, Any]:
    """Four settings as a 2×2 grid of :func:`error_panel` (shared ε axis), without legends.

    ``sim`` has a ``setting`` column and the columns :func:`error_panel` needs;
    ``theory`` maps each setting key to its exact curves.  Add one legend for the
    whole grid with :func:`ldp.plotting.finish_figure` once everything is drawn.
    """
    keys = list(keys)
    if len(keys) != 4:
        raise ValueError(f"error_grid draws exactly 4 settings, got {len(keys)}")
    missing = [k for k in keys if k not in theory]
    if missing:
        raise ValueError(f"theory lacks the settings {missing}")
    fig, axes = new_figure(nrows=2, ncols=2, figsize=(11, 7.2), sharex=True)
    for ax, key in zip(axes.ravel(), keys):
        t = load_table(key)
        error_panel(
            ax,
            sim[sim["setting"] == key],
            theory[key],
            title=SETTINGS[key].label,
            sx=t.model.sx,
            sy=t.model.sy,
            legend=False,
        )
    if title:
        fig.suptitle(title, fontsize=10)
    return fig, axes
