"""ldp.tables: the shared product domain and coded-table type."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ldp.tables import CodedTable, ProductDomain, distinct_rows, equal_width_codes, interval_labels


# ---------------------------------------------------------------------------- ProductDomain
def test_encode_is_row_major_and_matches_numpy():
    dom = ProductDomain((3, 4, 2), ("a", "b", "c"))
    assert dom.size == 24 and dom.ndim == 3
    a, b, c = np.array([0, 2, 1]), np.array([3, 0, 2]), np.array([1, 1, 0])
    np.testing.assert_array_equal(dom.encode(a, b, c), (a * 4 + b) * 2 + c)
    assert dom.encode(a, b, c).dtype == np.int64


@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_decode_inverts_encode(sizes, seed):
    dom = ProductDomain(sizes)
    gen = np.random.default_rng(seed)
    cols = [gen.integers(0, m, size=17) for m in sizes]
    flat = dom.encode(*cols)
    assert flat.min() >= 0 and flat.max() < dom.size
    for got, want in zip(dom.decode(flat), cols, strict=True):
        np.testing.assert_array_equal(got, want)
    # every cell once: encode(decode(range)) is the identity
    np.testing.assert_array_equal(dom.encode(*dom.decode(np.arange(dom.size))), np.arange(dom.size))


def test_decode_keeps_the_shape():
    dom = ProductDomain((2, 5))
    rows, cols = dom.decode(np.array([[0, 9], [5, 4]]))
    np.testing.assert_array_equal(rows, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(cols, [[0, 4], [0, 4]])


def test_reshape():
    dom = ProductDomain((2, 3))
    np.testing.assert_array_equal(dom.reshape(np.arange(6)), [[0, 1, 2], [3, 4, 5]])
    with pytest.raises(ValueError, match="values must be a vector of length 6"):
        dom.reshape(np.arange(5))


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: ProductDomain(()), ValueError, "at least one component"),
        (lambda: ProductDomain("ab"), TypeError, "sequence of domain sizes"),
        (lambda: ProductDomain((2, 0)), ValueError, r"sizes\[1\]"),
        (lambda: ProductDomain((2, 2.5)), TypeError, r"sizes\[1\]"),
        (lambda: ProductDomain((2, 3), ("a",)), ValueError, "names has 1 entries for 2"),
        (lambda: ProductDomain((2, 3), ("a", "b")).encode([0, 1]), ValueError, r"takes 2 code arrays \(a, b\), got 1"),
        (lambda: ProductDomain((2, 3), ("a", "b")).encode([0, 2], [0, 1]), ValueError, "a contains the code 2"),
        (lambda: ProductDomain((2, 3), ("a", "b")).encode([0, 1], [0, -1]), ValueError, "b contains the code -1"),
        (
            lambda: ProductDomain((2, 3), ("a", "b")).encode([0, 1], [0.5, 1.0]),
            TypeError,
            "b must be an array of integer",
        ),
        (
            lambda: ProductDomain((2, 3), ("a", "b")).encode([0, 1], [0, 1, 2]),
            ValueError,
            "a and b must have the same length, got 2 and 3",
        ),
        (lambda: ProductDomain((2, 3), ("a", "b")).encode([], []), ValueError, "a is empty"),
        (
            lambda: ProductDomain((1, 3), ("a", "b")).encode([1], [0]),
            ValueError,
            r"a contains the code 1, outside .*\{0\}",
        ),
        (lambda: ProductDomain((2, 3)).decode([6]), ValueError, "x contains the code 6"),
    ],
)
def test_product_domain_refuses_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_size_one_component_is_allowed():
    dom = ProductDomain((1, 3))
    np.testing.assert_array_equal(dom.encode([0, 0], [2, 1]), [2, 1])


# ---------------------------------------------------------------------------- binning
def test_equal_width_codes_bins_closed_on_the_left():
    np.testing.assert_array_equal(equal_width_codes([0.0, 0.5, 1.0, 0.99], bins=2), [0, 1, 1, 1])
    codes, labels = equal_width_codes(np.arange(11.0), 5, return_labels=True)  # edges 0, 2, 4, 6, 8, 10
    assert np.bincount(codes).tolist() == [2, 2, 2, 2, 3]  # the maximum joins the last bin
    assert labels == ("[0, 2)", "[2, 4)", "[4, 6)", "[6, 8)", "[8, 10)")
    constant, labels = equal_width_codes([3.0, 3.0], 4, return_labels=True)
    assert constant.tolist() == [0, 0] and len(set(labels)) == 4
    with pytest.raises(ValueError, match="finite"):
        equal_width_codes([0.0, np.inf])
    with pytest.raises(ValueError, match="bins"):
        equal_width_codes([0.0, 1.0], bins=0)


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40), st.integers(1, 12))
@example(values=[0.0, 5e-324], bins=2)  # a subnormal range: edges coincide (pandas.cut refused them)
@example(values=[0.0, 5e-324], bins=1)
def test_equal_width_codes_agree_with_the_edges(values, bins):
    v = np.array(values)
    codes = equal_width_codes(v, bins)
    assert codes.min() >= 0 and codes.max() < bins
    if v.max() > v.min():
        edges = np.linspace(v.min(), v.max(), bins + 1)
        np.testing.assert_array_equal(codes, np.clip(np.searchsorted(edges, v, side="right") - 1, 0, bins - 1))


def test_interval_labels():
    assert interval_labels([0, 1.5, 3]) == ("[0, 1.5)", "[1.5, 3)")


# ---------------------------------------------------------------------------- CodedTable
def _frame():
    return pd.DataFrame(
        {
            "colour": ["red", "blue", "red", "green"],
            "size": [3, 1, 2, 1],
            "weight": [0.0, 10.0, 5.0, 9.9],
            "label": ["yes", "no", "no", "yes"],
        }
    )


def test_from_frame_codes_sorted_categories_bins_and_label():
    t = CodedTable.from_frame(_frame(), label="label", continuous=["weight"], bins=2, source="toy")
    assert t.names == ("colour", "size", "weight") and t.n == 4 and t.d == 3
    assert t.categories[0] == ("blue", "green", "red") and t.categories[1] == (1, 2, 3)
    np.testing.assert_array_equal(t.codes, [[2, 2, 0], [0, 0, 1], [2, 1, 1], [1, 0, 1]])
    assert t.sizes == (3, 3, 2) and t.classes == ("no", "yes") and t.y.tolist() == [1, 0, 0, 1]
    assert t.X is t.codes and t.source == "toy" and t.real
    assert t.domain([0, 2]) == ProductDomain((3, 2))


def test_from_frame_pads_small_domains_and_refuses_missing_values():
    t = CodedTable.from_frame(pd.DataFrame({"a": ["x", "x"]}), min_size=3)
    assert t.categories == (("x", "(unobserved 1)", "(unobserved 2)"),) and t.sizes == (3,)
    with pytest.raises(ValueError, match=r"columns \['a'\] contain missing values"):
        CodedTable.from_frame(pd.DataFrame({"a": ["x", None]}))
    with pytest.raises(ValueError, match="label column 'z' is not in the frame"):
        CodedTable.from_frame(_frame(), label="z")
    with pytest.raises(ValueError, match=r"columns not in frame: \['q'\]"):
        CodedTable.from_frame(_frame(), ["q"])
    with pytest.raises(TypeError, match="frame must be a pandas DataFrame"):
        CodedTable.from_frame({"a": [1]})


def test_frame_round_trip_and_recoding():
    t = CodedTable.from_frame(_frame(), ["colour", "size"])
    frame = t.to_frame()
    assert [list(frame[c].cat.categories) for c in frame.columns] == [list(c) for c in t.categories]
    again = t.code_frame(frame)
    np.testing.assert_array_equal(again.codes, t.codes)
    assert again.categories == t.categories
    with pytest.raises(ValueError, match=r"column 'colour' has unknown categories \[\"'pink'\"\]"):
        t.code_frame(pd.DataFrame({"colour": ["pink"], "size": [1]}))
    with pytest.raises(ValueError, match="lacks the columns"):
        t.code_frame(pd.DataFrame({"colour": ["red"]}))


def test_select_take_subsample_with_codes():
    t = CodedTable.from_frame(_frame(), label="label", continuous=["weight"], bins=2)
    s = t.select([2, 0])
    assert s.names == ("weight", "colour") and s.sizes == (2, 3) and s.y is t.y
    r = t.take([3, 0])
    np.testing.assert_array_equal(r.codes, t.codes[[3, 0]])
    assert r.y.tolist() == [1, 1]
    sub = t.subsample(2, rng=0)
    assert sub.n == 2 and "random subsample of 2 rows" in sub.source
    assert t.subsample(t.n) is t
    with pytest.raises(ValueError, match=r"n must be <= \d+"):
        t.subsample(t.n + 1)  # more rows than the table has: refused, not silently fewer
    w = t.with_codes(t.codes[:1])
    assert w.n == 1 and w.y is None and w.classes == ()
    with pytest.raises(ValueError, match="distinct indices"):
        t.select([0, 0])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(codes=np.zeros(3, dtype=int)), TypeError, "codes must be a 2-D integer array"),
        (dict(codes=np.zeros((2, 2))), TypeError, "codes must be a 2-D integer array"),
        (dict(names=("a",)), ValueError, "2 columns but 1 names"),
        (dict(names=("a", "a")), ValueError, "names must be distinct"),
        (dict(names="ab"), TypeError, "names must be a sequence"),
        (dict(categories=(("x",), ())), ValueError, "attribute 'b' has no categories"),
        (dict(codes=np.array([[0, 2]])), ValueError, r"column 'b' has codes outside \{0, ..., 1\}"),
        (dict(y=np.array([0, 1])), ValueError, "y must be a 1-D array of 1 label codes"),
        (dict(y=np.array([0])), ValueError, "needs its classes"),
        (dict(y=np.array([3]), classes=("n", "p")), ValueError, "y contains the code 3"),
        (dict(classes=("n", "p")), ValueError, "classes given without a label column"),
    ],
)
def test_coded_table_refuses_bad_input(kwargs, exc, match):
    fields = dict(codes=np.array([[0, 1]]), names=("a", "b"), categories=(("x",), ("u", "v")))
    fields.update(kwargs)
    with pytest.raises(exc, match=match):
        CodedTable(**fields)


# ---------------------------------------------------------------------------- distinct rows
@pytest.mark.parametrize(
    "radices",
    [(2, 3, 4), (50_000,) * 5, (1, 1), (7,)],  # (50,000)^5 overflows int64: the key is re-numbered on the way
)
def test_distinct_rows_matches_numpy_unique(radices):
    gen = np.random.default_rng(len(radices))
    rows = np.column_stack([gen.integers(0, r, size=3000) for r in radices])
    rows = np.vstack([rows, rows[:500]])  # guaranteed repeats
    first, inverse = distinct_rows(rows)
    expected = np.unique(rows, axis=0)
    # same set of distinct rows, in ascending lexicographic order, each first occurrence, and a faithful inverse
    assert np.array_equal(rows[first], expected[np.lexsort(expected.T[::-1])])
    assert np.array_equal(rows[first][inverse], rows)
    assert all((rows[:i] != rows[i]).any(axis=1).all() for i in first[:50])


def test_distinct_rows_refuses_bad_input():
    with pytest.raises(TypeError, match="rows must be a 2-D integer matrix"):
        distinct_rows(np.zeros(3))
    with pytest.raises(TypeError, match="rows must be a 2-D integer matrix"):
        distinct_rows(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        distinct_rows(np.array([[0, -1]]))
