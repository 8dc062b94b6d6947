"""Appendix B attacks and the effective channels (mechanism followed by the attack) of Jayawardana et al."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.audit import channel_epsilon, check_channel
from ldp.cpl import attacks as at
from ldp.cpl.theory import cpl_alg1, cpl_two_level
from ldp.oracles import GRR, OUE, SUE, Exponential, SubsetSelection
from ldp.oracles.histogram import SHE
from ldp.oracles.local_hash import BLH, LocalHashing

# ε_eff (rows k=2/16 and k=4, ε=3) and a (k=4, ε=1) from an independent computation of the effective channels,
# given to 4-6 decimals
REFERENCE_TABLE = {
    (2, 1, "eff"): dict(GRR=1.0, EXP=0.5, RAPPOR=0.5, OUE=0.4706, BLH=0.4706, OLH=0.4586, SS=1.0, SHE=0.4934),
    (2, 3, "eff"): dict(GRR=3.0, EXP=1.5, RAPPOR=1.5, OUE=0.9759, BLH=0.9759, OLH=0.9781, SS=3.0, SHE=1.4163),
    (4, 1, "a"): dict(
        GRR=0.475367, EXP=0.354661, RAPPOR=0.373066, OUE=0.380866, BLH=0.351088, OLH=0.380290, SS=0.475367, SHE=0.371325
    ),
    (4, 3, "eff"): dict(GRR=3.0, EXP=1.5, RAPPOR=1.6946, OUE=1.3951, BLH=0.8899, OLH=1.3974, SS=3.0, SHE=1.5952),
    (16, 1, "eff"): dict(GRR=1.0, EXP=0.5, RAPPOR=0.5439, OUE=0.6743, BLH=0.4112, OLH=0.6974, SS=0.7046, SHE=0.5435),
    (16, 3, "eff"): dict(GRR=3.0, EXP=1.5, RAPPOR=1.7109, OUE=2.1808, BLH=0.7068, OLH=2.1817, SS=3.0, SHE=1.6707),
}


@pytest.mark.parametrize("key", list(REFERENCE_TABLE))
def test_closed_forms_reproduce_the_reference_table(key):
    k, eps, kind = key
    for name, want in REFERENCE_TABLE[key].items():
        o = at.make_oracle(name, eps, k)
        got = at.attack_accuracy(o) if kind == "a" else at.effective_channel_epsilon(o)
        decimals = 6 if kind == "a" else 4
        assert got == pytest.approx(want, abs=0.6 * 10**-decimals), (name, key)


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_binary_identities(eps):
    e = {n: at.effective_channel_epsilon(at.make_oracle(n, eps, 2)) for n in at.PAPER_MECHANISMS}
    assert e["RAPPOR"] == pytest.approx(eps / 2, rel=1e-12)
    assert e["EXP"] == pytest.approx(eps / 2, rel=1e-12)
    assert e["OUE"] == pytest.approx(e["BLH"], rel=1e-12)
    assert e["SS"] == pytest.approx(eps, rel=1e-12) and e["GRR"] == pytest.approx(eps, rel=1e-12)
    assert at.make_oracle("SS", eps, 2).subset_size == 1
    assert at.effective_channel_epsilon(OUE(1.0, 2)) == pytest.approx(0.470615, abs=5e-7)


def test_expected_zero_one_errors():
    assert at.expected_zero_one_error(GRR(1.0, 2)) == pytest.approx(0.268941, abs=5e-7)
    assert at.expected_zero_one_error(GRR(3.0, 2)) == pytest.approx(0.047426, abs=5e-7)
    for k in (2, 5, 13):
        assert at.expected_zero_one_error(Exponential(2.0, k)) == pytest.approx((k - 1) / (k - 1 + math.e))


@pytest.mark.parametrize(
    "oracle",
    [
        GRR(1.2, 5),
        Exponential(2.0, 4),
        SUE(1.0, 5),
        OUE(2.0, 6),
        SubsetSelection(0.7, 7, subset_size="floor"),
        SubsetSelection(0.2, 8, subset_size=3),
    ],
    ids=repr,
)
def test_closed_form_equals_exact_enumeration(oracle):
    K_exact = at.effective_channel(oracle, method="exact")
    check_channel(K_exact, atol=1e-9)
    assert np.allclose(K_exact, at.effective_channel(oracle), atol=1e-12)


@pytest.mark.parametrize("name", at.PAPER_MECHANISMS)
def test_monte_carlo_matches_closed_form_within_five_sigma(name):
    k, eps, n = 5, 1.5, 20_000
    o = at.make_oracle(name, eps, k)
    K_mc = at.effective_channel(o, method="monte_carlo", n=n, rng=2024)
    K = at.effective_channel(o)
    se = np.sqrt(K * (1 - K) / n)
    if isinstance(o, LocalHashing):
        # the closed form assumes an ideal random hash; the real Carter-Wegman family is close, not equal
        assert np.abs(np.diag(K_mc).mean() - np.diag(K).mean()) < 0.05 * np.diag(K).mean()
    else:
        assert np.all(np.abs(K_mc - K) <= 5 * se + 1e-12)


def test_local_hash_attack_matches_exact_kernel_of_small_family():
    """With a small prime the whole hash family is enumerable: the attack's MC channel equals T @ A."""
    o = LocalHashing(1.0, 4, 3, prime=7)
    K_exact = at.effective_channel(o, method="exact")
    check_channel(K_exact, atol=1e-9)
    n = 30_000
    K_mc = at.effective_channel(o, method="monte_carlo", n=n, rng=5)
    assert np.all(np.abs(K_mc - K_exact) <= 5 * np.sqrt(K_exact * (1 - K_exact) / n) + 1e-12)


def test_effective_channel_is_post_processing_so_never_leaks_more():
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(4), size=3)
    for name in ("GRR", "RAPPOR", "OUE", "SS"):
        o = at.make_oracle(name, 2.0, 4)
        K = at.effective_channel(o)
        assert channel_epsilon(K) <= o.epsilon + 1e-12
        assert channel_epsilon(K) == pytest.approx(at.effective_channel_epsilon(o), rel=1e-12)
        # statistical-limit CPL (two-level at ε_eff) = Algorithm 1 on the effective channel
        assert cpl_alg1(P, K) == pytest.approx(cpl_two_level(P, at.effective_channel_epsilon(o)), rel=1e-10)


def test_she_map_with_uniform_prior_is_argmax():
    o = SHE(1.0, 6)
    y = o.perturb(np.arange(6).repeat(50), rng=3)
    assert np.array_equal(at.infer(o, y, rule="map", prior=np.full(6, 1 / 6)), at.infer(o, y))
    skewed = np.array([0.9, 0.02, 0.02, 0.02, 0.02, 0.02])
    assert np.mean(at.infer(o, y, rule="map", prior=skewed) == 0) > np.mean(at.infer(o, y) == 0)


def test_infer_outputs_are_in_domain_and_uniform_when_nothing_is_supported():
    o = OUE(0.01, 3)
    empty = np.zeros((30_000, 3), dtype=bool)
    v = at.infer(o, empty, rng=0)
    counts = np.bincount(v, minlength=3)
    assert np.all(np.abs(counts - 10_000) < 5 * math.sqrt(30_000 * (1 / 3) * (2 / 3)))


def test_make_oracle_parametrisation():
    assert isinstance(at.make_oracle("RAPPOR", 1.0, 4), SUE)
    fixed = at.make_oracle("RAPPOR", 5.0, 4, rappor="fixed")
    assert (fixed.p, fixed.q) == at.RAPPOR_FIXED_PQ
    assert at.effective_channel_epsilon(fixed) == pytest.approx(
        at.effective_channel_epsilon(at.make_oracle("RAPPOR", 1.0, 4, rappor="fixed"))
    )
    assert at.make_oracle("OLH", 1.0, 10).g == 4 and at.make_oracle("OLH", 3.0, 10).g == 21
    assert at.make_oracle("SS", 3.0, 41).subset_size == 1  # floor(41/(e^3+1)) = 1 (rint gives 2)
    assert isinstance(at.make_oracle("BLH", 1.0, 4), BLH)


def test_bad_input():
    with pytest.raises(ValueError, match="name"):
        at.make_oracle("RR", 1.0, 3)
    with pytest.raises(ValueError, match="rappor"):
        at.make_oracle("RAPPOR", 1.0, 3, rappor="basic")
    with pytest.raises(ValueError, match="method"):
        at.effective_channel(GRR(1.0, 3), method="magic")
    with pytest.raises(ValueError, match="a must lie"):
        at.effective_channel_epsilon(0.1, 3)
    with pytest.raises(ValueError, match="k is required"):
        at.effective_channel_epsilon(0.5)
    with pytest.raises(ValueError, match="prior"):
        at.infer(SHE(1.0, 3), np.zeros((2, 3)), rule="map")
    with pytest.raises(ValueError, match="lie in"):
        at.infer(GRR(1.0, 3), np.array([0, 3]))

    class Other(GRR.__mro__[1]):  # a FrequencyOracle with no attack
        p = q = 0.5

        def perturb(self, x, rng=None):
            return x

        def support_counts(self, reports):
            return reports

    with pytest.raises(TypeError, match="no Appendix-B attack"):
        at.infer(Other(1.0, 3), np.array([0]))
