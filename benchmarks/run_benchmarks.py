#!/usr/bin/env python
"""Time ``ldp`` against the peer libraries pure-ldp 1.2.0 and multi-freq-ldpy 0.2.5.

Three groups of measurements (d = 1000, eps = 1 throughout):

1. *Per-user* perturb + aggregate + estimate for GRR, OUE and OLH at n = 1e5 and 1e6
   users.  ``ldp`` is timed on the whole population.  The peers run one Python call
   per user; they are timed on a subsample of users and extrapolated linearly to n,
   except OUE at the largest n, where both peers are timed three times at full n, in turn
   (multi-freq-ldpy keeps every report, about 8 GB at 1e6, so its cost is not linear).
   Beside ``ldp`` a *floor* is timed: the bare random draws the oracle needs plus one
   count (see :func:`floor_task`), so the table shows how far ``ldp`` is from it.
2. *Count-level* simulation at n = 1e8 (GRR, OUE, SS, Hadamard response, Bloom RAPPOR):
   ``simulate_counts`` + the unbiased estimate.  The peers have no count-level sampler.
3. *IBU* (iterative Bayesian update) on a GRR channel with d = 1000: ``ldp``'s structured
   O(d) update (``ibu_grr``) and its dense O(d^2) update (``ibu``, the like-for-like
   comparison) against multi-freq-ldpy's numba ``IBU`` (dense), per iteration.

Every comparison is *interleaved*: the contenders of one row run in turn, round after
round, so a change of machine load hits all of them; the table reports the minimum and
the median over rounds, and ratios are taken between medians (the minimum ratio is shown
too).  Times are the CPU time of the benchmark process by default (``--clock wall`` for
elapsed time): every contender is single-threaded, so CPU time is its work, without the
time spent waiting for a core on a loaded machine.  The load average at the start and end
of the run is written in the header.

A peer that is not installed is skipped with a message.  Results go to
``benchmarks/results/latest.csv`` and ``latest.md`` (git-ignored).

Usage: ``python benchmarks/run_benchmarks.py [--quick] [--clock cpu|wall] [--per-user GRR,OUE,OLH]
[--per-user-only] [--out DIR]``.
"""

from __future__ import annotations

import os

# One BLAS thread for every contender (ldp's dense IBU and the peer's numba IBU both call BLAS): on a small
# shared machine extra BLAS threads only oversubscribe the cores and make the dense rows erratic.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import importlib
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ldp import estimate as ldp_estimate
from ldp.oracles import GRR, OLH, OUE, BloomRAPPOR, HadamardResponse, SubsetSelection

D = 1000
EPS = 1.0
IBU_ITERATIONS = 10_000
TARGETS = {"GRR": 50.0, "OUE": 20.0, "OLH": 10.0, "IBU": 100.0}
FLOOR_TARGET = 1.2  # ldp within 1.2x of the bare cost of its random draws (GRR and OUE)
COUNT_TARGET_S = 0.050
#: the per-user targets are stated at this population size (smaller sizes are shown for reference)
TARGET_N = 1_000_000
#: GRR's runs take milliseconds (its peers' subsamples well under a second): more rounds steady its medians
ROUNDS_FACTOR = {"GRR": 4}
#: multi-freq-ldpy keeps n float64 reports of d entries; refuse the full-n run without this much free memory
FULL_N_MEMORY_MARGIN = 1.5


# ---------------------------------------------------------------------------- helpers
#: the clock every measurement reads: "cpu" (this process's CPU time, user + system) or "wall"; set by --clock
CLOCK = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = CLOCK["cpu"]


def once(fn: Callable[[], Any]) -> float:
    """Seconds of one call on the chosen clock.

    Every contender is single-threaded (numpy, the peers' Python loops, numba without ``parallel``, one BLAS
    thread), so its CPU time is the work it does; unlike wall time it leaves out the time the process waits
    for a core while other jobs run, which on a shared 2-core machine is most of the noise.
    """
    start = _clock()
    fn()
    return _clock() - start


def balanced_orders(k: int) -> list[list[int]]:
    """Orders of ``k`` contenders in which each one runs right after each other one equally often.

    A plain rotation keeps the cyclic order, so a contender listed after the peers always runs right after a
    peer's long Python loop (cold caches, freshly freed memory) and the next one always right after it.  These
    are the rows of a Williams Latin square (for odd ``k`` the square and its mirror image), in which every
    ordered pair of contenders is adjacent equally often.
    """
    first = [0]
    for j in range(1, k):
        first.append((first[-1] + (j if j % 2 else k - j)) % k)
    rows = [[(c + i) % k for c in first] for i in range(k)]
    return rows if k % 2 == 0 else rows + [row[::-1] for row in rows]


def interleaved(contenders: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    """Time every contender once per round; the orders cycle through :func:`balanced_orders`."""
    names = list(contenders)
    orders = balanced_orders(len(names))
    times: dict[str, list[float]] = {k: [] for k in names}
    for r in range(rounds):
        for i in orders[r % len(orders)]:
            times[names[i]].append(once(contenders[names[i]]))
    return times


def summary(ts: list[float], scale: float = 1.0) -> tuple[float, float]:
    return min(ts) * scale, statistics.median(ts) * scale


def population(n: int, seed: int) -> np.ndarray:
    """``n`` codes from a Zipf(1.1)-like distribution over ``D`` values (speed barely depends on it)."""
    gen = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, D + 1) ** 1.1
    return gen.choice(D, size=n, p=w / w.sum())


def load_peers() -> dict[str, Any]:
    """Import the peer libraries that are installed; print why any is skipped."""
    peers: dict[str, Any] = {}
    for label, module in (
        ("pure-ldp", "pure_ldp.frequency_oracles"),
        ("multi-freq-ldpy", "multi_freq_ldpy.pure_frequency_oracles"),
    ):
        try:
            peers[label] = importlib.import_module(module)
        except Exception as exc:  # ImportError, or a missing undeclared dependency of the peer
            print(
                f"[skip] {label}: cannot import {module} ({type(exc).__name__}: {exc}). "
                "Install the bench environment: pip install -r benchmarks/requirements.txt"
            )
    return peers


def version(dist: str) -> str:
    try:
        from importlib.metadata import version as v

        return v(dist)
    except Exception:
        return "not installed"


def available_memory() -> float:
    """MemAvailable in bytes (Linux), or inf when unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return math.inf


def load_average() -> str:
    try:
        return "/".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


# ---------------------------------------------------------------------------- ldp, per user
def ldp_task(kind: str) -> Callable[[np.ndarray, int], np.ndarray]:
    if kind == "GRR":

        def run(x: np.ndarray, seed: int) -> np.ndarray:
            # per-user reports, counted as they are drawn (the reports' own check is skipped, not the users')
            o = GRR(EPS, D)
            return o.estimate_counts(o.perturb_and_count(x, seed), x.size)
    elif kind == "OUE":

        def run(x: np.ndarray, seed: int) -> np.ndarray:
            # per-user reports, generated chunk by chunk and counted at once (no n x d matrix is held)
            o = OUE(EPS, D)
            return o.estimate_counts(o.perturb_and_count(x, seed), x.size)
    elif kind == "OLH":

        def run(x: np.ndarray, seed: int) -> np.ndarray:
            o = OLH(EPS, D)
            return o.estimate(o.perturb(x, seed))
    else:
        raise ValueError(kind)
    return run


FLOOR_TEXT = {
    "GRR": (
        "one uniform per user, one integer per moved user (ldp draws one per user), one bincount of n codes; "
        "no validation, no estimate"
    ),
    "OUE": (
        "n·d 16-bit uniforms read from the generator's raw 64-bit words in 2^16-entry pieces (ldp's primitive, "
        "same bits as numpy's uint16 sampler) against the threshold q rounded to 16 bits (no tie resolution), "
        "written into one reused buffer; one uniform per user; one uint16 column count per chunk; no validation, "
        "no estimate"
    ),
}


def floor_task(kind: str) -> Callable[[np.ndarray, int], Any] | None:
    """The bare cost of the random draws an oracle needs, plus one count; no validation, no estimate.

    Each floor draws what ``ldp``'s sampler must draw, with the cheapest numpy primitive that gives the same
    random stream, and nothing else: no input check, no exactness fix-ups, no estimate.
    """
    if kind == "GRR":
        o = GRR(EPS, D)
        keep = o.p_minus_q

        def run(x: np.ndarray, seed: int) -> Any:
            gen = np.random.default_rng(seed)
            moved = int(np.count_nonzero(gen.random(x.size) >= keep))
            gen.integers(0, D, size=moved, dtype=np.int32)
            return np.bincount(x, minlength=D)

        return run
    if kind == "OUE":
        o = OUE(EPS, D)
        t = int(o.q * 65536)
        rows = max(1, (1 << 22) // D)  # the chunk ldp uses
        piece = 1 << 16  # 16-bit uniforms per piece, as in ldp.oracles.unary

        def run(x: np.ndarray, seed: int) -> Any:
            gen = np.random.default_rng(seed)
            raw = gen.bit_generator.random_raw
            counts = np.zeros(D, dtype=np.int64)
            part = np.empty(D, dtype=np.uint16)
            buf = np.empty(min(rows, x.size) * D, dtype=bool)
            for start in range(0, x.size, rows):
                m = min(rows, x.size - start)
                size = m * D
                for s in range(0, size, piece):
                    k = min(piece, size - s)
                    np.less(raw(-(-k // 4)).view(np.uint16)[:k], t, out=buf[s : s + k])
                gen.random(m)
                np.add.reduce(buf[:size].reshape(m, D).view(np.uint8), axis=0, dtype=np.uint16, out=part)
                counts += part
            return counts

        return run
    return None


# ---------------------------------------------------------------------------- peers, per user
def peer_task(peer: str, kind: str, mod: Any) -> Callable[[np.ndarray], Any]:
    """One Python call per user, as each library is meant to be used (0-based items)."""
    if peer == "pure-ldp":
        ident = lambda v: v
        if kind == "GRR":
            make = lambda: (mod.DEClient(EPS, D, index_mapper=ident), mod.DEServer(EPS, D, index_mapper=ident))
        elif kind == "OUE":
            make = lambda: (
                mod.UEClient(EPS, D, use_oue=True, index_mapper=ident),
                mod.UEServer(EPS, D, use_oue=True, index_mapper=ident),
            )
        else:
            make = lambda: (
                mod.LHClient(EPS, D, use_olh=True, index_mapper=ident),
                mod.LHServer(EPS, D, use_olh=True, index_mapper=ident),
            )

        def run(x: np.ndarray) -> Any:
            client, server = make()
            for v in x.tolist():
                server.aggregate(client.privatise(v))
            return server.estimate_all(range(D), suppress_warnings=True)

        return run

    from multi_freq_ldpy.pure_frequency_oracles import GRR as mGRR
    from multi_freq_ldpy.pure_frequency_oracles import LH as mLH
    from multi_freq_ldpy.pure_frequency_oracles import UE as mUE

    if kind == "GRR":

        def run(x: np.ndarray) -> Any:
            return mGRR.GRR_Aggregator_MI([mGRR.GRR_Client(v, D, EPS) for v in x.tolist()], D, EPS)
    elif kind == "OUE":

        def run(x: np.ndarray) -> Any:
            return mUE.UE_Aggregator_MI([mUE.UE_Client(v, D, EPS, True) for v in x.tolist()], EPS, True)
    else:

        def run(x: np.ndarray) -> Any:
            return mLH.LH_Aggregator_MI([mLH.LH_Client(v, D, EPS, True) for v in x.tolist()], D, EPS, True)

    return run


def per_user_rows(
    peers: dict[str, Any],
    sizes: list[int],
    subsample: dict[str, int],
    rounds: int,
    full_n_oue: bool,
    kinds: tuple[str, ...] = ("GRR", "OUE", "OLH"),
    full_n_runs: int = 3,
) -> list[dict]:
    rows = []
    for kind in kinds:
        runners = {}
        for label, mod in peers.items():
            run = peer_task(label, kind, mod)
            try:
                run(population(20, 99))  # warm-up: numba compilation, imports
            except Exception as exc:  # e.g. xxhash >= 4 refuses str input in LH
                print(f"[skip] {label} {kind}: {type(exc).__name__}: {exc}")
                continue
            runners[label] = run
        task, floor = ldp_task(kind), floor_task(kind)
        for n in sizes:
            x = population(n, 2)
            task(x[:1000], 0)  # warm-up
            m = min(subsample[kind], n)
            xs = population(m, 1)
            full = full_n_oue and kind == "OUE" and n == max(sizes)
            contenders: dict[str, Callable[[], Any]] = {"ldp": lambda: task(x, 3)}
            if floor is not None:
                contenders["floor"] = lambda: floor(x, 3)
            if not full:
                for label, run in runners.items():
                    contenders[label] = lambda run=run: run(xs)
            kind_rounds = rounds * ROUNDS_FACTOR.get(kind, 1)
            times = interleaved(contenders, kind_rounds)
            how = {}
            if full:
                xf = population(n, 1)
                for r in range(full_n_runs):  # each peer in turn at full n, each followed by one more ldp run
                    for label in runners:
                        need = n * D * 8 * FULL_N_MEMORY_MARGIN if label == "multi-freq-ldpy" else 0
                        if available_memory() < need:
                            print(
                                f"[skip] {label} OUE at n={n:.0e}: needs about {need / 2**30:.0f} GiB free, "
                                f"{available_memory() / 2**30:.1f} GiB available"
                            )
                            continue
                        print(f"  timing {label} OUE at full n = {n:,} (run {r + 1}/{full_n_runs}) ...", flush=True)
                        times.setdefault(label, []).append(once(lambda label=label: runners[label](xf)))
                        times["ldp"].append(once(contenders["ldp"]))
                        how[label] = f"{len(times[label])} run(s) at full n, each followed by one more ldp run"
            else:
                for label in runners:
                    times[label] = [t * n / m for t in times[label]]
                    how[label] = f"{kind_rounds} runs on {m:,} users, × n/{m:,}"
            row = {"group": "per-user", "task": f"{kind} perturb+aggregate+estimate", "oracle": kind, "n": n}
            row["ldp_min_s"], row["ldp_median_s"] = summary(times["ldp"])
            for label in ("pure-ldp", "multi-freq-ldpy"):
                mn, md = summary(times[label]) if label in times and times[label] else (math.nan, math.nan)
                row[f"{label}_min_s"], row[f"{label}_median_s"] = mn, md
                row[f"{label}_how"] = how.get(label, "")
            if "floor" in times:
                row["floor_min_s"], row["floor_median_s"] = summary(times["floor"])
                row["ldp_over_floor"] = row["ldp_median_s"] / row["floor_median_s"]
                row["ldp_over_floor_min"] = row["ldp_min_s"] / row["floor_min_s"]
                row["floor_how"] = FLOOR_TEXT[kind]
            peer_med = [row[f"{p}_median_s"] for p in runners if not math.isnan(row[f"{p}_median_s"])]
            peer_min = [row[f"{p}_min_s"] for p in runners if not math.isnan(row[f"{p}_min_s"])]
            row["speedup"] = min(peer_med) / row["ldp_median_s"] if peer_med else math.nan
            row["speedup_min"] = min(peer_min) / row["ldp_min_s"] if peer_min else math.nan
            row["target"] = f">= {TARGETS[kind]:g}× peer" + (
                f"; <= {FLOOR_TARGET:g}× floor" if "floor" in times else ""
            )
            met = [bool(row["speedup"] >= TARGETS[kind])] if peer_med else []
            if "floor" in times:
                met.append(bool(row["ldp_over_floor"] <= FLOOR_TARGET))
            row["met"] = all(met) if met else None
            if n != TARGET_N:  # the targets are stated at n = 1e6; smaller n is shown for reference
                row["target"] = f"(targets are at n = {TARGET_N:.0e})"
                row["met"] = None
            row["how"] = f"ldp (and floor) interleaved with the peers, {kind_rounds} rounds" + (
                f"; ldp {len(times['ldp'])} runs" if full else ""
            )
            rows.append(row)
            extra = f", {row['ldp_over_floor']:.2f}× its floor" if "floor" in times else ""
            print(
                f"  ldp {kind} n={n:.0e}: median {row['ldp_median_s']:.3f} s; "
                f"{row['speedup']:.0f}× the faster peer{extra}",
                flush=True,
            )
    return rows


# ---------------------------------------------------------------------------- count level
def count_rows(n: int, rounds: int) -> list[dict]:
    gen = np.random.default_rng(4)
    w = 1.0 / np.arange(1, D + 1) ** 1.1
    counts = gen.multinomial(n, w / w.sum())
    oracles = {
        "GRR": GRR(EPS, D),
        "OUE": OUE(EPS, D),
        f"SS (omega={SubsetSelection(EPS, D).subset_size})": SubsetSelection(EPS, D),
        "HR": HadamardResponse(EPS, D),
        "Bloom RAPPOR (m=2048, h=4)": BloomRAPPOR(EPS, d=D, m=2048, h=4),
    }
    rows = []
    for name, o in oracles.items():

        def run(o=o) -> np.ndarray:
            return o.estimate_counts(o.simulate_counts(counts, gen), n)

        run()  # warm-up: caches the HR slot matrix and the Bloom pseudo-inverse
        ts = interleaved({"ldp": run}, rounds)["ldp"]
        mn, md = summary(ts)
        is_ss = name.startswith("SS")
        rows.append(
            {
                "group": "count-level",
                "task": f"{name} simulate_counts+estimate",
                "oracle": name,
                "n": n,
                "ldp_min_s": mn,
                "ldp_median_s": md,
                "how": f"{rounds} runs",
                "target": "(new sampler; no target)" if is_ss else "< 0.050 s",
                "met": None if is_ss else bool(md < COUNT_TARGET_S),
            }
        )
        print(f"  {name:28s} n={n:.0e}: median {md * 1e3:7.1f} ms", flush=True)
    return rows


# ---------------------------------------------------------------------------- IBU
def ibu_rows(peers: dict[str, Any], peer_iters: int, dense_iters: int, rounds: int) -> list[dict]:
    """IBU on GRR counts (n = 2e5 reports of a uniform input, d = 1000), per iteration, interleaved.

    multi-freq-ldpy's numba ``IBU`` multiplies by the dense d x d channel every iteration. ``ldp`` has
    two rows: ``ibu_grr`` uses the structure of the GRR channel (O(d) per iteration), and the general
    ``ibu`` multiplies by the dense channel like the peer (O(d^2), the like-for-like comparison).
    Both ``ldp`` functions give the peer's iterates (checked below).  All times are scaled to the
    peer's default 10^4 iterations.  ``grr_mle`` (the fixed point in closed form) is for reference.
    """
    o = GRR(EPS, D)
    n = 200_000
    counts = o.simulate_counts(np.random.default_rng(5).multinomial(n, np.full(D, 1 / D)), 6)
    P = o.channel()
    fast_iters = IBU_ITERATIONS
    contenders: dict[str, Callable[[], Any]] = {
        "ibu_grr": lambda: ldp_estimate.ibu_grr(counts, o.p, o.q, max_iter=fast_iters, tol=0.0),
        "ibu": lambda: ldp_estimate.ibu(P, counts, max_iter=dense_iters, tol=0.0),
        "grr_mle": lambda: ldp_estimate.grr_mle(counts, o.p, o.q),
    }
    iters = {"ibu_grr": fast_iters, "ibu": dense_iters, "grr_mle": None}
    gap = math.nan
    if "multi-freq-ldpy" in peers:
        from multi_freq_ldpy.estimators.Histogram_estimator import IBU

        A = P.T.copy()  # their A[i, j] = P(report i | value j) (symmetric for GRR)
        freq = counts / counts.sum()
        IBU(D, A, freq, 2, 0.0, "max_abs")  # numba compilation, not timed
        contenders["multi-freq-ldpy"] = lambda: IBU(D, A, freq, peer_iters, 0.0, "max_abs")
        iters["multi-freq-ldpy"] = peer_iters
        theirs = IBU(D, A, freq, peer_iters, 0.0, "max_abs")
        ours = ldp_estimate.ibu_grr(counts, o.p, o.q, max_iter=peer_iters, tol=0.0)
        dense = ldp_estimate.ibu(P, counts, max_iter=peer_iters, tol=0.0)
        print(
            f"  same EM: after {peer_iters} iterations ibu_grr and ibu differ from the peer by "
            f"{np.abs(theirs - ours).max():.1e} and {np.abs(theirs - dense).max():.1e} (max abs)"
        )
        ref = ldp_estimate.ibu_grr(counts, o.p, o.q, max_iter=IBU_ITERATIONS, tol=0.0)
        gap = float(np.abs(ref - ldp_estimate.grr_mle(counts, o.p, o.q)).max())
    else:
        print("[skip] multi-freq-ldpy IBU: not installed")
    times = interleaved(contenders, rounds)
    per_iter = {k: [t / iters[k] for t in v] for k, v in times.items() if iters[k]}
    peer = summary(per_iter["multi-freq-ldpy"], IBU_ITERATIONS) if "multi-freq-ldpy" in per_iter else (math.nan,) * 2
    entries = (
        ("ibu_grr", "structured O(d) update (ldp.estimate.ibu_grr) vs the peer's dense O(d²) one", ">= 100× peer"),
        ("ibu", "dense O(d²) update (ldp.estimate.ibu), like for like with the peer", "(reference)"),
        ("grr_mle", "the fixed point in closed form (ldp.estimate.grr_mle), no iterations", "(reference)"),
    )
    rows: list[dict] = []
    for key, name, target in entries:
        mn, md = summary(per_iter[key], IBU_ITERATIONS) if key in per_iter else summary(times[key])
        row = {
            "group": "IBU",
            "task": f"IBU, GRR channel d={D}: {name}",
            "oracle": "IBU",
            "n": n,
            "ldp_min_s": mn,
            "ldp_median_s": md,
            "pure-ldp_min_s": math.nan,
            "pure-ldp_median_s": math.nan,
            "multi-freq-ldpy_min_s": peer[0],
            "multi-freq-ldpy_median_s": peer[1],
            "multi-freq-ldpy_how": f"{rounds} runs of {peer_iters} iterations, × {IBU_ITERATIONS}/{peer_iters}",
            "peer_gap_to_fixed_point": gap,
            "speedup": peer[1] / md,
            "speedup_min": peer[0] / mn,
            "target": target,
            "how": (
                f"interleaved, {rounds} rounds; "
                + (
                    f"{iters[key]} iterations per run, × {IBU_ITERATIONS}/{iters[key]}"
                    if iters.get(key)
                    else "one call per run"
                )
            ),
            "met": (None if math.isnan(peer[1]) or key != "ibu_grr" else bool(peer[1] / md >= 100)),
        }
        rows.append(row)
        print(f"  {key}: median {md:.4f} s per 10^4 iterations; {row['speedup']:.0f}× the peer", flush=True)
    return rows


# ---------------------------------------------------------------------------- report
def fmt_seconds(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v < 1e-3:
        return f"{v * 1e6:.0f} µs"
    if v < 1:
        return f"{v * 1e3:.1f} ms"
    return f"{v:,.2f} s"


def _isnan(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _pair(r: dict, key: str) -> str:
    mn, md = r.get(f"{key}_min_s", math.nan), r.get(f"{key}_median_s", math.nan)
    if _isnan(md):
        return "-"
    return fmt_seconds(md) if mn == md else f"{fmt_seconds(md)} ({fmt_seconds(mn)})"


def markdown(df: pd.DataFrame) -> str:
    """The result table: medians, with minima in brackets; how each cell was measured in the last column."""
    lines = [
        "| task | n | ldp | floor | ldp ÷ floor | pure-ldp | multi-freq-ldpy | speed-up vs faster peer "
        "| target | met | how measured |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in df.to_dict("records"):
        fl = r.get("ldp_over_floor", math.nan)
        fl_s = "-" if _isnan(fl) else f"{fl:.2f}× ({r['ldp_over_floor_min']:.2f}×)"
        sp, spm = r.get("speedup", math.nan), r.get("speedup_min", math.nan)
        sp_s = "-" if _isnan(sp) else f"{sp:,.0f}× ({spm:,.0f}×)"
        met = {True: "yes", False: "**no**"}.get(r.get("met"), "-")
        how = [str(r.get("how", ""))]
        for label in ("pure-ldp", "multi-freq-ldpy"):
            h = r.get(f"{label}_how")
            if isinstance(h, str) and h:
                how.append(f"{label}: {h}")
        if isinstance(r.get("floor_how"), str):
            how.append(f"floor: {r['floor_how']}")
        lines.append(
            f"| {r['task']} | {int(r['n']):.0e} | {_pair(r, 'ldp')} | {_pair(r, 'floor')} | {fl_s} "
            f"| {_pair(r, 'pure-ldp')} | {_pair(r, 'multi-freq-ldpy')} | {sp_s} | {r['target']} | {met} "
            f"| {'; '.join(how)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="n = 1e5 only, smaller peer subsamples, fewer rounds")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "results",
        help="directory for latest.csv and latest.md",
    )
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCK),
        default="cpu",
        help="cpu: this process's CPU time (default; steady under load); wall: elapsed time",
    )
    ap.add_argument(
        "--per-user",
        default="GRR,OUE,OLH",
        help="comma-separated per-user rows to run (GRR, OUE, OLH; empty for none)",
    )
    ap.add_argument("--per-user-only", action="store_true", help="skip the count-level and IBU groups")
    args = ap.parse_args(argv)
    if args.per_user and not set(args.per_user.split(",")) <= {"GRR", "OUE", "OLH"}:
        ap.error(f"--per-user takes a comma-separated subset of GRR,OUE,OLH, got {args.per_user!r}")
    global _clock
    _clock = CLOCK[args.clock]

    load_start = load_average()
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"pure-ldp {version('pure-ldp')}, multi-freq-ldpy {version('multi-freq-ldpy')}, "
        f"xxhash {version('xxhash')}; load average {load_start}"
    )
    peers = load_peers()
    if args.quick:
        sizes, subsample, peer_iters, dense_iters, rounds = (
            [100_000],
            {"GRR": 5_000, "OUE": 1_000, "OLH": 100},
            100,
            200,
            3,
        )
    else:
        sizes, subsample = [100_000, 1_000_000], {"GRR": 50_000, "OUE": 10_000, "OLH": 2_000}
        peer_iters, dense_iters, rounds = 500, 1_000, 5

    kinds = tuple(args.per_user.split(",")) if args.per_user else ()
    rows: list[dict] = []
    if kinds:
        print("\n[1/3] per-user perturb + aggregate + estimate")
        rows += per_user_rows(peers, sizes, subsample, rounds, full_n_oue=not args.quick, kinds=kinds)
    if not args.per_user_only:
        print("\n[2/3] count-level simulation (no peer offers one)")
        rows += count_rows(100_000_000, rounds)
        print("\n[3/3] IBU")
        rows += ibu_rows(peers, peer_iters, dense_iters, rounds)

    df = pd.DataFrame(rows)
    df["clock"] = args.clock
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "latest.csv", index=False)
    table = markdown(df)
    load_end = load_average()
    note = (
        "Cells are medians over interleaved rounds, minima in brackets; speed-ups and ldp ÷ floor are "
        "ratios of medians (of minima in brackets); 'met' uses the medians."
    )
    gaps = df.get("peer_gap_to_fixed_point")
    if gaps is not None and gaps.notna().any():
        note += (
            f" After 10^4 iterations IBU is still {gaps.dropna().iloc[0]:.3f} (max abs) from the fixed "
            "point that grr_mle returns."
        )
    header = (
        f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {os.cpu_count()} CPUs (load average 1/5/15 min: "
        f"{load_start} at the start, {load_end} at the end): python {platform.python_version()}, "
        f"numpy {np.__version__}, pure-ldp {version('pure-ldp')}, multi-freq-ldpy "
        f"{version('multi-freq-ldpy')}, xxhash {version('xxhash')}; OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS')}; d = {D}, eps = {EPS:g}{' (--quick)' if args.quick else ''}; "
        f"clock: {'CPU time of the benchmark process' if args.clock == 'cpu' else 'wall time'}."
    )
    (args.out / "latest.md").write_text(header + "\n\n" + table + "\n\n" + note + "\n")
    print("\n" + header + "\n\n" + table + "\n\n" + note)
    print(f"\nwrote {args.out / 'latest.csv'} and {args.out / 'latest.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
