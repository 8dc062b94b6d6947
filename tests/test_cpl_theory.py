"""Section IV of Jayawardana et al.: Algorithms 1 and 2, closed forms, lemmas."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon
from ldp.cpl import theory as th
from ldp.oracles import GRR
from ldp.oracles.unary import OUE

APPK = np.array([[0.20, 0, 0, 0], [0, 0.20, 0, 0], [0.10, 0.15, 0.03, 0.02], [0.10, 0.15, 0.03, 0.02]])


def random_conditional(rng, m, t, zero_frac=0.0):
    P = rng.dirichlet(np.ones(t), size=m)
    if zero_frac:
        P = np.where(rng.random((m, t)) < zero_frac, 0.0, P)
        for i in range(m):  # keep every row a distribution
            if P[i].sum() == 0:
                P[i, rng.integers(t)] = 1.0
        P /= P.sum(axis=1, keepdims=True)
    return P


def random_channel(rng, t, n_out, mix):
    R = rng.dirichlet(np.ones(n_out), size=t)
    return (1 - mix) * R + mix / n_out


def brute_alg1(P, T, rows=False):
    """Algorithm 1 as literal loops over (C, x, x'); C = column (Eq. (8)) or row (printed line 3)."""
    l = 0.0
    vectors = [T[u, :] for u in range(T.shape[0])] if rows else [T[:, y] for y in range(T.shape[1])]
    for C in vectors:
        for x, xp in itertools.permutations(range(P.shape[0]), 2):
            num, den = C @ P[x], C @ P[xp]
            if den == 0:
                if num > 0:
                    return math.inf
                continue
            if num > 0:
                l = max(l, math.log(num / den))
    return l


def brute_hbar(g, gp, eps):
    """max over every subset S of (1 + λA_S)/(1 + λB_S) (the empty set gives 1)."""
    lam = math.expm1(eps)
    best, t = 1.0, len(g)
    for r in range(1, t + 1):
        for S in itertools.combinations(range(t), r):
            S = list(S)
            best = max(best, (1 + lam * g[S].sum()) / (1 + lam * gp[S].sum()))
    return best


# ----------------------------------------------------------------------------- Algorithm 1
@pytest.mark.parametrize("seed", range(6))
def test_alg1_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    m, t, n_out = rng.integers(2, 6), rng.integers(2, 6), rng.integers(2, 7)
    P = random_conditional(rng, m, t, zero_frac=0.3 if seed % 2 else 0.0)
    T = random_channel(rng, t, n_out, mix=0.2)
    assert th.cpl_alg1(P, T) == pytest.approx(brute_alg1(P, T), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_printed_row_reading_is_brute_force_over_rows_and_differs_for_asymmetric_T(seed):
    rng = np.random.default_rng(100 + seed)
    t = 4
    P = random_conditional(rng, 3, t)
    T = random_channel(rng, t, t, mix=0.3)
    assert th.cpl_alg1(P, T, reading="rows") == pytest.approx(brute_alg1(P, T, rows=True), rel=1e-12)
    # symmetric channels: both readings agree
    G = GRR(1.3, t).channel()
    assert th.cpl_alg1(P, G, reading="rows") == pytest.approx(th.cpl_alg1(P, G), rel=1e-12)
    assert abs(th.cpl_alg1(P, T, reading="rows") - th.cpl_alg1(P, T)) > 1e-6


def test_alg1_zero_and_infinite_ratios():
    P = np.array([[1.0, 0.0], [0.0, 1.0]])
    T = np.eye(2)  # unperturbed neighbour: disjoint outputs, g' = 0 < g
    assert th.cpl_alg1(P, T) == math.inf
    T2 = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])  # an output never produced (0/0) is skipped
    assert th.cpl_alg1(P, T2) == 0.0
    l, witness = th.cpl_alg1(P, GRR(1.0, 2).channel(), return_witness=True)
    assert l == pytest.approx(1.0) and witness is not None


@pytest.mark.parametrize("t", [2, 3, 5, 8])
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_alg1_grr_is_closed_form_G_and_exp_is_grr_at_half(t, eps):
    rng = np.random.default_rng(t)
    P = random_conditional(rng, 4, t)
    assert th.cpl_alg1(P, GRR(eps, t).channel()) == pytest.approx(th.cpl_grr(P, eps), rel=1e-10)
    assert th.cpl_alg1(P, GRR(eps / 2, t).channel()) == pytest.approx(th.cpl_exp(P, eps), rel=1e-10)


# ----------------------------------------------------------------------------- Algorithm 2
@pytest.mark.parametrize("seed", range(30))
def test_alg2_greedy_equals_brute_force_and_prefix_max(seed):
    rng = np.random.default_rng(seed)
    t = int(rng.integers(2, 9))
    eps = float(rng.uniform(0.05, 6))
    P = random_conditional(rng, 2, t, zero_frac=0.25 if seed % 3 == 0 else 0.0)
    g, gp = P
    for tie in ("strict", "inclusive"):
        res = th.alg2_pair(g, gp, eps, tie=tie)
        assert res.hbar == pytest.approx(brute_hbar(g, gp, eps), rel=1e-12)
        assert res.hbar == pytest.approx(th.hbar(g[res.selected].sum(), gp[res.selected].sum(), eps), rel=1e-12)
    want = math.log(max(brute_hbar(g, gp, eps), brute_hbar(gp, g, eps)))
    assert th.cpl_alg2(P, eps).leakage == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(10))
def test_vectorised_alg2_matches_loop_including_relaxation(seed):
    rng = np.random.default_rng(50 + seed)
    m, t = int(rng.integers(2, 6)), int(rng.integers(2, 7))
    P = random_conditional(rng, m, t, zero_frac=0.2 if seed % 2 else 0.0)
    eps, delta = float(rng.uniform(0.1, 4)), 1e-3
    for tie in ("strict", "inclusive"):
        best, f, pair = 0.0, 0.0, None
        for x, xp in itertools.permutations(range(m), 2):
            r = th.alg2_pair(P[x], P[xp], eps, delta, tie=tie)
            if math.log(r.hbar) > best:
                best, f, pair = math.log(r.hbar), r.relaxation, (x, xp)
        out, got_pair = th.cpl_alg2(P, eps, delta, tie=tie, return_pair=True)
        assert out.leakage == pytest.approx(best, rel=1e-12, abs=1e-15)
        assert out.relaxation == pytest.approx(f, rel=1e-9, abs=1e-15)
        assert got_pair == pair


def test_alg2_ties_change_only_the_relaxation():
    # an exact tie above 1: at eps = ln 2 (lambda = 1) the second ratio 0.3/0.25 = 1.2 equals H after step one
    g, gp = np.array([0.5, 0.3, 0.2]), np.array([0.25, 0.25, 0.5])
    strict = th.alg2_pair(g, gp, math.log(2), 0.01, tie="strict")
    inclusive = th.alg2_pair(g, gp, math.log(2), 0.01, tie="inclusive")
    assert strict.hbar == inclusive.hbar == pytest.approx(1.2)
    assert strict.selected.tolist() == [0] and inclusive.selected.tolist() == [0, 1]
    assert strict.relaxation == pytest.approx(0.005) and inclusive.relaxation == pytest.approx(0.008)


@pytest.mark.parametrize("tie", ["strict", "inclusive"])
@pytest.mark.parametrize("m", [2, 4])
def test_alg2_rows_all_equal_agree(tie, m):
    """Rows that are all equal leak nothing: (0, 0) from cpl_alg2 under both tie rules (line 14 never keeps the
    f* of a pair with ln H* = 0), while the pair-level greedy follows its documented rule (lines 5-13): with
    G = G' every ratio equals the current value 1, so ">=" adds every element (A = 1, f* = delta) and ">" none."""
    g = np.array([0.2, 0.3, 0.5])
    P = np.tile(g, (m, 1))
    out = th.cpl_alg2(P, 1.0, 0.01, tie=tie)
    assert out == (0.0, 0.0)
    for x, xp in itertools.permutations(range(m), 2):
        r = th.alg2_pair(P[x], P[xp], 1.0, 0.01, tie=tie)
        assert r.hbar == 1.0
        if tie == "inclusive":
            assert r.A == r.B == 1.0 and r.selected.tolist() == [0, 1, 2] and r.relaxation == 0.01
        else:
            assert r.A == r.B == 0.0 and r.selected.size == 0 and r.relaxation == 0.0


def _algorithm2_as_printed(P, eps, delta, tie):
    """Lines 1-19 of Algorithm 2 (Jayawardana et al.), transcribed literally: no break, the ``if`` of line 8 with
    ``>=`` (``tie="inclusive"``) or ``>`` (``"strict"``), line 14's ``l < ln H*`` against ``l = 0``, and
    ``f* = 0`` when no pair passes line 14.  Entries with 0/0 are left out of the sort (their ratio is undefined)."""
    lam = math.expm1(eps)
    l, f_bar = 0.0, 0.0  # line 1
    for x, xp in itertools.permutations(range(P.shape[0]), 2):  # line 2
        G, Gp = P[x], P[xp]  # lines 3-4
        keep = (G > 0) | (Gp > 0)
        with np.errstate(divide="ignore"):
            ratio = np.where(keep, G / np.where(Gp > 0, Gp, 1.0), 0.0)
        ratio = np.where(keep & (Gp == 0), np.inf, ratio)
        order = [i for i in sorted(np.flatnonzero(keep), key=lambda i: -ratio[i])]  # line 5 (stable)
        A = B = 0.0  # line 6
        for i in order:  # line 7
            current = (1 + A * lam) / (1 + B * lam)
            if (ratio[i] >= current) if tie == "inclusive" else (ratio[i] > current):  # line 8
                A, B = A + G[i], B + Gp[i]  # lines 9-10
        H = (1 + A * lam) / (1 + B * lam)  # line 13
        if l < math.log(H):  # line 14
            l, f_bar = math.log(H), delta * A  # lines 15-16
    return l, f_bar  # line 19


@pytest.mark.parametrize("tie", ["strict", "inclusive"])
@pytest.mark.parametrize("seed", range(12))
def test_cpl_alg2_follows_the_printed_lines(tie, seed):
    """cpl_alg2 equals the literal transcription of Algorithm 2, including equal rows (no leak: (0, 0)) and
    exact ties (rows built from a few repeated probabilities)."""
    rng = np.random.default_rng(900 + seed)
    m, t = int(rng.integers(2, 5)), int(rng.integers(2, 6))
    if seed % 3 == 0:  # some rows repeated: pairs with G = G'
        P = random_conditional(rng, 2, t)[rng.integers(0, 2, size=m)]
    elif seed % 3 == 1:  # probabilities on a coarse grid: exact ratio ties
        P = rng.integers(0, 3, size=(m, t)).astype(float) + np.eye(m, t)
        P /= P.sum(axis=1, keepdims=True)
    else:
        P = random_conditional(rng, m, t, zero_frac=0.2)
    eps, delta = float(rng.choice([math.log(2), 0.7, 2.0])), 1e-2
    want_l, want_f = _algorithm2_as_printed(P, eps, delta, tie)
    out = th.cpl_alg2(P, eps, delta, tie=tie)
    assert out.leakage == pytest.approx(want_l, rel=1e-12, abs=1e-15)
    assert out.relaxation == pytest.approx(want_f, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("seed", range(20))
def test_alg1_never_exceeds_alg2_for_any_ldp_channel(seed):
    rng = np.random.default_rng(200 + seed)
    t = int(rng.integers(2, 6))
    P = random_conditional(rng, int(rng.integers(2, 5)), t, zero_frac=0.2)
    T = random_channel(rng, t, int(rng.integers(2, 8)), mix=float(rng.uniform(0.05, 0.9)))
    eps = channel_epsilon(T)
    assert th.cpl_alg1(P, T) <= th.cpl_alg2(P, eps).leakage + 1e-12


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_binary_neighbour_alg2_equals_grr(eps):
    rng = np.random.default_rng(7)
    P = random_conditional(rng, 5, 2)
    assert th.cpl_alg2(P, eps).leakage == pytest.approx(th.cpl_grr(P, eps), rel=1e-12)
    assert th.cpl_alg1(P, GRR(eps, 2).channel()) == pytest.approx(th.cpl_grr(P, eps), rel=1e-12)


@pytest.mark.parametrize("t", [2, 3, 4])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_raw_oue_channel_attains_the_alg2_bound(t, eps):
    """The full OUE bit-vector channel is two-level with every possible high set."""
    rng = np.random.default_rng(t)
    for _ in range(5):
        P = random_conditional(rng, 3, t)
        T = OUE(eps, t).channel()
        assert th.cpl_alg1(P, T) == pytest.approx(th.cpl_alg2(P, eps).leakage, rel=1e-10)


def test_range_monotonicity_and_extremes():
    rng = np.random.default_rng(3)
    P = random_conditional(rng, 4, 5)
    eps_grid = np.linspace(0, 8, 33)
    ls = np.array([th.cpl_alg2(P, e).leakage for e in eps_grid])
    assert np.all(ls >= 0) and np.all(ls <= eps_grid + 1e-12)
    assert np.all(np.diff(ls) >= -1e-12)
    assert th.cpl_alg2(P, 0.0).leakage == 0.0  # Corollary H.2, ε = 0
    indep = np.tile(P[0], (4, 1))
    assert th.cpl_alg2(indep, 3.0).leakage == 0.0  # Corollary H.2, independence
    assert th.cpl_grr(indep, 3.0) == 0.0
    assert th.cpl_alg2(APPK / APPK.sum(1, keepdims=True), 2.5).leakage == pytest.approx(2.5)  # Cor. H.1
    assert th.disjoint_pairs(P) == []  # l < ε without disjoint supports
    assert th.cpl_alg2(P, 2.5).leakage < 2.5


def test_saturation_corollary_iv4():
    rng = np.random.default_rng(11)
    P = random_conditional(rng, 3, 4)  # all entries > 0: finite saturation
    sat = th.cpl_saturation(P)
    assert math.isfinite(sat)
    assert th.cpl_alg2(P, 30.0).leakage == pytest.approx(sat, rel=1e-9)
    assert th.cpl_grr(P, 30.0) == pytest.approx(sat, rel=1e-9)
    assert th.cpl_alg2(P, 3.0).leakage <= sat
    Pz = P.copy()
    Pz[0] = [0.5, 0.5, 0.0, 0.0]
    Pz[1] = [0.0, 0.4, 0.3, 0.3]  # a zero g' under a positive g: unbounded growth
    assert th.cpl_saturation(Pz) == math.inf
    assert th.cpl_alg2(Pz, 30.0).leakage > th.cpl_alg2(Pz, 10.0).leakage > th.cpl_alg2(Pz, 3.0).leakage


def test_appendix_k_closed_forms_and_direction():
    fwd = th.conditional(APPK)  # P(X̂ | X_k): L_{X̂→X_k}
    rev = th.conditional(APPK, given="columns")  # P(X_k | X̂): L_{X_k→X̂}
    expected_rev = {0.5: 0.280930, 1.0: 0.620115, 2.0: 1.433781}
    expected_exp = {0.5: 0.132792, 1.0: 0.280930, 2.0: 0.620115}
    for eps, want in expected_rev.items():
        assert th.appendix_k_closed_form(eps) == pytest.approx((eps, want), abs=5e-7)
        assert th.cpl_alg2(fwd, eps).leakage == pytest.approx(eps, rel=1e-12)
        assert th.cpl_grr(fwd, eps) == pytest.approx(eps, rel=1e-12)
        assert th.cpl_alg2(rev, eps).leakage == pytest.approx(want, abs=5e-7)
        assert th.cpl_grr(rev, eps) == pytest.approx(want, abs=5e-7)
        assert th.cpl_exp(rev, eps) == pytest.approx(expected_exp[eps], abs=5e-7)
        assert th.cpl_alg2(fwd, eps).leakage != pytest.approx(th.cpl_alg2(rev, eps).leakage)
    res = th.alg2_pair(rev[0], rev[1], 1.0)
    assert res.selected.tolist() == [0] and res.A == pytest.approx(0.5) and res.B == 0.0


def test_cvd_fixture_asymmetry():
    J = np.array([[0.42012, 0.05334, 0.02684], [0.32863, 0.08279, 0.08827]])  # rows cardio, cols cholesterol
    assert th.cpl_grr(th.conditional(J, given="columns"), 1.0) == pytest.approx(0.3381, abs=5e-5)  # Cardio→Chol
    assert th.cpl_grr(th.conditional(J), 1.0) == pytest.approx(0.1769, abs=5e-5)  # Chol→Cardio


# ----------------------------------------------------------------------------- lemmas and propositions
def test_lemma_iv3_ratio_of_sums_bounded_by_best_single_ratio():
    rng = np.random.default_rng(5)
    for _ in range(200):
        t = int(rng.integers(1, 7))
        g, gp = rng.random(t), rng.random(t) + 1e-3
        best = max(
            g[list(S)].sum() / gp[list(S)].sum() for r in range(1, t + 1) for S in itertools.combinations(range(t), r)
        )
        assert best == pytest.approx(np.max(g / gp), rel=1e-12)


def test_lemma_iv5_and_j1_sign_of_the_increment():
    rng = np.random.default_rng(6)
    for _ in range(2000):
        A, B, gp = rng.random(3)
        sigma = rng.random() * 4
        lam = math.expm1(rng.uniform(0.01, 5))
        cur = (1 + A * lam) / (1 + B * lam)
        new = (1 + (A + sigma * gp) * lam) / (1 + (B + gp) * lam)
        if abs(sigma - cur) > 1e-9:
            assert (new - cur >= 0) == (sigma >= cur)
            if sigma >= cur:  # Lemma J.1: the new value never passes σ
                assert new <= sigma + 1e-12


def test_lemma_c1_linear_fractional_monotonicity():
    rng = np.random.default_rng(8)
    x = np.linspace(0, 1, 50)
    for _ in range(200):
        a1, b1, a2, b2 = rng.random(4) + 0.01
        f = (a1 * x + b1) / (a2 * x + b2)
        if a1 * b2 - a2 * b1 >= 0:
            assert np.all(np.diff(f) >= -1e-15)
        else:
            assert np.all(np.diff(f) < 0)


def test_proposition_iv2_two_level_vectors_dominate():
    """Any C with max/min <= e^ε gives F(C) <= H̄*, and the two-level C of S* attains it (δ = 0)."""
    rng = np.random.default_rng(9)
    for _ in range(100):
        t = int(rng.integers(2, 6))
        eps = float(rng.uniform(0.1, 3))
        g, gp = random_conditional(rng, 2, t)
        res = th.alg2_pair(g, gp, eps)
        cmin = rng.uniform(0.01, 0.1)
        for _ in range(20):
            C = cmin * np.exp(rng.uniform(0, eps, size=t))
            assert (C @ g) / (C @ gp) <= res.hbar * (1 + 1e-12)
        C_star = np.full(t, cmin)
        C_star[res.selected] = math.exp(eps) * cmin
        assert (C_star @ g) / (C_star @ gp) == pytest.approx(res.hbar, rel=1e-12)


def test_composition_bound_eq6():
    assert th.tpl_bound(1.0, [0.2, 0.3]) == pytest.approx((1.5, 0.0))
    assert th.tpl_bound(1.0, [0.2, 0.3], delta=1e-3, relaxations=[1e-4, 2e-4]) == pytest.approx((1.5, 1.3e-3))


def test_exact_tpl_and_the_composition_bound():
    rng = np.random.default_rng(12)
    eps = 1.0
    # primary X_k (3 values) and two neighbours, conditionally independent given X_k
    P1, P2 = random_conditional(rng, 3, 2), random_conditional(rng, 3, 3)
    joint = (P1[:, :, None] * P2[:, None, :]).reshape(3, 6)
    T1, T2, Tk = GRR(eps, 2).channel(), GRR(eps, 3).channel(), GRR(eps, 3).channel()
    # brute force: enumerate every (y_k, y_1, y_2)
    best = 0.0
    for yk in range(3):
        for y1 in range(2):
            for y2 in range(3):
                col = [
                    Tk[x, yk] * sum(joint[x, 3 * u + v] * T1[u, y1] * T2[v, y2] for u in range(2) for v in range(3))
                    for x in range(3)
                ]
                best = max(best, math.log(max(col) / min(col)))
    tpl = th.tpl_exact(joint, [T1, T2], Tk)
    assert tpl == pytest.approx(best, rel=1e-12)
    bound = th.tpl_bound(eps, [th.cpl_alg1(P1, T1), th.cpl_alg1(P2, T2)]).leakage
    assert tpl <= bound + 1e-12
    assert th.tpl_exact(P1, [T1]) == pytest.approx(th.cpl_alg1(P1, T1), rel=1e-12)
    assert th.tpl_exact(P1, [T1], GRR(eps, 3).channel()) <= eps + th.cpl_alg1(P1, T1) + 1e-12
    with pytest.raises(ValueError, match="joint values"):
        th.tpl_exact(joint, [T1])


def test_conditional_modes():
    counts = np.array([[10, 1, 0], [0, 0, 0], [3, 2, 5]])
    P = th.conditional(counts)
    assert P.shape == (2, 3) and np.allclose(P.sum(1), 1)  # the empty row is dropped
    Pa = th.conditional(counts, mode="artifact")
    assert Pa[0].tolist() == pytest.approx([1.0, 0.0, 0.0])  # raw counts <= 1 zeroed, others +1
    assert Pa[1].tolist() == pytest.approx([4 / 13, 3 / 13, 6 / 13])
    assert th.conditional(counts, min_count=11).shape == (1, 3)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "bad, exc, message",
    [
        (np.array([[0.5, 0.4], [0.5, 0.5]]), ValueError, r"row-stochastic: row 0 sums to 0\.9"),  # row sum != 1
        (np.array([[1.2, -0.2], [0.5, 0.5]]), ValueError, r"non-negative.*P\[0, 1\]"),  # negative entry
        (np.array([0.5, 0.5]), ValueError, r"2-D matrix.*shape \(2,\)"),  # not 2-D
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), ValueError, r"finite"),
        ([["a", "b"]], TypeError, r"numeric"),
    ],
)
def test_bad_conditionals_fail_clearly(bad, exc, message):
    """Each validator names the table, the offending row/entry and what was expected."""
    for fn in (
        lambda P: th.cpl_alg2(P, 1.0),
        lambda P: th.cpl_grr(P, 1.0),
        th.cpl_saturation,
        lambda P: th.cpl_alg1(P, np.eye(2)),
        th.check_release_channel,
    ):
        with pytest.raises(exc, match=message):
            fn(bad)


@pytest.mark.parametrize(
    "g, gp, message",
    [
        ([0.5, 0.4], [0.5, 0.5], r"g must sum to 1.*0\.9"),
        ([0.5, 0.5], [1.2, -0.2], r"gp must be finite and non-negative"),
    ],
)
def test_alg2_pair_rejects_bad_rows(g, gp, message):
    with pytest.raises(ValueError, match=message):
        th.alg2_pair(g, gp, 1.0)


@pytest.mark.parametrize("delta", [-0.1, -1e-12, 1.0, 1.5, float("nan"), float("inf")])
def test_delta_outside_unit_interval_rejected_by_pair_and_tpl(delta):
    """δ must lie in [0, 1): the message names δ, its value and the interval (issue 7 acceptance)."""
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got"):
        th.alg2_pair([0.5, 0.5], [0.2, 0.8], 1.0, delta)
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got"):
        th.tpl_bound(1.0, [0.2, 0.3], delta)
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\), got"):
        th.cpl_alg2(np.eye(2), 1.0, delta)


@settings(max_examples=40, deadline=None)
@given(delta=st.one_of(st.floats(max_value=-1e-12, allow_nan=False), st.floats(min_value=1.0), st.just(float("nan"))))
def test_delta_outside_unit_interval_rejected(delta):
    with pytest.raises(ValueError, match="delta"):
        th.cpl_alg2(np.eye(2), 1.0, delta)


@settings(max_examples=30, deadline=None)
@given(eps=st.one_of(st.floats(max_value=-1e-12, allow_nan=False), st.just(float("inf")), st.just(float("nan"))))
def test_bad_epsilon_rejected(eps):
    with pytest.raises(ValueError, match="epsilon"):
        th.cpl_alg2(np.eye(2), eps)


def test_other_bad_arguments():
    P = np.eye(2)
    with pytest.raises(ValueError, match="tie"):
        th.cpl_alg2(P, 1.0, tie="loose")
    with pytest.raises(ValueError, match="T must have one row"):
        th.cpl_alg1(P, np.eye(3))
    with pytest.raises(ValueError, match="reading"):
        th.cpl_alg1(P, np.eye(2), reading="diagonal")
    with pytest.raises(ValueError, match="non-negative"):
        th.conditional([[1, -1]])
    with pytest.raises(ValueError, match="given"):
        th.conditional([[1, 1]], given="both")


def test_random_conditional_rows_and_zeros():
    from ldp.cpl.theory import random_conditional

    P = random_conditional(4, 5, rng=1, zero_frac=0.5)
    assert P.shape == (4, 5) and np.allclose(P.sum(axis=1), 1) and (P >= 0).all() and (P == 0).any()
    assert np.array_equal(random_conditional(3, 3, rng=7), random_conditional(3, 3, rng=7))
    with pytest.raises(ValueError, match="zero_frac"):
        random_conditional(2, 2, rng=0, zero_frac=1.0)
    with pytest.raises(ValueError):
        random_conditional(0, 2, rng=0)
