"""Parameter sweeps with reproducible randomness on serial, joblib and Dask back ends.

:func:`sweep` runs ``func(**params, rng=generator)`` for every point of a
parameter grid and every trial, and returns one tidy DataFrame.  Each (grid
point, trial) pair owns an independent random stream,

    SeedSequence(seed).spawn(#points)[point].spawn(trials)[trial],

built directly from its spawn key ``(point, trial)`` so no task depends on which
worker runs it or in which order.  Hence the serial, joblib (loky processes)
and Dask back ends return *identical* frames for the same seed, and adding
trials leaves the earlier trials unchanged.

Example::

    def trial(epsilon, d, rng):
        oracle = OUE(epsilon, d)
        est = oracle.estimate_counts(oracle.simulate_counts(true_counts, rng), n)
        return {"mse": mse(est, f)}

    df = sweep(trial, {"epsilon": [0.5, 1, 2], "d": [16, 256]}, trials=20, seed=1)
    summary = summarise(df, by=["epsilon", "d"], values=["mse"])

One setting chooses the back end of every sweep that does not name one
(:func:`backend_settings`), so a reader changes no notebook to use a cluster:

``LDP_BACKEND``    ``serial``, ``joblib`` or ``dask``.  Unset: ``joblib`` on every
                   local core when the active profile (:func:`ldp.profiles.active_profile`)
                   is ``"paper"``, ``serial`` otherwise (``"dask"`` if only
                   ``LDP_SCHEDULER`` is set).
``LDP_JOBS``       joblib workers (an integer >= 1, or -1 for every core; default -1).
``LDP_SCHEDULER``  address of a running Dask scheduler, e.g. ``tcp://10.0.0.5:8786``.
``LDP_PROGRESS``   ``0`` hides the progress bars (the book build sets it).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._checks import check_int, check_scheduler_address, check_seed
from .profiles import current_profile

__all__ = ["sweep", "summarise", "trial_rng", "backend_settings", "BACKENDS"]

BACKENDS = ("serial", "joblib", "dask")
_RESERVED = ("trial", "rng")
#: seconds a sweep waits to connect to a Dask scheduler before failing (Dask's own default is 30 s)
DASK_CONNECT_TIMEOUT = 5


def backend_settings() -> dict[str, Any]:
    """The back end a :func:`sweep` uses when its caller names none, from the environment.

    Returns ``{"backend": ..., "n_jobs": ..., "scheduler_address": ...}`` read from
    ``LDP_BACKEND``, ``LDP_JOBS`` and ``LDP_SCHEDULER`` (see the module docstring);
    an empty variable counts as unset.  A bad value raises ``ValueError`` naming the
    variable, before any task runs.
    """
    backend = os.environ.get("LDP_BACKEND", "").strip() or None
    jobs = os.environ.get("LDP_JOBS", "").strip() or None
    address = os.environ.get("LDP_SCHEDULER", "").strip() or None
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"environment variable LDP_BACKEND must be one of {BACKENDS}, got {backend!r}")
    n_jobs = -1
    if jobs is not None:
        try:
            n_jobs = int(jobs)
        except ValueError:
            n_jobs = 0
        if n_jobs < 1 and n_jobs != -1:
            raise ValueError(f"environment variable LDP_JOBS must be an integer >= 1 or -1 (every core), got {jobs!r}")
    if address is not None:
        check_scheduler_address(address, "environment variable LDP_SCHEDULER")
        if backend not in (None, "dask"):
            raise ValueError(
                f"environment variable LDP_SCHEDULER is set ({address!r}) but LDP_BACKEND is "
                f"{backend!r}; set LDP_BACKEND=dask or unset LDP_SCHEDULER"
            )
        backend = "dask"
    if backend is None:
        backend = "joblib" if current_profile() == "paper" else "serial"
    return {"backend": backend, "n_jobs": n_jobs, "scheduler_address": address}


def trial_rng(seed: int, point: int, trial: int) -> np.random.Generator:
    """The Generator of one task: ``SeedSequence(seed).spawn(...)[point].spawn(...)[trial]``.

    ``SeedSequence.spawn`` gives child ``i`` the spawn key ``parent_key + (i,)``,
    so the grandchild ``(point, trial)`` is ``SeedSequence(seed, spawn_key=(point,
    trial))``, whatever the numbers of points and trials.  ``seed``, ``point`` and ``trial`` are integers
    >= 0; ``seed=None`` is refused (it would give a fresh, unreproducible stream on every call).
    """
    seed = check_seed(seed, "seed")
    point = check_int(point, "point", minimum=0)
    trial = check_int(trial, "trial", minimum=0)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(point, trial)))


def _run_task(
    func: Callable[..., Any], params: dict[str, Any], point: int, trial: int, seed: int
) -> tuple[int, int, list[dict[str, Any]]]:
    """Run one (grid point, trial) and normalise its result to a list of row dicts."""
    out = func(**params, rng=trial_rng(seed, point, trial))
    if isinstance(out, Mapping):
        rows = [dict(out)]
    elif isinstance(out, (list, tuple)) and all(isinstance(r, Mapping) for r in out):
        rows = [dict(r) for r in out]
    else:
        raise TypeError(
            f"the swept function must return a dict or a list of dicts, got {type(out).__name__} "
            f"at {params} trial {trial}"
        )
    for r in rows:
        for key in r:
            if not isinstance(key, str):
                raise TypeError(f"result keys must be strings, got {key!r}")
            if key in params or key in _RESERVED:
                raise ValueError(f"result key {key!r} clashes with a grid parameter or a reserved column {_RESERVED}")
    return point, trial, rows


def _run_chunk(
    func: Callable[..., Any], chunk: list[tuple[dict[str, Any], int, int]], seed: int
) -> list[tuple[int, int, list[dict[str, Any]]]]:
    """Several tasks in one worker call, so ``func`` (and what it closes over) is pickled once per chunk."""
    return [_run_task(func, params, point, trial, seed) for params, point, trial in chunk]


def _chunks(tasks: list[tuple[int, int]], workers: int) -> list[list[tuple[int, int]]]:
    """About four chunks per worker, tasks dealt round-robin so that slow grid points spread over chunks."""
    n_chunks = max(1, min(len(tasks), 4 * max(1, workers)))
    return [tasks[j::n_chunks] for j in range(n_chunks)]


def _check_grid(grid: Any) -> tuple[list[str], list[list[Any]]]:
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid must be a dict of parameter name -> list of values, got {type(grid).__name__}")
    keys, values = [], []
    for k, v in grid.items():
        if not isinstance(k, str) or not k.isidentifier():
            raise ValueError(f"grid keys must be valid parameter names, got {k!r}")
        if k in _RESERVED:
            raise ValueError(f"grid key {k!r} is reserved (the sweep supplies {_RESERVED})")
        if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, (Sequence, np.ndarray, range)):
            raise TypeError(f"grid[{k!r}] must be a list of values, got {type(v).__name__}")
        vals = list(v.tolist() if isinstance(v, np.ndarray) else v)
        if not vals:
            raise ValueError(f"grid[{k!r}] is empty: give at least one value")
        keys.append(k)
        values.append(vals)
    return keys, values


def _progress(iterable: Any, total: int, desc: str, enabled: bool) -> Any:
    if not enabled:
        return iterable
    from .progress import progress

    return progress(iterable, total=total, desc=desc, leave=False)


def _bar(total: int, desc: str, enabled: bool) -> Any:
    """A progress bar updated by hand (disabled when ``enabled`` is False)."""
    from .progress import progress

    return progress(total=total, desc=desc, leave=False, disable=not enabled)


def _dask_client(client: Any, scheduler_address: Any) -> tuple[Any, bool]:
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(
            "backend='dask' needs dask.distributed; install it with pip install 'ldp-compendium[dask]'"
        ) from exc
    if client is not None and scheduler_address is not None:
        raise ValueError("give either client or scheduler_address for backend='dask', not both")
    if client is not None:
        if not isinstance(client, distributed.Client):
            raise TypeError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
        return client, False
    if scheduler_address is not None:
        check_scheduler_address(scheduler_address, "scheduler_address")
        return distributed.Client(scheduler_address, timeout=DASK_CONNECT_TIMEOUT), True
    try:
        return distributed.get_client(), False
    except ValueError:
        raise ValueError(
            "backend='dask' needs client=dask.distributed.Client(...) or scheduler_address=..., "
            "and no default client is running"
        ) from None


Result = tuple[int, int, list[dict[str, Any]]]


@dataclass(frozen=True)
class _Work:
    """What every back end runs: ``func`` at ``points[pi]`` for every task ``(pi, trial)`` from the root ``seed``,
    with a progress bar called ``label`` when ``progress``."""

    func: Callable[..., Any]
    points: list[dict[str, Any]]
    tasks: list[tuple[int, int]]
    seed: int
    label: str
    progress: bool

    def tracked(self, iterable: Any) -> Any:
        """``iterable`` with the progress bar of these tasks (itself when ``progress`` is off)."""
        return _progress(iterable, len(self.tasks), self.label, self.progress)


def _run_serial(work: _Work) -> list[Result]:
    return [_run_task(work.func, work.points[pi], pi, t, work.seed) for pi, t in work.tracked(work.tasks)]


def _run_joblib(work: _Work, n_jobs: int) -> list[Result]:
    from joblib import Parallel, delayed, effective_n_jobs

    chunks = _chunks(work.tasks, effective_n_jobs(n_jobs))
    gen = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")(
        delayed(_run_chunk)(work.func, [(work.points[pi], pi, t) for pi, t in chunk], work.seed) for chunk in chunks
    )
    results: list[Result] = []
    with _bar(len(work.tasks), work.label, work.progress) as bar:
        for part in gen:
            results.extend(part)
            bar.update(len(part))
    return results


def _run_dask(work: _Work, client: Any, scheduler_address: Any) -> list[Result]:
    dclient, owned = _dask_client(client, scheduler_address)  # a clear ImportError if distributed is missing
    from distributed import as_completed

    try:
        shipped = dclient.scatter(work.func, broadcast=True, hash=False)  # the function travels once per worker
        futures = [
            dclient.submit(_run_task, shipped, work.points[pi], pi, t, work.seed, pure=False) for pi, t in work.tasks
        ]
        try:
            return [fut.result() for fut in work.tracked(as_completed(futures))]
        except BaseException:
            dclient.cancel(futures)
            raise
    finally:
        if owned:
            dclient.close()


def _run(work: _Work, backend: str, n_jobs: int, client: Any, scheduler_address: Any) -> list[Result]:
    """``work`` on the back end ``backend``, each given only its own options."""
    if backend == "joblib":
        return _run_joblib(work, n_jobs)
    if backend == "dask":
        return _run_dask(work, client, scheduler_address)
    return _run_serial(work)


def sweep(
    func: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]],
    *,
    trials: int,
    seed: int,
    backend: str | None = None,
    n_jobs: int | None = None,
    client: Any = None,
    scheduler_address: str | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> pd.DataFrame:
    """Run ``func`` over a parameter grid x trials; one tidy row per (point, trial, result).

    Parameters
    ----------
    func : callable
        ``func(**params, rng=numpy.random.Generator)`` returning a dict of results,
        or a list of dicts (several rows, e.g. one per method).  It must be
        picklable for the parallel back ends (module-level functions are).
    grid : dict
        Parameter name -> non-empty list of values; the sweep covers their
        Cartesian product in the order given (an empty dict is one point with
        no parameters).
    trials : int
        Independent repetitions per grid point (>= 1).
    seed : int
        Root seed (>= 0); see :func:`trial_rng`.
    backend : {"serial", "joblib", "dask"}, optional
        ``"joblib"``: loky worker processes; ``"dask"``: a ``dask.distributed`` cluster
        (``client``, else ``scheduler_address``, else ``$LDP_SCHEDULER``, else the
        default client).  None (the default): :func:`backend_settings`, i.e.
        ``$LDP_BACKEND``, else joblib for the ``"paper"`` profile and serial otherwise.
    n_jobs : int, optional
        Number of joblib workers (>= 1, or -1 for all cores); None: ``$LDP_JOBS``,
        else -1.  Ignored by the other back ends.
    client : dask.distributed.Client, optional
    scheduler_address : str, optional
        Address of a running Dask scheduler; a client is opened and closed here.
        None: ``$LDP_SCHEDULER`` when the back end is Dask and no client is given.
    progress : bool
        Show a text progress bar (:func:`ldp.progress.progress`).
    desc : str, optional
        Progress-bar label (default: the function's name).

    Returns
    -------
    pandas.DataFrame
        Columns: the grid keys, ``trial``, then the result keys (in order of
        first appearance); rows ordered by grid point (grid order), trial, and
        position within the result list.  Identical for every back end.
    """
    keys, points, tasks, seed = _plan(func, grid, trials, seed)
    backend, n_jobs, scheduler_address = _resolve_backend(backend, n_jobs, client, scheduler_address)
    label = desc if desc is not None else getattr(func, "__name__", "sweep")
    results = _run(_Work(func, points, tasks, seed, label, progress), backend, n_jobs, client, scheduler_address)
    return _tidy_frame(keys, points, results)


def _plan(
    func: Any, grid: Mapping[str, Sequence[Any]], trials: int, seed: int
) -> tuple[list[str], list[dict[str, Any]], list[tuple[int, int]], int]:
    """Validate a sweep's arguments; its grid keys, grid points, ``(point, trial)`` tasks and root seed."""
    if not callable(func):
        raise TypeError(f"func must be callable, got {type(func).__name__}")
    keys, values = _check_grid(grid)
    trials = check_int(trials, "trials", minimum=1)
    seed = check_seed(seed, "seed")
    points = [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    tasks = [(pi, t) for pi in range(len(points)) for t in range(trials)]
    return keys, points, tasks, seed


def _resolve_backend(
    backend: str | None, n_jobs: int | None, client: Any, scheduler_address: str | None
) -> tuple[str, int, str | None]:
    """Check the back-end arguments of :func:`sweep` and fill the missing ones from :func:`backend_settings`."""
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend is None or n_jobs is None or (backend == "dask" and client is None and scheduler_address is None):
        env = backend_settings()
        if backend is None:
            backend = env["backend"]
        if n_jobs is None:
            n_jobs = env["n_jobs"]
        if backend == "dask" and client is None and scheduler_address is None:
            scheduler_address = env["scheduler_address"]
    n_jobs = check_int(n_jobs, "n_jobs", minimum=-1)
    if n_jobs == 0:
        raise ValueError("n_jobs must be >= 1 or -1 (all cores), got 0")
    if backend != "dask" and (client is not None or scheduler_address is not None):
        raise ValueError(f"client / scheduler_address are only used with backend='dask', not {backend!r}")
    if scheduler_address is not None:
        check_scheduler_address(scheduler_address, "scheduler_address")
    return backend, n_jobs, scheduler_address


def _tidy_frame(keys: Sequence[str], points: list[dict[str, Any]], results: list) -> pd.DataFrame:
    """One row per (point, trial, result dict), ordered by point, trial and position in the result list."""
    results = sorted(results, key=lambda r: (r[0], r[1]))
    rows: list[dict[str, Any]] = []
    result_cols: dict[str, None] = {}
    for pi, t, rs in results:
        for r in rs:
            for k in r:
                result_cols.setdefault(k, None)
            rows.append({**points[pi], "trial": t, **r})
    columns = [*keys, "trial", *result_cols]
    return pd.DataFrame(rows, columns=columns).reset_index(drop=True)


def summarise(frame: pd.DataFrame, by: Sequence[str], values: Sequence[str]) -> pd.DataFrame:
    """Mean, standard deviation, standard error and count of ``values`` per group of ``by``.

    Returns one row per group with columns ``<value>_mean``, ``<value>_std``,
    ``<value>_se`` (= std / sqrt(count)) and ``n`` (number of trials), groups in
    order of first appearance (grid order for a :func:`sweep` frame).
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    by, values = list(by), list(values)
    missing = [c for c in by + values if c not in frame.columns]
    if missing:
        raise ValueError(f"columns not in frame: {missing}; available: {list(frame.columns)}")
    if not values:
        raise ValueError("values must name at least one column")
    grouped = frame.groupby(by, sort=False, dropna=False) if by else frame.groupby(lambda _: 0)
    out = pd.DataFrame({"n": grouped[values[0]].count()})
    for v in values:
        g = grouped[v]
        out[f"{v}_mean"] = g.mean()
        out[f"{v}_std"] = g.std(ddof=1)
        out[f"{v}_se"] = out[f"{v}_std"] / np.sqrt(g.count())
    out = out.reset_index()
    if not by:
        out = out.drop(columns=out.columns[0])
    return out
