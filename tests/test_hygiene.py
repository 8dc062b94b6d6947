"""Code hygiene of the ``ldp`` package that no linter checks for us."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ldp"
#: the longest function (def line to last line, docstring included) a reader should have to hold in mind
MAX_FUNCTION_LINES = 60


def long_functions(root: Path = PACKAGE, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, str, int]]:
    """``(file, qualified name, lines)`` of every function or method longer than ``limit`` lines, longest first."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        stack = [(node, "") for node in tree.body]
        while stack:
            node, prefix = stack.pop()
            if isinstance(node, ast.ClassDef):
                stack.extend((child, f"{prefix}{node.name}.") for child in node.body)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found.append((str(path.relative_to(root.parent)), prefix + node.name, length))
                stack.extend((child, f"{prefix}{node.name}.") for child in node.body)
    return sorted(found, key=lambda row: -row[2])


def test_the_scan_finds_a_long_function(tmp_path):
    body = "\n".join(f"        x{i} = {i}" for i in range(70))
    (tmp_path / "m.py").write_text(f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}\n")
    assert long_functions(tmp_path) == [(f"{tmp_path.name}/m.py", "C.long", 71)]


# Issue 13: no function in ldp longer than 60 lines.
def test_no_function_longer_than_the_limit():
    rows = long_functions()
    assert rows == [], "functions longer than {} lines:\n{}".format(
        MAX_FUNCTION_LINES, "\n".join(f"  {f}: {name} ({n} lines)" for f, name, n in rows)
    )


def test_notebooks_import_only_what_they_use(tmp_path):
    """Every notebook, as the Python a reader runs: no unused import, no undefined or redefined name (ruff's F rules;
    ``display`` is IPython's built-in)."""
    import subprocess
    import sys

    import jupytext

    notebooks = sorted((PACKAGE.parent / "notebooks").glob("*.md"))
    for nb in notebooks:
        jupytext.write(jupytext.read(nb), tmp_path / f"{nb.stem}.py", fmt="py:percent")
    ruff = Path(sys.executable).with_name("ruff")
    out = subprocess.run(
        [
            str(ruff),
            "check",
            "--no-cache",
            "--isolated",
            "--select",
            "F",
            "--config",
            "builtins = ['display']",
            "--output-format",
            "concise",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout
