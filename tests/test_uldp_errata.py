"""The paper's printed formulas are biased where spec 004 says so; the corrected ones are exact."""
from __future__ import annotations

import numpy as np
import pytest

from ldp.uldp import CPRR, JuRR, ULDPModel2D
from ldp.uldp import errata


def _setup(sx, sy, seed=3):
    model = ULDPModel2D.first_sensitive(4, 5, sx, sy)
    f = np.random.default_rng(seed).dirichlet(np.ones(20)).reshape(4, 5)
    return JuRR(2.0, model), CPRR(2.0, model), f


@pytest.mark.parametrize("sizes", [(2, 2), (2, 4)])
def test_printed_estimators_are_biased_and_corrected_ones_are_not(sizes):
    jurr, cprr, f = _setup(*sizes)
    table = errata.errata_table(jurr, cprr, f, 10_000).set_index("formula")
    for formula in ("Eq. (23)", "Alg. 2 line 5", "Eq. (27)", "Eq. (30)", "Alg. 4 line 7"):
        assert table.loc[formula, "printed"] > 1e-3, formula
        assert table.loc[formula, "corrected"] < 1e-12, formula
    for formula in ("Eq. (53)", "Eq. (57)", "Eq. (52) first line"):
        assert abs(table.loc[formula, "printed"] - 1) > 0.1, formula


def test_q_for_n_typo_only_shows_when_set_sizes_differ():
    for sizes, biased in (((2, 2), False), ((2, 4), True)):
        jurr, cprr, f = _setup(*sizes)
        row = errata.errata_table(jurr, cprr, f, 10_000).set_index("formula").loc["Alg. 2 line 11"]
        assert (row["printed"] > 1e-6) == biased, sizes


def test_printed_tables_are_nan_outside_their_region():
    jurr, _, f = _setup(2, 2)
    counts = 1000 * jurr.output_distribution(f)
    out = errata.pi_eq27(jurr, counts)
    mask = jurr.model.region_masks()["PI"]
    assert np.all(np.isfinite(out[mask])) and np.all(np.isnan(out[~mask]))
