"""Book-wide Sphinx additions that Jupyter Book's configuration alone cannot express.

* **Notebook downloads**: every notebook page offers ``_sources/<doc>.ipynb``, converted from the MyST source
  with jupytext at build time (no outputs, so nothing of the build machine leaks into it), next to the ``.md``.
* **Scoreboard total**: the chapters glue their verdict counts; static glue cannot add numbers across pages,
  so the table named ``scoreboard-totals`` gets a last row, "all chapters", with the column sums computed here
  after the glued values are filled in.
* **Solution-free build**: ``LDP_HIDE_SOLUTIONS=1`` in the environment turns on sphinx-exercise's
  ``hide_solutions`` (``make book-nosolutions``).
* **API reference**: the ``ldp-automodules`` directive documents every public module of a package, discovered
  when the book is built, so a renamed or new module needs no edit of the reference pages.
* **Author-year citations**: the pybtex style ``authoryear`` labels bibliography entries "Author et al. Year",
  the form the text uses, and the reference style ``author_year_round`` cites "Xue et al. (2025)".
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

LOGGER = logging.getLogger(__name__)

TOTALS_CLASS = "scoreboard-totals"
TOTAL_LABEL = "all chapters"


# --------------------------------------------------------------------------- .ipynb downloads
def _is_notebook(app, pagename: str) -> bool:
    return "kernelspec" in app.env.metadata.get(pagename, {})


def _offer_ipynb(app, pagename, templatename, context, doctree):
    """Runs before sphinx-book-theme's buttons (priority 501), so its download menu lists the .ipynb."""
    if doctree is None or not _is_notebook(app, pagename):
        return
    if not str(app.env.doc2path(pagename)).endswith(".md"):
        return
    context["ipynb_source"] = pagename + ".ipynb"
    app.env.ldp_ipynb_pages = getattr(app.env, "ldp_ipynb_pages", set()) | {pagename}


def _write_ipynbs(app, exception):
    """After every page is written (the theme may have copied the executed notebook there): the clean one."""
    if exception is not None or app.builder.format != "html":
        return
    import jupytext

    repo = app.config.html_theme_options.get("repository_url", "") or ""
    ref = _build_commit(app, full=True) or app.config.html_theme_options.get("repository_branch", "main")
    for pagename in sorted(getattr(app.env, "ldp_ipynb_pages", ())):
        nb = notebook_for_download(app.env.doc2path(pagename), repo, ref)
        target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        jupytext.write(nb, target, fmt="ipynb")


#: the first cell of every downloaded or launched .ipynb: installs ldp when the session lacks it (Colab, a fresh
#: virtual environment), does nothing where it is installed (Binder runs postBuild, a checkout has `make install`)
SETUP_CELL = """\
# Setup for a fresh session (Colab, a new virtual environment): install the book's package `ldp` if it is
# missing; where `ldp` is already installed this cell does nothing. The source is the book's repository at the
# commit this page was built from; set LDP_INSTALL_FROM (a path to a local checkout, or any pip requirement)
# to install from elsewhere, e.g. offline from a clone.
import importlib.util, os, subprocess, sys

if importlib.util.find_spec("ldp") is None:
    source = os.environ.get("LDP_INSTALL_FROM") or "ldp-compendium[book] @ git+{repo}@{ref}"
    local = os.path.isdir(source)
    pip = [sys.executable, "-m", "pip", "install", "--quiet"] + (["--no-build-isolation"] if local else [])
    subprocess.run(pip + [source], check=True)
    importlib.invalidate_caches()
    import ldp.data

    found = [n for n in ldp.data.DATASETS if ldp.data.is_available(n)]
    missing = [n for n in ldp.data.DATASETS if n not in found]
    print("Installed ldp from", source)
    print("Datasets in this session:", ", ".join(found) or "none")
    if missing:
        print("Not here (each chapter uses a documented stand-in instead and says so in a box):", ", ".join(missing))
"""


def notebook_for_download(md_path, repository_url: str, ref: str):
    """The .ipynb a reader downloads or launches: the MyST source without outputs, opened by :data:`SETUP_CELL`."""
    import jupytext
    from nbformat.v4 import new_code_cell

    nb = jupytext.read(md_path, fmt="md:myst")
    nb.metadata.pop("jupytext", None)
    repo = repository_url.rstrip("/") or "https://github.com/ldp-compendium/ldp-compendium"
    cell = new_code_cell(SETUP_CELL.replace("{repo}", repo + ".git").replace("{ref}", ref))
    cell.metadata["tags"] = ["ldp-setup"]
    nb.cells.insert(0, cell)
    return nb


def _colab_from_published_sources(app, pagename, templatename, context, doctree):
    """Colab opens .ipynb files from GitHub only: point its button at the published copy (gh-pages branch)."""
    url = app.config.html_theme_options.get("repository_url", "")
    m = re.match(r"https://github\.com/([^/]+)/([^/]+?)/?$", url or "")
    if not m or "ipynb_source" not in context:
        return
    for group in context.get("header_buttons", []):
        for button in group.get("buttons", []) if isinstance(group, dict) else []:
            if "colab" in str(button.get("url", "")):
                button["url"] = (
                    f"https://colab.research.google.com/github/{m[1]}/{m[2]}/blob/gh-pages/"
                    f"_sources/{context['ipynb_source']}"
                )


# --------------------------------------------------------------------------- scoreboard total row
def _cell_int(entry: nodes.Element) -> int | None:
    text = entry.astext().strip().replace(",", "")
    return int(text) if re.fullmatch(r"\d+", text) else None


class ScoreboardTotal(SphinxPostTransform):
    """Append the column sums to the table inside a ``scoreboard-totals`` container (after glue, priority 5).

    A column is summed when every cell of it is a whole number; a column that mixes numbers and text (a glued
    value that failed to resolve) is a build warning, so a strict build cannot show a wrong total.
    """

    default_priority = 50

    def run(self, **kwargs):
        tables = [
            t
            for c in self.document.findall(nodes.container)
            if TOTALS_CLASS in c.get("classes", [])
            for t in c.findall(nodes.table)
        ]
        for table in tables:
            tbody = next(iter(table.findall(nodes.tbody)), None)
            if tbody is None or not len(tbody):
                LOGGER.warning("the scoreboard totals table has no rows", location=table)
                continue
            rows = [r for r in tbody.children if isinstance(r, nodes.row)]
            ncols = len(rows[0].children)
            sums: list[int | None] = []
            for col in range(ncols):
                values = [_cell_int(r.children[col]) for r in rows]
                if all(v is not None for v in values):
                    sums.append(sum(values))
                elif any(v is not None for v in values):
                    LOGGER.warning(
                        f"scoreboard totals: column {col + 1} mixes numbers and text "
                        f"({[r.children[col].astext() for r in rows]}); cannot add it up",
                        location=table,
                    )
                    sums.append(None)
                else:
                    sums.append(None)
            total = nodes.row(classes=["ldp-total-row"])
            for col, s in enumerate(sums):
                entry = nodes.entry()
                if col == 0:
                    entry += nodes.paragraph("", "", nodes.strong(TOTAL_LABEL, TOTAL_LABEL))
                elif s is not None:
                    entry += nodes.paragraph("", "", nodes.strong(str(s), str(s)))
                else:
                    entry += nodes.paragraph("", "")
                total += entry
            tbody += total


# --------------------------------------------------------------------------- solution-free build
def _hide_solutions_from_env(app, config):
    if os.environ.get("LDP_HIDE_SOLUTIONS", "0") == "1":
        config.hide_solutions = True


# --------------------------------------------------------------------------- API reference
class AutoModules(SphinxDirective):
    """``.. ldp-automodules:: ldp.oracles``: the package's docstring and every public module it contains.

    Option ``:top-level:`` documents the package's own non-package modules only (for the core page of
    ``ldp``, whose subpackages have pages of their own).
    """

    required_arguments = 1
    option_spec = {"top-level": directives.flag}

    def run(self):
        name = self.arguments[0]
        try:
            pkg = importlib.import_module(name)
        except ImportError as exc:
            raise self.error(f"ldp-automodules: cannot import {name!r}: {exc}") from exc
        top_level = "top-level" in self.options
        modules = []
        for info in sorted(pkgutil.iter_modules(pkg.__path__, prefix=f"{name}."), key=lambda i: i.name):
            short = info.name.rsplit(".", 1)[-1]
            if short.startswith("_") or (top_level and info.ispkg):
                continue
            modules.append(info.name)
        self.env.note_dependency(pkg.__file__)
        lines = [".. autosummary::", ""] + [f"   {m}" for m in modules]
        lines += ["", f".. automodule:: {name}", "   :no-members:", ""]
        for m in modules:
            mod = importlib.import_module(m)
            if getattr(mod, "__file__", None):
                self.env.note_dependency(mod.__file__)
            lines += [m, "-" * len(m), "", f".. automodule:: {m}", "   :members:", "   :show-inheritance:", ""]
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, StringList(lines, source=f"<ldp-automodules {name}>"), node)
        return node.children


def _canonical_name(target: str) -> str | None:
    """``ldp.oracles.GRR`` -> ``ldp.oracles.grr.GRR``: where a re-exported object is documented."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                owner, obj = obj, getattr(obj, attr)
        except AttributeError:
            return None
        rest: list[str] = []
        while not hasattr(obj, "__module__") or not hasattr(obj, "__qualname__"):
            if len(parts) - cut - len(rest) <= 1:  # a module attribute without a home (data): leave it
                return None
            rest.insert(0, parts[len(parts) - len(rest) - 1])
            obj = owner
        name = f"{obj.__module__}.{obj.__qualname__}"
        return ".".join([name, *rest]) if name != target else None
    return None


def _exists(target: str) -> bool:
    """Does ``ldp.x.y`` name a module or an attribute that can be imported?"""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def _resolve_reexports(app, env, node, contnode):
    """Docstrings name objects by their public path (``ldp.oracles.GRR``); autodoc documents them where they
    are defined (``ldp.oracles.grr.GRR``). Resolve the first through the second instead of a broken link.

    A name that exists but has no entry of its own (a private module such as ``ldp._checks``, a constant
    without a docstring) is shown as code without a link. A name that does not exist stays a warning: it is
    a stale reference (a renamed module or function) that the strict build must catch."""
    if node.get("refdomain") != "py" or not str(node.get("reftarget", "")).startswith("ldp."):
        return None
    canonical = _canonical_name(node["reftarget"])
    if canonical is not None:
        found = env.domains["py"].resolve_xref(
            env, node["refdoc"], app.builder, node["reftype"], canonical, node, contnode
        )
        if found is not None:
            return found
    return contnode if _exists(node["reftarget"]) else None


_CODE_SPAN = re.compile(r"(``.+?``|`[^`]+`)")
_BARS = re.compile(r"\|(?=\S)([^|`]*?\S)\|")


def _escape_bars(app, what, name, obj, options, lines):
    """``|Omega_j|`` in a docstring's prose is a cardinality or an absolute value, never an rST substitution
    (``ldp`` defines none): escape the bars outside code spans so that docutils prints them as written."""
    for i, line in enumerate(lines):
        if "|" not in line or line.lstrip().startswith(("|", "+")):  # line blocks and grid tables
            continue
        parts = _CODE_SPAN.split(line)
        lines[i] = "".join(p if j % 2 else _BARS.sub(r"\\|\1\\|", p) for j, p in enumerate(parts))


_TABLE_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")
_ITEM_HEAD = re.compile(r"^(?P<indent>\s*)(?P<names>``[^`]+``(?:,\s*``[^`]+``)*,?)(?:(?P<gap>\s{2,})(?P<text>\S.*))?$")


def _aligned_lists_to_bullets(app, what, name, obj, options, lines):
    """The package's docstrings often list names in an aligned two-column layout::

        ``ldp.audit``       exact ε of a channel
        ``ldp.channels``    sampling, count-level sampling, inversion and variance
                            for any finite channel

    which reads well in a terminal but is not valid reStructuredText. Rewrite each such block as a bullet list
    (``* ``ldp.audit``: exact ε of a channel``) so that the strict build accepts it and the page shows a list.
    A block is two or more consecutive item lines (or one item with an aligned continuation)."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if _TABLE_BORDER.match(lines[i]):  # a simple table: copy it untouched, up to its last border
            j = i + 1
            while j < len(lines) and not (
                _TABLE_BORDER.match(lines[j]) and (j + 1 == len(lines) or not lines[j + 1].strip())
            ):
                j += 1
            out.extend(lines[i : j + 1])
            i = j + 1
            continue
        m = _ITEM_HEAD.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        block: list[tuple[str, list[str]]] = []
        indent = m["indent"]
        j = i
        while j < len(lines):
            m = _ITEM_HEAD.match(lines[j])
            if not m or m["indent"] != indent:
                break
            column = len(lines[j]) - len(m["text"]) if m["text"] else None
            text = [m["text"]] if m["text"] else []
            j += 1
            while (
                j < len(lines)
                and lines[j].strip()
                and not _ITEM_HEAD.match(lines[j])
                and len(lines[j]) - len(lines[j].lstrip()) > len(indent)
                and (column is None or len(lines[j]) - len(lines[j].lstrip()) >= column - 1)
            ):
                text.append(lines[j].strip())
                if column is None:
                    column = len(lines[j]) - len(lines[j].lstrip())
                j += 1
            block.append((m["names"].rstrip(","), text))
        aligned = len(block) >= 2 or (block and len(block[0][1]) >= 2)
        if not aligned or any(not t for _, t in block):
            out.extend(lines[i:j])
            i = j
            continue
        if out and out[-1].strip():
            out.append("")
        for names, text in block:
            out.append(f"{indent}* {names}: {text[0]}")
            out.extend(f"{indent}  {t}" for t in text[1:])
        if j < len(lines) and lines[j].strip():
            out.append("")
        i = j
    lines[:] = out


def _skip_foreign_members(app, what, name, obj, skip, options):
    """scikit-learn adds ``set_*_request`` methods to every estimator; they are sklearn's, not ours."""
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return None


# --------------------------------------------------------------------------- author-year bibliography
def _register_authoryear_style():
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.unsrt import Style as UnsrtStyle
    from pybtex.style.labels import BaseLabelStyle
    from pybtex.style.sorting.author_year_title import SortingStyle

    class AuthorYearLabels(BaseLabelStyle):
        """ "Warner 1965", "Wang and Blocki 2017", "Xue et al. 2025"; a, b, ... for equal labels."""

        def format_labels(self, sorted_entries):
            labels = [self._label(e) for e in sorted_entries]
            counts: dict[str, int] = {}
            for lab in labels:
                counts[lab] = counts.get(lab, 0) + 1
            seen: dict[str, int] = {}
            for lab in labels:
                if counts[lab] == 1:
                    yield lab
                else:
                    seen[lab] = seen.get(lab, 0) + 1
                    yield f"{lab}{chr(ord('a') + seen[lab] - 1)}"

        @staticmethod
        def _label(entry) -> str:
            persons = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [" ".join(p.prelast_names + p.last_names) for p in persons]
            names = [re.sub(r"[{}]", "", n) for n in names]
            if not names:
                key = entry.fields.get("organization") or entry.fields.get("title", "Anon.")
                who = re.sub(r"[{}]", "", str(key)).split(":")[0]
            elif len(names) == 1:
                who = names[0]
            elif len(names) == 2:
                who = f"{names[0]} and {names[1]}"
            else:
                who = f"{names[0]} et al."
            return f"{who} {entry.fields.get('year', 'n.d.')}"

    class AuthorYearStyle(UnsrtStyle):
        default_label_style = AuthorYearLabels
        default_sorting_style = SortingStyle

    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)

    import dataclasses

    import sphinxcontrib.bibtex.plugin
    from sphinxcontrib.bibtex.style.referencing import BracketStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    def _round():
        return BracketStyle(left="(", right=")")

    @dataclasses.dataclass
    class AuthorYearRound(AuthorYearReferenceStyle):
        """ "Xue et al. (2025)" and "(Xue et al., 2025)": round brackets, as author-year citations read."""

        bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=_round)
        bracket_textual: BracketStyle = dataclasses.field(default_factory=_round)
        bracket_author: BracketStyle = dataclasses.field(default_factory=_round)
        bracket_label: BracketStyle = dataclasses.field(default_factory=_round)
        bracket_year: BracketStyle = dataclasses.field(default_factory=_round)

    sphinxcontrib.bibtex.plugin.register_plugin(
        "sphinxcontrib.bibtex.style.referencing", "author_year_round", AuthorYearRound
    )


# --------------------------------------------------------------------------- no machinery on the page
#: cell tags whose cells never reach a page: the papermill ``parameters`` cell (``PROFILE = "book"``) is for
#: runs, not for readers (the page says which build it is; the downloaded .ipynb keeps the cell)
REMOVED_CELL_TAGS = ("parameters",)


class RemoveMachineryCells(SphinxPostTransform):
    """Drop notebook cells tagged ``parameters`` from the rendered page (myst-nb marks them ``tag_<tag>``)."""

    default_priority = 10

    def run(self, **kwargs):
        classes = {f"tag_{tag}" for tag in REMOVED_CELL_TAGS}
        for node in list(self.document.findall(nodes.container)):
            if classes & set(node.get("classes", [])) and node.parent is not None:
                node.parent.remove(node)


# --------------------------------------------------------------------------- computed reference text
# Numbers a page states about the book itself (chapter numbers, the index of proof blocks, which chapters have
# exercises, the profile of this build) are computed when the book is built, never typed: a ``pending`` node is
# left where the page asks for one and filled in at ``doctree-resolved``, when Sphinx has numbered everything.
PROFILE_WORDS = {
    "smoke": "the smoke build: every experiment at a tiny size that only checks that the code runs, so its "
    "numbers and verdicts mean nothing",
    "book": "the book build: every experiment at a size that keeps the whole book to a few minutes; "
    "claim-deciding computations run at the papers' sizes where the verdicts need it",
    "paper": "the paper build: every experiment at the sizes and repetitions the papers state",
}


class ldp_pending(nodes.General, nodes.Element):
    """Placeholder for text computed after numbering (kind: proof-index, chapter, exercises, build)."""


def _pending_role(kind):
    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        what = kind or text.strip()
        if what not in ("chapter", "exercises"):
            msg = inliner.reporter.error(f"ldp-computed: unknown value {text!r} (known: exercises)", line=lineno)
            return [], [msg]
        return [ldp_pending(rawtext, kind=what, target=text.strip(), inline=True)], []

    return role


class ProofIndex(SphinxDirective):
    """``ldp-proof-index``: every numbered definition, theorem, algorithm... of the book, grouped by chapter."""

    def run(self):
        return [ldp_pending(kind="proof-index", inline=False)]


class BuildNote(SphinxDirective):
    """``ldp-build-note``: which profile this build ran at, from which commit, and how to rebuild it."""

    def run(self):
        return [ldp_pending(kind="build", inline=False)]


def _chapters(env) -> list[tuple[str, tuple[int, ...]]]:
    """``(docname, chapter number)`` of every numbered chapter, in the book's order."""
    found = [(doc, _chapter_number(env, doc)) for doc in env.toc_secnumbers]
    return sorted(((doc, n) for doc, n in found if n), key=lambda item: item[1])


def _chapter_number(env, docname: str) -> tuple[int, ...] | None:
    """The section number of a document's title, (7,) for chapter 7; None outside the numbered parts."""
    numbers = [n for n in (env.toc_secnumbers.get(docname) or {}).values() if n]
    return min(numbers, key=len) if numbers else None


def _chapter_of(env, docname: str) -> str | None:
    number = _chapter_number(env, docname)
    return ".".join(map(str, number)) if number else None


def _proof_blocks(env, docname: str):
    """The sphinx-proof blocks of a chapter in reading order: (kind, id, number or None, title nodes)."""
    doctree = env.get_doctree(docname)
    numbers = env.toc_fignumbers.get(docname, {})
    for node in doctree.findall(
        lambda n: (
            isinstance(n, nodes.Element)
            and "realtype" in n.attributes
            and "countertype" in n.attributes
            and n.get("ids")
        )
    ):
        ident = node["ids"][0]
        number = numbers.get(node["countertype"], {}).get(ident)
        title = next(iter(node.findall(nodes.title)), None)
        parts = [c.deepcopy() for c in title.children] if title is not None else []
        if parts and isinstance(parts[0], nodes.Text):
            parts[0] = nodes.Text(str(parts[0]).lstrip().removeprefix("("))
        if parts and isinstance(parts[-1], nodes.Text):
            parts[-1] = nodes.Text(str(parts[-1]).rstrip().removesuffix(")"))
        yield node["realtype"], ident, ".".join(map(str, number)) if number else None, parts


def _proof_index(app, fromdoc: str) -> list[nodes.Node]:
    env, out, total = app.env, [], 0
    for doc, chapter in _chapters(env):
        if not any(v.get("docname") == doc for v in getattr(env, "proof_list", {}).values()):
            continue
        items = nodes.bullet_list(classes=["ldp-proof-index"])
        for kind, ident, number, title in _proof_blocks(env, doc):
            ref = nodes.reference(
                "", "", internal=True, refuri=app.builder.get_relative_uri(fromdoc, doc) + "#" + ident
            )
            label = f"{kind.title()} {number}" if number else kind.title()
            ref += nodes.strong(label, label)
            para = nodes.paragraph("", "", ref)
            if title:
                para += nodes.Text(" \N{EM DASH} ")
                para.extend(title)
            items += nodes.list_item("", para)
            total += 1
        heading = f"Chapter {'.'.join(map(str, chapter))}. {env.titles[doc].astext()}"
        out += [nodes.rubric(heading, heading, classes=["ldp-proof-chapter"]), items]
    if not total:
        LOGGER.warning("the index of definitions, theorems and algorithms is empty: no sphinx-proof block found")
    return out


def _join(numbers: list[str]) -> str:
    return numbers[0] if len(numbers) == 1 else ", ".join(numbers[:-1]) + " and " + numbers[-1]


def _exercise_summary(env) -> str:
    """ "exercises with collapsed solutions in 8 of the 12 chapters (37 in all: chapters 1-4, ...); chapters 5 and 9
    have none" — counted from the numbered exercises of this build."""
    counts = [
        (".".join(map(str, ch)), len(env.toc_fignumbers.get(doc, {}).get("exercise", {})))
        for doc, ch in _chapters(env)
        if len(ch) == 1
    ]
    with_ex = [f"{c} ({n})" for c, n in counts if n]
    without = [c for c, n in counts if not n]
    text = (
        f"exercises with collapsed solutions in {len(with_ex)} of the {len(counts)} chapters "
        f"({sum(n for _, n in counts)} in all; per chapter: {', '.join(with_ex) or 'none'})"
    )
    if without:
        plural = len(without) > 1
        text += f"; chapter{'s' if plural else ''} {_join(without)} {'have' if plural else 'has'} none"
    return text


def _build_commit(app, full: bool = False) -> str:
    sha = os.environ.get("LDP_BUILD_COMMIT") or os.environ.get("GITHUB_SHA")
    if not sha:
        import subprocess

        try:
            sha = subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=app.srcdir, capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            sha = ""
    if not re.fullmatch(r"[0-9a-f]{7,40}", sha or ""):
        return ""
    return sha if full else sha[:12]


def _build_note(app, fromdoc: str) -> list[nodes.Node]:
    profile = os.environ.get("LDP_PROFILE", "book")
    what = PROFILE_WORDS.get(profile, f"a build at the profile {profile!r}")
    commit = _build_commit(app)
    note = nodes.admonition(classes=["note", "ldp-build-note"])
    note += nodes.title("Which build you are reading", "Which build you are reading")
    para = nodes.paragraph("", "You are reading ")
    para += nodes.strong(what.split(":")[0], what.split(":")[0])
    para += nodes.Text(":" + what.split(":", 1)[1] + ".")
    if commit:
        para += nodes.Text(" It was built from commit ")
        para += nodes.literal(commit, commit)
        para += nodes.Text(".")
    note += para
    how = nodes.paragraph("", "To rebuild it yourself: ")
    cmd = f"make book PROFILE={profile}"
    how += nodes.literal(cmd, cmd)
    how += nodes.Text(" (the other sizes: ")
    for i, other in enumerate(p for p in PROFILE_WORDS if p != profile):
        how += nodes.Text(" or " if i else "")
        how += nodes.literal(f"PROFILE={other}", f"PROFILE={other}")
    ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(fromdoc, "book/execution"))
    ref += nodes.Text("execution statistics")
    how += nodes.Text("); how long each chapter took is on the page of ")
    how += ref
    how += nodes.Text(".")
    note += how
    return [note]


def _fill_pending(app, doctree, docname):
    env = app.env
    for node in list(doctree.findall(ldp_pending)):
        kind, target = node["kind"], node.get("target", "")
        if kind == "proof-index":
            node.replace_self(_proof_index(app, docname))
            # the titles may hold math that the page did not have when it was read: load MathJax on it
            env.get_domain("math").data.setdefault("has_equations", {})[docname] = True
        elif kind == "build":
            node.replace_self(_build_note(app, docname))
        elif kind == "exercises":
            node.replace_self(nodes.Text(_exercise_summary(env)))
        elif kind == "chapter":
            number = _chapter_of(env, target)
            if number is None:
                LOGGER.warning(f"ldp-chapter: {target!r} is not a numbered chapter of the toc", location=node)
            node.replace_self(nodes.Text(number or "?"))


def setup(app):
    _register_authoryear_style()
    app.connect("config-inited", _hide_solutions_from_env)
    app.connect("html-page-context", _offer_ipynb, priority=499)
    app.connect("html-page-context", _colab_from_published_sources, priority=502)
    app.connect("build-finished", _write_ipynbs)
    app.add_post_transform(ScoreboardTotal)
    app.add_post_transform(RemoveMachineryCells)
    app.add_node(ldp_pending)
    app.add_directive("ldp-proof-index", ProofIndex)
    app.add_directive("ldp-build-note", BuildNote)
    app.add_role("ldp-chapter", _pending_role("chapter"))
    app.add_role("ldp-computed", _pending_role(None))
    app.connect("doctree-resolved", _fill_pending)
    app.add_directive("ldp-automodules", AutoModules)
    app.connect("missing-reference", _resolve_reexports)
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("autodoc-process-docstring", _aligned_lists_to_bullets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
