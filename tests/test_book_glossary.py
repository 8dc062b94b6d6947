"""Every abbreviation a page uses has a glossary entry (issue 25, scope 7).

An abbreviation is a word with at least two capital letters that are at least half of its letters ("MC", "NMSE",
"kHR", "JuRR", "SYN3"); compounds ("PTS-CP", "Lasso+EM") are checked part by part and a plural "s" is dropped.
Roman numerals and a few names that are not abbreviations of the subject (file and licence names) are allowed.
This test reads the prose of every page's source (code, math, roles and links removed), so it runs without a
build; ``test_book_pages.py`` applies the same rule to the built pages, where code outputs and glued text count
too.
"""

from __future__ import annotations

import re

from conftest import REPO, toc_files

_TOKEN = re.compile(r"(?<![\w/.#=@-])[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*(?![\w/])")
_ROMAN = re.compile(r"^(?=[IVXL])X{0,3}(IX|IV|V?I{0,3})$|^L?X{0,3}(IX|IV|V?I{0,3})$")
#: words with capitals that are not abbreviations a reader needs explained here
ALLOWED = {
    "MyST",
    "README",
    "MIT",
    "CC",
    "BY",
    "API",
    "URL",
    "HTML",
    "PDF",
    "CSV",
    "JSON",
    "PNG",
    "CPU",
    "ID",
    "IDs",
    "PyPI",
    "IoTDATALab",  # the GitHub organisation of LoPub's code, a name
    "LaTeX",
    "GitHub",
    "HIV",
    "OK",
    "OB3",  # "the paper's observation OB3": a label the sentence itself explains
    "AB",
    "BC",
    "ABC",  # names of attribute sets in LoPub's worked example (attributes A, B, C)
}


def is_abbreviation(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return upper >= 2 and 2 * upper >= len(letters) and len(word) <= 14 and not _ROMAN.match(word)


def abbreviations(text: str) -> set[str]:
    """The words of ``text`` that are abbreviations or contain one ("PTS-CP", "Lasso+EM")."""
    found = set()
    for token in _TOKEN.findall(text):
        if any(is_abbreviation(p) for p in re.split(r"[-+]", token)):
            found.add(token)
    return found


def glossary_terms() -> set[str]:
    """The terms of book/glossary.md's ``{glossary}`` block (the unindented lines inside it)."""
    text = (REPO / "book" / "glossary.md").read_text(encoding="utf-8")
    block = re.search(r"```\{glossary\}\n(.*?)\n```", text, flags=re.S).group(1)
    return {line.strip() for line in block.splitlines() if line.strip() and not line.startswith((" ", ":"))}


def missing_from_glossary(words: set[str], terms: set[str] | None = None) -> set[str]:
    terms = glossary_terms() if terms is None else terms
    missing = set()
    for word in words:
        if word in ALLOWED or word in terms:
            continue
        parts = re.split(r"[-+]", word)
        if len(parts) > 1 and all(p in terms or not is_abbreviation(p) for p in parts):
            continue
        if word.endswith("s") and word[:-1] in terms:
            continue
        missing.add(word)
    return missing


def page_prose(md: str) -> str:
    """The prose of a MyST page or notebook: no front matter, code, math, roles, link targets or options."""
    md = re.sub(r"^---\n.*?\n---\n", "", md, flags=re.S)
    md = re.sub(r"(?ms)^(`{3,}|~{3,})\{code-cell\}.*?^\1[ \t]*$", "", md)
    md = re.sub(r"(?ms)^(`{3,}|~{3,})(?!\{)[^\n]*\n.*?^\1[ \t]*$", "", md)
    md = re.sub(r"(?ms)^(`{3,}|:{3,})\{math\}.*?^\1[ \t]*$", "", md)
    md = re.sub(r"(?s)\$\$.*?\$\$", "", md)
    md = re.sub(r"\$[^$\n]+\$", "", md)
    md = re.sub(r"\{term\}`([^`<]*)(?:<[^`]*>)?`", r"\1", md)
    md = re.sub(r"\{[\w:-]+\}`[^`]*`", "", md)
    md = re.sub(r"`[^`\n]*`", "", md)
    md = re.sub(r"\]\([^)]*\)|https?://\S+|<!--.*?-->", "", md, flags=re.S)
    return re.sub(r"(?m)^\s*:[\w-]+:.*$|^\([\w-]+\)=\s*$", "", md)


def test_the_rule_finds_abbreviations_and_skips_words():
    assert abbreviations("MC trials, the NMSE of kHR and PTS-CP, Lasso+EM, SYN3") == {
        "MC",
        "NMSE",
        "kHR",
        "PTS-CP",
        "Lasso+EM",
        "SYN3",
    }
    assert abbreviations("Chapter II of McSherry's CelebA note, Figure 3") == set()
    assert missing_from_glossary({"MC", "PTS-CP", "CPLs", "QQQ"}, {"MC", "PTS", "CP", "CPL"}) == {"QQQ"}


def test_every_abbreviation_in_the_pages_prose_is_in_the_glossary():
    terms = glossary_terms()
    gaps = {}
    for doc in toc_files():
        path = REPO / f"{doc}.md"
        if path.is_file():
            missing = missing_from_glossary(abbreviations(page_prose(path.read_text(encoding="utf-8"))), terms)
            if missing:
                gaps[doc] = sorted(missing)
    assert not gaps, "abbreviations missing from book/glossary.md:\n" + "\n".join(
        f"  {d}: {m}" for d, m in gaps.items()
    )
