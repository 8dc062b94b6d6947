"""Input validation shared by the whole package.

Every public function validates its inputs *before* doing any work and raises
``ValueError`` or ``TypeError`` whose message names the parameter, the value
received and the valid range.  Nothing is silently clipped or wrapped.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np


def check_epsilon(epsilon: Any, name: str = "epsilon", *, allow_zero: bool = False) -> float:
    """Return ``epsilon`` as a float after checking it is finite and > 0 (>= 0 if ``allow_zero``)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {epsilon!r} of type {type(epsilon).__name__}")
    value = float(epsilon)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {epsilon!r}")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {epsilon!r}")
    return value


def check_int(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int after checking its type and range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def check_domain_size(d: Any, name: str = "d", *, minimum: int = 2) -> int:
    """A domain size: an integer >= ``minimum`` (2 by default)."""
    return check_int(d, name, minimum=minimum)


def check_probability(value: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    """A probability in [0, 1] (ends optionally open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    v = float(value)
    lo_ok = v > 0 if open_low else v >= 0
    hi_ok = v < 1 if open_high else v <= 1
    if not (math.isfinite(v) and lo_ok and hi_ok):
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ValueError(f"{name} must lie in {lo}, {hi}, got {value!r}")
    return v


def check_codes(x: Any, d: int, name: str = "x", *, allow_empty: bool = False) -> np.ndarray:
    """Validate a population of integer codes in ``{0, ..., d-1}``; return a 1-D int64 array.

    Floats are refused even when integral (a float array usually means the caller
    passed frequencies or raw data by mistake).
    """
    d = check_domain_size(d)
    arr = np.asarray(x)
    if arr.size == 0 and arr.ndim == 1 and arr.dtype.kind == "f":
        arr = arr.astype(np.int64)  # a plain empty list has dtype float64; treat it as "no users"
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool):
        raise TypeError(f"{name} must be an array of integer codes, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty: at least one user is needed")
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= d:
            bad = lo if lo < 0 else hi
            raise ValueError(f"{name} contains the code {bad}, outside the domain {{0, ..., {d - 1}}}")
    return arr.astype(np.int64, copy=False)


def check_counts(counts: Any, d: int | None = None, name: str = "counts") -> np.ndarray:
    """Validate a vector of non-negative integer counts (length ``d`` if given); return int64."""
    arr = np.asarray(counts)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer)
                                   or (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr))
                                       and np.all(arr == np.round(arr)))):
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if d is not None and arr.size != d:
        raise ValueError(f"{name} must have length {d}, got {arr.size}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative, got minimum {arr.min()}")
    if arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must be at most {np.iinfo(np.int64).max}, got {arr.max()}")
    return arr.astype(np.int64)


def as_generator(rng: Any = None) -> np.random.Generator:
    """Normalise ``rng`` (Generator, SeedSequence, int seed or None) to a ``numpy.random.Generator``.

    A Generator is returned unchanged, so a caller's stream is shared, never copied.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise ValueError(f"rng seed must be non-negative, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"rng must be a numpy Generator, SeedSequence, int seed or None, got {type(rng).__name__}")
