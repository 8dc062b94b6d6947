"""The Bayesian label-inference attack of Xue et al., Sec. 7.4 (Fig. 5).

The collector trains Naive Bayes on the reports it received and applies it
*back to the same users* to guess their true labels; the share of correct
guesses measures how much label information the released data leaks.

* LabelDP: users released their true attributes, so the attacker evaluates
  Eq. (9) on them with the LabelDP-trained model (:func:`labeldp_attack`).
* CLLDP (Algorithm 3 reports), two variants (the paper does not pin the
  details down; Sec. 7.4 describes the attack only in words):

  - ``"A"`` (default, the paper's description): kHR with ``k = 1``; the
    attribute part of the single reported index is the user's *perturbed*
    attribute value ``ã``; guess ``argmax_l P̂(l) P̂(ã | l)``;
  - ``"B"`` (the exact posterior of the whole report, any ``k``): the report
    ``ṽ`` has likelihood ``∝ 1 + (θ - 1) Σ_{a: ṽ(a, l) = 1} P̂(a | l)`` under label
    ``l`` (proof of Theorem 2), so guess
    ``argmax_l P̂(l) [1 + (θ - 1) Σ_{a: ṽ(a,l)=1} P̂(a | l)]``.  This uses the
    label bits as well and is the Bayes-optimal attack given the model.

Both return the fraction of attacked users whose label is guessed right, and
the *prior-only* baseline (always guessing the model's most likely label) for
reference: an attack is informative only above that line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import as_generator, check_code_matrix, check_codes, check_domain_size, check_epsilon
from .belief import belief_functions
from .naive_bayes import PROB_FLOOR, collect_clldp_joints, labeldp_joints, nb_from_joints, nb_log_scores

__all__ = [
    "AttackResult",
    "labeldp_attack",
    "clldp_attack",
    "bayes_optimal_accuracy",
    "attribute_guess_accuracy",
    "ldp_accuracy_bound",
]


@dataclass(frozen=True)
class AttackResult:
    """Share of users whose true label the attacker guessed, and the prior-only baseline."""

    accuracy: float
    prior_only: float
    n_attacked: int


def bayes_optimal_accuracy(Q: Any, prior: Any) -> float:
    """Accuracy of the best possible label guess from one output: ``Σ_o max_l π_l Q[l, o]``.

    ``Q`` is a label-level channel (:func:`ldp.clldp.label_channel`), ``prior`` the label
    distribution ``π``.  This is the attack of Sec. 7.4 with perfect knowledge of the model.
    """
    Qa = np.asarray(Q, dtype=float)
    pi = np.asarray(prior, dtype=float)
    if Qa.ndim != 2 or pi.shape != (Qa.shape[0],):
        raise ValueError(f"Q must be (m_label, n_outputs) and prior of length m_label, got {Qa.shape}, {pi.shape}")
    if np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
        raise ValueError("prior must be a probability vector")
    return float(np.max(pi[:, None] * Qa, axis=0).sum())


def attribute_guess_accuracy(Q: Any, cond: Any, prior: Any) -> float:
    """Exact accuracy of attack A (Sec. 7.4 as the paper words it) against a single-cell output.

    With ``k = 1`` every output ``o`` is one cell ``(l', ã)`` of the product domain, index
    ``o = l' m^s + ã`` (:mod:`ldp.clldp.encoding`).  Attack A reads the attribute part
    ``ã`` as if it were the true value and guesses ``g(o) = argmax_l π_l F[l, ã]``; its
    accuracy is ``Σ_o π_{g(o)} Q[g(o), o]``.  Compare with :func:`bayes_optimal_accuracy`
    (attack B with the exact model), which is never smaller.

    Parameters
    ----------
    Q : array_like, shape (m_label, m_label * m_s)
        Label-level channel of a one-cell mechanism (:func:`ldp.clldp.label_channel`).
    cond : array_like, shape (m_label, m_s)
        The attacker's model ``F[l, a] = Pr{a | l}``.
    prior : array_like, shape (m_label,)
        Label distribution ``π``.
    """
    Qa = np.asarray(Q, dtype=float)
    F = np.asarray(cond, dtype=float)
    pi = np.asarray(prior, dtype=float)
    if F.ndim != 2 or Qa.shape != (F.shape[0], F.size) or pi.shape != (F.shape[0],):
        raise ValueError(
            f"Q must be (m_label, m_label * m_s) = {(F.shape[0], F.size) if F.ndim == 2 else '?'}, "
            f"cond (m_label, m_s) and prior (m_label,); got {Qa.shape}, {F.shape}, {pi.shape}"
        )
    if np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
        raise ValueError("prior must be a probability vector")
    attr = np.arange(Qa.shape[1]) % F.shape[1]
    guess = np.argmax(pi[:, None] * F[:, attr], axis=0)
    return float(np.sum(pi[guess] * Qa[guess, np.arange(Qa.shape[1])]))


def ldp_accuracy_bound(epsilon: float, prior: Any) -> float:
    """Largest Bayes accuracy any mechanism with label leakage ``PL <= e^ε`` allows (two labels).

    With likelihood ratios bounded by ``e^ε`` every output's posterior odds are at most
    ``e^ε`` times the prior odds; for two labels the best accuracy is
    ``max(π_1 e^ε, π_0) / (π_0 + π_1 e^ε)`` maximised over which label is favoured, i.e.
    ``max_l π_l e^ε / (π_l e^ε + 1 - π_l)``.
    """
    eps = check_epsilon(epsilon)
    pi = np.asarray(prior, dtype=float)
    if pi.shape != (2,) or np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
        raise ValueError(f"prior must be a probability vector over two labels, got {prior!r}")
    e = np.exp(eps)
    return float(np.max(pi * e / (pi * e + 1 - pi)))


def _prior_only(log_prior: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(y == int(np.argmax(log_prior))))


def _check_users(X: Any, y: Any, sizes: Any, m_label: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """The attributes ``X`` (one column per entry of ``sizes``) and labels ``y`` (one per row, in ``m_label``)."""
    X, sizes = check_code_matrix(X, sizes, "X", "sizes")
    y = check_codes(y, check_domain_size(m_label, "m_label"), "y")
    if y.size != X.shape[0]:
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y.size}")
    return X, y, sizes


def labeldp_attack(
    X: np.ndarray, y: np.ndarray, sizes: Sequence[int], m_label: int, epsilon: float, rng: Any = None
) -> AttackResult:
    """Train LabelDP Naive Bayes on all users, then guess each user's label from her true attributes."""
    eps = check_epsilon(epsilon)
    X, y, sizes = _check_users(X, y, sizes, m_label)
    tables = labeldp_joints(X, y, sizes, m_label, eps, as_generator(rng))
    log_prior, log_cond = nb_from_joints(tables.joints, m_label)
    guess = np.argmax(nb_log_scores(log_prior, log_cond, X), axis=1)
    return AttackResult(float(np.mean(guess == y)), _prior_only(log_prior, y), int(y.size))


def clldp_attack(
    X: np.ndarray,
    y: np.ndarray,
    sizes: Sequence[int],
    m_label: int,
    epsilon: float,
    omega: Any,
    rng: Any = None,
    variant: str = "A",
    k: Any = 1,
) -> AttackResult:
    """Train CLLDP Naive Bayes (Alg. 3, kHR) and guess each reporter's label from her own report.

    Parameters
    ----------
    omega : float or sequence of conditional tables
        Belief source per attribute (:func:`ldp.clldp.belief.belief_functions`).
    variant : {"A", "B"}
        See the module docstring; ``"A"`` forces ``k = 1``.
    k : int or str
        Heads for variant ``"B"``.
    """
    if variant not in ("A", "B"):
        raise ValueError(f"variant must be 'A' or 'B', got {variant!r}")
    eps = check_epsilon(epsilon)
    X, y, sizes = _check_users(X, y, sizes, m_label)
    fns = belief_functions(omega, len(sizes))
    gen = as_generator(rng)
    tables = collect_clldp_joints(
        X, y, sizes, m_label, eps, "khr", 1 if variant == "A" else k, fns, gen, keep_reports=True
    )
    log_prior, log_cond = nb_from_joints(tables.joints, m_label)
    guess = np.empty(y.size, dtype=np.int64)
    attacked = np.zeros(y.size, dtype=bool)
    for c, (rows, reports) in tables.reports.items():
        mech = tables.mechanisms[c]
        attr, lab = mech.decode_reports(reports)  # n_c x k each
        table = log_cond[c] if log_cond[c] is not None else np.zeros((m_label, sizes[c]))
        if variant == "A":
            scores = log_prior[None, :] + table[:, attr[:, 0]].T
        else:
            cond = np.exp(table)
            mass = np.zeros((rows.size, m_label))
            for j in range(reports.shape[1]):
                mass[np.arange(rows.size), lab[:, j]] += cond[lab[:, j], attr[:, j]]
            scores = log_prior[None, :] + np.log(np.maximum(1 + (mech.theta - 1) * mass, PROB_FLOOR))
        guess[rows] = np.argmax(scores, axis=1)
        attacked[rows] = True
    acc = float(np.mean(guess[attacked] == y[attacked]))
    return AttackResult(acc, _prior_only(log_prior, y[attacked]), int(attacked.sum()))
