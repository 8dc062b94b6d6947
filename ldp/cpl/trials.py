"""Experiment drivers behind the CPL experiments notebook (Jayawardana et al., Sections III, V; Appendices K-N).

Each function runs one of the paper's experiments on an encoded dataset and
returns a tidy :class:`pandas.DataFrame` (or a dict of CPL matrices), so the
notebook cells stay short.  Conventions: CPL matrices have ``L[k, j] =
L_{X_j → X_k}`` (rows = primary attribute); statistical estimates use the exact
count-level path of :mod:`ldp.cpl.statistical` unless stated otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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
from .paper import R_EXPANSION
from .theory import appendix_k_closed_form, conditional, cpl_alg1, cpl_alg2, cpl_grr, tpl_exact

__all__ = [
    "table_iii",
    "table_iii_standard_errors",
    "table_iii_replicates",
    "replicate_cpl",
    "replicate_summary",
    "table_runs",
    "nmse_runs",
    "cvd_attribute_sets",
    "cpl_se_matrix",
    "nmse_standard_error",
    "empirical_cpl_se",
    "fig4b_sweep",
    "binned_mean_sd",
    "grr_zero_one",
    "cross_paper_khr",
    "cross_paper_bloom",
    "cross_paper_uldp",
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
        rows.append(
            dict(
                epsilon=eps,
                stat_fwd=L[0, 1],
                stat_rev=L[1, 0],
                theory_fwd=fwd,
                theory_rev=rev,
                sample_fwd=cpl_grr(conditional(J), eps),
                sample_rev=cpl_grr(conditional(J, given="columns"), eps),
            )
        )
    return pd.DataFrame(rows)


def neighbour_cpl(
    codes: Any,
    sizes: Any,
    primary: int,
    neighbours: Sequence[int],
    mechanisms: Sequence[str],
    epsilon: float,
    r: int,
    rng: Any = None,
) -> pd.DataFrame:
    """Fig. 4(a): record-level statistical CPL of one primary attribute from several neighbours.

    Also reports the infinite-sample limit (two-level formula at ``ε_eff``, ideal
    hash for local hashing) and the delta-method standard error of each estimate
    (:func:`empirical_cpl_se`).
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
            rows.append(
                dict(
                    mechanism=mech,
                    neighbour=j,
                    statistical=st.cpl_from_counts(table),
                    se=empirical_cpl_se(table),
                    limit=rule(conditional(tables[primary, j]), epsilon),
                )
            )
    return pd.DataFrame(rows)


def cpl_matrices(
    codes: Any,
    sizes: Any,
    epsilon: float,
    *,
    mechanisms: Sequence[str] = at.PAPER_MECHANISMS,
    r: int = R_EXPANSION,
    rng: Any = None,
    min_count: float = 0,
    references: Sequence[str] = ("alg2", "grr", "exp"),
) -> dict[str, np.ndarray]:
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
        out[f"stat:{mech}"] = st.statistical_cpl_matrix_fast(
            tables, n, at.channel_factory(mech, epsilon), r, gen, min_count=min_count * r
        )
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
    return dict(freq_nmse=tc.freq_nmse(ests, truths), zero_one=tc.zero_one_error(inferred, codes))


def calibration_curve(
    truth: Sequence[Sequence[Any]],
    public: Sequence[Sequence[Any]] | None,
    eps_bars: Sequence[float],
    *,
    method: str = "alg2",
    step: float = 0.01,
) -> pd.DataFrame:
    """Fig. 8(a): SPL, calibrated with the true conditionals, and calibrated with public ones.

    ``max_tpl_truth_public`` re-evaluates the public-data budget on the *true*
    conditionals: above ``ε̄`` means the public calibration over-spends.
    """
    n = check_int(len(truth), "n", minimum=1)
    tpl_truth = cal.TPLFunction(truth, method)
    tpl_public = None if public is None else cal.TPLFunction(public, method)
    rows = []
    for eb in eps_bars:
        g = cal.calibrate_budget(tpl_truth, eb, step=step)
        row = dict(eps_bar=eb, spl=eb / n, calibrated=g.epsilon, max_tpl=g.max_tpl)
        if tpl_public is not None:
            p = cal.calibrate_budget(tpl_public, eb, step=step)
            row.update(calibrated_public=p.epsilon, max_tpl_truth_public=float(tpl_truth(p.epsilon).max()))
        rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- standard errors
def empirical_cpl_se(counts: Any) -> float:
    """Delta-method standard error of the stage-3 estimate on a contingency table ``counts[x, w]``.

    :func:`ldp.cpl.statistical.cpl_standard_error` evaluated at the table's own
    conditional ``P̂(w | x)`` and row counts (rows without records are left out).
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("counts must be a 2-D table of non-negative counts")
    rows = c.sum(axis=1)
    keep = rows > 0
    if keep.sum() < 2:
        raise ValueError("counts needs at least two rows with records")
    return st.cpl_standard_error(c[keep] / rows[keep, None], rows[keep])


def table_iii_replicates(
    n: int, r: int, epsilons: Sequence[float], *, trials: int = 200, rng: Any = None
) -> pd.DataFrame:
    """Replicates of the whole Table III experiment at count level: one row per (ε, replicate).

    Each replicate draws the ``n`` records' joint table from Eq. (28) (multinomial),
    perturbs its ``r`` copies exactly with GRR followed by its attack
    (``simulate_pair_table``, equal in distribution to perturbing every expanded
    record) and applies the stage-3 estimator in both directions (``stat_fwd``,
    ``stat_rev``); ``sample_rev`` is the GRR formula for ``L(X_k→X̂)`` on the
    replicate's own empirical joint.  The spread over replicates is the run-to-run
    noise of one run of the paper's experiment (sample, perturbation, and the maximum
    over near-tied candidate ratios).
    """
    n = check_int(n, "n", minimum=1)
    r = check_int(r, "r", minimum=1)
    trials = check_int(trials, "trials", minimum=2)
    gen = as_generator(rng)
    samples = gen.multinomial(n, APPK_JOINT.ravel(), size=trials).reshape(trials, 4, 4)
    rows = []
    for eps in epsilons:
        K = at.two_level_channel(at.attack_accuracy(at.make_oracle("GRR", float(eps), 4)), 4)
        for i, J in enumerate(samples):
            rows.append(
                {
                    "epsilon": float(eps),
                    "replicate": i,
                    "stat_fwd": st.cpl_from_counts(st.simulate_pair_table(J, K, r, gen)),
                    "stat_rev": st.cpl_from_counts(st.simulate_pair_table(J.T, K, r, gen)),
                    "sample_rev": cpl_grr(conditional(J, given="columns"), float(eps)),
                }
            )
    return pd.DataFrame(rows)


def table_iii_standard_errors(
    n: int, r: int, epsilons: Sequence[float], *, n_boot: int = 200, rng: Any = None
) -> pd.DataFrame:
    """Standard deviations over :func:`table_iii_replicates` (``se_fwd``, ``se_rev``): the noise of one run."""
    reps = table_iii_replicates(n, r, epsilons, trials=n_boot, rng=rng)
    sd = reps.groupby("epsilon")[["stat_fwd", "stat_rev"]].std(ddof=1)
    return sd.rename(columns={"stat_fwd": "se_fwd", "stat_rev": "se_rev"}).reset_index()


def replicate_cpl(
    tables: dict[tuple[int, int], np.ndarray],
    n: int,
    mechanisms: Sequence[str],
    epsilon: float,
    r: int,
    trials: int,
    rng: Any = None,
    *,
    min_count: float = 0,
) -> dict[str, np.ndarray]:
    """``trials`` independent count-level runs of the statistical CPL matrix: mechanism -> ``(trials, n, n)``.

    Each run perturbs the ``r`` copies of the data afresh (the unit that varies
    between runs of the paper's estimator on a fixed dataset); primary values with
    fewer than ``min_count`` records are left out.
    """
    trials = check_int(trials, "trials", minimum=1)
    gen = as_generator(rng)
    out = {}
    for m in mechanisms:
        channel = at.channel_factory(m, epsilon)  # memoised per alphabet size, shared by the replicates
        out[m] = np.stack(
            [st.statistical_cpl_matrix_fast(tables, n, channel, r, gen, min_count=min_count * r) for _ in range(trials)]
        )
    return out


def replicate_summary(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the mean over the first axis (replicates), ``ddof=1``."""
    v = np.asarray(values, dtype=float)
    if v.ndim < 1 or v.shape[0] < 2:
        raise ValueError(f"values needs at least two replicates along its first axis, got shape {v.shape}")
    return v.mean(axis=0), v.std(axis=0, ddof=1) / math.sqrt(v.shape[0])


def table_runs(
    tables: dict[tuple[int, int], np.ndarray],
    n: int,
    epsilon: float,
    *,
    mechanisms: Sequence[str],
    r: int,
    trials: int,
    rng: Any = None,
    min_count: float = 0,
    references: Sequence[str] = ("alg2", "grr", "exp"),
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Tables I-II: the reference CPL matrices and ``trials`` runs of each mechanism's statistical matrix.

    Returns ``(references, runs)``: ``references[name]`` an ``(n, n)`` matrix
    (:func:`ldp.cpl.tcpl.cpl_matrix`), ``runs[mechanism]`` a ``(trials, n, n)`` stack
    (:func:`replicate_cpl`); primary values with fewer than ``min_count`` records are
    left out of both.
    """
    refs = {ref: tc.cpl_matrix(tables, n, ref, epsilon, min_count=min_count) for ref in references}
    return refs, replicate_cpl(tables, n, mechanisms, epsilon, r, trials, rng, min_count=min_count)


def nmse_runs(runs: Any, reference: Any) -> np.ndarray:
    """NMSE-CPL (Eq. (29)) of every run in a ``(trials, n, n)`` stack against one reference matrix."""
    return np.array([st.nmse_cpl(M, reference) for M in np.asarray(runs)])


def cvd_attribute_sets(columns: Sequence[str], named: Sequence[str], core: Sequence[str], extra: Sequence[str]):
    """Plausible 7-attribute CVD sets: ``core`` (the categorical reading), then each with one unnamed attribute swapped.

    ``named`` attributes (those the paper names, e.g. cardio and cholesterol) are
    never swapped out; each attribute of ``extra`` (binned numeric attributes) is
    swapped in for each unnamed attribute of ``core``.  Returns ``{label: list}``.
    """
    missing = (set(core) | set(extra) | set(named)) - set(columns)
    if missing:
        raise ValueError(f"columns lack {sorted(missing)}")
    sets = {"the seven categorical attributes": list(core)}
    for out in (c for c in core if c not in named):
        for new in extra:
            sets[f"{new} instead of {out}"] = [new if c == out else c for c in core]
    return sets


def cpl_se_matrix(
    tables: dict[tuple[int, int], np.ndarray], n: int, channel_for: Any, r: int, *, min_count: float = 0
) -> np.ndarray:
    """Delta-method standard error of the count-level statistical CPL of every ordered pair (diagonal NaN).

    For the pair ``(k, j)``: :func:`ldp.cpl.statistical.cpl_standard_error` at the
    population channel ``P(X_j | X_k) K`` with ``r`` times the records of each
    primary value; primary values with fewer than ``min_count`` records are left
    out, as in :func:`cpl_matrices`.  Entries where no leakage can be estimated
    (fewer than two primary or neighbour values) are 0.
    """
    r = check_int(r, "r", minimum=1)
    se = np.full((n, n), np.nan)
    for (k, j), table in tables.items():
        t = np.asarray(table, dtype=float)
        rows = t.sum(axis=1)
        keep = rows >= max(min_count, 1)
        P = t[keep] / rows[keep, None]
        if P.shape[0] < 2 or np.count_nonzero(P.sum(axis=0)) < 2:
            se[k, j] = 0.0
            continue
        M = P @ channel_for(t.shape[1])
        se[k, j] = st.cpl_standard_error(M, r * rows[keep])
    return se


def nmse_standard_error(stat: Any, reference: Any, se: Any) -> float:
    """Delta-method standard error of NMSE-CPL (Eq. (29)) given the s.e. of each statistical entry.

    ``NMSE = Σ (L̃ - L*)² / Σ L*²`` over the ordered pairs; its derivative in
    ``L̃_ij`` is ``2 (L̃_ij - L*_ij) / Σ L*²``, so the s.e. is
    ``sqrt(Σ (2 (L̃ - L*) se)²) / Σ L*²`` (independent entries).
    """
    L, ref, s = (tc.off_diagonal(a) for a in (stat, reference, se))
    denom = float(np.sum(ref**2))
    if denom <= 0:
        raise ValueError("reference must have a non-zero entry")
    return float(np.sqrt(np.sum((2 * (L - ref) * s) ** 2)) / denom)


# ----------------------------------------------------------------------------- Fig. 4(b)
def fig4b_sweep(
    codes: Any, sizes: Any, primary: int, neighbours: dict[str, int], epsilons: Sequence[float], r: int, rng: Any = None
) -> pd.DataFrame:
    """Fig. 4(b): CPL of ``primary`` from each binary neighbour, and its total leakage, against ε (GRR).

    Per ε: ``stat <label>`` (count-level statistical CPL, ``r`` copies) with its
    delta-method ``se <label>``, ``theory <label>`` (Algorithm 1 on the data's
    joint); ``L stat`` (statistical total leakage on the joint release of the
    primary's own report and all neighbours, Eq. (5)), ``L bound`` (``ε + Σ stat``,
    the composition bound of Eq. (6)) and ``L exact`` (the exact total leakage of
    the composed channel).
    """
    gen = as_generator(rng)
    codes = np.asarray(codes)
    sizes = np.asarray(sizes)
    tables = tc.pair_tables(codes, sizes)
    cols = list(neighbours.values())
    Pz = conditional(tc.tuple_table(codes, sizes, primary, cols))
    rows = []
    for eps in epsilons:
        K = at.two_level_channel(at.attack_accuracy(at.make_oracle("GRR", float(eps), 2)), 2)
        row = {"epsilon": float(eps)}
        for label, j in neighbours.items():
            table = st.simulate_pair_table(tables[primary, j], K, r, gen)
            row[f"stat {label}"] = st.cpl_from_counts(table)
            row[f"se {label}"] = empirical_cpl_se(table)
            row[f"theory {label}"] = cpl_grr(conditional(tables[primary, j]), eps)
        joint = st.simulate_joint_table(codes, sizes, primary, [primary] + cols, [K] * (len(cols) + 1), r, gen)
        row["L stat"] = st.cpl_from_counts(joint)
        row["L bound"] = eps + sum(row[f"stat {label}"] for label in neighbours)
        row["L exact"] = tpl_exact(Pz, [K] * len(cols), K)
        rows.append(row)
    return pd.DataFrame(rows)


def binned_mean_sd(x: Any, y: Any, bins: Any) -> pd.DataFrame:
    """Fig. 5: mean and standard deviation of ``y`` within bins of ``x`` (empty bins left out).

    Returns columns ``lo``, ``hi``, ``centre``, ``count``, ``mean``, ``sd`` and
    ``spread`` (max - min of ``y`` in the bin).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    edges = np.asarray(bins, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D arrays of one length, got shapes {x.shape} and {y.shape}")
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("bins must be at least two increasing edges")
    idx = np.clip(np.digitize(x, edges) - 1, 0, edges.size - 2)
    frame = pd.DataFrame({"bin": idx, "y": y})
    g = frame.groupby("bin").y
    out = pd.DataFrame({"count": g.size(), "mean": g.mean(), "sd": g.std(ddof=0), "spread": g.max() - g.min()})
    out.insert(0, "lo", edges[out.index])
    out.insert(1, "hi", edges[out.index + 1])
    out.insert(2, "centre", (out.lo + out.hi) / 2)
    return out.reset_index(drop=True)


def grr_zero_one(codes: Any, epsilon: float, rng: Any = None) -> float:
    """Fig. 8(b): normalised 0-1 error (Eq. (24)) of binary ``codes`` perturbed with GRR at ``epsilon`` each.

    Drawn at count level: binary GRR reports the other value with probability ``1/(1 + e^ε)``,
    independently for every record and attribute, so the number of wrong records of one attribute
    is ``Bin(N, 1/(1 + e^ε))`` and the error (the mean over attributes of that number over ``N``)
    has the law it has when every record is perturbed.
    """
    gen = as_generator(rng)
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.size == 0 or not np.issubdtype(codes.dtype, np.integer):
        raise ValueError(f"codes must be a non-empty 2-D integer array (records x attributes), got {codes.shape}")
    if codes.min() < 0 or codes.max() > 1:
        raise ValueError("codes must be binary (0 or 1): the 0-1 error of Fig. 8(b) is for binary attributes")
    grr = at.make_oracle("GRR", epsilon, 2)
    n, attributes = codes.shape
    return float(np.mean(gen.binomial(n, 1.0 - grr.p, size=attributes) / n))


# ----------------------------------------------------------------------------- cross-paper
def cross_paper_khr(
    codes: Any, sizes: Any, *, secret: int, label: int, attribute: int, epsilon: float = 1.0
) -> pd.DataFrame:
    """Algorithm 1 on kHR's channel (the CLLDP chapter) for the pair (``attribute``, ``label``).

    For each k in {1, 2, the k chosen by kHR's rule}: the LDP level ln θ of the
    joint report, the exact label leakage (the CLLDP chapter's privacy leakage),
    the CPL of ``secret`` (a third attribute) through the report, and the
    Algorithm-2 bound at ε and at ln θ.
    """
    from ..clldp import KHR, omega, privacy_leakage, select_k

    tables = tc.pair_tables(codes, sizes)
    F = conditional(tables[label, attribute])
    P = conditional(tc.tuple_table(codes, sizes, secret, [label, attribute]))
    rows = []
    for k in sorted({1, 2, select_k(epsilon, F.size, F)}):
        khr = KHR(epsilon, omega(F, k), k, F.shape[1], F.shape[0])
        T = khr.channel()
        rows.append(
            {
                "k": k,
                "ldp_level": khr.ldp_epsilon,
                "label_leakage": math.log(privacy_leakage(T, F)),
                "cpl_secret": cpl_alg1(P, T),
                "bound_eps": cpl_alg2(P, epsilon).leakage,
                "bound_ldp_level": cpl_alg2(P, khr.ldp_epsilon).leakage,
            }
        )
    return pd.DataFrame(rows)


def cross_paper_bloom(
    codes: Any,
    sizes: Any,
    *,
    secret: int,
    reported: int,
    epsilon: float = 1.0,
    shapes: Sequence[tuple[int, int]] = ((8, 2), (12, 2)),
) -> pd.DataFrame:
    """Algorithm 1 on a Bloom-filter RAPPOR report (the LoPub chapter) of ``reported``: the CPL of ``secret``.

    One row per filter shape ``(m, h)``: the exact LDP level of the report, the
    CPL of ``secret`` and the Algorithm-2 bound at ε.
    """
    from ..oracles import BloomRAPPOR

    sizes = np.asarray(sizes)
    P = conditional(tc.pair_tables(codes, sizes)[secret, reported])
    rows = []
    for m, h in shapes:
        br = BloomRAPPOR(epsilon=epsilon, d=int(sizes[reported]), m=m, h=h)
        rows.append(
            {
                "m": m,
                "h": h,
                "ldp_level": br.exact_epsilon,
                "cpl_secret": cpl_alg1(P, br.channel()),
                "bound_eps": cpl_alg2(P, epsilon).leakage,
            }
        )
    return pd.DataFrame(rows)


def cross_paper_uldp(
    nursery: pd.DataFrame,
    *,
    targets: Sequence[str] = ("health", "finance", "has_nurs"),
    epsilons: Sequence[float] = (1.5, 3.0),
) -> pd.DataFrame:
    """Algorithm 1 on JuRR, CPRR and joint GRR (the ULDP chapter) releasing nursery's (parents, class).

    Sensitive values: parents usual and pretentious, classes not_recom and
    recommend.  One row per (target, ε): the CPL of the target attribute through
    each mechanism's report and the Algorithm-2 bound.
    """
    from ..uldp import CPRR, JointGRR, JuRR, ULDPModel2D
    from ..uldp.datasets import CATEGORY_ORDERS, NURSERY_CLASS

    px = pd.Categorical(nursery["parents"], categories=CATEGORY_ORDERS[("nursery", "parents")]).codes
    cy = pd.Categorical(nursery["classification"], categories=NURSERY_CLASS).codes
    model = ULDPModel2D.from_sizes(3, 5, [0, 1], [0, 1])
    rows = []
    for target in targets:
        h = pd.Categorical(nursery[target]).codes.astype(np.int64)
        m = int(h.max()) + 1
        P = conditional(np.bincount(h * 15 + px * 5 + cy, minlength=m * 15).reshape(m, 15))
        for eps in epsilons:
            row = {"target": target, "epsilon": eps, "bound": cpl_alg2(P, eps).leakage}
            for name, mech in (
                ("JuRR", JuRR(eps, model)),
                ("CPRR", CPRR(eps, model)),
                ("joint GRR", JointGRR(eps, model)),
            ):
                row[name] = cpl_alg1(P, mech.channel())
            rows.append(row)
    return pd.DataFrame(rows)
