"""Count-level samplers, exact in distribution, for every framework of Mao et al.

The experiments of Mao et al. only look at aggregate counts, so a whole
population's reports can be replaced by a few binomial and multinomial draws on
the table of true counts.  Each function below states why it is *exact* (the
counts it returns have the same joint law as the tallies of per-user
perturbation), and ``tests/test_multiclass_samplers.py`` checks this against
per-user simulation with chi-square and moment tests.

Building blocks
---------------
:func:`split_table`          a uniformly random partition of the users into groups of fixed sizes;
:func:`grr_reported_labels`  where GRR sends the users of every (label, item) cell;
:func:`ue_counts`            unary-encoding bit counts (an adapter over ``UnaryEncoding.simulate_counts``);
:func:`vp_counts`            validity-perturbation counts (flagged reports dropped).

The frameworks in :mod:`ldp.multiclass.frameworks` and :mod:`ldp.multiclass.validity`
compose them in their ``simulate`` methods; the top-k miners' round engines
(:mod:`ldp.multiclass.topk_engines`) use :func:`ue_counts` and :func:`vp_counts` for the bucket
counts of every round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_generator, check_probability
from ..oracles import OUE, UnaryEncoding

__all__ = ["split_table", "grr_reported_labels", "grr_stay_arrive", "ue_counts", "vp_counts", "bucket_counts"]


def _nonneg_int_array(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be non-negative, got minimum {arr.min()}")
    return arr.astype(np.int64, copy=False)


def _draw_group(gen: np.random.Generator, colors: np.ndarray, size: int) -> np.ndarray:
    """How many users of each colour a uniformly random group of ``size`` of the users counted by ``colors`` holds.

    The multivariate hypergeometric law, by the cheaper of two exact algorithms (:func:`_group_method`): for a
    group smaller than a quarter of the colours, or of at most 16 users, ``size`` distinct user positions drawn
    without replacement and counted per colour ("positions"); otherwise "thinning": every user joins
    independently with probability ``size / total`` (one binomial draw per colour), then a uniformly random
    subset of the surplus leaves, or of the shortfall joins from the users left out.  Exact: given its size, the
    independently thinned subset is uniform among the subsets of that size, and a uniformly random part of it
    (or it plus a uniformly random part of its complement) is again uniform, now among the subsets of ``size``
    users.  The correction is about ``sqrt(size)`` users, so thinning costs one binomial draw per colour, against
    a hypergeometric draw per colour or a shuffle of all the users (numpy's "marginals" and "count"): 1-12x less
    on the top-k miners' rounds (measured on the authors' SYN4 tables with 10 and 50 classes, 8,000-1,000,000
    colours).
    ``colors`` must be a 1-D int64 array and ``0 <= size <= colors.sum()`` (not checked here).
    """
    total = int(colors.sum())
    if _group_method(total, colors.size, size) == "positions":
        picked = gen.choice(total, size=size, replace=False, shuffle=False)
        return np.bincount(np.searchsorted(np.cumsum(colors), np.sort(picked), side="right"), minlength=colors.size)
    group = gen.binomial(colors, size / total)
    surplus = int(group.sum()) - size
    if surplus > 0:
        group -= _draw_group(gen, group, surplus)
    elif surplus < 0:
        group += _draw_group(gen, colors - group, -surplus)
    return group


def _group_method(total: int, n_colors: int, size: int) -> str:
    """Which algorithm :func:`_draw_group` uses for ``size`` of ``total`` users of ``n_colors`` colours."""
    return "positions" if 4 * size < n_colors or size <= 16 else "thinning"


def split_table(table: Any, sizes: Any, rng: Any = None) -> list[np.ndarray]:
    """Partition the users of ``table`` uniformly at random into groups of the given ``sizes``.

    Exact: shuffling the users and cutting the permutation into consecutive blocks
    of sizes ``N_1, N_2, ...`` gives block 1 a multivariate-hypergeometric draw of
    ``N_1`` users from the table, block 2 a draw of ``N_2`` from what is left, and so
    on; that is what is sampled here (``Generator.multivariate_hypergeometric``).

    Parameters
    ----------
    table : array_like of int
        True counts (any shape; the users are its units).
    sizes : sequence of int
        Group sizes; they must add up to ``table.sum()``.

    Returns
    -------
    list of ndarray
        One table of the same shape as ``table`` per group.
    """
    tab = _nonneg_int_array(table, "table")
    sz = _nonneg_int_array(sizes, "sizes").ravel()
    total = int(tab.sum())
    if int(sz.sum()) != total:
        raise ValueError(f"sizes must add up to the number of users {total}, got {int(sz.sum())}")
    gen = as_generator(rng)
    left = tab.ravel().copy()
    parts = []
    for s in sz[:-1]:
        if s == 0:
            part = np.zeros_like(left)
        else:
            part = gen.multivariate_hypergeometric(left, int(s), method="marginals")
        parts.append(part.reshape(tab.shape))
        left -= part
    parts.append(left.reshape(tab.shape))
    return parts


def grr_reported_labels(table: Any, p: float, q: float, rng: Any = None) -> np.ndarray:
    """Where GRR sends each user: ``out[l, i, l']`` users of cell ``(l, i)`` report label ``l'``.

    Exact: the users of one cell perturb independently with the same channel row
    (``p`` on the own label, ``q`` on every other one), so their reported labels are
    one multinomial draw with that row as probabilities; different cells are
    independent.

    Parameters
    ----------
    table : array_like of int, shape (c, d)
    p, q : float
        GRR probabilities for ``c`` labels (``p + (c-1) q = 1``).

    Returns
    -------
    ndarray of int64, shape (c, d, c)
    """
    tab = _nonneg_int_array(table, "table")
    if tab.ndim != 2:
        raise ValueError(f"table must be 2-D (classes x items), got shape {tab.shape}")
    c = tab.shape[0]
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if abs(p + (c - 1) * q - 1.0) > 1e-9:
        raise ValueError(f"p + (c-1) q must be 1 for c={c}, got p={p!r}, q={q!r}")
    gen = as_generator(rng)
    out = np.empty(tab.shape + (c,), dtype=np.int64)
    for ell in range(c):
        row = np.full(c, q)
        row[ell] = p
        row /= row.sum()
        out[ell] = gen.multinomial(tab[ell], row)
    return out


def grr_stay_arrive(table: Any, p: float, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """GRR on the labels of a ``c x d`` table, counted: ``(stay, arrive)``, both ``c x d``.

    ``stay[l, i]``: users of cell ``(l, i)`` who report their own label ``l``;
    ``arrive[l, i]``: users of item ``i`` with another true label who report ``l``.
    Users reporting ``l`` with item ``i`` are ``stay[l, i] + arrive[l, i]``.

    Exact: each user keeps her label with probability ``p`` independently, so
    ``stay[l, i] ~ Bin(n[l, i], p)``; a user who moves picks one of the other ``c - 1``
    labels uniformly, independently of everything else, so the movers of a cell are
    spread by one uniform multinomial over the other labels.  With ``c = 2`` the other
    label is the only one.  Otherwise every mover of a small cell draws her new label
    directly (one integer each, counted with ``bincount``) and the movers of a large cell
    are split over the other labels by a chain of ``c - 2`` binomials, both the same law.
    """
    tab = _nonneg_int_array(table, "table")
    if tab.ndim != 2:
        raise ValueError(f"table must be 2-D (classes x items), got shape {tab.shape}")
    p = check_probability(p, "p")
    c, d = tab.shape
    if c == 1 and p < 1:
        raise ValueError(f"a table with one label (row) leaves a mover nowhere to go: p must be 1, got {p!r}")
    gen = as_generator(rng)
    stay = gen.binomial(tab, p)
    movers = tab - stay
    if c == 2:
        return stay, movers[::-1].copy()
    big = movers > _CHAIN_MOVERS_PER_LABEL * c
    arrive = _arrive_per_mover(np.where(big, 0, movers), gen) + _arrive_by_shift_chain(movers, big, gen)
    return stay, arrive


#: cells with more movers than this many per label spread them by a chain of ``c - 2`` binomials, the others
#: mover by mover (one integer each); measured on the authors' SYN3/SYN4 tables at c = 10-50: 8 per label was
#: 15-30 % faster than a fixed 32 at c = 50 and no slower at c = 10
_CHAIN_MOVERS_PER_LABEL = 8


def _arrive_per_mover(movers: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Arrivals when each mover of label ``l`` draws her new label uniformly among the ``c - 1`` others.

    Label by label, a mover draws ``V`` uniform on ``0..c-2`` and moves to ``V`` if ``V < l``, else to ``V + 1``.
    The movers are counted item-major (``item * c + label``), so that ``bincount`` writes near its last write:
    about a third less time than label-major at 50 classes.
    """
    c, d = movers.shape
    dt = np.int32 if c * d < 2**31 - c else np.int64
    item_start = np.arange(0, c * d, c, dtype=dt)
    parts = []
    for ell in range(c):
        n_ell = int(movers[ell].sum())
        if n_ell:
            label = gen.integers(0, c - 1, size=n_ell, dtype=dt)
            label += label >= ell
            label += np.repeat(item_start, movers[ell])
            parts.append(label)
    if not parts:
        return np.zeros((c, d), dtype=np.int64)
    return np.bincount(np.concatenate(parts), minlength=c * d).reshape(d, c).T.astype(np.int64)


def _arrive_by_shift_chain(movers: np.ndarray, cells: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Arrivals from the ``cells`` (a mask) whose movers are split over the shifts ``1..c-1`` at once.

    The movers of one cell fall on the ``c - 1`` shifts as a uniform multinomial, drawn as a chain of
    binomials ``Bin(left, 1/(c - u))`` for ``u = 1..c-2`` (the rest take shift ``c - 1``), vectorised over the
    cells.  The same law as :func:`_arrive_per_mover`, at a cost of ``c - 2`` draws per cell instead of one
    per mover, which pays for cells with many movers.
    """
    c, d = movers.shape
    arrive = np.zeros((c, d), dtype=np.int64)
    origin, item = np.nonzero(cells)
    left = movers[origin, item]
    for u in range(1, c):
        k = left if u == c - 1 else gen.binomial(left, 1.0 / (c - u))
        arrive[(origin + u) % c, item] += k  # (l, i) -> (l + u mod c, i) is one-to-one, so no index repeats
        left = left - k
    return arrive


def ue_counts(position_counts: Any, n_total: int, p: float, q: float, rng: Any = None) -> np.ndarray:
    """Unary-encoding bit counts of ``n_total`` users, ``position_counts[b]`` of whom hold position ``b``.

    A thin adapter over the package's one UE count sampler,
    :meth:`ldp.oracles.UnaryEncoding.simulate_counts` (``Bin(n_b, p) + Bin(N - n_b, q)``,
    independent over positions; its docstring gives the exactness argument).  Users who
    hold none of the ``B`` positions (``n_total > sum(position_counts)``) are placed on one
    extra position whose count is discarded; an extra position is also added when
    ``B < 2`` (the oracle needs two values).  Nothing is drawn when ``n_total`` is 0.
    """
    n_b = _nonneg_int_array(position_counts, "position_counts").ravel()
    N = int(n_total)
    placed = int(n_b.sum())
    if N < placed:
        raise ValueError(f"n_total={N} is smaller than the number of users placed, {placed}")
    if N == 0:
        return np.zeros(n_b.size, dtype=np.int64)
    counts = n_b if (N == placed and n_b.size >= 2) else np.append(n_b, N - placed)
    oracle = UnaryEncoding(None, counts.size, p, q)
    return oracle.simulate_counts(counts, as_generator(rng))[: n_b.size]


def vp_counts(valid_counts: Any, n_invalid: int, p: float, q: float, rng: Any = None) -> tuple[np.ndarray, int]:
    """Validity-perturbation counts over ``B`` positions plus the flag (Mao et al., Sec. IV-A).

    Each valid user at position ``b`` sets bit ``b``; each invalid user sets only the
    flag; all ``B + 1`` bits go through unary encoding (``p`` for a 1, ``q`` for a 0) and
    the server drops every report whose perturbed flag is 1.  Returns
    ``(count_b for b < B, number of dropped reports)`` where ``count_b`` counts the
    *kept* reports with bit ``b`` set.

    Exact (our derivation, tested against per-user perturbation): a valid user's flag survives (is 0) with probability
    ``1 - q`` and an invalid user's with ``1 - p``, independently of her other bits,
    so the numbers of kept users are ``Bin(n_b, 1-q)`` and ``Bin(m, 1-p)``.  Given the
    kept set, the remaining bits are still independent Bernoulli variables, so
    bit ``b`` is set by ``Bin(kept_b, p) + Bin(K - kept_b, q)`` kept users, with ``K``
    the number of kept reports, independently over ``b``: the UE counts of the kept
    reports (:func:`ue_counts`).
    """
    n_b = _nonneg_int_array(valid_counts, "valid_counts")
    m = int(n_invalid)
    if m < 0:
        raise ValueError(f"n_invalid must be >= 0, got {n_invalid}")
    gen = as_generator(rng)
    kept = gen.binomial(n_b, 1.0 - q)
    kept_inv = int(gen.binomial(m, 1.0 - p))
    K = int(kept.sum()) + kept_inv
    counts = ue_counts(kept, K, p, q, gen)
    return counts, int(n_b.sum()) + m - K


def bucket_counts(
    valid_counts: Any, n_invalid: int, epsilon: float, *, invalid: str = "vp", method: str = "count", rng: Any = None
) -> np.ndarray:
    """Perturbed counts of ``B`` buckets (one top-k round), OUE bit probabilities for ``epsilon``.

    Parameters
    ----------
    valid_counts : array_like of int, shape (B,)
        Valid users per bucket.
    n_invalid : int
        Users whose item is not among the candidates (or who are invalid for CP).
    epsilon : float
        The budget of this report (``p = 1/2``, ``q = 1/(e^ε + 1)``, :class:`ldp.oracles.OUE`).
    invalid : {"vp", "replace"}
        ``"vp"``: validity perturbation (:func:`vp_counts`).  ``"replace"``: PEM's rule,
        every invalid user reports a uniformly random bucket (one multinomial draw,
        exact), then plain OUE (:func:`ue_counts`).
    method : {"count", "user"}
        ``"count"`` draws the counts with the exact samplers above; ``"user"`` builds the
        users and perturbs each one's bit vector with :meth:`ldp.oracles.OUE.perturb`
        (slow; for cross-checks on small rounds).
    """
    n_b = _nonneg_int_array(valid_counts, "valid_counts").ravel()
    m = int(n_invalid)
    if m < 0:
        raise ValueError(f"n_invalid must be >= 0, got {n_invalid}")
    if invalid not in ("vp", "replace"):
        raise ValueError(f"invalid must be 'vp' or 'replace', got {invalid!r}")
    if method not in ("count", "user"):
        raise ValueError(f"method must be 'count' or 'user', got {method!r}")
    B = n_b.size
    if B == 0:
        raise ValueError("valid_counts is empty: a round needs at least one bucket")
    gen = as_generator(rng)
    oracle = OUE(epsilon, max(2, B + 1))
    p, q = oracle.p, oracle.q
    if invalid == "replace":
        placed = n_b + gen.multinomial(m, np.full(B, 1.0 / B))
        if method == "count":
            return ue_counts(placed, int(placed.sum()), p, q, gen)
        users = np.repeat(np.arange(B), placed)
        return OUE(epsilon, max(2, B)).perturb_and_count(users, gen)[:B] if users.size else np.zeros(B, np.int64)
    if method == "count":
        return vp_counts(n_b, m, p, q, gen)[0]
    users = np.append(np.repeat(np.arange(B), n_b), np.full(m, B))
    if users.size == 0:
        return np.zeros(B, dtype=np.int64)
    bits = oracle.perturb(users, gen)[:, : B + 1]
    kept = ~bits[:, B]
    return bits[kept, :B].sum(axis=0).astype(np.int64)
