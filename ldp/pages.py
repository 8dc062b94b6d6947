"""Publishing a notebook's numbers to its prose (glue many values at once) and showing tables.

Numbers in the book's prose come from ``myst_nb.glue``, never typed by hand.  A
chapter computes a handful of values in one cell and publishes them together::

    from ldp.pages import glue_values

    glue_values({"eps": eps, "n-users": n, "avd-em": avd_em}, prefix="lopub")
    # the prose then writes {glue:text}`lopub-avd-em:.3f`

Tables go through :func:`show_table`: no meaningless ``0 .. n-1`` index,
integers as integers, floats with a sensible number of significant digits,
numbers right-aligned.

``myst_nb`` is imported only when :func:`glue_values` is called, so :mod:`ldp`
does not need the book toolchain.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "glue_values",
    "plain",
    "show_table",
    "format_number",
    "format_value",
    "format_below",
    "power_of_ten",
    "html_unbroken",
    "plural",
    "HTML",
]

_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (its repr, ``np.float64(...)``, breaks glue's formatting)."""
    return value.item() if isinstance(value, np.generic) else value


def glue_values(values: Mapping[str, Any], *, prefix: str = "", display: bool = False) -> list[str]:
    """Glue every ``key: value`` of ``values`` as ``{prefix}-{key}`` (or ``key`` without a prefix).

    Parameters
    ----------
    values : mapping of str to Any
        Names (letters, digits, ``-``, ``_``, ``.``) and the values to publish;
        numpy scalars are converted to Python numbers.
    prefix : str
        Usually the chapter's key, e.g. ``"lopub"``; joined to each name with ``-``.
    display : bool
        Passed to ``myst_nb.glue``; False (the default) publishes without showing.

    Returns
    -------
    list of str
        The glued names, in order; a notebook cell that ends with this call displays nothing.

    Raises
    ------
    TypeError
        If ``values`` is not a mapping.
    ValueError
        If a name or the prefix is not a valid key (checked before anything is glued).
    """
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of names to values, got {type(values).__name__}")
    if not isinstance(prefix, str) or (prefix and not _KEY_RE.match(prefix)):
        raise ValueError(f"prefix must be '' or a key of letters, digits, '-', '_' or '.', got {prefix!r}")
    names = []
    for key in values:
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise ValueError(f"glue names must be keys of letters, digits, '-', '_' or '.', got {key!r}")
        names.append(f"{prefix}-{key}" if prefix else key)
    try:
        from myst_nb import glue
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("glue_values needs myst_nb (pip install 'ldp-compendium[book]')") from exc
    for name, value in zip(names, values.values()):
        glue(name, plain(value), display=display)
    return _GluedNames(names)


class _GluedNames(list):
    """The names :func:`glue_values` published: a list that a notebook cell never displays.

    A cell ending in ``glue_values(...)`` would otherwise print the label list on the page (plumbing, not
    content); the names stay available to code (``names[0]``, ``len(names)``, equality with a list).
    """

    def _ipython_display_(self) -> None:
        return None


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(exponent: int) -> str:
    """``10`` with an integer ``exponent`` as a Unicode superscript: ``power_of_ten(-16) == "10⁻¹⁶"``."""
    if isinstance(exponent, bool) or not isinstance(exponent, (int, np.integer)):
        raise TypeError(f"exponent must be an integer, got {exponent!r}")
    return "10" + str(int(exponent)).translate(_SUPERSCRIPT)


def format_number(x: Any, digits: int = 3, *, trim: bool = False) -> str:
    """A number as a table shows it: integers whole, floats with ``digits`` significant digits.

    Fixed notation from 0.001 to 10^6 (``0.0123``, ``12.3``, ``12346``), powers of ten
    outside (``1.23 × 10⁷``, ``4.56 × 10⁻⁵``, never the ``e+07`` form, joined by no-break spaces so
    that a line never breaks inside the number); a float that holds an integer prints without decimals;
    NaN prints as an em dash.

    Parameters
    ----------
    x : number
    digits : int
        Significant digits for floats (>= 1).
    trim : bool
        Drop trailing zeros of the decimals, as the ``g`` format does (``5 × 10⁻⁵``,
        ``0.02``): for tolerances and quantities quoted in prose rather than columns.

    Returns
    -------
    str
    """
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits must be an integer >= 1, got {digits!r}")
    x = plain(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, int):
        return str(x) if abs(x) < 10**15 else format_number(float(x), digits, trim=trim)
    if not np.isfinite(x):
        return "—" if np.isnan(x) else ("∞" if x > 0 else "−∞")
    if x == 0:
        return "0"
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    mag = int(np.floor(np.log10(abs(float(f"{x:.{digits - 1}e}")))))  # after rounding: 0.9999999 is 1.00
    if mag >= 6 or mag < -3:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        if trim and "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}\u00a0×\u00a0{power_of_ten(int(exponent))}"  # no-break spaces: one number, one line
    text = f"{x:.{max(0, digits - 1 - mag)}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_below(x: Any) -> str:
    """A tiny non-negative number (a float round-off, a largest deviation) as its bound: what it means.

    ``"0 exactly"`` for 0, otherwise ``"less than 10⁻ᵏ"`` with the smallest such power of ten
    (``format_below(2.2e-16) == "less than 10⁻¹⁵"``): no exponent form and no false digits on the page.

    Raises
    ------
    ValueError
        If ``x`` is negative or not finite.
    """
    x = plain(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not np.isfinite(x) or x < 0:
        raise ValueError(f"format_below needs a finite number >= 0, got {x!r}")
    if x == 0:
        return "0 exactly"
    return "less than " + power_of_ten(int(np.floor(np.log10(x))) + 1)


def format_value(v: Any, digits: int = 4, *, max_items: int = 4) -> str:
    """Any value of a claims table or of prose as a reader should see it: the one formatter of the book.

    Numbers through :func:`format_number` (``digits`` significant digits, no exponent
    form); None and NaN as an em dash; booleans as "yes"/"no"; sequences of up to
    ``max_items`` values listed, longer ones as their range and count; mappings as
    ``name: value`` pairs; numpy scalars and nested tuples unwrapped (never
    ``np.int64(...)`` on the page).
    """
    v = plain(v)
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return format_number(v, digits)
    if isinstance(v, str):
        return v
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {format_value(x, digits, max_items=max_items)}" for k, x in v.items())
    if isinstance(v, (list, tuple, np.ndarray)):
        items = list(np.asarray(v, dtype=object).ravel()) if isinstance(v, np.ndarray) else list(v)
        if not items:
            return "—"
        items = [plain(x) for x in items]
        if all(isinstance(x, bool) for x in items):
            yes = sum(items)
            return "yes" if yes == len(items) else ("no" if yes == 0 else f"{yes} of {len(items)} yes")
        numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in items)
        if numeric and len(items) > max_items:
            lo, hi = min(items), max(items)
            return f"{format_number(lo, digits)} to {format_number(hi, digits)} ({len(items)} values)"
        shown = [format_value(x, digits, max_items=max_items) for x in items[:max_items]]
        more = f", … ({len(items)} in all)" if len(items) > max_items else ""
        inner = ", ".join(shown) + more
        return f"({inner})" if isinstance(v, tuple) else inner
    return str(v)


_TOKEN = re.compile(r"\S+")


def html_unbroken(text: Any) -> str:
    """``text`` as escaped HTML in which no word or number can break across lines inside itself.

    Browsers break lines after a hyphen, a dash or a slash, so a narrow table cell shows "ε-" / "LDP" or
    "0.4–" / "0.6".  Every run of non-space characters that holds anything but letters and digits is wrapped
    in ``<span class="ldp-tok">`` (``white-space: nowrap`` in the claims tables' style), so lines break only
    at spaces; the text itself (what a reader copies or searches) is unchanged.
    """
    import html

    out, last = [], 0
    text = str(text)
    for m in _TOKEN.finditer(text):
        out.append(html.escape(text[last : m.start()]))
        token = m.group(0)
        if len(token) > 1 and not token.isalnum():
            out.append(f'<span class="ldp-tok">{html.escape(token)}</span>')
        else:
            out.append(html.escape(token))
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


class HTML:
    """A piece of HTML that notebooks and the book display as such (``_repr_html_``)."""

    def __init__(self, html: str) -> None:
        self.html = str(html)

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html


def _default_index(index: Any) -> bool:
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and index.name is None


def _table_cell(v: Any, digits: int, roundoff: float | None) -> str:
    """One number of a table: its bound where it is a floating-point residue below ``roundoff``, else formatted."""
    v = plain(v)
    if roundoff is not None and isinstance(v, (int, float)) and v != 0 and abs(v) < roundoff:
        bound = format_below(abs(v)).replace("less than ", "")
        return f"< {bound}" if v > 0 else f"> −{bound}"
    return format_number(v, digits)


def _right_aligned(styler: Any, columns: list, numeric: list) -> Any:
    """Numbers right-aligned and unbroken, their headers right-aligned with them."""
    styler = styler.set_properties(subset=numeric, **{"text-align": "right", "white-space": "nowrap"})
    return styler.set_table_styles(
        [{"selector": f"th.col{columns.index(c)}", "props": "text-align: right;"} for c in numeric], overwrite=False
    )


def show_table(
    df: Any,
    *,
    digits: int = 3,
    index: bool | None = None,
    caption: str | None = None,
    roundoff: float | None = None,
) -> Any:
    """A DataFrame (or Series) styled for the book: the house format for every table of numbers.

    Parameters
    ----------
    df : pandas DataFrame or Series
    digits : int
        Significant digits of floats (see :func:`format_number`).
    index : bool, optional
        Show the index?  Default: only when it means something (not a plain ``0 .. n-1`` range).
    caption : str, optional
        A caption above the table (the book numbers tables through ``mystnb`` metadata instead).
    roundoff : float, optional
        Numbers smaller in magnitude than this (floating-point residues such as ``2.2e-16``) are shown as
        their bound, ``< 10⁻¹⁵`` (``> −10⁻¹⁵`` below zero; see :func:`format_below`), not as digits that
        mean nothing.

    Returns
    -------
    pandas Styler
        Displays as HTML in a notebook and in the book; numbers right-aligned.
    """
    import pandas as pd

    if isinstance(df, pd.Series):
        df = df.to_frame()
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame or Series, got {type(df).__name__}")
    format_number(0.0, digits)  # validates digits
    if roundoff is not None and not (isinstance(roundoff, (int, float)) and 0 < roundoff < 1):
        raise ValueError(f"roundoff must be a number in (0, 1), got {roundoff!r}")
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]
    styler = df.style.format(lambda v: _table_cell(v, digits, roundoff), subset=numeric, na_rep="—")
    # text and mixed columns (a number here, a tuple of numpy integers there, a missing value) through the same
    # formatter: no "nan", "None" or "np.int64(1)" in a cell
    mixed = [c for c in df.columns if c not in numeric and not pd.api.types.is_bool_dtype(df[c])]
    if mixed:
        styler = styler.format(lambda v: format_value(v, digits, max_items=8), subset=mixed, na_rep="—")
    for axis in (0, 1):  # row labels and column headers alike ("0.5", never pandas' "0.500000")
        styler = styler.format_index(
            lambda v: format_number(v, digits) if isinstance(v, (int, float, np.number)) else str(v), axis=axis
        )
    if numeric:
        styler = _right_aligned(styler, list(df.columns), numeric)
    if index is None:
        index = not _default_index(df.index)
    if not index:
        styler = styler.hide(axis="index")
    if caption:
        styler = styler.set_caption(caption)
    return styler.set_table_attributes('class="dataframe ldp-table"')


def plural(n: Any, noun: str, plural_form: str | None = None) -> str:
    """``n`` and ``noun`` in agreement, for a caption or a title: ``"1 trial"``, ``"20 trials"``, ``"5,000 records"``.

    Parameters
    ----------
    n : int
        A count (a numpy integer is accepted; a float must be a whole number).
    noun : str
        The singular noun.
    plural_form : str, optional
        The plural when it is not ``noun + "s"`` (e.g. ``"matrices"``).

    Returns
    -------
    str
        The count with thousands separators, a space and the noun.
    """
    n = plain(n)
    if isinstance(n, bool) or not isinstance(n, (int, float)) or n != n or n != int(n) or n < 0:
        raise ValueError(f"n must be a non-negative whole number, got {n!r}")
    if not isinstance(noun, str) or not noun:
        raise ValueError(f"noun must be a non-empty string, got {noun!r}")
    n = int(n)
    return f"{n:,} {noun if n == 1 else (plural_form or noun + 's')}"
