"""Every notebook of the toc is listed, and each takes its size from one papermill parameter, ``PROFILE``.

Running them is not repeated here: the strict smoke build of ``test_book.py`` executes every notebook at
``PROFILE="smoke"`` with ``allow_errors: false`` (any exception fails the build), and ``test_launch.py`` runs two of
them through papermill itself, with ``PROFILE`` injected, in fresh virtual environments. This file checks what
papermill needs of every notebook: exactly one cell tagged ``parameters`` that sets ``PROFILE``, which papermill's
injected cell then overrides.
"""

from __future__ import annotations

import jupytext
import pytest
from conftest import NOTEBOOK_DIR, toc_notebooks
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

NOTEBOOKS = toc_notebooks()


def test_toc_lists_every_notebook_and_only_existing_ones():
    on_disk = {p.name for p in NOTEBOOK_DIR.glob("*.md")}
    listed = {p.name for p in NOTEBOOKS}
    assert listed <= on_disk, f"toc lists missing notebooks: {sorted(listed - on_disk)}"
    assert on_disk <= listed, f"notebooks not in the toc: {sorted(on_disk - listed)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_takes_its_size_from_one_papermill_parameter(path, tmp_path):
    nb = jupytext.read(path)
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: exactly one cell tagged 'parameters' is required"
    assert "PROFILE" in nb.cells[tagged[0]].source
    nb.metadata.setdefault("kernelspec", {"name": "python3", "language": "python", "display_name": "Python 3"})
    jupytext.write(nb, tmp_path / f"{path.stem}.ipynb")
    injected = parameterize_notebook(load_notebook_node(str(tmp_path / f"{path.stem}.ipynb")), {"PROFILE": "smoke"})
    after = injected.cells[tagged[0] + 1]
    assert "injected-parameters" in after.metadata.tags and 'PROFILE = "smoke"' in after.source, after.source
