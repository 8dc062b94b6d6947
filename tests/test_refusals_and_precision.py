"""One test per class of bad input that an independent trial found accepted, and the precision and tie fixes.

Classes: counts given as reports; tallies and frequency vectors; domain sizes bounded before allocation;
singular channels and report frequencies that are not a distribution; estimators' inputs; chapter helpers;
reproducibility traps (seeds, the scheduler address); tables.  Then closed forms of ``1 - p`` and ``p - q``,
Hypothesis properties of ``clip_normalise``, ``log_likelihood`` and ``inverse_estimate`` at extreme finite
inputs, and bitwise-equal entropies of a one-to-one attribute pair of Adult.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp import channels, estimate, sweep, tables
from ldp.clldp import BasicSolution
from ldp.clldp.attack import labeldp_attack
from ldp.clldp.kchoice import k_ceil, k_floor
from ldp.clldp.leakage import labeldp_channel
from ldp.lopub.dependency import entropy
from ldp.lopub.lasso import debias_counts
from ldp.multiclass import HEC, PTS
from ldp.multiclass.frameworks import Tallies
from ldp.oracles import GRR, OUE, BloomRAPPOR, SubsetSelection
from ldp.oracles.bloom import debias_bit_counts
from ldp.oracles.local_hash import collision_probability
from ldp.oracles.unary import unary_epsilon
from ldp.uldp import CPRR, URR, JuRR, ULDPModel2D
from ldp.uldp.baselines import TDRR, JointGRR, TDRRUnbiased

EXTREME = st.floats(min_value=-1e308, max_value=1e308, allow_nan=False, allow_infinity=False)


# ---------------------------------------------------------------------------- 1. reports vs counts
def test_counts_given_as_reports_are_refused_with_the_rule():
    with pytest.raises(ValueError, match=r"reports has length d=4.*estimate_counts"):
        URR(1.0, 4, [0, 1]).estimate([3, 1, 2, 0])
    with pytest.raises(ValueError, match=r"reports has length d=5"):
        GRR(1.0, 5).estimate(np.array([3, 1, 2, 0, 4]))
    m = GRR(1.0, 5)  # exactly d users: the documented route
    reports = np.array([3, 1, 2, 0, 4])
    np.testing.assert_allclose(m.estimate_counts(m.support_counts(reports), 5), m.estimate_counts(np.ones(5), 5))
    assert m.estimate(np.array([0, 1, 2, 3, 4, 0])).shape == (5,)  # any other length is reports


@pytest.mark.parametrize("bad", [None, "abc", 5])
def test_missing_or_scalar_reports_name_reports(bad):
    with pytest.raises(TypeError, match=r"reports must be"):
        GRR(1.0, 5).estimate(bad)
    with pytest.raises(TypeError, match=r"reports must be the pair"):
        PTS(1.0, 3, 4).support_counts(bad)


# ---------------------------------------------------------------------------- 2. tallies and frequencies
def test_inconsistent_tallies_are_refused():
    hec = HEC(1.0, 3, 4)
    good = hec.simulate_counts(np.full((3, 4), 5), rng=0)
    hec.estimate_counts(good)
    with pytest.raises(ValueError, match=r"counts.group must sum to counts.N"):
        hec.estimate_counts(Tallies(N=good.N, pair=good.pair, group=np.array([20, 20, 0])))
    with pytest.raises(ValueError, match=r"counts.group"):
        hec.estimate_counts(Tallies(N=good.N, pair=good.pair, group=np.array([60, 0, 0])))
    pts = PTS(1.0, 3, 4)
    t = pts.simulate_counts(np.full((3, 4), 5), rng=0)
    with pytest.raises(TypeError, match=r"counts.N must be an integer"):
        pts.estimate_counts(Tallies(N=20.5, pair=t.pair, label=t.label, item=t.item))
    with pytest.raises(ValueError, match=r"counts.label must be non-negative"):
        pts.estimate_counts(Tallies(N=t.N, pair=t.pair, label=np.array([-1, 31, 30]), item=t.item))


@pytest.mark.parametrize("cls", ["URR", "JuRR", "CPRR", "TDRR", "TDRRUnbiased", "JointGRR"])
@pytest.mark.parametrize("freq_kind", ["not summing to 1", "negative", "nan"])
def test_uldp_report_frequencies_must_be_a_distribution(cls, freq_kind):
    model = ULDPModel2D.first_sensitive(3, 3, 1, 2)
    mech = {
        "URR": lambda: URR(1.5, 9, [0, 1]),
        "JuRR": lambda: JuRR(1.5, model),
        "CPRR": lambda: CPRR(1.5, model),
        "TDRR": lambda: TDRR(1.5, model),
        "TDRRUnbiased": lambda: TDRRUnbiased(1.5, model),
        "JointGRR": lambda: JointGRR(1.5, model),
    }[cls]()
    freq = np.full(9, 1 / 9)
    freq = {"not summing to 1": freq * 1.5, "negative": freq + np.eye(9)[0] * 0.2 - np.eye(9)[1] * 0.2, "nan": freq}[
        freq_kind
    ]
    if freq_kind == "nan":
        freq[0] = np.nan
    with pytest.raises(ValueError, match=r"report_freq must"):
        mech.estimate_from_frequencies(freq.reshape(mech.shape))


def test_bit_counts_are_checked():
    with pytest.raises(ValueError, match=r"counts must be finite"):
        debias_bit_counts([np.nan, 4, 5], 10, 0.5)
    for fn in (debias_bit_counts, debias_counts):
        with pytest.raises(ValueError, match=r"counts must lie in \[0, n=10\]"):
            fn([30, -4, 5], 10, 0.5)


# ---------------------------------------------------------------------------- 3. domain sizes
def test_domain_sizes_are_bounded_before_allocation():
    with pytest.raises(ValueError, match=r"d=65536 would need 32 GiB"):
        GRR(1.0, 2**16).channel()
    with pytest.raises(ValueError, match=r"C\(d, omega\).*about 10\^.*at d=1048576"):
        SubsetSelection(1.0, 2**20).channel()


# ---------------------------------------------------------------------------- 4. linear algebra
def test_singular_channel_and_non_distribution_report_frequencies():
    with pytest.raises(ValueError, match=r"P is singular"):
        channels.inverse_estimate(np.full((3, 3), 1 / 3), [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"P is singular"):
        channels.inverse_variance(np.full((3, 3), 1 / 3), [0.2, 0.3, 0.5], 10)
    with pytest.raises(ValueError, match=r"report_freq must sum to 1"):
        channels.inverse_estimate(np.eye(3), [0.9, 0.9, 0.9])


# ---------------------------------------------------------------------------- 5. estimators
def test_estimators_refuse_nan_and_survive_huge_values():
    P = GRR(1.0, 2).channel()
    with pytest.raises(ValueError, match=r"pi must be finite"):
        estimate.log_likelihood(P, [3, 4], [np.nan, 0.5])
    np.testing.assert_array_equal(estimate.clip_normalise([1e308, 1e308, -1.0]), [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(estimate.clip_normalise([9e307, 9e307]), [0.5, 0.5])


@settings(max_examples=200, deadline=None)
@given(st.lists(EXTREME, min_size=1, max_size=8), st.floats(min_value=1e-300, max_value=1e300))
def test_clip_normalise_is_a_distribution_for_any_finite_input(v, total):
    out = estimate.clip_normalise(v, total)
    assert np.all(np.isfinite(out)) and np.all(out >= 0)
    assert math.isclose(math.fsum(out), total, rel_tol=1e-12)
    positive = np.asarray(v) > 0
    if positive.any():
        assert np.all(out[~positive] == 0)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=2, max_value=6).flatmap(
        lambda d: st.tuples(
            st.just(d),
            st.floats(min_value=1e-8, max_value=700),
            st.lists(st.floats(min_value=0, max_value=1e300), min_size=d, max_size=d).filter(lambda w: sum(w) > 0),
            st.lists(st.integers(min_value=0, max_value=10**12), min_size=d, max_size=d).filter(lambda c: sum(c) > 0),
        )
    )
)
def test_log_likelihood_is_finite_or_minus_inf_never_nan(args):
    d, eps, weights, counts = args
    pi = estimate.clip_normalise(weights)
    value = estimate.log_likelihood(GRR(eps, d).channel(), counts, pi)
    assert not math.isnan(value) and value <= 0


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=2, max_value=6).flatmap(
        lambda d: st.tuples(
            st.just(d),
            st.floats(min_value=1e-3, max_value=30),
            st.lists(st.floats(min_value=0, max_value=1e300), min_size=d, max_size=d).filter(lambda w: sum(w) > 0),
        )
    )
)
def test_inverse_estimate_recovers_the_input_distribution(args):
    d, eps, weights = args
    f = estimate.clip_normalise(weights)
    P = GRR(eps, d).channel()
    got = channels.inverse_estimate(P, channels.output_distribution(P, f))
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, f, atol=1e-9 * max(1.0, d / math.expm1(eps)))


# ---------------------------------------------------------------------------- 6. chapter helpers
def test_chapter_helpers_refuse_bad_arguments_by_name():
    X, y = np.zeros((10, 2), dtype=int), np.zeros(10, dtype=int)
    with pytest.raises(ValueError, match=r"X has 2 columns but sizes lists 1"):
        labeldp_attack(X, y, [2], 2, 1.0, 0)
    with pytest.raises(TypeError, match=r"m_attr must be an integer"):
        labeldp_channel(GRR(1.0, 2).channel(), "5")
    with pytest.raises(ValueError, match=r"q must be <= p"):
        unary_epsilon(0.1, 0.25)
    with pytest.raises(ValueError, match=r"prime must be a prime number"):
        collision_probability(3, 8)
    with pytest.raises(ValueError, match=r"g must be >= 2"):
        collision_probability(0)
    for fn in (k_floor, k_ceil):
        with pytest.raises(ValueError, match=r"^m must be >= 2"):
            fn(1.0, 1)


# ---------------------------------------------------------------------------- 8. reproducibility
def test_trial_rng_seeds_and_scheduler_address(monkeypatch):
    with pytest.raises(TypeError, match=r"seed must be an integer >= 0, got None"):
        sweep.trial_rng(None, 0, 0)
    with pytest.raises(ValueError, match=r"seed must be >= 0"):
        sweep.trial_rng(-1, 0, 0)
    with pytest.raises(ValueError, match=r"point must be >= 0"):
        sweep.trial_rng(0, -1, 0)
    assert sweep.trial_rng(3, 1, 2).random() == sweep.trial_rng(3, 1, 2).random()
    for address in ("tcp:// host :1", "host:8786", "tcp://host:99999", "ftp://host:1", "tcp://:8786"):
        monkeypatch.setenv("LDP_SCHEDULER", address)
        with pytest.raises(ValueError, match=r"LDP_SCHEDULER must be a scheduler address"):
            sweep.backend_settings()
    monkeypatch.setenv("LDP_SCHEDULER", "tcp://10.0.0.5:8786")
    monkeypatch.delenv("LDP_BACKEND", raising=False)
    assert sweep.backend_settings()["scheduler_address"] == "tcp://10.0.0.5:8786"
    assert sweep.DASK_CONNECT_TIMEOUT <= 10


# ---------------------------------------------------------------------------- 9. tables
def test_table_indices_and_sizes():
    t = tables.CodedTable(np.array([[0, 1], [1, 0], [1, 1]]), ("a", "b"), ((0, 1), (0, 1)))
    with pytest.raises(TypeError, match=r"columns must hold integer indices"):
        t.select([0.5])
    with pytest.raises(ValueError, match=r"n must be <= 3"):
        t.subsample(4)
    with pytest.raises(ValueError, match=r"rows contains the index 3, outside \{0, ..., 2\}"):
        t.take([0, 3])
    with pytest.raises(ValueError, match=r"rows as a boolean mask must have shape \(3,\)"):
        t.take([True, False])
    assert t.take(np.array([True, False, True])).n == 2
    with pytest.raises(TypeError, match=r"codes must be a 2-D integer array"):
        t.with_codes(np.array([0, 1]))  # one record is codes[None, :]
    assert t.with_codes(np.array([[0, 1]])).n == 1


# ---------------------------------------------------------------------------- 11. precision and ties
def test_closed_forms_of_one_minus_p_and_p_minus_q():
    ss = SubsetSelection(8.0, 100, subset_size=2)
    exact = Fraction(ss.one_minus_p) / math.comb(99, 2)
    assert ss.channel_entry(0, [1, 2]) == float(exact)  # 0 is not in the subset: (1 - p)/C(d-1, omega)
    eps = 1e-6
    assert OUE(eps, 4).p_minus_q == pytest.approx(math.tanh(eps / 2) / 2, rel=1e-15)
    b = BloomRAPPOR(eps, 4, 16, 2, hash_seed=0)
    assert b.p_minus_q == pytest.approx(math.tanh(eps / 8), rel=1e-15)
    basic = BasicSolution(8.0, 3, 2)
    p = basic.p
    want = basic.m * p * basic.one_minus_p / (100 * math.tanh(8.0 / 4) ** 2)
    assert basic.expected_sq_l2(100) == pytest.approx(want, rel=1e-15)


def test_entropy_is_a_function_of_the_multiset_only():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(16))
    values = {entropy(p[rng.permutation(16)]) for _ in range(200)}
    assert len(values) == 1


def test_one_to_one_attributes_of_adult_have_bitwise_equal_entropies():
    from ldp.data import load
    from ldp.lopub.datasets import adult_table
    from ldp.lopub.pruning import relative_entropy
    from ldp.lopub.summaries import exact_mi_inputs

    table = adult_table(load("adult"))  # Adult ships in the package
    i, j = table.names.index("education"), table.names.index("education_num")
    _, marginals = exact_mi_inputs(table)
    assert sorted(marginals[i]) == sorted(marginals[j])  # the same distribution, relabelled
    assert entropy(marginals[i]) == entropy(marginals[j])
    assert relative_entropy(marginals[i]) == relative_entropy(marginals[j])
    # the documented tie rule: the smaller index is kept first
    rh = np.array([relative_entropy(m) for m in marginals])
    order = list(np.argsort(-rh, kind="stable"))
    assert order.index(i) + 1 == order.index(j)
