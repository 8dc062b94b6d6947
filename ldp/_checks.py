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


def check_choice(value: Any, options: Any, name: str) -> Any:
    """``value`` if it is one of ``options``; otherwise a ValueError naming ``name``, the options and the value."""
    if value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
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


#: largest domain size accepted: 2^31 - 1, the modulus of the local-hashing family and the largest code of an
#: int32 report; a larger domain cannot be enumerated by any mechanism of the package
MAX_DOMAIN_SIZE = 2**31 - 1


def check_domain_size(d: Any, name: str = "d", *, minimum: int = 2) -> int:
    """A domain size: an integer in ``[minimum, 2^31 - 1]`` (``minimum`` is 2 by default)."""
    return check_int(d, name, minimum=minimum, maximum=MAX_DOMAIN_SIZE)


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


def _integer_valued(values: Any, name: str) -> np.ndarray:
    """``values`` as an array of integers, or of floats that are finite whole numbers (TypeError otherwise)."""
    arr = np.asarray(values)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.integer)
        or (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
    ):
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    return arr


def check_counts(counts: Any, d: int | None = None, name: str = "counts") -> np.ndarray:
    """Validate a vector of non-negative integer counts (length ``d`` if given); return int64."""
    arr = _integer_valued(counts, name)
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


# ---------------------------------------------------------------------------- mechanisms
#: smallest budget a mechanism accepts: below it ``p - q`` (of order ``epsilon``) is lost to rounding in
#: double precision for the ``O(1)`` probabilities it is the difference of (relative error ~ 1e-16/epsilon)
MIN_EPSILON = 1e-8
#: largest budget: ``e^epsilon`` overflows double precision beyond about 709.78
MAX_EPSILON = 700.0


def check_mechanism_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """A mechanism's budget: a finite real in ``[MIN_EPSILON, MAX_EPSILON]`` = ``[1e-8, 700]``.

    Outside this range ``p - q`` underflows (tiny budgets) or ``e^epsilon`` overflows (huge
    ones), and the estimator would divide by zero or return NaN.
    """
    value = check_epsilon(epsilon, name)
    if not MIN_EPSILON <= value <= MAX_EPSILON:
        raise ValueError(
            f"{name}={epsilon!r} is outside the range [{MIN_EPSILON:g}, {MAX_EPSILON:g}] in which the "
            "mechanism's probabilities are resolved in double precision (p - q would "
            f"{'underflow' if value < MIN_EPSILON else 'overflow or round to 0 or 1'})"
        )
    return value


def check_support_counts(
    support: Any, length: int, n: int | None = None, name: str = "counts", *, counts: bool = True
) -> np.ndarray:
    """Support counts as floats: shape ``(length,)``, finite; if ``counts``, in ``[0, n]`` (``n`` users).

    A report supports a value at most once, so no support count can exceed the number of users.
    """
    arr = np.asarray(support)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a numeric vector, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.shape != (length,):
        raise ValueError(f"{name} must have shape ({length},), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if counts and np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative counts, got minimum {float(arr.min())!r}")
    if counts and n is not None and np.any(arr > n):
        raise ValueError(
            f"{name} must be at most n={n} (a report supports a value at most once), got maximum {float(arr.max())!r}"
        )
    return arr


def check_frequency_values(f: Any, name: str = "f") -> np.ndarray:
    """Entries in ``[0, 1]`` (a frequency or an array of them); not required to sum to 1."""
    arr = np.asarray(f)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must hold real frequencies in [0, 1], got {f!r}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{name} must hold frequencies in [0, 1], got {f!r}")
    return arr


def check_table(table: Any, c: int | None = None, d: int | None = None, name: str = "table") -> np.ndarray:
    """Validate a ``c x d`` table of non-negative integer counts with at least one user."""
    arr = _integer_valued(table, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (classes x items) table, got shape {arr.shape}")
    if (c is not None and arr.shape[0] != c) or (d is not None and arr.shape[1] != d):
        raise ValueError(f"{name} must have shape ({c}, {d}), got {arr.shape}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be non-negative, got minimum {arr.min()}")
    if arr.sum() == 0:
        raise ValueError(f"{name} sums to 0: at least one user is needed")
    return arr.astype(np.int64)


def check_observed(observed: Any, m: int, kind: str, name: str) -> np.ndarray:
    """Observed outputs of a channel with ``m`` outputs, as counts: ``kind`` is ``"counts"`` or ``"samples"``."""
    if kind == "counts":
        arr = np.asarray(observed)
        if arr.dtype == object or not (
            np.issubdtype(arr.dtype, np.integer)
            or (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
        ):
            raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
        if arr.ndim != 1 or arr.size != m:
            raise ValueError(f"{name} must be a 1-D vector of length {m}, got shape {arr.shape}")
        if np.any(arr < 0):
            raise ValueError(f"{name} must be non-negative")
        return arr.astype(np.int64)
    if kind == "samples":
        arr = np.asarray(observed)
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"{name} must be an array of integer outputs in 0..{m - 1}, got dtype {arr.dtype}")
        arr = arr.ravel()
        if arr.size and (arr.min() < 0 or arr.max() >= m):
            raise ValueError(f"{name} contains outputs outside 0..{m - 1}")
        return np.bincount(arr, minlength=m).astype(np.int64)
    raise ValueError(f"kind must be 'counts' or 'samples', got {kind!r}")


# ---------------------------------------------------------------------------- estimators
def check_real_rows(v: Any, name: str) -> np.ndarray:
    """A non-empty finite real 1-D vector or 2-D array of rows, as float64."""
    arr = np.asarray(v)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector or a 2-D array of rows, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values")
    return arr


def check_total(total: Any, name: str = "total") -> float:
    """A finite real > 0 (the required sum of a post-processed estimate)."""
    if isinstance(total, bool) or not isinstance(total, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {total!r}")
    t = float(total)
    if not (math.isfinite(t) and t > 0):
        raise ValueError(f"{name} must be finite and > 0, got {total!r}")
    return t


def check_weights(counts: Any, name: str, length: int | None = None) -> np.ndarray:
    """Non-negative finite weights (integer counts or real expected counts) with a positive sum."""
    arr = np.asarray(counts)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a numeric vector of counts, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if length is not None and arr.size != length:
        raise ValueError(f"{name} must have length {length}, got {arr.size}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    if arr.sum() <= 0:
        raise ValueError(f"{name} sums to 0: at least one report is needed")
    return arr


def check_iteration(max_iter: Any, tol: Any) -> tuple[int, float]:
    """``max_iter`` an integer >= 1 and ``tol`` a finite real >= 0."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not (math.isfinite(float(tol)) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    return int(max_iter), float(tol)


def check_init(init: Any, d: int) -> np.ndarray:
    """An initial distribution of length ``d`` (uniform if None)."""
    if init is None:
        return np.full(d, 1.0 / d)
    if np.ndim(init) != 1:
        raise ValueError(f"init must be a probability vector of shape ({d},), got shape {np.shape(init)}")
    pi = check_distribution(init, d, "init")
    return pi / pi.sum()


# ---------------------------------------------------------------------------- channels
def _as_matrix(P: Any, name: str) -> np.ndarray:
    """A finite, non-negative 2-D float array with at least one row and one column."""
    arr = np.asarray(P)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric matrix, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real, got dtype {arr.dtype}")
    arr = arr.astype(float, copy=False)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix (rows = inputs, columns = outputs), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite entries")
    if np.any(arr < 0):
        i, j = np.unravel_index(np.argmin(arr), arr.shape)
        raise ValueError(f"{name} must be non-negative, got {name}[{i}, {j}] = {arr[i, j]!r}")
    return arr


def check_channel(P: Any, atol: float = 1e-12, name: str = "P") -> np.ndarray:
    """Validate a channel matrix and return it as a float array.

    Parameters
    ----------
    P : array_like, shape (d, m)
        ``P[x, y] = Pr(y | x)``: rows are inputs, columns outputs.
    atol : float
        Allowed absolute deviation of every row sum from 1.
    name : str
        Name used in error messages.

    Raises
    ------
    ValueError
        If ``P`` is not 2-D, has a negative or non-finite entry, or a row whose
        sum differs from 1 by more than ``atol``.
    """
    if not (isinstance(atol, (int, float)) and not isinstance(atol, bool) and np.isfinite(atol) and atol >= 0):
        raise ValueError(f"atol must be a finite number >= 0, got {atol!r}")
    arr = _as_matrix(P, name)
    sums = arr.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name} must be row-stochastic: row {i} sums to {float(sums[i])!r}, not 1 (atol={atol:g}); "
            f"{bad.size} of {arr.shape[0]} rows fail"
        )
    return arr


def check_label_conditional(cond: Any, name: str = "cond", atol: float = 1e-9) -> np.ndarray:
    """Validate a conditional table ``Pr{s_v | l}`` (rows = labels) and return it as floats.

    Raises
    ------
    TypeError
        If ``cond`` is not numeric.
    ValueError
        If it is not 2-D with at least 2 rows and 1 column, has a negative or
        non-finite entry, or a row that does not sum to 1 within ``atol``.
    """
    try:
        arr = check_channel(cond, atol=atol, name=name)
    except ValueError as exc:
        if "row-stochastic" not in str(exc):
            raise
        raise ValueError(f"every row of {name} must sum to 1 (it is Pr{{s | l}}): {exc}") from None
    if arr.shape[0] < 2:
        raise ValueError(f"{name} must be a 2-D table with >= 2 label rows and >= 1 column, got shape {arr.shape}")
    return arr


def check_release_channel(P: Any, name: str = "P", atol: float = 1e-9) -> np.ndarray:
    """A conditional table ``P[x, u] = P(X̂ = u | X_k = x)`` of what a release reveals (CPL chapter).

    A channel: 2-D, finite, non-negative, rows summing to 1 within ``atol`` (:func:`check_channel`).
    """
    return check_channel(P, atol=atol, name=name)


def check_joint_distribution(
    table: Any, name: str = "joint", *, ndim: int | None = 2, atol: float = 1e-6
) -> np.ndarray:
    """A joint distribution: finite, non-negative entries summing to 1 within ``atol`` (``ndim``-D if given)."""
    arr = np.asarray(table)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real array of probabilities, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D table, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    if abs(float(arr.sum()) - 1.0) > atol:
        raise ValueError(
            f"{name} must be a probability distribution summing to 1 (within {atol:g}), got sum {float(arr.sum())!r}"
        )
    return arr


def check_code_matrix(
    codes: Any, domains: Any, name: str = "codes", domains_name: str = "domains"
) -> tuple[np.ndarray, tuple[int, ...]]:
    """An ``(N, d)`` integer code matrix (N >= 1) whose column ``j`` lies in ``{0, ..., domains[j]-1}``."""
    if isinstance(domains, (str, bytes)) or not hasattr(domains, "__len__"):
        raise TypeError(f"{domains_name} must be a sequence of integer domain sizes, got {domains!r}")
    sizes = tuple(check_domain_size(s, f"{domains_name}[{j}]", minimum=1) for j, s in enumerate(domains))
    x = np.asarray(codes)
    if x.dtype == object or not (np.issubdtype(x.dtype, np.integer) or x.dtype == bool):
        raise TypeError(f"{name} must be an integer code matrix, got dtype {x.dtype}")
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty (N, d) array, got shape {x.shape}")
    if x.shape[1] != len(sizes):
        raise ValueError(f"{name} has {x.shape[1]} columns but {domains_name} lists {len(sizes)} sizes")
    lo, hi = x.min(axis=0), x.max(axis=0)
    bad = np.flatnonzero((lo < 0) | (hi >= np.array(sizes)))
    if bad.size:
        j = int(bad[0])
        v = int(lo[j]) if lo[j] < 0 else int(hi[j])
        raise ValueError(f"{name}[:, {j}] contains the code {v}, outside the domain {{0, ..., {sizes[j] - 1}}}")
    return x.astype(np.int64, copy=False), sizes


# ---------------------------------------------------------------------------- reports, distributions, memory, seeds
def check_present(value: Any, name: str, expected: str) -> Any:
    """``value`` unless it is None, a string or a bare scalar where ``expected`` (an array-like) is needed."""
    if value is None or isinstance(value, (str, bytes, numbers.Number)):
        raise TypeError(f"{name} must be {expected}, got {value!r} of type {type(value).__name__}")
    return value


def check_reports_not_counts(reports: Any, d: int, name: str = "reports") -> np.ndarray:
    """1-D code reports, refusing the ambiguous case of a vector of length ``d`` (it reads as a count vector).

    A mechanism whose reports are codes in ``{0, ..., d-1}`` cannot tell ``d`` reports from the ``d`` counts
    of :meth:`~ldp.mechanism.Mechanism.support_counts`.  The rule: ``estimate`` takes per-user reports and
    refuses exactly ``d`` of them with a message pointing at ``estimate_counts`` (which takes counts and the
    number of users); a population of exactly ``d`` users is estimated as
    ``estimate_counts(support_counts(reports), d)``.
    """
    check_present(reports, name, "an array of per-user reports")
    arr = np.asarray(reports)
    if arr.ndim == 1 and arr.size == d:
        raise ValueError(
            f"{name} has length d={d}, the length of a count vector: estimate() takes per-user reports and "
            "estimate_counts(counts, n) takes counts; for exactly d users call "
            "estimate_counts(support_counts(reports), n)"
        )
    return arr


def check_distribution(f: Any, length: int | None = None, name: str = "f", atol: float = 1e-9) -> np.ndarray:
    """A probability vector: real, finite, non-negative, summing to 1 within ``atol`` (``length`` entries)."""
    check_present(f, name, "a probability vector")
    arr = np.asarray(f)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real probability vector, got dtype {arr.dtype}")
    arr = arr.astype(float).ravel()
    if length is not None and arr.size != length:
        raise ValueError(f"{name} must have {length} entries, got {arr.size}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: a probability vector needs at least one entry")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and non-negative, got {f!r}")
    if abs(math.fsum(arr) - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (within {atol:g}), got sum {math.fsum(arr)!r}")
    return arr


#: the largest array a method builds on request (a channel matrix, an enumeration of outputs): 2^30 bytes
MAX_ALLOCATION_BYTES = 2**30


def check_allocation(entries: int, itemsize: int, what: str, name: str, value: Any) -> None:
    """Refuse, before allocating, an array of ``entries`` items of ``itemsize`` bytes above 1 GiB.

    The message names the parameter ``name`` (whose value ``value`` sets the size), what would be built and the
    memory it would need.
    """
    need = int(entries) * int(itemsize)
    if need > MAX_ALLOCATION_BYTES:
        raise ValueError(
            f"{what} at {name}={value!r} would need {need / 2**30:.3g} GiB ({int(entries)} entries); "
            f"the limit is {MAX_ALLOCATION_BYTES / 2**30:g} GiB"
        )


def check_seed(seed: Any, name: str = "seed") -> int:
    """A reproducible seed: an integer >= 0 (None is refused: it would give a fresh stream on every call)."""
    if seed is None:
        raise TypeError(
            f"{name} must be an integer >= 0, got None (None would draw a fresh, unreproducible stream on every call)"
        )
    return check_int(seed, name, minimum=0)


def check_count_array(counts: Any, n: int, name: str = "counts") -> np.ndarray:
    """Counts of ``n`` reports, any shape, as floats: real, finite, in ``[0, n]`` (a report counts at most once)."""
    check_present(counts, name, f"an array of counts in [0, n={n}]")
    arr = np.asarray(counts)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real array of counts, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {counts!r}")
    if arr.min() < 0 or arr.max() > n:
        bad = float(arr.min()) if arr.min() < 0 else float(arr.max())
        raise ValueError(f"{name} must lie in [0, n={n}] (counts of n reports), got {bad!r}")
    return arr


#: URL schemes of a Dask scheduler address
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def check_scheduler_address(address: Any, name: str = "scheduler_address") -> str:
    """A Dask scheduler address ``scheme://host[:port]`` (no spaces, a known scheme, a port in 1..65535).

    Parsed before any connection is tried, so a typo fails at once with a message naming ``name``.
    """
    from urllib.parse import urlsplit

    example = "such as 'tcp://10.0.0.5:8786'"
    if not isinstance(address, str) or not address:
        raise TypeError(f"{name} must be a non-empty string {example}, got {address!r}")
    bad = ValueError(
        f"{name} must be a scheduler address scheme://host:port with scheme in {SCHEDULER_SCHEMES} and no spaces, "
        f"{example}, got {address!r}"
    )
    if any(ch.isspace() for ch in address) or "://" not in address:
        raise bad
    parts = urlsplit(address)
    if parts.scheme not in SCHEDULER_SCHEMES or (parts.scheme != "inproc" and not parts.hostname):
        raise bad
    try:
        port = parts.port
    except ValueError:
        raise bad from None
    if port is not None and not 1 <= port <= 65535:
        raise bad
    return address


def check_report_pair(reports: Any, name: str = "reports", what: str = "(first, second)") -> tuple[Any, Any]:
    """Reports that come as a pair of arrays (``what`` names the two parts): a tuple or list of length 2."""
    if not isinstance(reports, (tuple, list)) or len(reports) != 2:
        raise TypeError(f"{name} must be the pair {what} returned by perturb, got {type(reports).__name__}")
    return reports[0], reports[1]


def check_indices(indices: Any, n: int, name: str, *, allow_mask: bool = False) -> np.ndarray:
    """Integer positions in ``{0, ..., n-1}`` (a 1-D array; a boolean mask of length ``n`` if ``allow_mask``).

    Floats are refused even when integral (``[0.5]`` would otherwise be truncated to ``[0]``).
    """
    check_present(indices, name, f"a sequence of integer indices in {{0, ..., {n - 1}}}")
    arr = np.asarray(indices)
    if allow_mask and arr.dtype == bool:
        if arr.shape != (n,):
            raise ValueError(f"{name} as a boolean mask must have shape ({n},), got {arr.shape}")
        return np.flatnonzero(arr)
    if arr.size == 0 and arr.ndim == 1:
        arr = arr.astype(np.int64)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer indices in {{0, ..., {n - 1}}}, got {indices!r}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        bad = int(arr.min()) if arr.min() < 0 else int(arr.max())
        raise ValueError(f"{name} contains the index {bad}, outside {{0, ..., {n - 1}}}")
    return arr.astype(np.int64, copy=False)
