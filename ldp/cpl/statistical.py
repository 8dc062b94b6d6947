"""Statistical CPL (Section III of Jayawardana et al.): expanded dataset, three stages, surrogate test.

The pipeline of Fig. 3, with the details of the authors' code (Statistical_CPL_cal.py):

1. **Expand** the dataset ``D`` (``N`` records, ``n`` attributes) into ``D_E``: ``r``
   concatenated copies (paper: ``r = 50``); expanded row ``i`` is original row
   ``i mod N``.
2. **Stages 1-2** (:func:`perturb_infer`): perturb every cell of ``D_E``
   independently with the same mechanism and budget, and replace each report by
   the adversary's inferred value (:func:`ldp.cpl.attacks.infer`).  Users are
   processed in chunks, so no report matrix larger than a chunk ever exists.
3. **Stage 3** (:func:`statistical_cpl`, :func:`cpl_from_counts`): count the pairs
   (original ``X_k``, inferred ``W``), estimate ``P̂(w | x)`` row by row and take

       L̂ = max_w ln( max_x P̂(w|x) / min_{x: P̂(w|x) > 0} P̂(w|x) ),

   Eq. (3) with the supremum over observed cells.  The artifact masks zero cells
   in the minimum (``zeros="mask"``, default); ``zeros="inf"`` keeps them, so a
   structural zero gives ``+inf``.  No clamp by default (Table III
   shows 2.0020 > ε = 2); ``clamp=ε`` reproduces the artifact's plots.

**Count-level path**.  Cells are perturbed independently, so the
contingency table of (``X_k`` value, inferred ``X̂`` value) is *exactly* a sum of
independent multinomials: ``r·n(x, u)`` draws from row ``K[u]`` of the effective
channel for every joint cell ``(x, u)``.  :func:`simulate_pair_table` draws it in
``O(m·t)`` work instead of ``O(N·r)``; :func:`simulate_joint_table` does the same
for several released attributes at once (the TPL of Fig. 4(b)) with the product
channel.  Tests check the two paths agree.

**Significance** (:func:`surrogate_test`).  Surrogates permute each perturbed
``W`` column independently while ``X_k`` stays fixed; the p-value is the share of
surrogates whose CPL reaches the observed one.  For a single column this is
exactly a uniformly random contingency table with the observed margins, which
``scipy.stats.random_table`` draws in ``O(cells)`` per surrogate (10,000
surrogates of a 2.26-million-row table take well under a second).

**Limitation: only single-column surrogates are vectorised.**  When ``W`` has
several columns (a TPL, where each column is permuted independently), the
surrogate distribution is no longer that of one table with fixed margins: it
depends on how the permuted columns line up with each other, and no exact
count-level sampler is used for it.  :func:`surrogate_test` then falls back to a
Python loop over surrogates, each permuting all ``N·r`` rows and recounting the
joint table, i.e. ``O(B·N·r·c)`` work for ``c`` columns.  That is fine for the
tests' few hundred rows but not for 10,000 surrogates at paper scale; the
notebooks therefore run the significance test on single released columns only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy import stats

from .._checks import as_generator, check_domain_size, check_epsilon, check_int
from ..audit import check_channel
from ..tables import distinct_rows
from .attacks import _mechanism_factory, infer
from .paper import R_EXPANSION, SURROGATES

__all__ = [
    "SurrogateResult",
    "expand",
    "perturb_infer",
    "contingency",
    "cpl_from_counts",
    "statistical_cpl",
    "statistical_cpl_matrix",
    "simulate_pair_table",
    "simulate_joint_table",
    "statistical_cpl_fast",
    "statistical_cpl_matrix_fast",
    "cpl_standard_error",
    "surrogate_test",
    "surrogate_test_counts",
    "nmse_cpl",
]

#: expanded rows perturbed at once in :func:`perturb_infer`
DEFAULT_CHUNK = 1 << 18


class SurrogateResult(NamedTuple):
    """Observed CPL, its surrogate p-value, and the surrogate CPLs."""

    observed: float
    p_value: float
    surrogates: np.ndarray


# ----------------------------------------------------------------------------- validation helpers
def _check_codes_matrix(codes: Any, sizes: Any) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(codes)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"codes must be an integer matrix (records x attributes), got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"codes must be a non-empty 2-D matrix (records x attributes), got shape {arr.shape}")
    sz = np.asarray(sizes)
    if sz.ndim != 1 or sz.size != arr.shape[1] or not np.issubdtype(sz.dtype, np.integer):
        raise ValueError(f"sizes must be {arr.shape[1]} integer domain sizes, got {sizes!r}")
    if np.any(sz < 1):
        raise ValueError(f"sizes must be >= 1, got {sz.tolist()}")
    lo, hi = arr.min(axis=0), arr.max(axis=0)
    bad = np.flatnonzero((lo < 0) | (hi >= sz))
    if bad.size:
        j = int(bad[0])
        raise ValueError(f"codes[:, {j}] has values in [{lo[j]}, {hi[j]}], outside 0..{sz[j] - 1}")
    return arr, sz.astype(np.int64)


def _check_r(r: Any) -> int:
    return check_int(r, "r", minimum=1)


def _small_int_dtype(max_value: int) -> np.dtype:
    for dt in (np.int8, np.int16, np.int32):
        if max_value <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


# ----------------------------------------------------------------------------- stages 1-2
def expand(column: Any, r: int) -> np.ndarray:
    """The column of the expanded dataset ``D_E``: ``r`` concatenated copies (row ``i`` ↔ ``i mod N``)."""
    return np.tile(np.asarray(column), _check_r(r))


def perturb_infer(
    codes: Any,
    sizes: Any,
    mechanism: Any,
    epsilon: float,
    *,
    r: int = R_EXPANSION,
    rng: Any = None,
    columns: Sequence[int] | None = None,
    chunk: int = DEFAULT_CHUNK,
) -> np.ndarray:
    """Stages 1-2 of Fig. 3: perturb every cell of the expanded dataset and infer its value.

    Parameters
    ----------
    codes : array_like of int, shape (N, n)
        The label-encoded dataset ``D``.
    sizes : sequence of int, length n
        Domain size of every attribute.
    mechanism : str or callable
        A name in :data:`ldp.cpl.attacks.PAPER_MECHANISMS` or a callable
        ``(epsilon, d) -> FrequencyOracle``; every attribute uses the same
        mechanism and budget (Section III-B).  Attributes with a single value are
        copied unchanged (no oracle exists for ``d = 1``, and they cannot leak).
    epsilon : float
        Per-attribute budget.
    r : int
        Replication factor (paper: 50).
    rng : Generator, int or None
    columns : sequence of int, optional
        Only these attributes (default: all), in this order.
    chunk : int
        Expanded rows perturbed at once.

    Returns
    -------
    numpy.ndarray, shape (N·r, len(columns))
        Inferred values, in the smallest integer dtype that holds them; row ``i``
        belongs to original record ``i mod N``.
    """
    arr, sz = _check_codes_matrix(codes, sizes)
    eps = check_epsilon(epsilon)
    r = _check_r(r)
    chunk = check_int(chunk, "chunk", minimum=1)
    cols = _check_columns(columns, arr.shape[1])
    factory = _mechanism_factory(mechanism)
    gen = as_generator(rng)
    N = arr.shape[0]
    total = N * r
    out = np.empty((total, len(cols)), dtype=_small_int_dtype(int(sz[cols].max()) - 1))
    for out_j, j in enumerate(cols):
        if sz[j] < 2:
            out[:, out_j] = 0
            continue
        _perturb_infer_column(factory(eps, int(sz[j])), arr[:, j].astype(np.int64), out[:, out_j], chunk, gen)
    return out


def _check_columns(columns: Sequence[int] | None, n: int) -> list[int]:
    """The attribute indices to perturb: all ``n`` by default, else each checked to lie in ``[0, n - 1]``."""
    if columns is None:
        return list(range(n))
    return [check_int(c, "columns[i]", minimum=0, maximum=n - 1) for c in columns]


def _perturb_infer_column(oracle: Any, col: np.ndarray, out: np.ndarray, chunk: int, gen: np.random.Generator) -> None:
    """Fill ``out`` (the ``N·r`` expanded rows of one attribute) with the inferred values, ``chunk`` rows at a time."""
    N, total = col.size, out.shape[0]
    for s in range(0, total, chunk):
        e = min(total, s + chunk)
        x = col[np.arange(s, e) % N]
        out[s:e] = infer(oracle, oracle.perturb(x, gen), gen)


# ----------------------------------------------------------------------------- stage 3
def contingency(x: Any, w: Any, m: int, k_w: Any) -> np.ndarray:
    """Counts ``cnt[x, w]``; ``w`` may be several columns (their joint value is the column index).

    Parameters
    ----------
    x : array_like of int, shape (M,)
        Original values of the primary attribute (expanded).
    w : array_like of int, shape (M,) or (M, s)
        Inferred values of the released neighbour(s).
    m : int
        Domain size of ``x``.
    k_w : int or sequence of int
        Domain size(s) of ``w``'s column(s).
    """
    x = np.asarray(x)
    w = np.asarray(w)
    m = check_domain_size(m, "m", minimum=1)
    if x.ndim != 1 or not np.issubdtype(x.dtype, np.integer):
        raise TypeError("x must be a 1-D integer array")
    if w.ndim == 1:
        w = w[:, None]
    if w.ndim != 2 or w.shape[0] != x.size or not np.issubdtype(w.dtype, np.integer):
        raise ValueError(f"w must be an integer array with {x.size} rows, got shape {w.shape}")
    kw = np.atleast_1d(np.asarray(k_w, dtype=np.int64))
    if kw.size != w.shape[1]:
        raise ValueError(f"k_w must give one domain size per column of w ({w.shape[1]}), got {kw.tolist()}")
    if x.size == 0:
        raise ValueError("x is empty: at least one record is needed")
    if x.min() < 0 or x.max() >= m:
        raise ValueError(f"x has values outside 0..{m - 1}")
    if np.any(w.min(axis=0) < 0) or np.any(w.max(axis=0) >= kw):
        raise ValueError(f"w has values outside its domain sizes {kw.tolist()}")
    joint = np.ravel_multi_index(tuple(w.T.astype(np.int64)), tuple(kw)) if w.shape[1] > 1 else w[:, 0]
    W = int(np.prod(kw))
    return np.bincount(x.astype(np.int64) * W + joint.astype(np.int64), minlength=m * W).reshape(m, W)


def _cpl_batch(counts: np.ndarray, min_count: float, zeros: str) -> np.ndarray:
    """Vectorised estimator over a batch of tables of shape (B, m, W); returns (B,)."""
    totals = counts.sum(axis=-1, keepdims=True).astype(float)
    ok = totals >= max(min_count, 1.0)  # (B, m, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        P = np.where(ok, counts / np.where(ok, totals, 1.0), np.nan)
    hi = np.nanmax(np.where(ok, P, -np.inf), axis=-2)  # (B, W)
    if zeros == "mask":
        lo = np.min(np.where(ok & (P > 0), P, np.inf), axis=-2)
    else:
        lo = np.min(np.where(ok, P, np.inf), axis=-2)
    used = hi > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(used, np.log(np.where(used, hi, 1.0)) - np.log(np.where(used, lo, 1.0)), -np.inf)
    best = ratio.max(axis=-1)
    n_rows = ok[..., 0].sum(axis=-1)
    return np.where(n_rows >= 2, np.maximum(best, 0.0), 0.0)


def _check_zeros(zeros: str) -> str:
    if zeros not in ("mask", "inf"):
        raise ValueError(f"zeros must be 'mask' or 'inf', got {zeros!r}")
    return zeros


def cpl_from_counts(counts: Any, *, min_count: float = 0, zeros: str = "mask", clamp: float | None = None) -> float:
    """Stage-3 estimator on a contingency table ``counts[x, w]`` (Eq. (3) with empirical ``P̂(w|x)``).

    Parameters
    ----------
    counts : array_like, shape (m, W)
        Non-negative counts of (original primary value, inferred neighbour value).
    min_count : float
        Primary values with fewer rows are dropped (our choice; e.g. ``50·r``).
    zeros : {"mask", "inf"}
        ``"mask"`` (artifact): zero cells are left out of the column minimum, so
        the estimate is always finite.  ``"inf"``: a zero below a positive entry
        gives ``+inf`` (the population definition).
    clamp : float, optional
        Cap the result (the artifact caps pairwise CPL at ε).  Never clamp a TPL.

    Returns
    -------
    float
        ``0`` when fewer than two primary values remain.
    """
    arr = np.asarray(counts)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"counts must be numeric, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"counts must be a non-empty 2-D table, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("counts must be finite and non-negative")
    if not (np.isfinite(min_count) and min_count >= 0):
        raise ValueError(f"min_count must be finite and >= 0, got {min_count!r}")
    out = float(_cpl_batch(arr[None].astype(float), float(min_count), _check_zeros(zeros))[0])
    if clamp is not None:
        out = min(out, check_epsilon(clamp, "clamp", allow_zero=True))
    return out


def statistical_cpl(x: Any, w: Any, m: int, k_w: Any, **options: Any) -> float:
    """Stage 3 on record-level columns: :func:`contingency` then :func:`cpl_from_counts`."""
    return cpl_from_counts(contingency(x, w, m, k_w), **options)


def statistical_cpl_matrix(codes: Any, inferred: Any, sizes: Any, *, r: int, **options: Any) -> np.ndarray:
    """Every ordered pair: ``L[k, j] = L̂_{X_j → X_k}`` (rows = primary attribute); the diagonal is NaN.

    ``inferred`` is the output of :func:`perturb_infer` for all columns of ``codes``.
    """
    arr, sz = _check_codes_matrix(codes, sizes)
    inf_arr = np.asarray(inferred)
    r = _check_r(r)
    if inf_arr.shape != (arr.shape[0] * r, arr.shape[1]):
        raise ValueError(f"inferred must have shape (N·r, n) = {(arr.shape[0] * r, arr.shape[1])}, got {inf_arr.shape}")
    n = arr.shape[1]
    L = np.full((n, n), np.nan)
    for k in range(n):
        x = np.tile(arr[:, k].astype(np.int64), r)
        for j in range(n):
            if j != k:
                counts = np.bincount(x * sz[j] + inf_arr[:, j].astype(np.int64), minlength=int(sz[k] * sz[j])).reshape(
                    sz[k], sz[j]
                )
                L[k, j] = cpl_from_counts(counts, **options)
    return L


# ----------------------------------------------------------------------------- count-level path
#: relative spread up to which a channel's diagonal (and off-diagonal) entries count as one value
_TWO_LEVEL_RTOL = 1e-12


def _sum_of_multinomials(gen: np.random.Generator, N: np.ndarray, K: np.ndarray) -> np.ndarray:
    """``Σ_u Multinomial(N[..., u], K[u])`` for every leading index: shape ``N.shape[:-1] + (t_out,)``.

    One multinomial per ``u`` costs ``t·t_out`` binomial draws per leading index.  A two-level channel of
    three or more values (``a`` on the diagonal, ``c < a`` elsewhere, as every attack-inferred channel of
    the benchmark) is the mixture "keep ``u`` with probability ``α = a - c``, else report a uniform value",
    so the kept reports are ``Bin(N[..., u], α)`` and the others, pooled over ``u``, one uniform multinomial:
    the same law for ``2t`` draws.  Binary and other channels take the multinomials.
    """
    K = K / K.sum(axis=1, keepdims=True)
    t = K.shape[0]
    if t >= 3 and K.shape[1] == t:
        diag, off = np.diag(K), K[~np.eye(t, dtype=bool)]
        a, c = float(diag.mean()), float(off.mean())
        alpha = a - c
        if (
            alpha > 0
            and np.all(np.abs(diag - a) <= _TWO_LEVEL_RTOL * a)
            and np.all(np.abs(off - c) <= _TWO_LEVEL_RTOL * max(c, 1e-300))
        ):
            kept = gen.binomial(N, alpha)
            return kept + gen.multinomial((N - kept).sum(axis=-1), np.full(t, 1.0 / t))
    return gen.multinomial(N, K).sum(axis=-2)


def simulate_pair_table(joint_counts: Any, K: Any, r: int, rng: Any = None) -> np.ndarray:
    """Exact draw of the (primary, inferred neighbour) table of the expanded dataset.

    Parameters
    ----------
    joint_counts : array_like of int, shape (m, t)
        Counts ``n(x, u)`` of the original dataset.
    K : array_like, shape (t, t_out)
        The neighbour's effective channel (mechanism + attack), rows sum to 1.
    r : int
        Replication factor.

    Returns
    -------
    numpy.ndarray of int64, shape (m, t_out)
        ``Σ_u Multinomial(r·n(x, u), K[u])`` for every ``x``.
    """
    J = np.asarray(joint_counts)
    if J.ndim != 2 or not np.issubdtype(J.dtype, np.integer) or np.any(J < 0):
        raise ValueError("joint_counts must be a 2-D table of non-negative integer counts")
    K = check_channel(K, atol=1e-9, name="K")
    if K.shape[0] != J.shape[1]:
        raise ValueError(f"K must have {J.shape[1]} rows (one per neighbour value), got {K.shape[0]}")
    gen = as_generator(rng)
    return _sum_of_multinomials(gen, J.astype(np.int64) * _check_r(r), K)


def simulate_joint_table(
    codes: Any, sizes: Any, primary: int, released: Sequence[int], channels: Sequence[Any], r: int, rng: Any = None
) -> np.ndarray:
    """Exact draw of the (primary, joint inferred W) table for several released attributes (TPL).

    ``W = (Y_j for j in released)``; ``released`` may include ``primary`` itself
    (the TPL of Eq. (5) includes ``X_k``'s own report).  Each distinct original
    record pattern with count ``c`` contributes ``Multinomial(r·c, ⊗_j K_j[z_j])``.

    Returns
    -------
    numpy.ndarray, shape (m, Π_j t_out_j); columns in C order of the released list.
    """
    arr, sz = _check_codes_matrix(codes, sizes)
    primary = check_int(primary, "primary", minimum=0, maximum=arr.shape[1] - 1)
    released = [check_int(j, "released[i]", minimum=0, maximum=arr.shape[1] - 1) for j in released]
    if not released or len(channels) != len(released):
        raise ValueError("released must be non-empty with one channel per released attribute")
    Ks = [check_channel(K, atol=1e-9, name=f"channels[{i}]") for i, K in enumerate(channels)]
    for i, (j, K) in enumerate(zip(released, Ks)):
        if K.shape[0] != sz[j]:
            raise ValueError(f"channels[{i}] must have {sz[j]} rows for attribute {j}, got {K.shape[0]}")
    r = _check_r(r)
    gen = as_generator(rng)
    cols = [primary] + released
    first, inverse = distinct_rows(arr[:, cols])  # the rows and order of np.unique(axis=0), about 10x faster
    patterns, counts = arr[:, cols][first], np.bincount(inverse, minlength=first.size)
    pvals = np.ones((patterns.shape[0], 1))
    for i, K in enumerate(Ks):
        rows = K[patterns[:, 1 + i]]
        pvals = (pvals[:, :, None] * rows[:, None, :]).reshape(patterns.shape[0], -1)
    pvals /= pvals.sum(axis=1, keepdims=True)
    draws = gen.multinomial(counts.astype(np.int64) * r, pvals)
    table = np.zeros((int(sz[primary]), pvals.shape[1]), dtype=np.int64)
    np.add.at(table, patterns[:, 0], draws)
    return table


def statistical_cpl_fast(joint_counts: Any, K: Any, r: int, rng: Any = None, **options: Any) -> float:
    """Count-level statistical CPL: :func:`simulate_pair_table` then :func:`cpl_from_counts`."""
    return cpl_from_counts(simulate_pair_table(joint_counts, K, r, rng), **options)


def statistical_cpl_matrix_fast(
    tables: dict[tuple[int, int], np.ndarray],
    n: int,
    channel_for: Callable[[int], np.ndarray],
    r: int,
    rng: Any = None,
    **options: Any,
) -> np.ndarray:
    """Count-level statistical CPL of every ordered pair: ``L[k, j] = L̂_{X_j → X_k}`` (diagonal NaN).

    Parameters
    ----------
    tables : dict
        ``tables[k, j]`` = joint counts of (``X_k``, ``X_j``) in the original data
        (:func:`ldp.cpl.tcpl.pair_tables`).
    n : int
        Number of attributes.
    channel_for : callable
        ``t -> K``: the neighbour's effective channel on a domain of size ``t``
        (:func:`ldp.cpl.attacks.channel_factory`).
    r : int
        Replication factor.
    options
        Passed to :func:`cpl_from_counts`.
    """
    gen = as_generator(rng)
    r = _check_r(r)
    min_count = float(options.pop("min_count", 0))
    zeros = _check_zeros(options.pop("zeros", "mask"))
    clamp = options.pop("clamp", None)
    if options:
        raise TypeError(f"unexpected options {sorted(options)}")
    if not (np.isfinite(min_count) and min_count >= 0):
        raise ValueError(f"min_count must be finite and >= 0, got {min_count!r}")
    L = np.full((n, n), np.nan)
    groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for key, table in tables.items():  # pairs with tables of one shape are drawn and estimated together
        groups.setdefault(np.shape(table), []).append(key)
    for shape, keys in groups.items():
        K = check_channel(channel_for(shape[1]), atol=1e-9, name="K")
        J = np.stack([np.asarray(tables[key]) for key in keys])
        if not np.issubdtype(J.dtype, np.integer) or np.any(J < 0):
            raise ValueError("tables must hold non-negative integer counts")
        # Σ_u Multinomial(r·n(x, u), K[u]) for every pair and x, as in simulate_pair_table
        draws = _sum_of_multinomials(gen, J.astype(np.int64) * r, K)
        est = _cpl_batch(draws.astype(float), min_count, zeros)
        if clamp is not None:
            est = np.minimum(est, check_epsilon(clamp, "clamp", allow_zero=True))
        for (k, j), v in zip(keys, est):
            L[k, j] = v
    return L


def cpl_standard_error(M: Any, row_counts: Any) -> float:
    """Delta-method standard error of the stage-3 estimate at the population witness.

    With ``M[x, y]`` the population conditional ``p(y | x)`` of the released
    (inferred) value and ``n_x`` rows per primary value, ``ln P̂(y|x)`` has
    variance ``≈ (1 - M[x,y]) / (n_x M[x,y])``.  At the witness ``(y, x_hi, x_lo)``
    of ``max_y ln(max_x M / min_x M)`` the estimate's variance is the sum of the
    two.  (The max over near-tied cells adds an upward bias of at most about
    ``σ·sqrt(2 ln c)`` for ``c`` tied candidates; the tests allow for it.)
    """
    M = check_channel(M, atol=1e-9, name="M")
    n = np.asarray(row_counts, dtype=float)
    if n.shape != (M.shape[0],) or np.any(n <= 0):
        raise ValueError(f"row_counts must be {M.shape[0]} positive counts")
    hi, lo = M.max(axis=0), M.min(axis=0)
    used = lo > 0
    if not np.any(used):
        return math.inf
    ratio = np.where(used, np.log(np.where(used, hi, 1.0)) - np.log(np.where(used, lo, 1.0)), -np.inf)
    y = int(np.argmax(ratio))
    xh, xl = int(np.argmax(M[:, y])), int(np.argmin(M[:, y]))
    var = (1 - M[xh, y]) / (n[xh] * M[xh, y]) + (1 - M[xl, y]) / (n[xl] * M[xl, y])
    return float(math.sqrt(var))


# ----------------------------------------------------------------------------- significance
def _p_value(observed: float, surrogates: np.ndarray, correction: bool) -> float:
    hits = int(np.count_nonzero(np.abs(surrogates) >= abs(observed)))
    if correction:
        return (hits + 1) / (surrogates.size + 1)
    return hits / surrogates.size


def surrogate_test_counts(
    counts: Any,
    n_surrogates: int = SURROGATES,
    rng: Any = None,
    *,
    correction: bool = True,
    batch: int = 2000,
    **options: Any,
) -> SurrogateResult:
    """Surrogate (permutation) test for one released column, at count level (exact).

    Permuting the inferred column while ``X_k`` stays fixed gives a uniformly random
    table with the observed row and column sums; ``scipy.stats.random_table``
    draws such tables directly (Patefield's algorithm).

    Parameters
    ----------
    counts : array_like of int, shape (m, W)
    n_surrogates : int
        Paper: 10,000; the authors' code defaults to 100.
    correction : bool
        ``True`` (default): ``p = (1 + #{L_s >= L}) / (1 + B)``, never 0.
        ``False``: the artifact's plain proportion.
    options
        Passed to :func:`cpl_from_counts` (``min_count``, ``zeros``).
    """
    table = np.asarray(counts)
    if table.ndim != 2 or not np.issubdtype(table.dtype, np.integer) or np.any(table < 0):
        raise ValueError("counts must be a 2-D table of non-negative integer counts")
    B = check_int(n_surrogates, "n_surrogates", minimum=1)
    batch = check_int(batch, "batch", minimum=1)
    min_count = float(options.pop("min_count", 0))
    zeros = _check_zeros(options.pop("zeros", "mask"))
    if options:
        raise TypeError(f"unexpected options {sorted(options)}")
    gen = as_generator(rng)
    observed = float(_cpl_batch(table[None].astype(float), min_count, zeros)[0])
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    keep_r, keep_c = rows > 0, cols > 0  # random_table needs positive margins
    dist = stats.random_table(rows[keep_r], cols[keep_c])
    out = np.empty(B)
    for s in range(0, B, batch):
        size = min(batch, B - s)
        tabs = dist.rvs(size=size, method="patefield", random_state=gen).astype(float)
        out[s : s + size] = _cpl_batch(tabs, min_count, zeros)
    return SurrogateResult(observed, _p_value(observed, out, correction), out)


def surrogate_test(
    x: Any,
    w: Any,
    m: int,
    k_w: Any,
    n_surrogates: int = 1000,
    rng: Any = None,
    *,
    correction: bool = True,
    **options: Any,
) -> SurrogateResult:
    """Surrogate test on record-level columns (Section III-B).

    One column: delegated to the exact count-level :func:`surrogate_test_counts`.
    Several columns (a TPL): each column of ``w`` is permuted independently per
    surrogate, which breaks their mutual dependence as well as their dependence
    on ``x``.  This path is *not* vectorised: it loops over the ``B`` surrogates in
    Python, each costing ``O(N·r·c)`` for ``c`` columns (see the module docstring),
    so keep ``B·N·r`` small there.
    """
    w = np.asarray(w)
    if w.ndim == 1 or (w.ndim == 2 and w.shape[1] == 1):
        return surrogate_test_counts(contingency(x, w, m, k_w), n_surrogates, rng, correction=correction, **options)
    B = check_int(n_surrogates, "n_surrogates", minimum=1)
    gen = as_generator(rng)
    observed = statistical_cpl(x, w, m, k_w, **options)
    out = np.empty(B)
    for b in range(B):
        out[b] = statistical_cpl(x, gen.permuted(w, axis=0), m, k_w, **options)
    return SurrogateResult(observed, _p_value(observed, out, correction), out)


# ----------------------------------------------------------------------------- comparison
def nmse_cpl(estimate: Any, reference: Any) -> float:
    """NMSE-CPL of Eq. (29): ``Σ (L̃ - L*)² / Σ L*²`` over ordered pairs (NaN entries, e.g. diagonals, skipped)."""
    est = np.asarray(estimate, dtype=float)
    ref = np.asarray(reference, dtype=float)
    if est.shape != ref.shape:
        raise ValueError(f"estimate and reference must have the same shape, got {est.shape} and {ref.shape}")
    ok = ~(np.isnan(est) | np.isnan(ref))
    if not np.all(np.isfinite(est[ok])) or not np.all(np.isfinite(ref[ok])):
        raise ValueError("NMSE-CPL needs finite CPL values (an infinite reference cannot be normalised)")
    den = float(np.sum(ref[ok] ** 2))
    if den == 0:
        raise ValueError("the reference CPLs are all zero: NMSE-CPL is undefined")
    return float(np.sum((est[ok] - ref[ok]) ** 2) / den)
