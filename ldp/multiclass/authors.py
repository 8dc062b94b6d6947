"""Models of the authors' evaluation scripts behind the HEC and PTJ curves of Figs 6 and 10.

The RMSE curves of Fig. 6 of Mao et al. were computed by the scripts
``frequency estimation/HEC.py`` and ``frequency estimation/PTJ.py`` of the authors' public
repository (Abigail-MAO/Multi-class-Item-Mining, commit
8da35a445adcfe8986d708969680cbf2b667d5b9; bib key ``mao2025code``).  We read them and
model here, in our own code, what they compute; the PTS and PTS-CP scripts
(``PTS.py`` at commit 3ecb15924a297bad93179c5c1d0c3c71348add46, ``PTS-CP.py`` at the
commit above) calibrate as the paper says and need no model.

Both scripts cut the (already ordered) rows into one block of ``N // F`` consecutive rows
per feature (``F`` features); block ``f`` reports the pair (label, feature ``f``) and its
true pair counts are the truth the RMSE is taken against.  Our tables of
:func:`ldp.multiclass.datasets.feature_group_tables` play the role of these blocks.

**PTJ** (:func:`ptj_as_published_mse`).  The adaptive choice runs over the ``c·d`` joint
values.  In the GRR branch the counts are calibrated with the GRR ``p, q`` of the *item*
domain ``d`` instead of ``c·d`` (biased); the OUE branch is calibrated correctly.

**HEC** (:func:`hec_script_simulate`, :func:`hec_as_published_estimate`,
:func:`hec_as_published_moments`, :func:`hec_as_published_mse`).  Within a block of ``N``
users the script cuts ``c`` consecutive label groups of ``m = N // c`` users (the
``N mod c`` users left over report nothing but still count in the truth).  In group ``j`` a
user of class ``j`` keeps her value; anybody else gets the extra value ``d + 1`` (the
script numbers values from 1).  The oracle is GRR if ``d + 1 < 3e^ε + 2`` and OUE
otherwise.  Then:

* *GRR branch*: GRR over the ``d + 1`` values; the support count of item ``v`` is the
  number of reports equal to ``v``; it is calibrated with the GRR ``p, q`` of ``d``
  values (not ``d + 1``).
* *OUE branch*: a bit vector of length ``d + 1`` whose positions are numbered from 0,
  with the 1 of value ``v`` placed at position ``v``; the extra value ``d + 1`` has no
  position, so an invalid user's vector is all zeros before perturbation.  The count of
  item ``v`` is then read from position ``v - 1``: item 1 from position 0, which nobody
  holds, and item ``v >= 2`` from the bit of item ``v - 1``.  The scored row is shifted by
  one item.  Calibration uses OUE's ``p = 1/2`` and ``q = 1/(e^ε + 1)`` (correct).
* In both branches the calibrated estimate ``(count - m q)/(p - q)`` is multiplied by the
  number of features ``F`` (not by ``c``), and group ``j`` is scored on **all** ``c·d``
  cells of the block: the cells of the other classes, which it never collects, enter
  with the estimate ``F (0 - m q)/(p - q)``.  The RMSE pools ``c·c·d`` squared errors per
  feature.

What we do not model: the script cuts rows in file order; we treat each cut as a
uniformly random subset (which it is if the rows are in random order), so our moments
average over the cut.  In our notation items are numbered from 0, so the script's value
``v`` is our item ``v - 1``: in the OUE branch our item ``i >= 1`` is scored from the bit of
item ``i - 1`` and item 0 from an unheld bit.

**HEC top-k on SYN3/SYN4** (:func:`hec_topk_script_count_variance`,
:func:`hec_topk_script_counts`).  The HEC miner behind Fig. 10 is the script
``top-k item mining/SYN4/HEC.py`` (commit fb20ec9e5823a006db2439d5cf41643ef0146f6c); the one
behind Figs 7-9 is ``top-k item mining/code/HEC.py`` (commit
212c7d9ef6fabd26cdcbf95a20f741603d554c13).  Both run PEM on item suffixes within each
label group.  Users of other classes, and users whose suffix is no longer a candidate, are
invalid; each is added to a uniformly random slot among the candidates plus one extra slot,
and the extra slot is not perturbed.  The two scripts differ in the OUE step.  The one for
Figs 7-9 perturbs each user with her own uniform draws.  The one for Fig. 10 draws one
matrix of uniforms with a row per user, but reads, for the holders of *every* candidate, the
rows from the first one on: the ``n_b`` holders of candidate ``b`` use rows ``0 .. n_b - 1``.
A holder adds her uniform draw itself (mean 1/2 = ``p``) to her own candidate, and
``1[u < q]`` to every other candidate.  Row ``r`` of column ``j`` is therefore counted once for
each candidate ``b != j`` with ``n_b > r``: the same Bernoulli draw is repeated up to ``M - 1``
times, so the expected counts are right but their noise is far larger than OUE's.
:func:`hec_topk_as_scripted` runs our HEC miner (:func:`ldp.multiclass.topk.hec_topk`) with
this round step in place of OUE, to see what the script's HEC finds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import as_generator, check_domain_size, check_epsilon, check_int
from ..oracles import GRR, OUE, adaptive_oracle
from .frameworks import PTJ, Tallies, check_pairs, check_table
from .samplers import split_table
from .topk import M_EXT, TopKResult, _check, _hec

__all__ = [
    "hec_topk_script_count_variance",
    "hec_topk_script_counts",
    "oue_count_variance",
    "hec_topk_as_scripted",
    "ptj_as_published_estimate",
    "ptj_as_published_mse",
    "HECScriptTallies",
    "hec_script_branch",
    "hec_script_group_sizes",
    "hec_script_reports",
    "hec_script_simulate",
    "hec_as_published_estimate",
    "hec_as_published_moments",
    "hec_as_published_mse",
]


def _calibration_pq(oracle: Any, d_claimed: int) -> tuple[float, float]:
    """``p, q`` used by the script: GRR's for ``d_claimed`` values when the oracle is GRR, else the oracle's."""
    if isinstance(oracle, GRR):
        g = GRR(oracle.epsilon, max(2, d_claimed))
        return g.p, g.q
    return oracle.p, oracle.q


def ptj_as_published_estimate(framework: PTJ, tallies: Tallies) -> np.ndarray:
    """PTJ estimate calibrated as in the authors' script (GRR ``p, q`` of ``d`` instead of ``c·d``)."""
    p, q = _calibration_pq(framework.oracle, framework.d)
    return (tallies.pair - tallies.N * q) / (p - q)


def ptj_as_published_mse(table: Any, epsilon: float) -> np.ndarray:
    """Expected squared error of :func:`ptj_as_published_estimate` for every cell (variance + bias^2)."""
    tab = check_table(table).astype(float)
    c, d = tab.shape
    F = PTJ(epsilon, c, d)
    p_true, q_true = F.oracle.p, F.oracle.q
    p, q = _calibration_pq(F.oracle, d)
    N = tab.sum()
    mean = (tab * p_true + (N - tab) * q_true - N * q) / (p - q)
    var = (tab * p_true * (1 - p_true) + (N - tab) * q_true * (1 - q_true)) / (p - q) ** 2
    return var + (mean - tab) ** 2


# ---------------------------------------------------------------------------- HEC as in the authors' script
@dataclass(frozen=True)
class HECScriptTallies:
    """What the HEC script has counted in one block.

    ``scored[j, i]``: the count that the script attributes to item ``i`` of class ``j`` in
    label group ``j`` (already shifted in the OUE branch); ``m``: users per label group;
    ``N``: users in the block; ``branch``: ``"GRR"`` or ``"OUE"``.
    """

    branch: str
    scored: np.ndarray
    m: int
    N: int


def hec_script_branch(epsilon: float, d: int) -> str:
    """The script's adaptive choice over the ``d + 1`` values (items and the extra value): ``"GRR"`` or ``"OUE"``."""
    o = adaptive_oracle(check_epsilon(epsilon), check_domain_size(d, "d", minimum=1) + 1)
    return "GRR" if isinstance(o, GRR) else "OUE"


def hec_script_group_sizes(N: int, c: int) -> int:
    """Users per label group in the script: ``N // c`` (the ``N mod c`` left over report nothing)."""
    N = check_int(N, "N", minimum=0)
    c = check_domain_size(c, "c", minimum=2)
    if N < c:
        raise ValueError(f"N must be at least c={c} (one user per label group), got N={N}")
    return N // c


def _script_oracle(epsilon: float, d: int) -> tuple[str, float, float, float, float]:
    """``(branch, p, q, p_cal, q_cal)``: the oracle's true probabilities and the calibration's."""
    eps = check_epsilon(epsilon)
    branch = hec_script_branch(eps, d)
    if branch == "GRR":
        g, cal = GRR(eps, d + 1), GRR(eps, max(2, d))
        return branch, g.p, g.q, cal.p, cal.q
    o = OUE(eps, d + 1)
    return branch, o.p, o.q, o.p, o.q


def _scored_sources(table: np.ndarray, branch: str, shift_oue: bool = True) -> np.ndarray:
    """``src[j, i]``: users of class ``j`` whose own value lights the position scored as item ``i``."""
    if branch == "GRR" or not shift_oue:
        return table.astype(float)
    src = np.zeros(table.shape)
    src[:, 1:] = table[:, :-1]
    return src


def hec_script_reports(labels: Any, items: Any, c: int, d: int, epsilon: float, rng: Any = None) -> HECScriptTallies:
    """Per-user version of the script's HEC on one block, users taken **in the order given**.

    The users are cut into ``c`` consecutive groups of ``N // c`` (the rest report nothing);
    in group ``j`` every user perturbs her encoded value independently: GRR over ``d + 1``
    values (item or extra value ``d``, numbered from 0 here), or the script's bit vector of
    length ``d + 1`` (position ``i + 1`` for our item ``i``, no position for the extra value),
    of which position ``i`` is counted for item ``i``.  Shuffle the users first to model a
    random cut.  Vectorised over users; for checks of :func:`hec_script_simulate`.
    """
    lab, itm = check_pairs(labels, items, c, d)
    gen = as_generator(rng)
    branch, p, q, _, _ = _script_oracle(epsilon, d)
    N = lab.size
    m = hec_script_group_sizes(N, c)
    scored = np.zeros((c, d), dtype=np.int64)
    for j in range(c):
        sl = slice(j * m, (j + 1) * m)
        valid = lab[sl] == j
        if branch == "GRR":
            value = np.where(valid, itm[sl], d)
            reports = GRR(epsilon, d + 1).perturb(value, gen)
            scored[j] = np.bincount(reports, minlength=d + 1)[:d]
        else:
            position = np.where(valid, itm[sl] + 1, -1)  # -1: the extra value has no position
            own = position[:, None] == np.arange(d + 1)[None, :]
            bits = gen.random((m, d + 1)) < np.where(own, p, q)
            scored[j] = bits[:, :d].sum(axis=0)  # position i is read as item i
    return HECScriptTallies(branch=branch, scored=scored, m=m, N=N)


def hec_script_simulate(table: Any, epsilon: float, rng: Any = None) -> HECScriptTallies:
    """Count-level draw of :func:`hec_script_reports` on the users of ``table`` in a uniformly random order.

    Exact in distribution: a random order cut into blocks of ``m`` is a multivariate-
    hypergeometric split (:func:`ldp.multiclass.samplers.split_table`); within group ``j``
    the scored position ``i`` is set by ``Bin(src, p) + Bin(m - src, q)`` users, ``src`` being
    the group's users of class ``j`` whose value lights it (:func:`_scored_sources`).  In
    the GRR branch the counts of one group come from one GRR count draw over ``d + 1`` values.
    """
    tab = check_table(table)
    c, d = tab.shape
    gen = as_generator(rng)
    branch, p, q, _, _ = _script_oracle(epsilon, d)
    N = int(tab.sum())
    m = hec_script_group_sizes(N, c)
    parts = split_table(tab, [m] * c + [N - c * m], gen)
    scored = np.zeros((c, d), dtype=np.int64)
    for j in range(c):
        valid = parts[j][j]
        if branch == "GRR":
            scored[j] = GRR(epsilon, d + 1).simulate_counts(np.append(valid, m - valid.sum()), gen)[:d]
        else:
            src = np.concatenate([[0], valid[:-1]])
            scored[j] = gen.binomial(src, p) + gen.binomial(m - src, q)
    return HECScriptTallies(branch=branch, scored=scored, m=m, N=N)


def hec_as_published_estimate(tallies: HECScriptTallies, epsilon: float, n_features: int) -> np.ndarray:
    """The script's HEC estimates from its counts: shape ``(c, c, d)``, group ``j``'s estimate of every cell.

    ``out[j, j] = F (scored[j] - m q)/(p - q)`` with the script's calibration ``p, q``;
    ``out[j, C] = F (0 - m q)/(p - q)`` for the classes ``C != j`` that group ``j`` does not collect.
    """
    F = check_int(n_features, "n_features", minimum=1)
    c, d = tallies.scored.shape
    _, _, _, pc, qc = _script_oracle(epsilon, d)
    out = np.broadcast_to(F * (0.0 - tallies.m * qc) / (pc - qc), (c, c, d)).copy()
    for j in range(c):
        out[j, j] = F * (tallies.scored[j] - tallies.m * qc) / (pc - qc)
    return out


def hec_as_published_moments(
    table: Any, epsilon: float, n_features: int, *, shift_oue: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Exact mean and variance of :func:`hec_as_published_estimate`, shape ``(c, c, d)`` each.

    ``shift_oue=False`` gives the counterfactual script that reads item ``i`` from its own bit
    in the OUE branch (everything else unchanged), to measure what the shift contributes.

    The scored count of group ``j`` at item ``i`` is the support count of a uniformly random
    subset of ``m`` of the ``N`` users in which ``s = src[j, i]`` users light the position with
    probability ``p`` and everyone else with ``q``.  As for HEC with the dummy item
    (:func:`ldp.multiclass.variance.hec_variance`), its mean is ``m q + (p - q) m s/N`` and
    its variance ``(m/N)[s p(1-p) + (N-s) q(1-q)] + m(N-m)/(N-1) (p-q)^2 (s/N)(1 - s/N)``.
    The estimate is affine in the count; the other classes' cells are constants.
    """
    F = check_int(n_features, "n_features", minimum=1)
    tab = check_table(table)
    c, d = tab.shape
    branch, p, q, pc, qc = _script_oracle(epsilon, d)
    N = float(tab.sum())
    m = float(hec_script_group_sizes(int(N), c))
    src = _scored_sources(tab, branch, bool(shift_oue))
    mean_count = m * q + (p - q) * m * src / N
    between = m * (N - m) / (N - 1) * (p - q) ** 2 * (src / N) * (1 - src / N) if N > 1 else 0.0 * src
    var_count = (m / N) * (src * p * (1 - p) + (N - src) * q * (1 - q)) + between
    mean = np.broadcast_to(F * (0.0 - m * qc) / (pc - qc), (c, c, d)).copy()
    var = np.zeros((c, c, d))
    for j in range(c):
        mean[j, j] = F * (mean_count[j] - m * qc) / (pc - qc)
        var[j, j] = F**2 * var_count[j] / (pc - qc) ** 2
    return mean, var


def hec_as_published_mse(table: Any, epsilon: float, n_features: int, *, shift_oue: bool = True) -> np.ndarray:
    """Expected squared error, against the block's true table, of every estimate the script scores: ``(c, c, d)``.

    ``shift_oue``: see :func:`hec_as_published_moments`.
    """
    mean, var = hec_as_published_moments(table, epsilon, n_features, shift_oue=shift_oue)
    tab = check_table(table).astype(float)
    return var + (mean - tab[None]) ** 2


def _slot_counts(slot_counts: Any) -> np.ndarray:
    n = np.asarray(slot_counts)
    if (
        n.ndim != 1
        or n.size < 2
        or not np.issubdtype(n.dtype, np.number)
        or not np.all(np.isfinite(n))
        or np.any(n < 0)
        or np.any(n != np.round(n))
    ):
        raise ValueError(f"slot_counts must be a 1-D array of >= 2 non-negative whole counts, got {slot_counts!r}")
    return n.astype(np.int64)


def oue_count_variance(slot_counts: Any, epsilon: float) -> np.ndarray:
    """Variance of each candidate's support count under OUE with independent users (the correct protocol).

    ``slot_counts[j]`` users hold candidate ``j``; the count of ``j`` has variance
    ``n_j p(1 - p) + (sum of the others) q(1 - q)`` with ``p = 1/2``, ``q = 1/(e^ε + 1)``.
    """
    n = _slot_counts(slot_counts).astype(float)
    o = OUE(check_epsilon(epsilon), 2)
    return n * o.p * (1 - o.p) + (n.sum() - n) * o.q * (1 - o.q)


def hec_topk_script_count_variance(slot_counts: Any, epsilon: float) -> np.ndarray:
    """Exact variance of each candidate's count in the OUE step of the authors' SYN HEC script.

    Row ``r`` of column ``j`` contributes ``u·1[r < n_j] + m_r·1[u < q]`` with ``u`` uniform
    and ``m_r = #{b != j : n_b > r}`` (see the module docstring); rows are independent,
    so the variance is the sum over rows of that term's variance.  The expectation is
    that of OUE (``n_j/2 + q·sum_{b != j} n_b``); compare with :func:`oue_count_variance`.
    """
    n = _slot_counts(slot_counts)
    q = OUE(check_epsilon(epsilon), 2).q
    levels = np.sort(n)
    out = np.empty(n.size)
    for j, nj in enumerate(n):
        # m_r for every row r, from the sorted counts: #{b : n_b > r} minus candidate j itself
        r = np.arange(int(levels[-1]))
        m = (n.size - np.searchsorted(levels, r, side="right") - (nj > r)).astype(float)
        own = r < nj
        var_own = 1 / 3 + m * q * q + m * m * q - (0.5 + m * q) ** 2  # u + m·1[u < q]
        var_other = m * m * q * (1 - q)  # m·1[u < q]
        out[j] = float(np.where(own, var_own, var_other).sum())
    return out


def hec_topk_script_counts(slot_counts: Any, epsilon: float, rng: Any = None) -> np.ndarray:
    """One draw of the candidates' counts as the authors' SYN HEC script computes them (shared rows).

    A direct simulation of the OUE step described in the module docstring, for tests of
    :func:`hec_topk_script_count_variance`; ``O(max(n)·M)`` memory.
    """
    n = _slot_counts(slot_counts)
    q = OUE(check_epsilon(epsilon), 2).q
    u = as_generator(rng).random((int(n.max()), n.size))
    # candidate b's holders are rows 0..n_b-1: each adds 1[u < q] in every other column and u itself in column b
    # (cumulative sums over the rows give every candidate's share at once)
    held = n > 0
    below = np.cumsum(u < q, axis=0)[n[held] - 1]
    own = np.cumsum(u, axis=0)[n[held] - 1, np.flatnonzero(held)]
    counts = below.sum(axis=0).astype(float)
    counts[held] += own - below[np.arange(own.size), np.flatnonzero(held)]
    return counts


class _ScriptRound:
    """A round of PEM as the authors' SYN HEC script perturbs it (for :func:`_pem_stage`).

    Each invalid user goes to a uniformly random slot among the ``B`` candidates and one
    extra slot that is not perturbed; the candidates' counts then come from
    :func:`hec_topk_script_counts` (rows shared across candidates).
    """

    def __init__(self, epsilon: float, gen: np.random.Generator) -> None:
        self.epsilon, self.gen = epsilon, gen

    def counts(self, valid_counts: np.ndarray, n_users: int) -> np.ndarray:
        n_b = np.asarray(valid_counts, dtype=np.int64)
        spread = self.gen.multinomial(n_users - int(n_b.sum()), np.full(n_b.size + 1, 1.0 / (n_b.size + 1)))
        return hec_topk_script_counts(n_b + spread[:-1], self.epsilon, self.gen)


def hec_topk_as_scripted(
    table: Any, k: int, epsilon: float, rng: Any = None, *, m_ext: int = M_EXT, route: str = "counts"
) -> TopKResult:
    """HEC top-k as the authors' SYN HEC script computes it: our HEC miner with the script's round step.

    Users are split at random into ``c`` groups, group ``j`` mines class ``j`` by PEM on
    item suffixes (as :func:`ldp.multiclass.topk.hec_topk`, whose ``table``, ``m_ext`` and
    ``route`` it takes), but every round's counts are drawn as in :class:`_ScriptRound`.
    A model of the script, for the "model" rows of the claims table; not a correct HEC.
    """
    tab, k, eps, gen = _check(table, k, epsilon, rng, route)
    return _hec(tab, k, m_ext, _ScriptRound(eps, gen), route, gen)
