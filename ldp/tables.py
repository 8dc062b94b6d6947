"""Categorical data as integer codes: one product domain and one coded-table type for every chapter.

* :class:`ProductDomain` -- the Cartesian product of finite domains of sizes
  ``(m_1, ..., m_J)`` and its one-dimensional (row-major, last axis fastest)
  index, for whole populations at once: the (label, attribute) domain of kHR,
  the (class, item) pairs of the multi-class frameworks, the ``(x, y)`` cells of
  the ULDP joint mechanisms and the attribute combinations of the CLLDP tree.
* :class:`CodedTable` -- ``n`` records of ``k`` categorical attributes coded
  ``0 .. m_j - 1``, with the attribute names, the category behind every code,
  an optional label column (for classification) and the data's provenance.
  :meth:`CodedTable.from_frame` codes a ``pandas.DataFrame`` (``pd.Categorical``
  for categorical columns, :func:`equal_width_codes` for continuous ones).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ._checks import as_generator, check_codes, check_indices, check_int

__all__ = ["ProductDomain", "CodedTable", "distinct_rows", "equal_width_codes", "interval_labels"]


def _column_codes(x: Any, size: int, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """:func:`ldp._checks.check_codes` that also accepts a domain of size 1 (every code 0)."""
    arr = check_codes(x, max(size, 2), name, allow_empty=allow_empty)
    if size == 1 and arr.size and arr.max() > 0:
        raise ValueError(f"{name} contains the code {int(arr.max())}, outside the domain {{0}}")
    return arr


# ---------------------------------------------------------------------------- product domain
class ProductDomain:
    """The domain ``[m_1] x ... x [m_J]`` and its flat index (C order: the last component varies fastest).

    ``encode(v_1, ..., v_J) = ((v_1 m_2 + v_2) m_3 + ...) m_J + v_J``; for two
    components ``(a, b)`` that is ``a * m_2 + b``.

    Parameters
    ----------
    sizes : sequence of int
        Component domain sizes, each >= 1, at least one component.
    names : sequence of str, optional
        Component names used in error messages (default ``columns[j]``).
    """

    def __init__(self, sizes: Sequence[int], names: Sequence[str] | None = None) -> None:
        if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence | np.ndarray):
            raise TypeError(f"sizes must be a sequence of domain sizes, got {type(sizes).__name__}")
        if len(sizes) == 0:
            raise ValueError("sizes must name at least one component domain, got an empty sequence")
        self.sizes = tuple(check_int(m, f"sizes[{j}]", minimum=1) for j, m in enumerate(sizes))
        if names is None:
            names = tuple(f"columns[{j}]" for j in range(len(self.sizes)))
        if len(names) != len(self.sizes):
            raise ValueError(f"names has {len(names)} entries for {len(self.sizes)} component domains")
        self.names = tuple(str(n) for n in names)
        self.size = math.prod(self.sizes)

    @property
    def ndim(self) -> int:
        return len(self.sizes)

    def encode(self, *columns: Any) -> np.ndarray:
        """Flat indices of a population, one int-code array per component (equal lengths)."""
        if len(columns) != self.ndim:
            raise ValueError(f"encode takes {self.ndim} code arrays ({', '.join(self.names)}), got {len(columns)}")
        cols = [
            _column_codes(c, m, name, allow_empty=True)
            for c, m, name in zip(columns, self.sizes, self.names, strict=True)
        ]
        if len({c.size for c in cols}) != 1:
            lengths = " and ".join(str(c.size) for c in cols)
            raise ValueError(f"{' and '.join(self.names)} must have the same length, got {lengths}")
        if cols[0].size == 0:
            raise ValueError(f"{self.names[0]} is empty: at least one user is needed")
        return np.ravel_multi_index(tuple(cols), self.sizes).astype(np.int64)

    def decode(self, flat: Any, name: str = "x") -> tuple[np.ndarray, ...]:
        """Inverse of :meth:`encode`: one code array per component, each of the shape of ``flat``."""
        arr = np.asarray(flat)
        codes = _column_codes(arr.ravel(), self.size, name, allow_empty=True)
        return tuple(c.reshape(arr.shape) for c in np.unravel_index(codes, self.sizes))

    def reshape(self, values: Any, name: str = "values") -> np.ndarray:
        """A length-``size`` float vector over the flat domain as an array of shape :attr:`sizes`."""
        v = np.asarray(values, dtype=float)
        if v.shape != (self.size,):
            raise ValueError(f"{name} must be a vector of length {self.size} (the product domain), got shape {v.shape}")
        return v.reshape(self.sizes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProductDomain) and other.sizes == self.sizes

    def __hash__(self) -> int:
        return hash(self.sizes)

    def __repr__(self) -> str:
        return f"ProductDomain(sizes={self.sizes}, names={self.names})"


# ---------------------------------------------------------------------------- distinct rows
def distinct_rows(rows: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an ``(n, p)`` matrix of non-negative integer codes, and where each row went.

    Returns ``(first, inverse)``: ``rows[first]`` are the distinct rows in ascending lexicographic order (first
    column most significant), ``first`` holding the index of each one's first occurrence, and
    ``rows[first][inverse]`` equals ``rows``.  Same distinct rows as ``np.unique(rows, axis=0)``, whose row order
    differs for rows that compare as raw bytes, but about 10 times faster: the columns are packed into one int64
    key per row, left to right, and the key is re-numbered densely whenever the next column would overflow it.
    """
    arr = np.asarray(rows)
    if arr.ndim != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"rows must be a 2-D integer matrix, got dtype {arr.dtype} and shape {arr.shape}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"rows must hold non-negative codes, got {int(arr.min())}")
    n, p = arr.shape
    key = np.zeros(n, dtype=np.int64)
    span = 1  # key values lie in 0 .. span - 1
    for j in range(p):
        radix = int(arr[:, j].max()) + 1 if n else 1
        if span > np.iinfo(np.int64).max // radix:
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64)
            span = int(key.max()) + 1
        key = key * radix + arr[:, j]
        span *= radix
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()


# ---------------------------------------------------------------------------- binning
def interval_labels(edges: Any) -> tuple[str, ...]:
    """``"[a, b)"`` labels of consecutive bin edges (6 significant digits)."""
    e = np.asarray(edges, dtype=float)
    return tuple(f"[{e[i]:.6g}, {e[i + 1]:.6g})" for i in range(e.size - 1))


def equal_width_codes(values: Any, bins: int = 10, *, return_labels: bool = False) -> Any:
    """Equal-width binning of ``[min, max]`` into ``bins`` codes ``0 .. bins - 1``.

    Bins are closed on the left, ``[e_i, e_{i+1})``, with the edges of ``numpy.linspace(min, max, bins + 1)``;
    the maximum falls in the last bin.  These are ``pandas.cut``'s codes (``right=False``), also when the range is
    so small that some edges coincide (a range of a few subnormal numbers), where ``pandas.cut`` refuses the
    edges.  A constant column is all code 0.  With ``return_labels`` also the bins' ``"[a, b)"`` labels.
    """
    bins = check_int(bins, "bins", minimum=1)
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError("values must be a non-empty 1-D array of finite numbers")
    lo, hi = float(v.min()), float(v.max())
    if hi == lo:
        codes = np.zeros(v.size, dtype=np.int64)
        labels = (f"[{lo:.6g}]",) + tuple(f"(empty bin {i})" for i in range(1, bins))
    else:
        edges = np.linspace(lo, hi, bins + 1)
        codes = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, bins - 1).astype(np.int64)
        labels = interval_labels(edges)
    return (codes, labels) if return_labels else codes


# ---------------------------------------------------------------------------- coded table
def _frozen_tuple(values: Any, name: str) -> tuple:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence, got a string {values!r}")
    return tuple(values)


@dataclass(frozen=True)
class CodedTable:
    """``n`` records of ``k`` categorical attributes as integer codes, with their schema.

    Attributes
    ----------
    codes : ndarray (n, k) of int64
        ``codes[i, j]`` in ``0 .. sizes[j] - 1``.
    names : tuple of str
        Attribute names (distinct).
    categories : tuple of tuples
        ``categories[j][c]`` is the value behind code ``c`` of attribute ``j``;
        ``sizes[j] = len(categories[j])``.
    y : ndarray (n,) of int64 or None
        Optional label column (for classification), codes in ``0 .. len(classes) - 1``.
    classes : tuple of str
        The labels behind the codes of ``y`` (empty when there is no label).
    source : str
        Where the rows come from (a real file or a stand-in generator).
    real : bool
        False for stand-in data.
    """

    codes: np.ndarray
    names: tuple[str, ...]
    categories: tuple[tuple[Any, ...], ...]
    y: np.ndarray | None = None
    classes: tuple[str, ...] = ()
    source: str = ""
    real: bool = True

    def __post_init__(self) -> None:
        codes = np.asarray(self.codes)
        if codes.ndim != 2 or not np.issubdtype(codes.dtype, np.integer):
            raise TypeError(
                f"codes must be a 2-D integer array (records x attributes), got dtype {codes.dtype} "
                f"and shape {codes.shape}"
            )
        names = tuple(str(n) for n in _frozen_tuple(self.names, "names"))
        cats = tuple(
            _frozen_tuple(c, f"categories[{j}]") for j, c in enumerate(_frozen_tuple(self.categories, "categories"))
        )
        if len(names) != codes.shape[1] or len(cats) != codes.shape[1]:
            raise ValueError(
                f"codes has {codes.shape[1]} columns but {len(names)} names and {len(cats)} category lists"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"names must be distinct, got {names}")
        for j, cat in enumerate(cats):
            if len(cat) == 0:
                raise ValueError(f"attribute {names[j]!r} has no categories")
            if codes.shape[0] and (codes[:, j].min() < 0 or codes[:, j].max() >= len(cat)):
                raise ValueError(f"column {names[j]!r} has codes outside {{0, ..., {len(cat) - 1}}}")
        object.__setattr__(self, "codes", codes.astype(np.int64, copy=False))
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "categories", cats)
        object.__setattr__(self, "classes", tuple(str(c) for c in _frozen_tuple(self.classes, "classes")))
        self._check_label()

    def _check_label(self) -> None:
        if self.y is None:
            if self.classes:
                raise ValueError("classes given without a label column y")
            return
        y = np.asarray(self.y)
        if y.ndim != 1 or y.size != self.n:
            raise ValueError(f"y must be a 1-D array of {self.n} label codes, got shape {y.shape}")
        if len(self.classes) == 0:
            raise ValueError("a label column y needs its classes")
        object.__setattr__(self, "y", _column_codes(y, len(self.classes), "y", allow_empty=True))

    # ------------------------------------------------------------------ shape
    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.codes.shape[0])

    @property
    def d(self) -> int:
        """Number of attributes (columns of :attr:`codes`)."""
        return int(self.codes.shape[1])

    @property
    def sizes(self) -> tuple[int, ...]:
        """Domain size of every attribute."""
        return tuple(len(c) for c in self.categories)

    @property
    def X(self) -> np.ndarray:
        """:attr:`codes` under scikit-learn's name (the attribute matrix that goes with ``y``)."""
        return self.codes

    def domain(self, columns: Sequence[int] | None = None) -> ProductDomain:
        """The :class:`ProductDomain` of the attributes ``columns`` (all by default)."""
        cols = range(self.d) if columns is None else [int(c) for c in columns]
        return ProductDomain([self.sizes[c] for c in cols], [self.names[c] for c in cols])

    # ------------------------------------------------------------------ new tables
    def with_codes(self, codes: Any) -> CodedTable:
        """A table with the same attribute schema and new codes (e.g. a synthetic release), without labels.

        ``codes`` is a 2-D ``(records, attributes)`` array (one record is ``codes[None, :]``); the label column
        ``y`` is never carried over, whatever the number of rows, because new codes describe other records.
        """
        return replace(self, codes=np.asarray(codes), y=None, classes=())

    def select(self, columns: Sequence[int]) -> CodedTable:
        """The table restricted to the attributes ``columns`` (in that order)."""
        cols = check_indices(columns, self.d, "columns").tolist()
        if not cols or len(set(cols)) != len(cols):
            raise ValueError(f"columns must be distinct indices in {{0, ..., {self.d - 1}}}, got {cols}")
        return replace(
            self,
            codes=self.codes[:, cols],
            names=tuple(self.names[c] for c in cols),
            categories=tuple(self.categories[c] for c in cols),
        )

    def take(self, rows: Any) -> CodedTable:
        """Rows ``rows`` (indices in ``{0, ..., n-1}`` or a boolean mask of length ``n``), labels included."""
        idx = check_indices(rows, self.n, "rows", allow_mask=True)
        return replace(self, codes=self.codes[idx], y=None if self.y is None else self.y[idx])

    def subsample(self, n: int, rng: Any = None) -> CodedTable:
        """A uniformly random subset of ``n`` rows (``1 <= n <= self.n``), in file order (same domains)."""
        n = check_int(n, "n", minimum=1, maximum=self.n)
        if n >= self.n:
            return self
        idx = np.sort(as_generator(rng).choice(self.n, size=n, replace=False))
        return replace(self.take(idx), source=self.source + f" (random subsample of {n:,} rows)")

    # ------------------------------------------------------------------ DataFrames
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        columns: Sequence[str] | None = None,
        *,
        label: str | None = None,
        continuous: Sequence[str] = (),
        bins: int = 10,
        min_size: int = 1,
        source: str = "",
        real: bool = True,
    ) -> CodedTable:
        """Code the ``columns`` of a DataFrame (all but ``label`` by default).

        Categorical columns get their observed categories in sorted order
        (``pd.Categorical``); the columns in ``continuous`` are cut into ``bins``
        equal-width bins (:func:`equal_width_codes`).  A column with fewer than
        ``min_size`` observed categories gets empty categories ``"(unobserved i)"``
        up to ``min_size``.  ``label`` names the label column (sorted classes,
        compared as strings).  Missing values are refused: fill them first.
        """
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
        if label is not None and label not in frame.columns:
            raise ValueError(f"label column {label!r} is not in the frame (columns: {list(frame.columns)})")
        cols = [c for c in frame.columns if c != label] if columns is None else list(columns)
        missing = [c for c in [*cols, *continuous] if c not in frame.columns]
        if missing:
            raise ValueError(f"columns not in frame: {missing}")
        min_size = check_int(min_size, "min_size", minimum=1)
        has_na = [c for c in cols if frame[c].isna().any()]
        if has_na:
            raise ValueError(f"columns {has_na} contain missing values; drop or impute them first")
        codes, cats = [], []
        for c in cols:
            if c in continuous:
                cc, cat = equal_width_codes(frame[c].to_numpy(dtype=float), bins, return_labels=True)
            else:
                cc, cat = _categorical_codes(frame[c])
            cat = tuple(cat) + tuple(f"(unobserved {i})" for i in range(len(cat), min_size))
            codes.append(cc)
            cats.append(cat)
        y, classes = None, ()
        if label is not None:
            y, classes = _categorical_codes(frame[label].astype(str))
        arr = np.column_stack(codes) if codes else np.zeros((len(frame), 0), dtype=np.int64)
        return cls(arr, tuple(map(str, cols)), tuple(cats), y, classes, source, real)

    def code_frame(self, frame: pd.DataFrame) -> CodedTable:
        """Code new records with *this* schema; a value outside the declared categories raises ``ValueError``."""
        missing = [c for c in self.names if c not in frame.columns]
        if missing:
            raise ValueError(f"frame lacks the columns {missing}")
        cols = []
        for name, cats in zip(self.names, self.categories, strict=True):
            index = pd.Index(cats)
            codes = index.get_indexer(frame[name])
            if np.any(codes < 0):
                unknown = sorted({repr(v) for v, c in zip(frame[name].tolist(), codes, strict=True) if c < 0})
                raise ValueError(f"column {name!r} has unknown categories {unknown[:5]}; known: {list(cats)[:10]}")
            cols.append(codes.astype(np.int64))
        codes = np.column_stack(cols) if cols else np.zeros((len(frame), 0), dtype=np.int64)
        return self.with_codes(codes)

    def to_frame(self) -> pd.DataFrame:
        """DataFrame with one categorical column per attribute (all declared categories kept)."""
        return pd.DataFrame(
            {
                name: pd.Categorical.from_codes(self.codes[:, j], categories=pd.Index(self.categories[j]))
                for j, name in enumerate(self.names)
            }
        )


def _categorical_codes(series: pd.Series) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Codes of a column over its observed categories (sorted; a categorical column's order is kept)."""
    cat = pd.Categorical(series).remove_unused_categories()
    return np.asarray(cat.codes, dtype=np.int64), tuple(cat.categories)
