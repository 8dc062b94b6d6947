"""The strict book build and what a reader sees: pages, figures, links, math, in a real browser.

The build runs once per session at the smoke profile exactly as ``make book PROFILE=smoke`` does it
(``LDP_PROFILE=smoke LDP_PROGRESS=0``, ``--path-output _build/smoke``: its own folder and its own jupyter cache,
never shared with ``make book``'s); a file lock makes xdist workers share one build. The solution-free build
(``make book-nosolutions``) is tested at the same size, re-using that build's executed notebooks.

Several checks below (figures, code-cell length, outputs) inspect what the chapters' authors control; when they
fail, the message lists every page and what is wrong there.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
from conftest import REPO, browser_required, toc_files

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

OUT = REPO / "_build" / "smoke"
HTML = OUT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def built_book():
    """Build once per test run, whichever xdist worker gets here first.

    xdist may hand this module's tests to both workers (and re-create a module fixture when other modules'
    tests are interleaved), so the build is guarded by a file lock and a marker naming this test run: a second
    worker, or a second set-up in the same run, waits for and reuses the finished build instead of deleting it
    half-way through.
    """
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    (REPO / "_build").mkdir(exist_ok=True)
    with open(REPO / "_build" / "smoke.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = OUT / "BUILT_BY_RUN"
        if marker.is_file() and marker.read_text() == run_id:
            return HTML
        shutil.rmtree(OUT, ignore_errors=True)
        proc = _jupyter_book(OUT, LDP_PROFILE="smoke")
        log = proc.stdout[-6000:] + proc.stderr[-6000:]
        assert proc.returncode == 0, f"strict book build failed:\n{log}"
        (OUT / "build.log").write_text(proc.stdout + proc.stderr)
        (OUT / "html").unlink(missing_ok=True)
        (OUT / "html").symlink_to("_build/html")  # as `make book PROFILE=smoke` leaves it
        marker.write_text(run_id)
    return HTML


def _jupyter_book(out: Path, **env_vars: str) -> subprocess.CompletedProcess:
    """``jupyter-book build . -W -n --keep-going --path-output out`` with the Makefile's environment."""
    env = {k: v for k, v in os.environ.items() if k != "LDP_HIDE_SOLUTIONS"}
    env.update(LDP_PROGRESS="0", **env_vars)
    jb = Path(sys.executable).with_name("jupyter-book")
    return subprocess.run(
        [str(jb), "build", str(REPO), "-W", "-n", "--keep-going", "--path-output", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.images, self.ids = [], [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pages(html: Path) -> list[Path]:
    return [html / f"{f}.html" for f in toc_files()]


def test_every_toc_page_is_built(built_book):
    missing = [str(p.relative_to(built_book)) for p in _pages(built_book) if not p.is_file()]
    assert not missing, f"pages missing from the build: {missing}"
    assert (built_book / "index.html").is_file()


def test_no_execution_failure_anywhere(built_book):
    for page in _pages(built_book):
        text = page.read_text(encoding="utf-8")
        assert "Execution Failed" not in text, page.name
        assert "CellExecutionError" not in text, page.name
    reports = built_book / "reports"
    logs = list(reports.rglob("*.err.log")) if reports.exists() else []
    assert not logs, f"execution error logs: {logs}"


def test_notebooks_execute_on_every_core_before_sphinx_reads_them(built_book):
    """book/_ext/parallel_execution.py runs the notebooks in worker processes and caches them as MyST-NB would:
    MyST-NB then finds every notebook in the cache and executes none itself (one unmatched hash would show here)."""
    if (os.cpu_count() or 1) < 2 or os.environ.get("LDP_BOOK_JOBS", "").strip() == "1":
        pytest.skip("one process: MyST-NB executes the notebooks itself")
    log = (OUT / "build.log").read_text()
    counted = re.search(r"Executing (\d+) notebooks in (\d+) processes before reading", log)
    assert counted, "the notebooks were not executed in parallel before reading"
    executed = re.findall(r"^\s+(\S+): executed in \d+ s$", log, flags=re.M)
    assert len(executed) == int(counted.group(1)) >= 10
    assert "Executing notebook using" not in log  # MyST-NB's own execution while reading
    assert log.count("Using cached notebook") >= len(executed)


def test_figures_are_present_and_non_empty(built_book):
    n_images = 0
    for page in _pages(built_book):
        for src in _parse(page).images:
            if urlparse(src).scheme in ("http", "https", "data"):
                continue
            target = (page.parent / unquote(urlparse(src).path)).resolve()
            assert target.is_file() and target.stat().st_size > 0, f"{page.name}: image {src} missing or empty"
            n_images += 1
    notebooks = [f for f in toc_files() if f.startswith("notebooks/")]
    if notebooks:
        assert n_images > 0, "the notebooks produced no figure at all"


def test_internal_links_resolve(built_book):
    broken = []
    cache: dict[Path, set[str]] = {}
    for page in _pages(built_book):
        for href in _parse(page).links:
            url = urlparse(href)
            if url.scheme or href.startswith(("mailto:", "javascript:")):
                continue
            target = page if not url.path else (page.parent / unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(built_book)} -> {href}")
                continue
            if url.fragment and target.suffix == ".html":
                if target not in cache:  # parse each target once (setdefault would parse on every link)
                    cache[target] = _parse(target).ids
                if unquote(url.fragment) not in cache[target]:
                    broken.append(f"{page.relative_to(built_book)} -> {href} (no such anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def _launch(p):
    return p.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
        ],
    )


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM:
        if browser_required():
            pytest.fail("LDP_REQUIRE_BROWSER=1 but no chromium is installed (apt-get install chromium)")
        pytest.skip("no Chromium installed: install Debian's `chromium` to run the browser checks")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = _launch(p)
        yield b
        b.close()


_MATH_STATE = """() => {
  const raw = Array.from(document.querySelectorAll('.math')).filter(e => !e.querySelector('mjx-container'));
  return {rendered: document.querySelectorAll('mjx-container').length, unrendered: raw.length,
          mathjax: !!(window.MathJax && window.MathJax.startup)};
}"""

_IMAGES = """() => Array.from(document.querySelectorAll('main img, article img'))
  .map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0}))"""


def _open(browser, path: Path):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    # offline means offline: any http(s) request (a CDN MathJax, a web font) is refused, so math can
    # only render from the vendored copy
    page.route("http*://**", lambda route: route.abort())
    page.goto(path.as_uri(), wait_until="load")
    if page.evaluate("() => !!(window.MathJax && window.MathJax.startup)"):
        page.wait_for_function("() => window.MathJax.startup.promise.then(() => true)", timeout=30_000)
        page.evaluate("() => window.MathJax.startup.promise")
    return page


def test_index_and_a_notebook_render_in_chromium(built_book, browser, tmp_path):
    """The index redirects to the intro; the first notebook shows rendered math and a loaded figure."""
    page = browser.new_page()
    page.route("http*://**", lambda route: route.abort())
    page.goto((built_book / "index.html").as_uri())
    page.wait_for_url("**/book/intro.html", timeout=30_000)  # index.html is a meta-refresh redirect
    page.wait_for_load_state("load")
    assert "Local differential privacy" in page.inner_text("body")
    page.close()
    notebooks = [f for f in toc_files() if f.startswith("notebooks/")]
    assert notebooks, "no notebook in the toc"
    page = _open(browser, built_book / f"{notebooks[0]}.html")
    math = page.evaluate(_MATH_STATE)
    assert math["mathjax"], "MathJax did not load (is _vendor/mathjax present? run `make mathjax`)"
    assert math["rendered"] > 0 and math["unrendered"] == 0, math
    images = page.evaluate(_IMAGES)
    assert images and all(i["ok"] for i in images), images
    shot = tmp_path / "notebook.png"
    page.screenshot(path=str(shot), full_page=False)
    pixels = __import__("matplotlib.image", fromlist=["imread"]).imread(shot)
    assert pixels.size and float(np.std(pixels[..., :3])) > 0.02, "the screenshot is blank"
    page.close()


def test_every_page_renders_math_and_figures_in_chromium(built_book, browser):
    problems = []
    for path in _pages(built_book):
        page = _open(browser, path)
        text = page.inner_text("body")
        if "Execution Failed" in text:
            problems.append(f"{path.name}: Execution Failed")
        math = page.evaluate(_MATH_STATE)
        if math["unrendered"]:
            problems.append(f"{path.name}: {math['unrendered']} math elements not rendered")
        bad = [i["src"] for i in page.evaluate(_IMAGES) if not i["ok"]]
        if bad:
            problems.append(f"{path.name}: images not loaded {bad}")
        page.close()
    assert not problems, "\n".join(problems)


def _table_rows(html_text: str) -> list[list[str]]:
    """Cell texts of every table row in an HTML page (tags stripped)."""
    import re

    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html_text, flags=re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)
        rows.append([re.sub(r"<[^>]+>", "", c).strip() for c in cells])
    return rows


def _claims_counts(html_text: str) -> tuple[int, int, int, int, int] | None:
    """(reproduced, differs, not reproducible, qualitative only, claims) counted in a page's claims table."""
    rows = _table_rows(html_text)
    header = next((r for r in rows if "verdict" in r), None)
    if header is None:
        return None
    col = header.index("verdict")
    cells = [r[col].lstrip("✓✗?~ ") for r in rows if len(r) == len(header) and r is not header]  # badge marks
    verdicts = [v for v in cells if v in VERDICTS]
    return (*(verdicts.count(v) for v in VERDICTS), len(verdicts))


VERDICTS = ("reproduced", "differs", "not reproducible", "qualitative only")


def _scoreboard_rows(built_book: Path) -> tuple[list[str], list[list[str]]]:
    board = (built_book / "book" / "scoreboard.html").read_text(encoding="utf-8")
    block = board[board.index("scoreboard-totals") :]
    block = block[: block.index("</table>")]
    rows = _table_rows(block)
    return rows[0], rows[1:]


def test_scoreboard_totals_match_the_chapters_claims_tables(built_book):
    """Each chapter's row on the scoreboard equals the verdicts counted in that chapter's own claims table."""
    header, rows = _scoreboard_rows(built_book)
    cols = [header.index(v) for v in (*VERDICTS, "claims")]
    shown = sorted(tuple(int(r[c]) for c in cols) for r in rows if r[0] != "all chapters")
    chapters = [
        f for f in toc_files() if f.startswith("notebooks/") and ("experiments" in f or f.startswith("notebooks/00-"))
    ]
    counted = [
        c for f in chapters if (c := _claims_counts((built_book / f"{f}.html").read_text(encoding="utf-8"))) is not None
    ]
    assert shown == sorted(counted), f"scoreboard rows {shown} != chapters' tables {counted}"


def test_scoreboard_total_row_is_the_sum_of_the_chapter_rows(built_book):
    """The 'all chapters' row (added at build time by book/_ext/ldp_book.py) adds up the rows above it."""
    header, rows = _scoreboard_rows(built_book)
    totals = [r for r in rows if r[0] == "all chapters"]
    assert len(totals) == 1 and rows[-1] is totals[0], f"expected one total row, last: {rows}"
    chapters = rows[:-1]
    assert len(chapters) >= 2
    cols = [header.index(v) for v in (*VERDICTS, "claims")]
    blank = [r[0] for r in rows if not all(r[c].isdigit() for c in cols)]
    assert not blank, f"scoreboard rows without whole-number counts (a chapter's glue is missing?): {blank}"
    for v in (*VERDICTS, "claims"):
        c = header.index(v)
        assert int(totals[0][c]) == sum(int(r[c]) for r in chapters), (v, totals[0], chapters)
    assert sum(int(totals[0][header.index(v)]) for v in VERDICTS) == int(totals[0][header.index("claims")])


# ----------------------------------------------------------------------------------------------- page structure
class _Node:
    __slots__ = ("tag", "attrs", "children", "parent", "text")

    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.children, self.parent, self.text = tag, attrs, [], parent, []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def all_text(self) -> str:
        return "".join(t if isinstance(t, str) else t.all_text() for t in self.text)


class _Tree(HTMLParser):
    """A minimal DOM: enough to ask "is this image inside a captioned figure?"."""

    VOID = {"img", "br", "hr", "meta", "link", "input", "source", "wbr", "col", "area", "base", "embed", "param"}

    def __init__(self):
        super().__init__()
        self.root = _Node("root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = _Node(tag, dict(attrs), self.cur)
        self.cur.children.append(node)
        self.cur.text.append(node)
        if tag not in self.VOID:
            self.cur = node

    def handle_endtag(self, tag):
        node = self.cur
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.cur = node.parent

    def handle_data(self, data):
        self.cur.text.append(data)


def _tree(path: Path) -> _Node:
    t = _Tree()
    t.feed(path.read_text(encoding="utf-8"))
    return t.root


def _article(root: _Node) -> _Node:
    return next((n for n in root.iter() if n.tag == "article" and "bd-article" in n.classes), root)


def _notebook_pages(html: Path) -> list[Path]:
    return [html / f"{f}.html" for f in toc_files() if f.startswith("notebooks/")]


FIG_NUMBER = re.compile(r"^Fig\. \d+\.\d+\s*$")


def test_every_image_is_a_numbered_captioned_figure_with_alt_text(built_book):
    """Every image on a notebook page sits in a figure numbered per chapter, with a caption and real alt text."""
    problems = []
    for path in _notebook_pages(built_book):
        bad: dict[str, int] = {}
        for img in (n for n in _article(_tree(path)).iter() if n.tag == "img"):
            fig = next((a for a in img.ancestors() if a.tag == "figure"), None)
            cap = next((n for n in fig.iter() if n.tag == "figcaption"), None) if fig else None
            number = next((n for n in cap.iter() if "caption-number" in n.classes), None) if cap else None
            alt = (img.attrs.get("alt") or "").strip()
            if fig is None:
                why = "not in a figure"
            elif number is None or not FIG_NUMBER.match(number.all_text()):
                why = "figure without a chapter-numbered caption"
            elif len(cap.all_text()) - len(number.all_text()) < 10:
                why = "caption too short"
            elif not alt or alt.endswith((".png", ".svg", ".jpg")) or ("/" in alt and " " not in alt):
                why = "alt text is empty or a file path"
            else:
                continue
            bad[why] = bad.get(why, 0) + 1
        if bad:
            problems.append(
                f"{path.relative_to(built_book)}: " + ", ".join(f"{n} image(s) {w}" for w, n in bad.items())
            )
    assert not problems, "images that are not numbered, captioned figures:\n" + "\n".join(problems)


def _build_machine_paths() -> list[str]:
    paths = {str(REPO), str(REPO.resolve()), sys.prefix, str(Path(sys.prefix).resolve()), str(Path.home())}
    return sorted(p for p in paths if len(p) > 4)


WARNING_IN_OUTPUT = re.compile(r"\b[A-Z]\w*Warning\b|\bWarning:|\bwarnings\.warn\b")


def test_no_stderr_warning_or_build_machine_path_in_the_html(built_book):
    """No stderr block, no Python warning in an output, no path of this machine, in any built page."""
    machine = _build_machine_paths()
    problems = []
    for path in sorted(built_book.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(built_book)
        if "output stderr" in text:
            problems.append(f"{rel}: {text.count('output stderr')} stderr output block(s)")
        for p in machine:
            if p in text:
                problems.append(f"{rel}: contains the build machine's path {p!r}")
        root = _tree(path)
        for out in (n for n in root.iter() if "cell_output" in n.classes):
            m = WARNING_IN_OUTPUT.search(out.all_text())
            if m:
                problems.append(f"{rel}: a cell output shows {m.group(0)!r}")
                break
    assert not problems, "\n".join(problems)


MAX_VISIBLE_CODE_LINES = 30


def test_no_visible_code_cell_longer_than_30_lines(built_book):
    """Prose first: a code cell shown without a toggle has at most 30 lines (hide-input / remove-input the rest)."""
    problems = []
    for path in _notebook_pages(built_book):
        long_cells = []
        for cell in (n for n in _tree(path).iter() if n.tag == "div" and "cell" in n.classes):
            if any(
                c.startswith(("tag_hide-input", "tag_remove-input", "tag_hide-cell", "tag_remove-cell"))
                for c in cell.classes
            ):
                continue
            cell_input = next((n for n in cell.iter() if "cell_input" in n.classes), None)
            pre = next((n for n in cell_input.iter() if n.tag == "pre"), None) if cell_input else None
            if pre is None:
                continue
            n_lines = len(pre.all_text().rstrip("\n").split("\n"))
            if n_lines > MAX_VISIBLE_CODE_LINES:
                long_cells.append(n_lines)
        if long_cells:
            problems.append(
                f"{path.relative_to(built_book)}: {len(long_cells)} visible code cell(s) over "
                f"{MAX_VISIBLE_CODE_LINES} lines ({sorted(long_cells, reverse=True)})"
            )
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------------------------- run from the page
def test_every_notebook_page_offers_the_ipynb_and_the_md(built_book):
    """The download menu lists the .ipynb (jupytext from the MyST source, no outputs) and the .md."""
    import nbformat

    problems = []
    for f in [f for f in toc_files() if f.startswith("notebooks/")]:
        text = (built_book / f"{f}.html").read_text(encoding="utf-8")
        for suffix in (".ipynb", ".md"):
            if f"_sources/{f}{suffix}" not in text:
                problems.append(f"{f}: no download link to _sources/{f}{suffix}")
        target = built_book / "_sources" / f"{f}.ipynb"
        if not target.is_file():
            problems.append(f"{f}: _sources/{f}.ipynb missing")
            continue
        nb = nbformat.read(target, as_version=4)
        n_code = len(re.findall(r"^```\{code-cell\}", (REPO / f"{f}.md").read_text(encoding="utf-8"), flags=re.M))
        cells = [c for c in nb.cells if c.cell_type == "code"]
        # the setup cell that installs ldp in a fresh session (test_launch.py), then the notebook's own cells
        if "ldp-setup" not in cells[0].metadata.get("tags", []) or "LDP_INSTALL_FROM" not in cells[0].source:
            problems.append(f"{f}: the .ipynb does not start with the ldp setup cell")
        cells = cells[1:]
        if len(cells) != n_code or any(c.get("outputs") for c in cells):
            problems.append(f"{f}: the .ipynb has {len(cells)} code cells (the .md {n_code}) or stored outputs")
        if "parameters" not in cells[0].metadata.get("tags", []):
            problems.append(f"{f}: the .ipynb's first code cell after the setup is not the parameters cell")
    assert not problems, "\n".join(problems)


def test_launch_and_repository_buttons_come_from_the_one_repository_url(built_book):
    import yaml

    url = yaml.safe_load((REPO / "_config.yml").read_text())["repository"]["url"].rstrip("/")
    owner_repo = url.removeprefix("https://github.com/")
    text = (built_book / "notebooks" / "01-clldp-theory.html").read_text(encoding="utf-8")
    assert f"https://mybinder.org/v2/gh/{owner_repo}/" in text
    assert f"https://colab.research.google.com/github/{owner_repo}/blob/gh-pages/_sources/" in text
    assert url in text  # repository button


def test_reference_pages_exist_and_say_what_they_should(built_book):
    api = built_book / "book" / "api"
    pages = {p.stem for p in api.glob("*.html")}
    assert {"index", "core", "oracles", "clldp", "lopub", "multiclass", "cpl", "uldp", "data"} <= pages
    import pkgutil

    import ldp

    core = (api / "core.html").read_text(encoding="utf-8")
    for m in pkgutil.iter_modules(ldp.__path__):  # every public module is documented, found at build
        if not m.name.startswith("_"):
            page = core if not m.ispkg else (api / f"{m.name}.html").read_text(encoding="utf-8")
            assert f'id="module-ldp.{m.name}"' in page, m.name
    assert 'id="ldp.plotting.style_for"' in core
    execution = (built_book / "book" / "execution.html").read_text(encoding="utf-8")
    rows = _table_rows(execution)
    assert sum(1 for r in rows if any("notebooks/" in c or c.startswith("notebooks") for c in r)) >= len(
        [f for f in toc_files() if f.startswith("notebooks/")]
    ), rows[:3]
    assert ">smoke<" in execution  # LDP_PROFILE reached the kernels
    cite = re.sub(r"<[^>]+>", "", (built_book / "book" / "how-to-cite.html").read_text(encoding="utf-8"))
    assert "@software{ldp_compendium_2026," in cite and "CC BY 4.0" in cite
    intro = (built_book / "book" / "intro.html").read_text(encoding="utf-8")
    assert "MIT licence" in intro and "CC BY 4.0" in intro  # footer
    index = (built_book / "book" / "proof-index.html").read_text(encoding="utf-8")
    # generated from the prf blocks at build time: numbered entries linking into the chapters
    assert re.search(r"<strong>(Definition|Theorem|Algorithm) \d+\.\d+</strong>", index), "empty proof index"


def test_numbering_is_per_chapter_and_citations_are_author_year(built_book):
    """Proof boxes, exercises and figures carry "<chapter>.<n>", and the bibliography labels read as the text."""
    numbers = []
    for path in _notebook_pages(built_book):
        numbers += re.findall(r'caption-number">([A-Z][a-z]+\.? [\d.]+)', path.read_text(encoding="utf-8"))
    assert numbers, "no numbered element at all"
    flat = [n for n in numbers if not re.fullmatch(r"\S+ \d+\.\d+", n)]
    assert not flat, f"numbers that are not chapter-scoped: {sorted(set(flat))[:10]}"
    bib = (built_book / "book" / "bibliography.html").read_text(encoding="utf-8")
    labels = re.findall(r'<span class="fn-bracket">\[</span>([^<]+)<span class="fn-bracket">\]</span>', bib)
    assert labels and all(re.fullmatch(r"\D+ \d{4}[a-z]?", lab) for lab in labels), labels[:5]
    intro = re.sub(r"<[^>]+>", "", (built_book / "book" / "intro.html").read_text(encoding="utf-8"))
    assert "(Jayawardana et al., 2025)" in intro  # {cite:p}: round brackets, author, year


def test_one_search_field(built_book):
    """The theme's sidebar search field is gone; the header's search button remains."""
    text = (built_book / "book" / "intro.html").read_text(encoding="utf-8")
    sidebar = text[text.index('class="bd-sidebar-primary') :]
    sidebar = sidebar[: sidebar.index("</div>\n</div>\n") if "</div>\n</div>\n" in sidebar else 3000]
    assert "search-button-field" not in sidebar[:3000]
    assert "search-button__button" in text


# ----------------------------------------------------------------------------------------------- course kit
@pytest.fixture(scope="module")
def nosolutions_book(built_book):
    """``make book-nosolutions`` at smoke size, re-using the smoke build's executed notebooks."""
    out = REPO / "_build" / "smoke-nosolutions"
    shutil.rmtree(out, ignore_errors=True)
    (out / "_build").mkdir(parents=True)
    (out / "_build" / ".jupyter_cache").symlink_to(OUT / "_build" / ".jupyter_cache")
    # as `make book-nosolutions`: the cached notebooks do not run again, so the scoreboard reads the claims tables
    # that the smoke build recorded
    proc = _jupyter_book(
        out, LDP_PROFILE="smoke", LDP_HIDE_SOLUTIONS="1", LDP_CLAIMS_DIR=str(OUT / "_build" / "claims")
    )
    assert proc.returncode == 0, f"solution-free build failed:\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
    return out / "_build" / "html"


def test_the_solution_free_build_has_exercises_and_no_solutions(built_book, nosolutions_book):
    with_solutions = without = exercises = 0
    for f in [f for f in toc_files() if f.startswith("notebooks/")]:
        full = (built_book / f"{f}.html").read_text(encoding="utf-8")
        bare = (nosolutions_book / f"{f}.html").read_text(encoding="utf-8")
        with_solutions += full.count('class="solution')
        without += bare.count('class="solution')
        exercises += bare.count('class="exercise')
    assert exercises > 0 and with_solutions > 0, (exercises, with_solutions)
    assert without == 0, f"{without} solution blocks left in the solution-free build"


# ----------------------------------------------------------------------------------------------- browser: math
_MATH_OVERFLOW = """() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const right = article.getBoundingClientRect().right;
  const bad = [];
  for (const el of article.querySelectorAll('mjx-container')) {   // the page's text, not the side tables of contents
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;                       // inside a closed toggle
    let scroller = null;
    for (let a = el; a && a !== article; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if ((o === 'auto' || o === 'scroll') && a.scrollWidth > a.clientWidth + 1) { scroller = a; break; }
    }
    const sticksOut = box.right > right + 1;
    const st = getComputedStyle(el);   // clipped: wider than its box and overflow hidden (visible overflow is
    const cut = el.scrollWidth > el.clientWidth + 1 && ['hidden', 'clip'].includes(st.overflowX);  // caught below)
    if ((sticksOut && !scroller) || cut) {
      bad.push((el.getAttribute('display') === 'true' ? 'display ' : 'inline ') + Math.round(el.scrollWidth) + 'px');
    }
  }
  return bad;
}"""


@pytest.mark.parametrize("width", [1400, 420])
def test_no_math_wider_than_its_column_unless_it_scrolls(built_book, browser, width):
    problems = []
    for path in _pages(built_book):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.route("http*://**", lambda route: route.abort())
        page.goto(path.as_uri(), wait_until="load")
        if page.evaluate("() => !!(window.MathJax && window.MathJax.startup)"):
            page.wait_for_function("() => window.MathJax.startup.promise.then(() => true)", timeout=30_000)
            page.evaluate("() => window.MathJax.startup.promise")
        bad = page.evaluate(_MATH_OVERFLOW)
        if bad:
            problems.append(f"{path.relative_to(built_book)}: {len(bad)} math element(s) cut at {width}px: {bad[:4]}")
        page.close()
    assert not problems, "\n".join(problems)
