"""Label privacy leakage (Def. 4 of Xue et al.) computed exactly, and its closed forms.

For a mechanism with channel ``P[x, o] = Pr{o | x}`` on the product domain
(``x = l m^s + s_v``) and a correlation ``F = Pr{s_v | l}``, the adversary who
knows ``F`` but not the attribute value sees the *label-level* channel

    Q[l, o] = Pr{o | l} = Σ_{s_v} P[x(s_v, l), o] · F[l, s_v],

and the label privacy leakage is ``PL = sup_{o, l, l'} Q[l, o]/Q[l', o]``, i.e.
``exp(channel_epsilon(Q))`` (:func:`ldp.audit.channel_epsilon`).  A mechanism is
ε-CLLDP for ``F`` exactly when ``PL <= e^ε``.

Closed forms checked against the enumeration in the tests:

* LabelDP (true attributes, ε-LDP label): ``PL = e^ε · sup_{s_v, l, l'} F[l, s_v]/F[l', s_v]``
  (Sec. 3.2), infinite when a conditional probability is 0 for one label only;
* kHR calibrated with ``ω`` on a correlation whose true belief is ``ω* = ω_F(k)``:
  ``PL <= 1 + (θ - 1) ω* = ω* (e^ε + ω - 1)/ω + 1 - ω*`` (footnote 4), with equality
  whenever an output can put its ``k`` ones on the top-``k`` values of one label
  block and none on another label (``k <= m^s``, or at least three labels); so
  Theorem 2 is tight when ``ω = ω*``, and an under-estimated ω raises the
  leakage by ``(ω*/ω - 1)(e^ε - 1)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_allocation, check_domain_size, check_epsilon
from ..audit import channel_epsilon, check_channel
from .khr import KHR, check_omega, khr_theta
from .omega import check_label_conditional

__all__ = [
    "label_channel",
    "privacy_leakage",
    "labeldp_channel",
    "labeldp_leakage",
    "khr_leakage",
    "leakage_increment",
    "two_round_leakage",
]


def label_channel(P: Any, cond: Any) -> np.ndarray:
    """``Q[l, o] = Σ_{s_v} P[l m^s + s_v, o] F[l, s_v]``: the channel from the label alone to the output.

    Parameters
    ----------
    P : array_like, shape (m_label * m_attr, n_outputs)
        Row-stochastic channel on the product domain.
    cond : array_like, shape (m_label, m_attr)
        ``F[l, s_v] = Pr{s_v | l}``.
    """
    F = check_label_conditional(cond)
    m_l, m_s = F.shape
    Pm = check_channel(P, atol=1e-9)
    if Pm.shape[0] != m_l * m_s:
        raise ValueError(f"P has {Pm.shape[0]} rows but cond implies m = {m_l} x {m_s} = {m_l * m_s} inputs")
    return np.einsum("ls,lso->lo", F, Pm.reshape(m_l, m_s, -1))


def privacy_leakage(P: Any, cond: Any) -> float:
    """Exact label privacy leakage ``PL`` of Def. 4 (``inf`` if some output rules a label out)."""
    return math.exp(channel_epsilon(label_channel(P, cond)))


def labeldp_channel(label_P: Any, m_attr: int) -> np.ndarray:
    """The LabelDP channel on the product domain: true attribute released, label through ``label_P``.

    Output ``(s', o)`` has index ``s' * n_label_outputs + o``; ``P[(l, s), (s', o)] = [s = s'] label_P[l, o]``.
    """
    L = check_channel(label_P, atol=1e-9, name="label_P")
    m_attr = check_domain_size(m_attr, "m_attr", minimum=1)
    m_l, n_out = L.shape
    check_allocation(m_l * m_attr * m_attr * n_out, 8, "the LabelDP channel", "m_attr", m_attr)
    eye = np.eye(m_attr)
    P = np.einsum("st,lo->lsto", eye, L)  # (label, attr, attr', output)
    return P.reshape(m_l * int(m_attr), int(m_attr) * n_out)


def labeldp_leakage(epsilon: float, cond: Any) -> float:
    """Sec. 3.2: ``PL = e^ε · max_{s_v} max_l F[l, s_v] / min_l F[l, s_v]`` (``inf`` on a 0 against a non-zero)."""
    eps = check_epsilon(epsilon)
    F = check_label_conditional(cond)
    return math.exp(eps + channel_epsilon(F))


def khr_leakage(epsilon: float, omega_used: float, omega_true: float) -> float:
    """Footnote 4: actual ``PL = ω* (e^ε + ω - 1)/ω + 1 - ω*`` of kHR calibrated with ``ω`` when the truth is ``ω*``."""
    theta = khr_theta(epsilon, omega_used)
    w_true = check_omega(omega_true, "omega_true")
    return w_true * theta + 1 - w_true


def leakage_increment(epsilon: float, omega_used: float, omega_true: float) -> float:
    """Footnote 4: ``e* - e^ε = (ω*/ω - 1)(e^ε - 1)`` (negative when ω over-estimates the truth)."""
    eps = check_epsilon(epsilon)
    w = check_omega(omega_used, "omega_used")
    w_true = check_omega(omega_true, "omega_true")
    return (w_true / w - 1) * math.expm1(eps)


def two_round_leakage(joint: Any, rounds: Any, k: int) -> float:
    """Exact label privacy leakage ``PL`` of two kHR reports, the second on a refined attribute combination.

    A user first reports attribute ``u`` with kHR, then the pair ``(u, v)``, both with ``k`` heads
    (the chain ``s^1 = {u} ⊂ s^2 = {u, v}`` of the paper's Sec. 6.2).  The adversary sees both
    reports; the label-level channel of the pair of outputs is enumerated from the product of the
    two kHR channels, so the result can be compared with the bound of the paper's Theorem 5
    (:func:`ldp.clldp.pl_closed_form`).

    Parameters
    ----------
    joint : array_like, shape (m_label, m_u, m_v)
        ``Pr{u, v | l}``: each label's slice sums to 1.
    rounds : sequence of two (epsilon, omega) pairs
        Budget and belief used in round 1 (on ``u``) and round 2 (on ``(u, v)``).
    k : int
        Number of heads in both rounds.

    Returns
    -------
    float
        ``PL = exp(channel_epsilon(Q))`` of the two-report label channel ``Q``.
    """
    F = np.asarray(joint, dtype=float)
    if F.ndim != 3:
        raise ValueError(f"joint must have shape (m_label, m_u, m_v), got shape {F.shape}")
    check_label_conditional(F.reshape(F.shape[0], -1))
    if len(rounds) != 2:
        raise ValueError(f"rounds must hold two (epsilon, omega) pairs, got {len(rounds)}")
    (e1, w1), (e2, w2) = rounds
    m_l, m_u, m_v = F.shape
    P1 = KHR(e1, w1, k, m_u, m_l).channel().reshape(m_l, m_u, -1)
    P2 = KHR(e2, w2, k, m_u * m_v, m_l).channel().reshape(m_l, m_u, m_v, -1)
    Q = np.einsum("luv,lua,luvb->lab", F, P1, P2).reshape(m_l, -1)
    return math.exp(channel_epsilon(Q))
