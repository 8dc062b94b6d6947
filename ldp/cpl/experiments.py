"""Experiment drivers behind the CPL experiments notebook (Jayawardana et al., Sections III, V; Appendices K-N).

Each function runs one of the paper's experiments on an encoded dataset and
returns a tidy :class:`pandas.DataFrame` (or a dict of CPL matrices), so the
notebook cells stay short.  Conventions: CPL matrices have ``L[k, j] =
L_{X_j → X_k}`` (rows = primary attribute); statistical estimates use the exact
count-level path of :mod:`ldp.cpl.statistical` unless stated otherwise.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._checks import as_generator, check_int
from . import attacks as at
from . import benchmark as bm
from . import calibration as cal
from . import statistical as st
from . import tcpl as tc
from .datasets import APPK_JOINT, sample_joint
from .dependence import nmi_joint, pcc_from_table
from .theory import appendix_k_closed_form, conditional, cpl_grr

__all__ = [
    "table_iii",
    "neighbour_cpl",
    "cpl_matrices",
    "pairwise_dependence",
    "benchmark_points",
    "utility_trial",
    "calibration_curve",
]


def table_iii(n: int, r: int, epsilons: Sequence[float], rng: Any = None) -> pd.DataFrame:
    """Appendix K / Table III: sample ``n`` records from Eq. (28), expand ``r`` times, GRR, both directions.

    Record-level (the real mechanism on every expanded row).  Returns, per ε, the
    statistical estimates, the exact theory on Eq. (28), and the GRR formula on
    the *sample's* empirical joint (which is what the paper's "theoretical"
    column matches).
    """
    gen = as_generator(rng)
    codes = sample_joint(APPK_JOINT, n, gen)
    J = np.bincount(codes[:, 0] * 4 + codes[:, 1], minlength=16).reshape(4, 4)
    rows = []
    for eps in epsilons:
        inferred = st.perturb_infer(codes, [4, 4], "GRR", eps, r=r, rng=gen)
        L = st.statistical_cpl_matrix(codes, inferred, [4, 4], r=r)
        fwd, rev = appendix_k_closed_form(eps)
        rows.append(dict(epsilon=eps, stat_fwd=L[0, 1], stat_rev=L[1, 0], theory_fwd=fwd, theory_rev=rev,
                         sample_fwd=cpl_grr(conditional(J), eps),
                         sample_rev=cpl_grr(conditional(J, given="columns"), eps)))
    return pd.DataFrame(rows)


def neighbour_cpl(codes: Any, sizes: Any, primary: int, neighbours: Sequence[int], mechanisms: Sequence[str],
                  epsilon: float, r: int, rng: Any = None) -> pd.DataFrame:
    """Fig. 4(a): record-level statistical CPL of one primary attribute from several neighbours.

    Also reports the infinite-sample limit (two-level formula at ``ε_eff``, ideal
    hash for local hashing) and the surrogate p-value (count level, exact).
    """
    gen = as_generator(rng)
    codes = np.asarray(codes)
    sizes = np.asarray(sizes)
    x = np.tile(codes[:, primary].astype(np.int64), r)
    tables = tc.pair_tables(codes, sizes)
    rows = []
    for mech in mechanisms:
        inferred = st.perturb_infer(codes, sizes, mech, epsilon, r=r, rng=gen, columns=list(neighbours))
        rule = tc.cpl_function(f"limit:{mech}")
        for i, j in enumerate(neighbours):
            table = st.contingency(x, inferred[:, i].astype(np.int64), int(sizes[primary]), int(sizes[j]))
            rows.append(dict(mechanism=mech, neighbour=j, statistical=st.cpl_from_counts(table),
                             limit=rule(conditional(tables[primary, j]), epsilon)))
    return pd.DataFrame(rows)


def cpl_matrices(codes: Any, sizes: Any, epsilon: float, *, mechanisms: Sequence[str] = at.PAPER_MECHANISMS,
                 r: int = 50, rng: Any = None, min_count: float = 0,
                 references: Sequence[str] = ("alg2", "grr", "exp")) -> dict[str, np.ndarray]:
    """All ordered-pair CPL matrices of one dataset at one ε.

    Keys: the theoretical ``references`` (``"alg2"``, ``"grr"`` = Algorithm 1 for
    GRR, ``"exp"``) and ``"stat:<MECH>"`` for the count-level statistical
    estimate of every mechanism (``r`` copies).  Primary values with fewer than
    ``min_count`` records are left out of both (our choice; the paper does not say).
    """
    gen = as_generator(rng)
    sizes = np.asarray(sizes)
    tables = tc.pair_tables(codes, sizes)
    n = sizes.size
    out = {ref: tc.cpl_matrix(tables, n, ref, epsilon, min_count=min_count) for ref in references}
    for mech in mechanisms:
        out[f"stat:{mech}"] = st.statistical_cpl_matrix_fast(tables, n, at.channel_factory(mech, epsilon), r, gen,
                                                             min_count=min_count * r)
    return out


def pairwise_dependence(codes: Any, sizes: Any) -> dict[str, np.ndarray]:
    """NMI (``I/H(X,Y)``) and ``|PCC|`` of label codes for every pair (symmetric matrices, NaN diagonal)."""
    sizes = np.asarray(sizes)
    tables = tc.pair_tables(codes, sizes)
    n = sizes.size
    nmi = np.full((n, n), np.nan)
    pcc = np.full((n, n), np.nan)
    for (k, j), t in tables.items():
        nmi[k, j] = nmi_joint(t)
        pcc[k, j] = abs(pcc_from_table(t))
    return {"nmi": nmi, "abs_pcc": pcc}


def benchmark_points(reference: np.ndarray, estimates: dict[str, np.ndarray], epsilon: float) -> pd.DataFrame:
    """Fig. 6: (undershoot, overshoot, region) of every method against one reference matrix."""
    rows = []
    for name, L in estimates.items():
        x, y = bm.under_over(reference, L, epsilon)
        rows.append(dict(method=name, epsilon=epsilon, undershoot=x, overshoot=y, region=bm.region(x, y)))
    return pd.DataFrame(rows)


def utility_trial(mechanism: str, epsilon: float, rng: Any, *, codes: Any, sizes: Any) -> dict[str, float]:
    """Fig. 7 utility side, one trial: perturb one copy of the data with every attribute's oracle.

    Returns the pooled frequency NMSE of Eq. (23) (raw unbiased estimates, no
    post-processing; EXP uses its unbiased GRR(ε/2) estimator, where the authors'
    code used raw counts) and the normalised 0-1 error of Eq. (24) of the
    attack-inferred values, averaged over attributes.
    """
    gen = as_generator(rng)
    codes = np.asarray(codes)
    sizes = np.asarray(sizes)
    N = codes.shape[0]
    ests, truths = [], []
    inferred = np.empty(codes.shape, dtype=np.int64)
    for j, d in enumerate(sizes):
        x = codes[:, j].astype(np.int64)
        truths.append(np.bincount(x, minlength=int(d)) / N)
        if d < 2:
            ests.append(truths[-1])
            inferred[:, j] = x
            continue
        oracle = at.make_oracle(mechanism, epsilon, int(d))
        reports = oracle.perturb(x, gen)
        ests.append(oracle.estimate(reports))
        inferred[:, j] = at.infer(oracle, reports, gen)
    return dict(freq_nmse=tc.freq_nmse(ests, truths), zero_one=tc.zero_one_error(codes, inferred))


def calibration_curve(truth: Sequence[Sequence[Any]], public: Sequence[Sequence[Any]] | None,
                      eps_bars: Sequence[float], *, method: str = "alg2", step: float = 0.01) -> pd.DataFrame:
    """Fig. 8(a): SPL, calibrated with the true conditionals, and calibrated with public ones.

    ``max_tpl_truth_public`` re-evaluates the public-data budget on the *true*
    conditionals: above ``ε̄`` means the public calibration over-spends.
    """
    n = check_int(len(truth), "n", minimum=1)
    rows = []
    for eb in eps_bars:
        g = cal.calibrate_budget(truth, eb, method=method, step=step)
        row = dict(eps_bar=eb, spl=eb / n, calibrated=g.epsilon, max_tpl=g.max_tpl)
        if public is not None:
            p = cal.calibrate_budget(public, eb, method=method, step=step)
            row.update(calibrated_public=p.epsilon,
                       max_tpl_truth_public=float(cal.tpl_profile(truth, p.epsilon, method).max()))
        rows.append(row)
    return pd.DataFrame(rows)
