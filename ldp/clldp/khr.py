"""k heads response (kHR): the CLLDP frequency oracle of Xue et al., Sec. 4.2.

A user encodes her (attribute value, label) pair as one index ``x`` of the
product domain of size ``m = m^s m^l`` (:mod:`ldp.clldp.encoding`) and reports a
set of exactly ``k`` indices: ``x`` itself with probability ``p`` plus ``k - 1``
others, or ``k`` others with probability ``1 - p``, the others always drawn
uniformly without replacement from ``[m] \\ {x}`` (Eqs. (3)-(4), Algorithm 1).
Theorem 2 shows the protocol is ε-CLLDP for the adversarial belief ``ω`` when

    p = (k e^ε + k ω - k) / (k e^ε + m ω - k)                              (Eq. 6)

and the collector's unbiased estimate is ``f̂_x = (f̃_x - q)/(p - q)`` with
``q = (k - p)/(m - 1)`` (Eq. 5), whose variance is Eq. (7).

Key identity used throughout this package: a report containing ``x`` is
``θ = p(m-k)/(k(1-p)) = (e^ε + ω - 1)/ω`` times as likely as one that does not,
so kHR *is* subset selection (SS) run at the ordinary LDP budget
``ε_LDP = ln θ`` (:func:`khr_ldp_epsilon`).  :class:`KHR` therefore delegates
sampling, the exact count-level sampler and the channel to
:class:`ldp.oracles.SubsetSelection` (which hands ``k = 1`` to :class:`ldp.oracles.GRR`), keeping
Eq. (6)'s ``p`` and the CLLDP budget ``ε`` as its own parameters.  With
``ω = 1`` it is SS at ``ε``; with ``ω = 1`` and ``k = 1`` it is GRR.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .._checks import (
    MAX_EPSILON,
    as_generator,
    check_codes,
    check_domain_size,
    check_epsilon,
    check_frequency_values,
    check_int,
    check_mechanism_epsilon,
    check_probability,
)
from ..oracles import FrequencyOracle, SubsetSelection
from ..oracles.base import ClosedFormProbabilities
from .encoding import label_attribute_domain

__all__ = [
    "check_omega",
    "khr_ldp_epsilon",
    "khr_p",
    "khr_q",
    "khr_theta",
    "khr_epsilon",
    "approx_n_variance",
    "khr_variance",
    "expected_sq_l2",
    "KHR",
]


def check_omega(omega: Any, name: str = "omega") -> float:
    """An adversarial belief: a real number in (0, 1] (Def. 5)."""
    return check_probability(omega, name, open_low=True)


def _check_k(k: Any, m: int) -> int:
    return check_int(k, "k", minimum=1, maximum=m - 1)


def khr_ldp_epsilon(epsilon: float, omega: float) -> float:
    """``ln θ = ln((e^ε + ω - 1)/ω)``: the ordinary LDP budget at which kHR (and the basic solution) run.

    It equals ``ε`` at ``ω = 1`` and grows without bound as ``ω -> 0``.
    """
    eps = check_epsilon(epsilon)
    w = check_omega(omega)
    # ln(e^ε - 1 + ω) written so that it cannot overflow: ε + ln(1 + (ω - 1) e^{-ε})
    return eps + math.log1p((w - 1) * math.exp(-eps)) - math.log(w)


def khr_theta(epsilon: float, omega: float) -> float:
    """``θ = A/B = p(m-k)/(k(1-p)) = (e^ε + ω - 1)/ω`` (proof of Thm 2; also θ_γ of Thm 5)."""
    level = khr_ldp_epsilon(epsilon, omega)
    if level > MAX_EPSILON:
        raise ValueError(
            f"epsilon={epsilon!r} with omega={omega!r} gives theta = e^{level:.4g}, which overflows "
            f"double precision; use a budget with ln(theta) <= {MAX_EPSILON:g}"
        )
    return math.exp(level)


def khr_p(epsilon: float, omega: float, k: int, m: int) -> float:
    """Eq. (6): probability that the user's own index is among the ``k`` reported ones.

    Written as ``k (e^ε - 1 + ω) / (k (e^ε - 1) + m ω)`` to stay accurate for small ε.
    Always ``k/m <= p < 1``.
    """
    eps = check_mechanism_epsilon(epsilon)
    w = check_omega(omega)
    m = check_domain_size(m, "m", minimum=2)
    k = _check_k(k, m)
    em1 = math.expm1(eps)
    return k * (em1 + w) / (k * em1 + m * w)


class _KHRParts(NamedTuple):
    p: float
    q: float
    one_minus_p: float
    one_minus_q: float
    p_minus_q: float


def _khr_parts(epsilon: float, omega: float, k: int, m: int) -> _KHRParts:
    """Eq. (6)'s ``p`` with ``q``, ``1 - p``, ``1 - q`` and ``p - q`` from closed forms (no cancellation).

    With ``E = e^ε - 1`` and ``D = k E + m ω``::

        p = k (E + ω)/D              1 - p = ω (m - k)/D
        q = k ((k-1) E + (m-1) ω)/((m-1) D)
        1 - q = (m - k)(k E + (m-1) ω)/((m-1) D)
        p - q = k (m - k) E/((m-1) D)

    Subtracting ``1 - p`` or ``k - p`` in floating point loses about ``1e-16/(1 - p)`` of relative
    accuracy, which matters at large ε and small ω (e.g. ε = 8, ω = 0.02).
    """
    em1 = math.expm1(epsilon)
    den = k * em1 + m * omega
    return _KHRParts(
        p=k * (em1 + omega) / den,
        q=k * ((k - 1) * em1 + (m - 1) * omega) / ((m - 1) * den),
        one_minus_p=omega * (m - k) / den,
        one_minus_q=(m - k) * (k * em1 + (m - 1) * omega) / ((m - 1) * den),
        p_minus_q=k * (m - k) * em1 / ((m - 1) * den),
    )


def khr_q(p: float, k: int, m: int) -> float:
    """``q = (k - p)/(m - 1)``: probability that a given *other* index is reported (Sec. 4.2)."""
    m = check_domain_size(m, "m", minimum=2)
    k = _check_k(k, m)
    p = check_probability(p, "p")
    return (k - p) / (m - 1)


def khr_epsilon(p: float, omega: float, k: int, m: int) -> float:
    """Theorem 2 read forwards: the CLLDP budget ``ln(ω (m-k)p/(k(1-p)) + 1 - ω)`` of a given ``p``."""
    m = check_domain_size(m, "m", minimum=2)
    k = _check_k(k, m)
    w = check_omega(omega)
    p = check_probability(p, "p", open_high=True)
    return math.log(w * (m - k) * p / (k * (1 - p)) + 1 - w)


def approx_n_variance(p: float, q: float) -> float:
    """``n · Var`` of the approximate Eq. (7): ``q(1-q)/(p-q)^2`` (the f-term dropped); ``p != q``."""
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if p == q:
        raise ValueError(f"p and q must differ (the estimator divides by p - q), got p = q = {p!r}")
    return q * (1 - q) / (p - q) ** 2


def khr_variance(epsilon: float, omega: float, k: int, m: int, n: int, f: Any = None) -> Any:
    """Eq. (7): ``Var[f̂_x] = q(1-q)/(n(p-q)^2) + f_x(1-p-q)/(n(p-q))``; approximate form if ``f`` is None.

    The exact form is exact (not a bound): each user's bit ``x`` is an independent
    Bernoulli(p) or Bernoulli(q) variable.  It is evaluated as the equal expression
    ``[f p(1-p) + (1-f) q(1-q)]/(n(p-q)^2)``, a sum of non-negative terms, with ``1 - p``,
    ``q``, ``1 - q`` and ``p - q`` from their closed forms (:func:`_khr_parts`), so it keeps
    full relative precision when ``p`` is near 1.
    """
    n = check_int(n, "n", minimum=1)
    khr_p(epsilon, omega, k, m)  # validates the arguments
    t = _khr_parts(float(epsilon), float(omega), int(k), int(m))
    if f is None:
        return t.q * t.one_minus_q / t.p_minus_q**2 / n
    f_arr = check_frequency_values(f, "f")
    out = (f_arr * t.p * t.one_minus_p + (1 - f_arr) * t.q * t.one_minus_q) / (n * t.p_minus_q**2)
    return float(out) if out.ndim == 0 else out


def expected_sq_l2(epsilon: float, omega: float, k: int, m: int, n: int) -> float:
    """``E[err²] = Σ_x Var[f̂_x] = [m q(1-q)/(p-q)^2 + (1-p-q)/(p-q)] / n`` (Eq. (7) summed; Σ f_x = 1).

    ``err`` is the paper's L2 error ``sqrt(Σ_x (f̂_x - f_x)^2)`` (Sec. 7.1); the sum
    does not depend on the true distribution because the f-terms add up to one.
    """
    n = check_int(n, "n", minimum=1)
    khr_p(epsilon, omega, k, m)  # validates the arguments
    t = _khr_parts(float(epsilon), float(omega), int(k), int(m))
    # the same sum written with non-negative terms: [p(1-p) + (m-1) q(1-q)]/(p-q)^2
    return (t.p * t.one_minus_p + (m - 1) * t.q * t.one_minus_q) / t.p_minus_q**2 / n


class KHR(ClosedFormProbabilities, FrequencyOracle):
    """k heads response over the product domain ``[m_attr] x [m_label]`` (Xue et al., Algorithms 1-2).

    Parameters
    ----------
    epsilon : float
        CLLDP budget ε > 0 (Def. 6).
    omega : float
        Adversarial belief ``ω_s`` in (0, 1] used for calibration; for a correct
        guarantee it must be >= ``ldp.clldp.omega(cond, k)`` of the true
        conditional table (footnote 4 / :func:`ldp.clldp.khr_leakage` otherwise).
    k : int
        Number of ones in every report, ``1 <= k <= m - 1`` (the paper uses ``k <= m/2``).
    m_attr, m_label : int
        ``m^s`` and ``m^l``; ``m = m_attr * m_label``.

    Attributes
    ----------
    p, q : float
        Eq. (6) and ``(k - p)/(m - 1)``.
    theta : float
        ``(e^ε + ω - 1)/ω``, the likelihood ratio of Thm 2.
    ldp_epsilon : float
        ``ln θ``: the ordinary LDP level of the channel on the pair (x), >= ε.

    Notes
    -----
    Reports are an ``n x k`` integer array of distinct product-domain indices.
    ``estimate`` returns the raw Eq. (5) vector (length ``m``, may be negative,
    sums to exactly 1 up to rounding); :meth:`estimate_joint` reshapes it to the
    ``(m_label, m_attr)`` table.
    """

    name = "kHR"
    notion = "CLLDP"
    has_count_sampler = True

    def __init__(self, epsilon: float, omega: float, k: int, m_attr: int, m_label: int) -> None:
        domain = label_attribute_domain(m_attr, m_label)
        super().__init__(epsilon, domain.size)
        self.domain = domain
        (self.m_label, self.m_attr), self.m = domain.sizes, domain.size
        self.omega = check_omega(omega)
        self.k = _check_k(k, self.m)
        self._store_parts(_khr_parts(self.epsilon, self.omega, self.k, self.m))
        self.ldp_epsilon = khr_ldp_epsilon(self.epsilon, self.omega)
        self.theta = math.exp(self.ldp_epsilon)
        if not self._p < 1.0 or not self._p > self._q:
            raise ValueError(f"epsilon={self.epsilon!r} with omega={self.omega!r} is too extreme: p rounds to 1")

    # ------------------------------------------------------------------ parameters
    @property
    def exact_epsilon(self) -> float:
        """The channel's ordinary LDP level on the pair, ``ln θ`` (>= the CLLDP budget ``epsilon``)."""
        return self.ldp_epsilon

    def as_subset_selection(self) -> SubsetSelection:
        """The identical LDP mechanism: SS with budget ``ln θ`` and subset size ``k`` on ``m`` values."""
        return SubsetSelection(self.ldp_epsilon, self.m, self.k)

    # ------------------------------------------------------------------ client side
    def encode(self, attr: Any, label: Any) -> np.ndarray:
        """Product-domain indices ``x = label * m_attr + attr`` (Algorithm 1, line 1)."""
        return self.domain.encode(label, attr)

    def perturb(self, x: Any, rng: Any = None) -> np.ndarray:
        """Algorithm 1 for a whole population of indices ``x``: an ``n x k`` array of distinct indices."""
        x = self._codes(x)
        gen = as_generator(rng)
        return self.as_subset_selection().perturb(x, gen)  # smallest integer dtype that holds m - 1

    def perturb_and_count(self, x: Any, rng: Any = None) -> np.ndarray:
        """Per-user perturbation followed by aggregation, without keeping the reports."""
        x = self._codes(x)
        gen = as_generator(rng)
        return self.as_subset_selection().perturb_and_count(x, gen)

    # ------------------------------------------------------------------ server side
    def support_counts(self, reports: Any) -> np.ndarray:
        """``C_x``: the number of reports whose bit ``x`` is 1 (Algorithm 2, line 2, times n)."""
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != self.k:
            raise ValueError(f"reports must be an n x k = n x {self.k} array of indices, got shape {arr.shape}")
        flat = check_codes(arr.ravel(), self.m, "reports", allow_empty=True)
        return np.bincount(flat, minlength=self.m)

    def estimate_joint(self, reports: Any) -> np.ndarray:
        """Eq. (5) reshaped to the ``(m_label, m_attr)`` joint table ``Pr^{l, s_v}`` (raw, unclipped)."""
        return self.domain.reshape(self.estimate(reports))

    def joint_from_counts(self, counts: Any, n: int) -> np.ndarray:
        """Eq. (5) from support counts of ``n`` reports, as the ``(m_label, m_attr)`` table."""
        return self.domain.reshape(self.estimate_counts(counts, n))

    def decode_reports(self, reports: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(attr, label)`` of every reported index, each an ``n x k`` array."""
        label, attr = self.domain.decode(reports, "reports")
        return attr, label

    # ------------------------------------------------------------------ analysis
    def expected_sq_l2(self, n: int) -> float:
        """``E[Σ_x (f̂_x - f_x)^2]`` for ``n`` users (Eq. (7) summed over the domain)."""
        return expected_sq_l2(self.epsilon, self.omega, self.k, self.m, n)

    def channel(self) -> np.ndarray:
        """``P(report | x)`` over all ``C(m, k)`` subsets (lexicographic columns; small ``m`` only)."""
        return self.as_subset_selection().channel()

    def output_subsets(self) -> np.ndarray:
        """The subsets in the column order of :meth:`channel`."""
        return self.as_subset_selection().output_subsets()

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> np.ndarray:
        """Support counts drawn exactly from their law, in ``O(m k)`` time whatever ``n``.

        kHR is SS at budget ``ln θ``, so this is :meth:`ldp.oracles.SubsetSelection.simulate_counts`
        (the mixture law of the channel; for ``k = 1`` the GRR sampler at ``ln θ``).
        """
        return self.as_subset_selection().simulate_counts(true_counts, rng)

    def __repr__(self) -> str:
        return (
            f"KHR(epsilon={self.epsilon:g}, omega={self.omega:g}, k={self.k}, m_attr={self.m_attr}, "
            f"m_label={self.m_label})"
        )
