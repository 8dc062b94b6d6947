"""The strict book build and what a reader sees: pages, figures, links, math, in a real browser.

The build runs once per session at the smoke profile (``LDP_PROFILE=smoke``) into ``_build/smoke`` so it
never shares a jupyter-cache with ``make book``; a file lock makes xdist workers share one build.
"""
from __future__ import annotations

import fcntl
import os
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
        env = dict(os.environ, LDP_PROFILE="smoke")
        jb = Path(sys.executable).with_name("jupyter-book")
        proc = subprocess.run([str(jb), "build", str(REPO), "-W", "-n", "--keep-going", "--path-output", str(OUT)],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=1500)
        log = proc.stdout[-6000:] + proc.stderr[-6000:]
        assert proc.returncode == 0, f"strict book build failed:\n{log}"
        marker.write_text(run_id)
    return HTML


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
                ids = cache.setdefault(target, _parse(target).ids)
                if unquote(url.fragment) not in ids:
                    broken.append(f"{page.relative_to(built_book)} -> {href} (no such anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def _launch(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-quic"])


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


def test_scoreboard_totals_match_the_chapters_claims_tables(built_book):
    """The built scoreboard's totals equal the verdicts counted in each chapter's own claims table."""
    board = (built_book / "book" / "scoreboard.html").read_text(encoding="utf-8")
    totals = [r for r in _table_rows(board) if len(r) >= 6 and r[-1].isdigit() and r[-4].isdigit()]
    assert totals, "no totals rows found on the scoreboard"
    chapters = [f for f in toc_files() if f.startswith("notebooks/") and (
        "experiments" in f or f.startswith("notebooks/00-"))]
    counted = []
    for f in chapters:
        rows = _table_rows((built_book / f"{f}.html").read_text(encoding="utf-8"))
        header = next((r for r in rows if "verdict" in r), None)
        if header is None:
            continue
        col = header.index("verdict")
        verdicts = [r[col] for r in rows if len(r) == len(header) and r is not header and r[col] in (
            "reproduced", "differs", "not reproducible")]
        counted.append((verdicts.count("reproduced"), verdicts.count("differs"),
                        verdicts.count("not reproducible"), len(verdicts)))
    shown = [tuple(int(x) for x in r[-4:]) for r in totals]
    assert sorted(shown) == sorted(counted), f"scoreboard totals {shown} != chapters' tables {counted}"
