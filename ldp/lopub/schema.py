"""A categorical table as integer codes plus its schema (names and value labels).

LoPub works on ``d`` categorical attributes whose values are coded ``0 .. |Omega_j| - 1``
(our convention).  :class:`CodedTable` keeps the codes together with the
attribute names and the label of every code, so that a synthetic release
(Alg. 6) comes back with exactly the schema of the input, and converts to and
from a ``pandas.DataFrame`` of categorical columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class CodedTable:
    """``codes[i, j]`` in ``{0, .., |Omega_j| - 1}`` with ``names[j]`` and ``labels[j][code]``."""

    codes: np.ndarray
    names: tuple[str, ...]
    labels: tuple[tuple[Any, ...], ...]

    def __post_init__(self) -> None:
        codes = np.asarray(self.codes)
        if codes.ndim != 2 or not np.issubdtype(codes.dtype, np.integer):
            raise TypeError(f"codes must be a 2-D integer array, got {codes.dtype} {codes.shape}")
        names, labels = tuple(self.names), tuple(tuple(v) for v in self.labels)
        if len(names) != codes.shape[1] or len(labels) != codes.shape[1]:
            raise ValueError(f"codes has {codes.shape[1]} columns but {len(names)} names and "
                             f"{len(labels)} label lists")
        if len(set(names)) != len(names):
            raise ValueError("names must be distinct")
        for j, lab in enumerate(labels):
            if len(lab) < 2:
                raise ValueError(f"attribute {names[j]!r} has {len(lab)} value(s); need >= 2")
            if codes.shape[0] and (codes[:, j].min() < 0 or codes[:, j].max() >= len(lab)):
                raise ValueError(f"column {names[j]!r} has codes outside {{0, ..., {len(lab) - 1}}}")
        object.__setattr__(self, "codes", codes.astype(np.int64, copy=False))
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "labels", labels)

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def d(self) -> int:
        return int(self.codes.shape[1])

    @property
    def domains(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.labels)

    def with_codes(self, codes: Any) -> "CodedTable":
        """A table with the same schema and new codes (e.g. a synthetic release)."""
        return CodedTable(np.asarray(codes), self.names, self.labels)

    def select(self, columns: Sequence[int]) -> "CodedTable":
        """The table restricted to the attributes ``columns`` (in that order)."""
        cols = [int(c) for c in columns]
        if not cols or len(set(cols)) != len(cols) or min(cols) < 0 or max(cols) >= self.d:
            raise ValueError(f"columns must be distinct indices in {{0, ..., {self.d - 1}}}, got {cols}")
        return CodedTable(self.codes[:, cols], tuple(self.names[c] for c in cols),
                          tuple(self.labels[c] for c in cols))

    def take(self, rows: Any) -> "CodedTable":
        """Rows ``rows`` (indices or mask) of the table."""
        return self.with_codes(self.codes[np.asarray(rows)])

    def code_frame(self, frame: pd.DataFrame) -> "CodedTable":
        """Code new records with *this* schema; a value outside the declared labels raises ``ValueError``."""
        missing = [c for c in self.names if c not in frame.columns]
        if missing:
            raise ValueError(f"frame lacks the columns {missing}")
        cols = []
        for name, labels in zip(self.names, self.labels):
            lookup = {v: i for i, v in enumerate(labels)}
            values = frame[name].tolist()
            unknown = sorted({repr(v) for v in values if v not in lookup})
            if unknown:
                raise ValueError(f"column {name!r} has unknown categories {unknown[:5]}; known: {list(labels)[:10]}")
            cols.append(np.fromiter((lookup[v] for v in values), dtype=np.int64, count=len(values)))
        codes = np.column_stack(cols) if cols else np.zeros((len(frame), 0), dtype=np.int64)
        return self.with_codes(codes)

    def to_frame(self) -> pd.DataFrame:
        """DataFrame with one categorical column per attribute (all declared categories kept)."""
        cols = {}
        for j, name in enumerate(self.names):
            cat = pd.Categorical.from_codes(self.codes[:, j], categories=pd.Index(self.labels[j]))
            cols[name] = cat
        return pd.DataFrame(cols)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, columns: Sequence[str] | None = None) -> "CodedTable":
        """Code every column (categories of categorical columns, sorted unique values otherwise)."""
        columns = list(frame.columns if columns is None else columns)
        codes, labels = [], []
        for c in columns:
            s = frame[c]
            if s.isna().any():
                raise ValueError(f"column {c!r} has missing values; drop or impute them first")
            cat = s.array if isinstance(s.dtype, pd.CategoricalDtype) else pd.Categorical(s)
            codes.append(np.asarray(cat.codes, dtype=np.int64))
            labels.append(tuple(cat.categories))
        return cls(np.column_stack(codes), tuple(map(str, columns)), tuple(labels))
