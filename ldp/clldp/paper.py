"""Numbers that Xue et al. state in their text, each with its place in the paper.

Only values printed in the paper belong here; everything derived is computed
by the package.  The figures' plotted values are not in the text and so are
not available.
"""
from __future__ import annotations

import numpy as np

#: Table 1 (= Table 3a): Pr{WBC level | diagnosis}; rows Flu, HIV; columns WBC low, normal, high.
TABLE1 = np.array([[0.01, 0.22, 0.77],
                   [0.68, 0.16, 0.16]])
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
