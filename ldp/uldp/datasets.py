"""The 2-D count tables of the paper's experiments: UCI nursery and Kaggle "score".

The mechanisms only ever see the pair ``(x, y)``, so an experiment is fully
determined by the ``k_x × k_y`` table of true counts.  :func:`load_table` builds
it from the real file through :func:`ldp.data.load` when the file is present,
and otherwise falls back to the exact tables below (computed once from the
verified files), saying so through an
:class:`ldp.data.DataSource` that notebooks display with
:func:`ldp.data.show_source`.

Settings (Yin et al. 2023, Table 3 and Sec. 7.4; the choice of *which* values
are sensitive is ours where the paper only gives sizes):

===========  ========================  ==========================  =================================
setting      x                         sensitive x                 sensitive y (class)
===========  ========================  ==========================  =================================
``fig3a``    nursery ``parents`` (3)   usual, pretentious          not_recom, recommend
``fig3b``    nursery ``form`` (4)      incomplete, foster (paper)  not_recom, recommend
``fig3c``    score race (5)            group A, group B            low, mid
``fig3d``    score parental edu. (6)   associate's, bachelor's     low, mid
``fig4a/b``  as 3a/3b                  as 3a/3b                    the four lowest classes
``fig5a/b``  as 3c/3d                  four values                 low, mid
``fig6``     nursery ``has_nurs`` (5)  proper, less_proper         not_recom, recommend
===========  ========================  ==========================  =================================

Sensitive values are moved to the front of each domain (the paper's index
convention); the mechanisms would accept them anywhere.  For the score class the
sum of the three exam scores is cut into tertiles (``pd.qcut``; counts
336/332/332) by default, or into three equal-width bins (``"equal-width"``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_generator, check_int
from ..data import DatasetUnavailable, DataSource, get_dataset, load
from .model import SensitiveDomain, ULDPModel2D

__all__ = [
    "Setting",
    "SETTINGS",
    "JointTable",
    "load_table",
    "standin_table",
    "score_class",
    "CATEGORY_ORDERS",
    "leading_rows_table",
]

NURSERY_CLASS = ("not_recom", "recommend", "very_recom", "priority", "spec_prior")
SCORE_CLASS = ("low", "mid", "high")

#: category orders: UCI ``nursery.names`` for nursery; alphabetical for the score features
CATEGORY_ORDERS: dict[tuple[str, str], tuple[str, ...]] = {
    ("nursery", "parents"): ("usual", "pretentious", "great_pret"),
    ("nursery", "has_nurs"): ("proper", "less_proper", "improper", "critical", "very_crit"),
    ("nursery", "form"): ("complete", "completed", "incomplete", "foster"),
    ("nursery", "class"): NURSERY_CLASS,
    ("students", "race/ethnicity"): ("group A", "group B", "group C", "group D", "group E"),
    ("students", "parental level of education"): (
        "associate's degree",
        "bachelor's degree",
        "high school",
        "master's degree",
        "some college",
        "some high school",
    ),
    ("students", "class"): SCORE_CLASS,
}

#: exact (feature × class) count tables of the verified files, rows/columns in CATEGORY_ORDERS order
_STANDIN: dict[tuple[str, str, str], list[list[int]]] = {
    ("nursery", "parents", ""): [[1440, 2, 196, 1924, 758], [1440, 0, 132, 1484, 1264], [1440, 0, 0, 858, 2022]],
    ("nursery", "form", ""): [
        [1080, 2, 118, 1152, 888],
        [1080, 0, 100, 1092, 968],
        [1080, 0, 70, 1038, 1052],
        [1080, 0, 40, 984, 1136],
    ],
    ("nursery", "has_nurs", ""): [
        [864, 2, 130, 1344, 252],
        [864, 0, 132, 1344, 252],
        [864, 0, 66, 904, 758],
        [864, 0, 0, 464, 1264],
        [864, 0, 0, 210, 1518],
    ],
    ("students", "race/ethnicity", "tertile"): [[46, 22, 21], [74, 59, 57], [114, 110, 95], [74, 96, 92], [28, 45, 67]],
    ("students", "parental level of education", "tertile"): [
        [67, 68, 87],
        [28, 42, 48],
        [83, 73, 40],
        [14, 16, 29],
        [72, 79, 75],
        [72, 54, 53],
    ],
    ("students", "race/ethnicity", "equal-width"): [
        [3, 61, 25],
        [8, 109, 73],
        [9, 168, 142],
        [5, 125, 132],
        [2, 51, 87],
    ],
    ("students", "parental level of education", "equal-width"): [
        [1, 111, 110],
        [1, 51, 66],
        [10, 121, 65],
        [0, 23, 36],
        [6, 112, 108],
        [9, 96, 74],
    ],
}


@dataclass(frozen=True)
class Setting:
    """One experimental configuration: dataset, the ``x`` feature, and the two sensitive sets (labels)."""

    dataset: str
    x: str
    x_sensitive: tuple[str, ...]
    y_sensitive: tuple[str, ...]
    label: str


_N2 = ("not_recom", "recommend")
_N4 = ("not_recom", "recommend", "very_recom", "priority")
_RACE, _EDU = "race/ethnicity", "parental level of education"
#: The experimental configurations of the paper, by key (dataset, feature and sensitive sets of each).
SETTINGS: dict[str, Setting] = {
    "fig3a": Setting("nursery", "parents", ("usual", "pretentious"), _N2, "nursery parents×class (3×5)"),
    "fig3b": Setting("nursery", "form", ("incomplete", "foster"), _N2, "nursery form×class (4×5)"),
    "fig3c": Setting("students", _RACE, ("group A", "group B"), ("low", "mid"), "score race×class (5×3)"),
    "fig3d": Setting(
        "students", _EDU, ("associate's degree", "bachelor's degree"), ("low", "mid"), "score education×class (6×3)"
    ),
    "fig4a": Setting("nursery", "parents", ("usual", "pretentious"), _N4, "nursery parents×class (3×5), |Y_S|=4"),
    "fig4b": Setting("nursery", "form", ("incomplete", "foster"), _N4, "nursery form×class (4×5), |Y_S|=4"),
    "fig5a": Setting(
        "students",
        _RACE,
        ("group A", "group B", "group C", "group D"),
        ("low", "mid"),
        "score race×class (5×3), |X_S|=4",
    ),
    "fig5b": Setting(
        "students",
        _EDU,
        ("associate's degree", "bachelor's degree", "high school", "master's degree"),
        ("low", "mid"),
        "score education×class (6×3), |X_S|=4",
    ),
    "fig6": Setting("nursery", "has_nurs", ("proper", "less_proper"), _N2, "nursery has_nurs×class (5×5)"),
}


@dataclass(frozen=True)
class JointTable:
    """True counts of the pairs ``(x, y)``, sensitive values first, with their model and provenance."""

    counts: np.ndarray
    model: ULDPModel2D
    x_name: str
    y_name: str
    source: DataSource

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / self.counts.sum()

    @property
    def x_labels(self) -> tuple[str, ...]:
        return self.model.x.labels

    @property
    def y_labels(self) -> tuple[str, ...]:
        return self.model.y.labels

    def frame(self) -> pd.DataFrame:
        """The table as a labelled DataFrame (sensitive labels marked with ``*``)."""
        xm, ym = self.model.x.mask, self.model.y.mask
        return pd.DataFrame(
            self.counts,
            index=pd.Index([f"{v}*" if s else v for v, s in zip(self.x_labels, xm)], name=self.x_name),
            columns=pd.Index([f"{v}*" if s else v for v, s in zip(self.y_labels, ym)], name=self.y_name),
        )

    def users(self) -> tuple[np.ndarray, np.ndarray]:
        """One ``(x, y)`` code pair per user (the table expanded with ``np.repeat``, cells in flat order)."""
        flat = np.repeat(np.arange(self.counts.size), self.counts.ravel())
        return self.model.cells.decode(flat)

    def subsample(self, n: int, rng: Any = None) -> JointTable:
        """A uniformly random subsample of ``n`` users without replacement (multivariate hypergeometric).

        Exactly the count table of ``n`` rows drawn at random from the file —
        *not* the first ``n`` rows, which in the sorted nursery file are
        degenerate (see :func:`leading_rows_table`).
        """
        n = check_int(n, "n", minimum=1, maximum=self.n)
        gen = as_generator(rng)
        sub = gen.multivariate_hypergeometric(self.counts.ravel(), n).reshape(self.counts.shape)
        return JointTable(_frozen(sub), self.model, self.x_name, self.y_name, self.source)


def _frozen(a: Any) -> np.ndarray:
    arr = np.array(a, dtype=np.int64)
    arr.setflags(write=False)
    return arr


def _check_setting(setting: str) -> Setting:
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {sorted(SETTINGS)}, got {setting!r}")
    return SETTINGS[setting]


def _check_classes(score_classes: str) -> str:
    if score_classes not in ("tertile", "equal-width"):
        raise ValueError(f"score_classes must be 'tertile' or 'equal-width', got {score_classes!r}")
    return score_classes


def score_class(frame: pd.DataFrame, method: str = "tertile") -> pd.Series:
    """The score dataset's 3-level class: the total of the three exam scores cut into tertiles or equal bins."""
    method = _check_classes(method)
    cols = [c for c in ("math", "reading", "writing") if c in frame.columns]
    if len(cols) != 3:
        cols = [c for c in frame.columns if str(c).endswith(" score")]
    if len(cols) != 3:
        raise ValueError(f"frame needs the three score columns, got columns {list(frame.columns)}")
    total = frame[cols].sum(axis=1)
    cut = pd.qcut if method == "tertile" else pd.cut
    return cut(total, 3, labels=list(SCORE_CLASS)).astype(str)


def _y_column(dataset: str, frame: pd.DataFrame, score_classes: str) -> pd.Series:
    if dataset == "nursery":
        return frame["classification"].astype(str)
    return score_class(frame, score_classes)


def _crosstab(dataset: str, x: str, frame: pd.DataFrame, score_classes: str) -> np.ndarray:
    xs = frame[x].astype(str)
    ys = _y_column(dataset, frame, score_classes)
    xo, yo = CATEGORY_ORDERS[(dataset, x)], CATEGORY_ORDERS[(dataset, "class")]
    for col, vals, order in ((x, xs, xo), ("class", ys, yo)):
        unknown = sorted(set(vals) - set(order))
        if unknown:
            raise ValueError(f"{dataset} column {col!r} has unknown categories {unknown}; expected {list(order)}")
    tab = pd.crosstab(pd.Categorical(xs, categories=xo), pd.Categorical(ys, categories=yo), dropna=False)
    return tab.reindex(index=list(xo), columns=list(yo), fill_value=0).to_numpy(dtype=np.int64)


def standin_table(dataset: str, x: str, score_classes: str = "tertile") -> np.ndarray:
    """The exact (feature × class) table of the verified file, in :data:`CATEGORY_ORDERS` order."""
    key = (dataset, x, "" if dataset == "nursery" else _check_classes(score_classes))
    if key not in _STANDIN:
        raise ValueError(f"no stand-in table for dataset={dataset!r}, x={x!r}, score_classes={score_classes!r}")
    return np.array(_STANDIN[key], dtype=np.int64)


def _reorder(counts: np.ndarray, dataset: str, st: Setting) -> tuple[np.ndarray, ULDPModel2D]:
    """Move sensitive values to the front (stable) and build the model with labels."""
    xo, yo = CATEGORY_ORDERS[(dataset, st.x)], CATEGORY_ORDERS[(dataset, "class")]
    xdom = SensitiveDomain.from_labels(xo, st.x_sensitive)
    ydom = SensitiveDomain.from_labels(yo, st.y_sensitive)
    xperm = np.concatenate([np.flatnonzero(xdom.mask), np.flatnonzero(~xdom.mask)])
    yperm = np.concatenate([np.flatnonzero(ydom.mask), np.flatnonzero(~ydom.mask)])
    model = ULDPModel2D(
        SensitiveDomain(len(xo), range(xdom.n_sensitive), labels=[xo[i] for i in xperm]),
        SensitiveDomain(len(yo), range(ydom.n_sensitive), labels=[yo[j] for j in yperm]),
    )
    return counts[np.ix_(xperm, yperm)], model


@functools.lru_cache(maxsize=64)
def load_table(setting: str, score_classes: str = "tertile", *, allow_standin: bool = True) -> JointTable:
    """The true count table of a setting (see the module table), from the real file if present.

    Parameters
    ----------
    setting : str
        A key of :data:`SETTINGS`.
    score_classes : {"tertile", "equal-width"}
        How the score total becomes a 3-level class (ignored for nursery).
    allow_standin : bool
        If False, a missing file raises :class:`ldp.data.DatasetUnavailable`.

    Returns
    -------
    JointTable
        ``source.real`` tells whether the real file was used.
    """
    st = _check_setting(setting)
    _check_classes(score_classes)
    title = get_dataset(st.dataset).title
    y_name = "class" if st.dataset == "nursery" else f"score class ({score_classes})"
    try:
        frame = load(st.dataset)
        counts = _crosstab(st.dataset, st.x, frame, score_classes)
        source = DataSource(st.dataset, True, title)
    except DatasetUnavailable:
        if not allow_standin:
            raise
        counts = standin_table(st.dataset, st.x, score_classes)
        source = DataSource(
            st.dataset,
            False,
            f"the exact {st.x}×class count table of the verified {title} file, stored in ldp.uldp.datasets",
            equivalent=True,
        )
    counts, model = _reorder(counts, st.dataset, st)
    return JointTable(_frozen(counts), model, st.x, y_name, source)


def leading_rows_table(setting: str, n: int, score_classes: str = "tertile") -> JointTable:
    """The table of the *first* ``n`` rows of the real file — the wrong way to subsample (needs the file).

    Raises :class:`ldp.data.DatasetUnavailable` when the file is missing (the
    stand-in tables carry no row order).
    """
    st = _check_setting(setting)
    frame = load(st.dataset)
    n = check_int(n, "n", minimum=1, maximum=len(frame))
    counts = _crosstab(st.dataset, st.x, frame.iloc[:n], score_classes)
    counts, model = _reorder(counts, st.dataset, st)
    y_name = "class" if st.dataset == "nursery" else f"score class ({score_classes})"
    return JointTable(
        _frozen(counts),
        model,
        st.x,
        y_name,
        DataSource(st.dataset, True, get_dataset(st.dataset).title + f", first {n} rows"),
    )
