"""book/references.bib: every entry complete for its type, so the author-year bibliography reads uniformly."""

from __future__ import annotations

import re

import pytest
from conftest import REPO
from pybtex.database import parse_file

BIB = parse_file(str(REPO / "book" / "references.bib"))

#: fields each entry type needs (one of the alternatives in a tuple), besides a title and a year
REQUIRED = {
    "article": ["journal"],
    "inproceedings": ["booktitle"],
    "incollection": ["booktitle", "publisher"],
    "book": ["publisher"],
    "phdthesis": ["school"],
    "mastersthesis": ["school"],
    "techreport": ["institution"],
    "misc": [("howpublished", "url", "note")],
    "software": [("url", "howpublished")],
    "online": ["url"],
}


@pytest.mark.parametrize("key", sorted(BIB.entries), ids=str)
def test_entry_is_complete(key):
    entry = BIB.entries[key]
    kind = entry.type.lower()
    assert kind in REQUIRED, f"{key}: entry type @{kind} has no completeness rule here"
    assert entry.persons.get("author") or entry.persons.get("editor") or "organization" in entry.fields, (
        f"{key}: no author, editor or organization"
    )
    missing = [f for f in ("title", "year") if not entry.fields.get(f, "").strip()]
    for need in REQUIRED[kind]:
        options = need if isinstance(need, tuple) else (need,)
        if not any(entry.fields.get(o, "").strip() for o in options):
            missing.append(" or ".join(options))
    assert not missing, f"{key} (@{kind}) lacks {missing}"
    assert entry.fields["year"].strip().isdigit() and len(entry.fields["year"].strip()) == 4, key


def test_cited_code_has_a_commit_or_version():
    """The authors' code is cited at a fixed state (a commit or a version), never a moving branch."""
    code = [k for k in BIB.entries if k.endswith("code")]
    assert code
    for key in code:
        text = " ".join(BIB.entries[key].fields.values()).lower()
        assert "commit" in text or "version" in text, key


#: LaTeX that pybtex prints as written (issue 25: "$\pm 0.02$", "\texttt PTJ.py" on the bibliography page);
#: accents ({\'e}), escaped underscores (\_), en dashes (--) and \url are decoded by pybtex and stay allowed
RAW_LATEX = re.compile(
    r"\$|\\(?:texttt|textit|textbf|emph|pm|times|cdot|le|ge|mathrm|mathbb|ldots|epsilon|varepsilon)\b"
)


@pytest.mark.parametrize("key", sorted(BIB.entries), ids=str)
def test_no_raw_latex_in_an_entry(key):
    fields = BIB.entries[key].fields
    raw = {name: m.group(0) for name, value in fields.items() if (m := RAW_LATEX.search(value))}
    assert not raw, f"{key}: LaTeX the bibliography page would print as written: {raw} (write the Unicode character)"
