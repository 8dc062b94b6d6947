"""Drawing helpers for the CLLDP experiments chapter (Xue et al., Sec. 7), in the book's house style."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..plotting import style_for

__all__ = ["draw_errors"]


def draw_errors(ax: Any, frame: pd.DataFrame, dataset: str) -> None:
    """One panel of Fig. 3: simulated errors (markers, two standard errors) and Eq. (7) (dashed) per method.

    ``frame`` is a summary with columns ``dataset``, ``method``, ``epsilon``, ``err_mean``,
    ``err_se`` and ``theory_mean`` (:func:`ldp.clldp.trials.summarise_trials` of a Fig. 3 sweep).
    """
    missing = {"dataset", "method", "epsilon", "err_mean", "err_se", "theory_mean"} - set(frame.columns)
    if missing:
        raise ValueError(f"frame lacks the columns {sorted(missing)}")
    rows = frame[frame.dataset == dataset]
    if rows.empty:
        raise ValueError(f"dataset {dataset!r} is not in frame; available: {sorted(set(frame.dataset))}")
    for method in rows["method"].unique():
        d = rows[rows.method == method]
        st = style_for(method)
        ax.errorbar(
            d.epsilon,
            d.err_mean,
            yerr=2 * d.err_se,
            label=method,
            color=st["color"],
            marker=st["marker"],
            linestyle="none",
        )
        ax.plot(d.epsilon, d.theory_mean, color=st["color"], linestyle="--", linewidth=1)
    ax.set(yscale="log", xlabel="privacy budget ε")
