"""No machinery on the page and a reference layer that works, checked on the smoke build in Chromium (issue 25).

Fails on:

* a visible notebook cell tagged ``parameters`` (or any visible cell that sets ``PROFILE = ...``);
* a cell output that is a list of glue labels (``['mc-profile', 'mc-t-freq', ...]``);
* "profile" in a figure caption, or in a figure title the notebook code sets (``set_title``, ``suptitle``,
  ``ax.set(title=...)``, ``finish_figure(title=...)``, with the names the title uses, including the ``PROFILE``
  variable: read from the notebooks' code, since a title is pixels on the page);
* a figure image narrower than 300 px in a 420-px-wide window (a phone);
* an empty index of definitions, theorems and algorithms;
* ``\\texttt``, ``$`` or ``\\pm`` on the bibliography page;
* an abbreviation on a page (prose, tables, outputs, glued text) missing from the glossary.

Several of these depend on the chapters' notebooks; the failure message lists every page and what is wrong.
"""

from __future__ import annotations

import re

import pytest
from conftest import REPO, toc_files
from test_book import _open, browser, built_book  # noqa: F401  (the build and the browser are test_book's fixtures)
from test_book_glossary import abbreviations, glossary_terms, missing_from_glossary

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

NOTEBOOK_PAGES = [f for f in toc_files() if f.startswith("notebooks/")]
#: pages whose text is not the book's prose: the API reference (docstrings name code) and the bibliography
#: (titles of other people's papers)
NOT_PROSE = ("book/api/", "book/bibliography")

_VISIBLE_MACHINERY = r"""() => {
  const visible = e => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
  const cells = Array.from(document.querySelectorAll('.cell'));
  const params = cells.filter(c => visible(c) && (c.classList.contains('tag_parameters') ||
      /^\s*PROFILE\s*=/m.test((c.querySelector('.cell_input') || {innerText: ''}).innerText)));
  const labelList = /^\s*\[\s*'[\w.]+(?:-[\w.]+)+'(?:\s*,\s*'[\w.]+(?:-[\w.]+)+')*\s*,?\s*\]\s*$/;
  const lists = Array.from(document.querySelectorAll('.cell_output pre, .cell_output .output'))
      .filter(o => visible(o) && labelList.test(o.innerText)).map(o => o.innerText.slice(0, 80));
  return {params: params.length, lists: lists};
}"""

_NARROW_FIGURES = """() => Array.from(document.querySelectorAll('article img'))
  .filter(i => i.naturalWidth >= 300 && (i.closest('figure') || i.closest('.cell_output')))
  .map(i => ({src: i.getAttribute('src').split('/').pop(), width: Math.round(i.getBoundingClientRect().width)}))
  .filter(i => i.width < 300)"""

# the text a reader reads: no code, no math, no navigation
_READER_TEXT = """() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  article.querySelectorAll('.cell_input, pre, code, .math, mjx-container, script, style, .headerlink, '
      + '.toggle-details__summary, button').forEach(e => { e.style.display = 'none'; });
  return article.innerText;
}"""

#: figure-text calls whose first argument (or ``title=`` keyword) is a title the reader sees as pixels
_TITLE_FUNCS = ("set_title", "suptitle", "title")


def _title_sources(code: str) -> list[str]:
    """The source of every expression a code cell passes as a figure title, with the values of the names in it.

    A title is ``set_title(x)``, ``suptitle(x)``, ``title(x)`` or any call's ``title=x`` (``ax.set``,
    ``finish_figure``). When ``x`` uses a name, the right-hand sides (and ``for`` loops) that bind that name in
    the cell are included, so ``title=title`` over a list of literal titles is read, and a title built from the
    ``PROFILE`` variable (which prints "book" or "smoke") counts as naming the profile.
    """
    import ast

    code = re.sub(r"\A---\n.*?^---[ \t]*\n", "", code, flags=re.S | re.M)  # the cell's YAML options
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!", ":"))]
    source = "\n".join(lines)
    tree = ast.parse(source)
    bound: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            targets, value = [node.target], node.iter
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bound.setdefault(name.id, []).append(ast.get_source_segment(source, value) or "")
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        exprs = [node.args[0]] if func in _TITLE_FUNCS and node.args else []
        exprs += [k.value for k in node.keywords if k.arg == "title"]
        for expr in exprs:
            names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
            text = " ".join([ast.get_source_segment(source, expr) or ""] + [v for n in names for v in bound.get(n, [])])
            found.append(((expr.lineno, expr.col_offset), text))
    return [text for _, text in sorted(found)]


def test_title_sources_reads_literals_names_and_the_profile_variable():
    code = (
        "for ax, (title, d) in zip(axes, [('book profile: 3 trials', 1)]):\n"
        "    ax.set(xlabel='x', title=title)\n"
        "fig.suptitle(f'{PROFILE} run')\n"
        "finish_figure(fig, title='10 trials per point')\n"
        "%matplotlib inline\n"
    )
    titles = _title_sources(code)
    assert len(titles) == 3
    assert [bool(re.search("profile", t, flags=re.I)) for t in titles] == [True, True, False]


def _code_cells(md: str) -> list[str]:
    return re.findall(r"(?ms)^(`{3,})\{code-cell\}[^\n]*\n(.*?)^\1[ \t]*$", md)


def test_no_parameters_cell_and_no_glue_label_list_on_a_page(built_book, browser):  # noqa: F811
    problems = []
    for stem in NOTEBOOK_PAGES:
        page = _open(browser, built_book / f"{stem}.html")
        found = page.evaluate(_VISIBLE_MACHINERY)
        if found["params"]:
            problems.append(f"{stem}: {found['params']} visible parameters cell(s)")
        for text in found["lists"]:
            problems.append(f"{stem}: glue labels printed as output: {text}")
        page.close()
    assert not problems, "\n".join(problems)


def test_no_profile_in_a_figure_title_or_caption(built_book):  # noqa: F811
    problems = []
    for stem in NOTEBOOK_PAGES:
        html = (built_book / f"{stem}.html").read_text(encoding="utf-8")
        for caption in re.findall(r"<figcaption>(.*?)</figcaption>", html, flags=re.S):
            text = re.sub(r"<[^>]+>", "", caption)
            if re.search(r"\bprofiles?\b", text, flags=re.I):
                problems.append(f"{stem}: caption says 'profile': {' '.join(text.split())[:120]}")
        source = (REPO / f"{stem}.md").read_text(encoding="utf-8")
        for _, code in _code_cells(source):
            for title in _title_sources(code):
                if re.search(r"profile", title, flags=re.I):
                    problems.append(f"{stem}: figure title mentions the profile: {' '.join(title.split())[:120]!r}")
    assert not problems, "\n".join(problems)


def test_figures_are_at_least_300_px_wide_on_a_phone(built_book, browser):  # noqa: F811
    problems = []
    for stem in NOTEBOOK_PAGES:
        page = browser.new_page(viewport={"width": 420, "height": 900})
        page.route("http*://**", lambda route: route.abort())
        page.goto((built_book / f"{stem}.html").as_uri(), wait_until="load")
        narrow = page.evaluate(_NARROW_FIGURES)
        problems += [f"{stem}: {i['src']} shown {i['width']} px wide at 420 px" for i in narrow]
        page.close()
    assert not problems, "\n".join(problems)


def test_the_definitions_index_is_not_empty_and_links_into_the_chapters(built_book):  # noqa: F811
    html = (built_book / "book" / "proof-index.html").read_text(encoding="utf-8")
    entries = re.findall(r'<a class="reference internal" href="([^"]+)"><strong>(\w+) (\d+\.\d+)</strong>', html)
    assert entries, "the index of definitions, theorems and algorithms is empty"
    kinds = {k for _, k, _ in entries}
    assert {"Definition", "Theorem"} <= kinds, kinds
    for href, _, _ in entries:
        target, _, anchor = href.partition("#")
        path = (built_book / "book" / target).resolve()
        assert path.is_file() and f'id="{anchor}"' in path.read_text(encoding="utf-8"), href


def test_no_raw_latex_in_the_bibliography(built_book, browser):  # noqa: F811
    page = _open(browser, built_book / "book" / "bibliography.html")
    text = page.evaluate(_READER_TEXT)
    page.close()
    raw = sorted(set(re.findall(r"\\texttt|\\pm|\\times|\$", text)))
    assert not raw, f"raw LaTeX on the bibliography page: {raw}"


def test_every_abbreviation_on_a_page_is_in_the_glossary(built_book, browser):  # noqa: F811
    terms = glossary_terms()
    gaps = {}
    for stem in toc_files():
        if stem.startswith(NOT_PROSE):
            continue
        page = _open(browser, built_book / f"{stem}.html")
        missing = missing_from_glossary(abbreviations(page.evaluate(_READER_TEXT)), terms)
        page.close()
        if missing:
            gaps[stem] = sorted(missing)
    assert not gaps, "abbreviations on the page but not in the glossary:\n" + "\n".join(
        f"  {stem}: {words}" for stem, words in gaps.items()
    )


_TABLE_BOXES = """() => {
  const art = document.querySelector('article.bd-article');
  const body = art.getBoundingClientRect();
  const scroller = e => { for (let p = e.parentElement; p && p !== art; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'auto' || s.overflowX === 'scroll') return p; } return null; };
  const bad = [];
  for (const t of art.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (!r.width) continue;
    const box = scroller(t);
    const name = (t.querySelector('th, td') || {innerText: ''}).innerText.trim().slice(0, 30);
    if (!box) { if (r.right > body.right + 1) bad.push(`table "${name}" cut: ${Math.round(r.width)} px`); continue; }
    const b = box.getBoundingClientRect();
    if (b.right > body.right + 1) bad.push(`box of table "${name}" wider than the page body`);
    const frame = box.closest('.ldp-scroll-frame');
    if (box.scrollWidth > box.clientWidth + 1 && !(frame && frame.classList.contains('ldp-more-right'))
        && box.scrollLeft === 0) bad.push(`table "${name}" scrolls without a cue`);
  }
  return bad;
}"""


@pytest.mark.parametrize("width", [1400, 420])
def test_tables_fit_or_scroll_in_their_own_box_with_a_cue(built_book, browser, width):  # noqa: F811
    problems = []
    for stem in toc_files():
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.route("http*://**", lambda route: route.abort())
        page.goto((built_book / f"{stem}.html").as_uri(), wait_until="load")
        page.wait_for_function("() => document.documentElement.classList.contains('ldp-js')", timeout=10_000)
        problems += [f"{stem} at {width} px: {p}" for p in page.evaluate(_TABLE_BOXES)]
        page.close()
    assert not problems, "\n".join(problems)


def test_the_home_page_says_which_profile_it_was_built_at_and_how_to_rebuild(built_book):  # noqa: F811
    text = re.sub(r"<[^>]+>", "", (built_book / "book" / "intro.html").read_text(encoding="utf-8"))
    assert "You are reading the smoke build" in text  # the test build runs at LDP_PROFILE=smoke
    assert "make book PROFILE=smoke" in text and "built from commit" in text
