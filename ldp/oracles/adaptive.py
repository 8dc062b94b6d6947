"""The adaptive choice between GRR and OUE (Wang et al. 2017, Sec. 4.4; Mao et al., Sec. II-B).

For a value of frequency 0, ``n Var`` is ``(d - 2 + e^eps)/(e^eps - 1)^2`` under GRR
(Wang et al. 2017, Eq. (3)) and ``4 e^eps/(e^eps - 1)^2`` under OUE (Eq. (12)).  GRR is
strictly better exactly when ``d - 2 + e^eps < 4 e^eps``, that is ``d < 3 e^eps + 2``.
"""

from __future__ import annotations

import math

from .._checks import check_domain_size, check_epsilon
from .base import FrequencyOracle
from .grr import GRR
from .unary import OUE


def crossover_domain_size(epsilon: float) -> float:
    """``3 e^eps + 2``: the domain size at which GRR and OUE have equal variance (frequency-0 term)."""
    eps = check_epsilon(epsilon)
    return 3 * math.exp(eps) + 2 if eps < 700 else math.inf


def adaptive_oracle(epsilon: float, d: int) -> FrequencyOracle:
    """GRR if ``d < 3 e^eps + 2``, else OUE (Wang et al. 2017; Mao et al., Sec. II-B).

    Boundary convention: the comparison is strict, so at ``d == 3 e^eps + 2`` (possible only
    when ``3 e^eps`` is an integer) OUE is returned.  There the two variances of a
    frequency-0 value coincide, so either choice is defensible; the strict ``<`` follows
    the authors' code of Mao et al. (its Sec. II-B wording; Sec. VII-D says ``d > 3 e^eps + 2`` -> OUE).

    Parameters
    ----------
    epsilon, d : float, int
        The privacy budget (finite, > 0) and the domain size (>= 2) of the oracle to build.

    Returns
    -------
    FrequencyOracle
        A :class:`~ldp.oracles.grr.GRR` or :class:`~ldp.oracles.unary.OUE` instance.
    """
    eps = check_epsilon(epsilon)
    d = check_domain_size(d)
    return GRR(eps, d) if d < crossover_domain_size(eps) else OUE(eps, d)
