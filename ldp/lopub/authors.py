"""Table 7 of Ren et al. (LoPub) as the authors computed it: what their code shows, and what we inferred.

The paper leaves open how Adult was coded, which records entered the dependency
search and how Algorithm 5 ranks attributes.  The authors' public code
(IoTDATALab/Python_LoPub, bib key ``ren2018code``; files read: ``data/Data2-coarse.dat``
and ``Get_Params.py`` at commit 548db5d28b491f0fed18cb7eb1b7b68e0b28aed7,
``Whole_Process.py`` at e1e8e76, ``Dependency.py`` at df08a8b) settles some of these
details; for the others we made an inference, and this module says which is which.
Nothing is copied (the authors' code is Python 2.7); everything is re-implemented.

What the authors' files show:

* **rows** (``Data2-coarse.dat``): ``adult.data`` then ``adult.test``, every row with a
  missing (``'?'``) field dropped, file order kept: 45,222 records;
* **coding** (``Data2-coarse.dat``): the nine categorical attributes are coded
  ``0, 1, ...`` in order of first appearance; the six integer-valued attributes (age,
  fnlwgt, education-num, capital-gain, capital-loss, hours-per-week) are cut into 16
  equal-width bins between the column's minimum and maximum, closed on the right, the
  minimum in the first bin.  Bin indices are computed in exact integer arithmetic,
  ``ceil(16 (x - min) / (max - min)) - 1`` floored at 0, so no value on a bin edge
  depends on floating-point rounding.  Every binned attribute keeps its 16 bins as its
  domain, whether or not a bin is occupied (as in the authors' domain file);
* **sample** (``get_file_info`` in ``Get_Params.py``): 10 % of the records,
  ``int(45222 * 0.1) = 4522``, drawn by ``random.sample(multilist, int(node_num * samplerate))``;
* **dependencies** (``True_Dep_Graph`` in ``Dependency.py``): the threshold
  ``tau = min(|Omega_m| - 1, |Omega_n| - 1) phi^2 / 2`` (Eq. (26)) and the strict test
  ``MI > tau``; the mutual information here is the exact one, in nats, of the empirical
  joint of each pair on the sample.

What we inferred (not found in the files read):

* **the seed**: no seed is set in ``Get_Params.py``, ``Whole_Process.py`` or
  ``Dependency.py``.  Seed 10 is the seed under which Python 2.7's ``random.sample``
  algorithm (:func:`py27_sample`, driven by the uniforms of ``random.seed(10)``) yields a sample
  that reproduces all 30 printed cells of Table 7.  A Table 7 computed with it is
  therefore *calibrated* to the table it is compared with;
* **the pruning key**: attributes ranked by ``H / (|Omega| - 1)`` (not the ``H / |Omega|``
  of the paper's text), ``n_keep = half_up(d (1 - phi))``; only that key reproduces every
  cell of Table 7.

:func:`table7` exposes each of these choices as a parameter, so the notebook can show
which of them matter.  The Mersenne-Twister stream of Python's ``random.seed(seed)`` comes
from a local numpy ``RandomState`` (:func:`python_uniforms`); no global random state is touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._checks import check_int, check_probability
from ..tables import CodedTable
from .datasets import code_adult
from .dependency import check_edge_rule, empirical_mi_matrix
from .pruning import ROUNDINGS, SORT_KEYS, pruning_table

#: the six integer-valued Adult attributes that the authors cut into equal-width bins
ADULT_BINNED = ("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week")
#: number of bins of every binned attribute
ADULT_BINS = 16
#: the sampling rate of the authors' dependency search on Adult (``Get_Params.py``), and the seed we
#: inferred for it (no seed is set in the files read; see the module docstring)
SAMPLE_RATE = 0.1
SAMPLE_SEED = 10
#: the data the dependency search runs on
DATA_CHOICES = ("sample", "full")
#: the phi grid of Table 7
TABLE7_PHIS = (0.1, 0.2, 0.3, 0.4, 0.5)


def equal_width_bins(x: Any, bins: int = ADULT_BINS) -> np.ndarray:
    """Right-closed equal-width bin index of every integer in ``x`` (exact integer arithmetic).

    Bin ``b`` is ``(min + b w, min + (b + 1) w]`` with ``w = (max - min) / bins``; the minimum
    itself goes to bin 0.  The index is ``ceil(bins (x - min) / (max - min)) - 1``, computed
    with integer floor division so that a value exactly on an edge lands in the lower bin.
    """
    v = np.asarray(x)
    if v.ndim != 1 or v.size == 0 or not np.issubdtype(v.dtype, np.integer):
        raise TypeError(f"x must be a non-empty 1-D integer array, got {v.dtype} {v.shape}")
    bins = check_int(bins, "bins", minimum=2)
    v = v.astype(np.int64)
    lo, hi = int(v.min()), int(v.max())
    if hi == lo:
        raise ValueError(f"x is constant ({lo}); equal-width bins need max > min")
    span = hi - lo
    ceil = -((-bins * (v - lo)) // span)  # ceil(bins (x - lo) / span), exactly
    return np.maximum(ceil - 1, 0)


def first_appearance_codes(values: Sequence[Any]) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Codes ``0, 1, ...`` in order of first appearance, and the values in that order."""
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), sort=False)
    if np.any(codes < 0):
        raise ValueError("values contain missing entries; drop incomplete rows first")
    return np.asarray(codes, dtype=np.int64), tuple(uniques)


def adult_authors_table(frame: pd.DataFrame) -> CodedTable:
    """Adult coded as in the authors' ``Data2-coarse.dat`` (45,222 rows for the UCI files).

    ``frame`` is ``ldp.data.load("adult")`` (train rows, then test rows, in file order,
    ``'?'`` read as missing).  Rows with any missing field are dropped.
    """
    return code_adult(frame, _authors_adult_column)


def _authors_adult_column(name: str, values: pd.Series) -> tuple[np.ndarray, tuple]:
    """The authors' coding of one Adult column: equal-width bins of the integer columns, first appearance otherwise."""
    if name not in ADULT_BINNED:
        return first_appearance_codes(values.astype(str).to_numpy())
    x = values.to_numpy()
    if not np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"column {name!r} must be integer-valued, got {x.dtype}")
    lo, hi = int(x.min()), int(x.max())
    edges = [lo + (hi - lo) * b / ADULT_BINS for b in range(ADULT_BINS + 1)]
    return equal_width_bins(x, ADULT_BINS), tuple(f"({edges[b]:.6g}, {edges[b + 1]:.6g}]" for b in range(ADULT_BINS))


def authors_file_text(table: CodedTable) -> str:
    """The table in the layout of the authors' ``.dat`` files: the row count, then one comma-separated row per
    record, each line ending in a newline (used to compare with ``Data2-coarse.dat``)."""
    body = "\n".join(",".join(str(int(v)) for v in row) for row in table.codes)
    return f"{table.n}\n{body}\n"


def py27_sample(n: int, k: int, random_fn: Callable[[], float]) -> list[int]:
    """Indices that Python 2.7's ``random.sample(range(n), k)`` returns, driven by ``random_fn``.

    Python 2.7 chooses between two algorithms.  With ``setsize = 21`` plus, when ``k > 5``,
    ``4 ** ceil(log(3k, 4))``: if ``n <= setsize`` it draws from a shrinking pool (index
    ``int(random() * (n - i))``, the chosen slot refilled from the pool's end); otherwise it
    draws ``int(random() * n)`` and redraws while the index was already selected, returning
    the indices in the order drawn.  Python 3's ``random.sample`` uses ``_randbelow``
    (rejection on ``getrandbits``) instead, so it returns a different sample for the same
    seed, although ``random()`` itself produces the same stream in both versions.

    Parameters
    ----------
    n : int
        Population size.
    k : int
        Sample size, ``0 <= k <= n``.
    random_fn : callable
        Returns floats in ``[0, 1)``; :func:`python_uniforms` gives the stream of Python
        2.7's ``random.seed(seed)``.
    """
    n = check_int(n, "n", minimum=0)
    k = check_int(k, "k", minimum=0, maximum=n)
    if not callable(random_fn):
        raise TypeError(f"random_fn must be callable, got {type(random_fn).__name__}")
    setsize = 21
    if k > 5:
        setsize += 4 ** int(math.ceil(math.log(k * 3, 4)))
    out: list[int] = []
    if n <= setsize:
        pool = list(range(n))
        for i in range(k):
            j = int(random_fn() * (n - i))
            out.append(pool[j])
            pool[j] = pool[n - i - 1]
        return out
    selected: set[int] = set()
    for _ in range(k):
        j = int(random_fn() * n)
        while j in selected:
            j = int(random_fn() * n)
        selected.add(j)
        out.append(j)
    return out


def python_uniforms(seed: int) -> Callable[[], float]:
    """The uniforms of Python's ``random.random()`` after ``random.seed(seed)``, one per call.

    For an integer seed Python (2.7 and 3) seeds its Mersenne Twister with ``init_by_array`` on
    the 32-bit words of ``seed``, and ``random()`` joins two 32-bit outputs into 53 bits.  numpy's
    legacy ``RandomState`` does the same for a seed given as a list of words and in
    ``random_sample``, so this is the same stream, from a generator of its own.
    """
    seed = check_int(seed, "seed", minimum=0)
    words = [(seed >> shift) & 0xFFFFFFFF for shift in range(0, max(seed.bit_length(), 1), 32)]
    return np.random.RandomState(words).random_sample


def authors_sample(table: CodedTable, rate: float = SAMPLE_RATE, seed: int = SAMPLE_SEED) -> CodedTable:
    """The ``int(n * rate)`` records Python 2.7's ``random.sample`` draws after ``random.seed(seed)``, in drawn order.

    ``rate`` is the authors' (``Get_Params.py``); the default ``seed`` is our inference
    (see the module docstring), not a value found in their code.
    """
    rate = check_probability(rate, "rate", open_low=True)
    seed = check_int(seed, "seed", minimum=0)
    k = int(table.n * rate)
    idx = py27_sample(table.n, k, python_uniforms(seed))
    return table.take(np.asarray(idx, dtype=np.int64))


def table7(
    table: CodedTable,
    phis: Sequence[float] = TABLE7_PHIS,
    *,
    data: str = "sample",
    key: str = "authors",
    rounding: str = "half_up",
    edge_rule: str = ">",
    rate: float = SAMPLE_RATE,
    seed: int = SAMPLE_SEED,
) -> pd.DataFrame:
    """Table 7's layout (:func:`~ldp.lopub.pruning.pruning_table`, non-binary mode) for a coded table.

    The defaults are the authors' computation as we reconstructed it: the 10 % sample of
    :func:`authors_sample` (the seed inferred), the ranking key ``H / (|Omega| - 1)``
    (inferred), half-up rounding and the strict edge test (``Dependency.py``).
    ``data="full"`` uses every record; ``key="paper"`` ranks by ``H / |Omega|`` as the
    paper's text says; ``rounding="floor"`` and ``edge_rule=">="`` give the other readings.
    Mutual information and marginals are the exact empirical ones of the chosen records.
    """
    if data not in DATA_CHOICES:
        raise ValueError(f"data must be one of {DATA_CHOICES}, got {data!r}")
    if key not in SORT_KEYS:
        raise ValueError(f"key must be one of {SORT_KEYS}, got {key!r}")
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    check_edge_rule(edge_rule)
    rows = authors_sample(table, rate, seed) if data == "sample" else table
    mi = empirical_mi_matrix(rows.codes, rows.sizes)
    margs = [np.bincount(rows.codes[:, j], minlength=v) / rows.n for j, v in enumerate(rows.sizes)]
    return pruning_table(mi, margs, rows.sizes, phis, mode="nonbinary", rounding=rounding, key=key, edge_rule=edge_rule)
