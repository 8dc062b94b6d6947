"""Channels, parameters, validity region, reductions, samplers and input validation (Yin et al.)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import check_channel, chi_square_agreement, two_sample_agreement
from ldp.oracles import GRR
from ldp.uldp import (
    CPRR,
    TDRR,
    URR,
    JointGRR,
    JuRR,
    TDRRUnbiased,
    ULDPModel2D,
    jurr_is_defined,
    jurr_min_epsilon,
    jurr_parameters,
)

LN4 = math.log(4)


@st.composite
def models(draw, min_k=1, max_k=5):
    kx, ky = draw(st.integers(min_k, max_k)), draw(st.integers(min_k, max_k))
    if kx * ky < 2:
        kx = 2
    xs = draw(st.lists(st.integers(0, kx - 1), max_size=kx, unique=True))
    ys = draw(st.lists(st.integers(0, ky - 1), max_size=ky, unique=True))
    return ULDPModel2D.from_sizes(kx, ky, xs, ys)


def all_mechanisms(eps, model):
    out = [CPRR(eps, model)]
    if jurr_is_defined(eps, model):
        out.append(JuRR(eps, model))
    if model.kx >= 2 and model.ky >= 2:
        out += [TDRR(eps, model), TDRRUnbiased(eps, model)]
    out.append(JointGRR(eps, model))
    return out


# ---------------------------------------------------------------------------- channels are distributions
@given(model=models(), eps=st.floats(0.01, 12.0))
@settings(max_examples=80, deadline=None)
def test_every_row_is_a_distribution(model, eps):
    for mech in all_mechanisms(eps, model):
        P = mech.channel()
        assert P.shape == (model.n_cells, model.n_cells)
        assert np.all(P >= 0), mech.name
        check_channel(P, atol=1e-12)


@given(d=st.integers(2, 8), data=st.data(), eps=st.floats(0.01, 12.0))
@settings(max_examples=40, deadline=None)
def test_urr_rows_are_distributions(d, data, eps):
    sens = data.draw(st.lists(st.integers(0, d - 1), unique=True))
    P = URR(eps, d, sens).channel()
    assert np.all(P >= 0)
    check_channel(P, atol=1e-12)


# ---------------------------------------------------------------------------- JuRR parameters (Eqs. 15-21)
@given(eps=st.floats(0.01, 10.0), sx=st.integers(0, 6), sy=st.integers(0, 6))
@settings(max_examples=60, deadline=None)
def test_jurr_parameter_identities(eps, sx, sy):
    pr = jurr_parameters(eps, sx, sy)
    e = math.exp(eps)
    if sx * sy:
        assert pr.a / pr.b == pytest.approx(e, rel=1e-12)
    assert pr.p / pr.q == pytest.approx(e, rel=1e-12)
    assert pr.m / pr.n == pytest.approx(e, rel=1e-12)
    # Eq. (20) against the closed form
    assert pr.t == pytest.approx(1 - sx * sy * pr.b - sx * pr.q - sy * pr.n, abs=1e-12)
    assert pr.p + (sx - 1) * pr.q == pytest.approx((e - 1) / pr.D, rel=1e-12)
    assert pr.m + (sy - 1) * pr.n == pytest.approx((e - 1) / pr.D, rel=1e-12)
    assert (pr.t > 0) == ((e - 1) ** 2 > sx * sy) or abs((e - 1) ** 2 - sx * sy) < 1e-9


def test_worked_example_exact_fractions():
    pr = jurr_parameters(LN4, 2, 2)
    for got, want in (
        (pr.a, Fraction(4, 7)),
        (pr.b, Fraction(1, 7)),
        (pr.p, Fraction(12, 35)),
        (pr.q, Fraction(3, 35)),
        (pr.m, Fraction(12, 35)),
        (pr.n, Fraction(3, 35)),
        (pr.t, Fraction(3, 35)),
    ):
        assert got == pytest.approx(float(want), rel=1e-13)
    pr = jurr_parameters(LN4, 2, 4)
    for got, want in (
        (pr.a, Fraction(4, 11)),
        (pr.p, Fraction(12, 55)),
        (pr.q, Fraction(3, 55)),
        (pr.m, Fraction(12, 77)),
        (pr.n, Fraction(3, 77)),
        (pr.t, Fraction(3, 385)),
    ):
        assert got == pytest.approx(float(want), rel=1e-12)
    c = CPRR(LN4, ULDPModel2D.first_sensitive(3, 5, 2, 2))
    assert (c.d, c.a_prime, c.b_prime, c.t_prime) == (
        12,
        pytest.approx(4 / 15),
        pytest.approx(1 / 15),
        pytest.approx(1 / 5),
    )
    c = CPRR(LN4, ULDPModel2D.first_sensitive(3, 3, 2, 2))
    assert (c.a_prime, c.b_prime, c.t_prime) == (pytest.approx(4 / 11), pytest.approx(1 / 11), pytest.approx(3 / 11))


def test_minimum_epsilon_values():
    assert jurr_min_epsilon(2, 2) == pytest.approx(math.log(3))
    assert jurr_min_epsilon(2, 4) == pytest.approx(math.log(1 + 2 * math.sqrt(2)))
    assert jurr_min_epsilon(2, 4) == pytest.approx(1.3425, abs=1e-4)
    assert jurr_min_epsilon(0, 5) == 0.0


@given(sx=st.integers(1, 6), sy=st.integers(1, 6), frac=st.floats(0.0, 1.0))
@settings(max_examples=60, deadline=None)
def test_jurr_refuses_epsilon_at_or_below_its_minimum(sx, sy, frac):
    model = ULDPModel2D.first_sensitive(sx + 1, sy + 2, sx, sy)
    lo = jurr_min_epsilon(sx, sy)
    eps = lo * frac
    if eps <= 0:
        eps = lo
    # budgets below 1e-8 are refused by the shared range check before JuRR's own minimum
    with pytest.raises(ValueError, match=r"minimum ln\(1\+sqrt\(\|X_S\|\|Y_S\|\)\)|outside the range"):
        JuRR(eps, model)
    assert not jurr_is_defined(eps, model)


@given(sx=st.integers(1, 6), sy=st.integers(1, 6), extra=st.floats(1e-6, 5.0))
@settings(max_examples=60, deadline=None)
def test_jurr_above_its_minimum_has_no_negative_probability(sx, sy, extra):
    model = ULDPModel2D.first_sensitive(sx + 2, sy + 1, sx, sy)
    mech = JuRR(jurr_min_epsilon(sx, sy) + extra, model)
    assert mech.params.t > 0
    assert mech.channel().min() >= 0


def test_minimum_binds_only_with_nonsensitive_pairs():
    """Without (N,N) cells t is never used, so any epsilon is allowed."""
    for model in (ULDPModel2D.first_sensitive(3, 4, 3, 2), ULDPModel2D.first_sensitive(3, 4, 1, 4)):
        mech = JuRR(0.1, model)
        assert mech.params.t < 0  # would be negative, but no cell uses it
        assert mech.channel().min() >= 0
        check_channel(mech.channel(), atol=1e-12)


def test_jurr_message_names_parameter_and_bound():
    with pytest.raises(ValueError) as err:
        JuRR(1.0, ULDPModel2D.first_sensitive(3, 5, 2, 2))
    msg = str(err.value)
    assert "epsilon=1.0" in msg and "1.09861" in msg and "|X_S|=2" in msg


# ---------------------------------------------------------------------------- the Algorithm 1 table
def test_jurr_channel_matches_algorithm1_table():
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = JuRR(2.0, model)
    pr, P = mech.params, mech.channel().reshape(3, 4, 3, 4)
    # case 2 input (0, 3): y kept, x moved within X_S
    assert P[0, 3, 0, 3] == pytest.approx(pr.p) and P[0, 3, 1, 3] == pytest.approx(pr.q)
    assert P[0, 3, 2, 3] == 0 and P[0, 3, 0, 2] == 0 and P[0, 3, 1, 1] == pytest.approx(pr.b)
    # case 3 input (2, 1): x kept, y moved within Y_S
    assert P[2, 1, 2, 1] == pytest.approx(pr.m) and P[2, 1, 2, 0] == pytest.approx(pr.n)
    assert P[2, 1, 2, 2] == 0 and P[2, 1, 0, 0] == pytest.approx(pr.b)
    # case 4 input (2, 3)
    assert P[2, 3, 2, 3] == pytest.approx(pr.t) and P[2, 3, 0, 3] == pytest.approx(pr.q)
    assert P[2, 3, 2, 0] == pytest.approx(pr.n) and P[2, 3, 2, 2] == 0 and P[2, 3, 1, 0] == pytest.approx(pr.b)
    table = mech.output_table()
    assert set(table["symbol"]) == {"a", "b", "p", "q", "m", "n", "t"}
    for case, grp in table.groupby("case"):
        assert (grp["probability"] * grp["how many"]).sum() == pytest.approx(1.0), case


def test_cprr_channel_matches_algorithm3_table():
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = CPRR(2.0, model)
    P, S = mech.channel(), set(model.sensitive_cells().tolist())
    for v in range(12):
        for o in range(12):
            if v in S:
                want = mech.a_prime if o == v else (mech.b_prime if o in S else 0.0)
            else:
                want = mech.t_prime if o == v else (mech.b_prime if o in S else 0.0)
            assert P[v, o] == pytest.approx(want)
    assert mech.a_prime - mech.b_prime == pytest.approx(mech.t_prime)
    assert mech.d * mech.b_prime + mech.t_prime == pytest.approx(1.0)
    for case, grp in mech.output_table().groupby("case"):
        assert (grp["probability"] * grp["how many"]).sum() == pytest.approx(1.0), case


# ---------------------------------------------------------------------------- reductions to uRR and GRR
@given(kx=st.integers(1, 4), ky=st.integers(1, 4), eps=st.floats(0.05, 8.0))
@settings(max_examples=40, deadline=None)
def test_all_sensitive_gives_grr_on_the_product_domain(kx, ky, eps):
    if kx * ky < 2:
        kx = 2
    model = ULDPModel2D.first_sensitive(kx, ky, kx, ky)
    grr = GRR(eps, kx * ky).channel()
    for mech in (JuRR(eps, model), CPRR(eps, model), JointGRR(eps, model)):
        np.testing.assert_allclose(mech.channel(), grr, rtol=1e-12, atol=1e-15)


@given(kx=st.integers(1, 4), ky=st.integers(2, 4), eps=st.floats(0.05, 8.0))
@settings(max_examples=30, deadline=None)
def test_no_sensitive_value_gives_the_identity(kx, ky, eps):
    model = ULDPModel2D.first_sensitive(kx, ky, 0, 0)
    for mech in (JuRR(eps, model), CPRR(eps, model)):
        np.testing.assert_allclose(mech.channel(), np.eye(kx * ky), atol=1e-15)
    assert JuRR(eps, model).params.t == pytest.approx(1.0)


@given(kx=st.integers(2, 5), data=st.data(), eps=st.floats(0.05, 8.0))
@settings(max_examples=30, deadline=None)
def test_single_y_value_reduces_to_urr(kx, data, eps):
    xs = data.draw(st.lists(st.integers(0, kx - 1), unique=True))
    urr = URR(eps, kx, xs).channel()
    free = ULDPModel2D.from_sizes(kx, 1, xs, [])
    np.testing.assert_allclose(JuRR(eps, free).channel(), urr, atol=1e-14)
    np.testing.assert_allclose(CPRR(eps, free).channel(), urr, atol=1e-14)
    fixed = ULDPModel2D.from_sizes(kx, 1, xs, [0])  # the single y value is sensitive
    np.testing.assert_allclose(JuRR(eps, fixed).channel(), urr, atol=1e-14)
    np.testing.assert_allclose(CPRR(eps, fixed).channel(), GRR(eps, kx).channel(), atol=1e-14)


def test_urr_extremes():
    np.testing.assert_allclose(URR(1.3, 5, range(5)).channel(), GRR(1.3, 5).channel(), atol=1e-15)
    np.testing.assert_allclose(URR(1.3, 5, []).channel(), np.eye(5), atol=1e-15)


def test_cprr_is_urr_on_flat_cells_and_tdrr_is_a_kronecker_product():
    model = ULDPModel2D.from_sizes(3, 4, [2], [1, 3])
    np.testing.assert_allclose(CPRR(1.5, model).channel(), URR(1.5, 12, model.sensitive_cells()).channel(), atol=1e-15)
    np.testing.assert_allclose(
        TDRR(1.5, model).channel(), np.kron(URR(0.75, 3, [2]).channel(), URR(0.75, 4, [1, 3]).channel()), atol=1e-15
    )


def test_jurr_case2_given_not_protected_is_grr_on_xs():
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = JuRR(1.7, model)
    P = mech.channel().reshape(3, 4, 3, 4)
    row = P[0, 3, :2, 3]  # outputs (x', y=3) with x' in X_S
    cond = row / row.sum()
    np.testing.assert_allclose(cond, GRR(1.7, 2).channel()[0], rtol=1e-12)
    assert cond[0] == pytest.approx(math.exp(1.7) / mech.params.Dx)


def test_large_epsilon_tends_to_identity():
    model = ULDPModel2D.first_sensitive(3, 5, 2, 2)
    for mech in all_mechanisms(80.0, model):  # TDRR spends eps/2 per attribute
        np.testing.assert_allclose(mech.channel(), np.eye(15), atol=1e-15)


def test_joint_grr_reuses_the_shared_grr():
    mech = JointGRR(1.0, ULDPModel2D.first_sensitive(3, 5, 2, 2))
    assert isinstance(mech.oracle, GRR) and mech.oracle.d == 15


# ---------------------------------------------------------------------------- samplers
@pytest.mark.parametrize("cls", [JuRR, CPRR, TDRR, JointGRR])
def test_per_user_sampler_follows_the_channel(cls):
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = cls(2.0, model)
    P = mech.channel()
    rng = np.random.default_rng(11)
    n = 4000
    for cell in (0, 3, 9, 11):  # PP, PI, IP, II
        x, y = np.full(n, cell // 4), np.full(n, cell % 4)
        xt, yt = mech.perturb(x, y, rng)
        counts = mech.support_counts((xt, yt)).ravel()
        assert chi_square_agreement(counts, P[cell]) > 1e-4, (cls.name, cell)


@pytest.mark.parametrize("cls", [JuRR, CPRR, TDRR, JointGRR])
def test_count_sampler_matches_per_user_sampler(cls):
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = cls(2.0, model)
    true = np.array([[5, 1, 7, 2], [3, 4, 0, 6], [2, 8, 9, 3]])
    x, y = np.divmod(np.repeat(np.arange(12), true.ravel()), 4)
    rng = np.random.default_rng(5)
    a = np.zeros(12, dtype=np.int64)
    b = np.zeros(12, dtype=np.int64)
    for _ in range(300):
        a += mech.simulate_counts(true, rng).ravel()
        b += mech.support_counts(mech.perturb(x, y, rng)).ravel()
    assert two_sample_agreement(a, b) > 1e-4
    # both have the right total and the expected mean
    np.testing.assert_allclose(
        a / 300, true.sum() * mech.output_distribution(true / true.sum()).ravel(), rtol=0.1, atol=1.0
    )


def test_samplers_are_reproducible():
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = JuRR(2.0, model)
    true = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(mech.simulate_counts(true, 3), mech.simulate_counts(true, 3))
    x, y = np.array([0, 1, 2]), np.array([3, 2, 1])
    assert [a.tolist() for a in mech.perturb(x, y, 9)] == [a.tolist() for a in mech.perturb(x, y, 9)]


# ---------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "eps, exc",
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ("1", TypeError),
    ],
)
def test_bad_epsilon(eps, exc):
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    for cls in (JuRR, CPRR, TDRR, JointGRR):
        with pytest.raises(exc, match="epsilon"):
            cls(eps, model)
    with pytest.raises(exc, match="epsilon"):
        URR(eps, 4, [0])


def test_bad_model_and_domains():
    with pytest.raises(TypeError, match="ULDPModel2D"):
        JuRR(1.0, (3, 4))
    with pytest.raises(ValueError, match="d must be >= 2"):
        URR(1.0, 1, [])
    with pytest.raises(ValueError, match="subset of the domain"):
        URR(1.0, 3, [3])
    with pytest.raises(ValueError, match=">= 2"):
        TDRR(1.0, ULDPModel2D.first_sensitive(3, 1, 1, 0))


def test_bad_users_and_counts():
    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    mech = CPRR(1.0, model)
    with pytest.raises(ValueError, match="outside the domain"):
        mech.perturb(np.array([0, 3]), np.array([0, 0]))
    with pytest.raises(TypeError, match="integer codes"):
        mech.perturb(np.array([0.0]), np.array([0]))
    with pytest.raises(ValueError, match="same length"):
        mech.perturb(np.array([0, 1]), np.array([0]))
    with pytest.raises(ValueError, match="shape"):
        mech.estimate_counts(np.ones((4, 3), dtype=int))
    with pytest.raises(ValueError, match="non-negative"):
        mech.estimate_counts(-np.ones((3, 4), dtype=int))
    with pytest.raises(TypeError, match="integer counts"):
        mech.estimate_counts(np.full((3, 4), 0.5))
    with pytest.raises(ValueError, match="sums to 0"):
        mech.estimate_counts(np.zeros((3, 4), dtype=int))
    with pytest.raises(ValueError, match="sums to 0"):
        mech.simulate_counts(np.zeros((3, 4), dtype=int))
    with pytest.raises(ValueError, match="n must be >= 1"):
        mech.variance(0, np.full((3, 4), 1 / 12))
    with pytest.raises(ValueError, match="sum to 1"):
        mech.variance(10, np.full((3, 4), 1.0))
