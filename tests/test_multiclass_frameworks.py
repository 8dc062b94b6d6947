"""HEC, PTJ, PTS and PTS-CP (Mao et al.): privacy from the channels, unbiasedness, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.audit import channel_epsilon, check_channel
from ldp.multiclass import CP, HEC, PTJ, PTS, VP, check_table, pairs_to_table, split_budget, table_to_pairs
from ldp.oracles import GRR, OUE

TABLE = np.array([[300, 100, 50], [20, 200, 330], [100, 0, 400]])
FRAMEWORKS = [
    lambda e, c, d: HEC(e, c, d),
    lambda e, c, d: PTJ(e, c, d),
    lambda e, c, d: PTS(e, c, d),
    lambda e, c, d: CP(e, c, d),
    lambda e, c, d: PTS(e, c, d, item_oracle="adaptive"),
]
IDS = ["HEC", "PTJ", "PTS", "CP", "PTS-adaptive"]


# ---------------------------------------------------------------------------- budget and input checks
def test_split_budget_rules():
    assert split_budget(2.0) == (1.0, 1.0)
    assert split_budget(2.0, epsilon1=0.5) == (0.5, 1.5)
    assert split_budget(2.0, epsilon2=0.5) == (1.5, 0.5)
    assert split_budget(2.0, 0.8, 1.2) == pytest.approx((0.8, 1.2))
    with pytest.raises(ValueError, match="epsilon1 \\+ epsilon2 must equal"):
        split_budget(2.0, 1.0, 1.5)
    with pytest.raises(ValueError, match="> 0"):
        split_budget(2.0, epsilon1=2.0)
    with pytest.raises(ValueError, match="epsilon"):
        PTS(1.0, 3, 3, epsilon1=0.3, epsilon2=0.3)
    with pytest.raises(ValueError, match="epsilon1 \\+ epsilon2"):
        CP(1.0, 3, 3, epsilon1=0.6, epsilon2=0.6)


@pytest.mark.parametrize("make", FRAMEWORKS, ids=IDS)
def test_bad_input_fails_clearly(make):
    F = make(1.0, 3, 4)
    with pytest.raises(ValueError, match="labels contains the code 3"):
        F.perturb([0, 3], [0, 1])
    with pytest.raises(ValueError, match="items contains the code 4"):
        F.perturb([0, 1], [0, 4])
    with pytest.raises(ValueError, match="same length"):
        F.perturb([0, 1, 2], [0, 1])
    with pytest.raises(TypeError, match="integer codes"):
        F.perturb([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="shape \\(3, 4\\)"):
        F.simulate_counts(np.ones((4, 3), dtype=int))
    with pytest.raises(ValueError, match="non-negative"):
        F.simulate_counts(-np.ones((3, 4), dtype=int))
    with pytest.raises(ValueError, match="epsilon"):
        make(0.0, 3, 4)
    with pytest.raises(ValueError, match="c must be >= 2"):
        make(1.0, 1, 4)


def test_table_helpers_roundtrip():
    lab, itm = table_to_pairs(TABLE, rng=0)
    assert np.array_equal(pairs_to_table(lab, itm, 3, 3), TABLE)
    with pytest.raises(ValueError, match="sums to 0"):
        check_table(np.zeros((2, 2), dtype=int))
    with pytest.raises(TypeError):
        check_table(np.full((2, 2), 0.5))


def test_closed_form_constants():
    """GRR/OUE constants with c = 4 and eps = 1 split in half, computed by hand."""
    g, o = GRR(0.5, 4), OUE(0.5, 4)
    assert g.p == pytest.approx(0.3546612444, abs=1e-10)
    assert g.q == pytest.approx(0.2151129185, abs=1e-10)
    assert o.p == 0.5 and o.q == pytest.approx(0.3775406688, abs=1e-10)
    o1 = OUE(1.0, 4)
    assert o1.q == pytest.approx(0.2689414214, abs=1e-10)
    assert o1.q * (1 - o1.q) / (o1.p - o1.q) ** 2 == pytest.approx(4 * math.e / (math.e - 1) ** 2)
    assert 4 * math.e / (math.e - 1) ** 2 == pytest.approx(3.68269, abs=1e-5)


def test_ptj_uses_adaptive_oracle_on_joint_domain():
    """The adaptive choice (GRR iff domain < 3e^eps + 2): at eps = 1 GRR up to 10 joint values, OUE from 11;
    at eps = 4 GRR up to 165."""
    assert isinstance(PTJ(1.0, 2, 5).oracle, GRR)
    assert isinstance(PTJ(1.0, 2, 6).oracle, OUE)
    assert isinstance(PTJ(4.0, 3, 55).oracle, GRR)
    assert isinstance(PTJ(4.0, 2, 83).oracle, OUE)
    assert isinstance(HEC(1.0, 2, 9).oracle, GRR) and HEC(1.0, 2, 9).oracle.d == 10
    assert isinstance(HEC(1.0, 2, 10).oracle, OUE)


# ---------------------------------------------------------------------------- privacy, exactly
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("make", FRAMEWORKS, ids=IDS)
def test_channel_is_exactly_eps_ldp(make, eps):
    F = make(eps, 3, 3)
    P = check_channel(F.channel(), atol=1e-9)
    assert P.shape[0] == 9
    assert channel_epsilon(P) <= eps + 1e-9
    assert channel_epsilon(P) == pytest.approx(eps, abs=1e-9)  # tight


@pytest.mark.parametrize("eps, d", [(0.3, 2), (1.0, 4), (2.5, 5), (6.0, 8)])
def test_vp_channel_is_exactly_eps_ldp(eps, d):
    """VP over d values plus the flag: the exact level of its 2^(d+1)-output channel is eps (Theorem 1)."""
    P = check_channel(VP(eps, d).channel(), atol=1e-9)
    assert P.shape == (d + 1, 2 ** (d + 1))
    assert abs(channel_epsilon(P) - eps) <= 1e-9


def test_cp_privacy_tight():
    """c = d = 3, eps1 = eps2 = 0.5, 3 x 2^4 outputs, worst ratio e^1."""
    P = CP(1.0, 3, 3).channel()
    assert P.shape == (9, 3 * 16)
    assert math.exp(channel_epsilon(P)) == pytest.approx(2.718281828, abs=1e-8)


def test_cp_privacy_with_uneven_split():
    P = CP(1.5, 2, 3, epsilon1=0.4).channel()
    assert channel_epsilon(P) == pytest.approx(1.5, abs=1e-9)


def test_hec_channel_every_group_and_random_item():
    for invalid in ("dummy", "random"):
        F = HEC(1.0, 3, 3, invalid=invalid)
        for j in range(3):
            assert channel_epsilon(check_channel(F.channel(group=j), atol=1e-9)) <= 1.0 + 1e-9


# ---------------------------------------------------------------------------- unbiasedness
@pytest.mark.parametrize("eps", [0.5, 4.0])
@pytest.mark.parametrize(
    "make", FRAMEWORKS + [lambda e, c, d: HEC(e, c, d, invalid="random")], ids=IDS + ["HEC-random"]
)
def test_count_level_estimates_unbiased(make, eps):
    """Mean of R count-level runs within 5 standard errors (exact variance) of the truth, every cell.

    HEC with a random real item instead of the dummy is the one biased estimator: its known
    offset (N - n_C)/d (derived in the theory chapter) is added to the truth before comparing.
    """
    from ldp.multiclass.variance import hec_random_item_bias

    F = make(eps, 3, 3)
    rng = np.random.default_rng(20240)
    R = 3000
    est = np.array([F.run(TABLE, rng) for _ in range(R)])
    se = np.sqrt(F.variance(TABLE.sum(), TABLE / TABLE.sum()) / R)
    offset = hec_random_item_bias(TABLE) if getattr(F, "invalid", "dummy") == "random" else 0.0
    assert np.all(np.abs(est.mean(axis=0) - TABLE - offset) <= 5 * se)


@pytest.mark.parametrize("make", FRAMEWORKS, ids=IDS)
def test_user_level_estimates_unbiased(make):
    F = make(1.0, 3, 3)
    rng = np.random.default_rng(7)
    lab, itm = table_to_pairs(TABLE, rng)
    R = 300
    est = np.array([F.estimate(F.perturb(lab, itm, rng)) for _ in range(R)])
    se = np.sqrt(F.variance(TABLE.sum(), TABLE / TABLE.sum()) / R)
    assert np.all(np.abs(est.mean(axis=0) - TABLE) <= 5 * se)


def test_oue_branches_unbiased():
    """Domains large enough that HEC (d + 1) and PTJ (c d) use OUE."""
    rng = np.random.default_rng(3)
    tab = rng.integers(0, 60, size=(2, 12))
    for F in (HEC(1.0, 2, 12), PTJ(1.0, 2, 12)):
        assert isinstance(F.oracle, OUE)
        R = 2000
        est = np.array([F.run(tab, rng) for _ in range(R)])
        assert np.all(np.abs(est.mean(axis=0) - tab) <= 5 * np.sqrt(F.variance(tab.sum(), tab / tab.sum()) / R))


def test_hec_uneven_groups_unbiased():
    tab = TABLE.copy()
    tab[0, 0] += 1  # N not divisible by c
    F = HEC(1.0, 3, 3)
    assert len(set(F.group_sizes(int(tab.sum())))) == 2
    rng = np.random.default_rng(11)
    R = 3000
    est = np.array([F.run(tab, rng) for _ in range(R)])
    assert np.all(np.abs(est.mean(axis=0) - tab) <= 5 * np.sqrt(F.variance(tab.sum(), tab / tab.sum()) / R))


def test_hec_random_item_bias_matches_formula():
    """With random-item replacement the estimator is biased by (N - n_C)/d."""
    from ldp.multiclass.variance import hec_random_item_bias

    F = HEC(1.0, 3, 3, invalid="random")
    rng = np.random.default_rng(5)
    R = 3000
    est = np.array([F.run(TABLE, rng) for _ in range(R)])
    bias = hec_random_item_bias(TABLE)
    se = np.sqrt(F.variance(TABLE.sum(), TABLE / TABLE.sum()) / R)
    assert np.all(np.abs(est.mean(axis=0) - TABLE - bias) <= 5 * se)
    assert np.all(bias / se > 10)  # the bias is large, not a rounding matter


def test_cp_estimator_unbiased_in_expectation_exactly():
    """Plugging E f~ and E n~ into Eq. (4) returns f exactly (random tables)."""
    from ldp.multiclass.frameworks import Tallies
    from ldp.multiclass.variance import cp_constants

    rng = np.random.default_rng(0)
    for _ in range(20):
        c, d = rng.integers(2, 6), rng.integers(2, 8)
        eps = float(rng.uniform(0.2, 5))
        tab = rng.integers(0, 1000, size=(c, d))
        F = CP(eps, c, d)
        k = cp_constants(F.epsilon1, F.epsilon2, c)
        f, n, N = tab, tab.sum(axis=1, keepdims=True), tab.sum()
        Ef = f * k["alpha"] + (n - f) * k["beta"] + (N - n) * k["gamma"]
        En = n[:, 0] * k["p1"] + (N - n[:, 0]) * k["q1"]
        est = F.estimate_counts(Tallies(N=int(N), pair=Ef, label=En))
        np.testing.assert_allclose(est, tab, atol=1e-6 * max(1, N))


def test_pts_adaptive_item_oracle():
    """item_oracle="adaptive": GRR(eps2) on small item domains, OUE on large ones; Eq. (6) stays unbiased."""
    F = PTS(4.0, 3, 3, item_oracle="adaptive")  # 3 < 3e^2 + 2: GRR items
    assert isinstance(F.item_oracle, GRR) and F.item_oracle.d == 3
    assert isinstance(PTS(1.0, 3, 30, item_oracle="adaptive").item_oracle, OUE)  # 30 > 3e^0.5 + 2
    assert isinstance(PTS(4.0, 3, 3).item_oracle, OUE)  # the default is the paper's OUE
    assert F.channel().shape == (9, 3 * 3)
    # GRR items have a smaller variance than OUE items on this small domain
    assert np.all(
        F.variance(TABLE.sum(), TABLE / TABLE.sum()) < PTS(4.0, 3, 3).variance(TABLE.sum(), TABLE / TABLE.sum())
    )
    with pytest.raises(ValueError, match="item_oracle must be 'oue' or 'adaptive'"):
        PTS(1.0, 3, 3, item_oracle="grr")
