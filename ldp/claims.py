"""Claims tables: the paper's claim, its value, ours, and a verdict computed under one policy.

Every experiments notebook ends with one :class:`ClaimsTable`::

    from ldp.claims import ClaimsTable, agrees_within, equivalent, ordered, read_off, printed, readings

    table = ClaimsTable("lopub")
    table.add("EM AVD at k=2, eps=1", paper=0.08, ours=avd_em,
              rule=agrees_within(0.02, our_se=se_em, trials=20),
              source=read_off("Fig. 6a", precision=0.02),
              reason_if_differs=f"EM stops early at large f: {gap:.3f} above the paper", tried="20 samples")
    table.add("Lasso's error does not change with f", paper="flat", ours=change, source=printed("Sec. 6.2"),
              rule=equivalent(0.02, our_se=se_change, trials=40), tried="40 combinations")
    table.add("OUE beats GRR for d > 3e^eps+2", paper="OUE < GRR", ours=err_grr - err_oue,
              rule=ordered(our_se=se_gap, trials=30), source=printed("Sec. 4.2"), tried="30 paired trials")
    table.add("TPC-E running time", paper=12.3, ours=None, rule=not_reproducible("TPC-E is not public"),
              source=printed("Table 5"), tried="no public copy of TPC-E was found")
    table.glue()
    table.show()

The policy (written out for readers on the book page ``book/verdict-policy.md``)
---------------------------------------------------------------------------------
A rule gives one of three outcomes, and the outcome and the basis give the verdict, one of four words that are
never typed by hand:

``"reproduced"``
    the rule holds on the paper's data (or data generated exactly as the paper
    says, ``basis="paper data"``, the default);
``"differs"``
    the rule fails on the paper's data beyond the noise; ``reason_if_differs`` must
    give the computed reason;
``"not reproducible"``
    the claim cannot be tested (:func:`not_reproducible`), a Monte Carlo test is
    unresolved at the run's trial count (the row says how many trials would
    resolve it), or the outcome depends on a detail the paper does not publish
    (:func:`readings` that disagree);
``"qualitative only"``
    the claim was evaluated on anything else: a stand-in, a model of the authors'
    code, or a stand-in calibrated to the very value under test; the outcome is
    shown in the ``check`` column but never counts as reproduced.

Monte Carlo rules (:func:`agrees_within`, :func:`agrees_within_rel`, :func:`equivalent`,
:func:`ordered`, :func:`at_most`, :func:`at_least` with ``our_se > 0``) need ``trials``,
the number of replicates the standard error came from.  Their intervals use
Student's t quantile at level :data:`ALPHA` (that of a 3-sigma normal interval),
Bonferroni-corrected over the ``points`` a claim is a conjunction over.  Noise never
yields "differs": a claim fails only when an interval lies wholly on the wrong side;
it holds only when the run resolves it (an agreement needs an interval no wider than
the paper's precision, an equality needs every interval inside its stated bound, an
ordering needs every gap's interval above zero: a tie never passes); anything else is
unresolved.  Exact-value rules (:func:`within_abs`, :func:`within_rel`,
:func:`same_order`, :func:`exceeds`, :func:`ordering_holds`, :func:`in_range`) are
for computations without sampling error.

Every row names where the paper makes the claim (``source``), every verdict other
than "reproduced" says what was tried (``tried``), claims about the authors'
implementation say what faithful implementation they were measured on
(``about="implementation"``), and a value read off a figure cannot be tested with a
tolerance tighter than its reading precision.  Claims about this project's own speed
belong in the benchmarks, not here.

:meth:`ClaimsTable.glue` publishes every verdict with ``myst_nb.glue`` and, when
``LDP_CLAIMS_DIR`` is set, records the table as JSON; :func:`verdict_changes` (and
``python -m ldp.claims diff A B``) lists the claims whose verdict differs between two
such folders, e.g. the book and paper profiles' builds.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ldp.pages import format_number
from ldp.profiles import current_profile

__all__ = [
    "REPRODUCED",
    "DIFFERS",
    "NOT_REPRODUCIBLE",
    "QUALITATIVE_ONLY",
    "VERDICTS",
    "PAPER_DATA",
    "STAND_IN",
    "MODEL",
    "CALIBRATED",
    "BASES",
    "AGREES",
    "DISAGREES",
    "HOLDS",
    "FAILS",
    "UNRESOLVED",
    "ALPHA",
    "RECORD_ENV",
    "Judgement",
    "Rule",
    "Readings",
    "Source",
    "printed",
    "read_off",
    "readings",
    "ClaimsTable",
    "agrees_within",
    "agrees_within_rel",
    "equivalent",
    "ordered",
    "trials_needed",
    "paper_mean_se",
    "within_rel",
    "within_abs",
    "same_sign",
    "same_order",
    "exceeds",
    "at_most",
    "at_least",
    "in_range",
    "ordering_holds",
    "not_reproducible",
    "scoreboard",
    "verdict_changes",
    "verdict_badge",
]

REPRODUCED = "reproduced"
DIFFERS = "differs"
NOT_REPRODUCIBLE = "not reproducible"
QUALITATIVE_ONLY = "qualitative only"
VERDICTS = (REPRODUCED, DIFFERS, NOT_REPRODUCIBLE, QUALITATIVE_ONLY)

#: The claim was evaluated on the paper's data, or on data generated exactly as the paper says.
PAPER_DATA = "paper data"
#: The claim was evaluated on a stand-in for data we do not have.
STAND_IN = "stand-in"
#: The claim was evaluated on a model of the authors' code (e.g. of an evaluation script).
MODEL = "model"
#: The claim was evaluated on a stand-in calibrated to the very paper value under test.
CALIBRATED = "calibrated"
BASES = (PAPER_DATA, STAND_IN, MODEL, CALIBRATED)
_BASIS_REASON = {
    STAND_IN: "evaluated on a stand-in for data we do not have",
    MODEL: "evaluated on a model of the authors' code",
    CALIBRATED: "the stand-in was calibrated to this paper value, so it cannot test it",
}

#: Outcomes of the rule, shown in the ``check`` column whatever the basis.
AGREES = "agrees"
DISAGREES = "disagrees"

#: The environment variable naming the folder where :meth:`ClaimsTable.glue` records each chapter's table.
RECORD_ENV = "LDP_CLAIMS_DIR"

_CHAPTER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


# ---------------------------------------------------------------------------- outcomes
#: The rule's test holds: the claim is reproduced (on the paper's data).
HOLDS = "holds"
#: The rule's test fails beyond the noise: the claim differs (on the paper's data).
FAILS = "fails"
#: The run cannot decide: the Monte Carlo interval straddles the boundary of the claim.
UNRESOLVED = "unresolved"
OUTCOMES = (HOLDS, FAILS, UNRESOLVED)

#: Two-sided level of every Monte Carlo interval: that of a 3-sigma normal interval (1 − 0.9973), so that with
#: many trials an interval is ±3 standard errors, and with few trials it widens by Student's t.
ALPHA = 0.0027
_MAX_TRIALS = 10**9


@dataclass(frozen=True)
class Judgement:
    """The outcome of a rule on one claim: ``outcome`` in :data:`OUTCOMES`, the numbers behind it (``evidence``)
    and, for an unresolved Monte Carlo test, the trial count that would resolve it (``trials_needed``)."""

    outcome: str
    evidence: str = ""
    trials_needed: int | None = None


@dataclass(frozen=True)
class Rule:
    """A named criterion; ``description`` is shown in the table.

    ``test(paper, ours)`` returns a bool (True: holds) or a :class:`Judgement`
    (holds, fails or unresolved).  ``paper_precision`` is the part of a tolerance
    that accounts for the precision of the paper's value (``relative`` says whether
    it is a fraction of ``|paper|``); it is None for rules without a tolerance.
    :meth:`ClaimsTable.add` uses it to refuse a tolerance tighter than the reading
    precision of a value read off a figure.
    """

    description: str
    test: Callable[[Any, Any], Any] = field(repr=False)
    paper_precision: float | None = None
    relative: bool = False

    def judge(self, paper: Any, ours: Any) -> Judgement:
        """The :class:`Judgement` of ``ours`` against ``paper``."""
        result = self.test(paper, ours)
        if isinstance(result, Judgement):
            return result
        return Judgement(HOLDS if bool(result) else FAILS)

    def __call__(self, paper: Any, ours: Any) -> bool:
        return self.judge(paper, ours).outcome == HOLDS


@dataclass(frozen=True)
class _NotReproducible:
    why: str
    description: str = "not reproducible"


def _num(v: Any, what: str) -> np.ndarray:
    if isinstance(v, str):
        raise TypeError(f"{what} must be numeric (a number or an array of numbers), got the string {v!r}")
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be numeric (a number or an array of numbers), got {v!r}") from None
    return arr


def _nonneg(x: Any, name: str, *, positive: bool = False, array: bool = False) -> Any:
    """A finite number >= 0 (> 0 if ``positive``), or with ``array`` an array of them."""
    bad = f"{name} must be a finite number {'> 0' if positive else '>= 0'}, got {x!r}"
    if isinstance(x, (bool, np.bool_, str)) or x is None:
        raise ValueError(bad)
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(bad) from None
    if (
        (arr.ndim and not array)
        or arr.size == 0
        or not np.all(np.isfinite(arr))
        or np.any(arr <= 0 if positive else arr < 0)
    ):
        raise ValueError(bad)
    return float(arr) if arr.ndim == 0 else arr


def _tol(tol: Any) -> float:
    return _nonneg(tol, "tol")


def _count(x: Any, name: str, minimum: int) -> int | None:
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    return int(x)


def _g(x: Any, digits: int = 3) -> str:
    """A number of a description or of evidence, through the book's one formatter (no ``e-05`` form)."""
    return format_number(float(x), digits, trim=True)


def _fmt(x: Any) -> str:
    """A number (or the range of an array) in a short form for descriptions."""
    if isinstance(x, np.ndarray):
        lo, hi = float(x.min()), float(x.max())
        return _g(lo, 2) if lo == hi else f"[{_g(lo, 2)} to {_g(hi, 2)}]"
    return _g(x, 2)


def _quantile(trials: int, points: int) -> float:
    """Student's t quantile of a two-sided :data:`ALPHA` interval, Bonferroni-corrected over ``points``."""
    from scipy import stats

    return float(stats.t.ppf(1.0 - ALPHA / (2.0 * points), trials - 1))


def trials_needed(se: Any, trials: int, target: float, *, points: int = 1) -> int | None:
    """The number of trials at which a Monte Carlo interval's half-width falls to ``target``.

    The standard error ``se`` (the largest, for an array) was estimated from
    ``trials`` replicates and shrinks as ``1/sqrt(trials)``; the half-width is
    Student's t quantile (:data:`ALPHA`, Bonferroni over ``points``) times the
    standard error.  None when ``target <= 0`` (no number of trials resolves a
    difference of exactly zero) or beyond a billion trials.
    """
    n0 = _count(trials, "trials", 2)
    m = _count(points, "points", 1)
    s = float(np.max(_nonneg(se, "se", array=True)))
    t = float(target)
    if not math.isfinite(t) or t <= 0:
        return None
    if s == 0:
        return n0
    sd = s * math.sqrt(n0)
    from scipy import stats

    z = float(stats.norm.ppf(1.0 - ALPHA / (2.0 * m)))
    ratio = z * sd / t
    if ratio > math.sqrt(_MAX_TRIALS):
        return None
    n = max(2, math.ceil(ratio**2))
    while _quantile(n, m) * sd / math.sqrt(n) > t:
        n = max(n + 1, math.ceil(n * 1.02))
    return n


def paper_mean_se(our_se: Any, our_trials: Any, paper_trials: int) -> np.ndarray:
    """The standard error of the paper's own Monte Carlo value, estimated from our replicates.

    When the paper's number is a mean over ``paper_trials`` runs of an experiment we
    repeat ``our_trials`` times, one run's standard deviation is ``our_se * sqrt(our_trials)``
    and the paper's mean has standard error ``our_se * sqrt(our_trials / paper_trials)``
    (``paper_trials = 1`` for a single run).  ``our_trials`` may give one count per element of
    ``our_se`` (points that ran more trials than others).  Pass the result as ``paper_se=`` of
    :func:`agrees_within`, which compares the two means.
    """
    if our_trials is None or paper_trials is None:
        raise ValueError("paper_mean_se needs both trial counts: ours and the paper's")
    n_ours = np.array([_count(n, "our_trials", 2) for n in np.ravel(our_trials)], dtype=float)
    n_paper = _count(paper_trials, "paper_trials", 1)
    se = np.asarray(_nonneg(our_se, "our_se", array=True), dtype=float)
    return se * np.sqrt(n_ours.reshape(np.shape(our_trials)) / n_paper)


@dataclass(frozen=True)
class _MonteCarlo:
    """The noise of a Monte Carlo value: standard errors, the replicates they came from, the multiplicity."""

    se: Any
    trials: int | None
    points: int | None

    @property
    def noisy(self) -> bool:
        return bool(np.any(np.asarray(self.se) > 0))

    def halfwidth(self, compared: int) -> np.ndarray:
        """Half-widths of the simultaneous intervals, one per compared element (0 for an exact value)."""
        se = np.asarray(self.se, dtype=float)
        if not self.noisy:
            return np.zeros_like(se)
        return _quantile(self.trials, self.points or compared) * se

    def describe(self, compared: int) -> str:
        if not self.noisy:
            return "exact"
        m = self.points or compared
        level = f"{1 - ALPHA:.2%}".replace(".00%", "%")
        return f"{level} interval over {self.trials} trials" + (f", simultaneous over {m} points" if m > 1 else "")

    def needed(self, target: Any, compared: int) -> int | None:
        if not self.noisy:
            return None
        return trials_needed(self.se, self.trials, float(np.min(target)), points=self.points or compared)


def _monte_carlo(our_se: Any, trials: Any, points: Any) -> _MonteCarlo:
    se = _nonneg(our_se, "our_se", array=True)
    n = _count(trials, "trials", 2)
    m = _count(points, "points", 1)
    mc = _MonteCarlo(se, n, m)
    if mc.noisy and n is None:
        raise ValueError(
            f"a Monte Carlo rule needs trials=, the number of replicates its standard error came from "
            f"(our_se={_fmt(se)}, trials=None): without it the interval, and so the verdict, is undefined"
        )
    return mc


def _arrays(paper: Any, ours: Any, se: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p, o = _num(paper, "paper"), _num(ours, "ours")
    try:
        p, o, s = np.broadcast_arrays(p, o, np.asarray(se, dtype=float))
    except ValueError:
        raise ValueError(
            f"paper, ours and our_se must have compatible shapes, got {p.shape}, {o.shape}, {np.shape(se)}"
        ) from None
    return p.ravel(), o.ravel(), s.ravel()


def _three_way(fails: np.ndarray, holds: np.ndarray, evidence: str, needed: Callable[[], int | None]) -> Judgement:
    if np.any(fails):
        return Judgement(FAILS, evidence)
    if np.all(holds):
        return Judgement(HOLDS, evidence)
    return Judgement(UNRESOLVED, evidence, needed())


_PRECISION_LABELS = ("reading", "printed", "stated")


def _agreement_rule(
    paper_precision: Any, our_se: Any, trials: Any, points: Any, label: str, relative: bool, paper_se: Any = None
) -> Rule:
    pp = _nonneg(paper_precision, "paper_precision")
    mc = _monte_carlo(our_se, trials, points)
    if paper_se is not None and trials is None:
        raise ValueError("paper_se needs trials=, the number of our replicates it was estimated from")
    band = mc if paper_se is None else _monte_carlo(np.hypot(mc.se, _nonneg(paper_se, "paper_se", array=True)),
                                                   trials, points)  # fmt: skip
    if label not in _PRECISION_LABELS:
        raise ValueError(f"label must be one of {_PRECISION_LABELS}, got {label!r}")

    def test(paper: Any, ours: Any) -> Judgement:
        p, o, _ = _arrays(paper, ours, band.se)
        if not np.all(np.isfinite(o)):
            return Judgement(FAILS, "ours is not finite")
        delta = pp * np.abs(p) if relative else np.full_like(p, pp)
        w = np.broadcast_to(band.halfwidth(o.size), o.shape)  # the difference's interval (ours and the paper's noise)
        w_ours = np.broadcast_to(mc.halfwidth(o.size), o.shape)  # the part our trials can shrink
        d = np.abs(o - p)
        ev = f"largest |ours − paper| {_g(d.max())}"
        if band.noisy:
            ev += f", interval half-width up to {_g(w.max())} ({band.describe(o.size)})"
        # differs: the interval lies outside the paper's band; reproduced: inside it or touching it, with our own
        # interval no wider than the paper's precision (the run resolves what the paper states)
        return _three_way(d > delta + w, (d <= delta + w) & (w_ours <= delta), ev, lambda: mc.needed(delta, o.size))

    first = f"{pp:.0%}·|paper|" if relative and pp >= 0.01 else (f"{_g(pp)}·|paper|" if relative else _g(pp))
    noise = ""
    if band.noisy:
        parts = f"s.e. {_fmt(mc.se)}" if paper_se is None else f"s.e. ours {_fmt(mc.se)}, the paper's {_fmt(paper_se)}"
        noise = f" + interval half-width ({band.describe(0)}, {parts})"
    return Rule(f"|ours − paper| ≤ {first} ({label}){noise}", test, paper_precision=pp, relative=relative)


def agrees_within(
    paper_precision: float,
    our_se: Any = 0.0,
    *,
    trials: int | None = None,
    points: int | None = None,
    label: str = "reading",
    paper_se: Any = None,
) -> Rule:
    """Agreement with the paper's value up to its precision, judged with a Monte Carlo interval.

    With ``δ = paper_precision`` and ``w`` the half-width of our value's interval
    (Student's t with ``trials − 1`` degrees of freedom at level :data:`ALPHA`,
    Bonferroni over ``points``): the claim **fails** when ``|ours − paper| > δ + w``
    at some element (the interval lies wholly outside the paper's band), **holds**
    when it does not fail and ``w ≤ δ`` everywhere (the run resolves the paper's
    precision), and is **unresolved** otherwise (more trials needed; never a
    difference).  NaN fails.

    Parameters
    ----------
    paper_precision : float
        Precision of the paper's value: half a unit of the last printed digit for a
        printed number, the reading precision for a value read off a figure.
    our_se : float or array
        Standard error of our value, from replicates of the unit that varies (0 for
        an exact computation); an array gives one per element.
    trials : int
        The number of replicates ``our_se`` was estimated from; required when
        ``our_se > 0``.
    points : int, optional
        The number of values the claim is a conjunction over (default: the number of
        elements compared).
    label : {"reading", "printed", "stated"}
        What ``paper_precision`` is, shown in the description.
    paper_se : float or array, optional
        Standard error of the paper's own value when it is itself a Monte Carlo result
        (:func:`paper_mean_se`, estimated from the same ``trials``).  ``w`` is then the
        half-width of the difference's interval (the two standard errors in quadrature),
        so the paper's luck never makes a correct value differ; "holds" still asks that
        our own half-width be ``≤ δ`` (the paper's noise is not ours to shrink).
    """
    return _agreement_rule(paper_precision, our_se, trials, points, label, relative=False, paper_se=paper_se)


def agrees_within_rel(
    paper_precision: float,
    our_se: Any = 0.0,
    *,
    trials: int | None = None,
    points: int | None = None,
    label: str = "reading",
    paper_se: Any = None,
) -> Rule:
    """As :func:`agrees_within`, with the paper's precision a fraction of ``|paper|`` (the s.e. stay absolute)."""
    return _agreement_rule(paper_precision, our_se, trials, points, label, relative=True, paper_se=paper_se)


def equivalent(bound: float, our_se: Any = 0.0, *, trials: int | None = None, points: int | None = None) -> Rule:
    """For claims of equality ("the same", "does not change", "performs as", "close to", "flat").

    ``ours`` is the difference (or differences) that the claim says is negligible,
    and ``bound`` the largest difference the claim allows, taken from the paper's
    wording or precision and stated in the row.  The claim **holds** when every
    interval lies inside ``[−bound, bound]`` (the two one-sided tests of an
    equivalence test), **fails** when some interval lies wholly outside it, and is
    **unresolved** otherwise: a noisy run never passes an equality.
    """
    if bound is None:
        raise ValueError("equivalent needs bound=, the largest difference the claim of equality allows")
    b = _nonneg(bound, "bound", positive=True)
    mc = _monte_carlo(our_se, trials, points)

    def test(paper: Any, ours: Any) -> Judgement:
        _, d, _ = _arrays(0.0, ours, mc.se)
        if not np.all(np.isfinite(d)):
            return Judgement(FAILS, "ours is not finite")
        w = np.broadcast_to(mc.halfwidth(d.size), d.shape)
        a = np.abs(d)
        ev = f"largest |difference| {_g(a.max())}"
        if mc.noisy:
            ev += f", interval half-width up to {_g(w.max())} ({mc.describe(d.size)})"
        return _three_way(a - w > b, a + w <= b, ev, lambda: mc.needed(np.maximum(b - a, 0.0), d.size))

    noise = f"; {mc.describe(0)}, s.e. {_fmt(mc.se)}" if mc.noisy else ""
    return Rule(f"equivalence: every |difference| ≤ {_g(b)} with its whole interval{noise}", test)


def ordered(
    our_se: Any = 0.0, *, trials: int | None = None, points: int | None = None, negligible: float = 0.0
) -> Rule:
    """For orderings ("A is lower than B", "the lowest at every ε"): ``ours`` are the claimed-positive gaps.

    Pass e.g. ``err_B − err_A`` for "A has a lower error than B", one gap per point.
    The claim **holds** when every gap's interval lies above 0, **fails** when some
    gap's interval lies below 0 (the order is reversed beyond the noise) or, with
    ``negligible > 0``, lies wholly inside ``[−negligible, negligible]`` (a tie where
    the paper claims an order), and is **unresolved** otherwise.  A tie never passes.
    ``paper`` is a short text naming the order, e.g. ``"A < B"``.
    """
    neg = _nonneg(negligible, "negligible")
    mc = _monte_carlo(our_se, trials, points)

    def test(paper: Any, ours: Any) -> Judgement:
        _, g, _ = _arrays(0.0, ours, mc.se)
        if not np.all(np.isfinite(g)):
            return Judgement(FAILS, "ours is not finite")
        w = np.broadcast_to(mc.halfwidth(g.size), g.shape)
        ev = f"smallest gap {_g(g.min())}"
        if mc.noisy:
            ev += f", interval half-width up to {_g(w.max())} ({mc.describe(g.size)})"
        tie = (np.abs(g) + w <= neg) if neg > 0 else np.zeros(g.shape, bool)
        return _three_way((g + w < 0) | tie, g - w > 0, ev, lambda: mc.needed(np.abs(g[g - w <= 0]), g.size))

    noise = f"; {mc.describe(0)}, s.e. {_fmt(mc.se)}" if mc.noisy else " (exact)"
    tie = f"; a gap within ±{_g(neg)} is a tie and fails" if neg > 0 else ""
    return Rule(f"every claimed gap > 0 with its whole interval{noise}{tie}", test)


def within_rel(tol: float) -> Rule:
    """Reproduced when ``|ours - paper| <= tol·|paper|`` (element-wise for arrays; NaN fails).

    For exact values only (no sampling error); Monte Carlo values use
    :func:`agrees_within_rel`.  With ``paper == 0`` only an exact match passes; use
    :func:`within_abs` there.
    """
    t = _tol(tol)

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.abs(o - p) <= t * np.abs(p)))

    return Rule(
        f"within {t:.0%} (relative)" if t >= 0.01 else f"within {_g(t)} (relative)",
        test,
        paper_precision=t,
        relative=True,
    )


def within_abs(tol: float) -> Rule:
    """Reproduced when ``|ours - paper| <= tol`` (element-wise; NaN fails); for exact values only."""
    t = _tol(tol)

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.abs(o - p) <= t))

    return Rule(f"within ±{_g(t)} (absolute)", test, paper_precision=t)


def same_sign() -> Rule:
    """Reproduced when ours has the paper's sign (element-wise; zero matches only zero); exact values only."""

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.isfinite(o)) and np.all(np.sign(o) == np.sign(p)))

    return Rule("same sign", test)


def same_order(margin: float = 0.0) -> Rule:
    """Agrees when ``ours`` orders its entries as ``paper`` does, each by more than ``margin``; exact values only.

    Both are sequences of the same length (e.g. one value per method).  Every pair
    that the paper strictly orders must be ordered the same way by ours, with a gap
    strictly larger than ``margin`` (so a tie never passes, even at ``margin=0``);
    pairs tied in the paper are not constrained.  Monte Carlo values use
    :func:`ordered` on the gaps.
    """
    m = _nonneg(margin, "margin")

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper").ravel(), _num(ours, "ours").ravel()
        if p.size != o.size:
            raise ValueError(f"same_order needs paper and ours of the same length, got {p.size} and {o.size}")
        if not np.all(np.isfinite(o)):
            return False
        dp = np.sign(p[:, None] - p[None, :])
        gap = dp * (o[:, None] - o[None, :])
        return bool(np.all((dp == 0) | (gap > m)))

    return Rule(f"same ordering, every gap > {_g(m)}" if m > 0 else "same ordering (strict, no margin)", test)


def exceeds(margin: float = 0.0) -> Rule:
    """Agrees when ``ours > paper + margin`` (element-wise; a tie fails; NaN fails); exact values only.

    Against a value read off a figure the margin must be at least the reading
    precision.  Monte Carlo values use :func:`ordered` on ``ours − paper``.
    """
    m = _nonneg(margin, "margin")

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(o - p > m))

    return Rule(f"ours > paper + {_g(m)}" if m > 0 else "ours > paper (strict)", test, paper_precision=m)


def _bound_rule(bound: Any, tol: float, our_se: Any, trials: Any, points: Any, upper: bool) -> Rule:
    t = _tol(tol)
    if bound is not None:
        b_arr = _num(bound, "bound")
        if b_arr.size == 0 or not np.all(np.isfinite(b_arr)):
            raise ValueError(f"bound must be finite (or None for the paper's value), got {bound!r}")
    mc = _monte_carlo(our_se, trials, points)
    op, sign = ("≤", "+") if upper else ("≥", "−")
    ref = "paper" if bound is None else _fmt(np.asarray(bound, dtype=float)) if np.ndim(bound) else _g(bound)

    def test(paper: Any, ours: Any) -> Judgement:
        b, o, _ = _arrays(paper if bound is None else bound, ours, mc.se)
        if not np.all(np.isfinite(o)):
            return Judgement(FAILS, "ours is not finite")
        w = np.broadcast_to(mc.halfwidth(o.size), o.shape)
        excess = (o - (b + t)) if upper else ((b - t) - o)  # > 0 means the bound is broken
        ev = f"{'largest' if upper else 'smallest'} ours {_g(o.max() if upper else o.min(), 4)}"
        if mc.noisy:
            ev += f", interval half-width up to {_g(w.max())} ({mc.describe(o.size)})"
        return _three_way(excess - w > 0, excess + w <= 0, ev, lambda: mc.needed(np.abs(excess), o.size))

    noise = f", with the whole {mc.describe(0)} (s.e. {_fmt(mc.se)})" if mc.noisy else ""
    return Rule(
        f"ours {op} {ref}" + (f" {sign} {_g(t)}" if t > 0 else "") + noise,
        test,
        paper_precision=t if bound is None else None,
    )


def at_most(
    bound: float | None = None,
    *,
    tol: float = 0.0,
    our_se: Any = 0.0,
    trials: int | None = None,
    points: int | None = None,
) -> Rule:
    """Holds when ``ours + w <= bound + tol`` everywhere, fails when ``ours − w > bound + tol`` somewhere.

    ``w`` is the half-width of our value's interval (0 for an exact value; see
    :func:`agrees_within` for ``our_se``, ``trials`` and ``points``).  With
    ``bound=None`` the bound is the paper's value.  ``tol`` must come from the
    paper's precision, never chosen to make the claim pass; against a value read off
    a figure it must be at least the reading precision.  NaN fails.
    """
    return _bound_rule(bound, tol, our_se, trials, points, upper=True)


def at_least(
    bound: float | None = None,
    *,
    tol: float = 0.0,
    our_se: Any = 0.0,
    trials: int | None = None,
    points: int | None = None,
) -> Rule:
    """Holds when ``ours − w >= bound − tol`` everywhere, fails when ``ours + w < bound − tol`` somewhere."""
    return _bound_rule(bound, tol, our_se, trials, points, upper=False)


def in_range() -> Rule:
    """Agrees when ``lo <= ours <= hi`` for the paper's quoted range ``paper = (lo, hi)``; exact values only."""

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper").ravel(), _num(ours, "ours")
        if p.size != 2 or not p[0] <= p[1]:
            raise ValueError(f"in_range needs paper = (lo, hi) with lo <= hi, got {paper!r}")
        return bool(np.all((o >= p[0]) & (o <= p[1])))

    return Rule("inside the paper's range", test)


def ordering_holds() -> Rule:
    """For qualitative claims computed exactly: ``ours`` is a bool (or bools) computed in code, ``paper`` is a bool.

    Agrees when every entry of ``ours`` equals ``paper``.  A bare boolean cannot
    express the noise behind a comparison: for orderings of measured values use
    :func:`ordered`.
    """

    def test(paper: Any, ours: Any) -> bool:
        if not isinstance(paper, (bool, np.bool_)):
            raise TypeError(f"ordering_holds needs paper to be True or False, got {paper!r}")
        o = np.asarray(ours)
        if o.dtype != bool or o.size == 0:
            raise TypeError(f"ordering_holds needs ours to be a bool (or bools) computed in code, got {ours!r}")
        return bool(np.all(o == bool(paper)))

    return Rule("qualitative claim holds (exact)", test)


def not_reproducible(why: str) -> _NotReproducible:
    """Mark a claim that cannot be checked here (e.g. data or hardware not available offline).

    The verdict is ``"not reproducible"`` and ``why`` becomes its reason.
    """
    if not isinstance(why, str) or not why.strip():
        raise ValueError("not_reproducible needs a non-empty explanation 'why'")
    return _NotReproducible(why.strip())


# ---------------------------------------------------------------------------- readings
@dataclass(frozen=True)
class Readings:
    """Our value under each plausible reading of a detail the paper does not publish (:func:`readings`)."""

    depends_on: str
    values: dict[str, Any]
    stated: str | None = None


def readings(depends_on: str, values: Any, *, stated: str | None = None) -> Readings:
    """Our value under every plausible reading of an unpublished detail, to pass as ``ours``.

    Parameters
    ----------
    depends_on : str
        The detail the paper does not publish, e.g. ``"the attribute set"``.
    values : mapping of str to Any
        One value per reading (at least two readings), named in words.
    stated : str, optional
        The reading the paper itself states, when it states one, or the one the
        authors' public code settles (cite the code in the row).

    The claim is reproduced only if its rule holds under ``stated`` (when given) or
    under every reading; it differs only if the rule fails under every reading;
    otherwise it is "not reproducible", depending on the detail, with each reading's
    value and outcome listed.
    """
    if not isinstance(depends_on, str) or not depends_on.strip():
        raise ValueError(f"depends_on must name the unpublished detail, got {depends_on!r}")
    if not isinstance(values, Mapping) or len(values) < 2:
        raise ValueError(
            f"readings needs a mapping of at least two readings of {depends_on!r} to our values, got {values!r}: "
            "a detail the paper does not publish is evaluated under every plausible reading"
        )
    names = [str(k) for k in values]
    if any(not k.strip() for k in names):
        raise ValueError("every reading needs a non-empty name")
    if stated is not None and stated not in values:
        raise ValueError(f"stated must be one of the readings {names}, got {stated!r}")
    return Readings(depends_on.strip(), dict(values), stated)


# ---------------------------------------------------------------------------- provenance
@dataclass(frozen=True)
class Source:
    """Where the paper's value comes from: ``where`` in the paper (or its technical report).

    Build it with :func:`printed` or :func:`read_off`; ``str(source)`` is what the
    table shows.
    """

    where: str
    read_off: bool = False
    precision: float | None = None
    relative: bool = False

    def __str__(self) -> str:
        if not self.read_off:
            return f"{self.where} (printed)"
        p = f"±{self.precision:.0%}" if self.relative else f"±{_g(self.precision)}"
        return f"{self.where}, read off ({p})"


def _where(where: Any) -> str:
    if not isinstance(where, str) or not where.strip():
        raise ValueError(f"where must name the table, equation, section or figure, got {where!r}")
    return where.strip()


def printed(where: str) -> Source:
    """A value printed in the paper's text or a table, e.g. ``printed("Table 7")``."""
    return Source(_where(where))


def read_off(where: str, precision: float, *, relative: bool = False) -> Source:
    """A value read off a figure, with its reading precision.

    ``read_off("Fig. 6a of the technical report", 0.02)`` for a linear axis read to
    ±0.02; ``read_off("Fig. 5", 0.2, relative=True)`` for a log axis read to ±20 %.
    A tolerance rule on such a value must allow at least this precision.
    """
    return Source(
        _where(where), read_off=True, precision=_nonneg(precision, "precision", positive=True), relative=bool(relative)
    )


def _check_precision(claim: str, rule: Any, source: Source, paper: Any) -> None:
    """Refuse a tolerance tighter than the reading precision of a read-off value."""
    pp = getattr(rule, "paper_precision", None)
    if not source.read_off or pp is None:
        return
    p = np.abs(_num(paper, "paper"))
    allowed = pp * p if rule.relative else np.full_like(p, pp)
    needed = source.precision * p if source.relative else np.full_like(p, source.precision)
    if np.any(allowed < needed * (1 - 1e-12)):
        raise ValueError(
            f"claim {claim!r}: the tolerance for the paper's precision ({rule.description}) is "
            f"tighter than the reading precision of {source}; a value read off a figure cannot be "
            f"tested more finely than it was read"
        )


# ---------------------------------------------------------------------------- the table
def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (str, bool, int)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, np.generic):
        return _jsonable(v.item())
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return str(v)


_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _from_json(v: Any) -> Any:
    """A value :func:`_jsonable` wrote, with its non-finite floats (written as "nan", "inf") restored."""
    if isinstance(v, str):
        return _NON_FINITE.get(v, v)
    if isinstance(v, list):
        return [_from_json(x) for x in v]
    if isinstance(v, dict):
        return {k: _from_json(x) for k, x in v.items()}
    return v


_CHECKS = {HOLDS: AGREES, FAILS: DISAGREES, UNRESOLVED: UNRESOLVED}
_ABOUT = ("result", "implementation")


def _judgement(claim: str, paper: Any, ours: Any, rule: Any, source: Source | str) -> tuple[Judgement, str]:
    """The judgement of one (paper, ours) pair by a rule, and the rule's description."""
    if isinstance(source, Source):
        _check_precision(claim, rule, source, paper)
    try:
        if isinstance(rule, Rule):
            j = rule.judge(paper, ours)
        else:
            ok = rule(paper, ours)
            if not isinstance(ok, (bool, np.bool_)):
                raise TypeError(f"rule must return a bool, got {type(ok).__name__} on claim {claim!r}")
            j = Judgement(HOLDS if ok else FAILS)
    except (TypeError, ValueError) as exc:
        if "rule must return a bool" in str(exc):
            raise
        raise ValueError(f"rule failed on claim {claim!r}: {exc}") from exc
    return j, str(getattr(rule, "description", getattr(rule, "__name__", "custom rule")))


def _value_text(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return _g(v, 4)
    arr = np.asarray(v) if isinstance(v, (list, tuple, np.ndarray)) else None
    if arr is not None and arr.dtype.kind in "fiu" and arr.size:
        lo, hi = float(arr.min()), float(arr.max())
        return _g(lo, 4) if lo == hi else f"{_g(lo, 4)} to {_g(hi, 4)}"
    return str(v)


def _judge_readings(claim: str, paper: Any, ours: Readings, rule: Any, source: Source | str) -> tuple:
    """Combine the judgements of every reading: (outcome, evidence, criterion, trials needed, depends text)."""
    rules = rule if isinstance(rule, Mapping) else {k: rule for k in ours.values}
    if set(rules) != set(ours.values):
        raise ValueError(f"claim {claim!r}: the rules must name the same readings as ours, got {sorted(rules)}")
    results = {k: _judgement(claim, paper, v, rules[k], source) for k, v in ours.values.items()}
    outcomes = {k: j.outcome for k, (j, _) in results.items()}
    listed = "; ".join(
        f"{k}{' (stated)' if k == ours.stated else ''}: {_value_text(ours.values[k])} ({outcomes[k]})"
        for k in ours.values
    )
    if (ours.stated is not None and outcomes[ours.stated] == HOLDS) or all(o == HOLDS for o in outcomes.values()):
        outcome = HOLDS
    elif all(o == FAILS for o in outcomes.values()):
        outcome = FAILS
    else:
        outcome = "depends"
    criteria = {c for _, c in results.values()}
    criterion = criteria.pop() if len(criteria) == 1 else " / ".join(f"{k}: {c}" for k, (_, c) in results.items())
    return outcome, f"readings of {ours.depends_on}: {listed}", criterion


def _checked_texts(claim: Any, basis: str, source: Any, about: str, texts: dict[str, Any]) -> tuple[str, dict]:
    """The stripped claim and free texts of a row, after refusing malformed arguments."""
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError("claim must be a non-empty string")
    claim = claim.strip()
    if basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}, got {basis!r}")
    if not isinstance(source, (Source, str)):
        raise TypeError(f"source must be printed(...), read_off(...) or a str, got {type(source).__name__}")
    if not str(source).strip():
        raise ValueError(
            f"claim {claim!r}: source= must name where the paper makes the claim (printed('Table 7'), "
            "read_off('Fig. 6a', 0.02) or the section); only the paper's claims enter the table"
        )
    for name, text in texts.items():
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    if about not in _ABOUT:
        raise ValueError(f"about must be one of {_ABOUT}, got {about!r}")
    return claim, {k: v.strip() for k, v in texts.items()}


def _outcome(claim: str, paper: Any, ours: Any, rule: Any, source: Source | str) -> tuple:
    """(outcome, evidence, criterion, trials needed) of a callable rule or a mapping of rules over readings."""
    if isinstance(ours, Readings):
        outcome, evidence, criterion = _judge_readings(claim, paper, ours, rule, source)
        return outcome, evidence, criterion, None
    if isinstance(rule, Mapping):
        raise TypeError(f"claim {claim!r}: a mapping of rules needs ours=readings(...)")
    j, criterion = _judgement(claim, paper, ours, rule, source)
    return j.outcome, j.evidence, criterion, j.trials_needed


def _require_reason(claim: str, paper: Any, ours: Any, criterion: str, why: str) -> None:
    """A difference is explained, with the computed number behind it."""
    if not why:
        raise ValueError(
            f"claim {claim!r} differs from the paper (paper={paper!r}, ours={ours!r}, criterion: {criterion}) "
            "but no reason_if_differs was given"
        )
    if not re.search(r"\d", why):
        raise ValueError(
            f"claim {claim!r} differs, but its reason_if_differs {why!r} quotes no computed number: a difference "
            "is explained with the computation behind it"
        )


def _verdict(outcome: str, evidence: str, needed: int | None, why: str, ours: Any, basis: str) -> tuple[str, str]:
    """(verdict, reason shown) from a rule's outcome and the row's basis."""
    if outcome == HOLDS:
        verdict, shown = REPRODUCED, ""
    elif outcome == FAILS:
        verdict, shown = DIFFERS, why
    elif outcome == UNRESOLVED:
        more = f"; about {needed:,} trials would resolve it" if needed else ""
        verdict, shown = NOT_REPRODUCIBLE, f"unresolvable by simulation: {evidence}{more}"
    else:
        readings_of = ours.depends_on if isinstance(ours, Readings) else "the reading"
        verdict, shown = NOT_REPRODUCIBLE, f"depends on {readings_of}, which the paper does not publish"
    if basis != PAPER_DATA:
        check = _CHECKS.get(outcome, UNRESOLVED)
        shown = _BASIS_REASON[basis] + ("" if outcome == HOLDS else f"; the check is {check}: {shown or why}")
        verdict = QUALITATIVE_ONLY
    return verdict, shown


def _claim_row(
    claim: str,
    paper: Any,
    ours: Any,
    rule: Any,
    *,
    reason_if_differs: str,
    basis: str,
    source: Source | str,
    tried: str,
    about: str,
    implementation: str,
    note: str,
) -> dict[str, Any]:
    """The validated and judged row of one claim (the arguments of :meth:`ClaimsTable.add`)."""
    texts = dict(reason_if_differs=reason_if_differs, tried=tried, implementation=implementation, note=note)
    claim, texts = _checked_texts(claim, basis, source, about, texts)
    why, implementation = texts["reason_if_differs"], texts["implementation"]
    if about == "implementation" and not implementation and not isinstance(rule, _NotReproducible):
        raise ValueError(
            f"claim {claim!r} is about the authors' implementation: implementation= must describe the faithful "
            "implementation of the paper's algorithm it was measured on (or the rule must be not_reproducible)"
        )
    evidence = check = ""
    if isinstance(rule, _NotReproducible):
        verdict, shown, criterion = NOT_REPRODUCIBLE, rule.why, rule.description
    elif callable(rule) or isinstance(rule, Mapping):
        outcome, evidence, criterion, needed = _outcome(claim, paper, ours, rule, source)
        check = _CHECKS.get(outcome, UNRESOLVED)
        if implementation:
            evidence = f"{evidence}; measured on {implementation}" if evidence else f"measured on {implementation}"
        if outcome == FAILS:
            _require_reason(claim, paper, ours, criterion, why)
        verdict, shown = _verdict(outcome, evidence, needed, why, ours, basis)
    else:
        raise TypeError(f"rule must be callable or not_reproducible(...), got {type(rule).__name__}")
    if verdict != REPRODUCED and not texts["tried"]:
        raise ValueError(
            f"claim {claim!r} is {verdict!r}: tried= must say what was tried (trials, readings, data variants)"
        )
    ours_shown = ours.values if isinstance(ours, Readings) else ours
    return dict(
        claim=claim,
        paper=paper,
        ours=ours_shown,
        verdict=verdict,
        reason=shown,
        criterion=str(criterion),
        evidence=evidence,
        check=check,
        basis=basis,
        source=str(source),
        tried=texts["tried"],
        note=texts["note"],
    )


_BADGES = {
    REPRODUCED: ("✓", "reproduced"),
    DIFFERS: ("✗", "differs"),
    NOT_REPRODUCIBLE: ("?", "not-reproducible"),
    QUALITATIVE_ONLY: ("~", "qualitative-only"),
}

#: the style of every claims table and of the scoreboard (inline, so a notebook shows it as the book does)
CLAIMS_CSS = """
.ldp-claims-wrap{overflow-x:auto;max-width:100%}
table.ldp-claims{table-layout:fixed;width:100%;min-width:34em;border-collapse:collapse;font-size:0.9em}
table.ldp-board{min-width:44em}
table.ldp-claims th,table.ldp-claims td{vertical-align:top;padding:0.35em 0.5em;border-bottom:1px solid #ddd;
 overflow-wrap:normal;word-break:normal;hyphens:none;text-align:left}
table.ldp-claims td.ldp-num,table.ldp-claims th.ldp-num{text-align:right}
table.ldp-claims col.ldp-c-i{width:2.5em}table.ldp-claims col.ldp-c-claim{width:auto}
table.ldp-claims col.ldp-c-val{width:17%}table.ldp-claims col.ldp-c-verdict{width:10.5em}
.ldp-verdict{display:inline-block;white-space:nowrap;border-radius:0.8em;padding:0.05em 0.6em;font-weight:600;
 font-size:0.85em;border:1px solid}
.ldp-verdict-reproduced{background:#dff3df;color:#1b5e20;border-color:#7cb87f}
.ldp-verdict-differs{background:#fbe0da;color:#8e1c0b;border-color:#d9826f}
.ldp-verdict-not-reproducible{background:#ececec;color:#333;border-color:#aaa}
.ldp-verdict-qualitative-only{background:#f6efd2;color:#5d4a00;border-color:#c9b45c}
.ldp-where{color:#555;display:block}.ldp-tok{white-space:nowrap}
table.ldp-claims details{margin-top:0.2em}table.ldp-claims summary{cursor:pointer;color:#555;font-size:0.85em}
table.ldp-claims dl{margin:0.3em 0 0 0;font-size:0.85em}table.ldp-claims dt{font-weight:600;margin-top:0.2em}
table.ldp-claims dd{margin-left:0.8em}
"""


def verdict_badge(verdict: str) -> str:
    """The coloured, labelled badge of a verdict (HTML)."""
    import html

    mark, key = _BADGES[verdict]
    text = html.escape(verdict)
    return f'<span class="ldp-verdict ldp-verdict-{key}" title="{text}">{mark} {text}</span>'


def _claims_html(chapter: str, rows: list[dict[str, Any]]) -> Any:
    import html

    from ldp.pages import HTML, format_value, html_unbroken

    def esc(v: Any) -> str:
        return html_unbroken(format_value(v))

    body = []
    for i, r in enumerate(rows, start=1):
        details = [
            ("why", r["reason"]),
            ("how it was judged", r["criterion"]),
            ("numbers behind it", r["evidence"]),
            ("check on a stand-in or model", r["check"] if r["basis"] != PAPER_DATA else ""),
            ("evaluated on", r["basis"]),
            ("what was tried", r["tried"]),
            ("note", r["note"]),
        ]
        dl = "".join(f"<dt>{k}</dt><dd>{html.escape(str(v))}</dd>" for k, v in details if v)
        body.append(
            f'<tr id="claim-{chapter}-{i}"><td class="ldp-num">{i}</td><td>{html_unbroken(r["claim"])}'
            f'<small class="ldp-where">{html_unbroken(r["source"])}</small>'
            f"<details><summary>details</summary><dl>{dl}</dl></details></td>"
            f'<td class="ldp-num">{esc(r["paper"])}</td><td class="ldp-num">{esc(r["ours"])}</td>'
            f"<td>{verdict_badge(r['verdict'])}</td></tr>"
        )
    table = (
        f"<style>{CLAIMS_CSS}</style>"
        '<div class="ldp-claims-wrap"><table class="ldp-claims">'
        '<colgroup><col class="ldp-c-i"><col class="ldp-c-claim"><col class="ldp-c-val"><col class="ldp-c-val">'
        '<col class="ldp-c-verdict"></colgroup>'
        '<thead><tr><th class="ldp-num">#</th><th>claim (where the paper makes it)</th><th class="ldp-num">paper</th>'
        '<th class="ldp-num">ours</th><th>verdict</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    return HTML(table)


class ClaimsTable:
    """The claims of one chapter and their computed verdicts.

    Parameters
    ----------
    chapter : str
        Short key used in glue names (letters, digits, ``-`` and ``_``), e.g.
        ``"lopub"``.
    """

    COLUMNS = (
        "claim",
        "paper",
        "ours",
        "verdict",
        "reason",
        "criterion",
        "evidence",
        "check",
        "basis",
        "source",
        "tried",
        "note",
    )

    def __init__(self, chapter: str) -> None:
        if not isinstance(chapter, str) or not _CHAPTER_RE.match(chapter):
            raise ValueError(f"chapter must be a key of letters, digits, '-' or '_', got {chapter!r}")
        self.chapter = chapter
        self._rows: list[dict[str, Any]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"ClaimsTable({self.chapter!r}, {len(self)} claims: {self.totals()})"

    def add(
        self,
        claim: str,
        paper: Any,
        ours: Any,
        rule: Rule | _NotReproducible | Callable[[Any, Any], bool] | Mapping[str, Rule],
        *,
        source: Source | str,
        reason_if_differs: str = "",
        basis: str = PAPER_DATA,
        tried: str = "",
        about: str = "result",
        implementation: str = "",
        note: str = "",
    ) -> str:
        """Add one claim of the paper; the verdict follows from the rule's outcome and ``basis``.

        ``paper`` and ``ours`` are the paper's value and ours (numbers, arrays, booleans
        or None; ``ours`` may be :func:`readings` of an unpublished detail).  ``rule``
        gives holds, fails or unresolved (see the module's policy): a :class:`Rule`, a
        callable returning a bool for exact values, a mapping of one rule per reading, or
        :func:`not_reproducible`.  Keywords:

        * ``source`` (required): where the paper makes the claim, :func:`printed`,
          :func:`read_off` (which also checks the rule's tolerance against the reading
          precision) or a short text naming the section or figure;
        * ``reason_if_differs``: why ours disagrees, quoting the computed number
          (required if the rule fails, whatever the basis);
        * ``basis``: what the claim was evaluated on (:data:`BASES`); anything but the
          paper's data gives "qualitative only";
        * ``tried``: what was tried (trials, readings, data variants), required for
          every verdict other than "reproduced";
        * ``about="implementation"`` for claims about the authors' implementation
          (running time, speed-ups), with ``implementation`` naming the faithful
          implementation of the paper's algorithm it was measured on;
        * ``note``: a free remark shown in the row's detail.

        Returns the verdict.  Raises ValueError for a failing rule without a computed
        reason, a non-reproduced row without ``tried``, a missing source, a rule that
        raises, an unknown basis, or a tolerance tighter than a read-off precision.
        """
        row = _claim_row(
            claim,
            paper,
            ours,
            rule,
            reason_if_differs=reason_if_differs,
            basis=basis,
            source=source,
            tried=tried,
            about=about,
            implementation=implementation,
            note=note,
        )
        self._rows.append(row)
        return row["verdict"]

    # ------------------------------------------------------------------ views
    def frame(self) -> pd.DataFrame:
        """One row per claim, columns :attr:`COLUMNS` (index from 1)."""
        df = pd.DataFrame(self._rows, columns=list(self.COLUMNS))
        df.index = pd.RangeIndex(1, len(df) + 1, name="#")
        return df

    def totals(self) -> dict[str, int]:
        """Number of claims per verdict (all four verdicts present, possibly 0)."""
        out = {v: 0 for v in VERDICTS}
        for row in self._rows:
            out[row["verdict"]] += 1
        return out

    def missing_sources(self) -> list[str]:
        """The claims whose paper value has no ``source`` (rows with ``paper=None`` excepted)."""
        return [r["claim"] for r in self._rows if not r["source"] and r["paper"] is not None]

    def show(self) -> Any:
        """The table as a reader scans it: claim (with where the paper makes it), paper, ours, a verdict badge.

        Everything else (reason, criterion and evidence, basis, what was tried, note)
        sits in a collapsed detail under each claim (an HTML ``<details>``, which opens
        without JavaScript).  Values go through :func:`ldp.pages.format_value`.  Each
        row has the anchor ``claim-{chapter}-{i}``, which the scoreboard links to.
        Only the presentation differs from :meth:`frame`: the data are the same.
        """
        return _claims_html(self.chapter, self._rows)

    # ------------------------------------------------------------------ publication
    def glue(self) -> None:
        """Glue (``display=False``) every verdict and value for the prose and the scoreboard.

        Keys (claims numbered from 1 in order of addition):

        * ``{chapter}-claim-{i}-verdict``, ``-check``, ``-ours``, ``-paper``;
        * ``{chapter}-claims-total-reproduced``, ``-total-differs``,
          ``-total-not-reproducible``, ``-total-qualitative-only`` and
          ``{chapter}-claims-total``;
        * ``{chapter}-claims``: the whole table as a DataFrame.

        When the environment variable ``LDP_CLAIMS_DIR`` is set (the Makefile sets it
        for each profile's build), the table is also written there as
        ``{chapter}.json`` (:meth:`write_json`), for :func:`verdict_changes`.

        ``myst_nb`` is imported only when this is called, so :mod:`ldp` does not need the book toolchain.
        """
        from ldp.pages import glue_values

        values: dict[str, Any] = {}
        for i, row in enumerate(self._rows, start=1):
            values.update(
                {
                    f"claim-{i}-verdict": row["verdict"],
                    f"claim-{i}-check": row["check"],
                    f"claim-{i}-ours": row["ours"],
                    f"claim-{i}-paper": row["paper"],
                }
            )
        for verdict, count in self.totals().items():
            values[f"claims-total-{verdict.replace(' ', '-')}"] = count
        values["claims-total"] = len(self)
        glue_values(values, prefix=self.chapter)
        record_dir = os.environ.get(RECORD_ENV)
        if record_dir:
            self.write_json(Path(record_dir) / f"{self.chapter}.json")
        with pd.option_context("display.max_colwidth", None):  # reasons are shown whole on the scoreboard
            glue_values({"claims": self.frame()}, prefix=self.chapter)

    def to_records(self) -> list[dict[str, Any]]:
        """The rows as JSON-ready dicts (numpy values converted, other objects as strings)."""
        return [{k: _jsonable(v) for k, v in row.items()} for row in self._rows]

    def write_json(self, path: str | Path) -> Path:
        """Write the table (chapter, rows with verdicts) to ``path`` as JSON; returns the path."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            json.dumps(
                {"chapter": self.chapter, "profile": current_profile(), "claims": self.to_records()},
                indent=1,
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
        return p

    @classmethod
    def read_json(cls, path: str | Path) -> ClaimsTable:
        """Read a table written by :meth:`write_json` (verdicts are read back, not recomputed).

        Files written before the basis/check/source columns existed read as claims on
        the paper's data with no source.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "chapter" not in data or "claims" not in data:
            raise ValueError(f"{path}: not a claims table (needs 'chapter' and 'claims')")
        table = cls(data["chapter"])
        for i, row in enumerate(data["claims"], start=1):
            verdict = row.get("verdict")
            if verdict not in VERDICTS:
                raise ValueError(f"{path}: claim {i} has an unknown verdict {verdict!r}")
            if verdict == DIFFERS and not row.get("reason"):
                raise ValueError(f"{path}: claim {i} differs but has no reason")
            basis = row.get("basis") or PAPER_DATA
            if (
                basis not in BASES
                or (verdict in (REPRODUCED, DIFFERS)) != (basis == PAPER_DATA)
                and verdict != NOT_REPRODUCIBLE
            ):
                raise ValueError(
                    f"{path}: claim {i} has verdict {verdict!r} on basis {basis!r}, which the policy does not allow"
                )
            defaults = {
                "reason": "",
                "criterion": "",
                "evidence": "",
                "tried": "",
                "note": "",
                "source": "",
                "basis": PAPER_DATA,
                "check": {REPRODUCED: AGREES, DIFFERS: DISAGREES}.get(verdict, ""),
            }
            table._rows.append(
                {k: row.get(k) if row.get(k) is not None or k not in defaults else defaults[k] for k in cls.COLUMNS}
            )
            table._rows[-1]["basis"] = basis
            for k in ("paper", "ours"):
                table._rows[-1][k] = _from_json(table._rows[-1][k])
        return table


def scoreboard(tables: Iterable[ClaimsTable]) -> pd.DataFrame:
    """Counts per verdict for each chapter, plus a ``total`` row (for the scoreboard page).

    Columns: the four verdicts, ``claims`` (their sum) and ``without source`` (claims
    whose paper value has no stated provenance, see :meth:`ClaimsTable.missing_sources`).
    """
    rows = []
    for t in tables:
        if not isinstance(t, ClaimsTable):
            raise TypeError(f"scoreboard needs ClaimsTable objects, got {type(t).__name__}")
        rows.append({"chapter": t.chapter, **t.totals(), "claims": len(t), "without source": len(t.missing_sources())})
    df = pd.DataFrame(rows, columns=["chapter", *VERDICTS, "claims", "without source"]).set_index("chapter")
    df.loc["total"] = df.sum(axis=0)
    return df.astype(int)


def _read_dir(path: str | Path) -> dict[str, ClaimsTable]:
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such folder of claims tables (build the book at that profile first)")
    tables = {p.stem: ClaimsTable.read_json(p) for p in sorted(folder.glob("*.json"))}
    if not tables:
        raise ValueError(f"{folder}: no claims tables (*.json) in it")
    return tables


def verdict_changes(a: str | Path, b: str | Path) -> pd.DataFrame:
    """The claims whose verdict differs between two folders of claims tables (e.g. two profiles' builds).

    Rows are matched by chapter and claim text; a claim present in only one folder
    is listed with the verdict ``"(absent)"`` on the other side.  Columns:
    ``chapter``, ``claim``, ``a``, ``b`` (the two verdicts).
    """
    ta, tb = _read_dir(a), _read_dir(b)
    rows = []
    for chapter in sorted(set(ta) | set(tb)):
        va = {r["claim"]: r["verdict"] for r in (ta[chapter]._rows if chapter in ta else [])}
        vb = {r["claim"]: r["verdict"] for r in (tb[chapter]._rows if chapter in tb else [])}
        for claim in list(va) + [c for c in vb if c not in va]:
            x, y = va.get(claim, "(absent)"), vb.get(claim, "(absent)")
            if x != y:
                rows.append({"chapter": chapter, "claim": claim, "a": x, "b": y})
    return pd.DataFrame(rows, columns=["chapter", "claim", "a", "b"])


def main(argv: list[str] | None = None) -> int:
    """``python -m ldp.claims diff A B``: print the claims whose verdict differs between two folders.

    Exit status 0 when every verdict agrees, 1 when some differ, 2 on a usage error.
    """
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "diff":
        print("usage: python -m ldp.claims diff FOLDER_A FOLDER_B", file=sys.stderr)
        return 2
    try:
        changes = verdict_changes(args[1], args[2])
        n = sum(len(t) for t in _read_dir(args[1]).values())
    except ValueError as exc:
        print(f"ldp.claims: {exc}", file=sys.stderr)
        return 2
    if changes.empty:
        print(f"All {n} verdicts agree between {args[1]} and {args[2]}.")
        return 0
    print(f"{len(changes)} of {n} claims have a different verdict ({args[1]} -> {args[2]}):")
    for r in changes.itertuples():
        print(f"  [{r.chapter}] {r.claim}: {r.a} -> {r.b}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
