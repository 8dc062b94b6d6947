"""One figure style for the whole book.

Every chapter calls :func:`use_house_style` (or :func:`new_figure` /
:func:`small_multiples`, which do it) and draws each method with
:func:`style_for`, so a method keeps the same colour, marker and line style in
every figure of the book, except where two methods of one figure would look
alike: within one figure no two methods share a colour (while the palette
lasts) and never a colour *and* a marker (:func:`style_for` remembers what it
gave each figure).  Figures are at most :data:`PAGE_WIDTH_IN` wide, so that
their text, at least :data:`MIN_FONT_PT`, is still that large where the page
shows it (:func:`min_display_font_pt` checks a finished figure).  Paper values are
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
    "small_multiples",
    "min_display_font_pt",
    "PAGE_WIDTH_IN",
    "MIN_FONT_PT",
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


#: methods whose style is a reference (black or grey): never recoloured, only kept apart by marker
_REFERENCES = {_key(n) for n in ("theory", "paper", "non-private")}


def _figure_of(where: Any) -> Any:
    """The matplotlib Figure of ``where`` (a Figure, an Axes, or None: pyplot's current figure, if any)."""
    if where is None:
        import sys

        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None or not plt.get_fignums():
            return None
        return plt.gcf()
    if hasattr(where, "get_figure") and not hasattr(where, "add_subplot"):
        where = where.get_figure()
    if not hasattr(where, "add_subplot"):
        raise TypeError(f"figure must be a matplotlib Figure or Axes, got {type(where).__name__}")
    return where


def _registered_style(key: str) -> dict[str, str]:
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


def style_for(method_name: str, figure: Any = None) -> dict[str, str]:
    """``dict(color=..., marker=..., linestyle=...)`` for a method: fixed across figures, distinct within one.

    Lookup ignores case, spaces, underscores and hyphens (``"PTS-CP"``,
    ``"pts_cp"`` and ``"PTS CP"`` are the same method).  Variants of a family
    (any name starting with ``"kHR"``, e.g. ``"kHR (k=4)"``) keep the family's
    colour and get their own marker and line style.  Unknown names receive a
    deterministic style derived from a hash of the name (never an error), so
    they are at least stable across figures and runs.

    Within one figure the styles handed out are remembered: the same method gets
    the same style in every panel, and a method whose registered colour another
    method of the figure already uses gets the first palette colour still free
    in that figure (so "PTJ" and "PTJ-S+VP", or three kHR variants, never share
    a colour); once the palette is exhausted the colour repeats with a marker not
    yet paired with it.  No two methods of one figure ever share colour *and*
    marker.  The reference styles ("theory", "paper", "non-private") keep their
    black or grey.

    Parameters
    ----------
    method_name : str
    figure : matplotlib Figure or Axes, optional
        The figure the method is drawn in.  Default: pyplot's current figure when
        one is open (the usual case in a notebook cell), else no figure (the
        registered style, unchanged).

    Returns
    -------
    dict
        A new dict; callers may modify it.
    """
    if not isinstance(method_name, str):
        raise TypeError(f"method_name must be a string, got {type(method_name).__name__}")
    key = _key(method_name)
    style = _registered_style(key)
    fig = _figure_of(figure)
    if fig is None:
        return style
    given: dict[str, dict[str, str]] = fig.__dict__.setdefault("_ldp_styles", {})
    if key in given:
        return dict(given[key])
    used_colours = {st["color"] for k, st in given.items() if k not in _REFERENCES}
    used_pairs = {(st["color"], st["marker"]) for st in given.values()}
    if key not in _REFERENCES and style["color"] in used_colours:
        free = [c for c in PALETTE if c not in used_colours]
        if free:
            style["color"] = free[0]
    if (style["color"], style["marker"]) in used_pairs:
        style["marker"] = next((m for m in _MARKERS if (style["color"], m) not in used_pairs), style["marker"])
        if (style["color"], style["marker"]) in used_pairs:  # every colour-marker pair taken (>144 methods)
            raise ValueError(
                f"figure already has {len(given)} methods: no colour-marker pair is left "
                f"for {method_name!r}; split the figure into small multiples"
            )
    given[key] = style
    return dict(style)


#: the widest figure (inches) the book column shows without shrinking its text below MIN_FONT_PT
PAGE_WIDTH_IN = 7.0
#: the smallest font size (points, as displayed on the page) of any text in a figure
MIN_FONT_PT = 8.0
#: width of the book's text column in CSS pixels at a 1400 px window (sphinx-book-theme)
COLUMN_PX = 717
#: at most this many panels in one row of a page-width figure
MAX_PANELS_PER_ROW = 3

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
    "legend.title_fontsize": 9,
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


def _grid_size(nrows: int, ncols: int) -> tuple[float, float]:
    """Default size of an ``nrows x ncols`` grid: page width from two columns on, shorter rows when narrow."""
    width = {1: 6.0, 2: PAGE_WIDTH_IN}.get(ncols, PAGE_WIDTH_IN)
    row_height = {1: 3.8, 2: 3.0, 3: 2.5}.get(ncols, 2.2)
    return width, row_height * nrows + 0.3


def new_figure(nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[Any, Any]:
    """``plt.subplots`` in the house style, sized for the page.

    The default size depends on the grid (a single panel 6 in wide, a grid at
    :data:`PAGE_WIDTH_IN`).  A ``figsize`` wider than :data:`PAGE_WIDTH_IN` is
    scaled down, aspect kept, to that width: the page would shrink it anyway, and
    the text (at least :data:`MIN_FONT_PT` in the house style) would become
    unreadable.  More than :data:`MAX_PANELS_PER_ROW` panels in a row will be
    cramped at that width: use :func:`small_multiples`.

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
    w, h = kw.pop("figsize", None) or _grid_size(int(nrows), int(ncols))
    if not (np.isfinite(w) and np.isfinite(h) and w > 0 and h > 0):
        raise ValueError(f"figsize must be two positive numbers, got {(w, h)!r}")
    if w > PAGE_WIDTH_IN:
        w, h = PAGE_WIDTH_IN, h * PAGE_WIDTH_IN / w
    return plt.subplots(nrows, ncols, figsize=(w, h), **kw)


def small_multiples(
    n_panels: int, ncols: int | None = None, *, panel_height: float | None = None, **kw: Any
) -> tuple[Any, list[Any]]:
    """A page-width grid of ``n_panels`` panels, at most :data:`MAX_PANELS_PER_ROW` per row.

    Use it instead of one panel with many series (e.g. one panel per method
    family) or a long row of panels.  Unused cells of the last row are removed.

    Parameters
    ----------
    n_panels : int
        Number of panels (>= 1).
    ncols : int, optional
        Panels per row, 1 to :data:`MAX_PANELS_PER_ROW` (default: ``min(n_panels, 3)``).
    panel_height : float, optional
        Height of one row in inches (default: by the number of columns, as :func:`new_figure`).
    **kw
        Passed to ``matplotlib.pyplot.subplots`` (``sharex``, ``sharey``, ...).

    Returns
    -------
    (Figure, list of Axes)
        The figure and its ``n_panels`` axes in reading order.
    """
    if isinstance(n_panels, bool) or not isinstance(n_panels, (int, np.integer)) or n_panels < 1:
        raise ValueError(f"n_panels must be an integer >= 1, got {n_panels!r}")
    if ncols is None:
        ncols = min(int(n_panels), MAX_PANELS_PER_ROW)
    if isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or not 1 <= ncols <= MAX_PANELS_PER_ROW:
        raise ValueError(
            f"ncols must be an integer from 1 to {MAX_PANELS_PER_ROW} (panels per row at page width), got {ncols!r}"
        )
    if panel_height is not None and not (np.isfinite(panel_height) and panel_height > 0):
        raise ValueError(f"panel_height must be a positive number of inches, got {panel_height!r}")
    nrows = -(-int(n_panels) // int(ncols))
    w, h = _grid_size(nrows, int(ncols))
    if panel_height is not None:
        h = panel_height * nrows + 0.3
    kw.setdefault("squeeze", False)
    fig, axes = new_figure(nrows, int(ncols), figsize=(w, h), **kw)
    flat = list(np.asarray(axes).ravel())
    for ax in flat[n_panels:]:
        fig.delaxes(ax)
    return fig, flat[:n_panels]


def min_display_font_pt(fig: Any, column_px: float = COLUMN_PX) -> float:
    """Smallest font size of the figure's visible text as the page displays it (points, 96 px per inch).

    The page shows a figure at its natural width (``width x dpi`` pixels) or
    shrinks it to the column; this returns the size of its smallest text after
    that shrinking, to compare with :data:`MIN_FONT_PT`.

    Parameters
    ----------
    fig : matplotlib Figure
    column_px : float
        Width of the text column in CSS pixels (default :data:`COLUMN_PX`).

    Returns
    -------
    float
        ``inf`` for a figure without text.
    """
    from matplotlib.text import Text

    if not (np.isfinite(column_px) and column_px > 0):
        raise ValueError(f"column_px must be a positive number of pixels, got {column_px!r}")
    natural_px = fig.get_size_inches()[0] * fig.dpi
    shrink = min(1.0, column_px / natural_px)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    if not sizes:
        return float("inf")
    # points -> natural pixels (dpi/72) -> displayed pixels (shrink) -> CSS points (72/96)
    return min(sizes) * fig.dpi / 72 * shrink * 72 / 96


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
    style = dict(
        linestyle="none",
        marker="o",
        color="#000000",
        markerfacecolor="none",
        markeredgewidth=1.3,
        markersize=7,
        zorder=5,
        label=label,
    )
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
    style = style_for(method, ax)
    stem = method if label is None else label
    xa = np.asarray(x, dtype=float).ravel()
    if theory is not None:
        _, th = _xy(xa, theory, "x", "theory")
        ax.plot(
            xa,
            th,
            color=style["color"],
            linestyle=style["linestyle"] if style["linestyle"] != "none" else "-",
            marker="",
            label=f"{stem} (theory)",
        )
    if sim_mean is not None:
        _, sm = _xy(xa, sim_mean, "x", "sim_mean")
        err = _check_sim_err(sim_err, xa.size)
        ax.errorbar(
            xa,
            sm,
            yerr=err,
            color=style["color"],
            marker=style["marker"] or "o",
            linestyle="none",
            markerfacecolor=style["color"],
            label=f"{stem} (simulation)",
        )
    return ax


def _check_sim_err(sim_err: Any, n: int) -> np.ndarray | None:
    """Error-bar half-widths as a float array of shape ``(n,)`` or ``(2, n)`` (None stays None)."""
    if sim_err is None:
        return None
    err = np.asarray(sim_err, dtype=float)
    if err.shape not in ((n,), (2, n)):
        raise ValueError(f"sim_err must have shape ({n},) or (2, {n}), got {err.shape}")
    return err
