"""Correlation-induced privacy leakage (CPL) in LDP: Jayawardana, Ulukus, Ding & Thilakarathna (2025).

One idea per module:

* ``theory``: Section IV: Algorithm 1 (exact CPL from a channel), Algorithm 2 (upper bound from
  (ε, δ)), closed forms, saturation, composition bound, Appendix K.
* ``attacks``: Appendix B: inferring a value from each mechanism's report; the effective
  ("GRR-like") channel of mechanism + attack and its ε_eff.
* ``statistical``: Section III: expanded dataset, stages 1-3, exact count-level path, surrogate test.
* ``tcpl``: Pairwise CPL matrices, TCPL, normalised TCPL and the utility metrics of Section V-B.
* ``dependence``: NMI (joint-entropy normalisation) and PCC of label codes (Fig. 5, GRF).
* ``benchmark``: Section V-A: undershoot/overshoot, regions P1/R1-R3, SPL-ANL, GRF, ITS, CBP stand-in.
* ``calibration``: Section V-C / Appendix N: the largest feasible per-attribute budget (Algorithm 3, fixed).
* ``datasets``: Adult scheme A, CVD, Appendix K joint, CelebA/LFW/CVD/DSS stand-ins.
* ``trials``: drivers of the experiments notebook (Table III, Fig. 4(a), matrices, Figs. 6-8).
* ``paper``: the numbers printed in the paper (Tables I-III, Figs. 4-8), each with where it is printed.
"""

from .attacks import (
    PAPER_MECHANISMS,
    attack_accuracy,
    channel_factory,
    effective_channel,
    effective_channel_epsilon,
    expected_zero_one_error,
    infer,
    make_oracle,
    two_level_channel,
)
from .statistical import (
    SurrogateResult,
    contingency,
    cpl_from_counts,
    cpl_standard_error,
    nmse_cpl,
    perturb_infer,
    simulate_joint_table,
    simulate_pair_table,
    statistical_cpl,
    statistical_cpl_fast,
    statistical_cpl_matrix,
    statistical_cpl_matrix_fast,
    surrogate_test,
    surrogate_test_counts,
)
from .theory import (
    Alg2Pair,
    CPLPair,
    alg2_pair,
    appendix_k_closed_form,
    check_release_channel,
    conditional,
    cpl_alg1,
    cpl_alg2,
    cpl_exp,
    cpl_grr,
    cpl_saturation,
    cpl_two_level,
    disjoint_pairs,
    hbar,
    tpl_bound,
    tpl_exact,
)

__all__ = [
    # theory
    "Alg2Pair",
    "CPLPair",
    "alg2_pair",
    "appendix_k_closed_form",
    "check_release_channel",
    "conditional",
    "cpl_alg1",
    "cpl_alg2",
    "cpl_exp",
    "cpl_grr",
    "cpl_saturation",
    "cpl_two_level",
    "disjoint_pairs",
    "hbar",
    "tpl_bound",
    "tpl_exact",
    # attacks
    "PAPER_MECHANISMS",
    "attack_accuracy",
    "channel_factory",
    "effective_channel",
    "effective_channel_epsilon",
    "expected_zero_one_error",
    "infer",
    "make_oracle",
    "two_level_channel",
    # statistical
    "SurrogateResult",
    "contingency",
    "cpl_from_counts",
    "cpl_standard_error",
    "nmse_cpl",
    "perturb_infer",
    "simulate_joint_table",
    "simulate_pair_table",
    "statistical_cpl",
    "statistical_cpl_fast",
    "statistical_cpl_matrix",
    "statistical_cpl_matrix_fast",
    "surrogate_test",
    "surrogate_test_counts",
]
