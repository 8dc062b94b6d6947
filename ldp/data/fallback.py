"""The pattern chapters use when a real file may be missing: a documented stand-in, shown visibly.

>>> frame, source = load_or_standin("nursery", make_nursery_standin)   # doctest: +SKIP
>>> show_source(source)                                                  # doctest: +SKIP

``show_source`` prints a coloured admonition into the notebook output, so a reader
can never mistake stand-in results for the paper's data.  A *corrupted* file is
not a reason to fall back: :class:`DatasetCorrupted` propagates.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable

from .loaders import DatasetCorrupted, DatasetUnavailable, get_dataset, load


@dataclass(frozen=True)
class DataSource:
    name: str
    real: bool
    description: str

    def message(self) -> str:
        if self.real:
            return f"Data: {self.description} (real file, checksum verified)."
        return (f"Stand-in data: the real {self.name!r} file is not available here, so this section uses "
                f"{self.description}. Results are illustrative; run `make data` (or set LDP_DATA_DIR) and "
                f"re-run to use the real data.")

    def _repr_html_(self) -> str:
        kind, title = ("note", "Real data") if self.real else ("warning", "Stand-in data")
        return (f'<div class="admonition {kind}"><p class="admonition-title">{title}</p>'
                f"<p>{html.escape(self.message())}</p></div>")

    def __str__(self) -> str:
        return self.message()


def load_or_standin(name: str, standin: Callable[[], Any], description: str | None = None):
    """``(frame, DataSource)``: the real dataset if present, else ``standin()`` with ``real=False``."""
    dataset = get_dataset(name)
    try:
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
