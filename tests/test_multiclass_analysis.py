"""Summaries of the multi-class chapters (ldp.multiclass.analysis) and the paper values' provenance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp.claims import Source
from ldp.multiclass import analysis as A
from ldp.multiclass import paper as P
from ldp.multiclass import variance as V
from ldp.oracles import GRR


def test_flipped_share_matches_bayes_rule():
    sizes = np.array([100.0, 300.0, 600.0])
    g = GRR(1.0, 3)
    # share of class-0 reports that come from other classes, by direct enumeration
    reports_from = sizes * np.where(np.arange(3) == 0, g.p, g.q)
    assert A.flipped_share(1.0, sizes)[0] == pytest.approx(reports_from[1:].sum() / reports_from.sum())
    assert A.flipped_share(0.5, np.ones(10))[0] > A.flipped_share(2.0, np.ones(10))[0]
    with pytest.raises(ValueError, match="sizes"):
        A.flipped_share(1.0, [5.0])


def test_first_c_beating_hec():
    ptj = lambda t, e: V.ptj_variance(t, e)[0, 0]  # noqa: E731
    assert A.first_c_beating_hec(ptj, 1.0) == 2  # PTJ beats HEC from two classes on
    never = lambda t, e: np.inf  # noqa: E731
    assert A.first_c_beating_hec(never, 1.0, c_max=5) is None
    pts = lambda t, e: V.pts_variance(t, e / 2, e / 2)[0, 0]  # noqa: E731
    c = A.first_c_beating_hec(pts, 4.0)
    assert c is not None and pts(np.full((c, 50), 200), 4.0) < V.hec_variance(np.full((c, 50), 200), 4.0)[0, 0]
    assert pts(np.full((c - 1, 50), 200), 4.0) >= V.hec_variance(np.full((c - 1, 50), 200), 4.0)[0, 0]
    with pytest.raises(ValueError, match="c_max"):
        A.first_c_beating_hec(ptj, 1.0, c_max=1)


def test_boundary_ties_and_zero_drop():
    table = np.array([[5, 3, 3, 1], [9, 7, 2, 2]])
    assert A.boundary_ties(table, 2) == 1 and A.boundary_ties(table, 3) == 1 and A.boundary_ties(table, 1) == 0
    with pytest.raises(ValueError, match="k must be"):
        A.boundary_ties(table, 4)
    runs = pd.DataFrame({"m": ["a"] * 4 + ["b"] * 2, "f1": [0.0, 0.4, 0.6, 0.2, 0.0, 0.0]})
    share, rise = A.zero_drop_inflation(runs, ["m"])
    assert share == pytest.approx(0.5) and rise == pytest.approx(0.4 - 0.3)  # b has no non-zero trial


def test_mean_relative_gain_and_its_error():
    means = pd.DataFrame({"opt": [0.3, 0.6], "base": [0.2, 0.4]})
    gain, se = A.mean_relative_gain(means, "opt", "base")
    assert gain == pytest.approx(0.5) and np.isnan(se)
    ses = pd.DataFrame({"opt": [0.03, 0.06], "base": [0.0, 0.0]})
    # with an exact base, the error of each ratio is se_opt / base; averaged over two rows
    assert A.mean_relative_gain(means, "opt", "base", ses)[1] == pytest.approx(np.hypot(0.15, 0.15) / 2)


def test_pooled_se_and_peak():
    assert A.pooled_se([0.1, 0.1, 0.1], 4) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="trials"):
        A.pooled_se([0.1], 0)
    curve = pd.Series([0.2, 0.45, 0.5, 0.44, 0.1], index=[0.2, 0.4, 0.5, 0.6, 0.8])
    assert A.peak_in_range(curve, 0.01, 0.4, 0.6)
    assert not A.peak_in_range(curve, 0.2, 0.4, 0.6)  # a fall within the noise is not a peak
    flat_outside = pd.Series([0.7, 0.45, 0.5, 0.44, 0.1], index=curve.index)
    assert not A.peak_in_range(flat_outside, 0.01, 0.4, 0.6)  # beaten outside the range


def _series(mapping):
    return [(k, v) for k, v in mapping.items()]


@pytest.mark.parametrize(
    "values, grid, source",
    [
        (P.FIG6, P.FIG6_EPSILON, P.FIG6_SOURCE),
        (P.FIG7, P.FIG7_EPSILON, P.FIG7_SOURCE),
        (P.FIG9, P.FIG9_K, P.FIG9_SOURCE),
        (P.FIG10, P.FIG10_C, P.FIG10_SOURCE),
        (P.FIG11, P.FIG11_P, P.FIG11_SOURCE),
        (P.TABLE1, P.TABLE1_EPSILON, P.TABLE1_SOURCE),
    ],
)
def test_paper_values_have_a_source_and_match_their_grid(values, grid, source):
    assert isinstance(source, Source)
    assert all(len(v) == len(grid) for _, v in _series(values))


def test_read_off_values_name_the_technical_report_and_its_precision():
    for src, log in (
        (P.FIG5_SOURCE, True),
        (P.FIG6_SOURCE, True),
        (P.FIG7_SOURCE, False),
        (P.FIG8_SOURCE, False),
        (P.FIG10_SOURCE, False),
        (P.FIG11_SOURCE, False),
        (P.FIG12_SOURCE, False),
    ):
        assert src.read_off and "technical report" in src.where and src.relative == log
        assert src.precision == (P.LOG_READING if log else P.LINEAR_READING)
    assert not P.TABLE3_SOURCE.read_off and "Table III" in P.TABLE3_SOURCE.where
    assert all(
        len(P.FIG12[(ds, "a")]) == len(P.FIG12_A) and len(P.FIG12[(ds, "b")]) == len(P.FIG12_B)
        for ds in ("Anime", "JD")
    )
    assert all(len(v) == 4 for v in P.FIG5.values()) and all(len(v) == 5 for v in P.FIG8.values())
