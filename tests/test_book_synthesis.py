"""Issue 9's pages (comparison, scoreboard, errata, course): every cross-reference has a target.

Source-level checks, fast and independent of the build: every ``{doc}`` names a page that exists and is in the
toc, every ``{ref}`` / ``{prf:ref}`` names a label defined somewhere in the book (``(label)=`` targets and
``:label:`` options), every erratum section links to the notebook that demonstrates it, and the course guide
refers to exercises that exist. The strict build (tests/test_book.py) checks the same in the HTML.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, toc_files

PAGES = {
    "errata": REPO / "book" / "errata.md",
    "course": REPO / "book" / "course.md",
    "scoreboard": REPO / "book" / "scoreboard.md",
    "verdict-policy": REPO / "book" / "verdict-policy.md",
    "comparison": REPO / "notebooks" / "06-comparison.md",
}
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")
REF = re.compile(r"\{(ref|prf:ref|numref)\}`(?:[^`<]*<)?([^`>]+)>?`")
TARGET = re.compile(r"^\(([A-Za-z0-9_.:-]+)\)=\s*$", re.M)
OPTION_LABEL = re.compile(r"^:label:\s*(\S+)\s*$", re.M)
#: a figure named in a code cell's myst-nb metadata (``mystnb: figure: name: fig-...``)
FIGURE_NAME = re.compile(r"^\s+name:\s*(fig-[A-Za-z0-9_.:-]+)\s*$", re.M)
EXERCISE = re.compile(r"```\{exercise\}[^\n]*\n:label:\s*(\S+)")


def _sources() -> list[Path]:
    return sorted((REPO / "notebooks").glob("*.md")) + sorted((REPO / "book").glob("*.md"))


def defined_labels() -> dict[str, Path]:
    labels: dict[str, Path] = {}
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for label in TARGET.findall(text) + OPTION_LABEL.findall(text) + FIGURE_NAME.findall(text):
            labels.setdefault(label, path)
    return labels


def exercise_labels() -> set[str]:
    return {lab for p in _sources() for lab in EXERCISE.findall(p.read_text(encoding="utf-8"))}


def _doc_target(page: Path, target: str) -> Path:
    return (page.parent / target).resolve().with_suffix(".md")


@pytest.mark.parametrize("name", list(PAGES))
def test_page_exists_with_one_title(name):
    text = PAGES[name].read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1] if text.startswith("---") else text
    titles = [line for line in body.splitlines() if re.match(r"^# \S", line)]
    assert len(titles) == 1, f"{name}: {titles}"


@pytest.mark.parametrize("name", list(PAGES))
def test_doc_links_point_to_existing_toc_pages(name):
    page = PAGES[name]
    toc = set(toc_files())
    for target in DOC.findall(page.read_text(encoding="utf-8")):
        path = _doc_target(page, target)
        assert path.is_file(), f"{name}: {{doc}} target {target} does not exist"
        stem = path.relative_to(REPO).with_suffix("").as_posix()
        assert stem in toc, f"{name}: {{doc}} target {stem} is not in _toc.yml"


@pytest.mark.parametrize("name", list(PAGES))
def test_references_resolve_to_defined_labels(name):
    labels = defined_labels()
    missing = [
        f"{role}:{lab}" for role, lab in REF.findall(PAGES[name].read_text(encoding="utf-8")) if lab not in labels
    ]
    assert not missing, f"{name}: undefined labels {missing}"


def test_referenced_labels_live_in_toc_pages():
    toc = set(toc_files())
    labels = defined_labels()
    for name, page in PAGES.items():
        for _, lab in REF.findall(page.read_text(encoding="utf-8")):
            where = labels[lab].relative_to(REPO).with_suffix("").as_posix()
            assert where in toc, f"{name}: label {lab} is defined in {where}, which is not in _toc.yml"


def erratum_sections(text: str) -> list[tuple[str, str]]:
    """The register's per-paper sections: the ``##`` sections that an ``(errata-...)=`` target precedes."""
    parts = re.split(r"^\(errata-[a-z]+\)=\s*\n## (.+)$", text, flags=re.M)
    return [(title, re.split(r"^## ", body, flags=re.M)[0]) for title, body in zip(parts[1::2], parts[2::2])]


def test_every_erratum_section_links_to_a_demonstrating_notebook():
    text = PAGES["errata"].read_text(encoding="utf-8")
    sections = erratum_sections(text)
    assert len(sections) == 5, [t for t, _ in sections]
    assert not [t for t, _ in sections if re.search(r"[Pp]aper \d", t)], "name papers by title, not by number"
    for title, body in sections:
        docs = [d for d in DOC.findall(body) if "notebooks/" in d]
        assert docs, f"errata section {title!r} links to no notebook"
        rows = [line for line in body.splitlines() if re.match(r"^\| [A-Z]?\d", line)]
        assert rows, f"errata section {title!r} lists no erratum"
        # a table with a 'demonstrated in' column must fill it for every row
        header = next((line for line in body.splitlines() if line.startswith("| #")), "")
        if "demonstrated in" in header:
            for row in rows:
                cell = row.rstrip("|").rsplit("|", 1)[1].strip()
                assert cell, f"{title}: erratum without a demonstration: {row[:60]}"


def test_errata_demonstrations_exist_in_the_linked_notebooks():
    """Quoted section names in the register are headings of the notebook the section links to."""
    text = PAGES["errata"].read_text(encoding="utf-8")
    for title, body in erratum_sections(text):
        notebooks = {_doc_target(PAGES["errata"], d) for d in DOC.findall(body) if "notebooks/" in d}
        headings = set()
        for nb in notebooks:
            headings |= {h.strip() for h in re.findall(r"^#+ (.+)$", nb.read_text(encoding="utf-8"), re.M)}
        for quoted in re.findall(r'"([A-Z][^"]{6,})"', body):
            if quoted.startswith(("PTJ and PTS", "as ", "within", "the same")):
                continue
            assert any(quoted.rstrip(".") in h for h in headings), (
                f"{title}: section {quoted!r} not found among the headings of {sorted(p.name for p in notebooks)}"
            )


_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```\s*$", re.M | re.S)
_HEADING = re.compile(r"^(#{1,6}) \S")


def labelled_section(label: str) -> str:
    """The text of the section that holds ``label``: from the heading that a ``(label)=`` target precedes (or the
    last heading before a ``:label:`` option) to the next heading of the same or a higher level; code cells are
    blanked so that ``# comments`` are not taken for headings."""
    path = defined_labels()[label]
    text = path.read_text(encoding="utf-8")
    text = _CODE_CELL.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.splitlines()
    at = next(
        i
        for i, line in enumerate(lines)
        if line.strip() == f"({label})=" or re.match(rf"^:label:\s*{re.escape(label)}\s*$", line)
    )
    if lines[at].startswith("("):
        start = next(i for i in range(at, len(lines)) if _HEADING.match(lines[i]))
    else:
        start = max((i for i in range(at + 1) if _HEADING.match(lines[i])), default=0)
    level = len(_HEADING.match(lines[start]).group(1)) if _HEADING.match(lines[start]) else 1
    end = next(
        (i for i in range(start + 1, len(lines)) if (h := _HEADING.match(lines[i])) and len(h.group(1)) <= level),
        len(lines),
    )
    return "\n".join(lines[start:end])


def erratum_links() -> list[tuple[str, str, list[str]]]:
    """(section title, erratum id, labels of the sections said to demonstrate it) for the E- and U-entries.

    A row's own ``{ref}``/``{prf:ref}`` links come from its "demonstrated in" cell ("same section" repeats the row
    above); a table without that column is demonstrated by the links in the section's prose. The numeric ids of
    the CLLDP chapter and the M/C ids of the multi-class and CPL chapters are this page's own numbering, not used in
    those chapters, so they are not checked here.
    """
    out = []
    for title, body in erratum_sections(PAGES["errata"].read_text(encoding="utf-8")):
        table_at = body.find("\n| #")
        prose_refs = [lab for _, lab in REF.findall(body[:table_at])]
        header = next((line for line in body.splitlines() if line.startswith("| #")), "")
        previous: list[str] = prose_refs
        for row in (line for line in body.splitlines() if re.match(r"^\| [A-Z]?\d", line)):
            ids = re.findall(r"\b([EU]\d+)\b", row.split("|")[1])
            if "demonstrated in" in header:
                cell = row.rstrip().rstrip("|").rsplit("|", 1)[1]
                refs = [lab for _, lab in REF.findall(cell)] or (previous if "same section" in cell else [])
                previous = refs
            else:
                refs = prose_refs
            out += [(title, i, refs) for i in ids]
    return out


def test_every_e_and_u_erratum_is_named_in_the_section_it_links_to():
    links = erratum_links()
    ids = {i for _, i, _ in links}
    assert {f"U{k}" for k in range(1, 10)} <= ids and {f"E{k}" for k in range(1, 21)} <= ids, sorted(ids)
    for title, erratum, refs in links:
        assert refs, f"{title}: {erratum} links to no section"
        assert any(re.search(rf"\b{erratum}\b", labelled_section(lab)) for lab in refs), (
            f"{title}: {erratum} does not appear in the linked section(s) {refs}"
        )


def test_course_refers_to_real_exercises_and_covers_every_chapter():
    text = PAGES["course"].read_text(encoding="utf-8")
    refs = [lab for role, lab in REF.findall(text) if role == "ref"]
    exercises = exercise_labels()
    assert refs and set(refs) <= exercises, sorted(set(refs) - exercises)
    weeks = re.findall(r"^### Week (\d)", text, re.M)
    assert weeks == ["1", "2", "3", "4", "5", "6"]  # one theory chapter per 90-minute lecture
    for week in re.split(r"^### ", text, flags=re.M)[1:]:
        read = next((line for line in week.splitlines() if line.startswith("- Read:")), "")
        assert len(re.findall(r"-theory`", read)) <= 1, f"one lecture, two theory chapters: {week.splitlines()[0]}"
    for stem in (
        "00-frequency-oracles",
        "01-clldp-theory",
        "02-lopub-theory",
        "03-multiclass-theory",
        "04-cpl-theory",
        "05-uldp-theory",
        "06-comparison",
    ):
        assert f"notebooks/{stem}" in text, f"the course guide never assigns {stem}"
    assert "## Project" in text and "## Prerequisites" in text and "## Objectives" in text


def test_synthesis_pages_are_in_the_toc():
    toc = set(toc_files())
    missing = [
        p.relative_to(REPO).with_suffix("").as_posix()
        for p in PAGES.values()
        if p.relative_to(REPO).with_suffix("").as_posix() not in toc
    ]
    assert not missing, f"add to _toc.yml: {missing}"
