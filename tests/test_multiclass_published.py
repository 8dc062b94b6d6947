"""The models of the authors' evaluation quirks (Fig. 6): simulated squared errors match the closed forms."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.multiclass import HEC, PTJ
from ldp.multiclass import published as P
from ldp.oracles import GRR

TABLE = np.array([[800, 150, 40], [60, 30, 20]])


@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_ptj_as_published_mse(eps):
    F = PTJ(eps, 2, 3)
    assert isinstance(F.oracle, GRR)
    rng = np.random.default_rng(1)
    R = 4000
    err = np.array([(P.ptj_as_published_estimate(F, F.simulate_counts(TABLE, rng)) - TABLE) ** 2 for _ in range(R)])
    mse = P.ptj_as_published_mse(TABLE, eps)
    se = err.std(axis=0, ddof=1) / math.sqrt(R)
    assert np.all(np.abs(err.mean(axis=0) - mse) <= 5 * se)
    # the quirk biases the estimate: its MSE exceeds the correct variance
    assert np.all(mse > F.variance(TABLE.sum(), TABLE / TABLE.sum()))


def test_ptj_as_published_is_correct_under_oue():
    F = PTJ(0.5, 2, 30)
    tab = np.tile(TABLE, (1, 10))
    np.testing.assert_allclose(P.ptj_as_published_mse(tab, 0.5), F.variance(tab.sum(), tab / tab.sum()))


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_hec_as_published_mse(eps):
    F = HEC(eps, 2, 3)
    rng = np.random.default_rng(2)
    R = 4000
    err = np.array([(P.hec_as_published_estimate(F, F.simulate_counts(TABLE, rng), 8) - TABLE[None]) ** 2
                    for _ in range(R)])
    mse = P.hec_as_published_mse(TABLE, eps, 8)
    se = err.std(axis=0, ddof=1) / math.sqrt(R) + 1e-9 * mse
    assert np.all(np.abs(err.mean(axis=0) - mse) <= 5 * se)
    with pytest.raises(ValueError):
        P.hec_as_published_mse(TABLE, eps, 0)
