"""One figure style for the whole book.

Every chapter calls :func:`use_house_style` (or :func:`new_figure`, which does
it) and draws each method with :func:`style_for`, so a method keeps the same
colour, marker and line style in every figure of the book.  Paper values are
overlaid with :func:`overlay_paper_values` (hollow black markers) and theory
against simulation with :func:`plot_theory_vs_sim` (a line for the closed form,
markers with error bars for the simulation).

Colours start from the Okabe–Ito palette, which stays distinguishable for the
common forms of colour blindness.
"""
from __future__ import annotations

import hashlib
import re
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = [
    "PALETTE",
    "METHOD_STYLES",
    "use_house_style",
    "style_for",
    "new_figure",
    "overlay_paper_values",
    "plot_theory_vs_sim",
]

#: Okabe–Ito colours plus a few extra distinct hues (used by the registry and the fallback)
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#8C564B",  # brown
    "#D62728",  # red
    "#7F7F7F",  # grey
    "#17BECF",  # cyan
    "#BCBD22",  # olive
    "#332288",  # indigo
)
_BLUE, _VERM, _GREEN, _PURPLE, _ORANGE, _SKY, _BROWN, _RED, _GREY, _CYAN, _OLIVE, _INDIGO = PALETTE
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h", "<", ">", "p", "*")
_LINESTYLES = ("-", "--", "-.", ":")


def _key(name: str) -> str:
    """Normalised lookup key: case, spaces, underscores and hyphens do not matter."""
    return re.sub(r"[\s_\-]+", "", name).lower()


_REGISTRY: dict[str, dict[str, str]] = {
    # frequency oracles (primer chapter and everywhere)
    "GRR": dict(color=_BLUE, marker="o", linestyle="-"),
    "SUE": dict(color=_GREEN, marker="s", linestyle="-"),
    "OUE": dict(color=_VERM, marker="^", linestyle="-"),
    "OLH": dict(color=_PURPLE, marker="D", linestyle="-"),
    "BLH": dict(color=_PURPLE, marker="d", linestyle="--"),
    "SS": dict(color=_ORANGE, marker="v", linestyle="-"),
    "HR": dict(color=_SKY, marker="P", linestyle="-"),
    "RAPPOR": dict(color=_BROWN, marker="X", linestyle="-"),
    "EXP": dict(color=_GREY, marker="*", linestyle="-"),
    "ADP": dict(color=_CYAN, marker="h", linestyle="-"),
    # label privacy (CLLDP, Xue et al.)
    "kHR": dict(color=_RED, marker="o", linestyle="-"),
    "basic solution": dict(color=_BLUE, marker="s", linestyle="--"),
    "LabelDP": dict(color=_ORANGE, marker="^", linestyle="--"),
    "non-private": dict(color="#4D4D4D", marker="", linestyle=":"),
    # LoPub (Ren et al.)
    "EM": dict(color=_GREEN, marker="o", linestyle="--"),
    "Lasso": dict(color=_ORANGE, marker="s", linestyle="-."),
    "Lasso+EM": dict(color=_PURPLE, marker="D", linestyle="-."),
    # multi-class item mining (Mao et al.)
    "HEC": dict(color=_BROWN, marker="s", linestyle="--"),
    "PTJ": dict(color=_BLUE, marker="^", linestyle="-"),
    "PTS": dict(color=_GREEN, marker="v", linestyle="-"),
    "PTS-CP": dict(color=_VERM, marker="D", linestyle="-"),
    "VP": dict(color=_SKY, marker="v", linestyle="--"),
    "CP": dict(color=_RED, marker="P", linestyle="-"),
    "PTJ-S+VP": dict(color=_BLUE, marker="D", linestyle="--"),
    "PTS-opt": dict(color=_RED, marker="*", linestyle="-"),
    # utility-optimised joint distributions (Yin et al.)
    "uRR": dict(color=_ORANGE, marker="o", linestyle="-"),
    "JuRR": dict(color=_BLUE, marker="s", linestyle="-"),
    "CPRR": dict(color=_RED, marker="^", linestyle="-"),
    "TDRR": dict(color=_GREEN, marker="D", linestyle="--"),
    "JD-GRR": dict(color=_PURPLE, marker="v", linestyle="-."),
    # references
    "theory": dict(color="#000000", marker="", linestyle="-"),
    "paper": dict(color="#000000", marker="o", linestyle="none"),
}

#: read-only view of the registered styles (display name -> style)
METHOD_STYLES = MappingProxyType({k: MappingProxyType(v) for k, v in _REGISTRY.items()})

_BY_KEY = {_key(k): v for k, v in _REGISTRY.items()}
#: families: variants named "<family> ..." share the family colour, with a marker/line of their own
_FAMILIES = {"khr": _RED}


def _digest(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")


def style_for(method_name: str) -> dict[str, str]:
    """Fixed ``dict(color=..., marker=..., linestyle=...)`` for a method, the same in every figure.

    Lookup ignores case, spaces, underscores and hyphens (``"PTS-CP"``,
    ``"pts_cp"`` and ``"PTS CP"`` are the same method).  Variants of a family
    (any name starting with ``"kHR"``, e.g. ``"kHR (k=4)"``) keep the family's
    colour and get their own marker and line style.  Unknown names receive a
    deterministic style derived from a hash of the name (never an error), so
    they are at least stable across figures and runs.

    Parameters
    ----------
    method_name : str

    Returns
    -------
    dict
        A new dict; callers may modify it.
    """
    if not isinstance(method_name, str):
        raise TypeError(f"method_name must be a string, got {type(method_name).__name__}")
    key = _key(method_name)
    if key in _BY_KEY:
        return dict(_BY_KEY[key])
    h = _digest(key)
    marker = _MARKERS[h % len(_MARKERS)]
    linestyle = _LINESTYLES[(h // len(_MARKERS)) % len(_LINESTYLES)]
    for fam, color in _FAMILIES.items():
        if key.startswith(fam):
            return dict(color=color, marker=marker, linestyle=linestyle)
    color = PALETTE[(h // (len(_MARKERS) * len(_LINESTYLES))) % len(PALETTE)]
    return dict(color=color, marker=marker, linestyle=linestyle)


_RC = {
    "figure.figsize": (6.0, 3.8),
    "figure.dpi": 110,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "figure.constrained_layout.use": True,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.8,
    "lines.markersize": 6,
    "errorbar.capsize": 3,
    "image.cmap": "viridis",
}


def use_house_style() -> None:
    """Set the book's matplotlib rcParams (sizes, grid, no top/right spines, palette, dpi). Idempotent."""
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update(_RC)
    mpl.rcParams["axes.prop_cycle"] = cycler(color=list(PALETTE))


def new_figure(nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[Any, Any]:
    """``plt.subplots`` in the house style, sized by the grid unless ``figsize`` is given.

    Parameters
    ----------
    nrows, ncols : int
    **kw
        Passed to ``matplotlib.pyplot.subplots`` (``sharex``, ``figsize``, ...).

    Returns
    -------
    (Figure, Axes or array of Axes)
        As ``plt.subplots`` (a single Axes for a 1 x 1 grid).
    """
    for name, v in (("nrows", nrows), ("ncols", ncols)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    import matplotlib.pyplot as plt

    use_house_style()
    kw.setdefault("figsize", (min(4.2 * ncols + 0.8, 13.0), 3.4 * nrows + 0.4))
    return plt.subplots(nrows, ncols, **kw)


def _xy(x: Any, y: Any, xname: str, yname: str) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if xa.size != ya.size:
        raise ValueError(f"{xname} and {yname} must have the same length, got {xa.size} and {ya.size}")
    return xa, ya


def overlay_paper_values(ax: Any, x: Any, y: Any, label: str = "paper", **kw: Any) -> Any:
    """Overlay values read from a paper as hollow black markers (NaN entries are skipped).

    Parameters
    ----------
    ax : matplotlib Axes
    x, y : array_like
        Positions and the paper's values (same length).
    label : str
        Legend label.
    **kw
        Overrides for ``ax.plot`` (e.g. ``marker="s"``, ``color=...``).

    Returns
    -------
    Axes
    """
    xa, ya = _xy(x, y, "x", "y")
    keep = np.isfinite(xa) & np.isfinite(ya)
    style = dict(linestyle="none", marker="o", color="#000000", markerfacecolor="none",
                 markeredgewidth=1.3, markersize=7, zorder=5, label=label)
    style.update(kw)
    ax.plot(xa[keep], ya[keep], **style)
    return ax


def plot_theory_vs_sim(
    ax: Any,
    x: Any,
    theory: Any,
    sim_mean: Any,
    sim_err: Any = None,
    method: str = "theory",
    label: str | None = None,
) -> Any:
    """Closed form as a line and simulation as markers with error bars, in the method's house style.

    Parameters
    ----------
    ax : matplotlib Axes
    x : array_like
    theory : array_like
        Closed-form values at ``x`` (drawn as a line; ``None`` to skip).
    sim_mean : array_like
        Simulated means at ``x`` (drawn as markers; ``None`` to skip).
    sim_err : array_like, optional
        Error-bar half-widths (e.g. 2 standard errors), or a (2, n) array.
    method : str
        Method name passed to :func:`style_for`.
    label : str, optional
        Legend stem (defaults to ``method``); entries read "<label> (theory)"
        and "<label> (simulation)".

    Returns
    -------
    Axes
    """
    style = style_for(method)
    stem = method if label is None else label
    xa = np.asarray(x, dtype=float).ravel()
    if theory is not None:
        _, th = _xy(xa, theory, "x", "theory")
        ax.plot(xa, th, color=style["color"], linestyle=style["linestyle"] if style["linestyle"] != "none" else "-",
                marker="", label=f"{stem} (theory)")
    if sim_mean is not None:
        _, sm = _xy(xa, sim_mean, "x", "sim_mean")
        err = None
        if sim_err is not None:
            err = np.asarray(sim_err, dtype=float)
            if err.shape not in ((xa.size,), (2, xa.size)):
                raise ValueError(f"sim_err must have shape ({xa.size},) or (2, {xa.size}), got {err.shape}")
        ax.errorbar(xa, sm, yerr=err, color=style["color"], marker=style["marker"] or "o", linestyle="none",
                    markerfacecolor=style["color"], label=f"{stem} (simulation)")
    return ax
