"""Data for the CLLDP chapter: the four synthetic sets of Sec. 7.1, the public tables, stand-ins.

Synthetic sets (Xue et al., Sec. 7.1): one attribute with 50 values, 5 labels
drawn uniformly; for labels 1-4 the attribute is uniform on ``{1..50}``, and
the sets differ only in the attribute's law under label 5:

* ``U(1,50)``: uniform;
* ``N(25,1)`` and ``N(25,0.3)``: a normal variable with mean 25 and *variance*
  1 or 0.3, rounded to the nearest integer and clipped to ``[1, 50]``;
* ``D(25)``: the constant 25.

Reading the second parameter as a variance and rounding to the nearest integer
is the only reading that reproduces Table 4 (checked in the CLLDP theory chapter):
``P(|Z| < 0.5) = 0.3829`` and ``P(|Z| < 0.5/sqrt(0.3)) = 0.6387``.  Codes are
0-based here (value ``v`` is code ``v - 1``).

Public tables are returned as integer-coded attribute matrices, label codes
and domain sizes (:class:`CodedTable`); continuous attributes are cut into 10
equal-width bins (Sec. 7.1, "discretized to 10 categorical values").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import as_generator, check_int, check_probability, check_seed
from ..tables import CodedTable, equal_width_codes
from .paper import ADULT_N, HEALTHCARE_N, SMARTGRID_N, SYNTHETIC_M_ATTR, SYNTHETIC_M_LABEL

__all__ = [
    "SYNTHETIC_NAMES",
    "synthetic_conditional",
    "make_synthetic",
    "CodedTable",
    "equal_width_codes",
    "code_frame",
    "adult_table",
    "smartgrid_augment",
    "smartgrid_table",
    "smartgrid_standin",
    "healthcare_standin",
    "HEALTHCARE_DOMAINS",
    "load_public",
]

SYNTHETIC_NAMES = ("U(1,50)", "N(25,1)", "N(25,0.3)", "D(25)")
_M_ATTR, _M_LABEL, _CENTER = SYNTHETIC_M_ATTR, SYNTHETIC_M_LABEL, 25
_VARIANCE = {"N(25,1)": 1.0, "N(25,0.3)": 0.3}


def _check_name(name: str) -> str:
    if name not in SYNTHETIC_NAMES:
        raise ValueError(f"name must be one of {SYNTHETIC_NAMES}, got {name!r}")
    return name


def synthetic_conditional(name: str) -> np.ndarray:
    """The generator's true table ``Pr{a | l}`` (5 x 50, rows = labels) of a synthetic set."""
    _check_name(name)
    cond = np.full((_M_LABEL, _M_ATTR), 1.0 / _M_ATTR)
    values = np.arange(1, _M_ATTR + 1)
    if name == "D(25)":
        last = (values == _CENTER).astype(float)
    elif name in _VARIANCE:
        sd = math.sqrt(_VARIANCE[name])
        upper = stats.norm.cdf((values + 0.5 - _CENTER) / sd)
        lower = stats.norm.cdf((values - 0.5 - _CENTER) / sd)
        upper[-1], lower[0] = 1.0, 0.0  # clipping to [1, 50] puts the tails on the end values
        last = upper - lower
    else:
        last = np.full(_M_ATTR, 1.0 / _M_ATTR)
    cond[-1] = last / last.sum()
    return cond


def make_synthetic(name: str, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` records ``(attr, label)`` of a synthetic set (0-based codes; labels i.i.d. uniform)."""
    _check_name(name)
    n = check_int(n, "n", minimum=1)
    gen = as_generator(rng)
    label = gen.integers(0, _M_LABEL, size=n)
    attr = gen.integers(0, _M_ATTR, size=n)
    last = label == _M_LABEL - 1
    k = int(last.sum())
    if name == "D(25)":
        attr[last] = _CENTER - 1
    elif name in _VARIANCE:
        draw = np.rint(gen.normal(_CENTER, math.sqrt(_VARIANCE[name]), size=k))
        attr[last] = np.clip(draw, 1, _M_ATTR).astype(np.int64) - 1
    return attr.astype(np.int64), label.astype(np.int64)


# ---------------------------------------------------------------------------- coded tables
def code_frame(
    frame: pd.DataFrame, label: str, continuous: Sequence[str], bins: int = 10, source: str = "", real: bool = True
) -> CodedTable:
    """Code a DataFrame as in Sec. 7.1: continuous columns into ``bins`` equal-width bins, others as categories.

    Categories are compared as strings; a missing categorical value becomes its own
    category ``"?"`` (Adult keeps its '?' rows) and every attribute has a domain of
    at least 2 values (the mechanisms need ``m >= 2``).
    """
    if label not in frame.columns:
        raise ValueError(f"label column {label!r} is not in the frame (columns: {list(frame.columns)})")
    data = frame.copy()
    for col in data.columns:
        if col != label and col not in continuous:
            data[col] = data[col].astype(object).where(data[col].notna(), "?").astype(str)
    return CodedTable.from_frame(
        data, label=label, continuous=continuous, bins=bins, min_size=2, source=source, real=real
    )


ADULT_CONTINUOUS = ("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week")


def adult_table(frame: pd.DataFrame | None = None) -> CodedTable:
    """UCI Adult training file (32,561 rows, '?' kept as a category), coded as in Sec. 7.1."""
    if frame is None:
        from ..data import load

        frame = load("adult")
    if "split" in frame.columns:
        frame = frame[frame["split"] == "train"].drop(columns="split")
    return code_frame(
        frame.reset_index(drop=True), "income", ADULT_CONTINUOUS, source=f"UCI Adult, training file ({ADULT_N:,} rows)"
    )


_NODE_GROUPS = (("tau2", "tau3", "tau4"), ("p2", "p3", "p4"), ("g2", "g3", "g4"))


def smartgrid_augment(frame: pd.DataFrame) -> pd.DataFrame:
    """The 10,000 UCI grid-stability rows times the 6 permutations of consumer nodes 2-4 (60,000 rows)."""
    missing = [c for g in _NODE_GROUPS for c in g if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the node columns {missing}")
    parts = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        part = frame.copy()
        for group in _NODE_GROUPS:
            for dst, src in zip(group, perm):
                part[dst] = frame[group[src]].to_numpy()
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def smartgrid_table(frame: pd.DataFrame, *, augment: bool = True, source: str = "", real: bool = True) -> CodedTable:
    """SmartGrid as in Sec. 7.1: 13 attributes (12 features + ``stab``) in 10 bins, label unstable iff stab > 0."""
    data = frame.copy()
    if "stabf" in data.columns:
        data = data.drop(columns="stabf")
    data["label"] = np.where(data["stab"].to_numpy() > 0, "unstable", "stable")
    if augment and len(data) < SMARTGRID_N:
        data = smartgrid_augment(data)
    cont = [c for c in data.columns if c != "label"]
    return code_frame(data, "label", cont, source=source or "UCI grid stability x 6 node permutations", real=real)


def smartgrid_standin(n0: int = 10_000, rng: Any = 20250) -> pd.DataFrame:
    """SmartGrid-like stand-in (not the paper's data): same columns and ranges, a surrogate stability index.

    63.8% of its rows are unstable.

    The physics of the real ``stab`` (a root of a delay-differential characteristic
    equation) is not reproduced; only the schema and the key property that the
    label is a threshold of the ``stab`` attribute are kept.
    """
    n0 = check_int(n0, "n0", minimum=10)
    gen = as_generator(rng)
    tau = gen.uniform(0.5, 10, size=(n0, 4))
    p = np.empty((n0, 4))
    p[:, 1:] = gen.uniform(-2, -0.5, size=(n0, 3))
    p[:, 0] = -p[:, 1:].sum(axis=1)
    g = gen.uniform(0.05, 1, size=(n0, 4))
    z = (tau * g).mean(axis=1)
    stab = 0.03 * (z - np.quantile(z, 0.362)) / z.std() + gen.normal(0, 0.003, size=n0)
    cols = {f"tau{j + 1}": tau[:, j] for j in range(4)}
    cols.update({f"p{j + 1}": p[:, j] for j in range(4)})
    cols.update({f"g{j + 1}": g[:, j] for j in range(4)})
    cols["stab"] = stab
    return pd.DataFrame(cols)


#: Domain sizes of the 15 Healthcare attributes after binning (our choice for the stand-in).
HEALTHCARE_DOMAINS = (32, 7, 11, 3, 10, 5, 6, 6, 5, 38, 3, 3, 10, 10, 10)
HEALTHCARE_NAMES = (
    "Hospital_code",
    "Hospital_type_code",
    "City_Code_Hospital",
    "Hospital_region_code",
    "Available_Extra_Rooms",
    "Department",
    "Ward_Type",
    "Ward_Facility_Code",
    "Bed_Grade",
    "City_Code_Patient",
    "Type_of_Admission",
    "Severity_of_Illness",
    "Visitors_with_Patient",
    "Age",
    "Admission_Deposit",
)
#: structural seed and correlation scale of the stand-in, chosen once so that non-private Naive Bayes
#: reaches about 0.70 test accuracy (see the experiments notebook); not tuned to any result of the paper
HEALTHCARE_STRUCTURE_SEED = 318438
HEALTHCARE_LAMBDA = (0.05, 0.40)


def healthcare_conditionals(
    lam_range: tuple[float, float] = HEALTHCARE_LAMBDA, seed: int = HEALTHCARE_STRUCTURE_SEED
) -> list[np.ndarray]:
    """The stand-in's true tables ``Pr{a^c | l}`` (2 x m^c each): ``(1-λ_c) b_c + λ_c Dirichlet_l(1)``."""
    gen = np.random.default_rng(check_seed(seed, "seed"))
    lam = gen.uniform(*lam_range, size=len(HEALTHCARE_DOMAINS))
    tables = []
    for c, m in enumerate(HEALTHCARE_DOMAINS):
        base = gen.dirichlet(np.ones(m))
        rows = gen.dirichlet(np.ones(m), size=2)
        tables.append((1 - lam[c]) * base[None, :] + lam[c] * rows)
    return tables


def healthcare_standin(n: int = HEALTHCARE_N, rng: Any = 7, positive_rate: float = 0.406) -> CodedTable:
    """Healthcare-like stand-in (the paper's Healthcare data are not public).

    15 attributes and the label ">30 days" with rate 0.406.

    Attributes are drawn independently given the label from :func:`healthcare_conditionals`
    (a naive-Bayes world).  Not the Kaggle data: only curve orderings are comparable with the paper.
    """
    n = check_int(n, "n", minimum=1)
    rate = check_probability(positive_rate, "positive_rate", open_low=True, open_high=True)
    gen = as_generator(rng)
    y = (gen.random(n) < rate).astype(np.int64)
    tables = healthcare_conditionals()
    X = np.empty((n, len(tables)), dtype=np.int64)
    for c, table in enumerate(tables):
        cdf = np.cumsum(table, axis=1)
        cdf[:, -1] = 1.0
        u = gen.random(n)
        X[:, c] = np.minimum((u[:, None] > cdf[y]).sum(axis=1), table.shape[1] - 1)
    return CodedTable(
        X,
        HEALTHCARE_NAMES,
        tuple(tuple(range(m)) for m in HEALTHCARE_DOMAINS),
        y,
        ("<=30 days", ">30 days"),
        source=f"Healthcare-like stand-in generator ({n:,} rows)",
        real=False,
    )


def load_public(name: str, max_rows: int | None = None) -> tuple[CodedTable, Any]:
    """``(table, DataSource)`` for ``"adult"``, ``"smartgrid"`` or ``"healthcare"`` (the latter always a stand-in).

    SmartGrid falls back to :func:`smartgrid_standin` when the UCI file is missing
    (``ldp.data.load_or_standin``); show the returned source with ``ldp.data.show_source``.
    For the Healthcare stand-in, ``max_rows`` draws only that many rows (a random sample of
    the same population); the real tables are returned whole.
    """
    from ..data import DataSource, get_dataset, load, load_or_standin

    if name == "adult":  # vendored with the package: always the real file
        return adult_table(load("adult")), DataSource("adult", True, get_dataset("adult").title)
    if name == "smartgrid":
        frame, source = load_or_standin(
            "smartgrid",
            smartgrid_standin,
            description="a SmartGrid-like generator (a stand-in): same schema, surrogate stability index",
        )
        return smartgrid_table(
            frame,
            real=source.real,
            source=(
                "UCI grid stability x 6 node permutations (60,000 rows)"
                if source.real
                else "SmartGrid-like stand-in x 6 node permutations"
            ),
        ), source
    if name == "healthcare":
        n = HEALTHCARE_N if max_rows is None else min(check_int(max_rows, "max_rows", minimum=1), HEALTHCARE_N)
        table = healthcare_standin(n)
        return table, DataSource(
            "healthcare",
            False,
            "a Healthcare-like generator (a stand-in): 15 attributes "
            "with the Kaggle domain sizes, label rate 0.406, correlation set so that "
            "non-private Naive Bayes reaches about 0.70 accuracy",
        )
    raise ValueError(f"name must be 'adult', 'smartgrid' or 'healthcare', got {name!r}")
