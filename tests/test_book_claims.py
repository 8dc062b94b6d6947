"""Claims tables and the scoreboard as a reader sees them, in Chromium on the smoke build.

* every chapter's claims table fits its column at 1400 px and no word or number in it breaks inside a token;
* the scoreboard is shorter than 6,000 px with JavaScript on, its verdict filter works (the test clicks it), and
  every claim in it links to an existing row of its chapter;
* without JavaScript the scoreboard still shows the whole table;
* no page shows ``np.int64``, ``None``, ``nan``, an exponent form or a number with more than 6 significant digits
  outside code.
"""

from __future__ import annotations

import re

import pytest
from conftest import toc_files
from test_book import _open, browser, built_book  # noqa: F401  (the build and the browser are test_book's fixtures)

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

CLAIMS_PAGES = [f for f in toc_files() if f.startswith("notebooks/") and ("experiments" in f or "/00-" in f)]

_TABLE_FITS = """() => Array.from(document.querySelectorAll('table.ldp-claims')).map(t => {
  const box = t.closest('.ldp-claims-wrap') || t.parentElement;
  const article = document.querySelector('main article, article, main') || document.body;
  return {table: t.getBoundingClientRect().width, box: box.getBoundingClientRect().width,
          body: article.getBoundingClientRect().width};
})"""

# every word (a run of non-space characters) of every claims-table cell must sit on one line
_BROKEN_TOKENS = """() => {
  const bad = [];
  for (const cell of document.querySelectorAll('table.ldp-claims td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      if (node.parentElement.closest('details:not([open])')) continue;
      const text = node.textContent;
      const re = /\\S+/g;
      let m;
      while ((m = re.exec(text))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
        if (tops.size > 1) bad.push(m[0]);
      }
    }
  }
  return bad.slice(0, 10);
}"""


def test_claims_tables_fit_and_never_break_inside_a_token(built_book, browser):  # noqa: F811
    problems = []
    for stem in CLAIMS_PAGES:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.route("http*://**", lambda route: route.abort())
        page.goto((built_book / f"{stem}.html").as_uri(), wait_until="load")
        sizes = page.evaluate(_TABLE_FITS)
        if not sizes:
            problems.append(f"{stem}: no claims table")
        for s in sizes:
            if s["table"] > s["box"] + 1 or s["box"] > s["body"] + 1:
                problems.append(f"{stem}: claims table {s['table']:.0f} px in a {s['box']:.0f}-px box")
        broken = page.evaluate(_BROKEN_TOKENS)
        if broken:
            problems.append(f"{stem}: words broken across lines: {broken}")
        page.close()
    assert not problems, "\n".join(problems)


def test_scoreboard_is_short_and_its_verdict_filter_works(built_book, browser):  # noqa: F811
    page = _open(browser, built_book / "book" / "scoreboard.html")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.wait_for_function("() => document.body.classList.contains('ldp-board-ready')", timeout=30_000)
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height < 6000, f"the scoreboard is {height} px tall at 1400 px"
    total = page.evaluate("() => document.querySelector('.dt-info, .dataTables_info').innerText")
    entry = page.locator(".dtsp-searchPane tbody tr", has_text="differs").first
    if entry.count() == 0:
        entry = page.locator(".dtsp-searchPane tbody tr", has_text="reproduced").first
    wanted = "differs" if "differs" in entry.inner_text() else "reproduced"
    entry.click()
    page.wait_for_timeout(300)
    shown = page.evaluate(
        "() => Array.from(document.querySelectorAll('#ldp-all-claims tbody tr')).map(r => r.innerText)"
    )
    assert shown and all(wanted in row for row in shown), shown[:5]
    after = page.evaluate("() => document.querySelector('.dt-info, .dataTables_info').innerText")
    assert after != total, "filtering did not change the count of entries shown"
    page.close()


def test_scoreboard_without_javascript_and_its_links(built_book, browser):  # noqa: F811
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((built_book / "book" / "scoreboard.html").as_uri(), wait_until="load")
    rows = page.evaluate("() => document.querySelectorAll('#ldp-all-claims tbody tr').length")
    links = page.evaluate(
        "() => Array.from(document.querySelectorAll('#ldp-all-claims tbody a')).map(a => a.getAttribute('href'))"
    )
    context.close()
    assert rows > 20 and len(links) == rows
    missing = []
    for href in links:
        doc, _, anchor = href.partition("#")
        target = (built_book / "book" / doc).resolve()
        if not target.is_file() or f'id="{anchor}"' not in target.read_text(encoding="utf-8"):
            missing.append(href)
    assert not missing, f"scoreboard links without a target row: {missing[:5]}"


# a decimal with more than 6 significant digits: below 1, the digits from the first non-zero one ("0.0002903" has 4);
# from 1 up, every digit ("1.00000000000", "2.718281828"); identifiers after ":" or "/" (arXiv:2504.13526, a DOI's
# 10.24432/...) are not numbers
_MANY_DIGITS = r"(?<![:/])\b0?\.0*[1-9]\d{6,}|(?<![:/])\b[1-9](?=\d*\.\d)(?:\.?\d){6,}"
_RAW_PYTHON = re.compile(
    r"np\.(int|float)\d*\(|\bNone\b|\bnan\b|\d\.?\d*e[+-]\d+|" + _MANY_DIGITS + r"|\b\d{8,}\.\d+\b"
)
_VISIBLE_TEXT = """() => {
  const skip = 'pre, code, .cell_input, .highlight, script, style, mjx-container, .MathJax, math, .math, nav, header,
    footer, .bd-sidebar, .toctree-wrapper, .prev-next-area, .bd-header-article';
  const out = [];
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest(skip)) continue;
    out.push(node.textContent);
  }
  return out.join(' ');
}""".replace("\n    footer", " footer")


@pytest.mark.parametrize(
    "text, raw",
    [
        ("0.0002903", False),
        ("0.00231147", False),
        ("0.123456", False),
        ("123456.5", True),
        ("12345.6", False),
        ("0.1234567", True),
        ("0.500000000000", True),
        ("1.00000000000", True),
        ("2.718281828", True),
        ("x = 3.1415926", True),
        ("1000000", False),
        ("2.2 × 10⁻¹⁶", False),
        ("2.2e-16", True),
        ("1e-09", True),
        ("1.21e+06", True),
        ("np.int64(3)", True),
        ("None", True),
        ("nan", True),
        ("0.4–0.6", False),
        ("arXiv:2504.13526", False),
        ("https://doi.org/10.24432/C5XW20", False),
    ],
)
def test_raw_value_pattern(text, raw):
    """The page check's pattern: exponent forms, reprs and more than 6 significant digits (issue 25's acceptance)."""
    assert bool(_RAW_PYTHON.search(text)) is raw


@pytest.mark.parametrize("stem", [f for f in toc_files() if not f.startswith("book/api")])
def test_no_raw_python_values_in_prose_or_tables(built_book, browser, stem):  # noqa: F811
    page = browser.new_page()
    page.route("http*://**", lambda route: route.abort())
    page.goto((built_book / f"{stem}.html").as_uri(), wait_until="load")
    text = page.evaluate(_VISIBLE_TEXT)
    page.close()
    hits = sorted({m.group(0) for m in _RAW_PYTHON.finditer(text)})
    assert not hits, f"{stem}: raw Python values on the page: {hits[:10]}"
