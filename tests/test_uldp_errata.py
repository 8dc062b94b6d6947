"""The paper's printed formulas are biased (errata U1-U9 of the book); the corrected ones are exact."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.uldp import CPRR, JuRR, ULDPModel2D, errata


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


@pytest.mark.parametrize("sizes", [(2, 2), (2, 4), (1, 3)])
def test_printed_partial_sums_and_loops(sizes):
    """Eqs. (29)/(32) with their printed ranges are biased; the loops of Algorithms 2/4 skip every non-PP cell."""
    jurr, _, f = _setup(*sizes)
    counts = 10_000 * jurr.output_distribution(f)
    masks = jurr.model.region_masks()
    for fn, region in ((errata.pi_eq29_bounds, "PI"), (errata.ip_eq32_bounds, "IP")):
        out = fn(jurr, counts)
        assert np.all(np.isnan(out[~masks[region]]))
        assert np.max(np.abs(out[masks[region]] - f[masks[region]])) > 1e-3, (fn.__name__, sizes)
    visited = errata.printed_loop_cells(jurr.model)
    assert visited.sum() == sizes[0] * sizes[1]
    assert np.array_equal(visited, masks["PP"]) and f[~visited].sum() > 0


def test_eq58_is_not_the_variance_of_any_cell():
    _, cprr, f = _setup(2, 2)
    printed, exact = errata.var_eq58(cprr, f, 10_000), cprr.variance(10_000, f)
    assert np.all(printed > 1.1 * exact)  # it adds the (wrong) II variance to every cell's own
    S = cprr.model.sensitive_cells()
    np.testing.assert_allclose((printed / exact).ravel()[S], 2.0, rtol=1e-12)  # a' − b' = t' on S'


def test_eq60_scales_with_users_not_cells():
    from ldp.uldp import mse_cells, mse_eq60

    _, cprr, f = _setup(2, 2)
    est = f + 0.01
    for n in (100, 1000):
        assert mse_eq60(est, f, n) == pytest.approx(mse_cells(est, f) * f.size / n)
