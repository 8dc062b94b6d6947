"""CART under CLLDP (Xue et al., Sec. 6, Algorithm 4), under LabelDP, and without privacy.

Tree model (Sec. 6.1).  A binary tree of one-vs-rest tests ``a^c = a_v`` (yes)
/ ``a^c != a_v`` (no); the root is at depth 1; a node is chosen by the Gini
criterion of Eqs. (11)-(12) and becomes a leaf labelled with its majority class
when no test lowers the Gini impurity; a node at the maximum depth ``dep`` that
still splits gets two labelled leaf children.

CLLDP protocol (Algorithm 4), one round per depth:

* round 1: every user draws one attribute ``c`` uniformly and reports
  ``(d^c, l)`` by kHR with ``ε_1 = ε/dep`` and ``ω_{a^c}(k)``; ``k`` is fixed for
  the user from this round on (Theorem 6 needs it), chosen on the round-1
  domain ``m^c m^l`` at budget ``ε_1``;
* round ``r >= 2``: each user adds one attribute from a candidate set (see
  ``candidate_rule``) to her combination ``s^{r-1}``, so ``s^r ⊇ s^{r-1}``, and
  reports the Cartesian value of ``s^r`` with her label, with the budget of
  Eq. (15) (:mod:`ldp.clldp.accounting`) and a belief that never increases
  along her chain; a user whose combination does not change reports nothing
  and spends nothing;
* the collector calibrates each group of users that share combination and
  parameters, pools the estimates of equal combinations, and decides the
  nodes of depth ``r`` from them (marginalising larger combinations when
  needed).

Choices where the paper is silent or ambiguous (Sec. 6.1, all configurable):

* ``candidate_rule="covering"`` (default): a user may add the attribute that
  completes the path-attribute set of some undecided node, or any new
  attribute once her set already covers a node's path; otherwise any new
  attribute (the paper's fallback ``A \\ SL``).  ``"literal"`` follows the
  multiset text of Sec. 6.1 (``|SL - B_h| = 1`` and the extra attribute not on
  the branch gives the branch's last attribute).  Both depend only on public
  state, never on a user's values, so the accounting is unaffected;
* ``omega_update="first_round"`` (default) keeps the round-1 ω for the whole
  chain: if it bounds the true belief of the round-1 attribute, it bounds that
  of every refinement too, because refining a combination cannot raise ω at
  fixed k (the corrected Theorem 6 illustration).  ``"previous_estimate"`` is
  the paper's reading (Sec. 7.3): Def. 5 evaluated on the collector's noisy
  estimate of ``Pr{s^{r-1} | L}``, capped by the belief used before.  Clipped
  noise spread over a large combination makes that estimate *smaller* than the
  truth, so this reading can break the guarantee (see the experiments chapter);
* ``combine="inverse_variance"`` (default) pools estimates of the same
  combination with weights ``n (p-q)^2 / (q(1-q))``; ``"mean"`` is the paper's
  plain average;
* ``budget_rule`` = ``"remaining_even"`` (default) or ``"paper_literal"`` (Eq. (15)).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .._checks import as_generator, check_epsilon, check_int
from ..oracles import SubsetSelection
from .accounting import BUDGET_RULES, LeakageLedger
from .basic import BasicSolution
from .encoding import combination_codes
from .estimator_base import CLLDPClassifierBase
from .kchoice import resolve_k
from .khr import KHR, approx_n_variance
from .omega import conditional_from_joint, omega_curve

__all__ = ["TreeNode", "JointPool", "best_split", "grow_from_counts", "clldp_tree", "CLLDPDecisionTree",
           "CANDIDATE_RULES", "OMEGA_UPDATES", "COMBINE_RULES"]

CANDIDATE_RULES = ("covering", "literal")
OMEGA_UPDATES = ("first_round", "previous_estimate")
COMBINE_RULES = ("inverse_variance", "mean")
_MIN_EPS = 1e-9  # budgets below this are treated as "no report"


# ---------------------------------------------------------------------------- tree structure
@dataclass
class TreeNode:
    """One node: a test ``X[:, attr] == value`` with ``yes``/``no`` children, or a leaf."""

    depth: int
    constraints: tuple = ()          # ((attr, value, is_equal), ...) from the root down
    attr: int | None = None
    value: int | None = None
    yes: "TreeNode | None" = None
    no: "TreeNode | None" = None
    dist: np.ndarray | None = None    # class distribution of a leaf (clipped estimates, normalised)
    decided: bool = False

    @property
    def is_leaf(self) -> bool:
        return self.decided and self.attr is None

    @property
    def path_attrs(self) -> frozenset:
        return frozenset(a for a, _, _ in self.constraints)

    def make_leaf(self, totals: np.ndarray | None, fallback: np.ndarray) -> None:
        t = np.clip(np.asarray(totals, dtype=float), 0, None) if totals is not None else None
        self.dist = t / t.sum() if t is not None and t.sum() > 0 else fallback
        self.attr = self.value = None
        self.decided = True

    def iter_nodes(self):
        yield self
        for child in (self.yes, self.no):
            if child is not None:
                yield from child.iter_nodes()

    @property
    def max_depth(self) -> int:
        return max(nd.depth for nd in self.iter_nodes() if nd.is_leaf)


def _gini(totals: np.ndarray) -> float:
    s = totals.sum()
    return float(1 - np.sum((totals / s) ** 2)) if s > 0 else 0.0


def best_split(stats: dict[int, np.ndarray], totals: np.ndarray) -> tuple[float, int | None, int | None]:
    """Eqs. (11)-(12): the (Gini, attribute, value) minimising the weighted Gini of a yes/no split.

    ``stats[c]`` is the non-negative ``(m_label, m_c)`` table of the node's label mass per value
    of attribute ``c``.  Splits with an empty side are skipped.
    """
    best = (np.inf, None, None)
    for c, M in stats.items():
        yes = M
        no = M.sum(axis=1, keepdims=True) - M
        n_yes, n_no = yes.sum(axis=0), no.sum(axis=0)
        ok = (n_yes > 1e-12) & (n_no > 1e-12)
        if not np.any(ok):
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            tot = n_yes + n_no
            g = (n_yes / tot) * (1 - np.sum((yes / n_yes) ** 2, axis=0)) \
                + (n_no / tot) * (1 - np.sum((no / n_no) ** 2, axis=0))
        g = np.where(ok, g, np.inf)
        v = int(np.argmin(g))
        if g[v] < best[0]:
            best = (float(g[v]), int(c), v)
    return best


def _decide(node: TreeNode, stats: dict[int, np.ndarray], totals: np.ndarray | None, dep: int,
            fallback: np.ndarray) -> list[TreeNode]:
    """Split ``node`` or make it a leaf (Sec. 6.1 stop rules); return the new undecided children."""
    if totals is None or totals.sum() <= 1e-12 or not stats:
        node.make_leaf(totals, fallback)
        return []
    g, c, v = best_split(stats, totals)
    if c is None or g >= _gini(totals) - 1e-12:
        node.make_leaf(totals, fallback)
        return []
    node.attr, node.value, node.decided = c, v, True
    node.yes = TreeNode(node.depth + 1, node.constraints + ((c, v, True),))
    node.no = TreeNode(node.depth + 1, node.constraints + ((c, v, False),))
    if node.depth >= dep:
        M = stats[c]
        here = totals / totals.sum()
        node.yes.make_leaf(M[:, v], here)
        node.no.make_leaf(M.sum(axis=1) - M[:, v], here)
        return []
    return [node.yes, node.no]


# ---------------------------------------------------------------------------- one-shot growth
def grow_from_counts(X: np.ndarray, support: np.ndarray, sizes: Sequence[int], p: float, q: float,
                     dep: int) -> TreeNode:
    """Greedy CART from true attributes and (possibly perturbed) label supports.

    ``support`` is ``n x m_label`` (row ``i``: which labels user ``i``'s report supports);
    every node's label mass per attribute value is calibrated as
    ``(C - q n_a)/(p - q)`` and clipped at 0.  ``p = 1, q = 0`` with one-hot supports is
    the non-private tree; an SS label report gives the LabelDP tree (the baseline of Sec. 7).
    """
    m_l = support.shape[1]
    root = TreeNode(1)
    prior = np.clip((support.sum(axis=0) - q * X.shape[0]) / (p - q), 0, None)
    fallback = prior / prior.sum() if prior.sum() > 0 else np.full(m_l, 1.0 / m_l)
    frontier = [(root, np.arange(X.shape[0]))]
    while frontier:
        node, rows = frontier.pop()
        stats = {}
        for c, m_c in enumerate(sizes):
            col = X[rows, c]
            C = np.stack([np.bincount(col, weights=support[rows, lab], minlength=m_c) for lab in range(m_l)])
            n_a = np.bincount(col, minlength=m_c)
            stats[c] = np.clip((C - q * n_a[None, :]) / (p - q), 0, None)
        totals = stats[0].sum(axis=1) if stats else None
        for child in _decide(node, stats, totals, dep, fallback):
            a, v, eq = child.constraints[-1]
            keep = (X[rows, a] == v) if eq else (X[rows, a] != v)
            frontier.append((child, rows[keep]))
    return root


# ---------------------------------------------------------------------------- CLLDP multi-round
class JointPool:
    """Pooled joint estimates ``Pr^{l, s}`` keyed by attribute combination (axes: label, sorted attrs).

    Groups are registered with :meth:`add_group` as *builders* that draw the group's
    reports and return its calibrated estimate -- either a dense array or the sparse
    form ``(flat indices, values, constant)`` meaning ``constant + values`` at the indices.
    A combination's estimate is built the first time it is needed, so the (often
    useless) reports on huge combinations cost nothing until a query uses them.

    :meth:`marginal` pools every stored superset of the requested combination: the
    marginal of an unbiased estimate is unbiased; its per-cell variance grows with the
    number of cells summed, so with ``combine="inverse_variance"`` a superset's weight
    is its groups' total weight ``Σ n (p-q)^2/(q(1-q))`` divided by that number, and
    supersets with less than ``min_share`` of the best weight are skipped (they would
    change the pooled value by a negligible amount).  ``combine="mean"`` averages
    groups and supersets with equal weights (the paper's plain average).
    """

    def __init__(self, sizes: Sequence[int], m_label: int, combine: str = "inverse_variance",
                 min_share: float = 0.01) -> None:
        if combine not in COMBINE_RULES:
            raise ValueError(f"combine must be one of {COMBINE_RULES}, got {combine!r}")
        self.sizes = tuple(int(s) for s in sizes)
        self.m_label = int(m_label)
        self.combine = combine
        self.min_share = float(min_share)
        self._pending: dict[tuple, list] = {}
        self._sum: dict[tuple, np.ndarray] = {}
        self._w: dict[tuple, float] = {}
        self._cache: dict[tuple, np.ndarray | None] = {}

    def shape(self, attrs: tuple) -> tuple:
        return (self.m_label,) + tuple(self.sizes[a] for a in attrs)

    def add_group(self, attrs: tuple, weight: float, builder: Callable[[], Any]) -> None:
        """Register one group's estimate of ``attrs`` with inverse-variance ``weight``."""
        w = float(weight) if self.combine == "inverse_variance" else 1.0
        self._pending.setdefault(attrs, []).append((w, builder))
        self._w[attrs] = self._w.get(attrs, 0.0) + w
        self._cache.clear()

    def add(self, attrs: tuple, estimate: np.ndarray, weight: float) -> None:
        """Register an already computed dense estimate."""
        est = np.asarray(estimate, dtype=float)
        self.add_group(attrs, weight, lambda: est)

    def _materialise(self, attrs: tuple) -> np.ndarray:
        pending = self._pending.pop(attrs, [])
        if pending:
            total = self._sum.get(attrs)
            if total is None:
                total = np.zeros(self.shape(attrs))
            flat = total.reshape(-1)
            for w, build in pending:
                part = build()
                if isinstance(part, tuple):
                    idx, vals, const = part
                    flat += w * const
                    np.add.at(flat, idx, w * vals)
                else:
                    flat += w * np.asarray(part, dtype=float).reshape(-1)
            self._sum[attrs] = total
        return self._sum[attrs] / self._w[attrs]

    def combinations(self) -> list[tuple]:
        return list(self._w)

    def marginal(self, attrs: tuple) -> np.ndarray | None:
        """Estimate over ``attrs`` (sorted tuple) pooled from the stored supersets; ``None`` if none."""
        if attrs in self._cache:
            return self._cache[attrs]
        cands = []
        for key, wk in self._w.items():
            if set(attrs) <= set(key):
                drop = tuple(1 + j for j, a in enumerate(key) if a not in attrs)
                cells = int(np.prod([self.sizes[key[j - 1]] for j in drop])) if drop else 1
                eff = wk / cells if self.combine == "inverse_variance" else 1.0
                cands.append((eff, key, drop))
        if not cands:
            self._cache[attrs] = None
            return None
        top = max(c[0] for c in cands)
        acc, wsum = None, 0.0
        for eff, key, drop in cands:
            if eff < self.min_share * top:
                continue
            est = self._materialise(key)
            marg = est.sum(axis=drop) if drop else est
            acc = eff * marg if acc is None else acc + eff * marg
            wsum += eff
        result = acc / wsum
        self._cache[attrs] = result
        return result


def _masked(J: np.ndarray, attrs: tuple, constraints: tuple) -> np.ndarray:
    """Zero the cells of the raw estimate ``J`` (axes: label, attrs) that violate the path constraints."""
    out = J
    for a, v, eq in constraints:
        ax = 1 + attrs.index(a)
        mask = np.arange(out.shape[ax]) == v
        if not eq:
            mask = ~mask
        shape = [1] * out.ndim
        shape[ax] = -1
        out = out * mask.reshape(shape)
    return out


def _node_stats(pool: JointPool, node: TreeNode, t: int) -> tuple[dict[int, np.ndarray], np.ndarray | None]:
    """Label mass of the node per value of every attribute, from the pooled estimates.

    Masks and sums act on the raw (unbiased) estimates; only the final small tables are
    clipped at 0.  Clipping cell by cell before summing would add the positive part of
    the noise of every summed cell, a bias that grows with the size of the combination.
    """
    P = tuple(sorted(node.path_attrs))
    base = pool.marginal(P)
    totals = None
    if base is not None:
        totals = np.clip(_masked(base, P, node.constraints).reshape(pool.m_label, -1).sum(axis=1), 0, None)
    stats = {}
    for c in range(t):
        S = tuple(sorted(set(P) | {c}))
        J = pool.marginal(S)
        if J is None:
            continue
        M = _masked(J, S, node.constraints)
        ax = 1 + S.index(c)
        other = tuple(i for i in range(1, M.ndim) if i != ax)
        stats[c] = np.clip(M.sum(axis=other) if other else M, 0, None)
    if totals is None and stats:
        totals = next(iter(stats.values())).sum(axis=1)
    return stats, totals


def _candidates_covering(s: frozenset, paths: list[frozenset], t: int) -> list[int]:
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


def _candidates_literal(sl: tuple, branches: list[tuple], t: int) -> list[int]:
    from collections import Counter
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


@dataclass
class CLLDPTreeResult:
    """The tree and the per-user accounting of one run of Algorithm 4."""

    root: TreeNode
    ledger: LeakageLedger
    k: np.ndarray
    rounds: int
    groups_per_round: list = field(default_factory=list)
    sets: list = field(default_factory=list)  # per round, every user's combination after that round


def clldp_tree(X: np.ndarray, y: np.ndarray, sizes: Sequence[int], m_label: int, epsilon: float, dep: int,
               mechanism: str, k: Any, omega_fns: Sequence[Callable[[int], float]], rng: Any = None, *,
               budget_rule: str = "remaining_even", omega_update: str = "first_round",
               candidate_rule: str = "covering", combine: str = "inverse_variance") -> CLLDPTreeResult:
    """Algorithm 4: multi-round CART under CLLDP (``mechanism`` = ``"khr"`` or ``"basic"``)."""
    eps = check_epsilon(epsilon)
    dep = check_int(dep, "dep", minimum=1)
    if mechanism not in ("khr", "basic"):
        raise ValueError(f"mechanism must be 'khr' or 'basic', got {mechanism!r}")
    for name, val, allowed in (("budget_rule", budget_rule, BUDGET_RULES),
                               ("omega_update", omega_update, OMEGA_UPDATES),
                               ("candidate_rule", candidate_rule, CANDIDATE_RULES)):
        if val not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
    gen = as_generator(rng)
    n, t = X.shape
    sizes = tuple(int(s) for s in sizes)
    pool = JointPool(sizes, m_label, combine)
    ledger = LeakageLedger(n, eps, dep, budget_rule)
    basic = mechanism == "basic"

    # round 1: one attribute per user; k fixed per user from here on
    first = gen.integers(0, t, size=n)
    eps1 = eps / dep
    k_attr = np.zeros(t, dtype=np.int64)
    w_attr = np.ones(t)
    for c in range(t):
        if not basic:
            k_attr[c] = resolve_k(k, eps1, sizes[c] * m_label, omega_fns[c])
            w_attr[c] = omega_fns[c](int(k_attr[c]))
    k_user = k_attr[first]
    w_user = w_attr[first]
    sets = [frozenset([int(c)]) for c in range(t)]
    user_set = np.array(sets, dtype=object)[first]
    user_sl = [(int(c),) for c in first]

    def report(rows: np.ndarray, attrs: tuple, kk: int, w: float, e: float) -> None:
        m_s = int(np.prod([sizes[a] for a in attrs]))
        if basic:
            mech = BasicSolution(e, m_s, m_label)
        else:
            mech = KHR(e, w, min(kk, m_s * m_label - 1), m_s, m_label)
        n_rows = rows.size

        def build():
            sv = combination_codes([X[rows, a] for a in attrs], [sizes[a] for a in attrs])
            x = mech.encode(sv, y[rows])
            if basic:
                counts = mech.simulate_counts(np.bincount(x, minlength=mech.m), gen)
                return mech.estimate_counts(counts, n_rows)
            reports = mech.perturb(x, gen).ravel()
            idx, cnt = np.unique(reports, return_counts=True)
            scale = 1.0 / (n_rows * (mech.p - mech.q))
            return idx, cnt * scale, -mech.q / (mech.p - mech.q)

        pool.add_group(attrs, n_rows / approx_n_variance(mech.p, mech.q), build)

    set_ids: dict = {}

    def run_groups(r: int, rows: np.ndarray, new_sets: list, w: np.ndarray) -> tuple[int, np.ndarray]:
        """Budgets by Eq. (15), then one kHR/basic group per (combination, k, ω, ε_r)."""
        e = ledger.budget(r, rows, w)
        go = e > _MIN_EPS
        rows, e, w = rows[go], e[go], w[go]
        chosen = [new_sets[i] for i in np.flatnonzero(go)]
        if rows.size == 0:
            return 0, rows
        sid = np.array([set_ids.setdefault(sset, len(set_ids)) for sset in chosen], dtype=float)
        keys = np.column_stack([sid, k_user[rows].astype(float), w, e])
        _, first_of, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(first_of.size + 1))
        for g in range(first_of.size):
            members = order[bounds[g]:bounds[g + 1]]
            j = members[0]
            report(rows[members], tuple(sorted(chosen[j])), int(k_user[rows[j]]), float(w[j]), float(e[j]))
        ledger.charge(r, rows, e, w)
        return int(first_of.size), rows

    groups_per_round = []
    n_g, _ = run_groups(1, np.arange(n), list(user_set), w_user)
    groups_per_round.append(n_g)
    root = TreeNode(1)
    fallback = np.full(m_label, 1.0 / m_label)
    stats, totals = _node_stats(pool, root, t)
    if totals is not None and totals.sum() > 0:
        fallback = np.clip(totals, 0, None) / np.clip(totals, 0, None).sum()
    frontier = _decide(root, stats, totals, dep, fallback)
    rounds = 1
    history = [list(user_set)]
    for r in range(2, dep + 1):
        if not frontier:
            break
        rounds = r
        paths = [nd.path_attrs for nd in frontier]
        branches = [tuple(a for a, _, _ in nd.constraints) for nd in frontier]
        # candidate sets depend only on public state: compute once per distinct state
        state_keys = user_sl if candidate_rule == "literal" else list(user_set)
        cache: dict = {}
        choice = np.empty(n, dtype=np.int64)
        by_state: dict = {}
        for i, key in enumerate(state_keys):
            by_state.setdefault(key, []).append(i)
        for key, members in by_state.items():
            if key not in cache:
                cache[key] = (_candidates_literal(key, branches, t) if candidate_rule == "literal"
                              else _candidates_covering(key, paths, t))
            sc = cache[key]
            idx = np.asarray(members)
            choice[idx] = np.asarray(sc)[gen.integers(0, len(sc), size=idx.size)] if sc else -1
        movers, new_sets = [], []
        for i in range(n):
            a = int(choice[i])
            if a < 0:
                continue
            s_new = user_set[i] | {a}
            if s_new != user_set[i]:
                movers.append(i)
                new_sets.append(s_new)
            user_sl[i] = user_sl[i] + (a,)
        movers = np.asarray(movers, dtype=np.int64)
        if movers.size:
            w_new = ledger.omega_prev[movers].copy() if not basic else np.ones(movers.size)
            if not basic and omega_update == "previous_estimate":
                est_cache: dict = {}
                for j, i in enumerate(movers):
                    key = (user_set[i], int(k_user[i]))
                    if key not in est_cache:
                        J = pool.marginal(tuple(sorted(user_set[i])))
                        est_cache[key] = 1.0 if J is None else float(
                            omega_curve(conditional_from_joint(J.reshape(m_label, -1)), np.array([key[1]]))[0])
                    w_new[j] = min(w_new[j], est_cache[key])
            n_g, reported = run_groups(r, movers, new_sets, w_new)
            groups_per_round.append(n_g)
            rep = set(reported.tolist())
            for j, i in enumerate(movers):
                if i in rep:
                    user_set[i] = new_sets[j]
        else:
            groups_per_round.append(0)
        history.append(list(user_set))
        next_frontier = []
        for nd in frontier:
            stats, totals = _node_stats(pool, nd, t)
            next_frontier += _decide(nd, stats, totals, dep, fallback)
        frontier = next_frontier
    for nd in frontier:  # only reachable when rounds stop early
        nd.make_leaf(None, fallback)
    return CLLDPTreeResult(root, ledger, k_user, rounds, groups_per_round, history)


def _route(node: TreeNode, codes: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    if node.is_leaf or not node.decided:
        out[rows] = node.dist if node.dist is not None else 0
        return
    hit = codes[rows, node.attr] == node.value
    _route(node.yes, codes, rows[hit], out)
    _route(node.no, codes, rows[~hit], out)


class CLLDPDecisionTree(CLLDPClassifierBase):
    """CART (one-vs-rest splits, Gini) trained under CLLDP (Alg. 4), LabelDP, or without privacy.

    Parameters
    ----------
    epsilon : float, default 1.0
    mechanism : {"khr", "basic", "labeldp", "none"}, default "khr"
    k : int or str, default "eq8"
        kHR heads, fixed per user from round 1 (resolved on ``m^c m^l`` at ``ε/dep``).
    omega : "sample", "true", float or list of tables, default "sample"
    omega_fraction : float, default 0.1
    max_depth : int, default 5
        ``dep``, the number of rounds.
    budget_rule : {"remaining_even", "paper_literal"}
    omega_update : {"first_round", "previous_estimate"}
    candidate_rule : {"covering", "literal"}
    combine : {"inverse_variance", "mean"}
    n_categories : list of int or None
    random_state : int, Generator or None

    Attributes
    ----------
    tree_ : TreeNode
    leakage_ : ndarray
        ``ln PL`` of every reporting user after the last round (CLLDP mechanisms; <= ε).
    budgets_ : ndarray (max_depth, n_reporters)
        ``ε_r`` spent by every user in every round (0 = no report).
    omegas_ : ndarray (max_depth, n_reporters)
        The belief each user calibrated each round with (1 where she did not report).
    k_ : ndarray
        Heads used by every reporting user.
    combinations_ : list of lists of frozenset
        Per round, every reporting user's attribute combination after that round.
    """

    def __init__(self, epsilon: float = 1.0, mechanism: str = "khr", k: Any = "eq8", omega: Any = "sample",
                 omega_fraction: float = 0.1, max_depth: int = 5, budget_rule: str = "remaining_even",
                 omega_update: str = "first_round", candidate_rule: str = "covering",
                 combine: str = "inverse_variance", n_categories: Sequence[int] | None = None,
                 random_state: Any = None) -> None:
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.k = k
        self.omega = omega
        self.omega_fraction = omega_fraction
        self.max_depth = max_depth
        self.budget_rule = budget_rule
        self.omega_update = omega_update
        self.candidate_rule = candidate_rule
        self.combine = combine
        self.n_categories = n_categories
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> "CLLDPDecisionTree":
        """Simulate the protocol over all training users and grow the collector's tree."""
        self._check_params()
        dep = check_int(self.max_depth, "max_depth", minimum=1)
        for name, val, allowed in (("budget_rule", self.budget_rule, BUDGET_RULES),
                                   ("omega_update", self.omega_update, OMEGA_UPDATES),
                                   ("candidate_rule", self.candidate_rule, CANDIDATE_RULES),
                                   ("combine", self.combine, COMBINE_RULES)):
            if val not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
        codes, y_codes = self._fit_coding(X, y)
        gen = self._generator()
        m_l = self.classes_.size
        rows, omega_fns = self._split_users(codes, y_codes, gen)
        Xr, yr = codes[rows], y_codes[rows]
        self.reporter_rows_ = rows
        self.n_reporters_ = int(rows.size)
        if self.mechanism in ("khr", "basic"):
            res = clldp_tree(Xr, yr, self.n_categories_, m_l, self.epsilon, dep, self.mechanism, self.k,
                             omega_fns, gen, budget_rule=self.budget_rule, omega_update=self.omega_update,
                             candidate_rule=self.candidate_rule, combine=self.combine)
            self.tree_ = res.root
            self.leakage_ = res.ledger.log_leakage
            self.budgets_ = res.ledger.spent
            self.omegas_ = res.ledger.omega_used
            self.k_ = res.k
            self.groups_per_round_ = res.groups_per_round
            self.combinations_ = res.sets
        elif self.mechanism == "labeldp":
            oracle = SubsetSelection(self.epsilon, m_l, "ceil")
            reports = np.asarray(oracle.perturb(yr, gen), dtype=np.int64)
            support = np.zeros((yr.size, m_l))
            np.put_along_axis(support, reports, 1.0, axis=1)
            self.tree_ = grow_from_counts(Xr, support, self.n_categories_, oracle.p, oracle.q, dep)
        else:
            support = np.eye(m_l)[yr]
            self.tree_ = grow_from_counts(Xr, support, self.n_categories_, 1.0, 0.0, dep)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class distribution of the leaf each row reaches (routed by its true attribute values)."""
        codes = self._transform_codes(X)
        out = np.zeros((codes.shape[0], self.classes_.size))
        _route(self.tree_, codes, np.arange(codes.shape[0]), out)
        return out
