"""Running and publishing the book: the CI workflow, the Makefile's book targets, JupyterLab.

* the GitHub Pages workflow parses, runs the README's build command and publishes the folder it builds;
* ``make book PROFILE=...`` and ``make book-nosolutions`` (dry runs: ``make -n`` prints, never executes) export
  the profile to the kernels, switch progress bars off and build each profile into a folder of its own;
* JupyterLab, pinned in requirements.txt and environment.yml, starts offline and serves a notebook's ``.md`` as a
  notebook through its contents API, with the settings that make a double click open it as one.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from conftest import REPO

WORKFLOW = REPO / ".github" / "workflows" / "book.yml"


def _readme_block_after(heading: str) -> list[str]:
    """Command lines (comments stripped) of the first ```bash block after a README heading."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]


def test_the_workflow_parses_runs_the_readmes_command_and_publishes_its_output():
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = wf.get("on", wf.get(True))  # PyYAML reads the bare key `on` as True
    assert "main" in triggers["push"]["branches"] and "workflow_dispatch" in triggers
    assert wf["permissions"]["contents"] == "write"
    (job,) = wf["jobs"].values()
    runs = [step["run"].strip() for step in job["steps"] if "run" in step]
    readme = _readme_block_after("## Publishing the book")
    assert readme == ["make book PROFILE=paper"]  # the published book is the paper-scale run (issue 25, scope 8)
    assert all(cmd in runs for cmd in readme), (readme, runs)
    publish = [s for s in job["steps"] if "actions-gh-pages" in s.get("uses", "")]
    # the folder `make book PROFILE=paper` builds (_build/paper/html is a symlink to it)
    assert len(publish) == 1 and publish[0]["with"]["publish_dir"].strip("./") == "_build/paper/_build/html"
    out = _make_n("book", "PROFILE=paper")
    assert "--path-output _build/paper" in out and "_build/paper/html/index.html" in out
    # the paper profile's jupyter cache is kept between runs, keyed on the package before the notebooks
    cache = [s for s in job["steps"] if "actions/cache" in s.get("uses", "")]
    nb_cache = [s for s in cache if s["with"]["path"] == "_build/paper/_build/.jupyter_cache"]
    assert nb_cache, cache
    key, restore = nb_cache[0]["with"]["key"], nb_cache[0]["with"]["restore-keys"].strip()
    assert "ldp/**" in key and "notebooks/" in key and key.startswith(restore) and "notebooks/" not in restore
    assert publish[0]["with"]["publish_branch"] == "gh-pages"  # the Colab buttons open notebooks from there
    setup_python = [s for s in job["steps"] if "setup-python" in s.get("uses", "")]
    pyver = re.search(r"python=(\d+\.\d+)", (REPO / "environment.yml").read_text()).group(1)
    assert setup_python and str(setup_python[0]["with"]["python-version"]) == pyver


def _make_n(*args: str) -> str:
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    # -n prints the recipes without running them; the install prerequisites are marked up to date (-o)
    proc = subprocess.run(
        [make, "-n", "-o", ".venv/.book-installed", "-o", "_vendor/mathjax/tex-chtml.js", "-o", "data", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    "profile, root, html",
    [
        (None, ".", "_build/html"),
        ("book", ".", "_build/html"),
        ("paper", "_build/paper", "_build/paper/html"),
        ("smoke", "_build/smoke", "_build/smoke/html"),
    ],
)
def test_make_book_builds_each_profile_into_its_own_folder(profile, root, html):
    out = _make_n("book", *([f"PROFILE={profile}"] if profile else []))
    build = next(line for line in out.splitlines() if "jupyter-book build" in line)
    assert f"LDP_PROFILE={profile or 'book'}" in build and "LDP_PROGRESS=0" in build
    assert " -W -n --keep-going" in build and f"--path-output {root}" in build
    assert f"{html}/index.html" in out


def test_make_book_nosolutions_hides_solutions_and_reuses_the_profiles_notebooks():
    out = _make_n("book-nosolutions")
    build = next(line for line in out.splitlines() if "jupyter-book build" in line)
    assert "LDP_HIDE_SOLUTIONS=1" in build and "LDP_PROFILE=book" in build and "LDP_PROGRESS=0" in build
    assert "--path-output _build/nosolutions" in build
    link = next(line for line in out.splitlines() if "ln -sfn" in line and ".jupyter_cache" in line)
    assert link.split()[-2].endswith("/_build/.jupyter_cache") and str(REPO) in link  # the book profile's cache
    assert "_build/nosolutions/html/index.html" in out


def test_make_lab_is_documented_and_jupyterlab_is_pinned_everywhere():
    assert "make lab" in (REPO / "README.md").read_text(encoding="utf-8")
    out = _make_n("lab")
    assert "jupyter lab" in out and "JUPYTERLAB_SETTINGS_DIR" in out
    req = (REPO / "requirements.txt").read_text()
    env = (REPO / "environment.yml").read_text()
    pins = re.findall(r"^(jupyterlab|jupytext|jupyter_server|jupyterlab_server)==(\S+)$", req, flags=re.M)
    assert {name for name, _ in pins} == {"jupyterlab", "jupytext", "jupyter_server", "jupyterlab_server"}
    for name, version in pins:
        assert f"- {name}=={version}" in env, f"{name}=={version} pinned in requirements.txt, not environment.yml"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, token: str) -> dict:
    req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # localhost, never a proxy
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    jupyter = Path(sys.executable).with_name("jupyter")
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        pytest.fail("JupyterLab is not installed: it is pinned in requirements.txt (`make install`)")
    port, token = _free_port(), secrets.token_hex(16)
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(REPO / ".jupyter" / "lab" / "user-settings"),  # as `make lab`
        JUPYTER_RUNTIME_DIR=str(runtime),
        # offline: any outgoing request goes to a closed port
        http_proxy="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9",
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        no_proxy="127.0.0.1,localhost",
        NO_PROXY="127.0.0.1,localhost",
    )
    proc = subprocess.Popen(
        [
            str(jupyter),
            "lab",
            "--no-browser",
            f"--notebook-dir={REPO}",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            "--ServerApp.port_retries=0",
            "--LabApp.news_url=None",
            *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            try:
                _get(f"{base}/api/status", token)
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    pytest.fail(f"jupyter lab did not start:\n{proc.stdout.read()[-3000:]}")
                time.sleep(0.5)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_jupyterlab_serves_a_notebooks_md_as_a_notebook(lab_server):
    base, token = lab_server
    md = REPO / "notebooks" / "00-frequency-oracles.md"
    model = _get(f"{base}/api/contents/notebooks/{md.name}?type=notebook&content=1", token)
    assert model["type"] == "notebook"
    cells = model["content"]["cells"]
    n_code = len(re.findall(r"^```\{code-cell\}", md.read_text(encoding="utf-8"), flags=re.M))
    assert sum(c["cell_type"] == "code" for c in cells) == n_code
    assert "parameters" in cells[[c["cell_type"] for c in cells].index("code")]["metadata"].get("tags", [])


def test_jupyterlab_opens_md_files_as_notebooks_by_default(lab_server):
    base, token = lab_server
    settings = _get(f"{base}/lab/api/settings/@jupyterlab/docmanager-extension:plugin", token)
    viewers = settings["settings"]["defaultViewers"]
    assert viewers.get("markdown") == "Jupytext Notebook"
    factories = json.dumps(_get(f"{base}/lab/api/settings/", token))
    assert "jupytext" in factories.lower()  # jupytext's lab extension (the "Jupytext Notebook" factory)


def test_how_to_cite_matches_citation_cff():
    """The BibTeX block of book/how-to-cite.md says what CITATION.cff says (title, version, date, licence, URLs)."""
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    page = (REPO / "book" / "how-to-cite.md").read_text(encoding="utf-8")
    bib = re.search(r"```bibtex\n(.*?)```", page, flags=re.S).group(1)
    fields = dict(re.findall(r"^\s*(\w+)\s*=\s*\{+(.*?)\}+,?\s*$", bib, flags=re.M))
    assert fields["title"] == cff["title"]
    assert fields["version"] == str(cff["version"])
    assert fields["date"] == str(cff["date-released"]) and fields["year"] == str(cff["date-released"])[:4]
    assert fields["license"] == cff["license"]
    assert fields["url"] == cff["url"] and fields["repository"] == cff["repository-code"]
    assert fields["author"] == cff["authors"][0]["name"]
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
    assert config["repository"]["url"] == cff["repository-code"]  # one repository, everywhere
    assert "book/how-to-cite" in (REPO / "_toc.yml").read_text(encoding="utf-8")
