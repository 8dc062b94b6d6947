"""Numbers that Ren et al. (LoPub, IEEE TIFS 2018) state in their text, each with its place in the paper.

Only values printed in the paper belong here; everything derived is computed by
the package.  No value was read off the curves of the paper's figures: the only
figure values used are the few that the prose of Section 6 quotes, and each is
compared as a printed number (half a unit of its last digit).  The worked
examples and Tables 7-9 are in :mod:`ldp.lopub.examples`.
"""
from __future__ import annotations

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
