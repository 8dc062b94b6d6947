"""Numbers that Yin et al. (utility-optimised LDP joint distribution estimation) print, each with its place.

Only values printed in the paper's text belong here; everything derived is computed
by the package.  No value was read off the paper's figures: the two error levels
below are ones the text itself quotes from its Figs. 3(a) and 4(a).  Section numbers
are those of the paper (Sec. 7 is the experiments).
"""

from __future__ import annotations

#: Sec. 7.1: every experiment is repeated 10 times and averaged.
REPETITIONS = 10
#: Sec. 7.4.1: the privacy budget takes 7 values between 0.5 and 6 (the grid itself is not printed).
EPSILON_SPAN = (0.5, 6.0)
N_EPSILONS = 7

#: Sec. 7.4.1 (on Fig. 3(a), nursery parents×class, |Y_S| = 2): CPRR's error at ε = 0.5 lies "between 0.1 and 0.15".
FIG3A_CPRR_RANGE = (0.10, 0.15)
#: Sec. 7.4.1 (on Fig. 4(a), |Y_S| = 4): CPRR's error at ε = 0.5 is "greater than 0.15".
FIG4A_CPRR_ABOVE = 0.15
#: the budget at which Sec. 7.4.1 quotes both values.
QUOTED_EPSILON = 0.5

#: Sec. 1, third contribution: against JD_GRR and TDRR, CPRR lowers the error "by up to about 1/2".
MAX_REDUCTION = 0.5
#: Sec. 7.4.2 (on Fig. 4): where JuRR is worse than TDRR, the difference "does not exceed 0.05".
JURR_TDRR_GAP_MAX = 0.05

#: Sec. 7.4.3 (Fig. 6): nursery cut to its first 2,000, 5,000 and 10,000 records (of 12,960), has_nurs×class.
FIG6_SIZES = (2_000, 5_000, 10_000)

#: Sec. 7.4.4 (Fig. 7): running times from lowest to highest.
TIME_ORDER = ("JD_GRR", "TDRR", "JuRR", "CPRR")
#: Sec. 7.4.4 (Fig. 7(b), score): the times lie between about 0.013 s and 0.019 s ...
FIG7B_SECONDS = (0.013, 0.019)
#: ... and on nursery (Fig. 7(a)) the largest and smallest time differ by at most 0.05 s.
FIG7A_SPREAD_MAX = 0.05
