"""Experiment drivers of the CPL notebook, run at toy size (shapes, conventions, limits)."""
from __future__ import annotations

import numpy as np
import pytest

from ldp.cpl import attacks as at
from ldp.cpl import calibration as cal
from ldp.cpl import datasets as ds
from ldp.cpl import experiments as ex
from ldp.cpl import statistical as st
from ldp.cpl import tcpl as tc
from ldp.tables import CodedTable


@pytest.fixture(scope="module")
def toy():
    enc = CodedTable.from_frame(ds.cvd_synth(3000, rng=4))
    return enc


def test_table_iii_driver():
    df = ex.table_iii(5000, 5, [1.0], rng=1)
    row = df.iloc[0]
    assert row.theory_fwd == 1.0 and abs(row.stat_fwd - 1.0) < 0.1 and abs(row.stat_rev - row.sample_rev) < 0.1


def test_channel_factory_and_fast_matrix(toy):
    f = at.channel_factory("OUE", 1.0)
    assert f(3) is f(3) and f(1).shape == (1, 1)
    tabs = tc.pair_tables(toy.codes, toy.sizes)
    L = st.statistical_cpl_matrix_fast(tabs, len(toy.names), f, 50, rng=2)
    assert np.all(np.isnan(np.diag(L))) and np.all(tc.off_diagonal(L) >= 0)
    limit = tc.cpl_matrix(tabs, len(toy.names), "limit:OUE", 1.0)
    # with r = 50 the estimate sits near its large-sample limit (upward bias only at tiny values)
    assert np.nanmax(np.abs(L - limit)) < 0.1


def test_cpl_matrices_and_benchmark_points(toy):
    M = ex.cpl_matrices(toy.codes, toy.sizes, 1.0, mechanisms=("GRR", "OUE"), r=50, rng=3)
    assert set(M) == {"alg2", "grr", "exp", "stat:GRR", "stat:OUE"}
    pts = ex.benchmark_points(M["alg2"], {"ITS": M["grr"], "EXP-ANL": M["exp"]}, 1.0)
    assert set(pts.region) <= {"P1", "R1"} and list(pts.method) == ["ITS", "EXP-ANL"]
    dep = ex.pairwise_dependence(toy.codes, toy.sizes)
    assert np.allclose(dep["nmi"], dep["nmi"].T, equal_nan=True)


def test_neighbour_cpl_and_utility_trial(toy):
    df = ex.neighbour_cpl(toy.codes, toy.sizes, 6, [1, 2], ["GRR", "EXP"], 1.0, 5, rng=4)
    assert len(df) == 4 and (df.statistical >= 0).all() and (df.limit >= 0).all()
    res = ex.utility_trial("OLH", 1.0, 5, codes=toy.codes, sizes=toy.sizes)
    assert res["freq_nmse"] > 0 and 0 < res["zero_one"] < 1


def test_calibration_curve(toy):
    C = cal.conditionals_from_tables(tc.pair_tables(toy.codes, toy.sizes), len(toy.names))
    df = ex.calibration_curve(C, C, [2.0, 4.0])
    assert (df.calibrated >= df.spl).all() and (df.calibrated_public == df.calibrated).all()
    assert (df.max_tpl <= df.eps_bar + 1e-12).all()
