"""Estimators, exact expectations and variances, metrics (Yin et al., Algorithms 2 and 4, Sec. 6.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp import channels
from ldp.uldp import (
    CPRR,
    TDRR,
    URR,
    JointGRR,
    JuRR,
    TDRRUnbiased,
    ULDPModel2D,
    ed,
    euclidean,
    expected_ed,
    expected_euclidean,
    jurr_min_epsilon,
    mse_cells,
    mse_eq60,
)

LN4 = math.log(4)
GOLDEN_C = np.array([[30, 10, 5], [12, 40, 8], [6, 9, 80]])
GOLDEN = {
    "JuRR": [[0.016667, -0.216667, -0.886667], [-0.193333, 0.133333, -0.828333], [-0.875, -0.816667, 4.666667]],
    "CPRR": [[0.216667, -0.15, -0.241667], [-0.113333, 0.4, -0.186667], [-0.223333, -0.168333, 1.466667]],
}


@st.composite
def setups(draw):
    """A model with arbitrary sensitive positions, an epsilon where JuRR exists, and a random joint f."""
    kx, ky = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    xs = draw(st.lists(st.integers(0, kx - 1), max_size=kx, unique=True))
    ys = draw(st.lists(st.integers(0, ky - 1), max_size=ky, unique=True))
    model = ULDPModel2D.from_sizes(kx, ky, xs, ys)
    eps = jurr_min_epsilon(len(xs), len(ys)) + draw(st.floats(0.05, 5.0))
    seed = draw(st.integers(0, 2**32 - 1))
    f = np.random.default_rng(seed).dirichlet(np.ones(kx * ky)).reshape(kx, ky)
    return model, eps, f, seed


UNBIASED = (JuRR, CPRR, JointGRR, TDRRUnbiased)


def test_golden_vectors():
    model = ULDPModel2D.first_sensitive(3, 3, 2, 2)
    for cls in (JuRR, CPRR):
        np.testing.assert_allclose(cls(LN4, model).estimate_counts(GOLDEN_C), GOLDEN[cls.name], atol=5e-7)


@given(setup=setups())
@settings(max_examples=60, deadline=None)
def test_estimators_equal_channel_inversion(setup):
    model, eps, _, seed = setup
    counts = np.random.default_rng(seed).integers(0, 50, size=model.shape)
    counts[0, 0] += 1
    for cls in UNBIASED:
        mech = cls(eps, model)
        want = np.linalg.solve(mech.channel().T, counts.ravel() / counts.sum())
        np.testing.assert_allclose(mech.estimate_counts(counts).ravel(), want, rtol=1e-9, atol=1e-9)
        assert mech.estimate_counts(counts).sum() == pytest.approx(1.0, abs=1e-9)  # 1ᵀ(Pᵀ)⁻¹ = 1ᵀ


@given(d=st.integers(2, 8), data=st.data(), eps=st.floats(0.05, 8.0))
@settings(max_examples=40, deadline=None)
def test_urr_estimator_equals_channel_inversion(d, data, eps):
    sens = data.draw(st.lists(st.integers(0, d - 1), unique=True))
    counts = np.asarray(data.draw(st.lists(st.integers(0, 100), min_size=d, max_size=d)))
    counts[0] += 1
    mech = URR(eps, d, sens)
    np.testing.assert_allclose(
        mech.estimate_counts(counts), np.linalg.solve(mech.channel().T, counts / counts.sum()), rtol=1e-9, atol=1e-9
    )
    f = np.random.default_rng(d).dirichlet(np.ones(d))
    np.testing.assert_allclose(
        mech.variance(100, f), channels.inverse_variance(mech.channel(), f, 100), rtol=1e-9, atol=1e-15
    )


@given(setup=setups())
@settings(max_examples=60, deadline=None)
def test_exact_unbiasedness(setup):
    """Plugging in the expected report frequencies Pᵀf returns f exactly (all four JuRR regions)."""
    model, eps, f, _ = setup
    for cls in UNBIASED:
        mech = cls(eps, model)
        np.testing.assert_allclose(mech.estimate_from_frequencies(mech.output_distribution(f)), f, atol=1e-10)
    tdrr = TDRR(eps, model)
    np.testing.assert_allclose(
        tdrr.estimate_from_frequencies(tdrr.output_distribution(f)), np.outer(f.sum(axis=1), f.sum(axis=0)), atol=1e-10
    )
    np.testing.assert_allclose(tdrr.bias(10, f), np.outer(f.sum(axis=1), f.sum(axis=0)) - f, atol=1e-15)


@given(setup=setups())
@settings(max_examples=60, deadline=None)
def test_closed_form_variances_equal_the_general_formula(setup):
    model, eps, f, _ = setup
    for cls in (JuRR, CPRR, JointGRR):
        mech = cls(eps, model)
        np.testing.assert_allclose(
            mech.variance(1000, f).ravel(),
            channels.inverse_variance(mech.channel(), f.ravel(), 1000),
            rtol=1e-8,
            atol=1e-14,
        )
        np.testing.assert_allclose(
            np.diag(channels.inverse_covariance(mech.channel(), f.ravel(), 1000)),
            mech.variance(1000, f).ravel(),
            rtol=1e-8,
            atol=1e-14,
        )


def test_error_methods_take_the_oracle_argument_order():
    """variance/bias/expected_squared_error are ``(n, f)`` like ``ldp.oracles``; keywords work; swapped fails."""
    from ldp.oracles import GRR

    model = ULDPModel2D.first_sensitive(3, 4, 2, 2)
    f = np.random.default_rng(5).dirichlet(np.ones(12)).reshape(3, 4)
    grr = JointGRR(2.0, model)
    np.testing.assert_allclose(grr.variance(n=500, f=f).ravel(), GRR(2.0, 12).variance(n=500, f=f.ravel()), rtol=1e-12)
    for mech in (
        JuRR(2.0, model),
        CPRR(2.0, model),
        TDRR(2.0, model),
        TDRRUnbiased(2.0, model),
        grr,
        URR(2.0, 12, [0, 1]),
    ):
        g = f.ravel() if isinstance(mech, URR) else f
        np.testing.assert_array_equal(mech.variance(n=500, f=g), mech.variance(500, g))
        np.testing.assert_array_equal(mech.bias(f=g, n=500), mech.bias(500, g))
        np.testing.assert_array_equal(
            mech.expected_squared_error(f=g, n=500), mech.variance(500, g) + mech.bias(500, g) ** 2
        )
        with pytest.raises(TypeError, match="n must be an integer"):
            mech.variance(g, 500)


# ---------------------------------------------------------------------------- Monte Carlo checks
def _mc(mech, true_counts, reps, seed):
    rng = np.random.default_rng(seed)
    return np.stack([mech.estimate_counts(mech.simulate_counts(true_counts, rng)) for _ in range(reps)])


@pytest.mark.parametrize("cls", [JuRR, CPRR, JointGRR, TDRR])
@pytest.mark.parametrize("sizes", [(2, 2), (2, 4)])
def test_monte_carlo_mean_and_variance(cls, sizes):
    """Mean within 5 standard errors of E f̂; sample variance within 5 s.d. of the exact variance.

    With R replications the sample variance has relative s.d. about sqrt(2/(R-1)) (near-normal
    estimates; the per-cell estimates are sums over thousands of users).
    """
    sx, sy = sizes
    model = ULDPModel2D.first_sensitive(4, 5, sx, sy)
    true = np.random.default_rng(7).multinomial(5000, np.random.default_rng(8).dirichlet(np.ones(20))).reshape(4, 5)
    true[0, 0] += 1
    f, n = true / true.sum(), int(true.sum())
    mech = cls(2.0, model)
    reps = 1500
    est = _mc(mech, true, reps, seed=123)
    mean_target = f + mech.bias(n, f)
    var = mech.variance(n, f)
    z = (est.mean(axis=0) - mean_target) / np.sqrt(var / reps)
    assert np.max(np.abs(z)) < 5, (cls.name, np.max(np.abs(z)))
    rel = est.var(axis=0, ddof=1) / var - 1
    assert np.max(np.abs(rel)) < 5 * math.sqrt(2 / (reps - 1)), (cls.name, np.max(np.abs(rel)))


def test_expected_ed_matches_simulation():
    model = ULDPModel2D.first_sensitive(3, 5, 2, 2)
    true = np.array([[1440, 2, 196, 1924, 758], [1440, 0, 132, 1484, 1264], [1440, 0, 0, 858, 2022]])
    f, n = true / true.sum(), int(true.sum())
    reps = 800
    for cls in (JuRR, CPRR, TDRR, JointGRR):
        mech = cls(2.0, model)
        est = _mc(mech, true, reps, seed=99)
        sq = np.array([mse_cells(e, f) for e in est])
        # E[ED²] within 5 standard errors of its Monte Carlo mean
        assert abs(sq.mean() - expected_ed(mech, f, n) ** 2) < 5 * sq.std(ddof=1) / math.sqrt(reps), cls.name
        assert expected_euclidean(mech, f, n) == pytest.approx(expected_ed(mech, f, n) * math.sqrt(15))


def test_expected_ed_regression_values():
    """Exact expected ED on the Fig. 3(a) table at epsilon = 2, to four decimals (the experiments notebook's table)."""
    model = ULDPModel2D.first_sensitive(3, 5, 2, 2)
    true = np.array([[1440, 2, 196, 1924, 758], [1440, 0, 132, 1484, 1264], [1440, 0, 0, 858, 2022]])
    f, n = true / true.sum(), int(true.sum())
    want = {JuRR: 0.0035, CPRR: 0.0059, TDRR: 0.0238, JointGRR: 0.0070}
    for cls, v in want.items():
        assert expected_ed(cls(2.0, model), f, n) == pytest.approx(v, abs=5e-5)


# ---------------------------------------------------------------------------- metrics
def test_metrics():
    a = np.array([[0.5, 0.5], [0.0, 0.0]])
    b = np.array([[0.4, 0.5], [0.1, 0.0]])
    assert ed(b, a) == pytest.approx(math.sqrt(0.02 / 4))
    assert euclidean(b, a) == pytest.approx(math.sqrt(0.02))
    assert euclidean(b, a) == pytest.approx(ed(b, a) * 2)
    assert mse_cells(b, a) == pytest.approx(ed(b, a) ** 2)
    assert mse_eq60(b, a, 10) == pytest.approx(0.002)
    with pytest.raises(ValueError, match="same shape"):
        ed(b.ravel(), a)
    with pytest.raises(ValueError, match="finite"):
        ed(np.full((2, 2), np.nan), a)
    with pytest.raises(ValueError, match="n_users"):
        mse_eq60(b, a, 0)
