"""The scoreboard page: its totals are computed from the chapters and follow their verdicts.

Two halves:

* ``ldp.claims``: totals and the glued keys are functions of the verdicts, so changing one chapter's
  outcome changes the scoreboard (checked on tables whose verdict flips with the data, and on the
  values ``ClaimsTable.glue`` publishes);
* ``book/scoreboard.md``: every glue reference names a notebook that exists, is in the toc, builds a
  ``ClaimsTable`` with that chapter key and glues it; every chapter of the toc that has a claims
  table is on the scoreboard with its four verdict totals, its claim count and its table; and the page
  links to the verdict policy.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest
from conftest import REPO, toc_files

from ldp.claims import (
    DIFFERS,
    QUALITATIVE_ONLY,
    REPRODUCED,
    STAND_IN,
    VERDICTS,
    ClaimsTable,
    not_reproducible,
    scoreboard,
    within_rel,
)

PAGE = REPO / "book" / "scoreboard.md"
ROLE = re.compile(r"\{glue:text\}`([^`]+)`")
DIRECTIVE = re.compile(r"```\{glue\}\s+(\S+)\s*\n:doc:\s*(\S+)")
CLAIMS_KEY = re.compile(r"ClaimsTable\(\s*[\"']([A-Za-z0-9_-]+)[\"']\s*\)")
TOTAL_SUFFIXES = (
    "claims-total-reproduced",
    "claims-total-differs",
    "claims-total-not-reproducible",
    "claims-total-qualitative-only",
    "claims-total",
)


# ----------------------------------------------------------------------------- ldp.claims side
def _chapter(name: str, measured: float) -> ClaimsTable:
    """A toy chapter whose second verdict depends on the measured value."""
    t = ClaimsTable(name)
    kw = dict(source="Sec. 1", tried="one exact run")
    t.add("exact identity", paper=1.0, ours=1.0, rule=within_rel(1e-9), **kw)
    t.add("measured value", paper=2.0, ours=measured, rule=within_rel(0.05), reason_if_differs="noise 0.5", **kw)
    t.add("needs the private dataset", paper=3.0, ours=None, rule=not_reproducible("data not public"), **kw)
    t.add(
        "on a stand-in",
        paper=4.0,
        ours=measured * 2,
        rule=within_rel(0.05),
        basis=STAND_IN,
        reason_if_differs="noise 0.5",
        **kw,
    )
    return t


def test_scoreboard_totals_come_from_the_verdicts():
    board = scoreboard([_chapter("a", 2.01), _chapter("b", 2.5)])
    assert board.loc["a", REPRODUCED] == 2 and board.loc["a", DIFFERS] == 0
    assert board.loc["b", REPRODUCED] == 1 and board.loc["b", DIFFERS] == 1
    assert board.loc["a", QUALITATIVE_ONLY] == board.loc["b", QUALITATIVE_ONLY] == 1  # agrees or not, never counted
    assert (board.loc["total"] == board.drop(index="total").sum()).all()
    assert (board[list(VERDICTS)].sum(axis=1) == board["claims"]).all()


def test_changing_one_chapters_verdict_changes_the_scoreboard():
    before = scoreboard([_chapter("a", 2.01), _chapter("b", 2.01)])
    after = scoreboard([_chapter("a", 2.01), _chapter("b", 3.0)])  # b's measurement now differs
    assert before.loc["b", DIFFERS] == 0 and after.loc["b", DIFFERS] == 1
    assert after.loc["total", REPRODUCED] == before.loc["total", REPRODUCED] - 1
    assert after.loc["total", "claims"] == before.loc["total", "claims"]
    assert (after.loc["a"] == before.loc["a"]).all()


def test_totals_survive_the_json_round_trip(tmp_path):
    t = _chapter("a", 3.0)
    back = ClaimsTable.read_json(t.write_json(tmp_path / "a.json"))
    assert back.totals() == t.totals()
    assert back.frame()["reason"].tolist() == t.frame()["reason"].tolist()


def _captured_glue(table: ClaimsTable, monkeypatch) -> dict:
    """What ClaimsTable.glue publishes, captured instead of displayed."""
    captured: dict = {}
    fake = types.ModuleType("myst_nb")
    fake.glue = lambda name, value, display=True: captured.__setitem__(name, value)
    monkeypatch.setitem(sys.modules, "myst_nb", fake)
    table.glue()
    return captured


def test_glued_totals_follow_the_verdicts(monkeypatch):
    good = _captured_glue(_chapter("c", 2.0), monkeypatch)
    bad = _captured_glue(_chapter("c", 9.0), monkeypatch)
    assert good["c-claims-total-reproduced"] == 2 and bad["c-claims-total-reproduced"] == 1
    assert good["c-claims-total-differs"] == 0 and bad["c-claims-total-differs"] == 1
    assert good["c-claims-total-not-reproducible"] == bad["c-claims-total-not-reproducible"] == 1
    assert good["c-claims-total-qualitative-only"] == bad["c-claims-total-qualitative-only"] == 1
    assert good["c-claims-total"] == bad["c-claims-total"] == 4
    assert bad["c-claim-2-verdict"] == DIFFERS
    assert list(bad["c-claims"]["reason"])[:3] == ["", "noise 0.5", "data not public"]
    assert bad["c-claims"]["reason"].iloc[3].startswith("evaluated on a stand-in")


def glued_keys(chapter: str, monkeypatch) -> set[str]:
    """The keys ClaimsTable(chapter).glue() publishes for a table with one claim of each verdict."""
    t = ClaimsTable(chapter)
    t.add("x", 1.0, 1.0, within_rel(0.1), source="Sec. 1")
    return set(_captured_glue(t, monkeypatch))


# ----------------------------------------------------------------------------- the page
def page_references() -> list[tuple[str, str]]:
    """(notebook path relative to book/, key) for every glue role and directive of the page."""
    text = PAGE.read_text(encoding="utf-8")
    refs = []
    for body in ROLE.findall(text):
        assert "::" in body, f"scoreboard glue role without a document: {body!r}"
        doc, key_fmt = body.split("::", 1)
        key, sep, fmt = key_fmt.rpartition(":")
        assert sep and key and fmt, (
            f"cross-document glue:text needs a format spec after the key (`path::key:d`), got {body!r}"
        )
        refs.append((doc, key))
    refs += [(doc, key) for key, doc in DIRECTIVE.findall(text)]
    return refs


def _notebook(doc: str) -> Path:
    return (PAGE.parent / doc).resolve()


def test_page_has_references():
    refs = page_references()
    assert refs, "the scoreboard references no chapter"
    text = PAGE.read_text(encoding="utf-8")
    assert len(DIRECTIVE.findall(text)) == text.count("```{glue}"), "every {glue} directive needs a :doc: option"
    assert text.count("```{ldp-claims-board}") == 1, "the table of every claim (book/_ext/ldp_scoreboard.py)"


def test_every_reference_names_a_glued_key_of_an_existing_toc_notebook(monkeypatch):
    toc = set(toc_files())
    for doc, key in page_references():
        path = _notebook(doc)
        assert path.suffix == ".md" and path.is_file(), f"{doc} does not exist"
        stem = path.relative_to(REPO).with_suffix("").as_posix()
        assert stem in toc, f"{stem} is referenced by the scoreboard but not in _toc.yml"
        source = path.read_text(encoding="utf-8")
        chapters = CLAIMS_KEY.findall(source)
        assert len(chapters) == 1, f"{doc}: expected one ClaimsTable, found {chapters}"
        assert re.search(r"\.glue\(\)", source), f"{doc} never calls ClaimsTable.glue()"
        assert key in glued_keys(chapters[0], monkeypatch), f"{doc} does not glue {key!r}"


def test_every_chapter_with_claims_is_on_the_scoreboard():
    refs = page_references()
    by_doc: dict[Path, set[str]] = {}
    for doc, key in refs:
        by_doc.setdefault(_notebook(doc), set()).add(key)
    for stem in toc_files():
        path = REPO / f"{stem}.md"
        if not stem.startswith("notebooks/") or not path.is_file():
            continue
        found = CLAIMS_KEY.findall(path.read_text(encoding="utf-8"))
        if not found:
            continue
        chapter = found[0]
        keys = by_doc.get(path.resolve(), set())
        missing = [f"{chapter}-{s}" for s in TOTAL_SUFFIXES if f"{chapter}-{s}" not in keys]
        assert not missing, f"{stem} has a claims table but the scoreboard lacks {missing}"


@pytest.mark.parametrize("suffix", TOTAL_SUFFIXES)
def test_totals_row_per_chapter(suffix):
    """Each chapter's totals appear in the totals table (one row per chapter)."""
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## Totals per paper", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| {doc}")]
    assert rows and all(f"-{suffix}:d`" in row for row in rows)


def test_glued_table_shows_claims_and_reasons_in_full(monkeypatch):
    import myst_nb.ext.glue as glue_ext

    shown: dict = {}

    def capture(bundle, raw=True, metadata=None):
        shown[metadata["scrapbook"]["name"]] = bundle

    monkeypatch.setattr(glue_ext, "ipy_display", capture)
    reason = "the paper's figure uses a different normalisation (by 2) of the error metric than its own text states"
    claim = "a long claim whose wording is longer than fifty characters, as real claims are"
    t = ClaimsTable("long")
    t.add(claim, paper=1.0, ours=2.0, rule=within_rel(0.1), reason_if_differs=reason, source="Fig. 1", tried="once")
    t.glue()
    html = next(v for k, v in shown["long-claims"].items() if k.endswith("text/html"))
    assert reason in html and claim in html


def test_page_links_to_the_verdict_policy():
    text = PAGE.read_text(encoding="utf-8")
    assert "{doc}`verdict-policy`" in text
    assert "book/verdict-policy" in toc_files()
    header = next(line for line in text.split("## Totals per paper", 1)[1].splitlines() if line.startswith("| chapter"))
    assert all(v in header for v in VERDICTS), header
