"""A downloaded or launched notebook runs in a fresh environment without ``ldp`` (issue 25, scope 9).

The ``.ipynb`` a page offers (the build writes it with ``book/_ext/ldp_book.py``'s ``notebook_for_download``)
starts with a setup cell that installs ``ldp`` when it is not importable. Here the primer and one experiments
chapter run at the smoke size in a new virtual environment that has the book's dependencies but not ``ldp``;
``LDP_INSTALL_FROM`` (the one setting) points the setup cell at a copy of this checkout, and pip runs offline
(``PIP_NO_INDEX=1``, ``--no-build-isolation``: setuptools and every dependency come from the test's own
environment, exposed to the new one read-only). The notebook must complete, and ``ldp`` must then be imported
from the new environment, not from this checkout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import REPO

pytestmark = [pytest.mark.notebooks, pytest.mark.xdist_group("launch")]

#: the primer and one experiments chapter (the fastest at the smoke size)
NOTEBOOKS = ["00-frequency-oracles", "05-uldp-experiments"]
KERNEL = "ldp-fresh-env"


def _ldp_book():
    spec = importlib.util.spec_from_file_location("ldp_book_ext", REPO / "book" / "_ext" / "ldp_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy_of_checkout(dest: Path) -> Path:
    """What pip needs to build ldp (a copy, so that the build leaves nothing in the working tree)."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "LICENSE-CONTENT.md"):
        shutil.copy2(REPO / name, dest / name)
    shutil.copytree(REPO / "ldp", dest / "ldp", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture
def fresh_env(tmp_path_factory):
    """A new venv that sees this environment's packages except ldp, and a kernel spec for it.

    One per notebook: the setup cell installs ldp into the venv, so a venv shared by two notebooks would hand the
    second one an environment where ldp is already importable (its setup cell then rightly does nothing).
    """
    root = tmp_path_factory.mktemp("fresh")
    venv = root / "venv"
    # no pip or setuptools of its own: the venv's bundled ones are older than pyproject.toml needs; pip and
    # setuptools come from this environment along with the other dependencies
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # this environment's site-packages without ldp (its editable-install hooks and metadata), as symlinks
    deps = root / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(("ldp", "__editable__", "_ldp")) and entry.suffix != ".pth":
            (deps / entry.name).symlink_to(entry)
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "zz_book_dependencies.pth").write_text(f"{deps}\n")
    probe = subprocess.run([str(python), "-c", "import ldp"], capture_output=True, text=True, env=_env(root), cwd=root)
    assert probe.returncode != 0, "the fresh environment can already import ldp: the test would prove nothing"
    kernel = root / "share" / "jupyter" / "kernels" / KERNEL
    kernel.mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (kernel / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    return root, python


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "LDP_CLAIMS_DIR")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", LDP_PROFILE="smoke", LDP_PROGRESS="0")
    env["JUPYTER_PATH"] = str(root / "share" / "jupyter")
    return env


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_a_downloaded_notebook_installs_ldp_and_runs_in_a_fresh_environment(stem, fresh_env, tmp_path, monkeypatch):
    import nbformat
    import papermill

    root, python = fresh_env
    nb = _ldp_book().notebook_for_download(REPO / "notebooks" / f"{stem}.md", "https://github.com/o/r", "main")
    assert "ldp-setup" in nb.cells[0].metadata["tags"] and "LDP_INSTALL_FROM" in nb.cells[0].source
    source = tmp_path / f"{stem}.ipynb"
    nbformat.write(nb, source)
    for key, value in _env(root).items():
        monkeypatch.setenv(key, value)
    for key in ("PYTHONPATH", "VIRTUAL_ENV", "LDP_CLAIMS_DIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LDP_INSTALL_FROM", str(_copy_of_checkout(tmp_path / "checkout")))
    run = tmp_path / "run"
    run.mkdir()  # a session's working directory: not the repository, so nothing is found next to it
    try:
        out = papermill.execute_notebook(
            str(source),
            str(tmp_path / "out.ipynb"),
            parameters={"PROFILE": "smoke"},
            kernel_name=KERNEL,
            cwd=str(run),
            progress_bar=False,
            execution_timeout=900,
        )
    except papermill.PapermillExecutionError as exc:
        where = "the setup cell" if exc.cell_index == 0 else f"cell {exc.exec_count} (after a successful setup)"
        pytest.fail(f"{stem}: {where} failed in the fresh environment: {exc.ename}: {exc.evalue}")
    setup_output = "".join(o.get("text", "") for o in out.cells[0].outputs)
    assert "Installed ldp from" in setup_output and "Datasets in this session:" in setup_output, setup_output
    where = subprocess.run(
        [str(python), "-c", "import ldp; print(ldp.__file__)"], capture_output=True, text=True, env=_env(root), cwd=run
    )
    assert where.returncode == 0 and str(root / "venv") in where.stdout, where.stdout + where.stderr
