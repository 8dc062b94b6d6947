"""Numbers that Xue et al. state in their text, each with its place in the paper.

Only values printed in the paper belong here; everything derived is computed
by the package.  The paper prints no numbers for its figures (Figs. 3-6 are
described in the prose of Sec. 7), so nothing here is read off a figure:
:data:`SOURCES` gives, for every constant, where it is printed
(:func:`ldp.claims.printed`), and :data:`PRECISION` the precision of the
printed numbers that claims compare with (half a unit of the last printed
digit).
"""

from __future__ import annotations

import numpy as np

from ..claims import Source, printed

#: Table 1 (= Table 3a): Pr{WBC level | diagnosis}; rows Flu, HIV; columns WBC low, normal, high.
TABLE1 = np.array([[0.01, 0.22, 0.77], [0.68, 0.16, 0.16]])
TABLE1_LABELS = ("Flu", "HIV")
TABLE1_VALUES = ("WBC low", "WBC normal", "WBC high")

#: Sec. 3.3 worked example of Def. 5: ω for an output naming two WBC values.
DEF5_EXAMPLE_OMEGA = 0.99

#: Sec. 4.3: "cigarette smoking is linked to 82% lung cancer cases" -> ω = 0.82 for one named value.
SMOKING_OMEGA = 0.82

#: Table 4: ω_s at k = 1 of the four synthetic datasets.
TABLE4 = {"U(1,50)": 0.020, "N(25,1)": 0.383, "N(25,0.3)": 0.638, "D(25)": 1.0}

#: Sec. 7.1: synthetic datasets have 100,000 records, 50 attribute values, 5 classes (m = 250, footnote 8).
SYNTHETIC_N = 100_000
SYNTHETIC_M_ATTR = 50
SYNTHETIC_M_LABEL = 5

#: Sec. 7.1: public dataset sizes.
ADULT_N = 32_561
SMARTGRID_N = 60_000
HEALTHCARE_N = 318_438

#: Secs. 7.2-7.4: ε varies "from 0.5 to 8"; Sec. 7.5: Fig. 6 uses ε = 3 and k = 1..100.
EPSILON_RANGE = (0.5, 8.0)
FIG6_EPSILON = 3.0
FIG6_K_MAX = 100

#: Sec. 7.5: ⌈m/(e^ε+1)⌉ = 12 for m = 250, ε = 3.
FIG6_CEIL = 12

#: Sec. 7.3: CART depth and train/test split; 10% of the training users estimate ω.
TREE_DEPTH = 5
TRAIN_FRACTION = 0.7
OMEGA_SAMPLE_FRACTION = 0.1

#: Sec. 7.4 (Fig. 5): LabelDP attack > 70% correct at ε = 0.5 on every dataset, 96% on SmartGrid;
#: CLLDP attack "less than 60%" at ε = 0.5.
FIG5_LABELDP_MIN = 0.70
FIG5_LABELDP_SMARTGRID = 0.96
FIG5_CLLDP_MAX_AT_HALF = 0.60

#: Where each constant is printed in the paper (the provenance shown in the claims table).
SOURCES: dict[str, Source] = {
    "TABLE1": printed("Table 1"),
    "TABLE1_LABELS": printed("Table 1"),
    "TABLE1_VALUES": printed("Table 1"),
    "DEF5_EXAMPLE_OMEGA": printed("Sec. 3.3"),
    "SMOKING_OMEGA": printed("Sec. 4.3"),
    "TABLE4": printed("Table 4"),
    "SYNTHETIC_N": printed("Sec. 7.1"),
    "SYNTHETIC_M_ATTR": printed("Sec. 7.1"),
    "SYNTHETIC_M_LABEL": printed("Sec. 7.1"),
    "ADULT_N": printed("Sec. 7.1"),
    "SMARTGRID_N": printed("Sec. 7.1"),
    "HEALTHCARE_N": printed("Sec. 7.1"),
    "EPSILON_RANGE": printed("Secs. 7.2-7.4"),
    "FIG6_EPSILON": printed("Sec. 7.5"),
    "FIG6_K_MAX": printed("Sec. 7.5"),
    "FIG6_CEIL": printed("Sec. 7.5"),
    "TREE_DEPTH": printed("Sec. 7.3"),
    "TRAIN_FRACTION": printed("Sec. 7.3"),
    "OMEGA_SAMPLE_FRACTION": printed("Sec. 7.3"),
    "FIG5_LABELDP_MIN": printed("Sec. 7.4"),
    "FIG5_LABELDP_SMARTGRID": printed("Sec. 7.4"),
    "FIG5_CLLDP_MAX_AT_HALF": printed("Sec. 7.4"),
}

#: Precision of the printed numbers that claims test: half a unit of the last printed digit
#: (Table 4 prints three decimals; Sec. 7.4 prints "96%").  The other constants are exact
#: (sizes, settings) or bounds stated as such ("more than 70%", "less than 60%").
PRECISION: dict[str, float] = {
    "TABLE4": 0.0005,
    "FIG5_LABELDP_SMARTGRID": 0.005,
}
