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

Every draw of a trial comes from one generator, so a trial is reproducible; it is not
the random stream of the per-user miners, only the same law (tested in
``tests/test_multiclass_topk_counts.py`` against the per-user miners with chi-square tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_generator, check_epsilon, check_int, check_probability
from ..oracles import GRR
from .frameworks import check_table, split_budget
from .samplers import grr_stay_arrive
from .topk import (
    TopKResult,
    _check_cp_test,
    _cp_limits,
    _pad,
    _split_per_class,
    _Stage,
    _top_positions,
    iteration_counts,
    pem_levels,
    shuffle_into_buckets,
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
        if kept is None:
            cand = np.arange(min(2**ell, D), dtype=np.int64)
            children = cand[None, :]
        else:
            pads = np.arange(2 ** (ell - kept_len), dtype=np.int64) << kept_len
            children = pads[None, :] | kept[:, None]  # row: the extensions of one kept suffix
            cand = children.T.ravel()  # the order of topk._pem_stage: pad-major
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
        perm, pos, n_buckets = shuffle_into_buckets(cands, B, stage.gen)
        held = pool.dense(x)[perm]
        valid_counts = np.bincount(pos, weights=held, minlength=n_buckets).astype(np.int64)
        top = _top_positions(stage.counts(valid_counts, int(size)), keep, stage.gen)
        rank = np.full(n_buckets, -1)
        rank[top] = np.arange(top.size)
        r_of = rank[pos]
        sel = r_of >= 0
        cands = perm[sel][np.argsort(r_of[sel], kind="stable")]
        live = np.zeros(pool.domain, dtype=bool)
        live[cands] = True
        pool.keep(live[pool.values])
    return cands


def _class_shuffle(pool: RoundPool, cands: np.ndarray, it_r: int, k: int, stage: Any, valid: Any = None) -> np.ndarray:
    """Algorithm 2 for one class as :func:`ldp.multiclass.topk._pts_class_stage`, on the class's pool.

    ``valid``: the CP rule of the last round (see :func:`_shuffle_rounds`), or None.
    """
    sizes = split_sizes(pool.total, it_r)
    kept = cands
    if it_r > 1:
        kept = _shuffle_rounds(pool, sizes[:-1], kept, [(4 * k, 2 * k)] * (it_r - 1), stage)
    kept = _shuffle_rounds(pool, sizes[-1:], kept, [(max(1, kept.size), k)], stage, valid=valid)
    return _pad(kept, k)


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
    c, d = tab.shape
    c = check_int(c, "c", minimum=2)
    d = check_int(d, "d", minimum=2)
    k = check_int(k, "k", minimum=1)
    if k > d:
        raise ValueError(f"k must be <= the number of items d={d}, got k={k}")
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
    out = np.empty((c, k), dtype=np.int64)
    for j in range(c):
        # group j: comp[j, j] users of class j (valid) among group_sizes[j]; each round takes a random part of the
        # group, whose valid users are a random subset of class j's users not yet drawn (drawn from the class's row)
        sizes = split_sizes(group_sizes[j], len(levels))
        valid = _valid_per_round(int(comp[j, j]), int(group_sizes[j]), sizes, gen)
        pool = RoundPool(tab[j], 0, gen)
        out[j] = _pad(_pem_rounds(pool, valid, levels, d, k, stage, n_users=sizes), k)
    return TopKResult(out, len(levels), {"levels": levels})


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
    D, K = c * d, c * k
    pool = RoundPool(tab.ravel(), 0, gen)
    n = int(tab.sum())
    if shuffling:
        it = iteration_counts(D, K)[0]
        sizes = split_sizes(n, it)
        kept = np.arange(D, dtype=np.int64)
        if it > 1:
            kept = _shuffle_rounds(pool, sizes[:-1], kept, [(4 * K, 2 * K)] * (it - 1), stage)
        kept = _shuffle_rounds(pool, sizes[-1:], kept, [(max(1, kept.size), K)], stage)
        rounds, info = it, {"IT": it}
    else:
        levels = pem_levels(D, K, m_ext)
        kept = _pem_rounds(pool, split_sizes(n, len(levels)), levels, D, K, stage)
        rounds, info = len(levels), {"levels": levels}
    out = _split_per_class(kept, c, d, k)
    info["empty_slots"] = int(np.count_nonzero(out < 0))
    return TopKResult(out, rounds, info)


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
    info: dict[str, Any] = {}
    start_cands, start_len, class_levels = None, 0, pem_levels(d, k, m_ext)
    rest = tab
    if use_global:
        a = check_probability(a, "a", open_low=True, open_high=True)
        n_s = int(round(a * tab.sum()))
        g_levels = pem_levels(d, c * k, m_ext)
        h = len(g_levels) // 2
        sample = _sub_table(tab, _class_split(tab, np.array([n_s, tab.sum() - n_s]), gen)[0], gen)
        rest = tab - sample
        if h >= 1:
            g_stage = _Stage(eps, invalid, "count", gen)
            pool = RoundPool(sample.sum(axis=0), 0, gen)
            start_cands = _pem_rounds(pool, split_sizes(n_s, h), g_levels[:h], d, c * k, g_stage)
            info["global_levels"], class_levels, start_len = g_levels[:h], g_levels[h:], g_levels[h - 1]
    grr = GRR(e1, c)
    stay, arrive = grr_stay_arrive(rest, grr.p, rng=gen)
    reported = stay + arrive
    stage = _Stage(e2, invalid, "count", gen)
    out = np.empty((c, k), dtype=np.int64)
    if shuffling:
        it = iteration_counts(d, k)[0]
        info["IT"] = it
    for C in range(c):
        pool = RoundPool(reported[C], 0, gen)
        if shuffling:
            out[C] = _class_shuffle(pool, np.arange(d, dtype=np.int64), it, k, stage)
        else:
            sizes = split_sizes(pool.total, len(class_levels))
            out[C] = _pad(_pem_rounds(pool, sizes, class_levels, d, k, stage, start_cands, start_len), k)
    rounds = info.get("IT", len(class_levels) + len(info.get("global_levels", [])))
    return TopKResult(out, rounds, info)


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
    it, it_f, it_r = iteration_counts(d, k)
    if not use_global:
        it_f, it_r = 0, it
    info: dict[str, Any] = {"IT": it, "IT_f": it_f, "IT_r": it_r}
    cands = np.arange(d, dtype=np.int64)
    n_hat_s = None
    rest = tab
    if it_f > 0:
        a = check_probability(a, "a", open_low=True, open_high=True)
        n_s = int(round(a * tab.sum()))
        sample = _sub_table(tab, _class_split(tab, np.array([n_s, tab.sum() - n_s]), gen)[0], gen)
        rest = tab - sample
        rep_s = grr.simulate_counts(sample.sum(axis=1), gen)
        n_hat_s = (rep_s - n_s * grr.q) / (grr.p - grr.q)
        pool = RoundPool(sample.sum(axis=0), 0, gen)
        cands = _shuffle_rounds(pool, split_sizes(n_s, it_f), cands, [(4 * k * c, 2 * k * c)] * it_f, stage)
        info["global_candidates"] = int(cands.size)
    stay, arrive = grr_stay_arrive(rest, grr.p, rng=gen)
    cp_limit = _cp_limits(c, use_cp, b, dprime_factor, n_hat_s)
    out = np.empty((c, k), dtype=np.int64)
    cp_used = np.zeros(c, dtype=bool)
    for C in range(c):
        n_C = int(stay[C].sum() + arrive[C].sum())
        cp_used[C] = not (n_C > cp_limit[C])
        pool = RoundPool(stay[C] + arrive[C], 0, gen)
        kept_label = _kept_label(stay[C], arrive[C], gen) if cp_used[C] else None
        out[C] = _class_shuffle(pool, cands, it_r, k, stage, valid=kept_label)
    info["cp_used"] = cp_used
    return TopKResult(out, it, info)


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


def _m(fn: Any, **fixed: Any) -> Any:
    def run(table, k, epsilon, rng=None, **kw):
        return fn(table, k, epsilon, rng, **{**fixed, **kw})

    run.__doc__ = f"{fn.__name__} with {fixed}"
    return run


#: the count-level counterpart of every miner of :data:`ldp.multiclass.topk.METHODS` and the ablations
TABLE_METHODS: dict[str, Any] = {
    "HEC": _m(hec_topk_table),
    "PTJ": _m(ptj_topk_table),
    "PTJ-S+VP": _m(ptj_topk_table, shuffling=True, invalid="vp"),
    "PTS": _m(pts_topk_table),
    "PTS-opt": _m(pts_optimised_topk_table),
    "PTJ:Baseline": _m(ptj_topk_table),
    "PTJ:+VP": _m(ptj_topk_table, invalid="vp"),
    "PTJ:+Shuffling": _m(ptj_topk_table, shuffling=True),
    "PTJ:All": _m(ptj_topk_table, shuffling=True, invalid="vp"),
    "PTS:Baseline": _m(pts_topk_table),
    "PTS:+Global": _m(pts_topk_table, use_global=True),
    "PTS:+VP": _m(pts_topk_table, invalid="vp"),
    "PTS:+Shuffling": _m(pts_topk_table, shuffling=True),
    "PTS:All": _m(pts_optimised_topk_table),
}


def mine_topk_table(method: str, table: Any, k: int, epsilon: float, rng: Any = None, **options: Any) -> TopKResult:
    """Run the count-level miner called ``method`` (the names of :func:`ldp.multiclass.topk.mine_topk`)."""
    if method not in TABLE_METHODS:
        raise ValueError(f"method must be one of {list(TABLE_METHODS)}, got {method!r}")
    return TABLE_METHODS[method](table, k, epsilon, rng, **options)
