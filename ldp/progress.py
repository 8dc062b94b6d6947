"""Progress bars for long loops, the same in a terminal, a notebook and the built book.

Plain text bars (``tqdm.std``) on stderr: they need no widget library, so a notebook executed by
papermill or by the book build records a short readable trace instead of a widget that cannot render
offline.  ``LDP_PROGRESS=0`` in the environment switches them off.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tqdm.std import tqdm


def progress(
    iterable: Iterable[Any] | None = None,
    *,
    total: int | None = None,
    desc: str | None = None,
    leave: bool = True,
    **kwargs: Any,
) -> tqdm:
    """A text tqdm bar over ``iterable`` (updated at most every 2 s, so stored outputs stay short)."""
    disable = bool(kwargs.pop("disable", False)) or os.environ.get("LDP_PROGRESS", "1") == "0"
    kwargs.setdefault("mininterval", 2.0)
    return tqdm(iterable, total=total, desc=desc, leave=leave, disable=disable, **kwargs)
