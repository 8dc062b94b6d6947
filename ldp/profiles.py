"""Run profiles: one knob that scales every notebook.

``"smoke"``  CI: every code path runs, in seconds.
``"book"``   the default build: faithful shapes in minutes on 2 cores.
``"paper"``  the paper's own sizes and repetition counts.

A notebook declares ``PROFILE = "book"`` in its ``parameters`` cell and then
calls :func:`active_profile`; the environment variable ``LDP_PROFILE``, when
set, overrides the notebook's value (this is how ``make test`` builds the whole
book at smoke size).  Sizes are chosen with :func:`pick`.

:func:`active_profile` also records the profile in force for the process
(:func:`current_profile`), so that :func:`ldp.sweep.sweep` can pick its default
back end: every local core for ``"paper"``, serial otherwise.
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

PROFILES = ("smoke", "book", "paper")
ENV_VAR = "LDP_PROFILE"

T = TypeVar("T")

_current: str | None = None


def check_profile(profile: Any) -> str:
    if profile not in PROFILES:
        raise ValueError(f"PROFILE must be one of {PROFILES}, got {profile!r}")
    return profile


def active_profile(profile: str = "book") -> str:
    """The profile in force: ``$LDP_PROFILE`` if set, else ``profile``; validated and recorded."""
    global _current
    env = os.environ.get(ENV_VAR)
    if env:
        try:
            _current = check_profile(env)
        except ValueError as exc:
            raise ValueError(f"environment variable {ENV_VAR}: {exc}") from None
    else:
        _current = check_profile(profile)
    return _current


def current_profile() -> str | None:
    """The profile last set by :func:`active_profile` in this process (None before any call)."""
    return _current


def pick(profile: str, *, smoke: T, book: T, paper: T) -> T:
    """Return the value for ``profile``: ``pick(PROFILE, smoke=1e3, book=1e5, paper=1e6)``."""
    return {"smoke": smoke, "book": book, "paper": paper}[check_profile(profile)]
