"""Every notebook of the toc runs top to bottom under papermill with PROFILE="smoke".

The MyST source is converted in memory with jupytext (no .ipynb is written next to it) and executed with
the notebooks folder as working directory, exactly as the book build does.
"""

from __future__ import annotations

import jupytext
import papermill as pm
import pytest
from conftest import NOTEBOOK_DIR, toc_notebooks

NOTEBOOKS = toc_notebooks()


def test_toc_lists_every_notebook_and_only_existing_ones():
    on_disk = {p.name for p in NOTEBOOK_DIR.glob("*.md")}
    listed = {p.name for p in NOTEBOOKS}
    assert listed <= on_disk, f"toc lists missing notebooks: {sorted(listed - on_disk)}"
    assert on_disk <= listed, f"notebooks not in the toc: {sorted(on_disk - listed)}"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_at_smoke_profile(path, tmp_path, monkeypatch):
    monkeypatch.delenv("LDP_PROFILE", raising=False)
    nb = jupytext.read(path)
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: exactly one cell tagged 'parameters' is required"
    assert "PROFILE" in tagged[0].source
    pm.execute_notebook(
        nb,
        str(tmp_path / f"{path.stem}.ipynb"),
        parameters={"PROFILE": "smoke"},
        cwd=str(NOTEBOOK_DIR),
        kernel_name="python3",
        progress_bar=False,
    )
