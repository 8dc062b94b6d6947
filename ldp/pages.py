"""Publishing a notebook's numbers to its prose: glue many values at once.

Numbers in the book's prose come from ``myst_nb.glue``, never typed by hand.  A
chapter computes a handful of values in one cell and publishes them together::

    from ldp.pages import glue_values

    glue_values({"eps": eps, "n-users": n, "avd-em": avd_em}, prefix="lopub")
    # the prose then writes {glue:text}`lopub-avd-em:.3f`

``myst_nb`` is imported only when :func:`glue_values` is called, so :mod:`ldp`
does not need the book toolchain.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["glue_values", "plain"]

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
        The glued names, in order.

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
    return names
