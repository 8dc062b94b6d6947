"""The two routes of the top-k miners have one law (ldp.multiclass.topk_engines).

Each test compares a count-level draw (``route="counts"``) with its per-user counterpart
(``route="users"``): exact means and variances (z-scores against the closed form, 5 standard
errors) and chi-square tests of the whole distribution at level ``ALPHA`` per test (the suite's
false-alarm rate).
"""

import numpy as np
import pytest
from scipy import stats

from ldp.multiclass import topk as T
from ldp.multiclass import topk_engines as E
from ldp.multiclass.frameworks import table_to_pairs
from ldp.multiclass.samplers import _draw_group, _group_method, grr_stay_arrive
from ldp.oracles import GRR

ALPHA = 1e-3
Z = 5.0


def _chi2_two_sample(a, b):
    """p-value of a chi-square test that two samples of discrete outcomes share one law (rare outcomes pooled)."""
    keys = sorted(set(a) | set(b))
    ca = np.array([a.count(k) for k in keys], float)
    cb = np.array([b.count(k) for k in keys], float)
    rare = (ca + cb) < 10
    if rare.any():
        ca = np.append(ca[~rare], ca[rare].sum())
        cb = np.append(cb[~rare], cb[rare].sum())
    keep = (ca + cb) > 0
    if keep.sum() < 2:
        return 1.0
    return stats.chi2_contingency(np.vstack([ca[keep], cb[keep]]))[1]


def test_split_sizes_are_array_split_sizes():
    for n, parts in ((10, 3), (7, 7), (5, 8), (0, 2), (1001, 6)):
        assert E.split_sizes(n, parts).tolist() == [len(x) for x in np.array_split(np.arange(n), parts)]


@pytest.mark.parametrize("size", [2, 9])  # below / above the number of categories: both drawing routes
def test_round_pool_draw_is_the_hypergeometric_cut_of_a_random_permutation(size):
    """A round of ``size`` users from the pool has the law of the first ``size`` users of a random permutation."""
    counts, other, trials = np.array([6, 0, 3, 9, 1]), 4, 4000
    n = counts.sum() + other
    users = np.repeat(np.arange(counts.size + 1), np.append(counts, other))
    gen = np.random.default_rng(1)
    pool_draws = np.array([E.RoundPool(counts, other, gen).draw(size) for _ in range(trials)])
    pool = E.RoundPool(counts, other)
    assert pool.values.tolist() == [0, 2, 3, 4]  # empty values are not kept
    user_draws = np.array(
        [np.bincount(gen.permutation(users)[:size], minlength=counts.size + 1)[pool.values] for _ in range(trials)]
    )
    for j, v in enumerate(pool.values):
        law = stats.hypergeom(n, counts[v], size)
        assert abs(pool_draws[:, j].mean() - law.mean()) < Z * law.std() / np.sqrt(trials)
        se_var = law.var() * np.sqrt(2 / (trials - 1) + (law.stats(moments="k") / trials))
        assert abs(pool_draws[:, j].var(ddof=1) - law.var()) < Z * se_var
        k = np.arange(0, min(size, counts[v]) + 1)
        observed = np.bincount(pool_draws[:, j], minlength=k.size)[: k.size]
        expected = law.pmf(k) * trials
        ok = expected >= 5
        chi = (((observed[ok] - expected[ok]) ** 2) / expected[ok]).sum() + (
            (observed[~ok].sum() - expected[~ok].sum()) ** 2 / max(expected[~ok].sum(), 1e-12) if (~ok).any() else 0.0
        )
        assert stats.chi2.sf(chi, ok.sum() + (~ok).any() - 1) > ALPHA
    # joint law of the round against the per-user cut (the whole count vector as one outcome)
    assert _chi2_two_sample([tuple(r) for r in pool_draws], [tuple(r) for r in user_draws]) > ALPHA


@pytest.mark.parametrize(
    "colors, size, method",
    [
        ([2, 0, 1, 3, 1, 2, 0, 4, 1, 1, 2, 3], 2, "positions"),  # a group smaller than a quarter of the colours
        ([6, 0, 3, 9, 1, 4], 17, "thinning"),  # few users per colour, the correction by positions
        ([120, 0, 60, 180, 20, 80], 230, "thinning"),  # many users per colour
        ([1200, 0, 600, 1800, 200, 800], 2300, "thinning"),  # corrections of about 30 users, often thinned again
    ],
)
def test_draw_group_is_the_cut_of_a_random_permutation_by_each_algorithm(colors, size, method):
    colors = np.array(colors, dtype=np.int64)
    assert _group_method(int(colors.sum()), colors.size, size) == method
    gen, trials = np.random.default_rng(3), 4000
    users = np.repeat(np.arange(colors.size), colors)
    drawn = np.array([_draw_group(gen, colors, size) for _ in range(trials)])
    cut = np.array([np.bincount(gen.permutation(users)[:size], minlength=colors.size) for _ in range(trials)])
    assert (drawn.sum(axis=1) == size).all() and (drawn <= colors).all()
    for j in np.flatnonzero(colors):
        law = stats.hypergeom(int(colors.sum()), int(colors[j]), size)
        assert abs(drawn[:, j].mean() - law.mean()) < Z * law.std() / np.sqrt(trials)
    assert _chi2_two_sample([tuple(r) for r in drawn], [tuple(r) for r in cut]) > ALPHA
    # colour by colour as well (the joint outcomes are many for the first case)
    for j in np.flatnonzero(colors):
        assert _chi2_two_sample(drawn[:, j].tolist(), cut[:, j].tolist()) > ALPHA


def test_round_pool_rounds_after_merging_dead_values_keep_the_law():
    """Merging values into ``other`` between rounds leaves the later rounds' counts of live values unchanged in law."""
    counts, sizes, trials = np.array([5, 8, 2, 6]), [7, 7, 7], 3000
    gen = np.random.default_rng(2)
    merged, plain = [], []
    for _ in range(trials):
        pool = E.RoundPool(counts, 0, gen)
        pool.draw(sizes[0])
        pool.keep(np.isin(pool.values, [1, 3]))
        merged.append(tuple(pool.dense(pool.draw(sizes[1]))[[1, 3]]))
        users = gen.permutation(np.repeat(np.arange(4), counts))
        plain.append(tuple(np.bincount(users[sizes[0] : sizes[0] + sizes[1]], minlength=4)[[1, 3]]))
    assert _chi2_two_sample(merged, plain) > ALPHA
    with pytest.raises(ValueError, match="size must lie"):
        E.RoundPool(counts).draw(100)
    with pytest.raises(ValueError, match="other must be"):
        E.RoundPool(counts, -1)


# c = 2; four labels, some cells above the chain threshold (32 movers); per mover only; per mover with chains
@pytest.mark.parametrize("c, d, top", [(2, 6, 6), (4, 3, 60), (12, 3, 6), (12, 30, 3)])
def test_grr_stay_arrive_has_the_law_of_per_user_grr(c, d, top):
    gen = np.random.default_rng(c)
    table = gen.integers(0, top, size=(c, d))
    table[0, 0] = 9
    if d >= 30:
        table[1, 0] = table[2, 1] = 300  # cells with more movers than the per-mover route takes (8 per label)
    grr = GRR(1.0, c)
    trials = 3000
    stay_arrive = [grr_stay_arrive(table, grr.p, rng=gen) for _ in range(trials)]
    stay = np.array([s for s, _ in stay_arrive])
    arrive = np.array([a for _, a in stay_arrive])
    # exact moments: stay ~ Bin(n, p); arrive[C, i] = sum over the other labels of Bin(n[l, i], q)
    mean_s, var_s = table * grr.p, table * grr.p * (1 - grr.p)
    others = table.sum(axis=0)[None, :] - table
    mean_a, var_a = others * grr.q, others * grr.q * (1 - grr.q)
    for got, mean, var in ((stay, mean_s, var_s), (arrive, mean_a, var_a)):
        sd = np.sqrt(np.maximum(var, 1e-12))
        assert np.all(np.abs(got.mean(axis=0) - mean) < Z * sd / np.sqrt(trials) + 1e-12)
        ok = var > 0
        assert np.all(np.abs(got.var(axis=0, ddof=1)[ok] - var[ok]) < Z * var[ok] * np.sqrt(3 / trials))
    assert (stay + arrive).sum(axis=(1, 2)).tolist() == [int(table.sum())] * trials
    # the joint law of (stay, arrive) of item 0 against per-user GRR
    lab, itm = table_to_pairs(table)
    per_user = []
    for _ in range(trials):
        rep = grr.perturb(lab, gen)
        sel = itm == 0
        per_user.append(
            tuple(np.bincount(rep[sel & (rep == lab)], minlength=c))
            + tuple(np.bincount(rep[sel & (rep != lab)], minlength=c))
        )
    count_level = [tuple(s[:, 0]) + tuple(a[:, 0]) for s, a in stay_arrive]
    # one outcome per trial: reduce to the reports of class 0 (kept, arrived) so that the outcomes repeat
    assert _chi2_two_sample([(x[0], x[c]) for x in count_level], [(x[0], x[c]) for x in per_user]) > ALPHA


def test_grr_stay_arrive_refuses_one_label_with_movers_and_keeps_c_2_and_empty_tables():
    """One label leaves a mover nowhere to go (p < 1 is refused, not lost); c = 2 swaps; zeros give zeros."""
    with pytest.raises(ValueError, match="one label"):
        grr_stay_arrive([[50, 40]], 0.5, rng=0)
    stay, arrive = grr_stay_arrive([[50, 40]], 1.0, rng=0)
    assert stay.tolist() == [[50, 40]] and arrive.tolist() == [[0, 0]]
    stay, arrive = grr_stay_arrive([[30, 4], [3, 25]], 0.7, rng=1)
    assert (arrive == ([[3, 25], [30, 4]] - stay[::-1])).all()
    for shape in ((3, 2), (5, 0)):
        stay, arrive = grr_stay_arrive(np.zeros(shape, dtype=int), 0.4, rng=2)
        assert stay.shape == arrive.shape == shape and not stay.any() and not arrive.any()


def test_cp_last_round_counts_kept_labels_as_a_random_subset():
    """The valid (label kept) users of a class's last round: count level against a per-user cut."""
    stay, arrive, sizes, trials = np.array([6, 2, 5]), np.array([3, 7, 0]), [8, 15], 4000
    gen = np.random.default_rng(8)
    rule = E._kept_label(stay, arrive, gen)
    flags = np.concatenate([np.repeat(np.arange(3), stay), np.repeat(np.arange(3), arrive)])
    kept = np.concatenate([np.ones(stay.sum(), bool), np.zeros(arrive.sum(), bool)])
    counts, users = [], []
    for _ in range(trials):
        pool = E.RoundPool(stay + arrive, 0, gen)
        pool.draw(sizes[0])
        counts.append(tuple(pool.dense(rule(pool.values, pool.draw(sizes[1])))))
        order = gen.permutation(flags.size)[sizes[0] :]
        users.append(tuple(np.bincount(flags[order][kept[order]], minlength=3)))
    for i in range(3):
        assert _chi2_two_sample([x[i] for x in counts], [x[i] for x in users]) > ALPHA / 3
    # exact mean: the last round holds the 15 users left of 23, a random subset: E[kept of item i] = 15 stay[i] / 23
    mean = np.array(counts).mean(axis=0)
    assert np.all(np.abs(mean - sizes[1] * stay / (stay + arrive).sum()) < 0.05)


MINERS = [
    "HEC",
    "PTJ",
    "PTJ-S+VP",
    "PTS",
    "PTS-opt",
    "PTJ:+VP",
    "PTJ:+Shuffling",
    "PTS:+Global",
    "PTS:+VP",
    "PTS:+Shuffling",
]


@pytest.mark.parametrize("method", MINERS)
def test_count_level_miner_has_the_law_of_the_per_user_miner(method):
    """The F1 per class of a count-level run and of a per-user run have the same law (chi-square, 2 samples)."""
    table = np.array(
        [
            [90, 60, 40, 30, 20, 12, 8, 5, 3, 2, 1, 1, 0, 2, 1, 0] * 4,
            [2, 3, 5, 8, 30, 50, 70, 9, 6, 4, 3, 2, 1, 1, 0, 1] * 4,
            [10, 10, 10, 10, 10, 10, 10, 10, 40, 35, 30, 25, 0, 0, 0, 0] * 4,
        ]
    )
    k, eps, trials = 4, 2.0, 500
    truth = T.true_topk(table, k)
    gen = np.random.default_rng(abs(hash(method)) % 2**32)
    opts = {"use_global": False, "b": None} if method == "PTS-opt" else {}
    f1_counts, f1_users = [], []
    for _ in range(trials):
        res = T.mine_topk(method, table, k, eps, gen, **opts)
        f1_counts.append(tuple(np.round(T.score_topk(res.items, truth)["f1_per_class"] * k).astype(int)))
        res = T.mine_topk(method, table, k, eps, gen, route="users", **opts)
        f1_users.append(tuple(np.round(T.score_topk(res.items, truth)["f1_per_class"] * k).astype(int)))
    for C in range(3):
        p = _chi2_two_sample([x[C] for x in f1_counts], [x[C] for x in f1_users])
        assert p > ALPHA / 3, (method, C, p)


class _Record:
    """A round step that reports the valid counts unperturbed and records how many valid users each round had."""

    def __init__(self, gen):
        self.gen, self.seen = gen, []

    def counts(self, valid_counts, n_users):
        self.seen.append(int(np.sum(valid_counts)))
        return np.asarray(valid_counts)


@pytest.mark.parametrize("engine", ["shuffle", "pem"])
def test_round_engines_draw_each_round_like_the_per_user_engines(engine):
    """Valid users per round (noise-free ranking) of the count-level engines against the per-user ones."""
    gen = np.random.default_rng(4)
    counts = gen.integers(0, 12, 64)
    counts[:6] += 25
    items = np.repeat(np.arange(64), counts)
    n, rounds, trials = items.size, 5, 600
    cands = np.arange(64)
    schedule = [(8, 4)] * rounds
    levels = [3, 4, 5, 6, 6]
    got = {"counts": [], "users": []}
    for _ in range(trials):
        rec = _Record(gen)
        pool = E.RoundPool(counts, 0, gen)
        if engine == "shuffle":
            E._shuffle_rounds(pool, E.split_sizes(n, rounds), cands, schedule, rec)
        else:
            E._pem_rounds(pool, E.split_sizes(n, rounds), levels, 64, 4, rec)
        got["counts"].append(rec.seen)
        rec = _Record(gen)
        groups = np.array_split(gen.permutation(n), rounds)
        if engine == "shuffle":
            E._shuffle_stage(items, lambda r, g: np.ones(g.size, bool), groups, cands, schedule, 64, rec)
        else:
            E._pem_stage(items, np.ones(n, bool), groups, levels, 64, 4, rec)
        got["users"].append(rec.seen)
    for r in range(rounds):
        p = _chi2_two_sample([x[r] // 4 for x in got["counts"]], [x[r] // 4 for x in got["users"]])
        assert p > ALPHA / rounds, (r, p)


@pytest.mark.parametrize("method", ["PTJ-S+VP", "PTS-opt", "PTS"])
def test_count_level_miner_with_many_rounds_has_the_law_of_the_per_user_miner(method):
    """Four or more rounds per group, so that users merged into the others are drawn in later rounds."""
    gen = np.random.default_rng(9)
    table = np.stack([np.sort(gen.integers(0, 40, 256))[::-1], gen.integers(0, 40, 256)])
    k, eps, trials = 3, 3.0, 300
    truth = T.true_topk(table, k)
    opts = {"use_global": False, "b": None} if method == "PTS-opt" else {}
    f1_counts, f1_users = [], []
    for _ in range(trials):
        res = T.mine_topk(method, table, k, eps, gen, **opts)
        f1_counts.append(int(np.round(T.score_topk(res.items, truth)["f1"] * 2 * k)))
        res = T.mine_topk(method, table, k, eps, gen, route="users", **opts)
        f1_users.append(int(np.round(T.score_topk(res.items, truth)["f1"] * 2 * k)))
    assert res.rounds >= 4
    assert _chi2_two_sample(f1_counts, f1_users) > ALPHA


def test_pts_opt_with_the_global_stage_and_the_b_test_has_the_law_of_the_per_user_miner():
    table = np.array([[400, 300, 200, 100, 90, 80, 70, 60] * 32, [60, 70, 80, 90, 100, 200, 300, 400] * 32])
    k, eps, trials = 3, 3.0, 400
    truth = T.true_topk(table, k)
    gen = np.random.default_rng(5)
    out = {"counts": [], "users": [], "cp_counts": [], "cp_users": []}
    for _ in range(trials):
        res = T.pts_optimised_topk(table, k, eps, gen)
        out["counts"].append(int(np.round(T.score_topk(res.items, truth)["f1"] * 2 * k)))
        out["cp_counts"].append(tuple(res.info["cp_used"]))
        res = T.pts_optimised_topk(table, k, eps, gen, route="users")
        out["users"].append(int(np.round(T.score_topk(res.items, truth)["f1"] * 2 * k)))
        out["cp_users"].append(tuple(res.info["cp_used"]))
    assert _chi2_two_sample(out["counts"], out["users"]) > ALPHA
    assert _chi2_two_sample(out["cp_counts"], out["cp_users"]) > ALPHA


def test_count_level_miners_validate_and_reproduce():
    table = np.array([[30, 20, 10, 5], [5, 10, 20, 30]])
    a = T.mine_topk("PTS-opt", table, 2, 4.0, 3).items
    assert np.array_equal(a, T.mine_topk("PTS-opt", table, 2, 4.0, 3).items)
    with pytest.raises(ValueError, match="method must be one of"):
        T.mine_topk("XYZ", table, 2, 4.0)
    with pytest.raises(ValueError, match="k must be <="):
        T.mine_topk("PTS", table, 5, 4.0)
    with pytest.raises(ValueError, match="epsilon"):
        T.mine_topk("PTS", table, 2, -1.0)


# ---------------------------------------------------------------------------- one schedule for both routes
ALL_NAMES = list(T.METHODS) + [f"PTJ:{x}" for x in T.ABLATION_PTJ] + [f"PTS:{x}" for x in T.ABLATION_PTS]


@pytest.mark.parametrize("method", ALL_NAMES)
def test_both_routes_run_the_same_schedule_for_every_name(method):
    """A name means the same schedule on both routes: same rounds and the same schedule details."""
    table = np.array([[400, 300, 200, 100] * 16, [100, 200, 300, 400] * 16, [250] * 64])
    users = T.mine_topk(method, table, 2, 2.0, rng=1, route="users")
    counts = T.mine_topk(method, table, 2, 2.0, rng=1)
    assert users.rounds == counts.rounds
    assert users.info.keys() == counts.info.keys()
    for key in ("levels", "global_levels", "IT", "IT_f", "IT_r"):
        assert users.info.get(key) == counts.info.get(key)


@pytest.mark.parametrize("method", ["XYZ", 5, None])
def test_unknown_method_is_refused_naming_every_method(method):
    """A non-string name is a ValueError too (was an AttributeError); the message lists every name."""
    with pytest.raises(ValueError, match="method must be one of") as err:
        T.mine_topk(method, np.array([[30, 20, 10, 5], [5, 10, 20, 30]]), 2, 1.0, rng=0)
    assert all(name in str(err.value) for name in ALL_NAMES)


class _Recorder:
    """A round engine that records the shuffling calls it gets and keeps the first ``keep`` candidates."""

    def __init__(self):
        self.calls = []

    def shuffle(self, groups, cands, schedule, valid=None):
        self.calls.append((list(groups), list(schedule), valid))
        return cands[: schedule[-1][1]]


@pytest.mark.parametrize("n_groups", [1, 2, 4])
def test_shuffle_to_k_runs_4k_2k_rounds_then_a_singleton_round_with_the_cp_rule(n_groups):
    rec, rule = _Recorder(), object()
    kept = T._shuffle_to_k(rec, list(range(n_groups)), np.arange(100), 3, rule)
    assert kept.tolist() == [0, 1, 2]
    *first, last = rec.calls
    if n_groups > 1:
        assert first == [(list(range(n_groups - 1)), [(12, 6)] * (n_groups - 1), None)]
        assert last == ([n_groups - 1], [(6, 3)], rule)  # one bucket per survivor (6) keeping exactly k
    else:
        assert first == [] and last == ([0], [(100, 3)], rule)


class _Noiseless:
    """A round step that reports the true counts (for checking what a round keeps)."""

    def __init__(self, seed):
        self.gen = np.random.default_rng(seed)

    def counts(self, valid_counts, n_users):
        return valid_counts


def test_shuffle_round_keeps_the_best_buckets_best_first():
    held = np.array([5, 0, 9, 1, 7, 3, 0, 8])
    cands = np.array([0, 2, 3, 4, 5, 7])
    singles = E._shuffle_round(cands, held, int(held.sum()), cands.size, 3, _Noiseless(0))
    assert singles.tolist() == [2, 7, 4]
    checked = 0
    for seed in range(20):  # buckets of two: the kept candidates are exactly those of the two heaviest buckets
        perm, pos, n_buckets = E.shuffle_into_buckets(cands, 3, np.random.default_rng(seed))
        kept = E._shuffle_round(cands, held, int(held.sum()), 3, 2, _Noiseless(seed))
        sums = np.bincount(pos, weights=held[perm], minlength=n_buckets)
        best = np.argsort(-sums, kind="stable")[:2]
        if sums[best[0]] > sums[best[1]] > np.delete(sums, best).max():  # no ties: the ranking is determined
            checked += 1
            assert sorted(kept.tolist()) == sorted(perm[np.isin(pos, best)].tolist())
            assert held[kept[:2]].sum() == sums[best[0]]  # the best bucket's candidates come first
    assert checked >= 5


def test_pem_children_extend_each_kept_suffix_pad_major():
    kids = E._pem_children(np.array([1, 3]), 2, 3, 7)
    assert kids.tolist() == [[1, 5], [3, 7]]
    assert kids.T.ravel().tolist() == [1, 3, 5, 7]  # pad-major: every kept suffix with pad 0, then with pad 1
    assert ((kids & 0b11) == np.array([[1], [3]])).all()
    assert E._pem_children(None, 0, 3, 6).tolist() == [[0, 1, 2, 3, 4, 5]]
