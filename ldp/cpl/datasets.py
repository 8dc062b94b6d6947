"""Datasets of the CPL paper (Jayawardana et al.): real data as categorical frames, Appendix K's joint, stand-ins.

Every frame here is coded with :meth:`ldp.tables.CodedTable.from_frame` (observed
categories in sorted order, missing values refused).

Real data (through :mod:`ldp.data`): UCI Adult, binned with "scheme A" of
our own (the paper's binning is unknown and the authors' code cannot recover it), and the Kaggle CVD file
(``ldp.data.load("cardio")``) reduced to its seven categorical attributes.

Stand-ins (every number below is a *stand-in parameter*, not
paper data; generators are seeded and store parameters, not data):

* :func:`celeba_synth`: 40 binary face attributes named as in CelebA, a sparse
  DAG rooted at ``Male`` (P = 0.42) with three calibrated edges --
  ``No_Beard`` (P(beard | female) = 0.001, P(beard | male) = 0.4, saturation
  ≈ 6), ``Wearing_Necklace`` (0.20 vs 0.018, saturation ln(0.20/0.018) ≈ 2.41,
  the paper's "≈ 2.4") and ``Smiling`` independent of ``Male`` (0.48) -- a few
  other strong sex-linked attributes (make-up, lipstick, facial hair) and mostly
  weak links;
* :func:`lfw_synth`: the same DAG with every conditional probability moved by a
  seeded relative factor in [0.8, 1.2] (a "public" dataset with a distribution
  shift), N = 13,143;
* :func:`cvd_synth`: the seven CVD attributes with a cardio-cholesterol joint
  calibrated to the two CPL values printed in Sec. III-C, item 3 (Fig. 4(c)), at
  its core (used only when the real file is missing; a stand-in calibrated to
  those values cannot test them);
* :func:`dss_synth`: 27 attributes of mixed alphabet sizes from a latent-class
  model (6 classes, Dirichlet(0.5) conditionals), N = 38,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_generator, check_int
from ..data.registry import ADULT_COLUMNS

__all__ = [
    "APPK_JOINT",
    "CVD_FIXTURE_JOINT",
    "CELEBA_ATTRIBUTES",
    "CALIBRATION_ATTRIBUTES",
    "sample_joint",
    "adult_scheme_a",
    "adult_scheme_b",
    "cvd_categorical",
    "cvd_with_binned",
    "CVD_BINNED",
    "celeba_synth",
    "lfw_synth",
    "cvd_synth",
    "dss_synth",
]

#: Eq. (28): P(X_k, X̂), rows x1..x4 (X_k), columns x̂1..x̂4 (X̂)
APPK_JOINT = np.array(
    [[0.20, 0.00, 0.00, 0.00], [0.00, 0.20, 0.00, 0.00], [0.10, 0.15, 0.03, 0.02], [0.10, 0.15, 0.03, 0.02]]
)

#: A cardio (rows 0/1) x cholesterol (columns 1/2/3) joint giving exactly the paper's (Sec. III-C, item 3)
#: L_{Cardio→Cholesterol} = 0.3381 and L_{Cholesterol→Cardio} = 0.1769 under GRR at ε = 1 (a fixture)
CVD_FIXTURE_JOINT = np.array([[0.42012, 0.05334, 0.02684], [0.32863, 0.08279, 0.08827]])


def sample_joint(joint: Any, n: int, rng: Any = None) -> np.ndarray:
    """``n`` i.i.d. records ``(row, column)`` from a 2-D joint distribution; an ``(n, 2)`` int64 array."""
    J = np.asarray(joint, dtype=float)
    if J.ndim != 2 or np.any(J < 0) or not np.isclose(J.sum(), 1.0):
        raise ValueError("joint must be a non-negative 2-D table summing to 1")
    n = check_int(n, "n", minimum=1)
    cells = as_generator(rng).choice(J.size, size=n, p=J.ravel() / J.sum())
    return np.stack([cells // J.shape[1], cells % J.shape[1]], axis=1).astype(np.int64)


# ----------------------------------------------------------------------------- real data
#: Adult's attributes in scheme A: all but the sampling weight and the numeric copy of education
ADULT_SCHEME_A = tuple(c for c in ADULT_COLUMNS if c not in ("fnlwgt", "education_num"))


def adult_scheme_a(frame: pd.DataFrame) -> pd.DataFrame:
    """UCI Adult binned with our "scheme A" (the paper's own binning is not published).

    Rows with a missing value are dropped (45,222 remain); ``fnlwgt``,
    ``education_num`` and ``split`` are dropped; ``age`` is cut at 25/35/45/55/65
    (6 bins), capital gain and loss become "zero / positive", hours per week are
    cut at 35/41/50 (4 bins); the other categoricals are kept (native country has
    41 values).  13 attributes.
    """
    needed = set(ADULT_SCHEME_A) | {"fnlwgt"}
    if not needed <= set(frame.columns):
        raise ValueError(f"frame lacks Adult columns {sorted(needed - set(frame.columns))}")
    df = frame.dropna(subset=list(ADULT_SCHEME_A)).copy()
    out = pd.DataFrame(index=df.index)
    age_labels = ["<25", "25-34", "35-44", "45-54", "55-64", "65+"]
    out["age"] = pd.Categorical.from_codes(np.digitize(df["age"], [25, 35, 45, 55, 65]), age_labels)
    for c in ("workclass", "education", "marital_status", "occupation", "relationship", "race", "sex"):
        out[c] = df[c].astype("category")
    out["capital_gain"] = pd.Categorical.from_codes((df["capital_gain"] > 0).astype(int), ["0", ">0"])
    out["capital_loss"] = pd.Categorical.from_codes((df["capital_loss"] > 0).astype(int), ["0", ">0"])
    out["hours_per_week"] = pd.Categorical.from_codes(
        np.digitize(df["hours_per_week"], [35, 41, 50]), ["<35", "35-40", "41-49", "50+"]
    )
    out["native_country"] = df["native_country"].astype("category")
    out["income"] = df["income"].astype("category")
    return out.reset_index(drop=True)


_EDUCATION_B = {
    **dict.fromkeys(["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th"], "no diploma"),
    "HS-grad": "HS-grad",
    **dict.fromkeys(["Some-college", "Assoc-acdm", "Assoc-voc"], "some college"),
    "Bachelors": "Bachelors",
    **dict.fromkeys(["Masters", "Prof-school", "Doctorate"], "postgraduate"),
}
_MARITAL_B = {
    **dict.fromkeys(["Married-civ-spouse", "Married-AF-spouse", "Married-spouse-absent"], "married"),
    "Never-married": "never married",
    **dict.fromkeys(["Divorced", "Separated", "Widowed"], "previously married"),
}


def adult_scheme_b(frame: pd.DataFrame) -> pd.DataFrame:
    """UCI Adult binned coarsely ("scheme B", ours): another plausible reading of the paper's unpublished binning.

    As :func:`adult_scheme_a` (same records and attributes), but age in three bands
    (< 30, 30-49, 50+), education in five levels, marital status in three groups,
    hours per week as < 40 / 40 / > 40 and native country as United States / other.
    """
    a = adult_scheme_a(frame)
    df = frame.dropna(subset=list(ADULT_SCHEME_A)).reset_index(drop=True)
    a["age"] = pd.Categorical.from_codes(np.digitize(df["age"], [30, 50]), ["<30", "30-49", "50+"])
    a["education"] = df["education"].map(_EDUCATION_B).astype("category")
    a["marital_status"] = df["marital_status"].map(_MARITAL_B).astype("category")
    a["hours_per_week"] = pd.Categorical.from_codes(np.digitize(df["hours_per_week"], [40, 41]), ["<40", "40", ">40"])
    a["native_country"] = pd.Categorical(np.where(df["native_country"] == "United-States", "United-States", "other"))
    if a.isna().any().any():
        raise ValueError("adult_scheme_b met a value outside its groups")
    return a


CVD_ATTRIBUTES = ("gender", "cholesterol", "gluc", "smoke", "alco", "active", "cardio")


def cvd_categorical(frame: pd.DataFrame) -> pd.DataFrame:
    """The seven categorical CVD attributes (the paper's 7 are not named; these are inferred)."""
    missing = set(CVD_ATTRIBUTES) - set(frame.columns)
    if missing:
        raise ValueError(f"frame lacks CVD columns {sorted(missing)}")
    return frame[list(CVD_ATTRIBUTES)].astype("category").reset_index(drop=True)


#: binned numeric CVD attributes a 7-attribute selection could plausibly include (our binnings; none is published)
CVD_BINNED = ("age_decade", "bmi_class", "bp_class")


def cvd_with_binned(frame: pd.DataFrame) -> pd.DataFrame:
    """The seven categorical CVD attributes plus three binned numeric ones (:data:`CVD_BINNED`).

    ``age_decade``: age in whole decades (the file gives days); ``bmi_class``: the
    WHO classes of weight / height² (< 18.5, 18.5-25, 25-30, >= 30); ``bp_class``:
    systolic pressure ``ap_hi`` < 120, 120-139, >= 140 mmHg.  Used only to try other
    readings of the paper's unnamed seven attributes.
    """
    base = cvd_categorical(frame)
    need = {"age", "height", "weight", "ap_hi"} - set(frame.columns)
    if need:
        raise ValueError(f"frame lacks CVD columns {sorted(need)}")
    f = frame.reset_index(drop=True)
    bmi = f["weight"] / (f["height"] / 100.0) ** 2
    base["age_decade"] = (f["age"] // 3652.5).astype(int).astype("category")
    base["bmi_class"] = pd.Categorical(np.digitize(bmi, [18.5, 25, 30]))
    base["bp_class"] = pd.Categorical(np.digitize(f["ap_hi"], [120, 140]))
    return base


# ----------------------------------------------------------------------------- CelebA-like stand-in
#: (attribute, parent, P(attr = 1 | parent = 0), P(attr = 1 | parent = 1)); parent None = root with P(=1)
_CELEBA_DAG: tuple[tuple[str, str | None, float, float], ...] = (
    ("Male", None, 0.42, 0.42),
    ("Young", None, 0.77, 0.77),
    ("Smiling", "Male", 0.48, 0.48),  # calibrated: independent of Male
    ("No_Beard", "Male", 0.999, 0.60),  # calibrated: beard 0.001 (F) vs 0.4 (M)
    ("Wearing_Necklace", "Male", 0.20, 0.018),  # calibrated: saturation ln(0.20/0.018) ≈ 2.41
    ("Heavy_Makeup", "Male", 0.68, 0.005),
    ("Wearing_Lipstick", "Male", 0.80, 0.008),
    ("Arched_Eyebrows", "Male", 0.42, 0.06),
    ("Wearing_Earrings", "Male", 0.32, 0.03),
    ("Attractive", "Male", 0.66, 0.31),
    ("Goatee", "Male", 0.001, 0.15),
    ("Mustache", "Male", 0.001, 0.10),
    ("5_o_Clock_Shadow", "Male", 0.003, 0.26),
    ("Sideburns", "Male", 0.002, 0.13),
    ("Bald", "Male", 0.001, 0.05),
    ("Wearing_Necktie", "Male", 0.002, 0.17),
    ("Receding_Hairline", "Male", 0.06, 0.11),
    ("Big_Nose", "Male", 0.16, 0.37),
    ("Bushy_Eyebrows", "Male", 0.10, 0.22),
    ("Rosy_Cheeks", "Male", 0.10, 0.01),
    ("Blond_Hair", "Male", 0.22, 0.04),
    ("Bangs", "Male", 0.18, 0.11),
    ("Double_Chin", "Male", 0.03, 0.08),
    ("Chubby", "Male", 0.04, 0.09),
    ("Oval_Face", "Male", 0.31, 0.24),
    ("Pointy_Nose", "Male", 0.31, 0.21),
    ("Big_Lips", "Male", 0.26, 0.22),
    ("Narrow_Eyes", "Male", 0.11, 0.12),
    ("Black_Hair", "Male", 0.22, 0.26),
    ("Brown_Hair", "Male", 0.23, 0.17),
    ("Pale_Skin", "Male", 0.05, 0.03),
    ("Straight_Hair", "Male", 0.20, 0.22),
    ("Wavy_Hair", "Male", 0.38, 0.21),
    ("Wearing_Hat", "Male", 0.04, 0.06),
    ("Blurry", "Male", 0.05, 0.05),
    ("High_Cheekbones", "Smiling", 0.17, 0.75),
    ("Mouth_Slightly_Open", "Smiling", 0.28, 0.70),
    ("Gray_Hair", "Young", 0.15, 0.01),
    ("Eyeglasses", "Young", 0.14, 0.04),
    ("Bags_Under_Eyes", "Young", 0.33, 0.17),
)
CELEBA_ATTRIBUTES = tuple(name for name, *_ in _CELEBA_DAG)

#: 21 attributes assumed common to CelebA and LFW for the calibration experiment (the paper's list is not given)
CALIBRATION_ATTRIBUTES = (
    "Male",
    "Young",
    "Smiling",
    "No_Beard",
    "Mustache",
    "Goatee",
    "Eyeglasses",
    "Bald",
    "Wearing_Hat",
    "Wearing_Lipstick",
    "Wearing_Earrings",
    "Wearing_Necklace",
    "Wearing_Necktie",
    "Heavy_Makeup",
    "Blond_Hair",
    "Black_Hair",
    "Brown_Hair",
    "Gray_Hair",
    "Bangs",
    "High_Cheekbones",
    "Mouth_Slightly_Open",
)


def _sample_dag(dag: Sequence[tuple[str, str | None, float, float]], n: int, gen: np.random.Generator) -> pd.DataFrame:
    cols: dict[str, np.ndarray] = {}
    for name, parent, p0, p1 in dag:
        if parent is None:
            prob = np.full(n, p0)
        else:
            prob = np.where(cols[parent] == 1, p1, p0)
        cols[name] = (gen.random(n) < prob).astype(np.int8)
    return pd.DataFrame(cols)


def celeba_synth(n: int = 202_599, rng: Any = 0) -> pd.DataFrame:
    """CelebA-like stand-in: 40 binary attributes (0/1) from a seeded DAG rooted at ``Male``."""
    n = check_int(n, "n", minimum=1)
    return _sample_dag(_CELEBA_DAG, n, as_generator(rng))


def lfw_synth(n: int = 13_143, rng: Any = 1, *, shift: float = 0.2, shift_seed: int = 7) -> pd.DataFrame:
    """LFW-like "public" stand-in: the CelebA-like DAG with each probability scaled by U(1-shift, 1+shift)."""
    n = check_int(n, "n", minimum=1)
    if not (0 <= shift < 1):
        raise ValueError(f"shift must lie in [0, 1), got {shift!r}")
    g = np.random.default_rng(shift_seed)
    dag = []
    for name, parent, p0, p1 in _CELEBA_DAG:
        f0, f1 = g.uniform(1 - shift, 1 + shift, size=2)
        q0 = float(np.clip(p0 * f0, 5e-4, 1 - 5e-4))
        q1 = q0 if parent is None else float(np.clip(p1 * f1, 5e-4, 1 - 5e-4))
        dag.append((name, parent, q0, q1))
    return _sample_dag(dag, n, as_generator(rng))


# ----------------------------------------------------------------------------- CVD and DSS stand-ins
def cvd_synth(n: int = 70_000, rng: Any = 0) -> pd.DataFrame:
    """CVD-like stand-in with the seven categorical attributes (codes as in the Kaggle file)."""
    n = check_int(n, "n", minimum=1)
    gen = as_generator(rng)
    core = sample_joint(CVD_FIXTURE_JOINT / CVD_FIXTURE_JOINT.sum(), n, gen)
    cardio, chol = core[:, 0], core[:, 1]
    gluc_given_chol = np.array([[0.93, 0.04, 0.03], [0.70, 0.20, 0.10], [0.55, 0.10, 0.35]])
    u = gen.random(n)[:, None]
    gluc = (u > np.cumsum(gluc_given_chol[chol], axis=1)).sum(axis=1)
    gender = np.where(gen.random(n) < 0.65, 1, 2)
    smoke = (gen.random(n) < np.where(gender == 2, 0.22, 0.02)).astype(int)
    alco = (gen.random(n) < np.where(gender == 2, 0.11, 0.025)).astype(int)
    active = (gen.random(n) < np.where(cardio == 1, 0.79, 0.81)).astype(int)
    return pd.DataFrame(
        {
            "gender": gender,
            "cholesterol": chol + 1,
            "gluc": gluc + 1,
            "smoke": smoke,
            "alco": alco,
            "active": active,
            "cardio": cardio,
        }
    )


DSS_SIZES = (2, 3, 5, 8, 12, 20)


def dss_synth(
    n: int = 38_000, rng: Any = 0, *, n_attributes: int = 27, n_classes: int = 6, concentration: float = 0.5
) -> pd.DataFrame:
    """DSS-like stand-in: a latent-class model with mixed alphabet sizes (cycling through 2..20)."""
    n = check_int(n, "n", minimum=1)
    n_attributes = check_int(n_attributes, "n_attributes", minimum=2)
    n_classes = check_int(n_classes, "n_classes", minimum=1)
    if not concentration > 0:
        raise ValueError(f"concentration must be > 0, got {concentration!r}")
    gen = as_generator(rng)
    z = gen.choice(n_classes, size=n, p=gen.dirichlet(np.full(n_classes, 2.0)))
    cols = {}
    for j in range(n_attributes):
        k = DSS_SIZES[j % len(DSS_SIZES)]
        theta = gen.dirichlet(np.full(k, concentration), size=n_classes)  # (classes, k)
        u = gen.random(n)[:, None]
        cols[f"a{j:02d}_k{k}"] = (u > np.cumsum(theta[z], axis=1)).sum(axis=1).clip(max=k - 1)
    return pd.DataFrame(cols)
