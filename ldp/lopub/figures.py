"""Plot helpers for the LoPub experiments: one curve per estimator in the house style.

The estimators keep their paper names (``EM_JD``, ``Lasso_JD``, ``Lasso+EM_JD``) in
tables; in figures they are drawn with the book-wide styles of ``EM``, ``Lasso``
and ``Lasso+EM`` (``ldp.plotting.style_for``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..plotting import style_for
from .joint import METHODS

_STYLE_KEY = {"EM_JD": "EM", "Lasso_JD": "Lasso", "Lasso+EM_JD": "Lasso+EM"}


def method_style(method: str) -> dict[str, str]:
    """House style of an estimator (paper name or short name)."""
    return style_for(_STYLE_KEY.get(method, method))


def plot_by_method(
    ax: Any,
    frame: pd.DataFrame,
    x: str,
    y: str,
    *,
    methods: Sequence[str] = METHODS,
    logy: bool = False,
    errorbars: bool = True,
    label_suffix: str = "",
) -> Any:
    """Mean of ``y`` against ``x`` for every method, with +-1 standard error bars when there are repeats."""
    missing = [c for c in (x, y, "method") if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}")
    for method in methods:
        sub = frame[frame["method"] == method]
        if sub.empty:
            continue
        g = sub.groupby(x)[y]
        mean, count = g.mean(), g.count()
        se = (g.std(ddof=1) / np.sqrt(count)).fillna(0.0)
        style = method_style(method)
        if errorbars and (count > 1).any():
            ax.errorbar(mean.index, mean.values, yerr=se.values, label=method + label_suffix, **style)
        else:
            ax.plot(mean.index, mean.values, label=method + label_suffix, **style)
    if logy:
        ax.set_yscale("log")
    return ax
