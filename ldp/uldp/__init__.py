"""Utility-optimised LDP for two-attribute joint distributions (Yin, Zhu & Zhang 2023).

Modules (one idea each):

``model``      sensitive sets, the 2-D ULDP model and its four cases, exact ULDP checks on a channel
(shared)       sampling, inversion and exact variance of finite channels live in :mod:`ldp.channels`
``mechanism``  the common interface (channel, exact count sampler, estimator, exact error)
``urr``        uRR of Murakami & Kawamoto (one attribute)
``joint``      the base class of the two-attribute mechanisms
``jurr``       JuRR (with its minimum ε) — Algorithms 1-2
``cprr``       CPRR, uRR on the product domain — Algorithms 3-4
``baselines``  TDRR (two uRRs with ε/2) and joint GRR
``metrics``    ED (Eq. 59), Euclidean distance, MSE, and their exact expectations
``errata``     the paper's estimator and variance formulas as printed, for demonstrations
``datasets``   the nursery and score 2-D tables (real files or exact stand-ins), random subsamples
``trials``     trial functions for ``ldp.sweep.sweep`` and exact error curves (Figs. 3-7)
``figures``    the accuracy panels in the house style
``summaries``  exact error grids and the comparisons the experiments' claims rest on
``readings``   the paper's unpublished details (ε grid, reporting users, Fig. 6 cut) and our values under each
``paper``      the numbers the paper prints, each with its place in the paper
"""

from . import model
from .baselines import TDRR, JointGRR, TDRRUnbiased
from .cprr import CPRR
from .joint import JointMechanism
from .jurr import JuRR, JuRRParameters, jurr_is_defined, jurr_min_epsilon, jurr_parameters
from .mechanism import ChannelMechanism
from .metrics import ed, euclidean, expected_ed, expected_euclidean, mse_cells, mse_eq60
from .model import *  # noqa: F403 (the names of model.__all__, re-exported below)
from .urr import URR

# the model's public names are listed once, in ldp.uldp.model.__all__
__all__ = [
    *model.__all__,
    "ChannelMechanism",
    "JointMechanism",
    "URR",
    "JuRR",
    "JuRRParameters",
    "jurr_parameters",
    "jurr_min_epsilon",
    "jurr_is_defined",
    "CPRR",
    "TDRR",
    "TDRRUnbiased",
    "JointGRR",
    "ed",
    "euclidean",
    "mse_cells",
    "mse_eq60",
    "expected_ed",
    "expected_euclidean",
]
