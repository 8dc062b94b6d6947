"""Multi-class item mining under LDP (Mao et al.).

Modules (one idea each):

``frameworks``    HEC, PTJ, PTS for frequency estimation (+ shared interface, budget split)
``validity``      validity perturbation (VP) and correlated perturbation (CP) with exact estimators
``variance``      exact variances (incl. the covariance Eq. (5) leaves out), the paper's formulas, Table I
``samplers``      count-level samplers exact in distribution
``topk``          PEM- and shuffling-based per-class top-k (Algorithms 1-2) and the ablation variants
``topk_engines``  the miners' rounds drawn per user or at count level from the class x item table
``datasets``      SYN1-SYN4, Diabetes preparation, stand-ins for Heart Disease, Anime, JD
``authors``       explicit models of the authors' evaluation quirks behind Fig. 6 (HEC, PTJ) and Fig. 10 (HEC top-k)
``trials``        trial functions for the experiments notebook's sweeps
``paper``         the numbers the paper prints, each with its place in the paper
"""

from .frameworks import (
    HEC,
    PTJ,
    PTS,
    MulticlassFramework,
    Tallies,
    check_table,
    pairs_to_table,
    split_budget,
    table_to_pairs,
)
from .validity import CP, VP

__all__ = [
    "HEC",
    "PTJ",
    "PTS",
    "CP",
    "VP",
    "MulticlassFramework",
    "Tallies",
    "check_table",
    "pairs_to_table",
    "split_budget",
    "table_to_pairs",
]
