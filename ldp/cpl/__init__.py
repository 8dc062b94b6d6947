"""Correlation-induced privacy leakage (CPL) in LDP: Jayawardana, Ulukus, Ding & Thilakarathna (2025).

Modules (one idea each):

``theory``       Section IV: Algorithm 1 (exact CPL from a channel), Algorithm 2 (upper bound
                 from (ε, δ)), closed forms, saturation, composition bound, Appendix K.
"""
from .theory import (Alg2Pair, CPLPair, alg2_pair, appendix_k_closed_form, check_conditional, conditional,
                     cpl_alg1, cpl_alg2, cpl_exp, cpl_grr, cpl_saturation, cpl_two_level, disjoint_pairs, hbar,
                     tpl_bound)

__all__ = ["Alg2Pair", "CPLPair", "alg2_pair", "appendix_k_closed_form", "check_conditional", "conditional",
           "cpl_alg1", "cpl_alg2", "cpl_exp", "cpl_grr", "cpl_saturation", "cpl_two_level", "disjoint_pairs",
           "hbar", "tpl_bound"]
