"""The pattern chapters use when a real file may be missing: a documented stand-in, shown visibly.

>>> frame, source = load_or_standin("nursery", make_nursery_standin)   # doctest: +SKIP
>>> show_source(source)                                                  # doctest: +SKIP

``show_source`` prints a coloured admonition into the notebook output, so a reader
can never mistake stand-in results for the paper's data.  The box says precisely what the
reader can do: for a registered dataset, the command or the file to download; for data a paper
used that the book cannot obtain (:data:`ldp.data.registry.NOT_PUBLIC`), where the paper got it and
why the book uses a stand-in.  A *corrupted* file is not a reason to fall back:
:class:`DatasetCorrupted` propagates.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .loaders import DatasetCorrupted, DatasetUnavailable, get_dataset, load, load_array
from .registry import find_dataset, find_not_public


def how_to_obtain(name: str) -> str:
    """What a reader can do to replace the stand-in for ``name`` by the real data (no machine paths).

    ``name`` is a registry key or a label naming a registered dataset (its title or an alias such as
    ``"heart disease (BRFSS 2015)"``), or a label of data the book cannot obtain (:data:`NOT_PUBLIC`).
    """
    ds = find_dataset(name)
    if ds is not None:
        if ds.vendored:
            return "The file ships with the package; reinstall ldp-compendium to restore it."
        if ds.local_only:
            return (
                f"To use the real data: {ds.obtain} that `python -m ldp.data status` names; then re-run this notebook."
            )
        if ds.login_required:
            return (
                f"To use the real data, download it from {ds.landing_page} (Kaggle's Download button, "
                f"which needs a free Kaggle account) and put the zip archive, or the file "
                f"{ds.parts[0].name} inside it, into the data directory that `python -m ldp.data status` "
                f"names; then re-run this notebook."
            )
        return (
            f"To use the real data, run `make data` (or `python -m ldp.data fetch`), which downloads "
            f"{ds.urls[0]} and verifies it; then re-run this notebook."
        )
    entries = find_not_public(name)
    if entries:
        return " ".join(
            f"{e.paper} used {e.obtained_from}; the book uses a stand-in because {e.why_standin}." for e in entries
        )
    return "The book has no source for the data the paper used here."


@dataclass(frozen=True)
class DataSource:
    """Where the data of a section come from; ``equivalent=True`` when a stand-in gives the same results."""

    name: str
    real: bool
    description: str
    equivalent: bool = False

    def message(self) -> str:
        if self.real:
            return f"Data: {self.description} (real file, content checksum verified)."
        ds = find_dataset(self.name)
        if ds is not None:
            what = f"the real dataset ({ds.title}) is not available here"
        else:
            what = "the data the paper used are not available to the book"
        effect = (
            "The results are the same as with the real file."
            if self.equivalent
            else "Results are illustrative only and are not counted as reproductions of the paper."
        )
        return f"Stand-in data: {what}, so this section uses {self.description}. {effect} {how_to_obtain(self.name)}"

    def _repr_html_(self) -> str:
        kind, title = ("note", "Real data") if self.real else ("warning", "Stand-in data")
        return (
            f'<div class="admonition {kind}"><p class="admonition-title">{title}</p>'
            f"<p>{html.escape(self.message())}</p></div>"
        )

    def __str__(self) -> str:
        return self.message()


def load_or_standin(name: str, standin: Callable[[], Any], description: str | None = None, *, part: str | None = None):
    """``(data, DataSource)``: the real dataset if present, else ``standin()`` with ``real=False``.

    ``data`` is the DataFrame of :func:`ldp.data.load`, or, for an array dataset, the array of its part
    ``part`` (:func:`ldp.data.load_array`; e.g. ``load_or_standin("mao2025_syn", regenerate,
    part="syn3_c10")``).  A corrupted copy raises :class:`DatasetCorrupted` rather than falling back.
    """
    dataset = get_dataset(name)
    try:
        if dataset.kind == "array":
            if part is None:
                keys = ", ".join(repr(p.key) for p in dataset.parts)
                raise ValueError(f"part must be given for the array dataset {name!r}: one of {keys}")
            return load_array(name, part), DataSource(name, True, f"{dataset.title}, {part}")
        if part is not None:
            raise ValueError(f"part must be None for the table dataset {name!r}, got {part!r}")
        return load(name), DataSource(name, True, dataset.title)
    except DatasetCorrupted:
        raise
    except DatasetUnavailable:
        if description is None:
            doc = (standin.__doc__ or "").strip()
            description = doc.splitlines()[0] if doc else f"a generated stand-in for {name!r}"
        return standin(), DataSource(name, False, description)


def show_source(source: DataSource) -> DataSource:
    """Display ``source`` as an admonition in a notebook (plain text elsewhere); returns it."""
    try:
        from IPython.display import display
    except ImportError:  # outside IPython
        print(source.message())
        return source
    display(source)
    return source
