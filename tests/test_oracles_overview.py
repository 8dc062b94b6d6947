"""Tests for the side-by-side helpers of the primer (``ldp.oracles.overview``).

Expected values are the closed forms of Wang et al. (2017) written out here, not the package's own formulas.
The one statistical test compares the mean of R trials of ``n·mean(f̂_v²)`` with its exact expectation
``q(1-q)/(p-q)²`` (GRR: the support count of a value of frequency 0 is Binomial(n, q)); the trials are
independent and each has standard deviation at most ``sqrt(2)`` times its mean (the squared estimates are
close to scaled chi-square(1) variables, however correlated across values), so 5 standard errors of the mean
are ``5·sqrt(2/R)`` relative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.oracles import GRR, OLH, SubsetSelection
from ldp.oracles.bloom import bloom_matrix
from ldp.oracles.overview import (
    STANDARD_ORACLES,
    audit_channels,
    parameter_table,
    standard_oracles,
    zero_frequency_trial,
)


def test_standard_oracles_are_the_nine_at_the_requested_budget_and_domain():
    got = standard_oracles(1.5, 10)
    assert tuple(got) == STANDARD_ORACLES
    for o in got.values():
        assert o.epsilon == pytest.approx(1.5, rel=1e-12) and o.d == 10  # RAPPOR: ε from its f, rounded
    rappor = got["RAPPOR"]
    assert (rappor.m, rappor.h) == (20, 2)
    B = bloom_matrix(10, 20, 2, rappor.hash_seed).astype(float)
    assert np.linalg.matrix_rank(B) == 10  # identifiable filters: the least-squares estimator is defined


def test_standard_oracles_refuses_bad_input():
    with pytest.raises(ValueError, match="d"):
        standard_oracles(1.0, 1)
    with pytest.raises(TypeError, match="names"):
        standard_oracles(1.0, 8, names="GRR")
    with pytest.raises(ValueError, match="name"):
        standard_oracles(1.0, 8, names=["GRR", "nope"])


@pytest.mark.parametrize("eps,d,n", [(1.0, 64, 1), (0.5, 8, 1000)])
def test_parameter_table_matches_the_closed_forms(eps, d, n):
    table = parameter_table(standard_oracles(eps, d, names=["GRR", "OUE"]), n=n)
    e = math.exp(eps)
    assert list(table.index) == ["GRR", "OUE"]
    assert table.loc["GRR", "p"] == pytest.approx(e / (e + d - 1), rel=1e-12)
    assert table.loc["GRR", "q"] == pytest.approx(1 / (e + d - 1), rel=1e-12)
    assert table.loc["GRR", "n Var* (f=0)"] == pytest.approx((d - 2 + e) / (e - 1) ** 2, rel=1e-12)
    assert table.loc["OUE", "p"] == pytest.approx(0.5, rel=1e-12)
    assert table.loc["OUE", "q"] == pytest.approx(1 / (e + 1), rel=1e-12)
    assert table.loc["OUE", "n Var* (f=0)"] == pytest.approx(4 * e / (e - 1) ** 2, rel=1e-12)
    with pytest.raises(ValueError, match="n"):
        parameter_table({"GRR": GRR(eps, d)}, n=0)


def test_audit_channels_is_tight_for_pure_oracles_and_halves_the_exponential_mechanism():
    oracles = {**standard_oracles(1.0, 6), "SS": SubsetSelection(1.0, 6, subset_size=2)}
    table = audit_channels(oracles)
    assert list(table.index) == list(STANDARD_ORACLES)
    assert (table["max |row sum - 1|"] <= 1e-9).all()
    pure = ["GRR", "SUE", "OUE", "BLH", "OLH", "SS", "HR"]
    np.testing.assert_allclose(table.loc[pure, "audited ε"], 1.0, atol=1e-9)
    assert table.loc["EXP", "audited ε"] == pytest.approx(0.5, abs=1e-9)  # GRR at ε/2
    assert table.loc["RAPPOR", "audited ε"] <= 1.0 + 1e-9
    # outputs: GRR reports a value; OLH a (a, b, y) triple over the family of the prime 7; RAPPOR 2^12 bit vectors
    assert table.loc["GRR", "outputs"] == 6
    assert table.loc["OLH", "outputs"] == 6 * 7 * oracles["OLH"].g
    assert table.loc["RAPPOR", "outputs"] == 2**12
    assert audit_channels({"OLH": OLH(1.0, 6)}, prime=11).loc["OLH", "outputs"] == 10 * 11 * OLH(1.0, 6).g
    with pytest.raises(ValueError, match="prime"):
        audit_channels({"OLH": OLH(1.0, 6)}, prime=1)


def test_zero_frequency_trial_is_reproducible_and_unbiased_for_grr():
    eps, d, n, R = 1.0, 8, 2_000, 2_000
    assert zero_frequency_trial("GRR", eps, d, n, 7) == zero_frequency_trial("GRR", eps, d, n, 7)
    gen = np.random.default_rng(11)
    nvar = np.array([zero_frequency_trial("GRR", eps, d, n, gen)["nvar"] for _ in range(R)])
    e = math.exp(eps)
    p, q = e / (e + d - 1), 1 / (e + d - 1)
    expected = q * (1 - q) / (p - q) ** 2
    assert abs(nvar.mean() / expected - 1) <= 5 * math.sqrt(2 / R)


def test_zero_frequency_trial_refuses_bad_input():
    with pytest.raises(ValueError, match="n"):
        zero_frequency_trial("GRR", 1.0, 8, 0, 0)
    with pytest.raises(ValueError, match="name"):
        zero_frequency_trial("nope", 1.0, 8, 100, 0)
