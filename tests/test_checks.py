"""Property-based tests (hypothesis) for the validation helpers in ldp._checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ldp._checks import (
    as_generator,
    check_codes,
    check_counts,
    check_domain_size,
    check_epsilon,
    check_int,
    check_probability,
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
names = st.sampled_from(["epsilon", "eps1", "budget"])
not_numbers = st.one_of(st.text(max_size=5), st.none(), st.lists(st.floats(), max_size=2), st.just(object()))


# ------------------------------------------------------------------ epsilon
@FAST
@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False), names)
def test_epsilon_positive_finite_is_accepted(eps, name):
    assert check_epsilon(eps, name) == eps
    assert isinstance(check_epsilon(np.float64(eps), name), float)


@FAST
@given(st.one_of(st.floats(max_value=0.0, allow_nan=False), st.integers(max_value=0)), names)
def test_epsilon_non_positive_is_rejected_naming_the_parameter(eps, name):
    with pytest.raises(ValueError, match=name):
        check_epsilon(eps, name)


@FAST
@given(st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
def test_epsilon_zero_allowed_only_when_asked(eps):
    assert check_epsilon(0.0, allow_zero=True) == 0.0
    with pytest.raises(ValueError, match=">= 0"):
        check_epsilon(eps, allow_zero=True)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, np.float32("nan"), np.inf])
def test_epsilon_nan_inf(bad):
    with pytest.raises(ValueError, match="epsilon must be finite"):
        check_epsilon(bad)


@FAST
@given(st.one_of(st.booleans(), not_numbers, st.just(np.True_), st.just(1 + 1j)), names)
def test_epsilon_wrong_types(bad, name):
    with pytest.raises(TypeError, match=name):
        check_epsilon(bad, name)


# ------------------------------------------------------------------ integers and domain sizes
@FAST
@given(st.integers(min_value=2, max_value=10**9))
def test_domain_size_accepts_int_and_numpy_int(d):
    assert check_domain_size(d) == d
    assert check_domain_size(np.int64(d)) == d
    assert type(check_domain_size(np.int64(d))) is int


@FAST
@given(st.integers(max_value=1))
def test_domain_size_below_two(d):
    with pytest.raises(ValueError, match="d must be >= 2"):
        check_domain_size(d)


@FAST
@given(st.one_of(st.booleans(), st.floats(), not_numbers))
def test_domain_size_wrong_types(bad):
    with pytest.raises(TypeError, match="d must be an integer"):
        check_domain_size(bad)


@FAST
@given(st.integers(), st.integers(min_value=-5, max_value=5), st.integers(min_value=5, max_value=50))
def test_check_int_range(v, lo, hi):
    if lo <= v <= hi:
        assert check_int(v, "k", minimum=lo, maximum=hi) == v
    else:
        with pytest.raises(ValueError, match="k must be"):
            check_int(v, "k", minimum=lo, maximum=hi)


# ------------------------------------------------------------------ probabilities
@FAST
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_probability(v):
    ok = math.isfinite(v) and 0 <= v <= 1
    if ok:
        assert check_probability(v, "f") == v
    else:
        with pytest.raises(ValueError, match=r"f must lie in \[0, 1\]"):
            check_probability(v, "f")


def test_probability_open_ends_and_types():
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        check_probability(0.0, "f", open_low=True, open_high=True)
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        check_probability(1.0, "f", open_low=True, open_high=True)
    with pytest.raises(TypeError, match="f must be a real number"):
        check_probability(True, "f")


# ------------------------------------------------------------------ integer codes
int_dtypes = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32])


@FAST
@given(st.integers(min_value=2, max_value=120), int_dtypes, st.data())
def test_codes_in_range_are_accepted(d, dtype, data):
    hi = min(d - 1, np.iinfo(dtype).max)
    x = data.draw(hnp.arrays(dtype, st.integers(1, 40), elements=st.integers(0, hi)))
    out = check_codes(x, d)
    assert out.dtype == np.int64 and np.array_equal(out, x.astype(np.int64))


@FAST
@given(st.integers(min_value=2, max_value=100), st.data())
def test_codes_out_of_range_are_rejected(d, data):
    x = data.draw(hnp.arrays(np.int64, st.integers(1, 30), elements=st.integers(-1000, 1000)))
    bad = (x < 0) | (x >= d)
    if not bad.any():
        x[0] = data.draw(st.one_of(st.integers(-1000, -1), st.integers(d, 1000)))
    with pytest.raises(ValueError, match=r"x contains the code -?\d+, outside the domain"):
        check_codes(x, d, "x")


@FAST
@given(hnp.arrays(np.float64, st.integers(1, 10), elements=st.floats(0, 5)))
def test_float_codes_are_refused_even_when_integral(x):
    with pytest.raises(TypeError, match="integer codes"):
        check_codes(x, 10)
    with pytest.raises(TypeError, match="integer codes"):
        check_codes(np.round(x), 10)


@FAST
@given(
    hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4), elements=st.integers(0, 3))
)
def test_multidimensional_codes_are_refused(x):
    with pytest.raises(ValueError, match="one-dimensional"):
        check_codes(x, 4)


def test_empty_and_object_codes():
    with pytest.raises(ValueError, match="empty"):
        check_codes(np.array([], dtype=np.int64), 3)
    assert check_codes(np.array([], dtype=np.int64), 3, allow_empty=True).size == 0
    with pytest.raises(TypeError):
        check_codes(np.array([1, "a"], dtype=object), 3)
    with pytest.raises(TypeError):
        check_codes(["0", "1"], 3)


def test_empty_python_list_of_codes():
    """A plain [] has dtype float64; it must still read as 'no users', not as a wrong dtype."""
    assert check_codes([], 3, allow_empty=True).size == 0
    with pytest.raises(ValueError, match="empty"):
        check_codes([], 3)


# ------------------------------------------------------------------ counts
@FAST
@given(st.integers(1, 30), st.data())
def test_counts(d, data):
    c = data.draw(hnp.arrays(np.int64, d, elements=st.integers(0, 10**12)))
    assert np.array_equal(check_counts(c, d), c)
    assert np.array_equal(check_counts(c.astype(float), d), c) or np.any(c > 2**53)
    with pytest.raises(ValueError, match="length"):
        check_counts(c, d + 1)
    if d > 0:
        c2 = c.copy()
        c2[0] = -1
        with pytest.raises(ValueError, match="non-negative"):
            check_counts(c2, d)


def test_counts_types():
    with pytest.raises(TypeError, match="integer counts"):
        check_counts([0.5, 1.0])
    with pytest.raises(TypeError, match="integer counts"):
        check_counts([np.nan, 1.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        check_counts([[1, 2]])


def test_huge_counts_are_refused_rather_than_wrapped():
    """Counts beyond int64 would wrap to negative numbers on conversion: refuse them clearly."""
    with pytest.raises(ValueError, match="at most"):
        check_counts(np.array([2**63 + 5], dtype=np.uint64))
    with pytest.raises(ValueError, match="at most"):
        check_counts(np.array([2.0**64]))


# ------------------------------------------------------------------ as_generator
def test_generator_is_returned_unchanged():
    g = np.random.default_rng(0)
    assert as_generator(g) is g


@FAST
@given(st.integers(min_value=0, max_value=2**64))
def test_int_seed_is_reproducible(seed):
    a, b = as_generator(seed), as_generator(np.uint64(seed) if seed < 2**64 else seed)
    assert a.random() == b.random()
    assert as_generator(seed).integers(1 << 30) == np.random.default_rng(seed).integers(1 << 30)


@FAST
@given(st.integers(max_value=-1))
def test_negative_seed_is_rejected(seed):
    with pytest.raises(ValueError, match="non-negative"):
        as_generator(seed)


@FAST
@given(st.one_of(st.booleans(), st.floats(), st.text(max_size=3), st.lists(st.integers(), max_size=2)))
def test_bad_rng_types(bad):
    with pytest.raises(TypeError, match="rng must be"):
        as_generator(bad)


def test_seedsequence_bitgenerator_and_none():
    ss = np.random.SeedSequence(5)
    assert as_generator(ss).random() == np.random.default_rng(np.random.SeedSequence(5)).random()
    bg = np.random.PCG64(3)
    assert as_generator(bg).bit_generator is bg
    assert isinstance(as_generator(None), np.random.Generator)
