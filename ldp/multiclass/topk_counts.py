"""Count-level top-k miners: the miners of :mod:`ldp.multiclass.topk` run on the table of true counts.

The miners of :mod:`ldp.multiclass.topk` look at the users only through counts: how
many users of a round group hold each candidate (their bucket counts are already drawn
at count level by :func:`ldp.multiclass.samplers.bucket_counts`).  What they still do
per user is cut the population into groups (a permutation of all users) and, for PTS,
perturb every label with GRR.  The functions here draw the same quantities exactly in
distribution from the ``c x d`` table, so a trial costs O(cells) instead of O(users):

* **Round groups** (:class:`RoundPool`).  Cutting a uniformly random permutation of a
  population into consecutive blocks of fixed sizes gives the first block a
  multivariate-hypergeometric draw of its size from the population's counts, the
  second block a draw from what is left, and so on (the law used by
  :func:`ldp.multiclass.samplers.split_table`).  Values that can no longer be a
  candidate are merged into one "other" count: later rounds only ask how many users
  hold each live value, and merging categories of a multivariate hypergeometric law
  gives the law of the merged counts.  The last group takes whatever is left.
* **Nested groups** (HEC's class groups, PTS's global sample).  Given how many users of
  each class a group receives, which of the class's users they are is a uniformly
  random subset, independent across classes: one draw over the class's items.
* **GRR on labels** (:func:`ldp.multiclass.samplers.grr_stay_arrive`).  Users perturb their
  labels independently of the random order, so the order can be drawn before or after
  the labels; per cell the users who keep their label are binomial, and those who
  move go uniformly to the other labels.

The miners' schedules (round counts, PEM levels, the global stage, the b-test, the result
table) are the code of :mod:`ldp.multiclass.topk` itself, driven here by a count-level round
engine (``_PoolRounds``) instead of the per-user one; both entry points take their method names
and fixed options from one registry.

Every draw of a trial comes from one generator, so a trial is reproducible; it is not
the random stream of the per-user miners, only the same law (tested in
``tests/test_multiclass_topk_counts.py`` against the per-user miners with chi-square tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_generator, check_epsilon
from ..oracles import GRR
from .frameworks import check_table, split_budget
from .samplers import grr_stay_arrive
from .topk import (
    TopKResult,
    _check_cp_test,
    _check_sizes,
    _mine_rows,
    _pem_children,
    _ptj_mine,
    _pts_mine,
    _pts_opt_mine,
    _registry,
    _run_by_name,
    _shuffle_round,
    _Stage,
    _top_positions,
    pem_levels,
)

__all__ = ["RoundPool", "split_sizes", "mine_topk_table", "TABLE_METHODS"]


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
        colors = np.append(self.counts, self.other)
        if 4 * size < colors.size:
            # few users: pick them by their positions in the list of users (a uniform subset of the positions)
            picked = self.gen.choice(total, size=size, replace=False, shuffle=False)
            got = np.bincount(np.searchsorted(np.cumsum(colors), np.sort(picked), side="right"), minlength=colors.size)
        else:
            got = self.gen.multivariate_hypergeometric(colors, size, method="marginals")
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
    """PEM rounds as :func:`ldp.multiclass.topk._pem_stage`, the groups drawn from ``pool``.

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
        cand = children.T.ravel()  # pad-major, as in topk._pem_stage
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
            drawn = gen.multivariate_hypergeometric(np.append(flat_rem, other), int(size), method="marginals")[:-1]
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
    """Shuffling rounds as :func:`ldp.multiclass.topk._shuffle_stage`, the groups drawn from ``pool``.

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

    It has the members of the per-user engine of :mod:`ldp.multiclass.topk`, so the miners'
    schedules there drive it too: ``size`` is the number of users in the pool, ``groups(parts)``
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
        out[j] = left if j == sizes.size - 1 else gen.multivariate_hypergeometric(left, int(s), method="marginals")
        left = left - out[j]
    return out


def _sub_table(table: np.ndarray, per_class: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """A uniformly random subset of the users of ``table`` with ``per_class[C]`` users of class ``C``."""
    out = np.zeros_like(table)
    for C, m in enumerate(per_class):
        if m == table[C].sum():
            out[C] = table[C]
        elif m > 0:
            out[C] = gen.multivariate_hypergeometric(table[C], int(m), method="marginals")
    return out


# ---------------------------------------------------------------------------- miners on a table
def _check(table: Any, k: int, epsilon: float) -> tuple[np.ndarray, int, int, int, float]:
    tab = check_table(table).astype(np.int64)
    c, d, k = _check_sizes(*tab.shape, k)
    if tab.sum() < 1:
        raise ValueError("table is empty: at least one user is needed")
    return tab, c, d, k, check_epsilon(epsilon)


def hec_topk_table(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    invalid: str = "replace",
    m_ext: int = 2,
    stage: Any = None,
) -> TopKResult:
    """:func:`ldp.multiclass.topk.hec_topk` on the table (same law); ``stage`` replaces the OUE round step."""
    tab, c, d, k, eps = _check(table, k, epsilon)
    gen = as_generator(rng)
    stage = _Stage(eps, invalid, "count", gen) if stage is None else stage
    levels = pem_levels(d, k, m_ext)
    group_sizes = split_sizes(tab.sum(), c)
    comp = _class_split(tab, group_sizes, gen)

    def mine(j: int) -> np.ndarray:
        # group j: comp[j, j] users of class j (valid) among group_sizes[j]; each round takes a random part of the
        # group, whose valid users are a random subset of class j's users not yet drawn (drawn from the class's row)
        sizes = split_sizes(group_sizes[j], len(levels))
        valid = _valid_per_round(int(comp[j, j]), int(group_sizes[j]), sizes, gen)
        return _pem_rounds(RoundPool(tab[j], 0, gen), valid, levels, d, k, stage, n_users=sizes)

    return TopKResult(_mine_rows(c, k, mine), len(levels), {"levels": levels})


def ptj_topk_table(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    shuffling: bool = False,
    invalid: str = "replace",
    m_ext: int = 2,
) -> TopKResult:
    """:func:`ldp.multiclass.topk.ptj_topk` on the table (same law); joint value ``C·d + item``."""
    tab, c, d, k, eps = _check(table, k, epsilon)
    gen = as_generator(rng)
    stage = _Stage(eps, invalid, "count", gen)
    return _ptj_mine(_PoolRounds(RoundPool(tab.ravel(), 0, gen), c * d, stage), c, d, k, shuffling, m_ext)


def pts_topk_table(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    invalid: str = "replace",
    shuffling: bool = False,
    use_global: bool = False,
    a: float = 0.2,
    epsilon1: float | None = None,
    epsilon2: float | None = None,
    m_ext: int = 2,
) -> TopKResult:
    """:func:`ldp.multiclass.topk.pts_topk` on the table (same law)."""
    tab, c, d, k, eps = _check(table, k, epsilon)
    e1, e2 = split_budget(eps, epsilon1, epsilon2)
    gen = as_generator(rng)
    population = _TablePopulation(tab, GRR(e1, c), gen, labels_first=False)
    global_stage, class_stage = _Stage(eps, invalid, "count", gen), _Stage(e2, invalid, "count", gen)
    return _pts_mine(population, c, d, k, shuffling, use_global, a, m_ext, global_stage, class_stage)


def pts_optimised_topk_table(
    table: Any,
    k: int,
    epsilon: float,
    rng: Any = None,
    *,
    a: float = 0.2,
    b: float | None = 2.0,
    use_global: bool = True,
    use_cp: bool = True,
    dprime_factor: float = 2.0,
    epsilon1: float | None = None,
    epsilon2: float | None = None,
) -> TopKResult:
    """:func:`ldp.multiclass.topk.pts_optimised_topk` (Algorithms 1 and 2) on the table (same law).

    The users' GRR reports are independent of the random order, so the global sample is
    drawn from the true table first and the labels of the sample and of the rest are
    perturbed afterwards: the sample only needs its reported class sizes, the rest its
    reported class, item and whether the label moved (CP) per user.
    """
    tab, c, d, k, eps = _check(table, k, epsilon)
    e1, e2 = split_budget(eps, epsilon1, epsilon2)
    _check_cp_test(b, dprime_factor)
    gen = as_generator(rng)
    stage = _Stage(e2, "vp", "count", gen)
    grr = GRR(e1, c)
    population = _TablePopulation(tab, grr, gen, labels_first=True)
    return _pts_opt_mine(population, c, d, k, a, b, use_global, use_cp, dprime_factor, grr, stage)


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


#: the count-level counterpart of every miner of :data:`ldp.multiclass.topk.METHODS` and the ablations
TABLE_METHODS: dict[str, Any] = _registry(
    {"hec": hec_topk_table, "ptj": ptj_topk_table, "pts": pts_topk_table, "pts-opt": pts_optimised_topk_table}
)


def mine_topk_table(method: str, table: Any, k: int, epsilon: float, rng: Any = None, **options: Any) -> TopKResult:
    """Run the count-level miner called ``method`` (the names of :func:`ldp.multiclass.topk.mine_topk`)."""
    return _run_by_name(TABLE_METHODS, method, table, k, epsilon, rng, **options)
