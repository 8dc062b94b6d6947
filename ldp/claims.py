"""Claims tables: the paper's claim, its value, ours, and a verdict computed by an explicit rule.

Every experiments notebook ends with one :class:`ClaimsTable`::

    table = ClaimsTable("lopub")
    table.add("EM AVD at k=2, eps=1", paper=0.08, ours=avd_em, rule=within_rel(0.25),
              reason_if_differs="the paper's Bloom parameters are ambiguous (spec 001 §9)")
    table.add("OUE beats GRR for d > 3e^eps+2", paper=True, ours=bool(v_oue < v_grr), rule=ordering_holds())
    table.add("TPC-E running time", paper=12.3, ours=None, rule=not_reproducible("TPC-E is not public"))
    table.glue()
    table.show()

A verdict is exactly one of ``"reproduced"``, ``"differs"`` and ``"not
reproducible"``.  It is never typed by hand: the rule decides.  Because the
outcome is only known when the notebook runs (a smoke-size run is noisier than
the book run), every claim that *could* differ must carry ``reason_if_differs``;
a differing claim without a reason raises ``ValueError``.

:meth:`ClaimsTable.glue` publishes every verdict with ``myst_nb.glue`` for the
prose and the scoreboard page; :meth:`ClaimsTable.write_json` /
:meth:`ClaimsTable.read_json` and :func:`scoreboard` let the scoreboard
aggregate all chapters without re-running them.
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
    "VERDICTS",
    "Rule",
    "ClaimsTable",
    "within_rel",
    "within_abs",
    "same_sign",
    "same_order",
    "ordering_holds",
    "not_reproducible",
    "scoreboard",
]

REPRODUCED = "reproduced"
DIFFERS = "differs"
NOT_REPRODUCIBLE = "not reproducible"
VERDICTS = (REPRODUCED, DIFFERS, NOT_REPRODUCIBLE)

_CHAPTER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


# ---------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class Rule:
    """A named criterion ``(paper, ours) -> bool``; ``description`` is shown in the table."""

    description: str
    test: Callable[[Any, Any], bool] = field(repr=False)

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


def _tol(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) \
            or not (math.isfinite(float(tol)) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    return float(tol)


def within_rel(tol: float) -> Rule:
    """Reproduced when ``|ours - paper| <= tol·|paper|`` (element-wise for arrays; NaN fails).

    With ``paper == 0`` only an exact match passes; use :func:`within_abs` there.
    """
    t = _tol(tol)

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.abs(o - p) <= t * np.abs(p)))

    return Rule(f"within {t:.0%} (relative)" if t >= 0.01 else f"within {t:g} (relative)", test)


def within_abs(tol: float) -> Rule:
    """Reproduced when ``|ours - paper| <= tol`` (element-wise; NaN fails)."""
    t = _tol(tol)

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.abs(o - p) <= t))

    return Rule(f"within ±{t:g} (absolute)", test)


def same_sign() -> Rule:
    """Reproduced when ours has the paper's sign (element-wise; zero matches only zero)."""

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper"), _num(ours, "ours")
        return bool(np.all(np.isfinite(o)) and np.all(np.sign(o) == np.sign(p)))

    return Rule("same sign", test)


def same_order() -> Rule:
    """Reproduced when ``ours`` ranks its entries as ``paper`` does.

    Both are sequences of the same length (e.g. one error per method); every pair
    that the paper strictly orders must be ordered the same way by ours (pairs
    tied in the paper are not constrained).
    """

    def test(paper: Any, ours: Any) -> bool:
        p, o = _num(paper, "paper").ravel(), _num(ours, "ours").ravel()
        if p.size != o.size:
            raise ValueError(f"same_order needs paper and ours of the same length, got {p.size} and {o.size}")
        dp = np.sign(p[:, None] - p[None, :])
        do = np.sign(o[:, None] - o[None, :])
        return bool(np.all(np.isfinite(o)) and np.all((dp == 0) | (dp == do)))

    return Rule("same ordering", test)


def ordering_holds() -> Rule:
    """For qualitative claims: ``ours`` is a boolean (or booleans) computed in code, ``paper`` is True.

    Reproduced when every entry of ``ours`` equals ``paper``.
    """

    def test(paper: Any, ours: Any) -> bool:
        o = np.asarray(ours)
        if o.dtype != bool:
            raise TypeError(f"ordering_holds needs ours to be a bool (or bools) computed in code, got {ours!r}")
        return bool(np.all(o == bool(paper)))

    return Rule("qualitative claim holds", test)


def not_reproducible(why: str) -> _NotReproducible:
    """Mark a claim that cannot be checked here (e.g. data or hardware not available offline).

    The verdict is ``"not reproducible"`` and ``why`` becomes its reason.
    """
    if not isinstance(why, str) or not why.strip():
        raise ValueError("not_reproducible needs a non-empty explanation 'why'")
    return _NotReproducible(why.strip())


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


class ClaimsTable:
    """The claims of one chapter and their computed verdicts.

    Parameters
    ----------
    chapter : str
        Short key used in glue names (letters, digits, ``-`` and ``_``), e.g.
        ``"lopub"``.
    """

    COLUMNS = ("claim", "paper", "ours", "verdict", "reason", "criterion", "note")

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
        note: str = "",
        reason: str = "",
    ) -> str:
        """Add one claim; the verdict is computed from ``rule(paper, ours)``.

        Parameters
        ----------
        claim : str
            The claim in a few words.
        paper, ours : Any
            The paper's value and ours (numbers, arrays, booleans or None).
        rule : Rule or callable or the result of :func:`not_reproducible`
            ``rule(paper, ours) -> bool``: True means reproduced.
        reason_if_differs : str
            Why ours may differ (required if the verdict turns out "differs").
            ``reason`` is accepted as a synonym.
        note : str
            Free remark shown in the table.

        Returns
        -------
        str
            The verdict.

        Raises
        ------
        ValueError
            If the verdict is "differs" and no reason was given, or the rule fails.
        """
        if not isinstance(claim, str) or not claim.strip():
            raise ValueError("claim must be a non-empty string")
        if reason and reason_if_differs and reason != reason_if_differs:
            raise ValueError("give either reason_if_differs or reason, not two different texts")
        why = (reason_if_differs or reason).strip()
        if isinstance(rule, _NotReproducible):
            verdict, shown, criterion = NOT_REPRODUCIBLE, rule.why, rule.description
        elif callable(rule):
            try:
                ok = rule(paper, ours)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"rule failed on claim {claim!r}: {exc}") from exc
            if not isinstance(ok, (bool, np.bool_)):
                raise TypeError(f"rule must return a bool, got {type(ok).__name__} on claim {claim!r}")
            verdict = REPRODUCED if ok else DIFFERS
            criterion = getattr(rule, "description", getattr(rule, "__name__", "custom rule"))
            if verdict == DIFFERS and not why:
                raise ValueError(
                    f"claim {claim!r} differs from the paper (paper={paper!r}, ours={ours!r}, "
                    f"criterion: {criterion}) but no reason_if_differs was given"
                )
            shown = why if verdict == DIFFERS else ""
        else:
            raise TypeError(f"rule must be callable or not_reproducible(...), got {type(rule).__name__}")
        self._rows.append(dict(claim=claim.strip(), paper=paper, ours=ours, verdict=verdict,
                               reason=shown, criterion=str(criterion), note=note))
        return verdict

    # ------------------------------------------------------------------ views
    def frame(self) -> pd.DataFrame:
        """One row per claim: claim, paper, ours, verdict, reason, criterion, note (index from 1)."""
        df = pd.DataFrame(self._rows, columns=list(self.COLUMNS))
        df.index = pd.RangeIndex(1, len(df) + 1, name="#")
        return df

    def totals(self) -> dict[str, int]:
        """Number of claims per verdict (every verdict present, possibly 0)."""
        out = {v: 0 for v in VERDICTS}
        for row in self._rows:
            out[row["verdict"]] += 1
        return out

    def show(self) -> Any:
        """A styled DataFrame for display: verdicts coloured, long text wrapped."""
        colours = {REPRODUCED: "#d8f0d8", DIFFERS: "#f8d8d0", NOT_REPRODUCIBLE: "#e6e6e6"}
        df = self.frame().drop(columns=["note"] if not any(r["note"] for r in self._rows) else [])

        def fmt(v: Any) -> str:
            if v is None:
                return "—"
            if isinstance(v, (float, np.floating)):
                return f"{v:.4g}"
            if isinstance(v, np.ndarray):
                return np.array2string(v, precision=3, threshold=8)
            return str(v)

        styler = df.style.format(escape="html").format({"paper": fmt, "ours": fmt}, escape="html")
        styler = styler.map(lambda v: f"background-color: {colours.get(v, '')}", subset=["verdict"])
        return styler.set_properties(**{"text-align": "left", "white-space": "normal"})

    # ------------------------------------------------------------------ publication
    def glue(self) -> None:
        """Glue (``display=False``) every verdict and value for the prose and the scoreboard.

        Keys (claims numbered from 1 in order of addition):

        * ``{chapter}-claim-{i}-verdict``, ``{chapter}-claim-{i}-ours``, ``{chapter}-claim-{i}-paper``;
        * ``{chapter}-claims-total-reproduced``, ``-total-differs``, ``-total-not-reproducible``
          and ``{chapter}-claims-total``;
        * ``{chapter}-claims``: the whole table as a DataFrame.

        ``myst_nb`` is imported here only, so :mod:`ldp` does not need the book toolchain.
        """
        try:
            from myst_nb import glue
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("ClaimsTable.glue needs myst_nb (pip install 'ldp-compendium[book]')") from exc
        def plain(v: Any) -> Any:  # numpy scalars' reprs (np.float64(...)) break glue's number formatting
            return v.item() if isinstance(v, np.generic) else v

        for i, row in enumerate(self._rows, start=1):
            glue(f"{self.chapter}-claim-{i}-verdict", row["verdict"], display=False)
            glue(f"{self.chapter}-claim-{i}-ours", plain(row["ours"]), display=False)
            glue(f"{self.chapter}-claim-{i}-paper", plain(row["paper"]), display=False)
        for verdict, count in self.totals().items():
            glue(f"{self.chapter}-claims-total-{verdict.replace(' ', '-')}", count, display=False)
        glue(f"{self.chapter}-claims-total", len(self), display=False)
        with pd.option_context("display.max_colwidth", None):  # reasons are shown whole on the scoreboard
            glue(f"{self.chapter}-claims", self.frame(), display=False)

    def to_records(self) -> list[dict[str, Any]]:
        """The rows as JSON-ready dicts (numpy values converted, other objects as strings)."""
        return [{k: _jsonable(v) for k, v in row.items()} for row in self._rows]

    def write_json(self, path: str | Path) -> Path:
        """Write the table (chapter, rows with verdicts) to ``path`` as JSON; returns the path."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"chapter": self.chapter, "claims": self.to_records()}, indent=1,
                                ensure_ascii=False), encoding="utf-8")
        return p

    @classmethod
    def read_json(cls, path: str | Path) -> ClaimsTable:
        """Read a table written by :meth:`write_json` (verdicts are read back, not recomputed)."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "chapter" not in data or "claims" not in data:
            raise ValueError(f"{path}: not a claims table (needs 'chapter' and 'claims')")
        table = cls(data["chapter"])
        for i, row in enumerate(data["claims"], start=1):
            if row.get("verdict") not in VERDICTS:
                raise ValueError(f"{path}: claim {i} has an unknown verdict {row.get('verdict')!r}")
            if row["verdict"] == DIFFERS and not row.get("reason"):
                raise ValueError(f"{path}: claim {i} differs but has no reason")
            table._rows.append({k: row.get(k, "" if k in ("reason", "criterion", "note") else None)
                                for k in cls.COLUMNS})
        return table


def scoreboard(tables: Iterable[ClaimsTable]) -> pd.DataFrame:
    """Counts per verdict for each chapter, plus a ``total`` row (for the scoreboard page)."""
    rows = []
    for t in tables:
        if not isinstance(t, ClaimsTable):
            raise TypeError(f"scoreboard needs ClaimsTable objects, got {type(t).__name__}")
        rows.append({"chapter": t.chapter, **t.totals(), "claims": len(t)})
    df = pd.DataFrame(rows, columns=["chapter", *VERDICTS, "claims"]).set_index("chapter")
    df.loc["total"] = df.sum(axis=0)
    return df.astype(int)
