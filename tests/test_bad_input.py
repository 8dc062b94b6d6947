"""Bad input is refused with a clear error naming the parameter, across the public API of every subpackage.

First the regression tests of the inputs a bad-input trial of the package found accepted (each one
silently accepted, or failing deep inside numpy, before), then hypothesis properties: for any bad
value of a budget, a domain size, a distribution or a count vector, the public entry points raise
``ValueError`` or ``TypeError`` (never anything else, never a silent result).
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp import audit, channels, estimate, metrics, oracles
from ldp.clldp import KHR, BasicSolution, clldp_attack, khr_p, omega
from ldp.cpl import cpl_grr, make_oracle
from ldp.exceptions import ConvergenceWarning
from ldp.lopub import LoPubEncoder, em_joint, empirical_joint, entropy, mutual_information
from ldp.multiclass import CP, HEC, PTJ, PTS, VP, split_budget
from ldp.multiclass.validity import VPCounts
from ldp.oracles import BloomRAPPOR
from ldp.uldp import URR, JuRR, ULDPModel2D, check_uldp, check_uldp_2d

ORACLE_NAMES = sorted(set(oracles.ORACLES) - {"UE", "LH", "RAPPOR"})  # the ones that need no extra option


# ---------------------------------------------------------------------------- regressions
@pytest.mark.parametrize("name", ORACLE_NAMES)
def test_support_counts_larger_than_n_are_refused(name):
    o = oracles.make(name, 1.0, 6)
    if not o.support_is_count:
        pytest.skip("SHE's 'support' is a sum of noisy reals: any real value is possible")
    with pytest.raises(ValueError, match=r"counts must be at most n=10"):
        o.estimate_counts(np.array([11, 0, 0, 0, 0, 0]), 10)
    with pytest.raises(TypeError, match=r"\bn\b"):
        o.estimate_counts(np.zeros(6))


def test_bloom_support_counts_larger_than_n_and_its_variance_arguments():
    o = BloomRAPPOR(1.0, 4, 8, 2)
    with pytest.raises(ValueError, match="at most n=3"):
        o.estimate_counts(np.full(8, 4), 3)
    with pytest.raises(ValueError, match="n must be >= 1"):
        o.variance(0)
    with pytest.raises(ValueError, match="n must be >= 1"):
        o.covariance(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        o.covariance(2.5)
    with pytest.raises(ValueError, match="f must hold frequencies"):
        o.variance(10, 2.0)
    with pytest.raises(ValueError, match="f must be a scalar or have shape"):
        o.variance(10, np.full(3, 0.2))


def test_vp_estimate_validates_its_counts():
    vp = VP(1.0, 3)
    good = vp.simulate_counts(np.array([10, 5, 0, 4]), 0)
    assert isinstance(good, VPCounts)
    with pytest.raises(TypeError, match="VPCounts"):
        vp.estimate_counts(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="counts.n"):
        vp.estimate_counts(VPCounts(good.kept, good.flagged, 0))
    with pytest.raises(ValueError, match="counts.flagged"):
        vp.estimate_counts(VPCounts(good.kept, good.n + 1, good.n))
    with pytest.raises(ValueError, match="counts.kept"):
        vp.estimate_counts(VPCounts(np.full(3, good.n), good.flagged, good.n))
    with pytest.raises(ValueError, match="counts.kept"):
        vp.estimate_counts(VPCounts(-good.kept - 1, good.flagged, good.n))
    with pytest.raises(ValueError, match="differs"):
        vp.estimate_counts(good, good.n + 1)


@pytest.mark.parametrize(
    "build",
    [
        lambda e: oracles.make("GRR", e, 5),
        lambda e: oracles.make("EXP", e, 5),
        lambda e: oracles.make("BLH", e, 5),
        lambda e: oracles.make("OLH", e, 5),
        lambda e: oracles.make("HR", e, 5),
        lambda e: oracles.make("SS", e, 5),
        lambda e: oracles.make("SHE", e, 5),
        lambda e: KHR(e, 0.5, 2, 3, 2),
    ],
    ids=["GRR", "EXP", "BLH", "OLH", "HR", "SS", "SHE", "KHR"],
)
@pytest.mark.parametrize("eps", [1e-300, 5e-324, 1e-9, 710.0, 1e300])
def test_budgets_outside_the_resolvable_range_are_refused(build, eps):
    with pytest.raises(ValueError, match=r"epsilon=.*(\[1e-08, 700\]|epsilon <= 700)"):
        build(eps)


@pytest.mark.parametrize("fn", [estimate.norm_sub, estimate.project_simplex])
@pytest.mark.parametrize(
    "v, total",
    [
        ([1e20, 0.0, 0.0], 1.0),
        ([1e16, 1.0, 3.0], 1.0),
        ([1e300, -1e300, 5.0], 1.0),
        ([1.0, 2.0, 3.0], 1e300),
        ([1e308, 1e308, -1e308], 1e308),
        ([0.3, 0.3, 0.3], 1e17),
    ],
)
def test_post_processing_sums_to_the_total_for_huge_inputs(fn, v, total):
    out = fn(np.array(v), total)
    assert np.all(out >= 0)
    assert out.sum() == pytest.approx(total, rel=1e-12)


def test_projection_is_unchanged_on_ordinary_inputs():
    v = np.array([0.5, 0.2, -0.1])
    np.testing.assert_allclose(estimate.project_simplex(v), [0.6 + 1 / 30, 0.3 + 1 / 30, 1 / 30])
    np.testing.assert_allclose(estimate.norm_sub(v), [0.65, 0.35, 0.0])


def test_lopub_refuses_out_of_domain_codes_and_non_distributions():
    codes = np.array([[0, 1], [1, 2], [3, 0]])
    with pytest.raises(ValueError, match=r"codes\[:, 0\] contains the code 3"):
        empirical_joint(codes, (3, 3), (0, 1))
    with pytest.raises(ValueError, match="codes has 2 columns but domains lists 3"):
        empirical_joint(codes, (4, 3, 2), (0, 1))
    with pytest.raises(ValueError, match="attrs"):
        empirical_joint(codes, (4, 3), (0, 2))
    with pytest.raises(TypeError, match="codes must be an integer"):
        empirical_joint(codes.astype(float), (4, 3), (0, 1))
    with pytest.raises(ValueError, match="joint must be a probability distribution"):
        mutual_information(np.ones((2, 2)))
    with pytest.raises(ValueError, match="row_marginal"):
        mutual_information(np.full((2, 2), 0.25), [0.7, 0.7], [0.5, 0.5])
    with pytest.raises(ValueError, match="p must be a probability distribution"):
        entropy([0.2, 0.2])
    with pytest.raises(ValueError, match="non-negative"):
        entropy([1.5, -0.5])


def test_check_uldp_refuses_a_matrix_that_is_not_a_channel():
    with pytest.raises(ValueError, match="row-stochastic"):
        check_uldp(np.full((3, 3), 0.5), [0], [0], 1.0)
    model = ULDPModel2D.first_sensitive(2, 2, 1, 1)
    with pytest.raises(ValueError, match="row-stochastic"):
        check_uldp_2d(np.eye(4) * 0.5, model, 1.0)


def test_clldp_attack_refuses_sizes_that_do_not_match_the_columns():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(50, 3))
    y = rng.integers(0, 2, size=50)
    with pytest.raises(ValueError, match="X has 3 columns but sizes lists 2"):
        clldp_attack(X, y, [3, 3], 2, 1.0, 1.0, rng=0)
    with pytest.raises(ValueError, match=r"X\[:, 1\] contains the code 2"):
        clldp_attack(X, y, [3, 2, 3], 2, 1.0, 1.0, rng=0)
    with pytest.raises(ValueError, match="y must have one label per row"):
        clldp_attack(X, y[:-1], [3, 3, 3], 2, 1.0, 1.0, rng=0)


def test_dask_backend_without_distributed_gives_a_clear_import_error(monkeypatch):
    from ldp.sweep import sweep

    monkeypatch.setitem(sys.modules, "distributed", None)  # makes "import distributed" fail
    with pytest.raises(ImportError, match=r"backend='dask' needs dask.distributed"):
        sweep(lambda rng: {"x": 1.0}, {}, trials=1, seed=0, backend="dask", progress=False)


def test_channel_tools_validate_their_inputs():
    P = np.array([[0.7, 0.3], [0.2, 0.8]])
    with pytest.raises(ValueError, match="row-stochastic"):
        channels.sample_channel(np.full((2, 2), 0.7), [0, 1], 0)
    with pytest.raises(ValueError, match="row-stochastic"):
        channels.simulate_channel_counts(np.full((2, 2), 0.7), [3, 1], 0)
    with pytest.raises(ValueError, match="f must sum to 1"):
        channels.output_distribution(P, [0.7, 0.7])
    with pytest.raises(ValueError, match="n must be >= 1"):
        channels.inverse_variance(P, [0.5, 0.5], 0)
    with pytest.raises(ValueError, match="square"):
        channels.inverse_covariance(np.full((2, 3), 1 / 3), [0.5, 0.5], 10)
    with pytest.raises(ValueError, match="report_freq must have 2 entries"):
        channels.inverse_estimate(P, [0.2, 0.3, 0.5])


def test_iterative_estimators_warn_when_they_stop_at_max_iter():
    grr = oracles.make("GRR", 0.5, 4)
    P, pq = grr.channel(), (grr.p, grr.q)
    counts = np.array([40, 30, 20, 10])
    for run in (
        lambda: estimate.ibu(P, counts, max_iter=2),
        lambda: estimate.ibu_grr(counts, *pq, max_iter=2),
        lambda: estimate.ibu_ue(counts, 100, 0.5, 0.2, method="em", max_iter=2),
    ):
        with pytest.warns(ConvergenceWarning, match="max_iter=2"):
            run()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        estimate.ibu(P, counts)  # converges: no warning


def test_lopub_em_warns_when_it_stops_at_max_iter():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(400, 2))
    reports = LoPubEncoder((3, 3), f=0.5, m=8, h=2).encode(codes, rng)
    with pytest.warns(ConvergenceWarning, match="EM_JD"):
        em_joint(reports, (0, 1), delta=1e-15, max_iter=3)


# ---------------------------------------------------------------------------- hypothesis properties
BAD_EPSILON = st.one_of(
    st.floats(max_value=0.0),
    st.just(math.nan),
    st.just(math.inf),
    st.just(-math.inf),
    st.floats(min_value=700.5, allow_infinity=False),
    st.floats(min_value=0.0, max_value=9e-9),
    st.text(max_size=3),
    st.none(),
    st.booleans(),
    st.lists(st.floats(), max_size=2),
)
BAD_SIZE = st.one_of(
    st.integers(max_value=1),
    st.integers(min_value=2**31),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
    st.booleans(),
)
NOT_A_DISTRIBUTION = st.lists(st.floats(-2.0, 2.0), min_size=2, max_size=6).filter(
    lambda v: min(v) < 0 or abs(sum(v) - 1.0) > 1e-3
)

REFUSED = (ValueError, TypeError)

EPSILON_ENTRY_POINTS = {
    "oracles.make": lambda e: [oracles.make(n, e, 5) for n in ORACLE_NAMES],
    "clldp.KHR": lambda e: KHR(e, 0.5, 2, 3, 2),
    "clldp.BasicSolution": lambda e: BasicSolution(e, 3, 2),
    "clldp.khr_p": lambda e: khr_p(e, 0.5, 2, 6),
    "lopub.LoPubEncoder": lambda e: LoPubEncoder((3, 3), f=e, m=8, h=2),  # f is a probability
    "multiclass.frameworks": lambda e: [F(e, 2, 3) for F in (HEC, PTJ, PTS, CP)],
    "multiclass.VP": lambda e: VP(e, 3),
    "multiclass.split_budget": lambda e: split_budget(e),
    "cpl.make_oracle": lambda e: make_oracle("GRR", e, 4),
    "cpl.cpl_grr": lambda e: cpl_grr(np.array([[0.6, 0.4], [0.3, 0.7]]), e),
    "uldp.URR": lambda e: URR(e, 4, [0]),
    "uldp.JuRR": lambda e: JuRR(e, ULDPModel2D.first_sensitive(2, 2, 1, 1)),
}


@pytest.mark.parametrize("entry", EPSILON_ENTRY_POINTS, ids=str)
@given(eps=BAD_EPSILON)
@settings(max_examples=40, deadline=None)
def test_bad_budgets_are_refused_by_every_subpackage(entry, eps):
    if entry == "lopub.LoPubEncoder" and isinstance(eps, float) and 0 < eps < 1:
        return  # a valid flip probability
    if (
        entry in ("cpl.cpl_grr", "multiclass.split_budget")
        and isinstance(eps, float)
        and 0 <= eps
        and math.isfinite(eps)
        and (eps > 0 or entry == "cpl.cpl_grr")
    ):
        return  # formulas, valid for every finite budget (CPL at 0)
    if entry == "clldp.khr_p" and isinstance(eps, float) and 0 < eps and math.isfinite(eps) and eps <= 709:
        return  # a formula, valid for every representable budget
    with pytest.raises(REFUSED):
        EPSILON_ENTRY_POINTS[entry](eps)


SIZE_ENTRY_POINTS = {
    "oracles.make": lambda d: [oracles.make(n, 1.0, d) for n in ORACLE_NAMES],
    "clldp.KHR": lambda d: KHR(1.0, 0.5, 1, d, 2),
    "lopub.LoPubEncoder": lambda d: LoPubEncoder((3, d), f=0.5, m=8, h=2),
    "multiclass.frameworks": lambda d: [F(1.0, d, 3) for F in (HEC, PTJ, PTS, CP)],
    "multiclass.VP": lambda d: VP(1.0, d),
    "cpl.make_oracle": lambda d: make_oracle("OUE", 1.0, d),
    "uldp.URR": lambda d: URR(1.0, d, [0]),
    "uldp.ULDPModel2D": lambda d: ULDPModel2D.first_sensitive(d, 2, 0, 1),
}


@pytest.mark.parametrize("entry", SIZE_ENTRY_POINTS, ids=str)
@given(d=BAD_SIZE)
@settings(max_examples=40, deadline=None)
def test_bad_domain_sizes_are_refused_by_every_subpackage(entry, d):
    if entry in ("clldp.KHR", "uldp.ULDPModel2D") and d == 1 and not isinstance(d, bool):
        return  # one value is a valid factor of a product domain
    with pytest.raises(REFUSED):
        SIZE_ENTRY_POINTS[entry](d)


DISTRIBUTION_ENTRY_POINTS = {
    "lopub.entropy": lambda p: entropy(p),
    "lopub.mutual_information": lambda p: mutual_information(np.outer(p, [0.5, 0.5])),
    "channels.output_distribution": lambda p: channels.output_distribution(np.eye(len(p)), p),
    "channels.inverse_variance": lambda p: channels.inverse_variance(np.eye(len(p)), p, 10),
    "oracles.variance": lambda p: oracles.make("GRR", 1.0, len(p)).variance(10, p),
    "uldp.URR.variance": lambda p: URR(1.0, len(p), [0]).variance(10, p),
    "clldp.omega": lambda p: omega(np.array([p, p]), 1),
}


@pytest.mark.parametrize("entry", DISTRIBUTION_ENTRY_POINTS, ids=str)
@given(p=NOT_A_DISTRIBUTION)
@settings(max_examples=40, deadline=None)
def test_non_distributions_are_refused(entry, p):
    if entry == "oracles.variance" and min(p) >= 0 and max(p) <= 1:
        return  # per-value frequencies need not sum to 1
    with pytest.raises(REFUSED):
        DISTRIBUTION_ENTRY_POINTS[entry](np.array(p))


COUNT_ENTRY_POINTS = {
    "oracles.simulate_counts": lambda c: oracles.make("GRR", 1.0, len(c)).simulate_counts(c, 0),
    "oracles.sample_support": lambda c: oracles.make("OLH", 1.0, len(c)).sample_support(c, 0),
    "multiclass.simulate_counts": lambda c: PTS(1.0, 2, len(c)).simulate_counts(np.stack([c, c]), 0),
    "uldp.simulate_counts": lambda c: URR(1.0, len(c), [0]).simulate_counts(c, 0),
    "estimate.ibu": lambda c: estimate.ibu(np.eye(len(c)), c),
    "audit.chi_square_agreement": lambda c: audit.chi_square_agreement(c, np.full(len(c), 1 / len(c))),
}


@pytest.mark.parametrize("entry", COUNT_ENTRY_POINTS, ids=str)
@given(
    c=st.one_of(
        st.lists(st.integers(-50, -1), min_size=2, max_size=5),
        st.lists(st.floats(0.1, 0.9), min_size=2, max_size=5),
        st.lists(st.just(0), min_size=2, max_size=5),
        st.lists(st.text(max_size=2), min_size=2, max_size=5),
    )
)
@settings(max_examples=40, deadline=None)
def test_bad_counts_are_refused(entry, c):
    arr = np.array(c, dtype=object) if c and isinstance(c[0], str) else np.array(c)
    if entry == "estimate.ibu" and arr.dtype.kind == "f" and np.all(arr > 0):
        return  # IBU accepts real expected counts (documented)
    with pytest.raises(REFUSED):
        COUNT_ENTRY_POINTS[entry](arr)


@given(
    v=st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=8),
    total=st.floats(min_value=1e-300, max_value=1e300),
)
@settings(max_examples=150, deadline=None)
def test_post_processing_always_lands_on_the_simplex(v, total):
    for fn in (estimate.norm_sub, estimate.project_simplex):
        out = fn(np.array(v), total)
        assert np.all(out >= 0) and np.all(np.isfinite(out))
        assert out.sum() == pytest.approx(total, rel=1e-9)


@given(a=st.lists(st.floats(-1, 1), min_size=1, max_size=5), b=st.lists(st.floats(-1, 1), min_size=1, max_size=5))
@settings(max_examples=40, deadline=None)
def test_metrics_refuse_mismatched_shapes(a, b):
    if len(a) == len(b):
        assert metrics.mse(np.array(a), np.array(b)) >= 0
    else:
        with pytest.raises(ValueError, match="estimate"):
            metrics.mse(np.array(a), np.array(b))
