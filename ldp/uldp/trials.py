"""Trial functions for :func:`ldp.sweep.sweep` and the exact error curves of Yin et al.'s Figs. 3-7.

Every accuracy trial simulates the reports *at count level* — one multinomial
per input cell of the true count table, which has exactly the distribution of
perturbing every user (:meth:`ChannelMechanism.simulate_counts`) — then
estimates the joint distribution and scores it.  The timing trial instead runs
the per-user protocol (perturb every user, count the reports, estimate), which
is what the paper's Fig. 7 times.

Mechanism names are the paper's: ``"JuRR"``, ``"CPRR"``, ``"TDRR"``, ``"JD_GRR"``.
Below JuRR's minimum ε a trial returns NaN errors with ``defined=False``
instead of raising, so a sweep over the paper's ε grid can mark those points.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_generator, check_epsilon, check_int
from .baselines import TDRR, JointGRR, TDRRUnbiased
from .cprr import CPRR
from .datasets import JointTable, load_table
from .joint import JointMechanism
from .jurr import JuRR, jurr_is_defined
from .metrics import ed, euclidean, expected_ed
from .model import ULDPModel2D

__all__ = [
    "MECHANISMS",
    "PAPER_EPSILONS",
    "make_mechanism",
    "is_defined",
    "analytic_ed",
    "analytic_curves",
    "error_trial",
    "timing_trial",
    "disclosure_probability",
]

#: the four mechanisms of the paper's figures (plus the unbiased TDRR ablation, not in the paper)
MECHANISMS: dict[str, type[JointMechanism]] = {
    "JuRR": JuRR,
    "CPRR": CPRR,
    "TDRR": TDRR,
    "JD_GRR": JointGRR,
    "TDRR-Kron": TDRRUnbiased,
}
#: "7 values between 0.5 and 6" (Sec. 7.4.1); the exact grid is not given; this one is our choice
PAPER_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)


def _check_name(mechanism: str) -> type[JointMechanism]:
    if mechanism not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {list(MECHANISMS)}, got {mechanism!r}")
    return MECHANISMS[mechanism]


def is_defined(mechanism: str, epsilon: float, model: ULDPModel2D) -> bool:
    """False only for JuRR at or below its minimum ε (on a model with (N,N) cells)."""
    cls = _check_name(mechanism)
    return jurr_is_defined(epsilon, model) if cls is JuRR else bool(check_epsilon(epsilon))


def make_mechanism(mechanism: str, epsilon: float, model: ULDPModel2D) -> JointMechanism:
    """Instantiate a mechanism by its paper name."""
    return _check_name(mechanism)(epsilon, model)


def analytic_ed(mechanism: str, epsilon: float, table: JointTable) -> float:
    """Exact ``sqrt(E[ED²])`` (Eq. (59)) for the table's users; NaN where JuRR is undefined."""
    if not is_defined(mechanism, epsilon, table.model):
        return math.nan
    return expected_ed(make_mechanism(mechanism, epsilon, table.model), table.frequencies, table.n)


def analytic_curves(
    table: JointTable, epsilons: Any, mechanisms: Any = ("JuRR", "CPRR", "TDRR", "JD_GRR")
) -> pd.DataFrame:
    """Exact ``sqrt(E[ED²])`` on a grid: columns ``mechanism``, ``epsilon``, ``expected`` (NaN if undefined)."""
    rows = [
        dict(mechanism=m, epsilon=float(e), expected=analytic_ed(m, float(e), table))
        for m in mechanisms
        for e in np.asarray(epsilons, dtype=float).ravel()
    ]
    return pd.DataFrame(rows)


def error_trial(
    setting: str,
    mechanism: str,
    epsilon: float,
    rng: Any = None,
    subsample: int | None = None,
    score_classes: str = "tertile",
) -> dict[str, Any]:
    """One repetition: (optionally) a random subsample of ``n`` users, perturbation, estimation, error.

    Parameters
    ----------
    setting : str
        A key of :data:`ldp.uldp.datasets.SETTINGS`.
    mechanism : str
        ``"JuRR"``, ``"CPRR"``, ``"TDRR"``, ``"JD_GRR"`` or ``"TDRR-Kron"``.
    epsilon : float
    rng : Generator, int or None
    subsample : int, optional
        Subsample size (uniform without replacement, drawn with ``rng``); the
        error is measured against the subsample's own joint distribution.
    score_classes : {"tertile", "equal-width"}

    Returns
    -------
    dict
        ``ed`` (Eq. (59)), ``euclid`` (un-normalised), ``expected_ed`` (exact
        ``sqrt(E[ED²])`` for these users), ``n_users``, ``defined``.
    """
    gen = as_generator(rng)
    table = load_table(setting, score_classes)
    if subsample is not None:
        table = table.subsample(check_int(subsample, "subsample", minimum=1), gen)
    if not is_defined(mechanism, epsilon, table.model):
        return dict(ed=math.nan, euclid=math.nan, expected_ed=math.nan, n_users=table.n, defined=False)
    mech = make_mechanism(mechanism, epsilon, table.model)
    f = table.frequencies
    est = mech.estimate_counts(mech.simulate_counts(table.counts, gen))
    return dict(
        ed=ed(f, est),
        euclid=euclidean(f, est),
        expected_ed=expected_ed(mech, f, table.n),
        n_users=table.n,
        defined=True,
    )


def timing_trial(
    setting: str, mechanism: str, epsilon: float, rng: Any = None, score_classes: str = "tertile"
) -> dict[str, Any]:
    """Wall-clock seconds of the per-user protocol: build, perturb all users, count, estimate.

    The users are the setting's whole table (12,960 for nursery, 1,000 for score).
    Returns NaN (``defined=False``) where JuRR is undefined.
    """
    gen = as_generator(rng)
    table = load_table(setting, score_classes)
    if not is_defined(mechanism, epsilon, table.model):
        return dict(seconds=math.nan, n_users=table.n, defined=False)
    x, y = table.users()
    start = time.perf_counter()
    mech = make_mechanism(mechanism, epsilon, table.model)
    est = mech.estimate(mech.perturb(x, y, gen))
    seconds = time.perf_counter() - start
    if not np.isfinite(est).all():  # pragma: no cover - a guard, never expected
        raise RuntimeError("non-finite estimate in timing_trial")
    return dict(seconds=seconds, n_users=table.n, defined=True)


def disclosure_probability(mechanism: str, epsilon: float, model: ULDPModel2D) -> dict[str, float]:
    """Probability that a user's report reveals one coordinate exactly, by input region.

    A report *reveals* ``y`` when every input that could have produced it has the
    same ``y`` (and symmetrically for ``x``).  For JuRR a (S,N) user's report
    reveals ``y`` whenever it lands outside ``X_S×Y_S`` (probability
    ``(e^ε − 1)/D``); CPRR never reveals a coordinate of an input in ``S``.
    Computed from the channel, so it applies to any mechanism.
    """
    mech = make_mechanism(mechanism, epsilon, model)
    P = mech.channel()
    xs_of, ys_of = model.cells.decode(np.arange(model.n_cells))
    reveals_x = np.zeros(model.n_cells, dtype=bool)
    reveals_y = np.zeros(model.n_cells, dtype=bool)
    for o in range(model.n_cells):
        src = np.flatnonzero(P[:, o] > 0)
        if src.size:
            reveals_x[o] = np.unique(xs_of[src]).size == 1
            reveals_y[o] = np.unique(ys_of[src]).size == 1
    out = {}
    grid = model.region_grid().ravel()
    for region in ("PP", "PI", "IP", "II"):
        rows = np.flatnonzero(grid == region)
        if rows.size:
            out[f"{region}: reveals x"] = float(P[np.ix_(rows, np.flatnonzero(reveals_x))].sum(axis=1).mean())
            out[f"{region}: reveals y"] = float(P[np.ix_(rows, np.flatnonzero(reveals_y))].sum(axis=1).mean())
    return out
