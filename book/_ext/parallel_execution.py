"""Execute the book's notebooks on every core before Sphinx reads them.

MyST-NB's cache mode executes a notebook when Sphinx reads its page, one page after another, so a
build uses one core except where a notebook's own sweeps use more (two of the twelve at the book
profile).  Before the read starts, this extension finds the notebooks about to be read that have no
matching entry in the jupyter cache, executes them in ``LDP_BOOK_JOBS`` worker processes (default:
every core), longest first, and stores each result in the cache exactly as MyST-NB would (same
reader, same working directory, same timeout).  Sphinx then finds every notebook cached.

Nothing else changes: a notebook is executed by the same code in the same kind of kernel, with the
same environment, and matched to the cache by the same hash of its code cells.  A notebook that fails
here is not cached, so MyST-NB executes it again while reading and reports the error as it always
did.  ``LDP_BOOK_JOBS=1`` turns this off (MyST-NB's serial execution).
"""

from __future__ import annotations

import os
import re
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)


def _jobs() -> int:
    value = os.environ.get("LDP_BOOK_JOBS", "").strip()
    if not value:
        return os.cpu_count() or 1
    try:
        jobs = int(value)
    except ValueError:
        raise ValueError(f"LDP_BOOK_JOBS must be a whole number of processes, got {value!r}") from None
    if jobs < 1:
        raise ValueError(f"LDP_BOOK_JOBS must be at least 1, got {jobs}")
    return jobs


def _execute(notebook_json: str, cwd: str, timeout: int, allow_errors: bool) -> tuple[str, float, str | None]:
    """Run in a worker process: execute one notebook, return it (as JSON), its run time and any error."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    notebook = nbformat.reads(notebook_json, as_version=4)
    result = single_nb_execution(notebook, cwd=cwd, allow_errors=allow_errors, timeout=timeout, meta_override=True)
    error = None if result.err is None else (result.exc_string or repr(result.err))
    return nbformat.writes(notebook), result.time, error


def _pending_notebooks(env, docnames, cache):
    """(docname, path, notebook, read format) of the notebooks to be read that the cache does not hold."""
    from myst_nb.core.read import create_nb_reader

    pending = []
    for docname in sorted(docnames):
        path = Path(env.doc2path(docname))
        if path.suffix not in (".md", ".ipynb"):
            continue
        text = path.read_text(encoding="utf8")
        reader = create_nb_reader(str(path), env.myst_config, env.mystnb_config, text)
        if reader is None:
            continue
        notebook = reader.read(text)
        kernel = notebook.metadata.get("kernelspec", {}).get("name")
        for pattern, alias in (env.mystnb_config.kernel_rgx_aliases or {}).items():
            if kernel is not None and re.fullmatch(pattern, kernel):
                notebook.metadata["kernelspec"]["name"] = alias
                break
        try:
            cache.match_cache_notebook(notebook)
        except KeyError:
            pending.append((docname, path, notebook, reader.read_fmt))
    return pending


#: a scheduling hint only (order, never results): seconds each notebook took on 2 cores with another notebook
#: beside it, per profile (clean clone, 2026-12-07); a notebook not listed counts by its size
TYPICAL_SECONDS = {
    "book": {
        "notebooks/03-multiclass-experiments": 293,
        "notebooks/02-lopub-experiments": 267,
        "notebooks/01-clldp-experiments": 127,
        "notebooks/04-cpl-experiments": 127,
        "notebooks/06-comparison": 117,
    },
    "paper": {
        "notebooks/03-multiclass-experiments": 394,
        "notebooks/06-comparison": 350,
        "notebooks/02-lopub-experiments": 304,
        "notebooks/04-cpl-experiments": 211,
        "notebooks/01-clldp-experiments": 206,
        "notebooks/00-frequency-oracles": 152,
        "notebooks/02-lopub-theory": 49,
        "notebooks/05-uldp-experiments": 48,
    },
}


def _expected_seconds(cache, docname: str, path: Path) -> float:
    """This file's last recorded run time in the cache (any version), else the hint, else its size as a proxy."""
    recorded = [r.data["execution_seconds"] for r in cache.list_cache_records() if r.uri == str(path) and r.data]
    recorded = [seconds for seconds in recorded if seconds]
    if recorded:
        return recorded[-1]
    typical = TYPICAL_SECONDS.get(os.environ.get("LDP_PROFILE", "book"), {})
    return typical.get(docname, path.stat().st_size / 10_000)


def _execute_in_parallel(app, env, docnames):
    config = env.mystnb_config
    if config.execution_mode != "cache" or not docnames:
        return
    jobs = _jobs()
    if jobs == 1:
        return
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(config.execution_cache_path or ".jupyter_cache")
    pending = _pending_notebooks(env, docnames, cache)
    if len(pending) < 2:
        return  # nothing to share between processes: MyST-NB executes it while reading
    pending.sort(key=lambda item: _expected_seconds(cache, item[0], item[1]), reverse=True)
    jobs = min(jobs, len(pending))
    logger.info(f"Executing {len(pending)} notebooks in {jobs} processes before reading (LDP_BOOK_JOBS)")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {}
        for docname, path, notebook, read_fmt in pending:
            cwd = str(path.parent.resolve())
            args = (nbformat.writes(notebook), cwd, config.execution_timeout, config.execution_allow_errors)
            futures[pool.submit(_execute, *args)] = (docname, path, read_fmt)
        for future in as_completed(futures):
            docname, path, read_fmt = futures[future]
            try:
                executed_json, seconds, error = future.result()
            except Exception as exc:  # a worker that died: MyST-NB will execute and report it
                logger.info(f"  {docname}: not executed here ({exc.__class__.__name__}); executed while reading")
                continue
            if error is not None:
                logger.info(f"  {docname}: failed after {seconds:.0f} s; executed again while reading to report it")
                continue
            stage = cache.add_nb_to_project(str(path), **({"read_data": read_fmt} if read_fmt else {}))
            executed = nbformat.reads(executed_json, as_version=4)
            cache.cache_notebook_bundle(
                CacheBundleIn(executed, stage.uri, data={"execution_seconds": seconds}),
                check_validity=False,
                overwrite=True,
            )
            logger.info(f"  {docname}: executed in {seconds:.0f} s")
    logger.info(f"Notebooks executed in {time.perf_counter() - start:.0f} s of wall time")


def setup(app):
    app.connect("env-before-read-docs", _execute_in_parallel)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
