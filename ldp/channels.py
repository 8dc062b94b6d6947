"""Exact tools for any finite channel: per-user sampling, count-level sampling, inversion, variance.

A finite mechanism is its channel ``P`` (rows = inputs, columns = outputs,
row-stochastic).  Sampling works for any shape.  When inputs and outputs are
the same set (``K × K``, as for JuRR, CPRR, uRR and GRR), report counts ``c`` of
``N`` users satisfy

    E[c / N] = Pᵀ f,

so when ``P`` is invertible the *only* unbiased estimator that is linear in the
counts is

    f̂ = (Pᵀ)⁻¹ c / N                                               (channel inversion)

(JuRR, CPRR, uRR and GRR; Yin et al. 2023, Algorithms 2 and 4, are closed forms
of it).  With ``W = (Pᵀ)⁻¹`` and the users' inputs *fixed* (the dataset is
given; only the perturbation is random, the model of Yin et al. Sec. 6.2), the
report counts are a sum of independent multinomials, one per input cell, and

    Cov(f̂) = (W diag(Pᵀ f) Wᵀ − diag(f)) / N,
    Var(f̂) = ((W ∘ W) Pᵀ f − f) / N                               (∘: elementwise product)

because ``W Pᵀ = I``.  These formulas are the test oracles for the closed forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import as_generator, check_channel, check_codes, check_counts, check_distribution, check_int

__all__ = [
    "check_square_channel",
    "sample_channel",
    "simulate_channel_counts",
    "output_distribution",
    "inverse_estimate",
    "inverse_variance",
    "inverse_covariance",
    "check_frequencies",
]


def check_square_channel(P: Any, name: str = "P", atol: float = 1e-9) -> np.ndarray:
    """A square, finite, non-negative, row-stochastic float matrix (else ``ValueError``)."""
    arr = check_channel(P, atol=atol, name=name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {arr.shape}")
    return arr


def check_frequencies(f: Any, K: int, name: str = "f", atol: float = 1e-9) -> np.ndarray:
    """A length-``K`` probability vector (finite, non-negative, sums to 1); any shape with ``K`` entries."""
    return check_distribution(f, K, name, atol)


def sample_channel(P: np.ndarray, codes: Any, rng: Any = None) -> np.ndarray:
    """Per-user reports: user ``u`` with input ``codes[u]`` reports ``o`` with probability ``P[codes[u], o]``.

    Exact (one categorical draw per user), vectorised over users: the users are
    grouped by input and each group is drawn at once, so the cost is
    ``O(N + K M)`` for a ``K × M`` channel, with no ``N × M`` matrix.
    """
    P = check_channel(P, atol=1e-9)
    K, M = P.shape
    codes = check_codes(codes, K, "codes")
    gen = as_generator(rng)
    out = np.empty(codes.size, dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(K + 1))
    for v in range(K):
        lo, hi = bounds[v], bounds[v + 1]
        if hi > lo:
            out[order[lo:hi]] = gen.choice(M, size=hi - lo, p=P[v])
    return out


def simulate_channel_counts(P: np.ndarray, true_counts: Any, rng: Any = None) -> np.ndarray:
    """Report counts drawn exactly: ``Σ_v Multinomial(n_v, P[v])`` over inputs ``v`` (any ``K × M`` channel).

    Equal in distribution to :func:`sample_channel` followed by ``bincount``
    (the per-user draws of one input are i.i.d. categorical).
    """
    P = check_channel(P, atol=1e-9)
    K, M = P.shape
    counts = check_counts(true_counts, K, "true_counts")
    gen = as_generator(rng)
    out = np.zeros(M, dtype=np.int64)
    for v in np.flatnonzero(counts):
        out += gen.multinomial(int(counts[v]), P[v] / P[v].sum())
    return out


def output_distribution(P: np.ndarray, f: Any) -> np.ndarray:
    """``Pᵀ f``: the distribution of one report when inputs have distribution ``f``."""
    P = check_channel(P, atol=1e-9)
    return P.T @ check_frequencies(f, P.shape[0])


def inverse_estimate(P: np.ndarray, report_freq: Any) -> np.ndarray:
    """``solve(Pᵀ, report_freq)``: the channel-inversion estimate from report frequencies ``c / N``.

    ``report_freq`` must be a distribution over the ``K`` outputs (sums to 1 within 1e-9); a channel that is
    not invertible (singular, or too ill-conditioned for double precision) is refused with a ``ValueError``.
    """
    P = check_square_channel(P)
    freq = check_distribution(report_freq, P.shape[0], "report_freq")
    return _inverted(np.linalg.solve, P.T, freq)


def _inverted(op: Any, *args: np.ndarray) -> np.ndarray:
    """``op(*args)`` (``np.linalg.solve`` or ``inv`` on the transposed channel), a ValueError naming ``P`` when
    the channel is singular (numpy's ``LinAlgError``) or its inverse overflows."""
    try:
        out = op(*args)
    except np.linalg.LinAlgError:
        out = None
    if out is None or not np.all(np.isfinite(out)):
        raise ValueError(
            "P is singular: its inverse, and so the channel-inversion estimate, does not exist in double precision"
        )
    return out


def inverse_covariance(P: np.ndarray, f: Any, n: int) -> np.ndarray:
    """Exact covariance of the channel-inversion estimate, ``(W diag(Pᵀf) Wᵀ − diag(f)) / n``."""
    P = check_square_channel(P)
    f = check_frequencies(f, P.shape[0])
    n = check_int(n, "n", minimum=1)
    W = _inverted(np.linalg.inv, P.T)
    lam = P.T @ f
    return ((W * lam) @ W.T - np.diag(f)) / n


def inverse_variance(P: np.ndarray, f: Any, n: int) -> np.ndarray:
    """Exact per-cell variance of the channel-inversion estimate, ``((W∘W) Pᵀ f − f) / n``."""
    P = check_square_channel(P)
    f = check_frequencies(f, P.shape[0])
    n = check_int(n, "n", minimum=1)
    W = _inverted(np.linalg.inv, P.T)
    return ((W * W) @ (P.T @ f) - f) / n
