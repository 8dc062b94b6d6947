"""The two round engines of the top-k miners of :mod:`ldp.multiclass.topk`: per user and at count level.

A miner's schedule (:mod:`ldp.multiclass.topk`: which rounds, over which candidates, with
which budget) looks at its users only through a few operations: cut a population into
round groups, count how many users of a group hold each candidate, draw the group's
bucket counts, and, for PTS, perturb every label with GRR.  This module draws those
operations along the two routes of the package (:class:`ldp.mechanism.Mechanism`):

* **per user** (``route="users"``): one user per unit of the ``c x d`` table (in the order of
  :func:`ldp.multiclass.frameworks.table_to_pairs`), a random permutation cut into groups,
  every label perturbed by :meth:`ldp.oracles.GRR.perturb` and every report by
  :meth:`ldp.oracles.OUE.perturb` (:func:`ldp.multiclass.samplers.bucket_counts` with
  ``method="user"``).  Literal and slow: the reference for the tests.
* **at count level** (``route="counts"``): the same quantities drawn exactly in distribution
  from the table, so a trial costs O(cells) instead of O(users):

  - *Round groups* (:class:`RoundPool`).  Cutting a uniformly random permutation of a
    population into consecutive blocks of fixed sizes gives the first block a
    multivariate-hypergeometric draw of its size from the population's counts, the
    second block a draw from what is left, and so on (the law used by
    :func:`ldp.multiclass.samplers.split_table`).  Values that can no longer be a
    candidate are merged into one "other" count: later rounds only ask how many users
    hold each live value, and merging categories of a multivariate hypergeometric law
    gives the law of the merged counts.  The last group takes whatever is left.
  - *Nested groups* (HEC's class groups, PTS's global sample).  Given how many users of
    each class a group receives, which of the class's users they are is a uniformly
    random subset, independent across classes: one draw over the class's items.
  - *GRR on labels* (:func:`ldp.multiclass.samplers.grr_stay_arrive`).  Users perturb their
    labels independently of the random order, so the order can be drawn before or after
    the labels; per cell the users who keep their label are binomial, and those who
    move go uniformly to the other labels.
  - *Bucket counts*: :func:`ldp.multiclass.samplers.bucket_counts` with ``method="count"``.

Both engines offer the same members (a *rounds* engine: ``size``, ``groups(parts)``,
``pem(...)``, ``shuffle(...)``; a *population*: ``global_sample(a, stage)``,
``classes(stage)``), built by :func:`joint_rounds`, :func:`population` and
:func:`hec_class_miner`.  The two routes do not share a random stream, only the law
(``tests/test_multiclass_topk_engines.py`` checks it with chi-square tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._checks import as_generator, check_choice, check_int
from ..oracles import GRR
from ..tables import ProductDomain
from .frameworks import table_to_pairs
from .samplers import _draw_group, bucket_counts, grr_stay_arrive

__all__ = [
    "ROUTES",
    "RoundPool",
    "split_sizes",
    "shuffle_into_buckets",
    "joint_rounds",
    "population",
    "hec_class_miner",
]

#: the two ways to draw a miner's rounds: at count level from the table, or user by user
ROUTES = ("counts", "users")


# ---------------------------------------------------------------------------- round primitives (both engines)
def shuffle_into_buckets(cands: Any, B: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Shuffle candidates into ``B`` buckets: ``(shuffled candidates, bucket of each, buckets used)``.

    With ``n`` candidates and ``size = n // B``: buckets ``0..B-2`` take ``size``
    consecutive shuffled candidates and the last one the remainder (e.g. 109 candidates
    in 80 buckets: 79 singletons and one bucket of 30).  If ``n < B`` every candidate is
    its own bucket.
    """
    c = np.asarray(cands, dtype=np.int64)
    B = check_int(B, "B", minimum=1)
    gen = as_generator(rng)
    perm = gen.permutation(c)
    n = perm.size
    size = n // B
    if size < 1:
        return perm, np.arange(n), n
    return perm, np.minimum(np.arange(n) // size, B - 1), B


def _top_positions(counts: np.ndarray, keep: int, gen: np.random.Generator) -> np.ndarray:
    """Indices of the ``keep`` largest counts, best first, ties broken uniformly at random."""
    order = np.lexsort((gen.random(counts.size), -counts))
    return order[: min(keep, counts.size)]


class _Stage:
    """Shared settings of one mining stage: budget, invalid rule, route of the bucket counts, generator."""

    def __init__(self, epsilon: float, invalid: str, route: str, gen: np.random.Generator) -> None:
        check_choice(invalid, ("vp", "replace"), "invalid")
        check_choice(route, ROUTES, "route")
        self.epsilon, self.invalid, self.gen = epsilon, invalid, gen
        self.method = "user" if route == "users" else "count"

    def counts(self, valid_counts: np.ndarray, n_users: int) -> np.ndarray:
        n_valid = int(valid_counts.sum())
        return bucket_counts(
            valid_counts.astype(np.int64),
            n_users - n_valid,
            self.epsilon,
            invalid=self.invalid,
            method=self.method,
            rng=self.gen,
        )


def _pem_children(kept: np.ndarray | None, kept_len: int, ell: int, D: int) -> np.ndarray:
    """The candidate suffixes of length ``ell`` of a PEM round, one row per kept suffix of length ``kept_len``.

    Row ``i`` holds the extensions of ``kept[i]`` by ``ell - kept_len`` bits; in the first round
    (``kept=None``) the single row holds all suffixes below ``min(2^ell, D)``.  Read column by
    column (``.T.ravel()``) the candidates come pad-major, the order of the rounds' rankings.
    Entries ``>= D`` end no value below ``D`` and are never candidates.
    """
    if kept is None:
        return np.arange(min(2**ell, D), dtype=np.int64)[None, :]
    pads = np.arange(2 ** (ell - kept_len), dtype=np.int64) << kept_len
    return pads[None, :] | kept[:, None]


def _shuffle_round(cands: np.ndarray, held: np.ndarray, n_users: int, B: int, keep: int, stage: Any) -> np.ndarray:
    """One shuffling round: ``cands`` shuffled into ``B`` buckets, the ``keep`` best buckets' candidates survive.

    ``held[v]`` is how many valid users of the round group hold value ``v`` (over the whole
    domain), ``n_users`` the size of the group.  Returns the surviving candidates ordered by
    their bucket's rank, best first.
    """
    perm, pos, n_buckets = shuffle_into_buckets(cands, B, stage.gen)
    valid_counts = np.bincount(pos, weights=held[perm], minlength=n_buckets).astype(np.int64)
    top = _top_positions(stage.counts(valid_counts, n_users), keep, stage.gen)
    rank = np.full(n_buckets, -1)
    rank[top] = np.arange(top.size)
    r_of = rank[pos]
    sel = r_of >= 0
    return perm[sel][np.argsort(r_of[sel], kind="stable")]


# ---------------------------------------------------------------------------- the per-user engine
def _pem_stage(
    values: np.ndarray,
    valid: np.ndarray,
    groups: list[np.ndarray],
    levels: list[int],
    D: int,
    K: int,
    stage: _Stage,
    kept: np.ndarray | None = None,
    kept_len: int = 0,
) -> np.ndarray:
    """PEM rounds at the suffix lengths ``levels``, one user group each; returns kept values, best first.

    Start from all suffixes of the first level (``kept=None``), or extend the suffixes
    ``kept`` of length ``kept_len`` (a continued search).  A user is valid when
    ``valid`` says so and her suffix is a candidate; suffixes that no value below ``D``
    can end with are never candidates.
    """
    for ell, g in zip(levels, groups):
        cand = _pem_children(kept, kept_len, ell, D).T.ravel()
        cand = cand[cand < D]
        mask = (1 << ell) - 1
        hist = np.bincount(values[g][valid[g]] & mask, minlength=mask + 1)
        kept = cand[_top_positions(stage.counts(hist[cand], g.size), K, stage.gen)]
        kept_len = ell
    return kept


def _shuffle_stage(
    values: np.ndarray,
    valid_fn: Callable[[int, np.ndarray], np.ndarray],
    groups: list[np.ndarray],
    cands: np.ndarray,
    schedule: list[tuple[int, int]],
    D: int,
    stage: _Stage,
) -> np.ndarray:
    """Shuffling rounds: round ``r`` uses user group ``groups[r]`` and ``(B, keep) = schedule[r]``.

    ``valid_fn(r, users)`` says which users of the group are valid apart from holding a
    candidate (all of them, or the unflipped ones in a CP round).  Returns the kept
    candidates ordered by their bucket's rank (best first).
    """
    for r, (g, (B, keep)) in enumerate(zip(groups, schedule)):
        hist = np.bincount(values[g][valid_fn(r, g)], minlength=D)
        cands = _shuffle_round(cands, hist, g.size, B, keep, stage)
    return cands


def _split(users: np.ndarray, parts: int) -> list[np.ndarray]:
    """Cut a (randomly ordered) user array into ``parts`` consecutive groups of equal size."""
    return np.array_split(users, parts)


def _all_valid(r: int, g: np.ndarray) -> np.ndarray:
    return np.ones(g.size, bool)


class _UserRounds:
    """The round engine user by user: ``users`` (indices into ``values``, in a random order) are cut into groups.

    The miners' schedules in :mod:`ldp.multiclass.topk` drive an engine through ``size``, ``groups(parts)``,
    ``pem(groups, levels, K, kept, kept_len)`` and ``shuffle(groups, cands, schedule, valid)``; :class:`_PoolRounds`
    is the count-level engine with the same four members.
    ``valid`` marks the users who may hold a candidate at all (default: everyone).
    """

    def __init__(
        self, values: np.ndarray, users: np.ndarray, D: int, stage: Any, valid: np.ndarray | None = None
    ) -> None:
        self.values, self.users, self.D, self.stage = values, users, D, stage
        self.valid = np.ones(values.size, bool) if valid is None else valid

    @property
    def size(self) -> int:
        return int(self.users.size)

    def groups(self, parts: int) -> list[np.ndarray]:
        return _split(self.users, parts)

    def pem(
        self, groups: list[np.ndarray], levels: list[int], K: int, kept: np.ndarray | None = None, kept_len: int = 0
    ) -> np.ndarray:
        return _pem_stage(self.values, self.valid, groups, levels, self.D, K, self.stage, kept, kept_len)

    def shuffle(
        self, groups: list[np.ndarray], cands: np.ndarray, schedule: list[tuple[int, int]], valid: Any = None
    ) -> np.ndarray:
        return _shuffle_stage(
            self.values, _all_valid if valid is None else valid, groups, cands, schedule, self.D, self.stage
        )


class _UserPopulation:
    """The users of a PTS miner in a random order: a global sample is cut off the front, the rest grouped by label.

    With ``labels_first`` every user perturbs her label before the order is drawn and the global sample reports
    its labels too (Algorithm 1); otherwise only the users left after the sample perturb theirs (PTS+Global).
    """

    def __init__(
        self, lab: np.ndarray, itm: np.ndarray, d: int, grr: GRR, gen: np.random.Generator, labels_first: bool
    ) -> None:
        self.lab, self.itm, self.d, self.grr, self.gen = lab, itm, d, grr, gen
        self.rep = grr.perturb(lab, gen) if labels_first else None
        self.rest = gen.permutation(lab.size)

    def global_sample(self, a: float, stage: Any) -> tuple[_UserRounds, np.ndarray | None]:
        """Cut off the first ``round(a·n)`` users: their engine and reported labels per class (or None)."""
        n_s = int(round(a * self.rest.size))
        sample, self.rest = self.rest[:n_s], self.rest[n_s:]
        reported = None if self.rep is None else np.bincount(self.rep[sample], minlength=self.grr.d)
        return _UserRounds(self.itm, sample, self.d, stage), reported

    def classes(self, stage: Any) -> list[tuple[_UserRounds, Any]]:
        """Per reported class, the engine over its users and CP's rule for the last round (a label that flipped)."""
        if self.rep is None:
            rep, cp_rule = self.grr.perturb(self.lab[self.rest], self.gen), None
        else:
            rep, flipped = self.rep[self.rest], self.rep != self.lab

            def cp_rule(r: int, g: np.ndarray) -> np.ndarray:
                return ~flipped[g]

        return [(_UserRounds(self.itm, self.rest[rep == C], self.d, stage), cp_rule) for C in range(self.grr.d)]


# ---------------------------------------------------------------------------- the count-level engine
def split_sizes(n: int, parts: int) -> np.ndarray:
    """Sizes of ``numpy.array_split(range(n), parts)``: the first ``n % parts`` groups get one user more."""
    base, extra = divmod(int(n), int(parts))
    return np.array([base + 1] * extra + [base] * (parts - extra), dtype=np.int64)


class RoundPool:
    """The users of one population not yet given to a round group, counted per live value.

    Parameters
    ----------
    counts : array_like of int, shape (D,)
        Users per value ``0..D-1``.
    other : int
        Users who hold no value that can become a candidate (invalid in every round).
    rng : Generator, seed or None
    """

    def __init__(self, counts: Any, other: int = 0, rng: Any = None) -> None:
        arr = np.asarray(counts, dtype=np.int64).ravel()
        if arr.size and arr.min() < 0:
            raise ValueError(f"counts must be non-negative, got minimum {arr.min()}")
        if int(other) < 0:
            raise ValueError(f"other must be >= 0, got {other}")
        self.domain = arr.size
        self.values = np.flatnonzero(arr).astype(np.int64)
        self.counts = arr[self.values]
        self.other = int(other)
        self.gen = as_generator(rng)

    @property
    def total(self) -> int:
        """Users left in the pool (live values and other)."""
        return int(self.counts.sum()) + self.other

    def draw(self, size: int) -> np.ndarray:
        """Remove a uniformly random group of ``size`` users; their counts per live value (:attr:`values`)."""
        size = int(size)
        total = self.total
        if not 0 <= size <= total:
            raise ValueError(f"size must lie in 0..{total} (users left), got {size}")
        if size == total:
            out, self.counts, self.other = self.counts, np.zeros_like(self.counts), 0
            return out
        if size == 0:
            return np.zeros_like(self.counts)
        got = _draw_group(self.gen, np.append(self.counts, self.other), size)
        out = got[:-1]
        self.counts = self.counts - out
        self.other -= int(got[-1])
        return out

    def keep(self, alive: np.ndarray) -> None:
        """Merge the users of the values where ``alive`` (a mask over :attr:`values`) is False into ``other``."""
        self.other += int(self.counts[~alive].sum())
        self.values, self.counts = self.values[alive], self.counts[alive]

    def dense(self, drawn: np.ndarray) -> np.ndarray:
        """A draw over :attr:`values` as counts over the whole domain ``0..D-1`` (0 for values not live)."""
        out = np.zeros(self.domain, dtype=np.int64)
        out[self.values] = drawn
        return out


# ---------------------------------------------------------------------------- round engines on a pool
def _split_among(totals: np.ndarray, left: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Row-wise multivariate-hypergeometric draws: ``left[r]`` of the users counted by ``totals[r, :]``."""
    out = np.zeros_like(totals)
    rest = totals.sum(axis=1)
    left = left.copy()
    for j in range(totals.shape[1] - 1):
        rest = rest - totals[:, j]
        out[:, j] = gen.hypergeometric(totals[:, j], rest, left)
        left -= out[:, j]
    out[:, -1] = left
    return out


def _pem_rounds(
    pool: RoundPool,
    sizes: np.ndarray,
    levels: list[int],
    D: int,
    K: int,
    stage: Any,
    kept: np.ndarray | None = None,
    kept_len: int = 0,
    n_users: np.ndarray | None = None,
) -> np.ndarray:
    """PEM rounds as :func:`_pem_stage`, the groups drawn from ``pool``.

    Round ``r`` draws ``sizes[r]`` users from the pool; ``n_users[r]`` (default ``sizes[r]``) is the
    number of users who report in that round, the difference being invalid users outside the pool.

    A round only needs its group's counts per candidate suffix, so the users are followed at the
    level of the current suffixes, not of the values: a round's group is a multivariate-hypergeometric
    draw over the candidates' remaining users (and the others); the users left with a kept suffix
    are a uniformly random subset of its users, so how they spread over the suffix's extensions at
    the next level is again multivariate hypergeometric (:func:`_split_among`).  The pool's values
    are not updated.
    """
    n_users = sizes if n_users is None else n_users
    values, counts, gen = pool.values, pool.counts, pool.gen
    left = pool.total
    rem = None
    for ell, size, n_round in zip(levels, sizes, n_users):
        mask = (1 << ell) - 1
        totals = np.bincount(values & mask, weights=counts, minlength=mask + 1).astype(np.int64)
        children = _pem_children(kept, kept_len, ell, D)  # row: the extensions of one kept suffix
        cand = children.T.ravel()  # pad-major, as in _pem_stage
        ok = children < D
        child_tot = np.where(ok, totals[children], 0)
        # nothing drawn yet: every user of a candidate is still in the pool; else spread each kept suffix's users
        child_rem = child_tot if rem is None else _split_among(child_tot, rem, gen)
        flat_ok = ok.T.ravel()
        cand, flat_rem = cand[flat_ok], child_rem.T.ravel()[flat_ok]
        other = left - int(flat_rem.sum())
        if size == left:
            drawn = flat_rem
        elif size == 0:
            drawn = np.zeros_like(flat_rem)
        else:
            drawn = _draw_group(gen, np.append(flat_rem, other), int(size))[:-1]
        left -= int(size)
        top = _top_positions(stage.counts(drawn, int(n_round)), K, stage.gen)
        kept, kept_len = cand[top], ell
        rem = (flat_rem - drawn)[top]
    return kept


def _shuffle_rounds(
    pool: RoundPool,
    sizes: np.ndarray,
    cands: np.ndarray,
    schedule: list[tuple[int, int]],
    stage: Any,
    valid: Any = None,
) -> np.ndarray:
    """Shuffling rounds as :func:`_shuffle_stage`, the groups drawn from ``pool``.

    ``valid(values, drawn)``, if given, says how many of the drawn users of each live value are
    valid in the last round (CP); by default all are.
    """
    n_rounds = len(schedule)
    for r, (size, (B, keep)) in enumerate(zip(sizes, schedule)):
        x = pool.draw(size)
        if valid is not None and r == n_rounds - 1:
            x = valid(pool.values, x)
        cands = _shuffle_round(cands, pool.dense(x), int(size), B, keep, stage)
        live = np.zeros(pool.domain, dtype=bool)
        live[cands] = True
        pool.keep(live[pool.values])
    return cands


class _PoolRounds:
    """The count-level round engine: a group is a number of users drawn from ``pool``.

    It has the members of the per-user engine :class:`_UserRounds`, so the miners' schedules
    drive it too: ``size`` is the number of users in the pool, ``groups(parts)``
    the sizes of an equal cut of them, ``pem`` and ``shuffle`` run :func:`_pem_rounds` and
    :func:`_shuffle_rounds`.
    """

    def __init__(self, pool: RoundPool, D: int, stage: Any) -> None:
        self.pool, self.D, self.stage = pool, D, stage

    @property
    def size(self) -> int:
        return self.pool.total

    def groups(self, parts: int) -> np.ndarray:
        return split_sizes(self.pool.total, parts)

    def pem(
        self, groups: np.ndarray, levels: list[int], K: int, kept: np.ndarray | None = None, kept_len: int = 0
    ) -> np.ndarray:
        return _pem_rounds(self.pool, groups, levels, self.D, K, self.stage, kept, kept_len)

    def shuffle(
        self, groups: np.ndarray, cands: np.ndarray, schedule: list[tuple[int, int]], valid: Any = None
    ) -> np.ndarray:
        return _shuffle_rounds(self.pool, groups, cands, schedule, self.stage, valid)


class _TablePopulation:
    """A PTS miner's population as its ``c x d`` table: a global sample is drawn off it, the rest grouped by label.

    With ``labels_first`` the global sample also reports its labels (Algorithm 1): their counts
    are drawn by GRR at count level.  The other users' labels are perturbed by
    :func:`ldp.multiclass.samplers.grr_stay_arrive`, which also says who kept their label (CP).
    """

    def __init__(self, tab: np.ndarray, grr: GRR, gen: np.random.Generator, labels_first: bool) -> None:
        self.rest, self.grr, self.gen, self.labels_first = tab, grr, gen, labels_first

    def global_sample(self, a: float, stage: Any) -> tuple[_PoolRounds, np.ndarray | None]:
        """Draw ``round(a·n)`` users at random: their engine and reported labels per class (or None)."""
        tab, gen = self.rest, self.gen
        n_s = int(round(a * tab.sum()))
        sample = _sub_table(tab, _class_split(tab, np.array([n_s, tab.sum() - n_s]), gen)[0], gen)
        self.rest = tab - sample
        reported = self.grr.simulate_counts(sample.sum(axis=1), gen) if self.labels_first else None
        return _PoolRounds(RoundPool(sample.sum(axis=0), 0, gen), tab.shape[1], stage), reported

    def classes(self, stage: Any) -> list[tuple[_PoolRounds, Any]]:
        """Per reported class, the engine over its users and CP's rule for the last round (:func:`_kept_label`)."""
        stay, arrive = grr_stay_arrive(self.rest, self.grr.p, rng=self.gen)
        d = self.rest.shape[1]
        return [
            (
                _PoolRounds(RoundPool(stay[C] + arrive[C], 0, self.gen), d, stage),
                _kept_label(stay[C], arrive[C], self.gen),
            )
            for C in range(self.rest.shape[0])
        ]


def _valid_per_round(m: int, n: int, sizes: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """How many of the ``m`` valid users of a group of ``n`` fall in each of its rounds (a random cut, ``sizes``)."""
    out = np.zeros(sizes.size, dtype=np.int64)
    for r, s in enumerate(sizes):
        if r == sizes.size - 1:
            out[r] = m
        elif m == n:
            out[r] = s
        elif m > 0 and s > 0:
            out[r] = gen.hypergeometric(m, n - m, s)
        m, n = m - out[r], n - s
    return out


def _class_split(table: np.ndarray, sizes: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """How many users of each class each group of a random cut (group sizes ``sizes``) receives: (groups x c)."""
    left = table.sum(axis=1)
    out = np.zeros((sizes.size, left.size), dtype=np.int64)
    for j, s in enumerate(sizes):
        out[j] = left if j == sizes.size - 1 else _draw_group(gen, left, int(s))
        left = left - out[j]
    return out


def _sub_table(table: np.ndarray, per_class: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """A uniformly random subset of the users of ``table`` with ``per_class[C]`` users of class ``C``."""
    out = np.zeros_like(table)
    for C, m in enumerate(per_class):
        if m == table[C].sum():
            out[C] = table[C]
        elif m > 0:
            out[C] = _draw_group(gen, table[C], int(m))
    return out


def _kept_label(stay: np.ndarray, arrive: np.ndarray, gen: np.random.Generator) -> Any:
    """CP's rule for the last round of a class whose users are ``stay + arrive`` per item.

    The last group holds ``x[i]`` of the class's users of item ``i``; the group is a uniformly
    random subset of them, so how many kept their label is hypergeometric,
    ``Hyp(stay[i], arrive[i], x[i])``, independently over items given ``x``.
    """

    def valid(values: np.ndarray, x: np.ndarray) -> np.ndarray:
        if values.size == 0:
            return x
        return gen.hypergeometric(stay[values], arrive[values], x).astype(np.int64)

    return valid


# ---------------------------------------------------------------------------- the engines by route
def _users(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One user per unit of ``table``, in cell order (:func:`ldp.multiclass.frameworks.table_to_pairs`)."""
    labels, items = table_to_pairs(table)
    return labels.astype(np.int64), items.astype(np.int64)


def joint_rounds(table: np.ndarray, route: str, stage: Any, gen: np.random.Generator) -> _UserRounds | _PoolRounds:
    """The rounds engine of all users of ``table`` over the joint domain (value ``C·d + item``), along ``route``."""
    c, d = table.shape
    if route == "users":
        joint = ProductDomain((c, d)).encode(*_users(table))
        return _UserRounds(joint, gen.permutation(joint.size), c * d, stage)
    return _PoolRounds(RoundPool(table.ravel(), 0, gen), c * d, stage)


def population(
    table: np.ndarray, route: str, grr: GRR, gen: np.random.Generator, labels_first: bool
) -> _UserPopulation | _TablePopulation:
    """A PTS miner's population (labels perturbed by ``grr``) along ``route``; see :class:`_UserPopulation`."""
    if route == "users":
        return _UserPopulation(*_users(table), table.shape[1], grr, gen, labels_first)
    return _TablePopulation(table, grr, gen, labels_first)


def hec_class_miner(
    table: np.ndarray, k: int, levels: list[int], stage: Any, route: str, gen: np.random.Generator
) -> Callable[[int], np.ndarray]:
    """HEC's groups: the users are split at random into ``c`` groups; ``mine(j)`` runs PEM at ``levels``
    (keeping ``k``) for class ``j`` on group ``j``, whose users of other classes are invalid.

    The split is drawn when this is called, each group's rounds when ``mine(j)`` is.
    """
    if route == "users":
        return _hec_users(table, k, levels, stage, gen)
    return _hec_counts(table, k, levels, stage, gen)


def _hec_users(
    table: np.ndarray, k: int, levels: list[int], stage: Any, gen: np.random.Generator
) -> Callable[[int], np.ndarray]:
    lab, itm = _users(table)
    class_groups = _split(gen.permutation(lab.size), table.shape[0])

    def mine(j: int) -> np.ndarray:
        users = class_groups[j]
        valid = np.zeros(lab.size, dtype=bool)
        valid[users] = lab[users] == j
        rounds = _UserRounds(itm, users, table.shape[1], stage, valid)
        return rounds.pem(rounds.groups(len(levels)), levels, k)

    return mine


def _hec_counts(
    table: np.ndarray, k: int, levels: list[int], stage: Any, gen: np.random.Generator
) -> Callable[[int], np.ndarray]:
    group_sizes = split_sizes(table.sum(), table.shape[0])
    comp = _class_split(table, group_sizes, gen)

    def mine(j: int) -> np.ndarray:
        # group j: comp[j, j] users of class j (valid) among group_sizes[j]; each round takes a random part of the
        # group, whose valid users are a random subset of class j's users not yet drawn (drawn from the class's row)
        sizes = split_sizes(group_sizes[j], len(levels))
        valid = _valid_per_round(int(comp[j, j]), int(group_sizes[j]), sizes, gen)
        return _pem_rounds(RoundPool(table[j], 0, gen), valid, levels, table.shape[1], k, stage, n_users=sizes)

    return mine
