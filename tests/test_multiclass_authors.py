"""The models of the authors' evaluation quirks (Fig. 6): simulated squared errors match the closed forms."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ldp.multiclass import PTJ
from ldp.multiclass import authors as P
from ldp.oracles import GRR

TABLE = np.array([[800, 150, 40], [60, 30, 20]])


@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_ptj_as_published_mse(eps):
    F = PTJ(eps, 2, 3)
    assert isinstance(F.oracle, GRR)
    rng = np.random.default_rng(1)
    R = 4000
    err = np.array([(P.ptj_as_published_estimate(F, F.simulate_counts(TABLE, rng)) - TABLE) ** 2 for _ in range(R)])
    mse = P.ptj_as_published_mse(TABLE, eps)
    se = err.std(axis=0, ddof=1) / math.sqrt(R)
    assert np.all(np.abs(err.mean(axis=0) - mse) <= 5 * se)
    # the quirk biases the estimate: its MSE exceeds the correct variance
    assert np.all(mse > F.variance(TABLE.sum(), TABLE / TABLE.sum()))


def test_ptj_as_published_is_correct_under_oue():
    F = PTJ(0.5, 2, 30)
    tab = np.tile(TABLE, (1, 10))
    np.testing.assert_allclose(P.ptj_as_published_mse(tab, 0.5), F.variance(tab.sum(), tab / tab.sum()))


# ---------------------------------------------------------------------------- HEC as in the authors' script
def _script_literal_moments(tab, eps, F):
    """Exact mean and variance of the script's HEC estimates by enumerating every order of the users.

    For one order, the users are cut into consecutive groups of N // c; each member of group j lights the
    position scored as item i with a probability read off her encoding as the script builds it: GRR over
    d + 1 values (p on her own value, q elsewhere; the extra value is d), or the bit vector of length d + 1
    with her 1 at position item + 1 (none for the extra value), position i being read for item i.
    Independent of the closed form under test."""
    c, d = tab.shape
    labels = np.repeat(np.arange(c * d) // d, tab.ravel())
    items = np.repeat(np.arange(c * d) % d, tab.ravel())
    N = labels.size
    m = N // c
    branch = P.hec_script_branch(eps, d)
    if branch == "GRR":
        p, q = GRR(eps, d + 1).p, GRR(eps, d + 1).q
        pc, qc = GRR(eps, d).p, GRR(eps, d).q
    else:
        p, q = 0.5, 1 / (math.exp(eps) + 1)
        pc, qc = p, q
    orders = list(itertools.permutations(range(N)))
    m1 = np.zeros((c, c, d))
    m2 = np.zeros((c, c, d))
    for order in orders:
        order = np.array(order)
        for j in range(c):
            members = order[j * m : (j + 1) * m]
            for i in range(d):
                light = []
                for u in members:
                    valid = labels[u] == j
                    if branch == "GRR":
                        own = items[u] if valid else d
                        light.append(p if own == i else q)
                    else:
                        pos = items[u] + 1 if valid else None
                        light.append(p if pos == i else q)
                light = np.array(light)
                mean_s = light.sum()
                var_s = (light * (1 - light)).sum()
                est_mean = F * (mean_s - m * qc) / (pc - qc)
                m1[j, j, i] += est_mean
                m2[j, j, i] += est_mean**2 + F**2 * var_s / (pc - qc) ** 2
            for C in range(c):
                if C != j:
                    const = F * (0 - m * qc) / (pc - qc)
                    m1[j, C] += const
                    m2[j, C] += const**2
    m1 /= len(orders)
    m2 /= len(orders)
    return m1, m2 - m1**2


@pytest.mark.parametrize(
    "eps, tab",
    [
        (1.0, [[2, 1], [1, 1]]),  # d + 1 = 3 values: GRR branch
        (0.1, [[1, 0, 2, 0, 0], [0, 1, 0, 0, 1]]),  # d + 1 = 6: OUE branch
        (0.1, [[1, 0, 1, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 1, 0]]),
    ],
    ids=["GRR", "OUE", "OUE-c3-leftover"],
)
def test_hec_script_moments_equal_enumeration(eps, tab):
    tab = np.array(tab)
    mean, var = P.hec_as_published_moments(tab, eps, 3)
    m1, v1 = _script_literal_moments(tab, eps, 3)
    np.testing.assert_allclose(mean, m1, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(var, v1, rtol=1e-10, atol=1e-9)
    mse = P.hec_as_published_mse(tab, eps, 3)
    np.testing.assert_allclose(mse, v1 + (m1 - tab[None]) ** 2, rtol=1e-10)


def test_hec_script_oue_branch_scores_the_shifted_row():
    """In the OUE branch the expected estimate of item i >= 1 is the (scaled) count of item i - 1, and item 0
    has expectation 0; in the GRR branch it is item i itself (with the wrong calibration)."""
    tab = np.array([[500, 0, 300, 0, 0, 0], [0, 200, 0, 0, 100, 0]])
    assert P.hec_script_branch(0.5, 6) == "OUE"
    mean, _ = P.hec_as_published_moments(tab, 0.5, 4)
    m = tab.sum() // 2
    for j in range(2):
        np.testing.assert_allclose(mean[j, j, 1:], 4 * m / tab.sum() * tab[j, :-1])
        assert mean[j, j, 0] == pytest.approx(0.0, abs=1e-9)
    unshifted, _ = P.hec_as_published_moments(tab, 0.5, 4, shift_oue=False)
    np.testing.assert_allclose(unshifted[1, 1], 4 * m / tab.sum() * tab[1])
    assert P.hec_script_branch(4.0, 6) == "GRR"
    g7, g6 = GRR(4.0, 7), GRR(4.0, 6)
    mean, _ = P.hec_as_published_moments(tab, 4.0, 4)
    expected = 4 * (m * g7.q + (g7.p - g7.q) * m * tab[0] / tab.sum() - m * g6.q) / (g6.p - g6.q)
    np.testing.assert_allclose(mean[0, 0], expected)


@pytest.mark.parametrize("eps", [0.3, 3.0], ids=["OUE", "GRR"])
def test_hec_script_simulation_matches_moments(eps):
    """Count-level sampler and per-user script agree with the exact moments (5 standard errors)."""
    tab = np.array([[300, 40, 120, 10, 60, 0], [20, 80, 5, 90, 15, 61]])
    c, d = tab.shape
    assert P.hec_script_branch(eps, d) == ("OUE" if eps < 1 else "GRR")
    mean, var = P.hec_as_published_moments(tab, eps, 8)
    rng = np.random.default_rng(3)
    labels = np.repeat(np.arange(c * d) // d, tab.ravel())
    items = np.repeat(np.arange(c * d) % d, tab.ravel())
    for how, R in (("count", 4000), ("user", 600)):
        est = []
        for _ in range(R):
            if how == "count":
                t = P.hec_script_simulate(tab, eps, rng)
            else:
                perm = rng.permutation(labels.size)
                t = P.hec_script_reports(labels[perm], items[perm], c, d, eps, rng)
            est.append(P.hec_as_published_estimate(t, eps, 8))
        est = np.array(est)
        diag = np.array([est[:, j, j] for j in range(c)]).transpose(1, 0, 2)
        m_diag = np.array([mean[j, j] for j in range(c)])
        v_diag = np.array([var[j, j] for j in range(c)])
        assert np.all(np.abs(diag.mean(axis=0) - m_diag) <= 5 * np.sqrt(v_diag / R))
        z = (diag.var(axis=0, ddof=1) / v_diag - 1) / math.sqrt(2 / (R - 1))
        assert np.all(np.abs(z) <= 5)
        off = est[:, 0, 1]
        np.testing.assert_allclose(off, mean[0, 1][None].repeat(R, 0))


def test_hec_script_input_checks():
    with pytest.raises(ValueError, match="n_features"):
        P.hec_as_published_mse(TABLE, 1.0, 0)
    with pytest.raises(ValueError, match="N must be at least"):
        P.hec_script_group_sizes(1, 2)


def test_hec_topk_script_variance_matches_its_simulation():
    """The shared-row OUE step of the authors' SYN HEC script: closed-form moments against a direct simulation."""
    from ldp.multiclass.authors import hec_topk_script_count_variance, hec_topk_script_counts
    from ldp.oracles import OUE

    slots = np.array([300, 50, 20, 20, 10, 5])
    eps, R = 4.0, 20000
    rng = np.random.default_rng(7)
    sims = np.array([hec_topk_script_counts(slots, eps, rng) for _ in range(R)])
    q = OUE(eps, 2).q
    mean = slots / 2 + q * (slots.sum() - slots)
    var = hec_topk_script_count_variance(slots, eps)
    assert np.all(np.abs(sims.mean(axis=0) - mean) <= 5 * np.sqrt(var / R))
    assert np.all(np.abs(sims.var(axis=0, ddof=1) / var - 1) <= 5 * np.sqrt(2 / (R - 1)) + 0.02)


def test_hec_topk_script_noise_grows_with_the_number_of_candidates():
    """With many equal slots the shared rows repeat each draw once per other candidate: variance x (M - 1)."""
    from ldp.multiclass.authors import hec_topk_script_count_variance, oue_count_variance

    slots = np.full(81, 1000)
    ratio = hec_topk_script_count_variance(slots, 4.0) / oue_count_variance(slots, 4.0)
    assert np.all(ratio > 40)
    # a single other candidate: rows are not shared, so the noise matches OUE's up to the own-bit term
    two = np.array([0, 500])
    assert hec_topk_script_count_variance(two, 4.0)[0] == pytest.approx(oue_count_variance(two, 4.0)[0])
    with pytest.raises(ValueError, match="slot_counts"):
        hec_topk_script_count_variance(np.array([1.5, 2.0]), 4.0)


def test_hec_topk_as_scripted_buries_the_top_items_with_many_classes():
    """With many invalid users the shared rows drown HEC's signal; with a huge budget the noise vanishes."""
    from ldp.multiclass.authors import hec_topk_as_scripted
    from ldp.multiclass.datasets import syn_classes_table
    from ldp.multiclass.topk import hec_topk, score_topk, true_topk

    table = syn_classes_table(8, shared=True, d=2048, total=8e5, rng=0)
    truth = true_topk(table, 10)

    def f1(miner, eps, seeds):
        return np.mean([score_topk(miner(table, 10, eps, s, route="users").items, truth)["f1"] for s in seeds])

    res = hec_topk_as_scripted(table, 10, 4.0, rng=0, route="users")
    assert res.items.shape == (8, 10) and res.rounds == len(res.info["levels"])
    assert f1(hec_topk_as_scripted, 4.0, range(3)) < f1(hec_topk, 4.0, range(3)) - 0.08
    assert abs(f1(hec_topk_as_scripted, 40.0, range(2)) - f1(hec_topk, 40.0, range(2))) < 0.1
