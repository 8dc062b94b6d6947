"""The scoreboard's bar chart and its table of every claim, built from the claims tables the chapters recorded.

Each experiments notebook's ``ClaimsTable.glue()`` writes ``<chapter>.json`` into ``$LDP_CLAIMS_DIR`` when it
runs (the Makefile sets it per profile; this extension defaults it to ``_build/claims`` beside the HTML output
before any notebook executes).  After every page has been read, the ``{ldp-claims-board}`` directive of the
scoreboard page is replaced by

* a stacked bar of the verdict counts per paper (inline SVG: no script, no image file), and
* one table of every claim (chapter, claim linked to its row in the chapter, paper, ours, verdict badge, basis),
  static HTML that DataTables turns into a filterable, searchable, paginated table when JavaScript runs.
  DataTables comes from the ``itables`` package's offline bundle, copied into ``_static`` at build time and
  loaded as a classic script (a module script would be refused on a page opened from ``file://``); nothing is
  fetched from a network.
"""

from __future__ import annotations

import html
import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

logger = logging.getLogger(__name__)

CLAIMS_KEY = re.compile(r"ClaimsTable\(\s*[\"']([A-Za-z0-9_-]+)[\"']\s*\)")
STATIC = "ldp-datatables"
ORDER = ("reproduced", "differs", "not reproducible", "qualitative only")
COLOURS = {"reproduced": "#7cb87f", "differs": "#d9826f", "not reproducible": "#b5b5b5", "qualitative only": "#d8c46c"}


class claims_board(nodes.General, nodes.Element):
    """Placeholder replaced by the board once every chapter has been read."""


class ClaimsBoard(Directive):
    has_content = False

    def run(self):
        return [claims_board()]


def _set_claims_dir(app, config):
    if not os.environ.get("LDP_CLAIMS_DIR"):
        os.environ["LDP_CLAIMS_DIR"] = str(Path(app.outdir).parent / "claims")


def _chapters(srcdir: Path, docs) -> dict[str, str]:
    """Chapter key -> docname, for every notebook in the book that builds a ClaimsTable."""
    out = {}
    for doc in sorted(docs):
        src = srcdir / f"{doc}.md"
        if doc.startswith("notebooks/") and src.is_file():
            m = CLAIMS_KEY.search(src.read_text(encoding="utf-8"))
            if m:
                out[m.group(1)] = doc
    return out


#: the board's chapter column: one short word per chapter (the full title is its tooltip and is in the bar above)
SHORT = {"frequency-oracles": "Primer", "clldp": "CLLDP", "lopub": "LoPub", "multiclass": "Multi-class",
         "cpl": "CPL", "uldp": "ULDP"}  # fmt: skip


def _badge(verdict: str) -> str:
    from ldp.claims import verdict_badge

    return verdict_badge(verdict)


def _bar(counts: dict[str, dict[str, int]], titles: dict[str, str]) -> str:
    """A horizontal stacked bar per chapter (SVG), with a legend."""
    label_w = min(420, 12 + 7 * max((len(t) for t in titles.values()), default=10))  # 12-px labels, never cut
    width, row_h, bar_h = label_w + 460, 26, 18
    total_max = max((sum(c.values()) for c in counts.values()), default=1) or 1
    scale = (width - label_w - 40) / total_max
    parts = []
    y = 4
    for chapter, c in counts.items():
        parts.append(
            f'<text x="{label_w - 6}" y="{y + bar_h - 5}" text-anchor="end" font-size="12">'
            f"{html.escape(titles[chapter])}</text>"
        )
        x = label_w
        for verdict in ORDER:
            n = c.get(verdict, 0)
            if n:
                w = n * scale
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{COLOURS[verdict]}">'
                    f"<title>{html.escape(titles[chapter])}: {n} {verdict}</title></rect>"
                )
                if w >= 16:
                    parts.append(
                        f'<text x="{x + w / 2:.1f}" y="{y + bar_h - 5}" text-anchor="middle" font-size="11">{n}</text>'
                    )
                x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + bar_h - 5}" font-size="11">{sum(c.values())}</text>')
        y += row_h
    lx = label_w
    for verdict in ORDER:
        parts.append(f'<rect x="{lx}" y="{y + 4}" width="12" height="12" fill="{COLOURS[verdict]}"/>')
        parts.append(f'<text x="{lx + 16}" y="{y + 14}" font-size="11">{verdict}</text>')
        lx += 16 + 7 * len(verdict) + 14
    height = y + 22
    return (
        f'<svg class="ldp-board-bar" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'style="max-width:{width}px" aria-label="verdicts per paper">{"".join(parts)}</svg>'
    )


def _board_html(app, docname: str) -> str:
    from ldp.claims import CLAIMS_CSS, ClaimsTable
    from ldp.pages import format_value, html_unbroken

    folder = Path(os.environ["LDP_CLAIMS_DIR"])
    chapters = _chapters(Path(app.srcdir), app.env.found_docs)
    up = "../" * docname.count("/")
    counts, titles, rows = {}, {}, []
    for chapter, doc in chapters.items():
        path = folder / f"{chapter}.json"
        if not path.is_file():
            logger.warning(
                f"scoreboard: no recorded claims table for chapter {chapter!r} ({path}); run `make clean` and build "
                "again so that every notebook executes and records its table",
                location=docname,
            )
            continue
        table = ClaimsTable.read_json(path)
        title = app.env.titles[doc].astext() if doc in app.env.titles else chapter
        titles[chapter] = re.sub(r"\s*(\(experiments\)|: experiments|: a primer)$", "", title)
        counts[chapter] = table.totals()
        for i, r in enumerate(table.frame().to_dict("records"), start=1):
            link = f"{up}{doc}.html#claim-{chapter}-{i}"
            rows.append(
                f'<tr><td title="{html.escape(titles[chapter])}">{html.escape(SHORT.get(chapter, chapter))}</td>'
                f'<td><a href="{link}">{html_unbroken(r["claim"])}</a></td>'
                f'<td class="ldp-num">{html_unbroken(format_value(r["paper"], max_items=3))}</td>'
                f'<td class="ldp-num">{html_unbroken(format_value(r["ours"], max_items=3))}</td>'
                f"<td>{_badge(r['verdict'])}</td><td>{html.escape(str(r['basis']))}</td></tr>"
            )
    table_html = (
        '<div class="ldp-claims-wrap"><table id="ldp-all-claims" class="ldp-claims ldp-board display">'
        '<colgroup><col style="width:7.5em"><col><col style="width:13%"><col style="width:13%">'
        '<col style="width:10em"><col style="width:11%"></colgroup>'
        '<thead><tr><th>chapter</th><th>claim</th><th class="ldp-num">paper</th><th class="ldp-num">ours</th>'
        "<th>verdict</th><th>basis</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    script = f"""
<link rel="stylesheet" href="{up}_static/{STATIC}/dt_bundle.css">
<script src="{up}_static/{STATIC}/dt_bundle.classic.js"></script>
<script>
document.addEventListener("DOMContentLoaded", function () {{
  if (!window.LdpDataTables) return;
  var table = document.getElementById("ldp-all-claims");
  new window.LdpDataTables.ITable(table, {{
    layout: {{top1: "searchPanes"}},
    searchPanes: {{columns: [0, 4, 5], cascadePanes: true, initCollapsed: false, threshold: 1}},
    pageLength: 10, lengthMenu: [10, 25, 50, 100, 500], autoWidth: false, order: []
  }});
  document.body.classList.add("ldp-board-ready");
}});
</script>"""
    return f"<style>{CLAIMS_CSS}</style>" + _bar(counts, titles) + table_html + script


def _resolve(app, doctree, docname):
    for node in list(doctree.findall(claims_board)):
        node.replace_self(nodes.raw("", _board_html(app, docname), format="html"))


def _classic(module_js: str) -> str:
    """The itables ES-module bundle as a classic script that sets ``window.LdpDataTables`` (works on file://)."""
    exports = re.findall(r"export\s*\{([^}]*)\}\s*;?", module_js)
    if len(exports) != 1:
        raise RuntimeError(f"the itables bundle has {len(exports)} export statements, expected 1")
    pairs = [p.strip().split(" as ") for p in exports[0].split(",")]
    names = ", ".join(f'"{alias.strip()}": {name.strip()}' for name, alias in pairs)
    body = re.sub(r"export\s*\{[^}]*\}\s*;?", "", module_js)
    return f'(function () {{"use strict";\n{body}\nwindow.LdpDataTables = {{{names}}};\n}})();\n'


def _copy_bundle(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    import itables

    src = Path(itables.__file__).parent / "html"
    dest = Path(app.outdir) / "_static" / STATIC
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "dt_bundle.css", dest / "dt_bundle.css")
    (dest / "dt_bundle.classic.js").write_text(_classic((src / "dt_bundle.js").read_text(encoding="utf-8")))


def setup(app):
    app.add_node(claims_board)
    app.add_directive("ldp-claims-board", ClaimsBoard)
    app.connect("config-inited", _set_claims_dir)
    app.connect("doctree-resolved", _resolve)
    app.connect("build-finished", _copy_bundle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
