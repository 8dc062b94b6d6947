"""The five approaches to correlated data side by side, on one task and one ruler.

The comparison chapter asks the same two questions of every mechanism in the book:

* **utility** — how well does the collector recover the joint distribution of a
  pair of correlated attributes ``(L, A)`` (a label and an attribute) at a given
  nominal budget ε?  Every mechanism is run through its exact channel
  ``T[(l, a), y] = P(y | l, a)`` (report counts drawn exactly in distribution,
  :func:`simulate_reports`) and decoded with the same
  estimator, IBU (:func:`ldp.estimate.ibu`, the maximum-likelihood joint), so
  that differences come from the channels and not from the decoders;
* **leakage** — how much does one report reveal about each secret, counting the
  correlation?  Algorithm 1 of Jayawardana et al. (:func:`ldp.cpl.cpl_alg1`)
  is applied to the composed channel ``secret → (l, a) → y`` for three secrets:
  the label ``L`` (what CLLDP protects), the attribute ``A``, and a *hidden*
  attribute ``H`` that is never reported but is correlated with both (pure
  correlation-induced leakage).

Rows of every channel are ordered label-major, ``l·d + a`` (the convention of
:mod:`ldp.clldp`, :mod:`ldp.multiclass` and, with ``x = L``, :mod:`ldp.uldp`).

Nothing here re-implements a mechanism: each candidate is built from its
chapter's package (:data:`MECHANISMS`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._checks import as_generator, check_epsilon, check_int
from .audit import channel_epsilon, check_channel
from .channels import simulate_channel_counts
from .estimate import ibu
from .exceptions import ConvergenceWarning
from .metrics import total_variation

__all__ = [
    "IBU_MAX_ITER",
    "IBU_TOL",
    "Approach",
    "APPROACHES",
    "approaches_frame",
    "PairTask",
    "pair_task",
    "Candidate",
    "MECHANISMS",
    "mechanism_names",
    "PANELS",
    "leakage_value",
    "style",
    "build_channel",
    "is_defined",
    "SECRETS",
    "leakage_profile",
    "leakage_table",
    "simulate_reports",
    "joint_error",
    "utility_trial",
]


# ---------------------------------------------------------------------------- the approaches
@dataclass(frozen=True)
class Approach:
    """What one chapter's approach protects and what it assumes about correlation."""

    key: str  #: short key, also the chapter's claims key
    chapter: str  #: notebook number
    paper: str  #: bibliography key in book/references.bib
    protects: str  #: the secret the guarantee is about
    adversary: str  #: what the adversary is assumed to know
    correlation: str  #: how correlation enters the mechanism
    budget: str  #: what the nominal ε bounds
    data_needed: str  #: what the designer must know about the data in advance
    mechanisms: tuple[str, ...] = field(default=())  #: candidates of :data:`MECHANISMS` from this chapter


APPROACHES: tuple[Approach, ...] = (
    Approach(
        key="clldp",
        chapter="01",
        paper="xue2025labeldp",
        protects="the label of a record, given that its attributes are released too",
        adversary="knows Pr{attribute | label} (the belief ω summarises it)",
        correlation="modelled: ω, the largest conditional mass k cells can name, sets the flip probability",
        budget="ε bounds the label's leakage through the whole (attribute, label) report (CLLDP)",
        data_needed="an upper bound on ω (estimated from a sample of users)",
        mechanisms=("basic solution", "kHR"),
    ),
    Approach(
        key="lopub",
        chapter="02",
        paper="ren2018lopub",
        protects="every attribute of a record (record-level LDP by composition)",
        adversary="any; correlation is not part of the guarantee",
        correlation="exploited for utility only: the server learns it (EM joints, dependency graph)",
        budget="ε is split over the attributes; each gets a Bloom filter with 2h·ln((2-f)/f)",
        data_needed="nothing (filter length and hash count are public choices)",
        mechanisms=("LoPub (h=1)", "LoPub (h=2)"),
    ),
    Approach(
        key="multiclass",
        chapter="03",
        paper="mao2025multiclass",
        protects="the (class, item) pair of a user",
        adversary="any; the pair is protected as a whole",
        correlation="exploited for utility: the item report is invalidated when the class flipped (CP)",
        budget="ε = ε1 + ε2 over the label and the item (sequential composition)",
        data_needed="nothing",
        mechanisms=("HEC", "PTJ", "PTS", "PTS-CP"),
    ),
    Approach(
        key="cpl",
        chapter="04",
        paper="jayawardana2025hidden",
        protects="each attribute, counting what the other attributes' reports reveal about it",
        adversary="knows the joint distribution of the attributes",
        correlation="measured: Algorithm 1/2 turn P(X̂ | X_k) into leakage; the budget is calibrated to it",
        budget="ε bounds each attribute's total leakage (its own ε* plus the CPL from the others)",
        data_needed="the pairwise conditional tables (or a public proxy of them)",
        mechanisms=("GRR ⊗ GRR (ε/2 each)", "GRR ⊗ GRR (CPL-calibrated)"),
    ),
    Approach(
        key="uldp",
        chapter="05",
        paper="yin2023uldp",
        protects="only the sensitive values of each attribute; non-sensitive values may be revealed",
        adversary="any, but only sensitive inputs are indistinguishable",
        correlation="ignored: the two attributes are perturbed jointly on the product domain",
        budget="ε bounds the ratio between sensitive inputs (ULDP), not the pair as a whole",
        data_needed="which values are sensitive",
        mechanisms=("CPRR", "JuRR"),
    ),
)


def approaches_frame() -> pd.DataFrame:
    """The approaches as a table (one row per chapter), for display."""
    frame = pd.DataFrame([asdict(a) for a in APPROACHES]).rename(columns={"key": "approach", "data_needed": "needs"})
    frame["mechanisms"] = frame["mechanisms"].map(", ".join)
    columns = ["approach", "protects", "adversary", "correlation", "budget", "needs", "mechanisms"]
    return frame.set_index("chapter")[columns]


# ---------------------------------------------------------------------------- the common task
@dataclass(frozen=True)
class PairTask:
    """A label ``L``, an attribute ``A`` and a hidden attribute ``H`` from one table.

    ``cube[h, l, a]`` counts the records with ``H = h``, ``L = l``, ``A = a``.
    """

    label: str
    attribute: str
    hidden: str
    label_values: tuple[Any, ...]
    attribute_values: tuple[Any, ...]
    hidden_values: tuple[Any, ...]
    cube: np.ndarray = field(repr=False)

    @property
    def c(self) -> int:
        """Number of label values."""
        return self.cube.shape[1]

    @property
    def d(self) -> int:
        """Number of attribute values."""
        return self.cube.shape[2]

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.cube.sum())

    @property
    def joint_counts(self) -> np.ndarray:
        """``c x d`` counts of ``(L, A)``."""
        return self.cube.sum(axis=0)

    @property
    def joint(self) -> np.ndarray:
        """``c x d`` joint distribution of ``(L, A)``."""
        return self.joint_counts / self.n

    def conditional(self, secret: str) -> np.ndarray:
        """``P(pair cell | secret)``: rows = values of the secret, columns = cells ``l·d + a``.

        ``secret`` is ``"label"``, ``"attribute"`` or ``"hidden"``.  This is the
        table ``P`` of Algorithm 1 with ``X_k`` the secret and ``X̂`` the reported pair.
        Secret values that no record has are dropped (their conditional is undefined).
        """
        c, d = self.c, self.d
        J = self.joint_counts.astype(float)
        if secret == "label":
            P = np.zeros((c, c * d))
            for l in range(c):
                P[l, l * d : (l + 1) * d] = J[l]
        elif secret == "attribute":
            P = np.zeros((d, c * d))
            for a in range(d):
                P[a, a::d] = J[:, a]
        elif secret == "hidden":
            P = self.cube.reshape(self.cube.shape[0], c * d).astype(float)
        else:
            raise ValueError(f"secret must be one of {SECRETS}, got {secret!r}")
        P = P[P.sum(axis=1) > 0]
        return P / P.sum(axis=1, keepdims=True)

    def conditional_attribute_given_label(self) -> np.ndarray:
        """``Pr{a | l}`` (rows = labels): the table CLLDP's ω is computed from."""
        J = self.joint_counts.astype(float)
        return J / J.sum(axis=1, keepdims=True)


SECRETS = ("label", "attribute", "hidden")


def pair_task(
    frame: pd.DataFrame, label: str = "income", attribute: str = "relationship", hidden: str = "sex"
) -> PairTask:
    """Count ``(hidden, label, attribute)`` in ``frame`` (rows with a missing value are dropped).

    Parameters
    ----------
    frame : pandas.DataFrame
        E.g. ``ldp.data.load("adult")``.
    label, attribute, hidden : str
        Three distinct categorical columns.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    names = (hidden, label, attribute)
    if len(set(names)) != 3:
        raise ValueError(f"label, attribute and hidden must be three different columns, got {names}")
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the frame (columns: {list(frame.columns)})")
    sub = frame[list(names)].dropna()
    codes, values = [], []
    for col in names:
        cat = sub[col].astype("category")
        cat = cat.cat.remove_unused_categories()
        if len(cat.cat.categories) < 2:
            raise ValueError(f"column {col!r} needs at least 2 values, got {list(cat.cat.categories)}")
        codes.append(cat.cat.codes.to_numpy())
        values.append(tuple(cat.cat.categories))
    cube = np.zeros(tuple(len(v) for v in values), dtype=np.int64)
    np.add.at(cube, tuple(codes), 1)
    return PairTask(label, attribute, hidden, values[1], values[2], values[0], cube)


# ---------------------------------------------------------------------------- the candidates
@dataclass(frozen=True)
class Candidate:
    """A candidate: its approach, how its channel is built, and where it is defined."""

    name: str
    approach: str
    build: Callable[..., np.ndarray] = field(repr=False)
    min_epsilon: Callable[[PairTask, dict[str, Any]], float] = field(repr=False, default=lambda task, o: 0.0)
    note: str = ""


def _grr_pair(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .oracles import make

    return make("GRR", eps, task.c * task.d).channel()


def _basic(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .clldp import BasicSolution

    return BasicSolution(eps, m_attr=task.d, m_label=task.c).channel()


def _khr(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .clldp import KHR, omega, select_k

    cond = task.conditional_attribute_given_label()
    k = select_k(eps, task.c * task.d, cond)
    return KHR(eps, omega(cond, k), k, m_attr=task.d, m_label=task.c).channel()


def _lopub(task: PairTask, eps: float, *, lopub_h: int = 1, lopub_m: int = 8, **_: Any) -> np.ndarray:
    from .lopub import LoPubEncoder
    from .oracles.bloom import f_from_epsilon

    # record budget eps split evenly over the two attributes (composition; erratum E3 of the errata register)
    enc = LoPubEncoder([task.c, task.d], f=f_from_epsilon(eps / 2, lopub_h), m=lopub_m, h=lopub_h, sizing="optimal")
    T_label, T_attr = (o.channel() for o in enc.oracles)
    return np.kron(T_label, T_attr)


def _hec(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .multiclass import HEC

    fw = HEC(eps, task.c, task.d)
    # the collector assigns each user to one of c groups uniformly; the group is part of the report
    return np.hstack([fw.channel(g) / task.c for g in range(task.c)])


def _ptj(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .multiclass import PTJ

    return PTJ(eps, task.c, task.d).channel()


def _pts(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .multiclass import PTS

    return PTS(eps, task.c, task.d).channel()


def _pts_cp(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    from .multiclass import CP

    return CP(eps, task.c, task.d).channel()


def _grr_product(task: PairTask, e_label: float, e_attr: float) -> np.ndarray:
    from .oracles import make

    return np.kron(make("GRR", e_label, task.c).channel(), make("GRR", e_attr, task.d).channel())


def _split(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    return _grr_product(task, eps / 2, eps / 2)


def calibrated_budget(task: PairTask, eps: float) -> float:
    """Per-attribute budget of the CPL chapter's calibration (Alg. 3, fixed) for ``(L, A)`` released by GRR.

    The largest ``ε*`` with ``ε* + CPL_{other→self}(ε*) <= ε`` for both attributes,
    the CPL computed exactly for GRR (Algorithm 1 = :func:`ldp.cpl.cpl_grr`).
    """
    from .cpl.calibration import calibrate_budget

    J = task.joint_counts.astype(float)
    a_given_l = J / J.sum(axis=1, keepdims=True)
    l_given_a = (J / J.sum(axis=0, keepdims=True)).T
    return calibrate_budget([[None, a_given_l], [l_given_a, None]], eps, method="grr").epsilon


def _calibrated(task: PairTask, eps: float, **_: Any) -> np.ndarray:
    e = calibrated_budget(task, eps)
    return _grr_product(task, e, e)


def _uldp_model(task: PairTask, options: dict[str, Any]):
    from .uldp import ULDPModel2D

    default_attr = tuple(range(max(0, task.d - 3), task.d - 1))
    return ULDPModel2D.from_sizes(
        task.c,
        task.d,
        x_sensitive=options.get("label_sensitive", (task.c - 1,)),
        y_sensitive=options.get("attribute_sensitive", default_attr),
    )


def _cprr(task: PairTask, eps: float, **options: Any) -> np.ndarray:
    from .uldp import CPRR

    return CPRR(eps, _uldp_model(task, options)).channel()


def _jurr(task: PairTask, eps: float, **options: Any) -> np.ndarray:
    from .uldp import JuRR

    return JuRR(eps, _uldp_model(task, options)).channel()


def _jurr_min(task: PairTask, options: dict[str, Any]) -> float:
    from .uldp import jurr_min_epsilon

    m = _uldp_model(task, options)
    return jurr_min_epsilon(len(m.x.sensitive), len(m.y.sensitive))


MECHANISMS: dict[str, Candidate] = {
    m.name: m
    for m in (
        Candidate("GRR (pair)", "baseline", _grr_pair, note="GRR on the c·d product domain: ε-LDP for the pair"),
        Candidate(
            "basic solution", "clldp", _basic, note="the CLLDP paper's Theorem 1: SUE on the product domain, ω = 1"
        ),
        Candidate(
            "kHR", "clldp", _khr, note="k by Eq. (8) of the CLLDP paper, ω = ω(k) computed from the true Pr{a | l}"
        ),
        Candidate(
            "LoPub (h=1)",
            "lopub",
            lambda task, eps, **o: _lopub(task, eps, **{**o, "lopub_h": 1}),
            note="ε/2 per attribute, one hash: each value owns a bit (symmetric unary encoding)",
        ),
        Candidate(
            "LoPub (h=2)",
            "lopub",
            lambda task, eps, **o: _lopub(task, eps, **{**o, "lopub_h": 2}),
            note="ε/2 per attribute by Eq. (8) of the LoPub paper, two hashes, "
            "filter length ⌈h|Ω|/ln 2⌉ capped at 8 bits",
        ),
        Candidate("HEC", "multiclass", _hec, note="users split into c groups; group in the report"),
        Candidate("PTJ", "multiclass", _ptj, note="adaptive oracle on the joint domain"),
        Candidate("PTS", "multiclass", _pts, note="GRR(ε/2) on the label, OUE(ε/2) on the item"),
        Candidate("PTS-CP", "multiclass", _pts_cp, note="correlated perturbation: item invalid if the label flipped"),
        Candidate("GRR ⊗ GRR (ε/2 each)", "cpl", _split, note="sequential composition, the CPL chapter's baseline"),
        Candidate(
            "GRR ⊗ GRR (CPL-calibrated)",
            "cpl",
            _calibrated,
            note="ε* = the largest budget with ε* + CPL <= ε for both attributes",
        ),
        Candidate("CPRR", "uldp", _cprr, note="uRR on the product domain; sensitive: one label, two attribute values"),
        Candidate("JuRR", "uldp", _jurr, _jurr_min, note="defined only for ε >= ln(1 + √(|X_S||Y_S|))"),
    )
}


_APPROACH_COLOURS = {"baseline": 8, "clldp": 7, "lopub": 3, "multiclass": 2, "cpl": 4, "uldp": 0}  # PALETTE indices
_WITHIN = (("o", "-"), ("s", "--"), ("^", "-."), ("D", ":"))


#: Small multiples of the comparison's figures: (panel title, mechanisms), at most three mechanisms per panel.
PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("baseline and ULDP", ("GRR (pair)", "CPRR", "JuRR")),
    ("CLLDP", ("basic solution", "kHR")),
    ("LoPub", ("LoPub (h=1)", "LoPub (h=2)")),
    ("multi-class: HEC, PTJ", ("HEC", "PTJ")),
    ("multi-class: PTS", ("PTS", "PTS-CP")),
    ("CPL calibration", ("GRR ⊗ GRR (ε/2 each)", "GRR ⊗ GRR (CPL-calibrated)")),
)


def style(name: str) -> dict[str, str]:
    """Plot style of a candidate: one colour per approach (``ldp.plotting.PALETTE``), marker and line within it.

    The comparison draws a dozen mechanisms on one axis; colouring by approach keeps the five families
    readable where the per-method styles of :func:`ldp.plotting.style_for` would repeat colours.
    """
    from .plotting import PALETTE

    mech = _mechanism(name)
    siblings = [m.name for m in MECHANISMS.values() if m.approach == mech.approach]
    marker, linestyle = _WITHIN[siblings.index(name) % len(_WITHIN)]
    return dict(color=PALETTE[_APPROACH_COLOURS[mech.approach]], marker=marker, linestyle=linestyle)


def mechanism_names() -> list[str]:
    """Names of :data:`MECHANISMS` in display order."""
    return list(MECHANISMS)


def _mechanism(name: str) -> Candidate:
    if name not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {mechanism_names()}, got {name!r}")
    return MECHANISMS[name]


def is_defined(name: str, task: PairTask, epsilon: float, **options: Any) -> bool:
    """Whether mechanism ``name`` exists at budget ``epsilon`` (JuRR has a minimum ε)."""
    eps = check_epsilon(epsilon)
    return eps >= _mechanism(name).min_epsilon(task, options)


def build_channel(name: str, task: PairTask, epsilon: float, **options: Any) -> np.ndarray:
    """The channel ``P(y | l, a)`` of mechanism ``name`` at nominal budget ``epsilon``.

    Rows are the ``c·d`` cells ``l·d + a``; options: ``lopub_m`` (filter-length cap, default 8),
    ``label_sensitive`` and ``attribute_sensitive`` (ULDP sensitive codes; an illustrative default: the
    last label, and the second- and third-to-last attribute codes, i.e. ">50K" and "Own-child",
    "Unmarried" for income × relationship on Adult).

    Raises
    ------
    ValueError
        Unknown mechanism, bad ε, or a mechanism not defined at this ε (JuRR).
    """
    mech = _mechanism(name)
    eps = check_epsilon(epsilon)
    if not isinstance(task, PairTask):
        raise TypeError(f"task must be a PairTask, got {type(task).__name__}")
    lo = mech.min_epsilon(task, options)
    if eps < lo:
        raise ValueError(f"{name} is not defined at epsilon={eps!r}: it needs epsilon >= {lo:.4f}")
    return check_channel(mech.build(task, eps, **options), atol=1e-9, name=f"channel of {name}")


# ---------------------------------------------------------------------------- leakage
def leakage_profile(task: PairTask, channel: Any) -> dict[str, float]:
    """Exact leakage of one report about each secret (Algorithm 1 of Jayawardana et al.).

    Returns ``pair`` (the channel's own LDP level, :func:`ldp.audit.channel_epsilon`)
    and one entry per secret of :data:`SECRETS`: ``ln max_y max_{s≠s'} (P T)[s, y]/(P T)[s', y]``
    with ``P = task.conditional(secret)`` (:func:`ldp.cpl.cpl_alg1`).  ``inf`` when a
    report rules a secret value out.
    """
    from .cpl import cpl_alg1

    T = check_channel(channel, atol=1e-9, name="channel")
    if T.shape[0] != task.c * task.d:
        raise ValueError(f"channel must have c·d = {task.c * task.d} rows, got {T.shape[0]}")
    out = {"pair": float(channel_epsilon(T))}
    for s in SECRETS:
        out[s] = float(cpl_alg1(task.conditional(s), T))
    return out


def leakage_table(
    task: PairTask, epsilons: Sequence[float], names: Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """Leakage profiles of every mechanism at every ε (undefined points are skipped).

    Columns: ``epsilon, mechanism, approach, pair, label, attribute, hidden``.
    """
    names = mechanism_names() if names is None else list(names)
    rows = []
    for eps in epsilons:
        for name in names:
            if not is_defined(name, task, eps, **options):
                continue
            T = build_channel(name, task, eps, **options)
            rows.append(
                dict(
                    epsilon=float(eps),
                    mechanism=name,
                    approach=MECHANISMS[name].approach,
                    outputs=T.shape[1],
                    **leakage_profile(task, T),
                )
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- utility


def leakage_value(leak: pd.DataFrame, mechanism: str, secret: str, epsilon: float) -> float:
    """One entry of :func:`leakage_table`: the ``secret`` column (or ``"pair"``) of ``mechanism`` at ``epsilon``."""
    sel = leak[(leak.epsilon == epsilon) & (leak.mechanism == mechanism)]
    if sel.empty or secret not in leak.columns:
        raise ValueError(f"no entry for mechanism={mechanism!r}, secret={secret!r}, epsilon={epsilon!r} in the table")
    return float(sel[secret].iloc[0])


def simulate_reports(channel: Any, true_counts: Any, rng: Any = None) -> np.ndarray:
    """Report counts of any finite channel, exact in distribution: ``Σ_x Multinomial(n_x, T[x])``.

    Parameters
    ----------
    channel : array_like, shape (k, n_outputs)
        Row-stochastic ``T[x, y] = P(y | x)``; it need not be square.
    true_counts : array_like of int, shape (k,)
        Number of users holding each input.
    """
    T = check_channel(channel, atol=1e-9, name="channel")
    return simulate_channel_counts(T, true_counts, rng)


IBU_MAX_ITER = 3000
"""Cap on the IBU (EM) iterations of :func:`joint_error` (the same for every mechanism)."""
IBU_TOL = 1e-9
"""IBU stops earlier when the L1 change of the estimate falls below this."""


def joint_error(
    task: PairTask,
    channel: Any,
    rng: Any = None,
    *,
    n: int | None = None,
    max_iter: int = IBU_MAX_ITER,
    tol: float = IBU_TOL,
) -> float:
    """Total-variation error of the IBU joint estimate from one exact draw of the report counts.

    ``n`` users are drawn from the task's joint (default: the records themselves,
    ``n = task.n``, no resampling); report counts are
    ``Σ_cells Multinomial(n_cell, T[cell])`` (:func:`simulate_reports`),
    and the joint is the IBU (EM) estimate on the same channel, stopped after ``max_iter``
    iterations or when the L1 change falls below ``tol``.  At small ε IBU converges slowly and the
    default cap of :data:`IBU_MAX_ITER` iterations stops it early, a mild regularisation shared by every
    mechanism.
    """
    T = check_channel(channel, atol=1e-9, name="channel")
    if T.shape[0] != task.c * task.d:
        raise ValueError(f"channel must have c·d = {task.c * task.d} rows, got {T.shape[0]}")
    gen = as_generator(rng)
    truth = task.joint.ravel()
    if n is None:
        counts = task.joint_counts.ravel()
    else:
        counts = gen.multinomial(check_int(n, "n", minimum=1), truth)
    reports = simulate_reports(T, counts, gen)
    T, reports = _merge_equal_outputs(T, reports)
    with warnings.catch_warnings():
        # stopping at max_iter is the documented early-stopping regularisation here, not a failure
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = ibu(T, reports, max_iter=max_iter, tol=tol)
    return float(total_variation(est, truth))


def _merge_equal_outputs(channel: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The channel with each group of outputs of equal columns merged into one output, and the merged counts.

    Outputs whose columns ``P(y | ·)`` are equal enter IBU only through their total count: a step adds
    ``n_y P(y | x) / (πP)_y`` over the outputs, the same ratio for all of them, and one output whose column is
    the group's sum (the probability of landing in the group) with the group's total count adds the same.  So
    IBU on the merged channel has the same iterates up to rounding.  LoPub's channels repeat many columns
    (12 × 16,384 → about 4,500 distinct for two hashes on income × relationship); a channel without repeats is
    returned as it is.
    """
    columns, inverse = np.unique(channel.T, axis=0, return_inverse=True)
    if columns.shape[0] == channel.shape[1]:
        return channel, counts
    inverse = inverse.ravel()
    size = np.bincount(inverse, minlength=columns.shape[0])
    merged = np.bincount(inverse, weights=counts, minlength=columns.shape[0])
    return np.ascontiguousarray(columns.T * size), merged


def utility_trial(
    mechanism: str, epsilon: float, *, task: PairTask, n: int | None = None, rng: Any = None, **options: Any
) -> dict[str, Any]:
    """One trial for :func:`ldp.sweep.sweep`: ``{"tv": ..., "defined": ...}``.

    Undefined points (JuRR below its minimum ε) return ``tv = nan`` and ``defined = False``.
    """
    if not is_defined(mechanism, task, epsilon, **options):
        return {"tv": math.nan, "defined": False, "approach": MECHANISMS[mechanism].approach}
    T = build_channel(mechanism, task, epsilon, **options)
    return {"tv": joint_error(task, T, rng, n=n), "defined": True, "approach": MECHANISMS[mechanism].approach}
