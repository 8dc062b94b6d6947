"""One figure style for the whole book.

Every chapter calls :func:`use_house_style` (or :func:`new_figure` /
:func:`small_multiples`, which do it) and draws each method with
:func:`style_for`, so a method keeps the same colour, marker and line style in
every figure of the book, except where two methods of one figure would look
alike: within one figure no two methods share a colour (while the palette
lasts) and never a colour *and* a marker (:func:`style_for` remembers what it
gave each figure).  Figures are at most :data:`PAGE_WIDTH_IN` wide, so that
their text, at least :data:`MIN_FONT_PT`, is still that large where the page
shows it (:func:`min_display_font_pt` checks a finished figure); a figure made
with ``phone=True`` is narrow enough for a phone to show it whole, with at most
two panels per row.  Paper values are
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
    "finish_figure",
    "layout_problems",
    "plain_log_labels",
    "PHONE_WIDTH_IN",
    "PHONE_COLUMN_PX",
    "outer_labels",
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
#: width of the text column in CSS pixels on a phone (a 420 px window)
PHONE_COLUMN_PX = 388
#: width (inches) of a figure made with ``phone=True``: at the house dpi (110) it is 462 px, under the 1.3 x
#: column (504 px at a 420 px window, 465 px at 390 px) above which the page lets a figure scroll sideways on a
#: phone (book/_static/ldp-book.js), so a phone shows it whole, shrunk by about 0.84 at most
PHONE_WIDTH_IN = 4.2
#: at most this many panels in one row of a phone-width figure
PHONE_PANELS_PER_ROW = 2

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


def new_figure(nrows: int = 1, ncols: int = 1, *, phone: bool = False, **kw: Any) -> tuple[Any, Any]:
    """``plt.subplots`` in the house style, sized for the page.

    The default size depends on the grid (a single panel 6 in wide, a grid at
    :data:`PAGE_WIDTH_IN`).  A ``figsize`` wider than :data:`PAGE_WIDTH_IN` is
    scaled down, aspect kept, to that width: the page would shrink it anyway, and
    the text (at least :data:`MIN_FONT_PT`, in the house style) would become
    unreadable.  More than :data:`MAX_PANELS_PER_ROW` panels in a row will be
    cramped at that width: use :func:`small_multiples`.

    ``phone=True`` makes a figure a phone shows whole, without scrolling sideways:
    :data:`PHONE_WIDTH_IN` wide, at most :data:`PHONE_PANELS_PER_ROW` panels per
    row.  A grid of one or two rows and three or more columns is drawn
    *transposed* (each row of the page shows one column of the grid); the axes
    returned keep the shape asked for, so ``axes[r, c]`` is still the r-th row
    and c-th column of the grid in the code, and ``sharex``/``sharey`` of
    ``"row"``/``"col"`` keep their meaning.  Label the page's outer panels with
    :func:`outer_labels` (which panels are outer depends on the layout), and
    :func:`finish_figure` keeps the text of such a figure at least
    :data:`MIN_FONT_PT` at the phone's column width (:data:`PHONE_COLUMN_PX`).

    Parameters
    ----------
    nrows, ncols : int
    phone : bool
        Lay the grid out for a phone's width (see above).
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
    nrows, ncols = int(nrows), int(ncols)
    if phone:
        return _phone_figure(nrows, ncols, kw)
    w, h = kw.pop("figsize", None) or _grid_size(nrows, ncols)
    w, h = _checked_size(w, h, PAGE_WIDTH_IN)
    return plt.subplots(nrows, ncols, figsize=(w, h), **kw)


def _checked_size(w: float, h: float, widest: float) -> tuple[float, float]:
    if not (np.isfinite(w) and np.isfinite(h) and w > 0 and h > 0):
        raise ValueError(f"figsize must be two positive numbers, got {(w, h)!r}")
    if w > widest:
        w, h = widest, h * widest / w
    return w, h


def _phone_figure(nrows: int, ncols: int, kw: dict[str, Any]) -> tuple[Any, Any]:
    """:func:`new_figure` with ``phone=True``: the grid (transposed when it is wide) at the phone's width."""
    import matplotlib.pyplot as plt

    transpose = ncols > PHONE_PANELS_PER_ROW and nrows <= PHONE_PANELS_PER_ROW
    rows, cols = (ncols, nrows) if transpose else (nrows, ncols)
    if cols > PHONE_PANELS_PER_ROW:
        raise ValueError(
            f"a {nrows} x {ncols} grid cannot be laid out {PHONE_PANELS_PER_ROW} panels per row for a phone: "
            "use small_multiples(n_panels, phone=True)"
        )
    squeeze = kw.pop("squeeze", True)
    if transpose:
        swap = {"row": "col", "col": "row"}
        for key in ("sharex", "sharey"):
            if kw.get(key) in swap:
                kw[key] = swap[kw[key]]
    row_height = {1: 2.3, 2: 2.0}[cols]
    w, h = kw.pop("figsize", None) or (PHONE_WIDTH_IN, row_height * rows + 0.3)
    w, h = _checked_size(w, h, PHONE_WIDTH_IN)
    fig, axes = plt.subplots(rows, cols, figsize=(w, h), squeeze=False, **kw)
    fig.__dict__["_ldp_phone"] = True
    axes = axes.T if transpose else axes
    if squeeze:
        axes = axes.item() if axes.size == 1 else (axes.ravel() if 1 in axes.shape else axes)
    return fig, axes


def outer_labels(axes: Any, xlabel: str | None = None, ylabel: str | None = None) -> None:
    """Axis labels on the outer panels of a grid as the page shows it.

    ``xlabel`` goes on the lowest panel of each column of the page, ``ylabel``
    on the panels of its first column, whatever order the axes come in (a
    transposed :func:`new_figure` grid, :func:`small_multiples` with an
    incomplete last row).  ``None`` leaves a label as it is.

    Parameters
    ----------
    axes : Axes or array/list of Axes
    xlabel, ylabel : str, optional
    """
    flat = [ax for ax in np.atleast_1d(np.asarray(axes, dtype=object)).ravel() if ax is not None]
    spans = {ax: ax.get_subplotspec() for ax in flat}
    lowest: dict[int, int] = {}
    for spec in spans.values():
        col = spec.colspan.start
        lowest[col] = max(lowest.get(col, -1), spec.rowspan.stop - 1)
    for ax, spec in spans.items():
        if xlabel is not None and spec.rowspan.stop - 1 == lowest[spec.colspan.start]:
            ax.set_xlabel(xlabel)
        if ylabel is not None and spec.colspan.start == 0:
            ax.set_ylabel(ylabel)


def small_multiples(
    n_panels: int, ncols: int | None = None, *, panel_height: float | None = None, phone: bool = False, **kw: Any
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
    phone : bool
        At most :data:`PHONE_PANELS_PER_ROW` panels per row, :data:`PHONE_WIDTH_IN` wide (as
        :func:`new_figure` with ``phone=True``).
    **kw
        Passed to ``matplotlib.pyplot.subplots`` (``sharex``, ``sharey``, ...).

    Returns
    -------
    (Figure, list of Axes)
        The figure and its ``n_panels`` axes in reading order.
    """
    if isinstance(n_panels, bool) or not isinstance(n_panels, (int, np.integer)) or n_panels < 1:
        raise ValueError(f"n_panels must be an integer >= 1, got {n_panels!r}")
    widest = PHONE_PANELS_PER_ROW if phone else MAX_PANELS_PER_ROW
    if ncols is None:
        ncols = min(int(n_panels), widest)
    if isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or not 1 <= ncols <= widest:
        raise ValueError(f"ncols must be an integer from 1 to {widest} (panels per row at this width), got {ncols!r}")
    if panel_height is not None and not (np.isfinite(panel_height) and panel_height > 0):
        raise ValueError(f"panel_height must be a positive number of inches, got {panel_height!r}")
    nrows = -(-int(n_panels) // int(ncols))
    w, h = _grid_size(nrows, int(ncols))
    if phone:
        w, h = PHONE_WIDTH_IN, {1: 2.3, 2: 2.0}[int(ncols)] * nrows + 0.3
    if panel_height is not None:
        h = panel_height * nrows + 0.3
    kw.setdefault("squeeze", False)
    fig, axes = new_figure(nrows, int(ncols), figsize=(w, h), phone=phone, **kw)
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


# --------------------------------------------------------------------------------------------------
# finish_figure: one layout pass for every multi-panel figure of the book
# --------------------------------------------------------------------------------------------------

#: corners and edges tried, in this order, for a legend inside a panel
_LEGEND_SPOTS = (
    "upper right",
    "upper left",
    "lower left",
    "lower right",
    "center right",
    "center left",
    "upper center",
    "lower center",
)
#: most legend entries side by side in a legend below the panels
_MAX_LEGEND_COLS = 4
#: reference colours (black, greys): a series drawn in them is a reference and keeps its look
_REFERENCE_COLOURS = {"#000000", "#4d4d4d", "#7f7f7f", "#808080"}


def finish_figure(
    fig: Any,
    *,
    title: str | None = None,
    legend: str | bool | None = "auto",
    fit: str | None = "xy",
    margin: float = 0.05,
    column_px: float = COLUMN_PX,
) -> Any:
    """Lay out a finished figure as every figure of the book is laid out; call it once, after drawing.

    1. Constrained layout; a figure wider than :data:`PAGE_WIDTH_IN` is scaled to it
       (a ``phone=True`` figure: :data:`PHONE_WIDTH_IN`, its text checked at :data:`PHONE_COLUMN_PX`).
    2. Every labelled series gets a colour and marker pair no other series of the
       figure has (the first free palette colour; an unmarked coloured line among
       several series gets a marker about every eighth point).
    3. ``fit``: each panel's ranges fitted to its lines, markers, error bars, bands,
       bars and text anchors, plus ``margin`` and room for the largest marker (log
       axes in log space; image panels keep theirs).
    4. ``legend="auto"``: one legend below the panels when several panels have
       labelled series (deduplicated by label); else inside the panel in the first
       corner whose box covers no drawn data (measured), else below the panel.
       ``"inside"`` forces the best corner, ``"outside"`` the legend below,
       ``False`` removes legends, ``None`` keeps them as drawn.
    5. Text smaller than :data:`MIN_FONT_PT` in a ``column_px`` column is raised to
       it; colliding tick labels are thinned (category labels turned 30 degrees).

    Parameters
    ----------
    fig : matplotlib Figure
    title : str, optional
        Figure title (suptitle); a title mentioning the build "profile" is refused.
    legend : {"auto", "inside", "outside"}, False or None
    fit : {"xy", "x", "y"} or None
    margin : float
        Fraction of the data range added on each side (0 to 0.5).
    column_px : float
        Width of the page column in CSS pixels.

    Returns
    -------
    Figure
        ``fig``; :func:`layout_problems` lists what a test checks on it.
    """
    fig = _check_finish_args(fig, legend, fit, margin, column_px)
    if fig.__dict__.get("_ldp_phone"):
        column_px = min(column_px, PHONE_COLUMN_PX)
    if title is not None:
        fig.suptitle(str(title))
    _refuse_machinery_words(fig)
    _constrained_page_width(fig)
    _distinct_series(fig)
    _raise_small_fonts(fig, column_px)
    if fit:
        _fit_ranges(fig, fit, margin)
    if legend is not None:
        _place_legends(fig, legend)
    _settle_text(fig, column_px)
    return fig


def _settle_text(fig: Any, column_px: float) -> None:
    """Last pass over the laid-out figure's text: fonts raised again, long labels wrapped, crowded ticks thinned."""
    _raise_small_fonts(fig, column_px)
    fig.draw_without_rendering()
    _wrap_long_labels(fig)
    _thin_crowded_ticks(fig)


def _constrained_page_width(fig: Any) -> None:
    fig.set_layout_engine("constrained")
    w, h = fig.get_size_inches()
    widest = PHONE_WIDTH_IN if fig.__dict__.get("_ldp_phone") else PAGE_WIDTH_IN
    if w > widest:
        fig.set_size_inches(widest, h * widest / w)


def _check_finish_args(fig: Any, legend: Any, fit: Any, margin: Any, column_px: Any) -> Any:
    if not hasattr(fig, "add_subplot"):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if legend not in ("auto", "inside", "outside", False, None):
        raise ValueError(f"legend must be 'auto', 'inside', 'outside', False or None, got {legend!r}")
    if fit not in ("xy", "x", "y", None, ""):
        raise ValueError(f"fit must be 'xy', 'x', 'y' or None, got {fit!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin <= 0.5:
        raise ValueError(f"margin must be a fraction from 0 to 0.5, got {margin!r}")
    if isinstance(column_px, bool) or not isinstance(column_px, (int, float)) or not column_px > 0:
        raise ValueError(f"column_px must be a positive number of pixels, got {column_px!r}")
    return fig


def _panels(fig: Any) -> list[Any]:
    """The figure's visible rectilinear axes (colour bars and polar/3-D panels excluded)."""
    return [
        ax for ax in fig.get_axes() if ax.get_visible() and ax.name == "rectilinear" and not hasattr(ax, "_colorbar")
    ]


def _titles(fig: Any) -> list[Any]:
    texts = [t for t in (getattr(fig, "_suptitle", None),) if t is not None] + list(fig.texts)
    for ax in fig.get_axes():
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
    return list(dict.fromkeys(texts))


def _refuse_machinery_words(fig: Any) -> None:
    for text in _titles(fig):
        if re.search(r"\bprofiles?\b", text.get_text(), flags=re.IGNORECASE):
            raise ValueError(
                f"figure text {text.get_text()!r} mentions the build profile: say what the reader sees "
                "(e.g. '10 trials per point') instead"
            )


# ---- series: distinct colour and marker ----------------------------------------------------------


def _hex(colour: Any) -> str:
    from matplotlib.colors import to_hex

    try:
        return to_hex(colour)
    except (ValueError, TypeError):
        arr = np.asarray(colour, dtype=float)
        return to_hex(arr.reshape(-1, arr.shape[-1])[0]) if arr.size else "#000000"


def _series_look(handle: Any) -> tuple[str, str] | None:
    """``(colour, marker)`` of a legend handle, or None when it has no single colour (bars, patches)."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D

    line = _main_line(handle)
    if isinstance(line, Line2D):
        marker = line.get_marker()
        return _hex(line.get_color()), "" if marker in (None, "None", "none", " ", "") else str(marker)
    if isinstance(handle, Collection):
        return _hex(handle.get_facecolor() if len(handle.get_facecolor()) else handle.get_edgecolor()), "coll"
    return None


def _main_line(handle: Any) -> Any:
    """The Line2D a legend handle draws its series with (an error bar's data line), or the handle."""
    from matplotlib.container import ErrorbarContainer

    if isinstance(handle, ErrorbarContainer):
        return handle.lines[0]
    return handle


def _restyle(handle: Any, colour: str | None, marker: str | None, n_points: int) -> None:
    from matplotlib.container import ErrorbarContainer

    line = _main_line(handle)
    if colour is not None:
        line.set_color(colour)
        if line.get_markerfacecolor() not in ("none", "None"):
            line.set_markerfacecolor(colour)
        line.set_markeredgecolor(colour)
        if isinstance(handle, ErrorbarContainer):
            for part in list(handle.lines[1]) + list(handle.lines[2]):
                part.set_color(colour)
    if marker is not None:
        line.set_marker(marker)
        if line.get_linestyle() not in ("None", "none", "", " ") and n_points > 10:
            line.set_markevery(max(1, n_points // 8))


def _labelled_series(fig: Any) -> list[tuple[Any, Any, str]]:
    """``(axes, handle, label)`` of every labelled series, panel by panel; a label twice in a panel is refused."""
    out = []
    for ax in _panels(fig):
        handles, labels = ax.get_legend_handles_labels()
        seen = set()
        for handle, label in zip(handles, labels):
            if label in seen:
                raise ValueError(
                    f"two series of one panel are both labelled {label!r}: give each series its own label "
                    "(e.g. the parameter that distinguishes them)"
                )
            seen.add(label)
            out.append((ax, handle, label))
    return out


def _distinct_series(fig: Any) -> None:
    """Give each label a (colour, marker) pair no other label of the figure has."""
    series = _labelled_series(fig)
    looks: dict[str, tuple[str, str]] = {}
    for ax, handle, label in series:
        look = _series_look(handle)
        if look is None:
            continue
        if label in looks:  # the same series in another panel: draw it as in the first
            if look != looks[label]:
                _restyle(handle, looks[label][0], looks[label][1] or None, _n_points(handle))
            continue
        taken = set(looks.values())
        several = sum(1 for a, _, _ in series if a is ax) > 1
        colour, marker = look
        if look[1] != "coll":
            if (colour, marker) in taken and colour not in _REFERENCE_COLOURS:
                colour = next((c for c in PALETTE if c not in {t[0] for t in taken}), colour)
            if several and not marker and colour not in _REFERENCE_COLOURS:
                marker = next(m for m in _MARKERS if (colour, m) not in taken)
            if (colour, marker) in taken:
                marker = next((m for m in _MARKERS if (colour, m) not in taken), marker)
            if (colour, marker) != look:
                _restyle(
                    handle,
                    colour if colour != look[0] else None,
                    marker if marker != look[1] else None,
                    _n_points(handle),
                )
        looks[label] = (colour, marker)


def _n_points(handle: Any) -> int:
    line = _main_line(handle)
    return len(line.get_xdata()) if hasattr(line, "get_xdata") else 0


# ---- what a panel shows, in data and display coordinates -----------------------------------------


def _coords_of(ax: Any, transform: Any) -> str:
    """Which coordinates of an artist are data coordinates of ``ax``: "xy", "x", "y" or ""."""
    if transform == ax.transData:
        return "xy"
    if transform == ax.get_xaxis_transform():
        return "x"
    if transform == ax.get_yaxis_transform():
        return "y"
    return ""


def _data_points(ax: Any) -> list[tuple[np.ndarray, str, float]]:
    """``(points in data coordinates, which coordinates count, marker radius in pixels)`` per artist."""
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection

    out = []
    for line in ax.get_lines():
        if line.get_visible() and len(line.get_xdata()):
            radius = line.get_markersize() / 2 * ax.figure.dpi / 72 if _series_look(line)[1] else 0.0
            out.append((np.asarray(line.get_xydata(), dtype=float), _coords_of(ax, line.get_transform()), radius))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection) and len(coll.get_offsets()):
            sizes = coll.get_sizes()
            radius = float(np.sqrt(np.max(sizes)) / 2 * ax.figure.dpi / 72) if len(sizes) else 0.0
            out.append(
                (np.asarray(coll.get_offsets(), dtype=float), _coords_of(ax, coll.get_offset_transform()), radius)
            )
        elif isinstance(coll, (LineCollection, PolyCollection)):
            verts = [p.vertices for p in coll.get_paths() if len(p.vertices)]
            if verts:
                out.append((np.vstack(verts).astype(float), _coords_of(ax, coll.get_transform()), 0.0))
    for patch in ax.patches:
        if patch.get_visible():
            verts = patch.get_patch_transform().transform(patch.get_path().vertices)
            out.append((np.asarray(verts, dtype=float), _coords_of(ax, patch.get_data_transform()), 0.0))
    for text in ax.texts:
        if text.get_visible() and text.get_text().strip():
            out.append((np.asarray([text.get_position()], dtype=float), _coords_of(ax, text.get_transform()), 0.0))
    return out


def _extent(ax: Any, axis: str) -> tuple[float, float, float] | None:
    """Finite data range of ``ax`` along ``axis`` ("x" or "y") and the largest marker radius (pixels)."""
    col = 0 if axis == "x" else 1
    log = (ax.get_xscale() if axis == "x" else ax.get_yscale()) == "log"
    lo, hi, radius = np.inf, -np.inf, 0.0
    for pts, coords, r in _data_points(ax):
        if axis not in coords:
            continue
        v = pts[:, col]
        v = v[np.isfinite(v) & ((v > 0) if log else True)]
        if v.size:
            lo, hi, radius = min(lo, v.min()), max(hi, v.max()), max(radius, r)
    return (float(lo), float(hi), radius) if lo <= hi else None


def _fit_ranges(fig: Any, fit: str, margin: float) -> None:
    fig.draw_without_rendering()
    for ax in _panels(fig):
        if ax.images:
            continue
        for axis in "xy":
            if axis in fit:
                _fit_axis(ax, axis, margin)


def _fit_axis(ax: Any, axis: str, margin: float) -> None:
    shared = (ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()).get_siblings(ax)
    found = [e for e in (_extent(a, axis) for a in shared) if e is not None]
    if not found:
        return
    lo, hi = min(e[0] for e in found), max(e[1] for e in found)
    bbox = ax.get_window_extent()
    span_px = max(bbox.width if axis == "x" else bbox.height, 1.0)
    pad = margin + max(e[2] for e in found) / span_px
    log = (ax.get_xscale() if axis == "x" else ax.get_yscale()) == "log"
    a, b = (np.log10(lo), np.log10(hi)) if log else (lo, hi)
    width = b - a if b > a else (abs(a) * 0.1 or 0.5)
    a, b = a - pad * width, b + pad * width
    if log:
        a, b = 10**a, 10**b
    inverted = ax.xaxis_inverted() if axis == "x" else ax.yaxis_inverted()
    setter = ax.set_xlim if axis == "x" else ax.set_ylim
    setter((b, a) if inverted else (a, b))


def _display_samples(ax: Any, step_px: float = 3.0) -> tuple[np.ndarray, float]:
    """Points (display pixels) along every drawn series of ``ax``: vertices and the segments between them."""
    from matplotlib.collections import LineCollection

    chunks, radius = [np.empty((0, 2))], 0.0
    for line in ax.get_lines():
        if not line.get_visible() or not len(line.get_xdata()):
            continue
        pts = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        joined = line.get_linestyle() not in ("None", "none", "", " ")
        chunks.append(_densify(pts, step_px) if joined else pts[np.isfinite(pts).all(axis=1)])
        radius = max(radius, line.get_markersize() / 2 * ax.figure.dpi / 72 if _series_look(line)[1] else 0.0)
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, LineCollection):
            for path in coll.get_paths():
                chunks.append(_densify(coll.get_transform().transform(path.vertices), step_px))
        elif len(coll.get_offsets()) and not coll.get_paths()[0].vertices.size > 50:
            chunks.append(coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float)))
    for text in ax.texts:
        if text.get_visible() and text.get_text().strip():
            box = text.get_window_extent()
            chunks.append(np.array([[box.x0, box.y0], [box.x1, box.y1], [box.x0, box.y1], [box.x1, box.y0]]))
    return np.vstack(chunks), radius


def _densify(pts: np.ndarray, step_px: float) -> np.ndarray:
    """Vertices of a polyline and points every ``step_px`` pixels along its finite segments."""
    pts = np.asarray(pts, dtype=float)
    out = [pts[np.isfinite(pts).all(axis=1)]]
    a, b = pts[:-1], pts[1:]
    ok = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    for p, q in zip(a[ok], b[ok]):
        n = int(min(np.hypot(*(q - p)) / step_px, 2000))
        if n > 1:
            t = np.linspace(0, 1, n)[:, None]
            out.append(p + t * (q - p))
    return np.vstack(out) if out else np.empty((0, 2))


def _filled_areas(ax: Any) -> list[Any]:
    """Filled regions of ``ax`` as display-coordinate paths (bars, bands, patches)."""
    from matplotlib.collections import PolyCollection

    paths = [p.get_transform().transform_path(p.get_path()) for p in ax.patches if p.get_visible() and p.get_fill()]
    for coll in ax.collections:
        if isinstance(coll, PolyCollection) and coll.get_visible():
            paths += [coll.get_transform().transform_path(p) for p in coll.get_paths()]
    return paths


def _covered(ax: Any, box: Any, samples: tuple[np.ndarray, float] | None = None) -> int:
    """How many drawn data samples of ``ax`` fall inside the display box ``box`` (images cover everything)."""
    if ax.images:
        return 10**6
    pts, radius = samples if samples is not None else _display_samples(ax)
    x0, y0, x1, y1 = box.x0 - radius, box.y0 - radius, box.x1 + radius, box.y1 + radius
    inside = int(np.sum((pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)))
    grid = np.array([[x, y] for x in np.linspace(box.x0, box.x1, 6) for y in np.linspace(box.y0, box.y1, 4)])
    for path in _filled_areas(ax):
        inside += int(path.contains_points(grid).sum())
    return inside


# ---- legends ------------------------------------------------------------------------------------


def _existing_legend_title(fig: Any) -> str | None:
    for leg in [ax.get_legend() for ax in fig.get_axes()] + list(fig.legends):
        if leg is not None and leg.get_title().get_text():
            return leg.get_title().get_text()
    return None


def _remove_legends(fig: Any) -> None:
    for ax in fig.get_axes():
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    for leg in list(fig.legends):
        leg.remove()


def _place_legends(fig: Any, legend: str | bool) -> None:
    title = _existing_legend_title(fig)
    _remove_legends(fig)
    if legend is False:
        return
    series = _labelled_series(fig)
    if not series:
        return
    panels = list(dict.fromkeys(ax for ax, _, _ in series))
    if legend == "outside" or (legend == "auto" and len(panels) > 1):
        _legend_below(fig, series, title)
        return
    for ax in panels:
        entries = [(h, lab) for a, h, lab in series if a is ax]
        if not _legend_inside(fig, ax, entries, title, force=legend == "inside"):
            _legend_below(fig, [(ax, h, lab) for h, lab in entries], title)


def _legend_below(fig: Any, series: list[tuple[Any, Any, str]], title: str | None) -> Any:
    """One legend below the panels, with as many entries side by side as the figure's width holds."""
    entries = dict((label, handle) for _, handle, label in reversed(series))
    labels = list(dict.fromkeys(label for _, _, label in series))
    handles = [entries[label] for label in labels]
    width = fig.get_size_inches()[0] * fig.dpi
    for ncols in range(len(labels), 0, -1):
        leg = fig.legend(handles, labels, loc="outside lower center", ncols=ncols, title=title)
        if ncols == 1 or leg.get_window_extent(fig.canvas.get_renderer()).width <= 0.98 * width:
            return leg
        leg.remove()
    return None


def _wrap_long_labels(fig: Any) -> None:
    """Break axis labels and panel titles longer than their panel's side, and a figure title wider than the
    figure, onto two or more lines."""
    import textwrap

    renderer = fig.canvas.get_renderer()
    for ax in _panels(fig):
        frame = ax.get_window_extent(renderer)
        for text, span, vertical in (
            (ax.xaxis.label, frame.width, False),
            (ax.title, frame.width, False),
            (ax.yaxis.label, frame.height, True),
        ):
            words = text.get_text()
            box = text.get_window_extent(renderer)
            length = box.height if vertical else box.width
            if words and "\n" not in words and "$" not in words and length > span:
                chars = max(int(len(words) * span / length) - 1, 8)
                text.set_text("\n".join(textwrap.wrap(words, chars)))
    title = getattr(fig, "_suptitle", None)
    width = fig.get_window_extent(renderer).width
    if title is not None and title.get_text() and "\n" not in title.get_text() and "$" not in title.get_text():
        length = title.get_window_extent(renderer).width
        if length > 0.98 * width:
            chars = max(int(len(title.get_text()) * 0.98 * width / length) - 1, 8)
            title.set_text("\n".join(textwrap.wrap(title.get_text(), chars)))


def _legend_inside(fig: Any, ax: Any, entries: list[tuple[Any, str]], title: str | None, force: bool) -> bool:
    """Put the legend in the corner of ``ax`` that covers the fewest data samples; False if none is free."""
    handles, labels = [h for h, _ in entries], [lab for _, lab in entries]
    leg = ax.legend(handles, labels, loc=_LEGEND_SPOTS[0], title=title)
    fig.draw_without_rendering()
    w, h = leg.get_window_extent().width, leg.get_window_extent().height
    frame = ax.get_window_extent()
    pad = leg.borderaxespad * leg._fontsize * fig.dpi / 72
    samples = _display_samples(ax)
    scores = []
    for spot in _LEGEND_SPOTS:
        box = _spot_box(spot, frame, w, h, pad)
        scores.append((_covered(ax, box, samples), _LEGEND_SPOTS.index(spot), spot))
    best = min(scores)
    if best[0] > 0 and not force:
        leg.remove()
        return False
    ax.legend(handles, labels, loc=best[2], title=title)
    return True


def _spot_box(spot: str, frame: Any, w: float, h: float, pad: float) -> Any:
    from matplotlib.transforms import Bbox

    vert, _, horiz = spot.partition(" ")
    if vert == "center" and not horiz:
        vert = horiz = "center"
    x0 = {"left": frame.x0 + pad, "right": frame.x1 - pad - w, "center": (frame.x0 + frame.x1 - w) / 2}[horiz]
    y0 = {"lower": frame.y0 + pad, "upper": frame.y1 - pad - h, "center": (frame.y0 + frame.y1 - h) / 2}[vert]
    return Bbox.from_bounds(x0, y0, w, h)


# ---- fonts and ticks ----------------------------------------------------------------------------


def _display_factor(fig: Any, column_px: float) -> float:
    """Displayed CSS points per font point of ``fig`` in a ``column_px`` column."""
    natural_px = fig.get_size_inches()[0] * fig.dpi
    return fig.dpi / 96 * min(1.0, column_px / natural_px)


def _raise_small_fonts(fig: Any, column_px: float) -> None:
    from matplotlib.text import Text

    smallest = MIN_FONT_PT / _display_factor(fig, column_px) + 1e-9
    for ax in fig.get_axes():
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            labels = axis.get_ticklabels(which="both")
            if labels and min(t.get_fontsize() for t in labels) < smallest:
                ax.tick_params(axis=name, which="both", labelsize=smallest)
    for text in fig.findobj(Text):
        if text.get_fontsize() < smallest:
            text.set_fontsize(smallest)


def _overlapping(boxes: list[Any], gap: float = 1.0) -> bool:
    for a, b in zip(boxes, boxes[1:]):
        if a.x1 + gap > b.x0 and b.x1 + gap > a.x0 and a.y1 + gap > b.y0 and b.y1 + gap > a.y0:
            return True
    return False


def _shown_ticklabels(axis: Any) -> list[Any]:
    """The major tick labels the axis draws: visible, not empty, inside the view interval."""
    lo, hi = sorted(axis.get_view_interval())
    tol = (hi - lo) * 1e-9
    return [
        t
        for loc, t in zip(axis.get_majorticklocs(), axis.get_majorticklabels())
        if lo - tol <= loc <= hi + tol and t.get_visible() and t.get_text().strip()
    ]


def _tick_boxes(fig: Any, axis: Any) -> list[Any]:
    renderer = fig.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in _shown_ticklabels(axis)]


def _thin_crowded_ticks(fig: Any) -> None:
    """Fewer ticks (or turned category labels) wherever neighbouring tick labels collide."""
    from matplotlib.ticker import FixedLocator, LogLocator, MaxNLocator

    for _ in range(4):
        fig.draw_without_rendering()
        crowded = [
            (ax, axis) for ax in _panels(fig) for axis in (ax.xaxis, ax.yaxis) if _overlapping(_tick_boxes(fig, axis))
        ]
        if not crowded:
            return
        for ax, axis in crowded:
            n = max(len(_tick_boxes(fig, axis)) - 1, 2)
            locator = axis.get_major_locator()
            if isinstance(locator, FixedLocator):
                if axis is ax.xaxis:
                    ax.tick_params(axis="x", labelrotation=30)
                    for t in axis.get_ticklabels():
                        t.set_horizontalalignment("right")
            elif isinstance(locator, LogLocator):
                axis.set_major_locator(LogLocator(numticks=n))
            else:
                axis.set_major_locator(MaxNLocator(nbins=max(n - 1, 2)))


def plain_log_labels(ax: Any, axis: str = "y") -> Any:
    """Label a log axis with plain numbers ("0.2", "0.001", "500") instead of powers of ten ("2 x 10^-1").

    The ticks that carry a label are the ones matplotlib would label (every decade, and the minor ticks of an
    axis that spans about one decade or less); only the notation changes.

    Parameters
    ----------
    ax : matplotlib Axes
    axis : {"x", "y"}

    Returns
    -------
    Axes
    """
    from matplotlib.ticker import LogFormatterSciNotation

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")

    class _Plain(LogFormatterSciNotation):
        def __call__(self, x: float, pos: Any = None) -> str:
            return f"{x:g}" if super().__call__(x, pos) else ""

    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(_Plain())
    target.set_minor_formatter(_Plain(labelOnlyBase=False))
    return ax


def layout_problems(fig: Any, column_px: float = COLUMN_PX) -> list[str]:
    """What a reader would stumble over in ``fig``, one sentence each (empty when the layout is clean).

    Checks: a legend box that covers drawn data of its panel (or, for a figure
    legend, of any panel), two texts of the figure whose boxes overlap (titles,
    axis labels, tick labels, legends, the figure title), and text smaller than
    :data:`MIN_FONT_PT` as shown in a ``column_px`` column (for a figure made with
    ``phone=True``, at most :data:`PHONE_COLUMN_PX`).
    """
    if fig.__dict__.get("_ldp_phone"):
        column_px = min(column_px, PHONE_COLUMN_PX)
    fig.draw_without_rendering()
    problems = []
    for ax in fig.get_axes():
        leg = ax.get_legend()
        if leg is not None and _covered(ax, leg.get_window_extent()):
            problems.append(f"the legend of panel {ax.get_title()!r} covers its data")
    for leg in fig.legends:
        for ax in _panels(fig):
            if _covered(ax, leg.get_window_extent()):
                problems.append(f"the figure legend covers the data of panel {ax.get_title()!r}")
    problems += _text_collisions(fig)
    smallest = min_display_font_pt(fig, column_px)
    if smallest < MIN_FONT_PT - 1e-6:
        problems.append(f"text shown at {smallest:.1f} pt, below {MIN_FONT_PT:g} pt")
    return problems


def _text_boxes(fig: Any) -> list[tuple[str, Any]]:
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _titles(fig) if t.get_visible() and t.get_text()]
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            boxes += [(t.get_text(), b) for t, b in zip(_shown_ticklabels(axis), _tick_boxes(fig, axis))]
    legends = [ax.get_legend() for ax in fig.get_axes() if ax.get_legend() is not None] + list(fig.legends)
    boxes += [("legend", leg.get_window_extent(renderer)) for leg in legends]
    return boxes


def _text_collisions(fig: Any) -> list[str]:
    boxes = _text_boxes(fig)
    found = []
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1 :]:
            if a.x1 > b.x0 + 0.5 and b.x1 > a.x0 + 0.5 and a.y1 > b.y0 + 0.5 and b.y1 > a.y0 + 0.5:
                found.append(f"texts {ta!r} and {tb!r} overlap")
    return found
