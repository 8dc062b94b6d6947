"""Algorithm 4 of Xue et al.: the multi-round CLLDP protocol that grows the collector's tree.

:func:`clldp_tree` is a short driver over named steps, each a function of its own:

* :func:`first_round_parameters` -- ``k`` and ω of every attribute for round 1;
* :func:`choose_attributes` -- every user draws the attribute she adds this round from the
  candidate set of her public state (:func:`candidates_covering`, :func:`candidates_literal`);
* :func:`extend_combinations` -- who changes combination (the movers) and to what;
* :func:`previous_estimate_beliefs` -- the paper's belief update from the pooled estimates;
* :func:`set_identifiers` and :func:`report_groups` -- the groups of users that share
  combination, ``k``, ω and budget, each one kHR (or basic) report group of the :class:`JointPool`;
* :func:`grow_frontier` -- the collector decides the nodes of the round.

Users' attribute combinations are bitmasks (bit ``a`` set when attribute ``a`` is in the
combination) in one int64 array, so every per-user step is a vector operation; the random
draws, their order and the order in which groups enter the pool are those of a per-user
loop over users in index order, so the outputs do not depend on this representation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ..._checks import as_generator, check_epsilon, check_int
from ..accounting import BUDGET_RULES, LeakageLedger
from ..basic import BasicSolution
from ..kchoice import resolve_k
from ..khr import KHR, approx_n_variance
from ..omega import conditional_from_joint, omega_curve
from .nodes import TreeNode, decide
from .pool import JointPool, node_stats

__all__ = [
    "CANDIDATE_RULES",
    "OMEGA_UPDATES",
    "MAX_ATTRIBUTES",
    "CLLDPTreeResult",
    "clldp_tree",
    "attrs_of_mask",
    "mask_frozensets",
    "groups_by_first_appearance",
    "candidates_covering",
    "candidates_literal",
    "first_round_parameters",
    "choose_attributes",
    "extend_combinations",
    "previous_estimate_beliefs",
    "set_identifiers",
    "report_groups",
    "grow_frontier",
]

CANDIDATE_RULES = ("covering", "literal")
OMEGA_UPDATES = ("first_round", "previous_estimate")
#: attribute combinations are bits of an int64
MAX_ATTRIBUTES = 62
_MIN_EPS = 1e-9  # budgets below this are treated as "no report"


# ---------------------------------------------------------------------------- combinations as bitmasks
def attrs_of_mask(mask: int) -> tuple[int, ...]:
    """The sorted attributes of a bitmask: ``attrs_of_mask(0b101) == (0, 2)``."""
    mask = int(mask)
    return tuple(a for a in range(mask.bit_length()) if mask >> a & 1)


def mask_frozensets(masks: np.ndarray) -> list[frozenset]:
    """Every entry of ``masks`` as a frozenset of attributes (one object per distinct mask)."""
    uniq, inverse = np.unique(masks, return_inverse=True)
    objects = np.empty(uniq.size, dtype=object)
    for i, m in enumerate(uniq):
        objects[i] = frozenset(attrs_of_mask(m))
    return list(objects[inverse.ravel()])


def groups_by_first_appearance(keys: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """``[(key, positions)]`` for every distinct key, in order of first appearance; positions ascending."""
    keys = np.asarray(keys).ravel()
    # one stable sort: equal keys stay in index order, so each run starts at the key's first appearance
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if keys.size else np.zeros(0, np.int64)
    bounds = np.r_[starts, keys.size]
    return [(ordered[starts[g]], order[bounds[g] : bounds[g + 1]]) for g in np.argsort(order[starts], kind="stable")]


# ---------------------------------------------------------------------------- candidate rules
def candidates_covering(s: frozenset, paths: list[frozenset], t: int) -> list[int]:
    """``"covering"``: attributes completing an undecided node's path, any new one once a path is covered."""
    sc = set()
    for P in paths:
        missing = P - s
        if len(missing) == 1:
            sc |= missing
        elif not missing:
            sc |= set(range(t)) - s
    if not sc:
        sc = set(range(t)) - s
    return sorted(sc)


def candidates_literal(sl: tuple, branches: list[tuple], t: int) -> list[int]:
    """``"literal"``: the multiset reading of Sec. 6.1 (``|SL - B_h| = 1``, extra attribute off the branch)."""
    sc = set()
    have = Counter(sl)
    for B in branches:
        diff = have - Counter(B)
        if sum(diff.values()) == 1:
            extra = next(iter(diff))
            if extra not in B:
                sc.add(B[-1])
    if not sc:
        sc = set(range(t)) - set(sl)
    return sorted(sc)


# ---------------------------------------------------------------------------- protocol steps
def first_round_parameters(
    sizes: Sequence[int], m_label: int, eps1: float, k: Any, omega_fns: Sequence[Callable[[int], float]], basic: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` and ω of each attribute in round 1 (kHR on ``m^c m^l`` at ``ε_1``); 0 and 1 for the basic solution."""
    t = len(sizes)
    k_attr = np.zeros(t, dtype=np.int64)
    w_attr = np.ones(t)
    if not basic:
        for c in range(t):
            k_attr[c] = resolve_k(k, eps1, sizes[c] * m_label, omega_fns[c])
            w_attr[c] = omega_fns[c](int(k_attr[c]))
    return k_attr, w_attr


def choose_attributes(
    state: np.ndarray, candidates_of: Callable[[int], list[int]], gen: np.random.Generator
) -> np.ndarray:
    """Every user's added attribute, uniform over the candidates of her public state (-1: none left).

    ``state`` is an integer key per user; ``candidates_of(i)`` gives the candidates of the state
    of user ``i``.  One draw of ``gen.integers`` per distinct state, states in order of first
    appearance, users of a state in index order.
    """
    choice = np.empty(state.size, dtype=np.int64)
    for _, members in groups_by_first_appearance(state):
        sc = candidates_of(int(members[0]))
        choice[members] = np.asarray(sc)[gen.integers(0, len(sc), size=members.size)] if sc else -1
    return choice


def extend_combinations(masks: np.ndarray, choice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(movers, new masks)``: the users whose chosen attribute is new to them, and their grown combinations."""
    ok = choice >= 0
    bit = np.left_shift(np.int64(1), np.where(ok, choice, 0))
    movers = np.flatnonzero(ok & ((masks & bit) == 0))
    return movers, masks[movers] | bit[movers]


def previous_estimate_beliefs(
    pool: JointPool, masks: np.ndarray, k: np.ndarray, w_prev: np.ndarray, m_label: int
) -> np.ndarray:
    """Sec. 7.3's update: Def. 5 on the pooled estimate of each mover's previous combination, capped by ``w_prev``.

    Pooled estimates are built in order of first appearance of ``(combination, k)`` among the
    movers (building one draws its reports from the protocol's generator).
    """
    _, mask_id = np.unique(masks, return_inverse=True)
    key = mask_id.ravel().astype(np.int64) * (int(k.max()) + 1) + k
    w_new = w_prev.copy()
    for _, members in groups_by_first_appearance(key):
        j = members[0]
        J = pool.marginal(attrs_of_mask(masks[j]))
        est = (
            1.0
            if J is None
            else float(omega_curve(conditional_from_joint(J.reshape(m_label, -1)), np.array([int(k[j])]))[0])
        )
        w_new[members] = np.minimum(w_new[members], est)
    return w_new


def set_identifiers(masks: np.ndarray, ids: dict[int, int]) -> np.ndarray:
    """A persistent id per combination, new combinations numbered in order of first appearance."""
    uniq, first, inverse = np.unique(masks, return_index=True, return_inverse=True)
    for m in uniq[np.argsort(first, kind="stable")]:
        ids.setdefault(int(m), len(ids))
    return np.array([ids[int(m)] for m in uniq], dtype=np.int64)[inverse.ravel()]


def report_groups(*columns: np.ndarray) -> list[np.ndarray]:
    """Positions of the users sharing every column's value, groups in lexicographic order of the columns.

    Within a group positions are ascending.  Equivalent to ``np.unique(np.column_stack(columns),
    axis=0)`` with its inverse, at the cost of one ``lexsort``.
    """
    order = np.lexsort(columns[::-1])
    change = np.zeros(order.size, dtype=bool)
    if order.size:
        change[0] = True
    for col in columns:
        s = col[order]
        change[1:] |= s[1:] != s[:-1]
    return np.split(order, np.flatnonzero(change)[1:])


def grow_frontier(pool: JointPool, frontier: list[TreeNode], t: int, dep: int, fallback: np.ndarray) -> list[TreeNode]:
    """The collector decides every frontier node from the pooled estimates; returns the next frontier."""
    nxt: list[TreeNode] = []
    for nd in frontier:
        stats, totals = node_stats(pool, nd, t)
        nxt += decide(nd, stats, totals, dep, fallback)
    return nxt


# ---------------------------------------------------------------------------- one run
@dataclass
class CLLDPTreeResult:
    """The tree and the per-user accounting of one run of Algorithm 4."""

    root: TreeNode
    ledger: LeakageLedger
    k: np.ndarray
    rounds: int
    groups_per_round: list = field(default_factory=list)
    sets: list = field(default_factory=list)  # per round, every user's combination after that round
    masks: np.ndarray | None = None  # the same as bitmasks, shape (rounds, n)


@lru_cache(maxsize=4096)
def _group_mechanism(basic: bool, e: float, w: float, kk: int, m_s: int, m_label: int) -> tuple:
    """A report group's mechanism, the sampler its reports are drawn with and ``n Var`` of its estimate.

    Groups of one run (and of the runs of one process) share few distinct parameter sets, so each
    is built once: the objects hold no random state (the protocol's generator is passed to them).
    """
    if basic:
        mech = BasicSolution(e, m_s, m_label)
        sampler = mech
    else:
        mech = KHR(e, w, min(kk, m_s * m_label - 1), m_s, m_label)
        sampler = mech.as_subset_selection()  # KHR.perturb_and_count draws with this very object
    return mech, sampler, approx_n_variance(mech.p, mech.q)


@dataclass
class _Reports:
    """Registers report groups into the pool and charges the ledger (the user side of one run)."""

    X: np.ndarray
    y: np.ndarray
    sizes: tuple
    m_label: int
    basic: bool
    gen: np.random.Generator
    pool: JointPool
    ledger: LeakageLedger
    k_user: np.ndarray
    set_ids: dict = field(default_factory=dict)

    def register(self, rows: np.ndarray, attrs: tuple, kk: int, w: float, e: float) -> None:
        """One group's reports (drawn lazily, when a query first needs the combination)."""
        X, y, sizes, m_label, gen = self.X, self.y, self.sizes, self.m_label, self.gen
        attr_sizes = tuple(sizes[a] for a in attrs)
        m_s = int(np.prod(attr_sizes))
        mech, sampler, n_var = _group_mechanism(self.basic, e, w, kk, m_s, m_label)
        n_rows = rows.size
        basic = self.basic

        def build():
            # the users' codes were checked when the tree was fitted: x = label * m_s + (flat index of the
            # combination's values), as mech.encode(combination_codes(...), y) gives, without re-checking
            x = y[rows] * m_s + np.ravel_multi_index(tuple(X[rows, a] for a in attrs), attr_sizes)
            if basic:
                counts = mech.simulate_counts(np.bincount(x, minlength=mech.m), gen)
                return mech.estimate_counts(counts, n_rows)
            # per-user reports counted chunk by chunk (the same draws as perturb); the pool holds this
            # combination densely (m cells) anyway, and the non-zero cells in ascending order are
            # what np.unique of the reports would give
            dense = sampler.perturb_and_count(x, gen)
            idx = np.flatnonzero(dense)
            cnt = dense[idx]
            scale = 1.0 / (n_rows * (mech.p - mech.q))
            return idx, cnt * scale, -mech.q / (mech.p - mech.q)

        self.pool.add_group(attrs, n_rows / n_var, build)

    def round(self, r: int, rows: np.ndarray, masks: np.ndarray, w: np.ndarray) -> tuple[int, np.ndarray]:
        """Budgets by Eq. (15), then one report group per (combination, k, ω, ε_r); returns (#groups, reporters)."""
        e = self.ledger.budget(r, rows, w)
        go = e > _MIN_EPS
        rows, e, w, masks = rows[go], e[go], w[go], masks[go]
        if rows.size == 0:
            return 0, rows
        sid = set_identifiers(masks, self.set_ids)
        k = self.k_user[rows]
        groups = report_groups(sid, k, w, e)
        for members in groups:
            j = members[0]
            self.register(rows[members], attrs_of_mask(masks[j]), int(k[j]), float(w[j]), float(e[j]))
        self.ledger.charge(r, rows, e, w)
        return len(groups), rows


def _check_protocol(
    epsilon: Any, dep: Any, mechanism: Any, budget_rule: Any, omega_update: Any, candidate_rule: Any, t: int
) -> tuple[float, int]:
    eps = check_epsilon(epsilon)
    dep = check_int(dep, "dep", minimum=1)
    if mechanism not in ("khr", "basic"):
        raise ValueError(f"mechanism must be 'khr' or 'basic', got {mechanism!r}")
    for name, val, allowed in (
        ("budget_rule", budget_rule, BUDGET_RULES),
        ("omega_update", omega_update, OMEGA_UPDATES),
        ("candidate_rule", candidate_rule, CANDIDATE_RULES),
    ):
        if val not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
    if t > MAX_ATTRIBUTES:
        raise ValueError(f"X must have at most {MAX_ATTRIBUTES} attributes (columns), got {t}")
    return eps, dep


def clldp_tree(
    X: np.ndarray,
    y: np.ndarray,
    sizes: Sequence[int],
    m_label: int,
    epsilon: float,
    dep: int,
    mechanism: str,
    k: Any,
    omega_fns: Sequence[Callable[[int], float]],
    rng: Any = None,
    *,
    budget_rule: str = "remaining_even",
    omega_update: str = "first_round",
    candidate_rule: str = "covering",
    combine: str = "inverse_variance",
) -> CLLDPTreeResult:
    """Algorithm 4: multi-round CART under CLLDP (``mechanism`` = ``"khr"`` or ``"basic"``)."""
    n, t = X.shape
    eps, dep = _check_protocol(epsilon, dep, mechanism, budget_rule, omega_update, candidate_rule, t)
    gen = as_generator(rng)
    sizes = tuple(int(s) for s in sizes)
    basic = mechanism == "basic"
    pool = JointPool(sizes, m_label, combine)
    ledger = LeakageLedger(n, eps, dep, budget_rule)

    # round 1: one attribute per user; k fixed per user from here on
    first = gen.integers(0, t, size=n)
    k_attr, w_attr = first_round_parameters(sizes, m_label, eps / dep, k, omega_fns, basic)
    rep = _Reports(X, y, sizes, m_label, basic, gen, pool, ledger, k_attr[first])
    masks = np.left_shift(np.int64(1), first.astype(np.int64))
    seq = first.astype(np.int64)  # literal rule: id of each user's sequence of draws
    seq_tuples = {int(c): (int(c),) for c in range(t)}
    n_g, _ = rep.round(1, np.arange(n), masks, w_attr[first])
    groups_per_round = [n_g]
    history = [masks]
    root = TreeNode(1)
    fallback = np.full(m_label, 1.0 / m_label)
    stats, totals = node_stats(pool, root, t)
    if totals is not None and totals.sum() > 0:
        fallback = np.clip(totals, 0, None) / np.clip(totals, 0, None).sum()
    frontier = decide(root, stats, totals, dep, fallback)
    rounds = 1
    for r in range(2, dep + 1):
        if not frontier:
            break
        rounds = r
        choice, seq, seq_tuples = _round_choices(candidate_rule, frontier, masks, seq, seq_tuples, t, gen)
        masks, n_g = _extension_round(r, masks, choice, rep, omega_update)
        groups_per_round.append(n_g)
        history.append(masks)
        frontier = grow_frontier(pool, frontier, t, dep, fallback)
    for nd in frontier:  # only reachable when rounds stop early
        nd.make_leaf(None, fallback)
    return CLLDPTreeResult(
        root, ledger, rep.k_user, rounds, groups_per_round, [mask_frozensets(m) for m in history], np.stack(history)
    )


def _extension_round(
    r: int, masks: np.ndarray, choice: np.ndarray, rep: _Reports, omega_update: str
) -> tuple[np.ndarray, int]:
    """Round ``r``: users whose draw extends their combination report it; the new masks and the number of groups."""
    movers, new_masks = extend_combinations(masks, choice)
    if not movers.size:
        return masks, 0
    w_new = rep.ledger.omega_prev[movers].copy() if not rep.basic else np.ones(movers.size)
    if not rep.basic and omega_update == "previous_estimate":
        w_new = previous_estimate_beliefs(rep.pool, masks[movers], rep.k_user[movers], w_new, rep.m_label)
    n_g, reported = rep.round(r, movers, new_masks, w_new)
    took = np.isin(movers, reported, assume_unique=True)
    masks = masks.copy()
    masks[movers[took]] = new_masks[took]
    return masks, n_g


def _round_choices(
    candidate_rule: str,
    frontier: list[TreeNode],
    masks: np.ndarray,
    seq: np.ndarray,
    seq_tuples: dict[int, tuple],
    t: int,
    gen: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, dict[int, tuple]]:
    """Every user's draw of the round under ``candidate_rule`` (candidates depend only on public state)."""
    if candidate_rule == "literal":
        branches = [tuple(a for a, _, _ in nd.constraints) for nd in frontier]
        choice = choose_attributes(seq, lambda i: candidates_literal(seq_tuples[int(seq[i])], branches, t), gen)
        seq, seq_tuples = _extend_sequences(seq, seq_tuples, choice, t)
    else:
        paths = [nd.path_attrs for nd in frontier]
        choice = choose_attributes(
            masks, lambda i: candidates_covering(frozenset(attrs_of_mask(masks[i])), paths, t), gen
        )
    return choice, seq, seq_tuples


def _extend_sequences(
    seq: np.ndarray, tuples: dict[int, tuple], choice: np.ndarray, t: int
) -> tuple[np.ndarray, dict[int, tuple]]:
    """Append each user's draw (none when -1) to her sequence of draws; one id per distinct sequence."""
    key = seq * (t + 1) + (choice + 1)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    ids: dict[tuple, int] = {}
    remap = np.empty(first.size, dtype=np.int64)
    for g, i in enumerate(first):
        a = int(choice[i])
        remap[g] = ids.setdefault(tuples[int(seq[i])] + ((a,) if a >= 0 else ()), len(ids))
    return remap[inverse.ravel()], {v: k for k, v in ids.items()}
