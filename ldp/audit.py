"""Privacy and agreement audits on channels.

A locally private mechanism with finite output space is a *channel*: a
row-stochastic matrix ``P`` with ``P[x, y] = Pr(report y | input x)``.  It is
ε-LDP exactly when, for every output ``y`` and every pair of inputs,

    P[x, y] <= e^ε · P[x', y]                                      (Def. of ε-LDP)

so the smallest such ε is the *exact* privacy level of the channel,

    ε(P) = max_y max_{x, x'} log P[x, y] / P[x', y],

which :func:`channel_epsilon` computes (the maximum over pairs within a column
is just log(column max / column min)).  :func:`product_channel_epsilon` does the
same for mechanisms whose report is a vector of independently perturbed parts
(unary encoding, Bloom-filter RAPPOR) without enumerating the exponentially
many outputs.

The second half of the module holds the statistical agreement tests used by the
test-suite and the notebooks: Pearson's chi-square goodness of fit of sampled
reports against one channel row (:func:`chi_square_agreement`) and the
chi-square test of homogeneity between two samples
(:func:`two_sample_agreement`), e.g. ``simulate_counts`` against per-user
``perturb``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from ._checks import _as_matrix, check_channel, check_observed

__all__ = [
    "check_channel",
    "channel_epsilon",
    "product_channel_epsilon",
    "bitwise_channel_epsilon",
    "chi_square_agreement",
    "two_sample_agreement",
]


# ---------------------------------------------------------------------------- channels
# check_channel and _as_matrix live in ldp._checks (re-exported here: ldp.audit.check_channel is public)


def channel_epsilon(P: Any, *, return_witness: bool = False) -> float | tuple[float, tuple[int, int, int] | None]:
    """Exact privacy level of a finite channel: ``max_y max_{x,x'} log P[x,y] / P[x',y]``.

    Zeros are handled as the definition of ε-LDP demands:

    * a column that is zero for every input (an output that never occurs) is ignored;
    * within a column, a pair of zeros (0/0) constrains nothing;
    * a column with both a zero and a positive entry makes the ratio unbounded, so
      the result is ``inf`` (the mechanism is not ε-LDP for any finite ε).

    Rows are *not* required to sum to 1 (likelihood matrices are accepted); use
    :func:`check_channel` for that.

    Parameters
    ----------
    P : array_like, shape (d, m)
        Non-negative, finite.
    return_witness : bool
        If True also return ``(y, x, x')`` attaining the maximum (``None`` when
        every column is constant, i.e. ε = 0).

    Returns
    -------
    float or (float, tuple or None)
        ε(P) >= 0, possibly ``inf``.
    """
    arr = _as_matrix(P, "P")
    colmax = arr.max(axis=0)
    colmin = arr.min(axis=0)
    used = colmax > 0
    if not np.any(used):
        raise ValueError("P has no output with positive probability (every column is zero)")
    unbounded = used & (colmin == 0)
    if np.any(unbounded):
        y = int(np.flatnonzero(unbounded)[0])
        eps = float("inf")
    else:
        with np.errstate(divide="ignore"):
            ratio = np.where(used, np.log(np.where(used, colmax, 1.0)) - np.log(np.where(used, colmin, 1.0)), 0.0)
        y = int(np.argmax(ratio))
        eps = float(max(ratio[y], 0.0))
    if not return_witness:
        return eps
    if eps == 0.0:
        return eps, None
    return eps, (y, int(np.argmax(arr[:, y])), int(np.argmin(arr[:, y])))


def _pair_bit_terms(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """max over the values of one factor of log num/den, over values with num > 0 (see below)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log(num) - np.log(den)  # num=0 -> -inf or nan; den=0<num -> +inf
    terms = np.where(num > 0, terms, -np.inf)
    return terms.max(axis=-1)


def _check_factors(factors: Any) -> list[np.ndarray]:
    """The factor channels of :func:`product_channel_epsilon`, checked: a non-empty sequence, equal numbers of rows."""
    if isinstance(factors, np.ndarray) or not isinstance(factors, Sequence) or len(factors) == 0:
        raise ValueError("factors must be a non-empty sequence of (d x k_j) channel matrices")
    mats = [check_channel(F, atol=1e-9, name=f"factors[{j}]") for j, F in enumerate(factors)]
    d = mats[0].shape[0]
    for j, F in enumerate(mats):
        if F.shape[0] != d:
            raise ValueError(f"every factor must have d = {d} rows (inputs), factors[{j}] has {F.shape[0]}")
    return mats


def product_channel_epsilon(factors: Sequence[Any], *, chunk_elements: int = 4_000_000) -> float:
    """Exact ε of a *product* channel without enumerating its outputs.

    A product channel reports ``y = (y_1, ..., y_m)`` whose parts are perturbed
    independently given the input: ``P(y | x) = prod_j P_j(y_j | x)``, each factor
    ``P_j`` a ``d x k_j`` channel with the same input set.  Unary encoding (SUE,
    OUE) and Bloom-filter RAPPOR are of this form, with binary factors.

    Why this is exact: for a fixed pair of inputs ``(x, x')`` the log-ratio of a
    report is a sum over parts, ``sum_j log P_j(y_j|x) / P_j(y_j|x')``, and the
    output space is the Cartesian product of the parts' output sets, so each
    ``y_j`` can be chosen independently to maximise its own term.  Hence

        ε = max_{x, x'} sum_j max_{y_j : P_j(y_j|x) > 0} log P_j(y_j|x) / P_j(y_j|x').

    Values with ``P_j(y_j|x) = 0`` are skipped (those reports have probability 0
    under ``x`` so they cannot attain the maximum; every factor row has at least
    one positive value), and a value with ``P_j(y_j|x) > 0 = P_j(y_j|x')`` makes the
    pair's ratio unbounded, exactly as :func:`channel_epsilon` treats a zero
    against a non-zero entry.  The maximum over pairs does not separate across
    parts, so the cost is ``O(d^2 · sum_j k_j)``, done in chunks of inputs.

    Parameters
    ----------
    factors : sequence of array_like, each shape (d, k_j)
        Row-stochastic factor channels (checked with :func:`check_channel`, atol 1e-9).
    chunk_elements : int
        Rough upper bound on the number of floats held per chunk.

    Returns
    -------
    float
        The exact ε (``inf`` if some pair is distinguishable with certainty).
    """
    mats = _check_factors(factors)
    d = mats[0].shape[0]
    # group factors of equal width so each group is one 3-D array (d, m_group, k)
    by_width: dict[int, list[np.ndarray]] = {}
    for F in mats:
        by_width.setdefault(F.shape[1], []).append(F)
    groups = [np.stack(v, axis=1) for v in by_width.values()]  # each (d, m_k, k)
    width = sum(g.shape[1] * g.shape[2] for g in groups)
    rows = max(1, int(chunk_elements // max(1, d * width)))
    best = 0.0
    for start in range(0, d, rows):
        stop = min(d, start + rows)
        total = np.zeros((stop - start, d))
        for g in groups:
            num = g[start:stop, None, :, :]  # (r, 1, m, k): input x
            den = g[None, :, :, :]  # (1, d, m, k): input x'
            total += _pair_bit_terms(num, den).sum(axis=-1)
        best = max(best, float(total.max()))
        if best == float("inf"):
            break
    return best


def bitwise_channel_epsilon(bit_probs: Any, **kwargs: Any) -> float:
    """Exact ε of a report of independent bits, from ``bit_probs[x, j] = Pr(bit j = 1 | x)``.

    A convenience wrapper of :func:`product_channel_epsilon` for unary encoding
    and Bloom-filter reports (``d`` inputs, ``m`` bits): each bit is the binary
    factor ``[[1 - b, b]]``.  For SUE this gives exactly ε; for a Bloom filter with
    ``h`` hash functions and permanent randomisation ``f`` it gives
    ``2h·log((1 - f/2)/(f/2))`` (permanent randomisation only) when two inputs
    share no bit.
    """
    B = _as_matrix(bit_probs, "bit_probs")
    if np.any(B > 1):
        i, j = np.unravel_index(np.argmax(B), B.shape)
        raise ValueError(f"bit_probs must lie in [0, 1], got bit_probs[{i}, {j}] = {B[i, j]!r}")
    factors = [np.stack([1.0 - B[:, j], B[:, j]], axis=1) for j in range(B.shape[1])]
    return product_channel_epsilon(factors, **kwargs)


# ---------------------------------------------------------------------------- agreement tests
def _probabilities(expected_probs: Any, name: str = "expected_probs") -> np.ndarray:
    p = np.asarray(expected_probs, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    s = p.sum()
    if abs(s - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1 (within 1e-9), got {s!r}")
    return p / s


_observed_counts = check_observed


def _merge_small(expected: np.ndarray, observed: np.ndarray, min_expected: float) -> tuple[np.ndarray, np.ndarray]:
    """Pool the cells with the smallest expected counts until every cell reaches ``min_expected``.

    ``expected`` and ``observed`` have shape (m,) or (r, m) (columns are cells);
    pooling is decided on the column totals of ``expected``.
    """
    weight = expected if expected.ndim == 1 else expected.sum(axis=0)
    order = np.argsort(weight, kind="stable")
    csum = np.cumsum(weight[order])
    # pool the prefix of smallest cells up to the first index where the pooled total reaches the threshold
    small = weight[order] < min_expected
    if not np.any(small):
        return expected, observed
    n_small = int(np.count_nonzero(small))
    reach = int(np.searchsorted(csum, min_expected))  # first index with csum >= min_expected
    cut = max(n_small, reach + 1)
    cut = min(cut, order.size)
    pooled, kept = order[:cut], order[cut:]
    e = np.concatenate([expected[..., kept], expected[..., pooled].sum(axis=-1, keepdims=True)], axis=-1)
    o = np.concatenate([observed[..., kept], observed[..., pooled].sum(axis=-1, keepdims=True)], axis=-1)
    return e, o


def _pearson_p_value(expected: np.ndarray, observed: np.ndarray, min_expected: float) -> float:
    """Pool the small cells (:func:`_merge_small`), then the p-value of Pearson's statistic (1.0 below two cells)."""
    expected, observed = _merge_small(expected, observed, min_expected)
    cells = expected.shape[-1]
    if cells < 2:
        return 1.0
    stat = float(np.sum((observed - expected) ** 2 / expected))
    return float(stats.chi2.sf(stat, cells - 1))


def chi_square_agreement(
    observed: Any,
    expected_probs: Any,
    *,
    kind: str = "counts",
    min_expected: float = 5.0,
) -> float:
    """p-value of Pearson's chi-square goodness-of-fit test of reports against a distribution.

    Typical use: perturb ``n`` copies of one input ``x`` and test the reports
    against the channel row ``P[x]``.  A small p-value (say < 1e-3 in a test
    with a fixed seed) is evidence that the sampler does not follow the channel.

    Cells whose expected count ``n·p`` is below ``min_expected`` are pooled
    (smallest first) into one cell that reaches ``min_expected``, so the
    chi-square approximation holds.  A report in a cell of probability 0 gives
    p-value 0 at once.

    Parameters
    ----------
    observed : array_like
        Counts per output (``kind="counts"``, length m) or the raw integer
        reports in ``0..m-1`` (``kind="samples"``).
    expected_probs : array_like, shape (m,)
        The distribution under test (non-negative, sums to 1 within 1e-9).
    kind : {"counts", "samples"}
    min_expected : float
        Minimum expected count per (pooled) cell.

    Returns
    -------
    float
        The p-value; 1.0 when fewer than two cells remain after pooling (no test
        is possible).
    """
    p = _probabilities(expected_probs)
    counts = _observed_counts(observed, p.size, kind, "observed")
    n = int(counts.sum())
    if n == 0:
        raise ValueError("observed is empty: at least one report is needed")
    if not (np.isfinite(min_expected) and min_expected > 0):
        raise ValueError(f"min_expected must be finite and > 0, got {min_expected!r}")
    impossible = p == 0
    if np.any(counts[impossible] > 0):
        return 0.0
    expected = n * p[~impossible]
    obs = counts[~impossible].astype(float)
    return _pearson_p_value(expected, obs, min_expected)


def _two_sample_counts(a: Any, b: Any, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The two count vectors over the same cells that :func:`two_sample_agreement` compares."""
    if kind == "samples":
        sa, sb = np.asarray(a), np.asarray(b)
        for nm, s in (("a", sa), ("b", sb)):
            if s.dtype == object or not np.issubdtype(s.dtype, np.integer):
                raise TypeError(f"{nm} must be an array of integer samples, got dtype {s.dtype}")
        sa, sb = sa.ravel(), sb.ravel()
        if sa.size == 0 or sb.size == 0:
            raise ValueError("a and b must both be non-empty")
        values = np.union1d(sa, sb)
        ca = np.bincount(np.searchsorted(values, sa), minlength=values.size)
        cb = np.bincount(np.searchsorted(values, sb), minlength=values.size)
    elif kind == "counts":
        arr_a = np.asarray(a)
        if arr_a.ndim != 1 or arr_a.size == 0:
            raise ValueError(f"a must be a non-empty 1-D count vector, got shape {arr_a.shape}")
        ca = _observed_counts(arr_a, arr_a.size, "counts", "a")
        cb = _observed_counts(b, ca.size, "counts", "b")
    else:
        raise ValueError(f"kind must be 'counts' or 'samples', got {kind!r}")
    return ca, cb


def two_sample_agreement(
    a: Any,
    b: Any,
    *,
    kind: str = "counts",
    min_expected: float = 5.0,
) -> float:
    """p-value of the chi-square test of homogeneity between two samples over the same cells.

    Use it to check that two samplers have the same distribution, e.g. for one
    value ``v`` collect ``C(v)`` over R trials of ``simulate_counts`` and over R
    trials of per-user ``perturb`` + ``support_counts`` and compare the two
    histograms (``kind="samples"`` does the binning over the union of observed
    integer values).  Cells empty in both samples are dropped; cells with small
    expected counts are pooled as in :func:`chi_square_agreement`.

    Note: when ``a`` and ``b`` are themselves count vectors of one run each (e.g.
    two GRR support-count vectors), the cells are sums of categorical draws with
    unequal probabilities, whose variance is at most the multinomial one, so the
    test is conservative (valid, slightly low power).

    Parameters
    ----------
    a, b : array_like
        Two count vectors of equal length (``kind="counts"``) or two arrays of
        integer samples (``kind="samples"``).
    kind : {"counts", "samples"}
    min_expected : float

    Returns
    -------
    float
        The p-value (1.0 when fewer than two cells remain).
    """
    ca, cb = _two_sample_counts(a, b, kind)
    if not (np.isfinite(min_expected) and min_expected > 0):
        raise ValueError(f"min_expected must be finite and > 0, got {min_expected!r}")
    na, nb = int(ca.sum()), int(cb.sum())
    if na == 0 or nb == 0:
        raise ValueError(f"both samples must be non-empty, got totals {na} and {nb}")
    table = np.vstack([ca, cb]).astype(float)
    table = table[:, table.sum(axis=0) > 0]
    col = table.sum(axis=0)
    expected = np.outer(np.array([na, nb]) / (na + nb), col)
    # pool on the smaller row's expectations so every cell of both rows reaches the threshold
    scale = min(na, nb) / (na + nb)
    return _pearson_p_value(expected, table, min_expected / scale)
