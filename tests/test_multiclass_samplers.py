"""Count-level samplers of the multi-class frameworks agree in distribution with per-user perturbation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.audit import two_sample_agreement
from ldp.multiclass import CP, HEC, PTJ, PTS, VP, table_to_pairs
from ldp.multiclass import samplers as S
from ldp.oracles import GRR, OUE

TABLE = np.array([[60, 25, 15, 0], [10, 40, 30, 20], [5, 5, 50, 40]])
MAKERS = {
    "HEC": lambda: HEC(1.0, 3, 4),
    "HEC-random": lambda: HEC(1.0, 3, 4, invalid="random"),
    "PTJ": lambda: PTJ(1.0, 3, 4),
    "PTJ-OUE": lambda: PTJ(2.0, 3, 12),
    "PTS": lambda: PTS(1.0, 3, 4),
    "PTS-GRR": lambda: PTS(2.0, 3, 4, item_oracle="adaptive"),
    "CP": lambda: CP(1.0, 3, 4),
}


def _tally_vector(t):
    parts = [np.ravel(t.pair)] + [np.ravel(x) for x in (t.label, t.item, t.group) if x is not None]
    return np.concatenate(parts)


@pytest.mark.parametrize("name", list(MAKERS))
def test_framework_tallies_agree_with_user_level(name):
    """Each tally coordinate: same mean (z-test) and same distribution (two-sample chi-square)."""
    F = MAKERS[name]()
    tab = TABLE if F.d == 4 else np.tile(TABLE, (1, 3))
    rng = np.random.default_rng(123)
    lab, itm = table_to_pairs(tab, rng)
    R = 400
    user = np.array([_tally_vector(F.support_counts(F.perturb(lab, itm, rng))) for _ in range(R)])
    count = np.array([_tally_vector(F.simulate_counts(tab, rng)) for _ in range(4 * R)])
    assert user.shape[1] == count.shape[1]
    for j in range(user.shape[1]):
        a, b = user[:, j], count[:, j]
        se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        if se == 0:
            assert a[0] == b[0] and np.all(a == a[0]) and np.all(b == b[0])
            continue
        assert abs(a.mean() - b.mean()) <= 4.5 * se
    for j in (0, 5):  # two pair cells, whole distributions
        assert two_sample_agreement(user[:, j].astype(np.int64), count[:, j].astype(np.int64), kind="samples") > 1e-3


def test_vp_sampler_matches_user_level_vp():
    vp = VP(1.0, 4)
    values = np.repeat(np.arange(4), [50, 30, 10, 0])
    values = np.concatenate([values, np.zeros(40, int)])
    valid = np.concatenate([np.ones(90, bool), np.zeros(40, bool)])
    rng = np.random.default_rng(4)
    R = 3000
    user = np.array([np.append(*vp.support_counts(vp.perturb(values, valid, rng))[:2]) for _ in range(R)])
    count = np.array([np.append(*vp.simulate_counts(np.array([50, 30, 10, 0, 40]), rng)[:2]) for _ in range(R)])
    for j in range(5):
        assert two_sample_agreement(user[:, j], count[:, j], kind="samples") > 1e-3


def test_vp_estimator_unbiased():
    vp = VP(0.8, 5)
    n_b = np.array([400, 100, 0, 50, 250])
    rng = np.random.default_rng(6)
    R = 4000
    est = np.array([vp.estimate_counts(vp.simulate_counts(np.append(n_b, 300), rng)) for _ in range(R)])
    se = est.std(axis=0, ddof=1) / math.sqrt(R)
    assert np.all(np.abs(est.mean(axis=0) - n_b) <= 5 * se)


@pytest.mark.parametrize("invalid", ["vp", "replace"])
def test_bucket_counts_count_vs_user(invalid):
    n_b = np.array([30, 0, 12, 8, 50])
    rng = np.random.default_rng(9)
    R = 2000
    c = np.array([S.bucket_counts(n_b, 25, 1.5, invalid=invalid, rng=rng) for _ in range(R)])
    u = np.array([S.bucket_counts(n_b, 25, 1.5, invalid=invalid, method="user", rng=rng) for _ in range(R)])
    for j in range(n_b.size):
        assert two_sample_agreement(c[:, j], u[:, j], kind="samples") > 1e-3


def test_grr_reported_labels_matches_grr():
    tab = np.array([[500, 0], [100, 300], [0, 250]])
    g = GRR(1.0, 3)
    rng = np.random.default_rng(1)
    moved = np.array([S.grr_reported_labels(tab, g.p, g.q, rng)[0, 0] for _ in range(2000)])
    user = np.array([np.bincount(g.perturb(np.zeros(500, int), rng), minlength=3) for _ in range(2000)])
    assert np.all(moved.sum(axis=1) == 500)
    for j in range(3):
        assert two_sample_agreement(moved[:, j], user[:, j], kind="samples") > 1e-3


def test_split_table_is_a_partition_with_hypergeometric_margins():
    rng = np.random.default_rng(2)
    tab = np.array([[100, 20], [0, 80]])
    parts = [S.split_table(tab, [70, 70, 60], rng) for _ in range(3000)]
    for p in parts[:20]:
        assert np.array_equal(sum(p), tab)
        assert [int(x.sum()) for x in p] == [70, 70, 60]
    first = np.array([p[0][0, 0] for p in parts])
    mean, var = 70 * 100 / 200, 70 * 0.5 * 0.5 * 130 / 199
    assert abs(first.mean() - mean) <= 4 * math.sqrt(var / 3000)


def test_sampler_bad_input():
    with pytest.raises(ValueError, match="add up"):
        S.split_table(np.array([[1, 2]]), [1, 1])
    with pytest.raises(ValueError, match="p \\+ \\(c-1\\) q"):
        S.grr_reported_labels(np.ones((3, 2), int), 0.5, 0.5)
    with pytest.raises(ValueError, match="n_invalid"):
        S.vp_counts(np.array([1, 2]), -1, 0.5, 0.2)
    with pytest.raises(ValueError, match="invalid must be"):
        S.bucket_counts(np.array([1, 2]), 0, 1.0, invalid="drop")
    with pytest.raises(TypeError, match="integer"):
        S.ue_counts(np.array([0.5]), 3, 0.5, 0.2)
    with pytest.raises(ValueError, match="n_total"):
        S.ue_counts(np.array([5, 5]), 3, 0.5, 0.2)


def test_ue_counts_delegates_to_the_oracle_sampler():
    """Same generator state, same draws as ldp.oracles.OUE.simulate_counts; unplaced users and N = 0 handled."""
    o = OUE(1.3, 4)
    n_b = np.array([40, 0, 7, 13])
    a = S.ue_counts(n_b, int(n_b.sum()), o.p, o.q, np.random.default_rng(8))
    b = o.simulate_counts(n_b, np.random.default_rng(8))
    assert np.array_equal(a, b)
    assert S.ue_counts(np.zeros(3, int), 0, o.p, o.q, 0).tolist() == [0, 0, 0]
    rng = np.random.default_rng(1)
    extra = np.array([S.ue_counts(np.array([0, 0]), 50, o.p, o.q, rng) for _ in range(2000)])
    assert abs(extra.mean() - 50 * o.q) <= 5 * np.sqrt(50 * o.q * (1 - o.q) / extra.size)
