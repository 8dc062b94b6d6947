"""Frequency oracles: one class per mechanism, all sharing :class:`FrequencyOracle`."""

from typing import Any

from ..mechanism import sample_support
from .adaptive import adaptive_oracle, crossover_domain_size
from .base import FrequencyOracle
from .bloom import BloomRAPPOR
from .exponential import Exponential
from .grr import GRR
from .hadamard import HadamardResponse, fwht
from .histogram import SHE  # the CPL paper's eighth mechanism; owned by the CPL chapter
from .local_hash import BLH, OLH, LHReports, LocalHashing, olh_g
from .subset import SubsetSelection, subset_size
from .unary import OUE, SUE, UnaryEncoding

__all__ = [
    "FrequencyOracle",
    "GRR",
    "UnaryEncoding",
    "SUE",
    "OUE",
    "SubsetSelection",
    "subset_size",
    "Exponential",
    "adaptive_oracle",
    "crossover_domain_size",
    "SHE",
    "LocalHashing",
    "BLH",
    "OLH",
    "LHReports",
    "olh_g",
    "HadamardResponse",
    "fwht",
    "BloomRAPPOR",
    "ORACLES",
    "make",
    "sample_support",
]

#: every frequency oracle by its ``name`` (the label of tables and plots); :func:`make` builds them
ORACLES: dict[str, type[FrequencyOracle]] = {
    cls.name: cls
    for cls in (
        GRR,
        SUE,
        OUE,
        UnaryEncoding,
        BLH,
        OLH,
        LocalHashing,
        SubsetSelection,
        HadamardResponse,
        BloomRAPPOR,
        Exponential,
        SHE,
    )
}


def make(name: str, epsilon: float, d: int, **kw: Any) -> FrequencyOracle:
    """The frequency oracle called ``name`` at budget ``epsilon`` on ``d`` values.

    ``name`` is one of :data:`ORACLES` (case-insensitive: ``"GRR"``, ``"SUE"``, ``"OUE"``, ``"UE"``,
    ``"BLH"``, ``"OLH"``, ``"LH"``, ``"SS"``, ``"HR"``, ``"RAPPOR"``, ``"EXP"``, ``"SHE"``) or
    ``"adaptive"`` (:func:`adaptive_oracle`).  Extra keywords go to the class: e.g. ``subset_size``
    for SS, ``rule`` for OLH, ``g`` for LH, ``p`` and ``q`` for UE, ``m`` and ``h`` for RAPPOR.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.strip().upper()
    if key == "ADAPTIVE":
        if kw:
            raise TypeError(f"the adaptive oracle takes no options, got {sorted(kw)}")
        return adaptive_oracle(epsilon, d)
    table = {k.upper(): cls for k, cls in ORACLES.items()}
    if key not in table:
        raise ValueError(f"name must be one of {sorted(ORACLES)} or 'adaptive', got {name!r}")
    return table[key](epsilon, d, **kw)
