"""The book's Sphinx extension (book/_ext/ldp_book.py): docstring clean-up for the API reference and labels."""

from __future__ import annotations

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "book" / "_ext"))
import os  # noqa: E402

import ldp_book  # noqa: E402
import parallel_execution  # noqa: E402
import pytest  # noqa: E402


def _run(hook, text: str) -> list[str]:
    lines = text.splitlines()
    hook(None, "module", "m", None, {}, lines)
    return lines


def test_bars_are_escaped_outside_code_only():
    out = _run(ldp_book._escape_bars, "the |Y_S| values, ``|x|`` and |a| + |b|\n| a line block |")
    assert out == [r"the \|Y_S\| values, ``|x|`` and \|a\| + \|b\|", "| a line block |"]


ALIGNED = """Modules:

``ldp.audit``       exact epsilon of a channel
``ldp.channels``    sampling and inversion
                    for any finite channel
``ldp.a``, ``ldp.b``
                    two names, one line of text

After."""


def test_aligned_name_lists_become_bullets():
    out = _run(ldp_book._aligned_lists_to_bullets, ALIGNED)
    assert out == [
        "Modules:",
        "",
        "* ``ldp.audit``: exact epsilon of a channel",
        "* ``ldp.channels``: sampling and inversion",
        "  for any finite channel",
        "* ``ldp.a``, ``ldp.b``: two names, one line of text",
        "",
        "After.",
    ]


def test_tables_and_ordinary_text_are_left_alone():
    table = """Per group:

=================  =======
group              count
=================  =======
``x``   holds      f
``y``   other      N - n
=================  =======

Done."""
    assert _run(ldp_book._aligned_lists_to_bullets, table) == table.splitlines()
    prose = "``rng`` is a Generator.\nA sentence.\n\n    Var = sum_u X_u"
    assert _run(ldp_book._aligned_lists_to_bullets, prose) == prose.splitlines()


def test_author_year_labels():
    from pybtex.database import Entry, Person

    def entry(authors, year):
        e = Entry("article", fields={"year": year, "title": "t"})
        for a in authors:
            e.add_person(Person(a), "author")
        return e

    ldp_book._register_authoryear_style()
    from pybtex.plugin import find_plugin

    labels = list(
        find_plugin("pybtex.style.labels", "authoryear")().format_labels(
            [
                entry(["Warner, Stanley L."], "1965"),
                entry(["Wang, Tianhao", "Blocki, Jeremiah"], "2017"),
                entry(["Xue, Qiao", "Ye, Qingqing", "Hu, Haibo"], "2025"),
                entry(["Xue, Qiao", "Li, A.", "Hu, B."], "2025"),
            ]
        )
    )
    assert labels == ["Warner 1965", "Wang and Blocki 2017", "Xue et al. 2025a", "Xue et al. 2025b"]


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_book_jobs_refuses_a_bad_count(monkeypatch, value):
    monkeypatch.setenv("LDP_BOOK_JOBS", value)
    with pytest.raises(ValueError, match="LDP_BOOK_JOBS"):
        parallel_execution._jobs()


def test_book_jobs_defaults_to_every_core(monkeypatch):
    monkeypatch.delenv("LDP_BOOK_JOBS", raising=False)
    assert parallel_execution._jobs() == (os.cpu_count() or 1)
    monkeypatch.setenv("LDP_BOOK_JOBS", "3")
    assert parallel_execution._jobs() == 3
