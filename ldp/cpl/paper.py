"""Numbers printed in Jayawardana et al. (2025), "The hidden cost of correlation", with where each is printed.

The experiments notebook compares its computed values with these and glues both; no
paper number is typed into the notebook's prose.  Values are copied as printed
(rounding included); keys name the figure, table or section of the paper.

Provenance: every value below is *printed* in the paper's text or a table (none
is read off a figure).  :data:`SOURCES` gives, for each constant, where it is
printed (an :func:`ldp.claims.printed` source) and :data:`PRECISION` the
precision of the printed number: half a unit of its last digit, or, for a value
the text gives as "approximately", half a unit of the digit it is rounded to.
"""

from __future__ import annotations

import pandas as pd

from ..claims import Source, printed

__all__ = [
    "APPK_SAMPLE_SIZE",
    "APPK_NMI",
    "APPK_PCC",
    "TABLE_III",
    "FIG4B_NECKLACE_SATURATION",
    "FIG4B_NECKLACE_SATURATION_FROM_EPS",
    "FIG4C_CARDIO_TO_CHOLESTEROL",
    "FIG4C_CHOLESTEROL_TO_CARDIO",
    "FIG5_NMI",
    "FIG5_SPREAD",
    "TABLE_I_DATASETS",
    "FIG7_OLH_FREQ_NMSE",
    "FIG7_OLH_OVER_SS_TCPL",
    "FIG8_CALIBRATED_OVER_SPL",
    "SURROGATES",
    "R_EXPANSION",
    "table_i",
    "table_ii",
    "table_iii",
    "SOURCES",
    "PRECISION",
    "TABLE_I_BOUND",
]

#: Section III-B: replication factor of the expanded dataset and number of surrogates.
R_EXPANSION = 50
SURROGATES = 10_000

#: Appendix K: size of the synthetic sample drawn from the joint (28) for Table III.
APPK_SAMPLE_SIZE = 100_000

#: Appendix K, text below Eq. (28): normalised MI and PCC of the joint (28).
APPK_NMI = 0.164
APPK_PCC = 0.357

#: Appendix K, Table III: budgets, experimental (GRR) and theoretical values of the two directions.
TABLE_III = {
    "epsilon": (0.5, 1.0, 2.0),
    "paper_stat_fwd": (0.5007, 0.9985, 2.0020),  # L(X̂ → X_k), experimental
    "paper_stat_rev": (0.2833, 0.6222, 1.4369),  # L(X_k → X̂), experimental
    "paper_theory_rev": (0.2810, 0.6203, 1.4340),  # L(X_k → X̂), theoretical
}

#: Section III-C, item 2 (Fig. 4(b)): L(Necklace → Male) saturates at ≈ 2.4 for ε > 6.
FIG4B_NECKLACE_SATURATION = 2.4
FIG4B_NECKLACE_SATURATION_FROM_EPS = 6.0

#: Section III-C, item 3 (Fig. 4(c)), CVD, GRR at ε = 1.
FIG4C_CARDIO_TO_CHOLESTEROL = 0.3381
FIG4C_CHOLESTEROL_TO_CARDIO = 0.1769

#: Section III-D (Fig. 5(a)): at NMI = 0.5 the CPL varies by ≈ 0.6.
FIG5_NMI = 0.5
FIG5_SPREAD = 0.6

#: Section V-B (Fig. 7(a)), Adult, ε = 1: OLH's frequency error ≈ 0.002 at 60 % of SS's normalised TCPL.
FIG7_OLH_FREQ_NMSE = 0.002
FIG7_OLH_OVER_SS_TCPL = 0.6

#: Section V-C (Fig. 8(a)): the calibrated budget is about five times the equal split (SPL).
FIG8_CALIBRATED_OVER_SPL = 5.0

#: Tables I-II: row order of the datasets (the paper's "Cardio" is CVD).
TABLE_I_DATASETS = ("CelebA", "Adult", "CVD", "DSS")

#: Section IV-C and Appendix L: "always marginal (< 5.5 × 10^-3)", the bound Table I is said to respect.
TABLE_I_BOUND = 5.5e-3

# Table I (Appendix L): NMSE-CPL of statistical vs Algorithm 1, in units of 1e-4.
_TABLE_I_E4 = {
    "GRR": (0.889, 0.197, 2.99, 3.08, 11.6, 2.49, 0.674, 0.168),
    "EXP": (3.36, 0.514, 8.16, 2.73, 54.1, 5.82, 3.79, 0.241),
}

# Table II: NMSE-CPL of statistical vs the Algorithm-2 bound, eight mechanisms.
_TABLE_II_COLUMNS = ("GRR", "RAPPOR", "EXP", "OUE", "BLH", "OLH", "SS", "SHE")
_TABLE_II = (
    (8.89e-5, 0.29, 0.29, 0.32, 0.32, 0.33, 9.44e-5, 0.29),
    (1.97e-5, 0.31, 0.32, 0.54, 0.54, 0.53, 1.81e-5, 0.35),
    (0.017, 0.25, 0.30, 0.22, 0.34, 0.22, 0.082, 0.25),
    (0.0037, 0.23, 0.29, 0.31, 0.55, 0.31, 0.0037, 0.27),
    (0.0088, 0.25, 0.29, 0.25, 0.31, 0.26, 0.038, 0.26),
    (0.00075, 0.23, 0.26, 0.40, 0.50, 0.39, 0.00060, 0.26),
    (0.031, 0.28, 0.35, 0.19, 0.41, 0.19, 0.17, 0.29),
    (0.012, 0.25, 0.33, 0.23, 0.63, 0.22, 0.012, 0.28),
)


def _index() -> pd.MultiIndex:
    return pd.MultiIndex.from_product([list(TABLE_I_DATASETS), [1.0, 3.0]], names=["dataset", "epsilon"])


def table_i() -> pd.DataFrame:
    """Table I of the paper: NMSE-CPL (Eq. (29)) between statistical CPL and Algorithm 1, GRR and EXP."""
    return pd.DataFrame({k: [v * 1e-4 for v in vals] for k, vals in _TABLE_I_E4.items()}, index=_index())


def table_ii() -> pd.DataFrame:
    """Table II of the paper: NMSE-CPL between statistical CPL and the Algorithm-2 bound, eight mechanisms."""
    return pd.DataFrame([list(r) for r in _TABLE_II], columns=list(_TABLE_II_COLUMNS), index=_index())


def table_iii() -> pd.DataFrame:
    """Table III of the paper (Appendix K): the columns ``paper_stat_fwd``, ``paper_stat_rev``, ``paper_theory_rev``."""
    return pd.DataFrame({k: list(v) for k, v in TABLE_III.items() if k != "epsilon"})


#: Where each constant is printed in the paper.
SOURCES: dict[str, Source] = {
    "R_EXPANSION": printed("Sec. III-B"),
    "SURROGATES": printed("Sec. III-B"),
    "APPK_SAMPLE_SIZE": printed("Appendix K"),
    "APPK_NMI": printed("Appendix K, below Eq. (28)"),
    "APPK_PCC": printed("Appendix K, below Eq. (28)"),
    "TABLE_III": printed("Table III"),
    "FIG4B_NECKLACE_SATURATION": printed("Sec. III-C, item 2 (Fig. 4(b))"),
    "FIG4C": printed("Sec. III-C, item 3 (Fig. 4(c))"),
    "FIG4D": printed("Sec. III-C, item 3 (Fig. 4(d))"),
    "FIG4A": printed("Sec. III-C, item 1 (Fig. 4(a))"),
    "FIG5": printed("Sec. III-D (Fig. 5(a))"),
    "TABLE_I": printed("Table I, Appendix L"),
    "TABLE_I_BOUND": printed("Sec. IV-C and Appendix L"),
    "TABLE_II": printed("Table II"),
    "FIG6": printed("Sec. V-A (Fig. 6)"),
    "FIG7": printed("Sec. V-B (Fig. 7(a))"),
    "FIG8": printed("Sec. V-C (Fig. 8)"),
}

#: Precision of the printed numbers (half a unit of the last printed digit; "≈ 2.4" -> 0.05, "≈ 0.6" -> 0.05,
#: "approximately 0.002" -> 0.0005, "60 %" -> 0.05 as a percentage rounded to tens, "approximately five
#: times" -> 0.5).
PRECISION: dict[str, float] = {
    "APPK_NMI": 5e-4,
    "APPK_PCC": 5e-4,
    "TABLE_III": 5e-5,
    "FIG4B_NECKLACE_SATURATION": 0.05,
    "FIG4C": 5e-5,
    "FIG5_SPREAD": 0.05,
    "FIG7_OLH_FREQ_NMSE": 5e-4,
    "FIG7_OLH_OVER_SS_TCPL": 0.05,
    "FIG8_CALIBRATED_OVER_SPL": 0.5,
    "TABLE_II_TWO_DECIMALS": 5e-3,
}
