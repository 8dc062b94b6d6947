"""The book cites only what a reader can check: no working notes, no internal paper numbers, no seed files.

The working notes used to build the book (the "specs") are not sources and are not in the book, so nothing the
reader sees or imports may point to them: not the book's sources (``notebooks/``, ``book/``), not the package
``ldp/`` (code, comments and docstrings), and not the built HTML when a build is present. Papers are named by
authors and short title, never by an internal number, and the file names of our text copies of the papers
(three digits, an underscore and sixteen hex digits) never appear.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

#: Mentions of the working notes, internal paper numbers, and the text copies' file names.
FORBIDDEN = re.compile(
    r"\bspec(?:s)?\s+0\d\d\b"  # "spec 002"
    r"|\bspec(?:'s)?\s*(?:§|eq\.?\s|E\d)"  # "spec §8", "spec eq. G", "spec E16"
    r"|\b(?:reproduction|LoPub|CLLDP|CPL|ULDP|multi-class)\s+specs?\b"
    r"|\bthe\s+specs?\b(?!\w)"  # "the spec", "the spec's"
    r"|\bspec's\b"
    r"|\bpapers?\s+0\d\d\b"  # "paper 003", "papers 000"
    r"|\b\d{3}_[0-9a-f]{16}\b",  # seed file names
    re.IGNORECASE,
)
_SUFFIXES = {".py", ".md", ".yml", ".yaml", ".bib", ".txt", ".cfg", ".toml", ".html"}


def offences(root: Path, suffixes: set[str] = _SUFFIXES) -> list[str]:
    """``path:line: text`` for every forbidden mention in the files under ``root``."""
    found = []
    paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for path in paths:
        if (path != root and path.suffix not in suffixes) or "__pycache__" in path.parts:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if FORBIDDEN.search(line):
                found.append(f"{path.relative_to(REPO)}:{n}: {line.strip()[:120]}")
    return found


def test_the_pattern_catches_what_it_should_and_spares_code():
    bad = [
        "see spec 002, Sec. 5.2",
        "(spec §9)",
        "the reproduction spec lists",
        "as the spec says",
        "the spec's description",
        "paper 003",
        "Papers 000 and 001",
        "spec eq. G",
        "(spec E16)",
        "the LoPub spec",
        "002_baa61eb001ac4f79.txt",
    ]
    good = [
        "def resolve_k(spec, epsilon)",
        "for name, size in spec:",
        "spec[parent][1]",
        "specs = {'a': 1}",
        "a format spec after the key",
        "the paper's Table 7",
        "Sec. 5.2 of Ren et al.",
    ]
    assert all(FORBIDDEN.search(s) for s in bad), [s for s in bad if not FORBIDDEN.search(s)]
    assert not any(FORBIDDEN.search(s) for s in good), [s for s in good if FORBIDDEN.search(s)]


@pytest.mark.parametrize(
    "where", ["ldp", "book", "tests", "benchmarks", "_toc.yml", "_config.yml", "README.md", "Makefile"]
)
def test_package_and_pages_cite_no_working_notes(where):
    path = REPO / where
    if not path.exists():
        pytest.skip(f"{where} does not exist")
    this_file = Path(__file__).relative_to(REPO).as_posix()  # its examples of what is forbidden are the point
    found = [o for o in offences(path) if not o.startswith(this_file + ":")]
    assert not found, f"{len(found)} mentions of working notes:\n" + "\n".join(found)


def test_notebooks_cite_no_working_notes():
    found = offences(REPO / "notebooks")
    assert not found, f"{len(found)} mentions of working notes:\n" + "\n".join(found)


@pytest.mark.parametrize("build", ["_build/smoke/html", "_build/html"])
def test_built_html_cites_no_working_notes(build):
    html = REPO / build
    if not html.is_dir():
        pytest.skip(f"no build at {build}")
    found = offences(html, {".html"})
    assert not found, f"{len(found)} mentions of working notes:\n" + "\n".join(found[:50])
