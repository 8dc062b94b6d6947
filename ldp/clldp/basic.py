"""The basic CLLDP solution of Xue et al., Sec. 4.1 (Theorem 1): unary encoding of the pair.

Each user one-hot encodes her product-domain index ``x`` into ``m`` bits and
keeps every bit with probability ``p``, flipping it with probability ``1 - p``.
Theorem 1 gives the CLLDP level ``ε = ln(ω p²/(1-p)² + 1 - ω)``, i.e.

    p = sqrt(e^ε - 1 + ω) / (sqrt(e^ε - 1 + ω) + sqrt(ω)).

But the all-ones vector is a possible report and names every attribute value,
so Definition 5 forces ``ω = 1`` for this mechanism; then ``p = e^{ε/2}/(1 + e^{ε/2})``
and the basic solution is symmetric unary encoding (basic RAPPOR) at budget ε
on the product domain.  :class:`BasicSolution` therefore has no ω parameter;
:func:`basic_p` keeps it so that the notebooks can show what goes wrong with
``ω < 1``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_epsilon, check_int, check_probability
from ..oracles import SUE, FrequencyOracle
from ..oracles.base import DelegatedProbabilities
from .encoding import label_attribute_domain
from .khr import check_omega

__all__ = ["basic_p", "basic_epsilon", "BasicSolution"]


def basic_p(epsilon: float, omega: float = 1.0) -> float:
    """Theorem 1 solved for ``p``: ``sqrt(e^ε-1+ω) / (sqrt(e^ε-1+ω) + sqrt(ω))``.

    Only ``omega = 1`` is a valid CLLDP calibration for unary encoding (see the module
    docstring); other values are accepted so the formula itself can be studied.
    """
    eps = check_epsilon(epsilon)
    w = check_omega(omega)
    a = math.sqrt(math.expm1(eps) + w)
    return a / (a + math.sqrt(w))


def basic_epsilon(p: float, omega: float = 1.0) -> float:
    """Theorem 1 read forwards: ``ln(ω p²/(1-p)² + 1 - ω)`` for a keep probability ``p`` in [1/2, 1)."""
    p = check_probability(p, "p", open_high=True)
    if p < 0.5:
        raise ValueError(f"p must be >= 1/2 for the basic solution (Sec. 4.1), got {p!r}")
    w = check_omega(omega)
    return math.log(w * p * p / ((1 - p) ** 2) + 1 - w)


class BasicSolution(DelegatedProbabilities, FrequencyOracle):
    """The basic solution with the only admissible belief ``ω = 1``: SUE on the product domain.

    Parameters
    ----------
    epsilon : float
        CLLDP budget (here equal to the LDP budget of the pair).
    m_attr, m_label : int
        ``m^s`` and ``m^l``.

    Notes
    -----
    Reports are ``n x m`` boolean matrices (see :class:`ldp.oracles.SUE`); the
    support count of every cell is an independent ``Bin(n_x, p) + Bin(n - n_x, 1 - p)``
    variable, so :meth:`simulate_counts` is exact and costs O(m) per run.
    The exact variance is ``p(1-p)/(n(2p-1)^2)`` for every cell (the f-term of
    Eq. (7) vanishes because ``q = 1 - p``).
    """

    name = "basic"
    notion = "CLLDP"  # with ω = 1 the CLLDP budget is the LDP level of the pair: exact_epsilon = epsilon
    has_count_sampler = True
    _delegate = "_ue"  # p, q, 1 - p and p - q are SUE's

    def __init__(self, epsilon: float, m_attr: int, m_label: int) -> None:
        domain = label_attribute_domain(m_attr, m_label)
        super().__init__(epsilon, domain.size)
        self.domain = domain
        (self.m_label, self.m_attr), self.m = domain.sizes, domain.size
        self.omega = 1.0
        self._ue = SUE(self.epsilon, self.m)

    def encode(self, attr: Any, label: Any) -> np.ndarray:
        return self.domain.encode(label, attr)

    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """``n x m`` boolean reports (each bit kept w.p. ``p``)."""
        return self._ue.perturb(x, rng)

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        return self._ue.perturb_and_count(x, rng)

    def support_counts(self, reports: Any) -> np.ndarray:
        return self._ue.support_counts(reports)

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Exact: ``C_x ~ Bin(n_x, p) + Bin(n - n_x, 1 - p)`` independently over cells."""
        return self._ue.simulate_counts(true_counts, rng)

    def joint_from_counts(self, counts: Any, n: int) -> np.ndarray:
        """Calibrated joint table ``(m_label, m_attr)`` from support counts of ``n`` reports."""
        return self.domain.reshape(self.estimate_counts(counts, n))

    def estimate_joint(self, reports: Any) -> np.ndarray:
        return self.domain.reshape(self.estimate(reports))

    def expected_sq_l2(self, n: int) -> float:
        """``E[Σ_x (f̂_x - f_x)^2] = m p(1-p)/(n(2p-1)^2)``, with SUE's closed forms of ``1 - p`` and
        ``2p - 1 = p - q`` (no cancellation at small or large budgets)."""
        n = check_int(n, "n", minimum=1)
        return self.m * self.p * self.one_minus_p / (n * self.p_minus_q**2)

    def channel(self) -> np.ndarray:
        """The ``m x 2^m`` channel (``m <= 12``)."""
        return self._ue.channel()

    def output_bits(self) -> np.ndarray:
        return self._ue.output_bits()

    def __repr__(self) -> str:
        return f"BasicSolution(epsilon={self.epsilon:g}, m_attr={self.m_attr}, m_label={self.m_label})"
