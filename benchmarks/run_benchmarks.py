#!/usr/bin/env python
"""Time ``ldp`` against the peer libraries pure-ldp 1.2.0 and multi-freq-ldpy 0.2.5.

Three groups of measurements (d = 1000, eps = 1 throughout):

1. *Per-user* perturb + aggregate + estimate for GRR, OUE and OLH at n = 1e5 and 1e6
   users.  ``ldp`` is timed on the whole population.  The peers run one Python call
   per user; they are timed on a subsample of users and extrapolated linearly to n,
   except OUE at the largest n, where both peers are timed once per process at full n, in turn
   (three times in all with the default three processes; multi-freq-ldpy keeps every report, about
   8 GB at 1e6, so its cost is not linear).
   Beside ``ldp`` a *floor* is timed: the bare random draws the oracle needs plus one
   count (see :func:`floor_task`), so the table shows how far ``ldp`` is from it.
2. *Count-level* simulation at n = 1e8 (GRR, OUE, SS, Hadamard response, Bloom RAPPOR):
   ``simulate_counts`` + the unbiased estimate.  The peers have no count-level sampler.
3. *IBU* (iterative Bayesian update) at d = 1000, per iteration, against multi-freq-ldpy's numba ``IBU``
   (a dense d x d matrix product every iteration): ``ldp.estimate.ibu`` on the GRR channel, on Hadamard
   response's channel and on a channel with no structure, ``ibu_batch`` on many count vectors through one
   unstructured channel (per estimate), ``ibu_ue``'s EM on OUE support counts, ``ibu_grr`` on GRR counts, and
   ``grr_mle`` (the fixed point in closed form) for reference.

Every comparison is *interleaved*: the contenders of one row run in turn, round after round,
so a change of machine load hits all of them; each process keeps the median over its rounds.
Every group runs in ``--processes`` (default 3) *independent processes*, one after another; the
table gives the median of the per-process medians and their range (lowest to highest process), and
speed-ups are ratios of medians within a process, summarised the same way.  A target is met only if
it is met in every process.  Times are the CPU time of the benchmark process by default (``--clock
wall`` for elapsed time): every contender is single-threaded, so CPU time is its work, without the
time spent waiting for a core on a loaded machine.  The load average at the start and end of the run
is written in the header.

A peer that is not installed is skipped with a message.  Results go to
``benchmarks/results/latest.csv`` (one row per measurement, summarised across processes), ``runs.csv`` (every
process's rows) and ``latest.md`` (git-ignored).

Usage: ``python benchmarks/run_benchmarks.py [--quick] [--clock cpu|wall] [--per-user GRR,OUE,OLH]
[--per-user-only] [--only-ibu] [--processes N] [--out DIR]``.
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
import subprocess
import sys
import tempfile
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
            # ldp's runs in the same rounds as its floor: the floor ratio compares only these (the extra ldp runs
            # below follow a full-n peer run, which leaves memory and caches in another state than a round does)
            ldp_in_rounds = list(times["ldp"])
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
                paired_min, paired_median = summary(ldp_in_rounds)
                row["ldp_over_floor"] = paired_median / row["floor_median_s"]
                row["ldp_over_floor_min"] = paired_min / row["floor_min_s"]
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
            row["how"] = f"ldp (and floor) interleaved with the peers, {kind_rounds} rounds"
            if full:
                row["how"] += f"; ldp {len(times['ldp'])} runs"
                if "floor" in times:
                    row["how"] += f" (ldp ÷ floor from the {kind_rounds} in the floor's rounds)"
            rows.append(row)
            if full:
                print(
                    "  ldp runs (s): in the rounds "
                    + ", ".join(f"{t:.3f}" for t in ldp_in_rounds)
                    + "; after a full-n peer run "
                    + ", ".join(f"{t:.3f}" for t in times["ldp"][len(ldp_in_rounds) :])
                    + ("; floor " + ", ".join(f"{t:.3f}" for t in times["floor"]) if "floor" in times else ""),
                    flush=True,
                )
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
#: reports in the IBU rows
N_IBU = 200_000
#: count vectors in the ibu_batch row (the per-estimate speed-up grows with it, levelling off near 64–128 where the
#: products reach BLAS's matrix–matrix rate)
IBU_BATCH = 64
#: the peer's IBU multiplies by its matrix A = Pᵀ in both products, which is IBU only for a symmetric channel:
#: the ibu_batch row uses a random symmetric one, so the check against the peer compares the same EM
PEER_SYMMETRIC = "multi-freq-ldpy, random channel"
#: the IBU rows: key -> (what it measures, target on the speed-up over the peer per iteration, or None)
IBU_ENTRIES = {
    "ibu_grr": ("GRR counts: ldp.estimate.ibu_grr (structured O(d) update, once per distinct count)", 100.0),
    "ibu GRR": ("GRR channel as a dense d×d matrix: ldp.estimate.ibu (finds the GRR form itself)", 10.0),
    "ibu HR": ("Hadamard response channel, d×K = 1000×1024: ldp.estimate.ibu (Walsh–Hadamard products)", 10.0),
    "ibu_ue": ("OUE support counts: ldp.estimate.ibu_ue(method='em') (composite-likelihood EM, O(d))", 10.0),
    "ibu random": ("a channel with no structure (random dense d×d): ldp.estimate.ibu, two BLAS products", None),
    "ibu_batch random": (
        f"a channel with no structure (random symmetric dense d×d), {IBU_BATCH} count vectors: ldp.estimate.ibu_batch "
        "(two matrix–matrix products per step for all rows), per estimate, i.e. when many estimates share one "
        "channel (the trials of an experiment); the peer has no batching and runs one vector at a time",
        10.0,
    ),
    "ibu_batch random single": (
        f"the same channel and {IBU_BATCH} count vectors: ldp.estimate.ibu_batch(precision='single') (the two "
        "products in float32, the update in float64: the iterates drift from the float64 ones by about 1e-7 "
        "after 10^3 steps, 7e-7 after 10^4, printed by the run), per estimate",
        10.0,
    ),
    "grr_mle": ("GRR counts: ldp.estimate.grr_mle, IBU's fixed point in closed form, no iterations", None),
}
#: the rows of ibu_batch (compared with the peer on the symmetric channel, per estimate)
BATCH_KEYS = ("ibu_batch random", "ibu_batch random single")


def symmetric_channel(gen: np.random.Generator, d: int) -> np.ndarray:
    """A random symmetric, doubly stochastic d×d channel with no other structure.

    ``S`` is symmetric with uniform entries; the symmetric Sinkhorn scaling ``v <- sqrt(v / (S v))`` finds ``v``
    with ``diag(v) S diag(v)`` doubly stochastic (it converges for a positive matrix); the result is averaged with
    its transpose, so that it is exactly symmetric, and its rows sum to 1 within rounding.
    """
    S = gen.random((d, d))
    S += S.T
    v = np.ones(d)
    for _ in range(1000):
        v = np.sqrt(v / (S @ v))
        P = v[:, None] * S * v[None, :]
        if np.abs(P.sum(axis=1) - 1.0).max() < 1e-13:
            break
    return (P + P.T) / 2


def ibu_inputs(n: int) -> dict[str, Any]:
    """Channels and counts for the IBU rows: n reports of a uniform input through GRR, HR and OUE, d = 1000, and
    ``IBU_BATCH`` count vectors of n reports each through a random symmetric channel."""
    gen = np.random.default_rng(5)
    true = gen.multinomial(n, np.full(D, 1 / D))
    grr, hr, oue = GRR(EPS, D), HadamardResponse(EPS, D), OUE(EPS, D)
    rand = gen.random((D, D))
    sym = symmetric_channel(gen, D)
    return {
        "sym_P": sym,
        "batch_counts": gen.multinomial(n, np.full(D, 1 / D) @ sym, size=IBU_BATCH),
        "grr": grr,
        "oue": oue,
        "grr_counts": grr.simulate_counts(true, 6),
        "grr_P": grr.channel(),
        "hr_P": hr.channel(),
        "hr_counts": gen.multinomial(true, hr.channel()).sum(axis=0),  # output (not support) counts, K of them
        "ue_counts": oue.simulate_counts(true, 8),
        "rand_P": rand / rand.sum(axis=1, keepdims=True),
    }


def ibu_contenders(
    x: dict[str, Any], dense_iters: int, batch_iters: int
) -> tuple[dict[str, Callable[[], Any]], dict[str, int | None]]:
    """The ldp contenders of the IBU group and the iterations each runs (None: one call, no iterations); for
    ``ibu_batch`` the iterations of all its rows (per-iteration times are then per estimate)."""
    o, ue, full = x["grr"], x["oue"], IBU_ITERATIONS
    est = ldp_estimate
    contenders: dict[str, Callable[[], Any]] = {
        "ibu_grr": lambda: est.ibu_grr(x["grr_counts"], o.p, o.q, max_iter=full, tol=0.0),
        "ibu GRR": lambda: est.ibu(x["grr_P"], x["grr_counts"], max_iter=full, tol=0.0),
        "ibu HR": lambda: est.ibu(x["hr_P"], x["hr_counts"], max_iter=full, tol=0.0),
        "ibu_ue": lambda: est.ibu_ue(x["ue_counts"], N_IBU, ue.p, ue.q, method="em", max_iter=full, tol=0.0),
        "ibu random": lambda: est.ibu(x["rand_P"], x["grr_counts"], max_iter=dense_iters, tol=0.0),
        "ibu_batch random": lambda: est.ibu_batch(x["sym_P"], x["batch_counts"], max_iter=batch_iters, tol=0.0),
        "ibu_batch random single": lambda: est.ibu_batch(
            x["sym_P"], x["batch_counts"], max_iter=batch_iters, tol=0.0, precision="single"
        ),
        "grr_mle": lambda: est.grr_mle(x["grr_counts"], o.p, o.q),
    }
    iters = {"ibu_grr": full, "ibu GRR": full, "ibu HR": full, "ibu_ue": full, "ibu random": dense_iters}
    for key in BATCH_KEYS:
        iters[key] = batch_iters * len(x["batch_counts"])
    return contenders, {k: iters.get(k) for k in contenders}


def ibu_check(x: dict[str, Any], peer: Callable[[int], np.ndarray], iters: int) -> float:
    """Print how far ldp's GRR iterates are from the peer's after ``iters`` steps; return the gap of 10^4 steps
    of ``ibu_grr`` to the closed-form fixed point."""
    o, c = x["grr"], x["grr_counts"]
    theirs = peer(iters)
    ours = ldp_estimate.ibu_grr(c, o.p, o.q, max_iter=iters, tol=0.0)
    dense = ldp_estimate.ibu(x["grr_P"], c, max_iter=iters, tol=0.0)
    print(
        f"  same EM: after {iters} iterations ibu_grr and ibu (GRR channel) differ from the peer by "
        f"{np.abs(theirs - ours).max():.1e} and {np.abs(theirs - dense).max():.1e} (max abs)"
    )
    ref = ldp_estimate.ibu_grr(c, o.p, o.q, max_iter=IBU_ITERATIONS, tol=0.0)
    return float(np.abs(ref - ldp_estimate.grr_mle(c, o.p, o.q)).max())


def ibu_batch_check(x: dict[str, Any], peer: Callable[[np.ndarray, int], np.ndarray], iters: int) -> None:
    """Print how far each row of ``ibu_batch`` on the symmetric channel is from the peer's run on that row alone."""
    ours = ldp_estimate.ibu_batch(x["sym_P"], x["batch_counts"], max_iter=iters, tol=0.0)
    gap = max(float(np.abs(peer(row / row.sum(), iters) - mine).max()) for row, mine in zip(x["batch_counts"], ours))
    print(
        f"  same EM: after {iters} iterations each of the {len(ours)} rows of ibu_batch (random symmetric channel) "
        f"differs from the peer's run on that row alone by at most {gap:.1e} (max abs)"
    )
    steps = 1_000
    double = ldp_estimate.ibu_batch(x["sym_P"], x["batch_counts"], max_iter=steps, tol=0.0)
    single = ldp_estimate.ibu_batch(x["sym_P"], x["batch_counts"], max_iter=steps, tol=0.0, precision="single")
    print(
        f"  precision='single': after {steps} iterations its rows differ from the float64 ones by at most "
        f"{np.abs(single - double).max():.1e} (max abs); the rows' own standard deviation across the "
        f"{len(double)} count vectors is {np.median(double.std(axis=0)):.1e} (median over values)"
    )


def ibu_rows(peers: dict[str, Any], peer_iters: int, dense_iters: int, batch_iters: int, rounds: int) -> list[dict]:
    """IBU at d = 1000 (n = 2e5 reports of a uniform input), per iteration, interleaved with the peer.

    multi-freq-ldpy's numba ``IBU`` multiplies by a dense d x d matrix every iteration (for GRR, and for UE and
    local hashing with p on the diagonal and q elsewhere), so its cost does not depend on the channel; it is
    timed on the GRR channel.  It takes square matrices only, so the Hadamard-response row (1000 x 1024, 2.4%
    more entries) is compared with that same d x d time.  All times are scaled to the peer's default 10^4
    iterations; every ldp contender runs all 10^4 (its one-off set-up included), except the unstructured dense
    channel (``dense_iters``, scaled) and ``ibu_batch`` (``batch_iters`` steps of ``IBU_BATCH`` rows, scaled, per
    estimate).  The ``ibu_batch`` row is compared with the peer timed on the same symmetric channel with one count
    vector (``PEER_SYMMETRIC``).
    """
    x = ibu_inputs(N_IBU)
    contenders, iters = ibu_contenders(x, dense_iters, batch_iters)
    gap = math.nan
    if "multi-freq-ldpy" in peers:
        from multi_freq_ldpy.estimators.Histogram_estimator import IBU

        A = x["grr_P"].T.copy()  # their A[i, j] = P(report i | value j) (symmetric for GRR)
        freq = x["grr_counts"] / x["grr_counts"].sum()
        IBU(D, A, freq, 2, 0.0, "max_abs")  # numba compilation, not timed
        contenders["multi-freq-ldpy"] = lambda: IBU(D, A, freq, peer_iters, 0.0, "max_abs")
        iters["multi-freq-ldpy"] = peer_iters
        gap = ibu_check(x, lambda k: IBU(D, A, freq, k, 0.0, "max_abs"), peer_iters)
        S, first = x["sym_P"], x["batch_counts"][0] / x["batch_counts"][0].sum()  # S symmetric: their A = Sᵀ = S
        contenders[PEER_SYMMETRIC] = lambda: IBU(D, S, first, peer_iters, 0.0, "max_abs")
        iters[PEER_SYMMETRIC] = peer_iters
        ibu_batch_check(x, lambda f, k: IBU(D, S, f, k, 0.0, "max_abs"), 50)
    else:
        print("[skip] multi-freq-ldpy IBU: not installed")
    for run in contenders.values():
        run()  # warm-up
    times = interleaved(contenders, rounds)
    per_iter = {k: [t / iters[k] for t in v] for k, v in times.items() if iters[k]}
    peer = {
        label: summary(per_iter[label], IBU_ITERATIONS) if label in per_iter else (math.nan,) * 2
        for label in ("multi-freq-ldpy", PEER_SYMMETRIC)
    }
    rows = [ibu_row(key, per_iter, times, iters, peer, gap, rounds, peer_iters) for key in IBU_ENTRIES]
    for row in rows:
        print(
            f"  {row['oracle']}: median {row['ldp_median_s']:.4f} s per 10^4 iterations; {row['speedup']:.0f}× the peer"
        )
    return rows


def ibu_row(key, per_iter, times, iters, peer, gap, rounds, peer_iters) -> dict:
    name, target = IBU_ENTRIES[key]
    mn, md = summary(per_iter[key], IBU_ITERATIONS) if key in per_iter else summary(times[key])
    runs = f"{iters[key]} iterations per run, × {IBU_ITERATIONS}/{iters[key]}" if iters.get(key) else "one call per run"
    label, channel = "multi-freq-ldpy", "GRR channel"
    if key in BATCH_KEYS:
        steps = iters[key] // IBU_BATCH
        runs = f"{steps} iterations of {IBU_BATCH} rows per run, ÷ {IBU_BATCH} rows, × {IBU_ITERATIONS}/{steps}"
        label, channel = PEER_SYMMETRIC, "same random symmetric channel, one count vector"
    peer = peer[label]
    return {
        "group": "IBU",
        "task": f"IBU d={D}, {name}",
        "oracle": key,
        "n": N_IBU,
        "ldp_min_s": mn,
        "ldp_median_s": md,
        "pure-ldp_min_s": math.nan,
        "pure-ldp_median_s": math.nan,
        "multi-freq-ldpy_min_s": peer[0],
        "multi-freq-ldpy_median_s": peer[1],
        "multi-freq-ldpy_how": (
            f"dense d×d IBU ({channel}), {rounds} runs of {peer_iters} iterations, × {IBU_ITERATIONS}/{peer_iters}"
        ),
        "peer_gap_to_fixed_point": gap,
        "speedup": peer[1] / md,
        "speedup_min": peer[0] / mn,
        "target": f">= {target:g}× peer" if target else "(reference)",
        "how": f"interleaved, {rounds} rounds; {runs}",
        "met": None if target is None or math.isnan(peer[1]) else bool(peer[1] / md >= target),
    }


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


#: the columns summarised across processes: each process's median over its rounds (or its ratio of medians)
ACROSS = (
    "ldp_median_s",
    "floor_median_s",
    "pure-ldp_median_s",
    "multi-freq-ldpy_median_s",
    "speedup",
    "ldp_over_floor",
)


def across_processes(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per measurement: the median over processes of each process's value, with its range (lo, hi).

    ``met`` holds only if every process met the target; ``met_in`` says in how many processes it did.
    """
    rows = []
    for _, g in runs.groupby(["group", "task", "n"], sort=False):
        row = g.iloc[0].to_dict()
        for col in ACROSS:
            vals = g[col].dropna() if col in g else pd.Series(dtype=float)
            row[col], row[f"{col}_lo"], row[f"{col}_hi"] = (
                (vals.median(), vals.min(), vals.max()) if len(vals) else (math.nan,) * 3
            )
        mets = [bool(m) for m in g["met"] if not _isnan(m) and m is not None and m == m]
        row["met"] = all(mets) if mets else None
        row["met_in"] = f"{sum(mets)} of {len(mets)}" if mets else ""
        row["processes"] = len(g)
        rows.append(row)
    return pd.DataFrame(rows)


def _cell(r: dict, col: str, fmt: Callable[[float], str]) -> str:
    md = r.get(col, math.nan)
    if _isnan(md):
        return "-"
    lo, hi = r.get(f"{col}_lo", md), r.get(f"{col}_hi", md)
    return f"{fmt(md)} [{fmt(lo)}–{fmt(hi)}]"


def _ratio(v: float) -> str:
    return f"{v:,.0f}×" if v >= 10 else f"{v:.2f}×"


def markdown(df: pd.DataFrame) -> str:
    """The result table: medians across processes, their range in brackets; how each cell was measured last."""
    lines = [
        "| task | n | ldp | floor | ldp ÷ floor | pure-ldp | multi-freq-ldpy | speed-up vs faster peer "
        "| target | met (processes) | how measured (in each process) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in df.to_dict("records"):
        met = {True: "yes", False: "**no**"}.get(r.get("met"), "-")
        if r.get("met_in"):
            met += f" ({r['met_in']})"
        how = [str(r.get("how", ""))]
        for label in ("pure-ldp", "multi-freq-ldpy"):
            h = r.get(f"{label}_how")
            if isinstance(h, str) and h:
                how.append(f"{label}: {h}")
        if isinstance(r.get("floor_how"), str):
            how.append(f"floor: {r['floor_how']}")
        cells = [_cell(r, c, fmt_seconds) for c in ("ldp_median_s", "floor_median_s")]
        cells.append(_cell(r, "ldp_over_floor", _ratio))
        cells += [_cell(r, f"{p}_median_s", fmt_seconds) for p in ("pure-ldp", "multi-freq-ldpy")]
        cells.append(_cell(r, "speedup", _ratio))
        lines.append(
            f"| {r['task']} | {int(r['n']):.0e} | {' | '.join(cells)} | {r['target']} | {met} | {'; '.join(how)} |"
        )
    return "\n".join(lines)


#: the groups of rows; each runs in its own processes
GROUPS = ("GRR", "OUE", "OLH", "count", "IBU")


def run_group(group: str, quick: bool) -> list[dict]:
    """One process's measurements of one group (``--worker``)."""
    peers = load_peers() if group != "count" else {}
    if quick:
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
    if group == "count":
        return count_rows(100_000_000, rounds)
    if group == "IBU":
        return ibu_rows(peers, peer_iters, dense_iters, dense_iters // 5, rounds)
    # one full-n OUE run of each peer per process: three processes give the three full-n runs
    return per_user_rows(peers, sizes, subsample, rounds, full_n_oue=not quick, kinds=(group,), full_n_runs=1)


def run_processes(groups: list[str], processes: int, args: argparse.Namespace, tmp: Path) -> pd.DataFrame:
    """Run each group in ``processes`` fresh Python processes, one after another; their rows, with a process column."""
    frames = []
    for group in groups:
        for i in range(processes):
            out = tmp / f"{group}-{i}"
            print(f"\n[{group}] process {i + 1}/{processes} (load average {load_average()})", flush=True)
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", group, "--out", str(out)]
            cmd += ["--clock", args.clock] + (["--quick"] if args.quick else [])
            subprocess.run(cmd, check=True)
            frame = pd.read_csv(out / "latest.csv")
            frame["process"] = i + 1
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="n = 1e5 only, smaller peer subsamples, fewer rounds")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "results",
        help="directory for latest.csv, runs.csv and latest.md",
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
    ap.add_argument("--only-ibu", action="store_true", help="only the IBU group")
    ap.add_argument("--processes", type=int, default=3, help="independent processes per group (default 3)")
    ap.add_argument("--worker", choices=GROUPS, help=argparse.SUPPRESS)  # one process of one group
    args = ap.parse_args(argv)
    if args.per_user and not set(args.per_user.split(",")) <= {"GRR", "OUE", "OLH"}:
        ap.error(f"--per-user takes a comma-separated subset of GRR,OUE,OLH, got {args.per_user!r}")
    if args.processes < 1:
        ap.error(f"--processes must be >= 1, got {args.processes}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    global _clock
    _clock = CLOCK[args.clock]
    if args.worker:
        df = pd.DataFrame(run_group(args.worker, args.quick))
        df["clock"] = args.clock
        args.out.mkdir(parents=True, exist_ok=True)
        df.to_csv(args.out / "latest.csv", index=False)
        return 0
    groups = [] if args.only_ibu else [k for k in args.per_user.split(",") if k]
    groups += ["IBU"] if args.only_ibu else ([] if args.per_user_only else ["count", "IBU"])
    load_start, started = load_average(), time.perf_counter()
    print(f"{platform_line()}; load average {load_start}")
    with tempfile.TemporaryDirectory(prefix="ldp-bench-") as tmp:
        runs = run_processes(groups, args.processes, args, Path(tmp))
    load_end, elapsed = load_average(), time.perf_counter() - started
    df = across_processes(runs)
    args.out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(args.out / "runs.csv", index=False)
    df.to_csv(args.out / "latest.csv", index=False)
    text = report(df, args, load_start, load_end, elapsed)
    (args.out / "latest.md").write_text(text + "\n")
    print("\n" + text)
    print(f"\nwrote {args.out / 'runs.csv'} (every process), {args.out / 'latest.csv'} and {args.out / 'latest.md'}")
    return 0


def platform_line() -> str:
    return (
        f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"pure-ldp {version('pure-ldp')}, multi-freq-ldpy {version('multi-freq-ldpy')}, xxhash {version('xxhash')}"
    )


def report(df: pd.DataFrame, args: argparse.Namespace, load_start: str, load_end: str, elapsed: float) -> str:
    header = (
        f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {os.cpu_count()} CPUs (load average 1/5/15 min: "
        f"{load_start} at the start, {load_end} at the end; {elapsed / 60:.1f} min elapsed): {platform_line()}; "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; d = {D}, eps = {EPS:g}"
        f"{' (--quick)' if args.quick else ''}; clock: "
        f"{'CPU time of the benchmark process' if args.clock == 'cpu' else 'wall time'}; "
        f"each group run in {args.processes} independent processes, one after another."
    )
    note = (
        "Each process times its contenders in interleaved rounds and keeps the median over its rounds; a cell is "
        "the median of those per-process medians, with their range (lowest–highest process) in brackets. Speed-ups "
        "and ldp ÷ floor are computed within each process (ratio of its medians), then summarised the same way. "
        "'met' holds only if the target was met in every process."
    )
    gaps = df.get("peer_gap_to_fixed_point")
    if gaps is not None and gaps.notna().any():
        note += (
            f" After 10^4 iterations IBU is still {gaps.dropna().iloc[0]:.3f} (max abs) from the fixed "
            "point that grr_mle returns."
        )
    return header + "\n\n" + markdown(df) + "\n\n" + note


if __name__ == "__main__":
    sys.exit(main())
