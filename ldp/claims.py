"""Claims tables: the paper's claim, its value, ours, and a verdict computed under one policy.

Every experiments notebook ends with one :class:`ClaimsTable`::

    from ldp.claims import ClaimsTable, agrees_within, read_off, printed, same_order, margin_from_se

    table = ClaimsTable("lopub")
    table.add("EM AVD at k=2, eps=1", paper=0.08, ours=avd_em,
              rule=agrees_within(0.02, our_se=se_em, z=3),
              source=read_off("Fig. 6a", precision=0.02),
              reason_if_differs="EM stops early at large f (section 'EM in practice')")
    table.add("OUE beats GRR for d > 3e^eps+2", paper=[2.0, 1.0], ours=[v_grr, v_oue],
              rule=same_order(margin=margin_from_se(se_grr, se_oue)), source=printed("Sec. 4.2"))
    table.add("Fig. 4(b) saturates near 2.4", paper=2.4, ours=sat, rule=agrees_within(0.1, se_sat),
              basis="calibrated", source=read_off("Fig. 4(b)", precision=0.1))
    table.add("TPC-E running time", paper=12.3, ours=None, rule=not_reproducible("TPC-E is not public"))
    table.glue()
    table.show()

The policy (written out for readers on the book page ``book/verdict-policy.md``)
---------------------------------------------------------------------------------
A verdict is exactly one of four words, and it is never typed by hand:

``"reproduced"``
    the rule holds, and the claim was evaluated on the paper's data (or on data
    generated exactly as the paper says): ``basis="paper data"``, the default;
``"differs"``
    the rule fails on the paper's data; ``reason_if_differs`` must say why (a
    differing claim without a reason raises ``ValueError``);
``"not reproducible"``
    the rule is :func:`not_reproducible` (data, hardware or a detail of the paper
    is missing), with why;
``"qualitative only"``
    the claim was evaluated on anything else: a stand-in for data we do not have
    (``basis="stand-in"``), a model of the authors' code (``basis="model"``), or a
    stand-in calibrated to the very value under test (``basis="calibrated"``).
    The rule is still evaluated and its outcome is shown in the ``check`` column
    ("agrees" / "disagrees"), but such a claim never counts as reproduced.

Tolerances are built from two parts that the criterion shows side by side: the
precision of the paper's value (half a unit of the last printed digit, or the
precision of reading a figure) and our Monte-Carlo standard error times ``z``
(:func:`agrees_within`, :func:`agrees_within_rel`).  A value read off a figure
(``source=read_off(...)``) cannot be tested with a tolerance tighter than its
reading precision: :meth:`ClaimsTable.add` raises.  Ordering claims state the
margin they need (:func:`same_order`, :func:`exceeds`, derived from the noise with
:func:`margin_from_se`), so that a tie does not pass.  Claims about this
project's own speed or engineering targets are not claims of a paper and belong
in the benchmarks, not here.

:meth:`ClaimsTable.glue` publishes every verdict with ``myst_nb.glue`` for the
prose and the scoreboard page; :meth:`ClaimsTable.write_json` /
:meth:`ClaimsTable.read_json` and :func:`scoreboard` let the scoreboard
aggregate all chapters without re-running them.  To glue many plain numbers of a
page at once, see :func:`ldp.pages.glue_values`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

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
    "Rule",
    "Source",
    "printed",
    "read_off",
    "ClaimsTable",
    "agrees_within",
    "agrees_within_rel",
    "within_rel",
    "within_abs",
    "margin_from_se",
    "same_sign",
    "same_order",
    "exceeds",
    "at_most",
    "at_least",
    "in_range",
    "ordering_holds",
    "not_reproducible",
    "scoreboard",
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

_CHAPTER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


# ---------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class Rule:
    """A named criterion ``(paper, ours) -> bool``; ``description`` is shown in the table.

    ``paper_precision`` is the part of a tolerance that accounts for the precision of
    the paper's value (``relative`` says whether it is a fraction of ``|paper|``); it
    is None for rules without a tolerance.  :meth:`ClaimsTable.add` uses it to refuse
    a tolerance tighter than the reading precision of a value read off a figure.
    """

    description: str
    test: Callable[[Any, Any], bool] = field(repr=False)
    paper_precision: float | None = None
    relative: bool = False

    def __call__(self, paper: Any, ours: Any) -> bool:
        return bool(self.test(paper, ours))


@dataclass(frozen=True)
class _NotReproducible:
    why: str
    description: str = "not reproducible"


def _num(v: Any, what: str) -> np.ndarray:
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


def _fmt(x: Any) -> str:
    """A number (or the range of an array) in a short form for descriptions."""
    if isinstance(x, np.ndarray):
        lo, hi = float(x.min()), float(x.max())
        return f"{lo:.2g}" if lo == hi else f"[{lo:.2g}–{hi:.2g}]"
    return f"{x:.2g}"


_PRECISION_LABELS = ("reading", "printed", "stated")


def _tolerance_rule(paper_precision: Any, our_se: Any, z: float, label: str, relative: bool) -> Rule:
    pp = _nonneg(paper_precision, "paper_precision")
    se = _nonneg(our_se, "our_se", array=True)
    zz = _nonneg(z, "z", positive=True)
    if label not in _PRECISION_LABELS:
        raise ValueError(f"label must be one of {_PRECISION_LABELS}, got {label!r}")

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        allowed = (pp * np.abs(p) if relative else pp) + zz * np.asarray(se)
        return bool(np.all(np.abs(o - p) <= allowed))

    first = f"{pp:.0%}·|paper|" if relative and pp >= 0.01 else (f"{pp:g}·|paper|" if relative else f"{pp:g}")
    desc = f"|ours − paper| ≤ {first} ({label}) + {zz:g}×{_fmt(se)} (MC s.e.)"
    return Rule(desc, test, paper_precision=pp, relative=relative)


def agrees_within(paper_precision: float, our_se: Any = 0.0, *, z: float = 3.0, label: str = "reading") -> Rule:
    """Agrees when ``|ours - paper| <= paper_precision + z * our_se`` (absolute; element-wise; NaN fails).

    Parameters
    ----------
    paper_precision : float
        Precision of the paper's value: half a unit of the last printed digit for a
        printed number, the reading precision for a value read off a figure.
    our_se : float or array
        Monte-Carlo standard error of our value (0 for an exact computation); an
        array gives one per element.
    z : float
        How many standard errors of ours are allowed (3 by default).
    label : {"reading", "printed", "stated"}
        What ``paper_precision`` is, shown in the description, e.g.
        ``"|ours − paper| ≤ 0.02 (reading) + 3×0.004 (MC s.e.)"``.
    """
    return _tolerance_rule(paper_precision, our_se, z, label, relative=False)


def agrees_within_rel(paper_precision: float, our_se: Any = 0.0, *, z: float = 3.0, label: str = "reading") -> Rule:
    """Agrees when ``|ours - paper| <= paper_precision·|paper| + z * our_se``.

    As :func:`agrees_within`, but the paper's precision is a fraction of the
    paper's value (e.g. 0.2 for values read off a log axis to about ±20 %);
    ``our_se`` stays absolute, in the units of the value.
    """
    return _tolerance_rule(paper_precision, our_se, z, label, relative=True)


def within_rel(tol: float) -> Rule:
    """Reproduced when ``|ours - paper| <= tol·|paper|`` (element-wise for arrays; NaN fails).

    A single tolerance that does not separate the paper's precision from our
    sampling error; prefer :func:`agrees_within_rel` in new claims.  With
    ``paper == 0`` only an exact match passes; use :func:`within_abs` there.
    """
    t = _tol(tol)

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.abs(o - p) <= t * np.abs(p)))

    return Rule(
        f"within {t:.0%} (relative)" if t >= 0.01 else f"within {t:g} (relative)",
        test,
        paper_precision=t,
        relative=True,
    )


def within_abs(tol: float) -> Rule:
    """Reproduced when ``|ours - paper| <= tol`` (element-wise; NaN fails).

    A single tolerance; prefer :func:`agrees_within` in new claims, which shows the
    paper's precision and our sampling error separately.
    """
    t = _tol(tol)

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.abs(o - p) <= t))

    return Rule(f"within ±{t:g} (absolute)", test, paper_precision=t)


def margin_from_se(se_a: float, se_b: float = 0.0, *, z: float = 3.0) -> float:
    """The margin an ordering needs so that noise alone does not decide it: ``z·sqrt(se_a² + se_b²)``.

    ``se_a`` and ``se_b`` are the standard errors of the two values compared (a
    comparison with an exact value has ``se_b = 0``).
    """
    a = _nonneg(se_a, "se_a")
    b = _nonneg(se_b, "se_b")
    return _nonneg(z, "z", positive=True) * math.hypot(a, b)


def same_sign() -> Rule:
    """Reproduced when ours has the paper's sign (element-wise; zero matches only zero)."""

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.isfinite(o)) and np.all(np.sign(o) == np.sign(p)))

    return Rule("same sign", test)


def same_order(margin: float = 0.0) -> Rule:
    """Agrees when ``ours`` orders its entries as ``paper`` does, each by more than ``margin``.

    Both are sequences of the same length (e.g. one error per method).  Every pair
    that the paper strictly orders must be ordered the same way by ours, with a gap
    strictly larger than ``margin`` (so a tie never passes, even at ``margin=0``);
    pairs tied in the paper are not constrained.  Derive ``margin`` from the noise
    with :func:`margin_from_se`.
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

    return Rule(f"same ordering, every gap > {m:g}" if m > 0 else "same ordering (strict, no margin)", test)


def exceeds(margin: float = 0.0) -> Rule:
    """Agrees when ``ours > paper + margin`` (element-wise; a tie fails; NaN fails).

    For claims "ours is larger than the reference"; pass the reference as
    ``paper`` and derive ``margin`` from the noise (:func:`margin_from_se`).  Against
    a value read off a figure the margin must be at least the reading precision.
    """
    m = _nonneg(margin, "margin")

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(o - p > m))

    return Rule(f"ours > paper + {m:g}" if m > 0 else "ours > paper (strict)", test, paper_precision=m)


def _bound_rule(bound: Any, tol: float, upper: bool) -> Rule:
    t = _tol(tol)
    if bound is not None:
        _num(bound, "bound")
    op, sign = ("≤", "+") if upper else ("≥", "−")
    ref = "paper" if bound is None else _fmt(np.asarray(bound, dtype=float)) if np.ndim(bound) else f"{bound:g}"

    def test(paper: Any, ours: Any) -> bool:
        b = _num(paper if bound is None else bound, "paper" if bound is None else "bound")
        o = _num(ours, "ours")
        return bool(np.all(o <= b + t) if upper else np.all(o >= b - t))

    return Rule(
        f"ours {op} {ref}" + (f" {sign} {t:g}" if t > 0 else ""), test, paper_precision=t if bound is None else None
    )


def at_most(bound: float | None = None, *, tol: float = 0.0) -> Rule:
    """Agrees when ``ours <= bound + tol`` (element-wise; NaN fails).

    With ``bound=None`` the bound is the paper's value (claims such as "the error
    is at most the paper's").  ``tol`` is an allowance that must come from the
    paper's precision or our noise, never chosen to make the claim pass; against a
    value read off a figure it must be at least the reading precision.
    """
    return _bound_rule(bound, tol, upper=True)


def at_least(bound: float | None = None, *, tol: float = 0.0) -> Rule:
    """Agrees when ``ours >= bound - tol`` (element-wise; NaN fails); ``bound=None`` means the paper's value."""
    return _bound_rule(bound, tol, upper=False)


def in_range() -> Rule:
    """Agrees when ``lo <= ours <= hi`` for the paper's quoted range ``paper = (lo, hi)``."""

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper").ravel(), _num(ours, "ours")
        if p.size != 2 or not p[0] <= p[1]:
            raise ValueError(f"in_range needs paper = (lo, hi) with lo <= hi, got {paper!r}")
        return bool(np.all((o >= p[0]) & (o <= p[1])))

    return Rule("inside the paper's range", test)


def ordering_holds() -> Rule:
    """For qualitative claims: ``ours`` is a boolean (or booleans) computed in code, ``paper`` is True.

    Agrees when every entry of ``ours`` equals ``paper``.  A bare boolean cannot
    express the margin an ordering needs (the comparison that produced it may have
    been decided by noise); for orderings of measured values prefer
    :func:`same_order`, :func:`exceeds`, :func:`at_most` or :func:`at_least`.
    """

    def test(paper: Any, ours: Any) -> bool:
        o = np.asarray(ours)
        if o.dtype != bool:
            raise TypeError(f"ordering_holds needs ours to be a bool (or bools) computed in code, got {ours!r}")
        return bool(np.all(o == bool(paper)))

    return Rule("qualitative claim holds (no margin)", test)


def not_reproducible(why: str) -> _NotReproducible:
    """Mark a claim that cannot be checked here (e.g. data or hardware not available offline).

    The verdict is ``"not reproducible"`` and ``why`` becomes its reason.
    """
    if not isinstance(why, str) or not why.strip():
        raise ValueError("not_reproducible needs a non-empty explanation 'why'")
    return _NotReproducible(why.strip())


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
        p = f"±{self.precision:.0%}" if self.relative else f"±{self.precision:g}"
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
    return str(v)


def _judge(
    claim: str, paper: Any, ours: Any, rule: Callable[[Any, Any], bool], *, why: str, basis: str, source: Source | str
) -> tuple[str, str, str, str]:
    """``(verdict, reason shown, criterion, check)`` of a claim judged by a callable rule (:meth:`ClaimsTable.add`)."""
    if isinstance(source, Source):
        _check_precision(claim, rule, source, paper)
    try:
        ok = rule(paper, ours)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"rule failed on claim {claim!r}: {exc}") from exc
    if not isinstance(ok, (bool, np.bool_)):
        raise TypeError(f"rule must return a bool, got {type(ok).__name__} on claim {claim!r}")
    check = AGREES if ok else DISAGREES
    criterion = getattr(rule, "description", getattr(rule, "__name__", "custom rule"))
    if not ok and not why:
        raise ValueError(
            f"claim {claim!r} differs from the paper (paper={paper!r}, ours={ours!r}, "
            f"criterion: {criterion}) but no reason_if_differs was given"
        )
    if basis != PAPER_DATA:
        shown = _BASIS_REASON[basis] + ("" if ok else f"; the check disagrees: {why}")
        return QUALITATIVE_ONLY, shown, criterion, check
    return (REPRODUCED, "", criterion, check) if ok else (DIFFERS, why, criterion, check)


def _claim_row(
    claim: str,
    paper: Any,
    ours: Any,
    rule: Rule | _NotReproducible | Callable[[Any, Any], bool],
    reason_if_differs: str,
    basis: str,
    source: Source | str,
    note: str,
) -> dict[str, Any]:
    """The validated and judged row of one claim (the arguments of :meth:`ClaimsTable.add`)."""
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError("claim must be a non-empty string")
    if basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}, got {basis!r}")
    if not isinstance(source, (Source, str)):
        raise TypeError(f"source must be printed(...), read_off(...) or a str, got {type(source).__name__}")
    why = reason_if_differs.strip()
    check = ""
    if isinstance(rule, _NotReproducible):
        verdict, shown, criterion = NOT_REPRODUCIBLE, rule.why, rule.description
    elif callable(rule):
        verdict, shown, criterion, check = _judge(claim, paper, ours, rule, why=why, basis=basis, source=source)
    else:
        raise TypeError(f"rule must be callable or not_reproducible(...), got {type(rule).__name__}")
    return dict(
        claim=claim.strip(),
        paper=paper,
        ours=ours,
        verdict=verdict,
        reason=shown,
        criterion=str(criterion),
        check=check,
        basis=basis,
        source=str(source),
        note=note,
    )


class ClaimsTable:
    """The claims of one chapter and their computed verdicts.

    Parameters
    ----------
    chapter : str
        Short key used in glue names (letters, digits, ``-`` and ``_``), e.g.
        ``"lopub"``.
    """

    COLUMNS = ("claim", "paper", "ours", "verdict", "reason", "criterion", "check", "basis", "source", "note")

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
        rule: Rule | _NotReproducible | Callable[[Any, Any], bool],
        *,
        reason_if_differs: str = "",
        basis: str = PAPER_DATA,
        source: Source | str = "",
        note: str = "",
    ) -> str:
        """Add one claim; the verdict follows from ``rule(paper, ours)`` and ``basis``.

        Parameters
        ----------
        claim : str
            The claim in a few words.
        paper, ours : Any
            The paper's value and ours (numbers, arrays, booleans or None).
        rule : Rule or callable or the result of :func:`not_reproducible`
            ``rule(paper, ours) -> bool``: True means our value agrees.
        reason_if_differs : str
            Why ours may disagree (required if the rule turns out to fail, whatever
            the basis: a notebook cannot record a disagreement without a reason).
        basis : {"paper data", "stand-in", "model", "calibrated"}
            What the claim was evaluated on (:data:`PAPER_DATA`, the default;
            :data:`STAND_IN`; :data:`MODEL` of the authors' code; :data:`CALIBRATED`,
            a stand-in calibrated to this very paper value).  Any basis other than
            the paper's data gives "qualitative only", whatever the rule says.
        source : Source or str
            Provenance of the paper's value: :func:`printed` or :func:`read_off`
            (which also checks the rule's tolerance against the reading
            precision), or a short text such as ``"Table 7 (printed)"``.  Rows
            without a source are listed by :meth:`missing_sources`.
        note : str
            Free remark shown in the table.

        Returns
        -------
        str
            The verdict.

        Raises
        ------
        ValueError
            If the rule fails and no reason was given, the rule raises, the basis is
            unknown, or a tolerance is tighter than a read-off value's precision.
        """
        row = _claim_row(claim, paper, ours, rule, reason_if_differs, basis, source, note)
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

    #: relative widths of the displayed columns (normalised over the columns shown)
    _SHOW_WIDTHS = {"claim": 32, "paper": 9, "ours": 9, "verdict": 12, "rule": 19, "basis": 9, "source": 11, "note": 10}

    def show(self) -> Any:
        """A styled DataFrame for display, readable at page width.

        Fixed column widths (long text wraps inside its column); the reason is
        printed beneath its claim and the rule's outcome ("check") beneath the
        rule, so the table has no column one word wide.  Verdicts are coloured.
        Only the presentation differs from :meth:`frame`: the data are the same.
        """
        import html

        colours = {REPRODUCED: "#d8f0d8", DIFFERS: "#f8d8d0", NOT_REPRODUCIBLE: "#e6e6e6", QUALITATIVE_ONLY: "#f3ecd0"}

        def fmt(v: Any) -> str:
            if v is None:
                return "—"
            if isinstance(v, (float, np.floating)):
                return f"{v:.4g}"
            if isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float, np.number)) for x in v):
                v = np.asarray(v, dtype=float)
            if isinstance(v, np.ndarray) and v.dtype.kind in "fiu":
                return np.array2string(v, threshold=8, separator=", ", formatter={"all": lambda x: f"{x:.4g}"})
            if isinstance(v, np.ndarray):
                return np.array2string(v, threshold=8)
            return str(v)

        def beneath(main: Any, extra: Any) -> str:
            text = html.escape(str(main))
            return text + (f'<br><small class="ldp-beneath">{html.escape(str(extra))}</small>' if extra else "")

        df = self.frame()
        shown = pd.DataFrame(index=df.index)
        shown["claim"] = [beneath(c, r) for c, r in zip(df["claim"], df["reason"])]
        shown["paper"] = [html.escape(fmt(v)) for v in df["paper"]]
        shown["ours"] = [html.escape(fmt(v)) for v in df["ours"]]
        shown["verdict"] = df["verdict"]
        shown["rule"] = [beneath(c, k) for c, k in zip(df["criterion"], df["check"])]
        shown["basis"] = [html.escape(str(v)) for v in df["basis"]]
        for col in ("source", "note"):
            if any(r[col] for r in self._rows):
                shown[col] = [html.escape(str(v)) for v in df[col]]
        total = sum(self._SHOW_WIDTHS[c] for c in shown.columns) + 3
        styles = [
            {"selector": "", "props": "table-layout: fixed; width: 100%;"},
            {"selector": "th.row_heading, th.index_name, th.blank", "props": "width: 3%;"},
        ]
        styles += [
            {"selector": f"th.col{i}", "props": f"width: {100 * self._SHOW_WIDTHS[c] / total:.1f}%;"}
            for i, c in enumerate(shown.columns)
        ]
        styler = shown.style.format(escape=None)
        styler = styler.map(lambda v: f"background-color: {colours.get(v, '')}", subset=["verdict"])
        styler = styler.set_table_styles(styles).set_table_attributes('class="dataframe ldp-claims"')
        styler = styler.set_properties(**{"text-align": "left", "white-space": "normal", "vertical-align": "top"})
        # one-word columns never break inside a word ("reprod-uced")
        return styler.set_properties(subset=["verdict", "basis"], **{"overflow-wrap": "normal", "word-break": "normal"})

    # ------------------------------------------------------------------ publication
    def glue(self) -> None:
        """Glue (``display=False``) every verdict and value for the prose and the scoreboard.

        Keys (claims numbered from 1 in order of addition):

        * ``{chapter}-claim-{i}-verdict``, ``-check``, ``-ours``, ``-paper``;
        * ``{chapter}-claims-total-reproduced``, ``-total-differs``,
          ``-total-not-reproducible``, ``-total-qualitative-only`` and
          ``{chapter}-claims-total``;
        * ``{chapter}-claims``: the whole table as a DataFrame.

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
            json.dumps({"chapter": self.chapter, "claims": self.to_records()}, indent=1, ensure_ascii=False),
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
                "note": "",
                "source": "",
                "basis": PAPER_DATA,
                "check": {REPRODUCED: AGREES, DIFFERS: DISAGREES}.get(verdict, ""),
            }
            table._rows.append(
                {k: row.get(k) if row.get(k) is not None or k not in defaults else defaults[k] for k in cls.COLUMNS}
            )
            table._rows[-1]["basis"] = basis
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
