"""What Ren et al. (LoPub, IEEE TIFS 2018) print, each value with its place in the paper.

Two kinds of values live here:

* numbers stated in the text: the dataset table of Sec. 6, the budget of
  Sec. 6.1.2, and the few figure values that the prose of Section 6 quotes;
* the worked examples and printed tables (Examples 1-13, Tables 3-9), as data,
  so that tests and notebooks recompute the examples with library code instead
  of typing numbers by hand.

Only values printed in the paper belong here; everything derived is computed by
the package.  No value was read off the curves of the paper's figures: the
figure values above are quoted by the prose, and each is compared as a printed
number (half a unit of its last digit).

The examples are transcribed with the corrections listed in the errata register
(entries E12, E13, E15, E16):

* Tables 3-6: four alumni, attributes Age, Gender, Education, Income.  Only the
  Gender and Education columns are used for computations: the Age column is
  inconsistent in the source (erratum E13).
* Example 11: the mutual-information matrix of the toy data (off-diagonal part).
* Fig. 5: a six-attribute dependency graph whose junction tree has the cliques
  A1A2, A2A3A5, A2A4A5 and A6 (the figure itself is lost; this edge set
  reproduces the stated cliques).
* Tables 7-9: the pruning counts exactly as printed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .reports import LoPubReports

# ---------------------------------------------------------------------------- numbers stated in the text
#: Sec. 6, dataset table: number of records of Retail, Adult and TPC-E.
DATASET_N = {"Retail": 27_522, "Adult": 45_222, "TPC-E": 40_000}
#: Sec. 6, dataset table: number of attributes.
DATASET_D = {"Retail": 16, "Adult": 15, "TPC-E": 24}
#: Sec. 6, dataset table: log2 of the domain size (2^16, 2^52, 2^77).
DATASET_LOG2_DOMAIN = {"Retail": 16, "Adult": 52, "TPC-E": 77}

#: Sec. 6.1.2: "when f is small, i.e., f = 0.5, ... epsilon = 8.79" (Eq. (8) with h = 4; per attribute, E3).
EPSILON_AT_F = 0.5
EPSILON_AT_F_VALUE = 8.79
#: Sec. 6 defaults: h = 4 hash functions for every dataset.
HASHES = 4

#: Sec. 6.1.2 (Fig. 13, Retail): EM_JD's AVD "sharply increase[s] to as high as 0.28" as f grows ...
FIG13_EM_AVD_MAX = 0.28
#: ... while Lasso_JD "retains the error around 0.1 even when f = 0.9".
FIG13_LASSO_AVD = 0.10
#: the f at which Sec. 6.1.2 quotes both values.
FIG13_F = 0.9

#: Sec. 6.2.1 (Fig. 19, Retail): identification accuracy "about 85%" when f is less than 0.9.
FIG19_ACCURACY = 0.85
#: Sec. 6.2.1 (Figs 20-21, Adult and TPC-E): accuracy "as high as 95%".
FIG20_21_ACCURACY = 0.95
#: the f below which Sec. 6.2.1's 85 % applies.
FIG19_F_BELOW = 0.9

#: Sec. 6.3 (Figs 22-27): worst random-forest classification rate of Retail, Adult, TPC-E ...
WORST_RF_RATE = {"Retail": 0.67, "Adult": 0.42, "TPC-E": 0.26}
#: ... and the average random-guess rate of the three datasets.
RANDOM_GUESS_RATE = {"Retail": 0.50, "Adult": 0.15, "TPC-E": 0.13}

#: Sec. 6.3 (Figs 28-30): the Lasso-based pipeline is "approximately three orders of magnitudes faster"
#: than the EM-based one.
OVERALL_SPEEDUP_LASSO_VS_EM = 1000.0


# ---------------------------------------------------------------------------- worked examples and printed tables
#: Table 3, attribute by attribute (only the columns used in computations)
GENDER = ("M", "F")
EDUCATION = ("college", "master", "phd")
INCOME = ("working", "low-middle", "up-middle", "affluent")

#: Table 3: the four users' true Gender and Education
TABLE3 = pd.DataFrame(
    {
        "user": ["u1", "u2", "u3", "uN"],
        "Age": [29, 35, 45, 49],
        "Gender": ["M", "F", "F", "M"],
        "Education": ["college", "master", "college", "phd"],
        "Income": ["working", "low-middle", "working", "up-middle"],
    }
)

#: Table 5: public Bloom filters of Gender, Education and Income
TABLE5 = {
    "Gender": {"M": "01", "F": "10"},
    "Education": {"college": "0101", "master": "0110", "phd": "1100"},
    "Income": {"working": "0110", "low-middle": "0011", "up-middle": "1001", "affluent": "1100"},
}

#: Table 6: noisy reports (u2's Gender cell is garbled in the source; Example 1 gives 00)
TABLE6 = pd.DataFrame(
    {
        "user": ["u1", "u2", "u3", "uN"],
        "Gender": ["10", "00", "10", "00"],
        "Education": ["0111", "1110", "0100", "0110"],
        "Income": ["0100", "0111", "0010", "1111"],
    }
)

#: Example 6: the value the paper quotes for P_1(F, phd) (exact recomputation: 329/2090)
EXAMPLE6_PAPER_VALUE = 0.1564

#: Example 11: off-diagonal mutual informations of (Age, Gender, Education, Income), 1-based pairs
EXAMPLE11_MI = {(1, 2): 0.05, (1, 3): 0.03, (1, 4): 0.16, (2, 3): 0.02, (2, 4): 0.04, (3, 4): 0.15}
#: Table 4 domain sizes of (Age, Gender, Education, Income)
EXAMPLE11_DOMAINS = (35, 2, 3, 4)
#: Example 12 edges (1-based)
EXAMPLE12_EDGES = {(1, 4), (3, 4)}

#: Fig. 5 / Example 13 (1-based attributes); attribute 6 is isolated
FIG5_EDGES = [(1, 2), (2, 3), (2, 5), (3, 5), (2, 4), (4, 5)]
FIG5_NODES = 6
FIG5_CLIQUES = [{1, 2}, {2, 3, 5}, {2, 4, 5}, {6}]
FIG5_SEPARATORS = [{2}, {2, 5}]


def _bits(strings: list[str]) -> np.ndarray:
    return np.array([[int(c) for c in s] for s in strings], dtype=np.uint8)


def table5_filters(attribute: str) -> np.ndarray:
    """Public filters of ``attribute`` ("Gender", "Education" or "Income"), one row per value."""
    if attribute not in TABLE5:
        raise ValueError(f"attribute must be one of {sorted(TABLE5)}, got {attribute!r}")
    return _bits(list(TABLE5[attribute].values()))


def table6_reports(f: float = 0.5, attributes: tuple[str, ...] = ("Gender", "Education")) -> LoPubReports:
    """The noisy reports of Table 6 as a :class:`LoPubReports` (default: Gender and Education)."""
    bits = [_bits(list(TABLE6[a])) for a in attributes]
    filters = [table5_filters(a) for a in attributes]
    return LoPubReports(bits, filters, f, names=attributes)


def example11_mi_matrix() -> np.ndarray:
    """Example 11's mutual-information matrix with a zero diagonal (the paper prints 1.00 there)."""
    mi = np.zeros((4, 4))
    for (a, b), v in EXAMPLE11_MI.items():
        mi[a - 1, b - 1] = mi[b - 1, a - 1] = v
    return mi


#: Tables 7-9 as printed (phi grid, #Dep(Pruning), #Dep, loss ratio, #Pairs(Pruning), #Pairs, reduction)
PAPER_TABLES = {
    # Table 7 (Adult), every printed cell
    "adult": pd.DataFrame(
        {
            "phi": [0.1, 0.2, 0.3, 0.4, 0.5],
            "dep_pruning": [88, 38, 22, 12, 6],
            "dep": [102, 42, 24, 14, 8],
            "loss_ratio": [0.137, 0.095, 0.083, 0.143, 0.250],
            "pairs_pruning": [91, 66, 55, 36, 28],
            "pairs": [105] * 5,
            "reduction_ratio": [0.133, 0.371, 0.476, 0.657, 0.733],
        }
    ),
    # Table 8 (TPC-E), every printed cell
    "tpce": pd.DataFrame(
        {
            "phi": [0.1, 0.2, 0.3, 0.4, 0.5],
            "dep_pruning": [44, 16, 16, 8, 8],
            "dep": [46, 24, 20, 10, 10],
            "loss_ratio": [0.043, 0.333, 0.200, 0.200, 0.200],
            "pairs_pruning": [231, 171, 136, 66, 45],
            "pairs": [276] * 5,
            "reduction_ratio": [0.163, 0.380, 0.507, 0.761, 0.837],
        }
    ),
    # Table 9 (Retail), every printed cell
    "retail": pd.DataFrame(
        {
            "phi": [0.1, 0.15, 0.2, 0.25, 0.3],
            "dep_pruning": [256, 256, 256, 250, 244],
            "dep": [240, 240, 238, 220, 200],
            "loss_ratio": [-0.067, -0.067, -0.076, -0.136, -0.220],
            "pairs_pruning": [91, 91, 78, 66, 55],
            "pairs": [120] * 5,
            "reduction_ratio": [0.242, 0.242, 0.350, 0.450, 0.512],
        }
    ),
}

#: number of attributes behind each printed table
PAPER_TABLE_D = {"adult": 15, "tpce": 24, "retail": 16}
