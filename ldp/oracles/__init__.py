"""Frequency oracles: one class per mechanism, all sharing :class:`FrequencyOracle`."""
from .base import FrequencyOracle
from .grr import GRR

__all__ = ["FrequencyOracle", "GRR"]
from .unary import OUE, SUE, UnaryEncoding
from .subset import SubsetSelection, subset_size
from .exponential import Exponential
from .adaptive import adaptive_oracle, crossover_domain_size

__all__ += ["UnaryEncoding", "SUE", "OUE", "SubsetSelection", "subset_size", "Exponential",
            "adaptive_oracle", "crossover_domain_size"]
from .histogram import SHE  # noqa: E402  (the CPL paper's eighth mechanism; owned by the CPL chapter)

__all__ += ["SHE"]
from .local_hash import BLH, OLH, LHReports, LocalHashing, olh_g
from .hadamard import HadamardResponse, fwht
from .bloom import BloomRAPPOR

__all__ += ["LocalHashing", "BLH", "OLH", "LHReports", "olh_g", "HadamardResponse", "fwht", "BloomRAPPOR"]
