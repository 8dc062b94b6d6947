"""LoPub user side: Bloom filters, permanent randomized response, exact privacy per attribute and per record."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from ldp.audit import bitwise_channel_epsilon, channel_epsilon, check_channel
from ldp.lopub import (
    CodedTable,
    LoPubEncoder,
    amplified_epsilon,
    communication_cost,
    optimal_filter_length,
    optimal_hash_count,
    rappor_communication_cost,
    record_epsilon,
)
from ldp.oracles.bloom import epsilon_from_f


# ------------------------------------------------------------------ T-P1, T-P2, T-P3: budgets
@pytest.mark.parametrize(
    "f, eps",
    [
        (0.1, 23.56),
        (0.2, 17.58),
        (0.3, 13.88),
        (0.4, 11.09),
        (0.5, 8.79),
        (0.6, 6.78),
        (0.7, 4.95),
        (0.8, 3.24),
        (0.9, 1.61),
    ],
)
def test_epsilon_table_per_attribute(f, eps):
    enc = LoPubEncoder((3, 2), f=f, m=16, h=4)
    assert round(enc.epsilon_attribute, 2) == pytest.approx(eps)


def test_epsilon_half_is_8_ln3_and_record_level_is_d_times():
    enc = LoPubEncoder((2,) * 15, f=0.5, m=32, h=4)
    assert math.exp(enc.epsilon_attribute) == pytest.approx(6561.0, rel=1e-12)
    assert enc.epsilon_attribute == pytest.approx(8 * math.log(3), rel=1e-12)
    assert enc.epsilon_record == pytest.approx(15 * 8 * math.log(3), rel=1e-12)
    assert record_epsilon(0.5, 4, 15) == pytest.approx(131.83, abs=5e-3)


@pytest.mark.parametrize("rate, expected", [(0.1, math.log(657)), (0.5, math.log(3281)), (1.0, 8 * math.log(3))])
def test_sampling_amplification(rate, expected):
    assert amplified_epsilon(8 * math.log(3), rate) == pytest.approx(expected, rel=1e-12)


def test_amplification_does_not_overflow_at_record_level_budgets():
    assert amplified_epsilon(353.3, 0.1) == pytest.approx(353.3 + math.log(0.1), rel=1e-12)


# ------------------------------------------------------------------ T-B1: Bloom sizing and Eqs. (9)-(10)
def test_bloom_sizing_and_communication():
    p = 1 / 16
    assert optimal_hash_count(p) == pytest.approx(4.0)
    assert optimal_filter_length(7, p) / 7 == pytest.approx(4 / math.log(2))
    assert communication_cost((35, 2, 3, 4), p) == pytest.approx(253.91, abs=5e-3)
    assert rappor_communication_cost((35, 2, 3, 4), p) == pytest.approx(4847.46, abs=5e-3)


# ------------------------------------------------------------------ T-B2: filters
@pytest.mark.parametrize("sizing", ["fixed", "optimal"])
def test_filters_have_h_or_fewer_ones_distinct_rows_full_rank(sizing):
    enc = LoPubEncoder((41, 16, 2, 7), f=0.5, m=128, h=4, sizing=sizing)
    for B, v in zip(enc.filters, enc.domains):
        ones = B.sum(axis=1)
        assert ones.min() >= 1 and ones.max() <= 4
        assert len({row.tobytes() for row in B}) == v
        assert np.linalg.matrix_rank(B.astype(float)) == v
    if sizing == "optimal":
        assert enc.lengths == tuple(min(128, math.ceil(4 * v / math.log(2))) for v in (41, 16, 2, 7))
    else:
        assert enc.lengths == (128,) * 4


def test_filters_deterministic_across_processes():
    code = (
        "from ldp.lopub import LoPubEncoder; import hashlib;"
        "e = LoPubEncoder((41, 16, 2), f=0.5, m=128, h=4);"
        "print(hashlib.sha256(b''.join(B.tobytes() for B in e.filters)).hexdigest())"
    )
    outs = set()
    for seed in ("1", "987"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            ).stdout.strip()
        )
    assert len(outs) == 1


def test_filters_come_from_bloom_rappor():
    enc = LoPubEncoder((5, 3), f=0.3, m=16, h=2)
    for o, B in zip(enc.oracles, enc.filters):
        np.testing.assert_array_equal(o.bloom_matrix(), B)


# ------------------------------------------------------------------ privacy audited exactly
def test_attribute_channel_epsilon_exact_small_m():
    enc = LoPubEncoder((3, 2), f=0.4, m=8, h=2)
    for o in enc.oracles:
        P = check_channel(o.channel())
        eps = channel_epsilon(P)
        assert eps == pytest.approx(o.exact_epsilon, rel=1e-9)
        assert eps <= enc.epsilon_attribute + 1e-9


def test_attribute_epsilon_exact_at_paper_size():
    f = 0.5
    enc = LoPubEncoder((41, 2, 16), f=f, m=128, h=4)
    for B, exact in zip(enc.filters, enc.exact_epsilons):
        bit_probs = f / 2 + (1 - f) * B.astype(float)
        assert bitwise_channel_epsilon(bit_probs) == pytest.approx(exact, rel=1e-9)
        assert exact <= enc.epsilon_attribute + 1e-9
    # 41 values hashed 4 times into 128 bits: some pair of filters is disjoint, so the bound is tight
    assert enc.exact_epsilons[0] == pytest.approx(enc.epsilon_attribute, rel=1e-12)


def test_record_channel_composes_to_sum_of_attribute_epsilons():
    """Two attributes, tiny filters: the full record channel's epsilon is the sum (erratum E3)."""
    enc = LoPubEncoder((3, 2), f=0.5, m=4, h=2)
    pa, pb = enc.oracles[0].channel(), enc.oracles[1].channel()
    record = np.einsum("ax,by->abxy", pa, pb).reshape(pa.shape[0] * pb.shape[0], -1)
    check_channel(record)
    eps = channel_epsilon(record)
    assert eps == pytest.approx(sum(enc.exact_epsilons), rel=1e-9)
    assert eps > max(enc.exact_epsilons)


# ------------------------------------------------------------------ T-P4, T-P5: PRR
def test_prr_bit_probabilities_within_3_se():
    f = 0.3
    n = 400_000
    enc = LoPubEncoder((2,), f=f, m=4, h=1)
    codes = np.zeros((n, 1), dtype=np.int64)
    rep = enc.encode(codes, rng=7)
    B = enc.filters[0][0].astype(bool)
    freq = rep.bits[0].mean(axis=0)
    for b in range(4):
        p = 1 - f / 2 if B[b] else f / 2
        se = math.sqrt(p * (1 - p) / n)
        assert abs(freq[b] - p) <= 3 * se


def test_likelihood_ratio_of_differing_bits():
    f, h = 0.25, 2
    enc = LoPubEncoder((4,), f=f, m=6, h=h)
    P = enc.oracles[0].channel()
    B = enc.filters[0].astype(int)
    for x, x2 in itertools.permutations(range(4), 2):
        dist = int(np.sum(B[x] != B[x2]))
        ratio = np.max(np.log(P[x] / P[x2]))
        assert ratio == pytest.approx(dist * math.log((2 - f) / f), rel=1e-9)
        assert dist <= 2 * h


# ------------------------------------------------------------------ the worked example (Tables 3 and 5)
def test_table3_records_encode_to_table5_bit_strings():
    """Encoding Table 3's records with Table 5's filters gives exactly Table 5's strings (f -> 0).

    The expected strings are typed from Table 5 of Ren et al. so that the test also checks the
    transcription in ``ldp.lopub.paper``; Age is left out (erratum E13).
    """
    from ldp.lopub import paper as ex

    attrs = ("Gender", "Education", "Income")
    expected = {  # Table 5, for the users u1, u2, u3, uN of Table 3
        "Gender": ["01", "10", "10", "01"],  # M, F, F, M
        "Education": ["0101", "0110", "0101", "1100"],  # college, master, college, phd
        "Income": ["0110", "0011", "0110", "1001"],  # working, low-middle, working, up-middle
    }
    labels = [tuple(ex.TABLE5[a]) for a in attrs]
    codes = np.column_stack([[labels[j].index(v) for v in ex.TABLE3[a]] for j, a in enumerate(attrs)])
    filters = [ex.table5_filters(a) for a in attrs]

    def strings(rows):
        return ["".join(str(int(b)) for b in row) for row in rows]

    enc = LoPubEncoder([len(v) for v in labels], f=1e-12, h=2, names=attrs, filters=filters)
    assert enc.lengths == (2, 4, 4)
    for j, a in enumerate(attrs):
        assert strings(enc.oracles[j].encode(codes[:, j])) == expected[a]  # the true filters s = H(x)
    for seed in range(5):  # PRR with f -> 0 keeps them
        rep = enc.encode(codes, rng=seed)
        for j, a in enumerate(attrs):
            assert strings(rep.bits[j]) == expected[a]
    # the same filters drive the likelihood: Example 3, P(0111 | college) = 27/256 at f = 1/2
    half = LoPubEncoder([len(v) for v in labels], f=0.5, h=2, filters=filters)
    ll = half.oracles[1].log_likelihood(np.array([[0, 1, 1, 1]]))
    assert math.exp(ll[0, 0]) == pytest.approx(27 / 256, rel=1e-14)


def test_explicit_filters_are_checked():
    with pytest.raises(ValueError, match="filters has 1 matrices for 2 attributes"):
        LoPubEncoder((2, 3), f=0.5, filters=[np.eye(2, dtype=int)])
    with pytest.raises(ValueError, match=r"filters\[1\] must have shape \(3, m_j\)"):
        LoPubEncoder((2, 3), f=0.5, h=2, filters=[np.eye(2, dtype=int), np.eye(2, dtype=int)])
    with pytest.raises(ValueError, match="between 1 and h = 1 ones"):
        LoPubEncoder((2,), f=0.5, h=1, filters=[np.array([[1, 1, 0], [0, 0, 1]])])


# ------------------------------------------------------------------ encode
def test_encode_shapes_and_reports():
    table = CodedTable(np.array([[0, 1], [2, 0], [1, 1]]), ("a", "b"), (("x", "y", "z"), ("u", "v")))
    enc = LoPubEncoder(table.sizes, f=0.5, m=8, h=2, names=table.names)
    rep = enc.encode(table, rng=1)
    assert rep.n == 3 and rep.d == 2 and rep.m == (8, 8) and rep.names == ("a", "b")
    assert enc.report_bits == 16
    again = enc.encode(table, rng=1)
    for b1, b2 in zip(rep.bits, again.bits):
        np.testing.assert_array_equal(b1, b2)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(f=0.0), "f must lie in"),
        (dict(f=1.0), "f must lie in"),
        (dict(f=-0.2), "f must lie in"),
        (dict(f=0.5, h=0), "h must be >= 1"),
        (dict(f=0.5, m=3, h=4), "m must be >= h"),
        (dict(f=0.5, m=4, h=2), "cannot be linearly independent"),
        (dict(f=0.5, sizing="best"), "sizing must be one of"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LoPubEncoder((5, 2), **kwargs)


def test_bad_domain_and_codes():
    with pytest.raises(ValueError, match="domains\\[1\\] must be >= 2"):
        LoPubEncoder((5, 1), f=0.5, m=8, h=2)
    enc = LoPubEncoder((3, 2), f=0.5, m=8, h=2)
    with pytest.raises(ValueError, match="outside the domain"):
        enc.encode(np.array([[0, 2]]))
    with pytest.raises(ValueError, match="shape"):
        enc.encode(np.array([0, 1]))
    with pytest.raises(TypeError, match="integer"):
        LoPubEncoder((3, 2), f=0.5, m=8.0, h=2)


def test_nominal_epsilon_matches_oracle_module():
    assert LoPubEncoder((3,), f=0.7, m=8, h=3).epsilon_attribute == epsilon_from_f(0.7, 3)


# ------------------------------------------------------------------ property-based validation
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ldp.lopub.reports import check_attrs  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(f=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(float("nan"))))
def test_any_f_outside_open_unit_interval_is_refused(f):
    with pytest.raises(ValueError, match="f must"):
        LoPubEncoder((3, 2), f=f, m=8, h=2)


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 8), attrs=st.lists(st.integers(-3, 10), max_size=10))
def test_check_attrs_accepts_exactly_valid_clusters(d, attrs):
    valid = 0 < len(attrs) <= d and len(set(attrs)) == len(attrs) and all(0 <= a < d for a in attrs)
    if valid:
        assert check_attrs(attrs, d) == tuple(attrs)
    else:
        with pytest.raises(ValueError):
            check_attrs(attrs, d)


def test_encoder_draws_its_reports_with_the_chosen_sampler():
    # "xor" (the default) and "uniform" are permanent_rr's two samplers, applied attribute by attribute to one stream;
    # that they draw one law is tested in tests/test_oracles_bloom.py
    from ldp.oracles.bloom import permanent_rr

    codes = np.random.default_rng(0).integers(0, 3, size=(500, 2))
    for sampler in ("xor", "uniform"):
        enc = LoPubEncoder((3, 3), f=0.5, m=16, h=2, sampler=sampler)
        gen = np.random.default_rng(4)
        expected = [permanent_rr(enc.filters[j][codes[:, j]], 0.5, gen, sampler=sampler) for j in range(2)]
        for got, exp in zip(enc.encode(codes, rng=4).bits, expected):
            np.testing.assert_array_equal(got, exp)
    assert LoPubEncoder((3, 3), f=0.5, m=16, h=2).sampler == "xor"
    with pytest.raises(ValueError, match="sampler"):
        LoPubEncoder((3, 3), f=0.5, m=16, h=2, sampler="fast")
