"""Frequency oracles: one class per mechanism, all sharing :class:`FrequencyOracle`."""
from .base import FrequencyOracle
from .grr import GRR

__all__ = ["FrequencyOracle", "GRR"]
