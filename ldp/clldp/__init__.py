"""Xue et al., "LabelDP leaks privacy": LabelDP leaks labels; correlation-aware label LDP (CLLDP) and k heads response.

Modules (one idea each):

* :mod:`~ldp.clldp.omega` -- adversarial belief ω (Def. 5) and conditional tables;
* :mod:`~ldp.clldp.leakage` -- label privacy leakage (Def. 4), exact and closed forms;
* :mod:`~ldp.clldp.encoding` -- the (attribute, label) product domain;
* :mod:`~ldp.clldp.khr` -- k heads response (Thm 2, Eqs. (3)-(7));
* :mod:`~ldp.clldp.basic` -- the basic solution (Thm 1), i.e. SUE with ω = 1;
* :mod:`~ldp.clldp.kchoice` -- choosing k (Thm 3, Eq. (8));
* :mod:`~ldp.clldp.accounting` -- multi-round leakage recursion and budgets (Thms 5-7, Eq. (15));
* :mod:`~ldp.clldp.belief` -- estimating ω from a sample of users (Sec. 7.3);
* :mod:`~ldp.clldp.estimator_base`, :mod:`~ldp.clldp.naive_bayes`, :mod:`~ldp.clldp.tree` -- scikit-learn
  classifiers (Algs. 3-4, LabelDP, non-private);
* :mod:`~ldp.clldp.attack` -- the Bayesian label-inference attack (Sec. 7.4);
* :mod:`~ldp.clldp.datasets`, :mod:`~ldp.clldp.paper` -- data and the paper's stated numbers;
* :mod:`~ldp.clldp.trials` -- trial functions behind the experiments notebook, and the paired
  differences that give its claims their noise margins;
* :mod:`~ldp.clldp.figures` -- drawing helpers for that notebook.
"""

from .accounting import BUDGET_RULES, LeakageLedger, budget_schedule, pl_closed_form, pl_recursion, round_budget
from .attack import AttackResult, clldp_attack, labeldp_attack
from .basic import BasicSolution, basic_epsilon, basic_p
from .belief import belief_functions, estimate_conditionals, true_conditionals
from .encoding import combination_codes, label_attribute_domain
from .kchoice import approx_n_variance_k, k_ceil, k_floor, resolve_k, select_k
from .khr import (
    KHR,
    approx_n_variance,
    expected_sq_l2,
    khr_epsilon,
    khr_ldp_epsilon,
    khr_p,
    khr_q,
    khr_theta,
    khr_variance,
)
from .leakage import (
    khr_leakage,
    label_channel,
    labeldp_channel,
    labeldp_leakage,
    leakage_increment,
    privacy_leakage,
    two_round_leakage,
)
from .naive_bayes import CLLDPNaiveBayes
from .omega import check_label_conditional, conditional_from_joint, omega, omega_bruteforce, omega_curve
from .tree import CLLDPDecisionTree

__all__ = [
    "BUDGET_RULES",
    "LeakageLedger",
    "budget_schedule",
    "pl_closed_form",
    "pl_recursion",
    "round_budget",
    "AttackResult",
    "clldp_attack",
    "labeldp_attack",
    "BasicSolution",
    "basic_epsilon",
    "basic_p",
    "belief_functions",
    "estimate_conditionals",
    "true_conditionals",
    "CLLDPNaiveBayes",
    "CLLDPDecisionTree",
    "label_attribute_domain",
    "combination_codes",
    "approx_n_variance_k",
    "k_ceil",
    "k_floor",
    "resolve_k",
    "select_k",
    "KHR",
    "approx_n_variance",
    "khr_ldp_epsilon",
    "expected_sq_l2",
    "khr_epsilon",
    "khr_p",
    "khr_q",
    "khr_theta",
    "khr_variance",
    "khr_leakage",
    "label_channel",
    "labeldp_channel",
    "labeldp_leakage",
    "leakage_increment",
    "privacy_leakage",
    "two_round_leakage",
    "check_label_conditional",
    "conditional_from_joint",
    "omega",
    "omega_bruteforce",
    "omega_curve",
]
