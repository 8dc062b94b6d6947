"""Multi-class top-k item mining (Mao et al., Sec. VI-B, Algorithms 1-2, Table III).

Every miner takes the population as the ``c x d`` table of true counts (``table[C, I]`` users
hold class ``C`` and item ``I``), ``k``, ε and ``rng``, and returns a :class:`TopKResult` whose
``items`` is a ``c x k`` array: row ``C`` holds the ``k`` items mined for class ``C``, best first.
Users report **once**: they are partitioned into disjoint round groups and no budget is split
across rounds.

Two round primitives, both over a list of candidates:

* a **PEM round** (the baseline, Wang et al.'s prefix extending method as the authors
  implemented it in their top-k code): candidates are bit *suffixes* of length ``l``,
  a user's value is her item modulo ``2^l``, and the top ``K`` suffixes are extended by
  ``m_ext`` bits for the next round;
* a **shuffling round** (Sec. VI-B): the candidates are shuffled into ``B`` buckets
  (the last bucket takes the remainder), users report their bucket, and the items of
  the top ``keep`` buckets survive.

Users whose value is not among the candidates (or, for CP, whose label flipped) are
*invalid*: with ``invalid="replace"`` they report a uniformly random position (PEM's
rule), with ``invalid="vp"`` they set the validity flag (:class:`ldp.multiclass.VP`).
Rankings use raw counts, which is enough because calibration is increasing within a round.

Every miner has the option ``route`` (:mod:`ldp.multiclass.topk_engines`): ``"counts"`` (the
default) draws its round groups, labels and bucket counts exactly in distribution from the
table, in O(cells) per trial; ``"users"`` builds one user per unit of the table and groups and
perturbs them one by one (:meth:`ldp.oracles.GRR.perturb`, :meth:`ldp.oracles.OUE.perturb`), the
literal protocol, to check the count-level route against.  Both routes have the same law, not
the same random stream.  The schedules (round counts, PEM levels, the global stage, the b-test,
the result table) are written once, here, and drive either route's engine.

Miners (names as in the paper's figures):

===================  ==========================================================
``HEC``              users split into ``c`` groups, PEM(ε, K=k) per group
``PTJ``              PEM(ε, K=c·k) over the ``c·d`` joint domain, then per class
``PTJ+VP``           as PTJ with validity perturbation
``PTJ+Shuffling``    shuffling rounds over the joint domain, random replacement
``PTJ-S+VP``         shuffling + VP over the joint domain ("all optimisations")
``PTS``              GRR(ε/2) labels, PEM(ε/2, K=k) per reported class
``PTS+Global``       first half of the PEM rounds on a global sample (full ε)
``PTS+VP``           PTS with validity perturbation
``PTS+Shuffling``    shuffling rounds per reported class, random replacement
``PTS-opt``          Algorithms 1 + 2: global shuffling candidates, VP, CP in the
                     last round decided by the b-test ("PTS-Shuffling+VP+CP")
===================  ==========================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import as_generator, check_choice, check_domain_size, check_epsilon, check_int, check_probability
from ..metrics import f1_topk, ncr
from ..oracles import GRR
from .frameworks import check_table, split_budget
from .paper import ALG1_A, ALG2_B
from .topk_engines import ROUTES, _Stage, hec_class_miner, joint_rounds, population

__all__ = [
    "TopKResult",
    "iteration_counts",
    "pem_levels",
    "M_EXT",
    "true_topk",
    "score_topk",
    "hec_topk",
    "ptj_topk",
    "pts_topk",
    "pts_optimised_topk",
    "mine_topk",
    "METHODS",
    "ABLATION_PTJ",
    "ABLATION_PTS",
    "prefix_descent",
    "pairing_survival",
]


@dataclass
class TopKResult:
    """Mined items per class.

    Attributes
    ----------
    items : ndarray of int64, shape (c, k)
        Row ``C``: the items mined for class ``C``, best first.  ``-1`` marks an empty
        slot; only the joint (PTJ) miners can leave one, when fewer than ``k`` of the
        ``c·k`` pairs they keep belong to a class.
    rounds : int
        Number of rounds a user group of one class goes through (``IT`` for the
        shuffling miners, the PEM round count ``R`` otherwise).
    info : dict
        Miner-specific details (e.g. ``IT_f``, ``IT_r``, which classes used CP).
    """

    items: np.ndarray
    rounds: int
    info: dict = field(default_factory=dict)


#: bits added to the kept suffixes from one PEM round to the next, as in the authors' top-k code
M_EXT = 2


# ---------------------------------------------------------------------------- schedules
def iteration_counts(d: int, k: int) -> tuple[int, int, int]:
    """``(IT, IT_f, IT_r)`` of Algorithm 1: ``IT = ceil(log2(d/(4k))) + 1`` (at least 1),
    ``IT_f = int(IT/2)`` global rounds and ``IT_r = IT - IT_f`` per-class rounds.

    The paper prints ``log2(d/4k) + 1`` without the ceiling; the authors' code rounds up.
    """
    d = check_domain_size(d, "d", minimum=1)
    k = check_domain_size(k, "k", minimum=1)
    it = max(1, math.ceil(math.log2(d / (4 * k))) + 1)
    return it, it // 2, it - it // 2


def pem_levels(D: int, K: int, m_ext: int = M_EXT) -> list[int]:
    """Suffix lengths of the PEM rounds for a domain of ``D`` values keeping ``K`` per round.

    ``L`` = bit length of ``D - 1``; the first round uses ``s0 = floor(log2 K) + 1`` bits
    (all ``2^s0`` suffixes), each later round adds ``m_ext`` bits, the last reaches ``L``:
    ``R = 1 + ceil((L - s0)/m_ext)`` rounds (as in the authors' top-k code).
    """
    D = check_int(D, "D", minimum=2)
    K = check_domain_size(K, "K", minimum=1)
    m_ext = check_int(m_ext, "m_ext", minimum=1)
    L = (D - 1).bit_length()
    s0 = min(int(math.floor(math.log2(K))) + 1, L)
    rounds = 1 + math.ceil((L - s0) / m_ext)
    return [min(s0 + r * m_ext, L) for r in range(rounds)]


# ---------------------------------------------------------------------------- validation
def _check_sizes(c: int, d: int, k: int) -> tuple[int, int, int]:
    """Validate the class count ``c`` (>= 2), the item count ``d`` (>= 2) and ``k`` (1..d)."""
    c = check_domain_size(c, "c", minimum=2)
    d = check_domain_size(d, "d", minimum=2)
    k = check_domain_size(k, "k", minimum=1)
    if k > d:
        raise ValueError(f"k must be <= the number of items d={d}, got k={k}")
    return c, d, k


def _check(
    table: Any, k: int, epsilon: float, rng: Any, route: str
) -> tuple[np.ndarray, int, float, np.random.Generator]:
    """A miner's validated ``(table, k, epsilon, generator)``: a table of ``c >= 2`` classes, ``d >= 2`` items and at
    least one user, ``k`` in ``1..d``, a valid ε and a route of :data:`ldp.multiclass.topk_engines.ROUTES`."""
    tab = check_table(table)
    k = _check_sizes(*tab.shape, k)[2]
    eps = check_epsilon(epsilon)
    check_choice(route, ROUTES, "route")
    return tab, k, eps, as_generator(rng)


def _split_per_class(joint_ranked: np.ndarray, c: int, d: int, k: int) -> np.ndarray:
    """Walk joint values best first and give each class its first ``k`` items; pad with -1."""
    out = np.full((c, k), -1, dtype=np.int64)
    fill = np.zeros(c, dtype=np.int64)
    for v in joint_ranked:
        C, I = divmod(int(v), d)
        if fill[C] < k:
            out[C, fill[C]] = I
            fill[C] += 1
    return out


def _pad(kept: np.ndarray, k: int) -> np.ndarray:
    out = np.full(k, -1, dtype=np.int64)
    out[: min(k, kept.size)] = kept[:k]
    return out


def _mine_rows(c: int, k: int, mine: Callable[[int], np.ndarray]) -> np.ndarray:
    """The ``c x k`` table of a miner that mines every class on its own: row ``C`` is ``mine(C)`` padded with -1."""
    out = np.empty((c, k), dtype=np.int64)
    for C in range(c):
        out[C] = _pad(mine(C), k)
    return out


# ---------------------------------------------------------------------------- schedules shared by both engines
def _shuffle_to_k(rounds: Any, groups: Any, cands: np.ndarray, keep: int, last_valid: Any = None) -> np.ndarray:
    """Shuffling rounds over ``groups`` ending with exactly ``keep`` candidates (Sec. VI-B).

    Every group but the last runs a round of ``4·keep`` buckets keeping ``2·keep``; the last
    group runs a round of singletons keeping ``keep``, where ``last_valid`` (CP's rule, in the
    engine's form) may make more users invalid.
    """
    kept = cands
    if len(groups) > 1:
        kept = rounds.shuffle(groups[:-1], kept, [(4 * keep, 2 * keep)] * (len(groups) - 1))
    return rounds.shuffle(groups[-1:], kept, [(max(1, kept.size), keep)], last_valid)


def _ptj_mine(rounds: Any, c: int, d: int, k: int, shuffling: bool, m_ext: int) -> TopKResult:
    """PTJ's schedule on the joint domain (value ``C·d + item``) with the engine ``rounds``; see :func:`ptj_topk`."""
    D, K = c * d, c * k
    if shuffling:
        it = iteration_counts(D, K)[0]
        kept = _shuffle_to_k(rounds, rounds.groups(it), np.arange(D, dtype=np.int64), K)
        n_rounds, info = it, {"IT": it}
    else:
        levels = pem_levels(D, K, m_ext)
        kept = rounds.pem(rounds.groups(len(levels)), levels, K)
        n_rounds, info = len(levels), {"levels": levels}
    out = _split_per_class(kept, c, d, k)
    info["empty_slots"] = int(np.count_nonzero(out < 0))
    return TopKResult(out, n_rounds, info)


def _pts_mine(
    population: Any,
    c: int,
    d: int,
    k: int,
    shuffling: bool,
    use_global: bool,
    a: float,
    m_ext: int,
    global_stage: Any,
    class_stage: Any,
) -> TopKResult:
    """PTS's schedule (see :func:`pts_topk`) on a population of users or of counts.

    ``population.global_sample(a, stage)`` cuts off the global sample (an engine and, unused here,
    its reported labels); ``population.classes(stage)`` then gives one engine per reported class.
    """
    info: dict[str, Any] = {}
    start_cands, start_len, class_levels = None, 0, pem_levels(d, k, m_ext)
    if use_global:
        a = check_probability(a, "a", open_low=True, open_high=True)
        g_levels = pem_levels(d, c * k, m_ext)
        h = len(g_levels) // 2
        sample, _ = population.global_sample(a, global_stage)
        if h >= 1:
            start_cands = sample.pem(sample.groups(h), g_levels[:h], c * k)
            info["global_levels"], class_levels, start_len = g_levels[:h], g_levels[h:], g_levels[h - 1]
    if shuffling:
        it = info["IT"] = iteration_counts(d, k)[0]
    classes = population.classes(class_stage)

    def mine(C: int) -> np.ndarray:
        rounds = classes[C][0]
        if shuffling:
            return _shuffle_to_k(rounds, rounds.groups(it), np.arange(d, dtype=np.int64), k)
        return rounds.pem(rounds.groups(len(class_levels)), class_levels, k, start_cands, start_len)

    out = _mine_rows(c, k, mine)
    return TopKResult(out, info.get("IT", len(class_levels) + len(info.get("global_levels", []))), info)


def _pts_opt_mine(
    population: Any,
    c: int,
    d: int,
    k: int,
    a: float,
    b: float | None,
    use_global: bool,
    use_cp: bool,
    dprime_factor: float,
    grr: GRR,
    stage: Any,
) -> TopKResult:
    """Algorithms 1 and 2 (see :func:`pts_optimised_topk`) on a population of users or of counts.

    ``population`` perturbs the labels with ``grr``; its global sample reports its labels, whose
    calibrated counts are the class sizes ``n^_S`` of the b-test.
    """
    it, it_f, it_r = iteration_counts(d, k)
    if not use_global:
        it_f, it_r = 0, it
    info: dict[str, Any] = {"IT": it, "IT_f": it_f, "IT_r": it_r}
    cands = np.arange(d, dtype=np.int64)
    n_hat_s = None
    if it_f > 0:
        a = check_probability(a, "a", open_low=True, open_high=True)
        sample, reported = population.global_sample(a, stage)
        n_hat_s = (reported - sample.size * grr.q) / (grr.p - grr.q)
        cands = sample.shuffle(sample.groups(it_f), cands, [(4 * k * c, 2 * k * c)] * it_f)
        info["global_candidates"] = int(cands.size)
    cp_limit = _cp_limits(c, use_cp, b, dprime_factor, n_hat_s)
    cp_used = np.zeros(c, dtype=bool)
    classes = population.classes(stage)

    def mine(C: int) -> np.ndarray:
        rounds, cp_rule = classes[C]
        cp_used[C] = not (rounds.size > cp_limit[C])
        return _shuffle_to_k(rounds, rounds.groups(it_r), cands, k, cp_rule if cp_used[C] else None)

    out = _mine_rows(c, k, mine)
    info["cp_used"] = cp_used
    return TopKResult(out, it, info)


def _check_cp_test(b: float | None, dprime_factor: float) -> None:
    """Validate the b-test's ``b`` (finite > 0 or None) and ``dprime_factor`` (finite > 0)."""
    if b is not None and not (np.isfinite(b) and b > 0):
        raise ValueError(f"b must be a finite number > 0 or None, got {b!r}")
    if not (np.isfinite(dprime_factor) and dprime_factor > 0):
        raise ValueError(f"dprime_factor must be finite and > 0, got {dprime_factor!r}")


def _cp_limits(c: int, use_cp: bool, b: float | None, dprime_factor: float, n_hat_s: np.ndarray | None) -> np.ndarray:
    """Per class, the largest ``|R_C|`` that uses CP: ``b · D'_C`` (the b-test), +inf (always CP) or -inf (never)."""
    if not use_cp:
        return np.full(c, -np.inf)
    if b is None or n_hat_s is None:
        return np.full(c, np.inf)
    return b * dprime_factor * n_hat_s


# ---------------------------------------------------------------------------- HEC
def hec_topk(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    invalid: str = "replace",
    m_ext: int = M_EXT,
    route: str = "counts",
) -> TopKResult:
    """HEC: users split at random into ``c`` groups; group ``j`` runs PEM(ε, K=k) for class ``j``,
    treating users of other classes as invalid (random replacement by default)."""
    tab, k, eps, gen = _check(table, k, epsilon, rng, route)
    return _hec(tab, k, m_ext, _Stage(eps, invalid, route, gen), route, gen)


def _hec(tab: np.ndarray, k: int, m_ext: int, stage: Any, route: str, gen: np.random.Generator) -> TopKResult:
    """HEC's schedule with the round step ``stage`` (OUE, or the model of a script in :mod:`ldp.multiclass.authors`)."""
    levels = pem_levels(tab.shape[1], k, m_ext)
    mine = hec_class_miner(tab, k, levels, stage, route, gen)
    return TopKResult(_mine_rows(tab.shape[0], k, mine), len(levels), {"levels": levels})


# ---------------------------------------------------------------------------- PTJ
def ptj_topk(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    shuffling: bool = False,
    invalid: str = "replace",
    m_ext: int = M_EXT,
    route: str = "counts",
) -> TopKResult:
    """PTJ: mine the top ``K = c·k`` pairs of the joint domain (value ``C·d + item``), then split them by class.

    ``shuffling=False``: PEM rounds (``PTJ``, ``PTJ+VP``).  ``shuffling=True``:
    ``IT = ceil(log2(c·d/(4K))) + 1`` shuffling rounds with ``B = 4K`` buckets keeping
    ``2K``, and a final round of singletons keeping ``K`` (``PTJ+Shuffling``,
    ``PTJ-S+VP``).  The kept pairs are walked best first and each class takes its first
    ``k`` (slots left empty are ``-1``).
    """
    tab, k, eps, gen = _check(table, k, epsilon, rng, route)
    rounds = joint_rounds(tab, route, _Stage(eps, invalid, route, gen), gen)
    return _ptj_mine(rounds, *tab.shape, k, shuffling, m_ext)


# ---------------------------------------------------------------------------- PTS baselines
def pts_topk(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    invalid: str = "replace",
    shuffling: bool = False,
    use_global: bool = False,
    a: float = ALG1_A,
    epsilon1: float | None = None,
    epsilon2: float | None = None,
    m_ext: int = M_EXT,
    route: str = "counts",
) -> TopKResult:
    """PTS baselines and single-optimisation variants (Table III).

    Labels go through GRR(ε1) once; users are grouped by *reported* label and each
    class is mined from its group with the item budget ε2.

    * ``shuffling=False, use_global=False``: ``PTS`` (PEM per class; ``invalid="vp"``: ``PTS+VP``);
    * ``shuffling=True``: ``PTS+Shuffling``: ``IT`` rounds of ``4k`` buckets keeping
      ``2k``, final round of singletons keeping ``k``;
    * ``use_global=True``: ``PTS+Global``: a random fraction ``a`` of the users
      (who report no label, so their item gets the full ε) runs
      the first half of the PEM levels for ``K = c·k``; each class
      continues from those suffixes with its own users.
    """
    tab, k, eps, gen = _check(table, k, epsilon, rng, route)
    e1, e2 = split_budget(eps, epsilon1, epsilon2)
    users = population(tab, route, GRR(e1, tab.shape[0]), gen, labels_first=False)
    global_stage, class_stage = _Stage(eps, invalid, route, gen), _Stage(e2, invalid, route, gen)
    return _pts_mine(users, *tab.shape, k, shuffling, use_global, a, m_ext, global_stage, class_stage)


# ---------------------------------------------------------------------------- PTS optimised (Alg. 1 + 2)
def pts_optimised_topk(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    a: float = ALG1_A,
    b: float | None = ALG2_B,
    use_global: bool = True,
    use_cp: bool = True,
    dprime_factor: float = 2.0,
    epsilon1: float | None = None,
    epsilon2: float | None = None,
    route: str = "counts",
) -> TopKResult:
    """PTS-Shuffling+VP+CP, Algorithms 1 and 2 of Mao et al. ("PTS-opt").

    1. Every user perturbs her label once with GRR(ε1) and knows whether it flipped.
    2. Algorithm 1 (``use_global=True``): a random fraction ``a`` of the users runs
       ``IT_f = int(IT/2)`` shuffling rounds over all items with ``B = 4kc`` buckets,
       keeping ``2kc``, items by VP(ε2); their reported labels give the class sizes
       ``n^_S``.
    3. Algorithm 2, per class ``C``, with the remaining users whose *reported* label is
       ``C``: ``IT_r`` shuffling rounds with ``4k`` buckets keeping ``2k`` and VP(ε2), then
       a final round with one candidate per bucket keeping exactly ``k``.  In that last
       round a user whose label flipped is invalid (CP), unless the b-test switches CP
       off: CP is used when ``|R_C| <= b · D'_C`` with ``D'_C = dprime_factor · n^_S[C]``
       (the factor 2 comes from the authors' code; the paper only says "estimated class
       size").  ``b=None`` always uses CP (the SYN4 and Fig. 11 runs).

    ``use_global=False`` skips Algorithm 1 (all ``IT`` rounds per class); ``use_cp=False``
    never uses CP.  At count level the global sample is drawn from the true table first and
    the labels perturbed afterwards (the reports are independent of the random order).
    """
    tab, k, eps, gen = _check(table, k, epsilon, rng, route)
    e1, e2 = split_budget(eps, epsilon1, epsilon2)
    _check_cp_test(b, dprime_factor)
    grr = GRR(e1, tab.shape[0])
    users = population(tab, route, grr, gen, labels_first=True)
    stage = _Stage(e2, "vp", route, gen)
    return _pts_opt_mine(users, *tab.shape, k, a, b, use_global, use_cp, dprime_factor, grr, stage)


# ---------------------------------------------------------------------------- truth, scores, registry
def true_topk(table: Any, k: int) -> np.ndarray:
    """The true top-``k`` items of every class (``c x k``), ties broken by the smaller item id."""
    tab = check_table(table)
    k = check_int(k, "k", minimum=1, maximum=tab.shape[1])
    return np.argsort(-tab, axis=1, kind="stable")[:, :k]


def score_topk(found: Any, truth: Any) -> dict[str, np.ndarray | float]:
    """F1 and NCR per class and averaged over classes (``ldp.metrics.f1_topk``, ``ldp.metrics.ncr``).

    ``-1`` slots are empty and dropped; a class with nothing mined scores 0.
    """
    F = np.asarray(found)
    T = np.asarray(truth)
    if F.ndim != 2 or T.ndim != 2 or F.shape[0] != T.shape[0]:
        raise ValueError(f"found and truth must be (c, k) arrays with the same c, got {F.shape} and {T.shape}")
    f1 = np.array([f1_topk(F[C][F[C] >= 0], T[C]) for C in range(T.shape[0])])
    nc = np.array([ncr(F[C][F[C] >= 0], T[C]) for C in range(T.shape[0])])
    return {"f1": float(f1.mean()), "ncr": float(nc.mean()), "f1_per_class": f1, "ncr_per_class": nc}


def _m(fn: Callable[..., TopKResult], **fixed: Any) -> Callable[..., TopKResult]:
    """``fn`` with the options ``fixed`` set (options passed at the call override them)."""

    def run(*args: Any, **kw: Any) -> TopKResult:
        return fn(*args, **{**fixed, **kw})

    run.__doc__ = f"{fn.__name__} with {fixed}"
    return run


#: every miner by name with its fixed options: the five methods of Figs 7-10, then the columns of
#: Table III ("PTJ:<col>", "PTS:<col>"; each column adds one optimisation to the baseline)
_REGISTRY: dict[str, Callable[..., TopKResult]] = {
    "HEC": _m(hec_topk),
    "PTJ": _m(ptj_topk),
    "PTJ-S+VP": _m(ptj_topk, shuffling=True, invalid="vp"),
    "PTS": _m(pts_topk),
    "PTS-opt": _m(pts_optimised_topk),
    "PTJ:Baseline": _m(ptj_topk),
    "PTJ:+VP": _m(ptj_topk, invalid="vp"),
    "PTJ:+Shuffling": _m(ptj_topk, shuffling=True),
    "PTJ:All": _m(ptj_topk, shuffling=True, invalid="vp"),
    "PTS:Baseline": _m(pts_topk),
    "PTS:+Global": _m(pts_topk, use_global=True),
    "PTS:+VP": _m(pts_topk, invalid="vp"),
    "PTS:+Shuffling": _m(pts_topk, shuffling=True),
    "PTS:All": _m(pts_optimised_topk),
}
#: the five methods of Figs 7-10
METHODS: dict[str, Callable[..., TopKResult]] = {n: f for n, f in _REGISTRY.items() if ":" not in n}
#: Table III, PTJ half: each column adds one optimisation to the baseline
ABLATION_PTJ: dict[str, Callable[..., TopKResult]] = {n[4:]: f for n, f in _REGISTRY.items() if n.startswith("PTJ:")}
#: Table III, PTS half
ABLATION_PTS: dict[str, Callable[..., TopKResult]] = {n[4:]: f for n, f in _REGISTRY.items() if n.startswith("PTS:")}


def mine_topk(method: str, table: Any, k: int, epsilon: float, rng: Any = None, **options: Any) -> TopKResult:
    """Run a miner by name (a key of :data:`METHODS`, or ``"PTJ:<col>"`` / ``"PTS:<col>"`` for Table III).

    ``options`` are the miner's keyword options (they override the name's fixed ones), e.g. ``route="users"``.
    """
    if not isinstance(method, str) or method not in _REGISTRY:
        raise ValueError(f"method must be one of {list(_REGISTRY)}, got {method!r}")
    return _REGISTRY[method](table, k, epsilon, rng, **options)


# ---------------------------------------------------------------------------- Fig. 3: why prefixes mislead
def prefix_descent(counts: Any) -> list[int]:
    """Noise-free top-1 search down a prefix trie (Fig. 3 of Mao et al.).

    ``counts[v]`` is the count of the item whose binary code is ``v`` (``2^L`` items);
    at every level the heavier of the two child prefixes is followed (ties: the 0
    child).  Returns the visited prefixes as integers, the last one an item.
    """
    c = np.asarray(counts, dtype=float)
    L = int(round(math.log2(c.size)))
    if c.ndim != 1 or 2**L != c.size or L < 1:
        raise ValueError(f"counts must have a power-of-two length >= 2, got shape {c.shape}")
    path, prefix = [], 0
    for level in range(1, L + 1):
        width = L - level
        kids = [(prefix << 1) | b for b in (0, 1)]
        mass = [c[(kid << width) : ((kid + 1) << width)].sum() for kid in kids]
        prefix = kids[int(mass[1] > mass[0])]
        path.append(prefix)
    return path


def pairing_survival(counts: Any, target: int, keep: int = 2) -> tuple[int, int]:
    """Exact odds that ``target`` survives one noise-free shuffling round with buckets of two.

    Enumerates every way to pair the ``2m`` items into ``m`` unordered buckets, keeps the
    ``keep`` buckets with the largest sums and counts the pairings in which ``target``'s
    bucket is kept (a tie at the cut counts as kept only if ``target``'s bucket wins it for
    every order, i.e. ties are resolved against the target).  Returns
    ``(favourable pairings, all pairings)``; for Fig. 3 that is 91 of 105.
    """
    c = [float(x) for x in np.asarray(counts).ravel()]
    if len(c) % 2 or len(c) < 2:
        raise ValueError(f"counts must have an even length >= 2, got {len(c)}")
    target = check_int(target, "target", minimum=0, maximum=len(c) - 1)

    def pairings(items: list[int]):
        if not items:
            yield []
            return
        first = items[0]
        for j in range(1, len(items)):
            rest = items[1:j] + items[j + 1 :]
            for tail in pairings(rest):
                yield [(first, items[j])] + tail

    good = total = 0
    for buckets in pairings(list(range(len(c)))):
        total += 1
        sums = [c[a] + c[b] for a, b in buckets]
        mine = next(i for i, (a, b) in enumerate(buckets) if target in (a, b))
        better = sum(1 for i, s in enumerate(sums) if i != mine and s >= sums[mine])
        good += better < keep
    return good, total
