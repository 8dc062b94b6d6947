"""Datasets of Mao et al. (multi-class mining): SYN1-SYN4, the Diabetes preparation, and documented stand-ins.

All functions return a ``c x d`` table of true label-item counts (users are its
units; :func:`ldp.multiclass.frameworks.table_to_pairs` expands it), except the
multi-feature tabular sets, which return ``(labels, {feature: codes})`` and are
turned into one table per feature group by :func:`feature_group_tables`.

* :func:`syn1_table`, :func:`syn2_table`: the 4 x 4 variance datasets (Sec. VII-A).
* :func:`syn_classes_table`: SYN3 (shared global top items) and SYN4 (none), the
  class-count datasets, from the authors' generators (SYN*/generate_data.py in their repository).
* :func:`prepare_diabetes`, :func:`prepare_heart`: the authors' preprocessing of the Kaggle Diabetes and
  BRFSS 2015 Heart Disease files;
  :func:`diabetes_standin` and :func:`heart_standin` are schema-matched synthetic stand-ins.
* :func:`anime_standin`, :func:`jd_standin`: SYN3-style stand-ins for MyAnimeList
  (2 classes) and JD (5 age classes) with the papers' class proportions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_generator, check_domain_size, check_total
from .frameworks import pairs_to_table
from .paper import SYN34_ITEMS, SYN34_RECORDS

__all__ = [
    "syn1_table",
    "syn2_table",
    "syn_class_sizes",
    "syn_scales",
    "syn_classes_table",
    "topk_overlap",
    "prepare_diabetes",
    "prepare_heart",
    "diabetes_standin",
    "diabetes_standin_frame",
    "heart_standin",
    "feature_group_tables",
    "anime_standin",
    "jd_standin",
    "DIABETES_DOMAINS",
    "HEART_DOMAINS",
    "JD_CLASS_SIZES",
]


# ---------------------------------------------------------------------------- SYN1, SYN2
def syn1_table() -> np.ndarray:
    """SYN1: a 4 x 4 Latin square of counts 1e3..1e6, ``f(l, i) = 10^(6 - ((l - i) mod 4))``.

    Every class and every item has 1 111 000 users, ``N = 4 444 000``, so only the
    pair count (hence the PMI) varies along a column.
    """
    lab = np.arange(4)[:, None]
    itm = np.arange(4)[None, :]
    return (10 ** (6 - (lab - itm) % 4)).astype(np.int64)


def syn2_table() -> np.ndarray:
    """SYN2: item 0 has 1e4 users in every class while the class sizes are 3.01e6, 1.21e6, 2.11e5, 1.3e4."""
    return np.array([[1e4, 1e6, 1e6, 1e6], [1e4, 1e6, 1e5, 1e5], [1e4, 1e5, 1e5, 1e3], [1e4, 1e3, 1e3, 1e3]]).astype(
        np.int64
    )


# ---------------------------------------------------------------------------- SYN3, SYN4 and stand-ins
JD_CLASS_SIZES = (850_000, 4_000_000, 3_000_000, 314_000, 170_000)


def syn_class_sizes(c: int, total: float = SYN34_RECORDS) -> np.ndarray:
    """Class sizes of SYN3/SYN4: a half-Gaussian profile ``exp(-x^2/8)``, ``x = linspace(0, 3.5, c)``."""
    c = check_domain_size(c, "c", minimum=2)
    total = check_total(total, "total")
    x = np.linspace(0, 3.5, c)
    w = np.exp(-(x**2) / (2 * 2**2))
    return (total * w / w.sum()).astype(np.int64)


def syn_scales(c: int) -> np.ndarray:
    """Per-class exponential rates ``0.001 + 0.099 exp(-5 t)``, ``t = linspace(0, 1, c)`` (0.1 down to 0.00167)."""
    c = check_domain_size(c, "c", minimum=2)
    return 0.001 + 0.099 * np.exp(-5 * np.linspace(0, 1, c))


def _rank_counts(size: int, probs: np.ndarray) -> np.ndarray:
    """Deterministic counts ``int(size·π_i)``, at least 1 per item (every item occurs in every class)."""
    expected = size * probs
    return np.where(expected >= 1, expected.astype(np.int64), 1)


def _shared_top_ranking(g: np.ndarray, gen: np.random.Generator, top: int = 20, pool: int = 50) -> np.ndarray:
    """A class's item order that shares a random part of the global top ``top`` items (SYN3 rule)."""
    d = g.size
    n_shared = int(gen.integers(1, top + 1))
    w_rank = np.linspace(top, 1, top)
    shared = gen.choice(top, size=n_shared, replace=False, p=w_rank / w_rank.sum())
    w_pos = np.linspace(10, 1, top)
    pos = gen.choice(top, size=n_shared, replace=False, p=w_pos / w_pos.sum())
    order = np.full(top, -1, dtype=np.int64)
    order[pos] = g[shared]
    fill = gen.choice(np.arange(top, pool), size=top - n_shared, replace=False)
    order[order < 0] = g[fill]
    rest = np.setdiff1d(np.arange(d), order, assume_unique=False)
    return np.concatenate([order, gen.permutation(rest)])


def syn_classes_table(
    c: int,
    *,
    shared: bool = True,
    d: int = SYN34_ITEMS,
    total: float = SYN34_RECORDS,
    class_sizes: Any = None,
    profile: str = "exponential",
    zipf_s: Any = 1.1,
    rng: Any = 2024,
) -> np.ndarray:
    """SYN3 (``shared=True``) or SYN4 (``shared=False``), Sec. VII-A.

    Class ``j`` has ``size_j`` nominal users (:func:`syn_class_sizes` unless given) over
    ``d`` items; the item at rank ``i`` gets ``int(size_j·π_i)`` users and at least one,
    where ``π_i ∝ exp(-s_j i)`` with the rate ``s_j`` of :func:`syn_scales`
    (``profile="exponential"``), or ``π_i ∝ i^(-s)`` (``profile="zipf"``, used by the
    stand-ins).  Ranks map to items through one global random order shared in part by
    every class (SYN3: each class takes 1-20 of the global top 20 into its own top 20 and
    fills the other slots from global ranks 21-50), or through an independent random
    order per class (SYN4: no global items).

    The realised number of users exceeds ``total`` because of the floor of 1 per item
    (5 178 550 for ``c = 10``); it does not depend on the seed.
    """
    c = check_domain_size(c, "c", minimum=2)
    d = check_domain_size(d, "d", minimum=2)
    if profile not in ("exponential", "zipf"):
        raise ValueError(f"profile must be 'exponential' or 'zipf', got {profile!r}")
    sizes = syn_class_sizes(c, total) if class_sizes is None else np.asarray(class_sizes, dtype=np.int64)
    if sizes.shape != (c,) or np.any(sizes < 1):
        raise ValueError(f"class_sizes must be {c} positive integers, got {class_sizes!r}")
    if shared and d < 50:
        raise ValueError(f"SYN3-style sharing needs d >= 50 items, got d={d}")
    gen = as_generator(rng)
    ranks = np.arange(1, d + 1, dtype=float)
    g = gen.permutation(d)
    s_exp = syn_scales(c)
    s_zipf = np.broadcast_to(np.asarray(zipf_s, dtype=float), (c,))
    table = np.zeros((c, d), dtype=np.int64)
    for j in range(c):
        if profile == "exponential":
            w = s_exp[j] * np.exp(-s_exp[j] * ranks)
        else:
            w = ranks ** (-s_zipf[j])
        counts = _rank_counts(int(sizes[j]), w / w.sum())
        order = _shared_top_ranking(g, gen) if shared else gen.permutation(d)
        table[j, order] = counts
    return table


def topk_overlap(table: Any, k: int = 20) -> float:
    """Mean number of common items between the top-``k`` lists of every pair of classes."""
    tab = np.asarray(table)
    tops = [set(np.argsort(-row, kind="stable")[:k].tolist()) for row in tab]
    pairs = [len(tops[a] & tops[b]) for a in range(len(tops)) for b in range(a + 1, len(tops))]
    return float(np.mean(pairs))


def anime_standin(*, scale: float = 1.0, d: int = 14_000, rng: Any = 2024) -> np.ndarray:
    """MyAnimeList stand-in: the SYN3 generator with 2 classes (70/30 split of 7M records) and ``d`` titles.

    The paper mines a 20 % sample (about 7M gender-title records, 14 000 titles) of a
    Kaggle file that is not available offline.  Rather than inventing a popularity
    curve, the stand-in reuses the paper's own SYN3 recipe (exponential rank profiles,
    shared global favourites) with the real set's size, number of titles and two
    classes; the 70/30 gender split is an assumption of ours.  ``scale``
    multiplies the number of records.
    """
    sizes = (np.array([0.7, 0.3]) * 7e6 * scale).astype(np.int64)
    return syn_classes_table(2, shared=True, d=d, class_sizes=sizes, rng=rng)


def jd_standin(*, scale: float = 1.0, d: int = 28_000, rng: Any = 2024) -> np.ndarray:
    """JD stand-in: the SYN3 generator with the paper's 5 age classes of 850k, 4M, 3M, 314k and 170k
    records (times ``scale``) over ``d`` goods, sharing global best-sellers."""
    sizes = (np.asarray(JD_CLASS_SIZES, dtype=float) * scale).astype(np.int64)
    return syn_classes_table(5, shared=True, d=d, class_sizes=sizes, rng=rng)


# ---------------------------------------------------------------------------- tabular data (Fig. 6)
DIABETES_DOMAINS = {
    "gender": 3,
    "age": 80,
    "hypertension": 2,
    "heart_disease": 2,
    "smoking_history": 6,
    "bmi": 575,
    "HbA1c_level": 18,
    "blood_glucose_level": 18,
}
HEART_DOMAINS = {
    "HighBP": 2,
    "HighChol": 2,
    "CholCheck": 2,
    "BMI": 84,
    "Smoker": 2,
    "Stroke": 2,
    "Diabetes": 3,
    "PhysActivity": 2,
    "Fruits": 2,
    "Veggies": 2,
    "HvyAlcoholConsump": 2,
    "AnyHealthcare": 2,
    "NoDocbcCost": 2,
    "GenHlth": 5,
    "MentHlth": 31,
    "PhysHlth": 31,
    "DiffWalk": 2,
    "Sex": 2,
    "Age": 13,
    "Education": 6,
    "Income": 8,
}


def _rank_codes(values: Any) -> np.ndarray:
    """Map the distinct values of a column to ``0..D-1`` in increasing order."""
    return np.unique(np.asarray(values), return_inverse=True)[1].astype(np.int64)


def prepare_diabetes(frame: pd.DataFrame) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The authors' preprocessing of the Diabetes file (their original_domain_process.py), with 0-based codes.

    Rows with missing values are dropped; age is rounded up to whole years; BMI is cut
    to one decimal (``int(bmi·10)``); every feature is then rank-mapped to ``0..d_j-1``
    and the label ``diabetes`` is the class (0 or 1).  Categorical columns already coded
    as integers in the vendored copy are rank-mapped as they are.
    """
    needed = list(DIABETES_DOMAINS) + ["diabetes"]
    missing = [col for col in needed if col not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the Diabetes columns {missing}")
    df = frame[needed].dropna()
    feats = {}
    for col in DIABETES_DOMAINS:
        v = df[col].to_numpy()
        if col == "age":
            v = np.ceil(v)
        elif col == "bmi":
            v = (v * 10).astype(np.int64)
        feats[col] = _rank_codes(v)
    return _rank_codes(df["diabetes"].to_numpy()), feats


def prepare_heart(frame: pd.DataFrame) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The authors' preprocessing of the BRFSS 2015 Heart Disease Health Indicators file, with 0-based codes.

    As in their ``frequency estimation/data/heart_disease/original_domain_process.py``
    (commit 8da35a445adcfe8986d708969680cbf2b667d5b9): rows with missing values are
    dropped and every one of the 21 features of :data:`HEART_DOMAINS` is coded by the rank
    of its value among the values present; the class is ``HeartDiseaseorAttack`` (0 or 1).
    On the full file the domains are those of :data:`HEART_DOMAINS` (BMI has 84 values).
    """
    needed = list(HEART_DOMAINS) + ["HeartDiseaseorAttack"]
    missing = [col for col in needed if col not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the Heart Disease columns {missing}")
    df = frame[needed].dropna()
    feats = {col: _rank_codes(df[col].to_numpy()) for col in HEART_DOMAINS}
    return _rank_codes(df["HeartDiseaseorAttack"].to_numpy()), feats


def _class_conditional_feature(labels: np.ndarray, D: int, shape: str, gen: np.random.Generator) -> np.ndarray:
    """One synthetic feature with ``D`` levels whose distribution shifts mildly with the label."""
    x = np.arange(D, dtype=float)
    codes = np.empty(labels.size, dtype=np.int64)
    for lab in (0, 1):
        if shape == "gauss":
            mu = (0.45 + 0.12 * lab) * (D - 1)
            w = np.exp(-0.5 * ((x - mu) / (0.18 * D)) ** 2)
        elif shape == "lognormal":
            w = np.exp(-0.5 * ((np.log1p(x) - np.log(0.3 * D) - 0.1 * lab) / 0.35) ** 2) / (1 + x)
        elif shape == "zero-heavy":
            w = np.where(x == 0, 0.6 - 0.15 * lab, 0.4 * np.exp(-x / (5 + 3 * lab)))
        else:  # small categorical
            w = np.exp(-x * (0.8 - 0.4 * lab))
        w = w * gen.gamma(20.0, 1.0, size=D)  # Dirichlet-like roughness
        w /= w.sum()
        idx = np.flatnonzero(labels == lab)
        codes[idx] = gen.choice(D, size=idx.size, p=w)
    return codes


def diabetes_standin(rng: Any = 2024) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Schema-matched synthetic Diabetes: 100 000 rows, 8.5 % positive, domains 3, 80, 2, 2, 6, 575, 18, 18."""
    gen = as_generator(rng)
    n = 100_000
    labels = (np.arange(n) < 8_500).astype(np.int64)
    gen.shuffle(labels)
    shapes = {"age": "gauss", "bmi": "lognormal", "HbA1c_level": "gauss", "blood_glucose_level": "gauss"}
    feats = {
        col: _class_conditional_feature(labels, D, shapes.get(col, "small"), gen) for col, D in DIABETES_DOMAINS.items()
    }
    return labels, feats


def diabetes_standin_frame(rng: Any = 2024) -> pd.DataFrame:
    """Schema-matched synthetic stand-in for the Kaggle Diabetes file (100 000 rows, 8.5 % positive).

    Same columns as the real file, built so that :func:`prepare_diabetes` maps it back to
    the codes of :func:`diabetes_standin` (domains 3, 80, 2, 2, 6, 575, 18, 18).
    """
    labels, feats = diabetes_standin(rng)
    frame = pd.DataFrame({col: codes for col, codes in feats.items()})
    frame["age"] = frame["age"] + 1.0  # whole years 1..80
    frame["bmi"] = (frame["bmi"] + 0.5) / 10.0  # int(bmi * 10) recovers the code
    frame["HbA1c_level"] = 3.5 + 0.1 * frame["HbA1c_level"]
    frame["blood_glucose_level"] = 80 + 5 * frame["blood_glucose_level"]
    frame["diabetes"] = labels
    return frame


def heart_standin(rng: Any = 2024) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Schema-matched synthetic BRFSS Heart Disease: 253 680 rows, 9.4 % positive, 21 features
    (BMI log-normal over 84 levels, MentHlth/PhysHlth with a heavy mass at 0 over 31 levels)."""
    gen = as_generator(rng)
    n = 253_680
    labels = (np.arange(n) < round(0.094 * n)).astype(np.int64)
    gen.shuffle(labels)
    shapes = {
        "BMI": "lognormal",
        "MentHlth": "zero-heavy",
        "PhysHlth": "zero-heavy",
        "Age": "gauss",
        "Income": "gauss",
        "Education": "gauss",
    }
    feats = {
        col: _class_conditional_feature(labels, D, shapes.get(col, "small"), gen) for col, D in HEART_DOMAINS.items()
    }
    return labels, feats


def feature_group_tables(labels: Any, features: dict[str, Any], *, rng: Any = 2024) -> dict[str, np.ndarray]:
    """The frequency-estimation protocol of Sec. VII.

    The rows are shuffled once and cut into ``F`` (number of features) consecutive
    groups of equal size; group ``j`` reports only the pair (label, feature ``j``).
    Returns ``{feature: c x d_j table of that group's true counts}``.
    """
    lab = np.asarray(labels, dtype=np.int64)
    names = list(features)
    if not names:
        raise ValueError("features is empty")
    for name in names:
        if np.asarray(features[name]).shape != lab.shape:
            raise ValueError(f"feature {name!r} has shape {np.asarray(features[name]).shape}, labels {lab.shape}")
    c = int(lab.max()) + 1
    gen = as_generator(rng)
    order = gen.permutation(lab.size)
    out = {}
    for name, idx in zip(names, np.array_split(order, len(names))):
        codes = np.asarray(features[name], dtype=np.int64)
        d = int(codes.max()) + 1
        out[name] = pairs_to_table(lab[idx], codes[idx], c, d)
    return out
