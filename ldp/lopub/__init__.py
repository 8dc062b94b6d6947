"""LoPub (Ren et al., IEEE TIFS 2018): high-dimensional data publication under local differential privacy.

Modules, in the order of the paper:

* :mod:`~ldp.lopub.encoding`   user side: per-attribute Bloom filters + permanent randomized response
* :mod:`~ldp.lopub.reports`    the server's view of the collected reports
* :mod:`~ldp.lopub.likelihood` likelihood of a noisy filter given a value (mismatch form, log space)
* :mod:`~ldp.lopub.em`         EM_JD (Alg. 1)
* :mod:`~ldp.lopub.lasso`      Lasso_JD (Alg. 2) and its identifiability limit
* :mod:`~ldp.lopub.hybrid`     Lasso+EM_JD (Alg. 3)
* :mod:`~ldp.lopub.joint`      one entry point for the three estimators, with timing
* :mod:`~ldp.lopub.dependency` mutual information, threshold, dependency graph, identification rates
* :mod:`~ldp.lopub.junction`   triangulation and junction tree
* :mod:`~ldp.lopub.pruning`    entropy-based pruning (Alg. 5) and Tables 7-9
* :mod:`~ldp.lopub.synthesis`  dataset synthesis (Alg. 6)
* :mod:`~ldp.lopub.pipeline`   Alg. 4 + Alg. 6 end to end
* :mod:`~ldp.lopub.evaluation` SVM / random-forest utility of a release
* :class:`ldp.tables.CodedTable` coded categorical tables (shared by every chapter)
* :mod:`~ldp.lopub.datasets`   Adult, Retail and the TPC-E stand-in
* :mod:`~ldp.lopub.authors`    Table 7 as the authors' public code computed it (coding, sample, ranking)
* :mod:`~ldp.lopub.trials`     trial functions of the experiments notebook (for ``ldp.sweep.sweep``)
* :mod:`~ldp.lopub.figures`    one curve per estimator in the house style
* :mod:`~ldp.lopub.summaries`  means, standard errors, paired gaps and margins behind the claims
* :mod:`~ldp.lopub.paper`      what the paper prints, each with its place in the paper: the numbers of its
  text, its worked examples and Tables 3-9
"""

from ..tables import CodedTable
from . import authors
from .dependency import (
    dependency_graph,
    edge_count,
    empirical_joint,
    empirical_mi_matrix,
    entropy,
    identification_rates,
    mi_threshold,
    mutual_information,
    pairwise_mi,
)
from .em import EMResult, em_joint, em_joint_per_report
from .encoding import (
    LoPubEncoder,
    amplified_epsilon,
    communication_cost,
    optimal_filter_length,
    optimal_hash_count,
    rappor_communication_cost,
    record_epsilon,
)
from .evaluation import (
    average_classification_rate,
    binary_attributes,
    classification_rate,
    random_guess_rate,
    train_test_split_rows,
)
from .hybrid import HybridResult, lasso_em_joint
from .joint import EM, LASSO, LASSO_EM, METHODS, JointEstimate, estimate_joint, estimate_joints
from .junction import JunctionTree, covers_edges, has_running_intersection, junction_tree, triangulate
from .lasso import (
    LassoResult,
    bit_counts,
    candidate_matrix,
    candidate_rank,
    debias_counts,
    identifiability_bound,
    kron_lasso_pair,
    lasso_from_counts,
    lasso_joint,
)
from .likelihood import log_likelihood_table, mismatch_counts, report_probability
from .pipeline import Reduction, Release, lopub_release, pairwise_joints, reduce_dimensions
from .pruning import (
    PruneResult,
    entropy_prune,
    half_up,
    kept_attributes,
    loss_ratio,
    n_keep,
    pruning_table,
    reduction_ratio,
    relative_entropy,
)
from .reports import LoPubReports
from .synthesis import SynthesisResult, synthesize

__all__ = [
    "CodedTable",
    "EM",
    "EMResult",
    "HybridResult",
    "JointEstimate",
    "JunctionTree",
    "LASSO",
    "LASSO_EM",
    "LassoResult",
    "LoPubEncoder",
    "LoPubReports",
    "METHODS",
    "PruneResult",
    "Reduction",
    "Release",
    "SynthesisResult",
    "amplified_epsilon",
    "authors",
    "average_classification_rate",
    "binary_attributes",
    "bit_counts",
    "candidate_matrix",
    "candidate_rank",
    "classification_rate",
    "communication_cost",
    "covers_edges",
    "debias_counts",
    "dependency_graph",
    "edge_count",
    "em_joint",
    "em_joint_per_report",
    "empirical_joint",
    "empirical_mi_matrix",
    "entropy",
    "entropy_prune",
    "estimate_joint",
    "estimate_joints",
    "half_up",
    "has_running_intersection",
    "identifiability_bound",
    "identification_rates",
    "junction_tree",
    "kept_attributes",
    "kron_lasso_pair",
    "lasso_em_joint",
    "lasso_from_counts",
    "lasso_joint",
    "log_likelihood_table",
    "lopub_release",
    "loss_ratio",
    "mi_threshold",
    "mismatch_counts",
    "mutual_information",
    "n_keep",
    "optimal_filter_length",
    "optimal_hash_count",
    "pairwise_joints",
    "pairwise_mi",
    "pruning_table",
    "random_guess_rate",
    "rappor_communication_cost",
    "record_epsilon",
    "reduce_dimensions",
    "reduction_ratio",
    "relative_entropy",
    "report_probability",
    "synthesize",
    "train_test_split_rows",
    "triangulate",
]
