"""The readings of Yin et al.'s unpublished details (ldp.uldp.readings)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.uldp.datasets import load_table
from ldp.uldp.readings import EPSILON_GRIDS, NURSERY_FEATURES, USER_SHARES, fig6_tables, quoted_error_replicates
from ldp.uldp.trials import analytic_ed


def test_epsilon_grids_are_seven_values_from_half_to_six():
    for grid in EPSILON_GRIDS.values():
        assert len(grid) == 7 and grid[0] == 0.5 and grid[-1] == 6.0
        assert all(a < b for a, b in zip(grid, grid[1:]))


def test_user_shares_cover_every_record_and_one_feature_per_user():
    shares = sorted(USER_SHARES.values())
    assert shares[-1] == 1.0 and 1.0 / NURSERY_FEATURES in shares


def test_every_record_matches_the_exact_error():
    """With every record, the mean ED sits just below sqrt(E[ED²]) (Jensen), within a few per cent."""
    table = load_table("fig3a")
    runs = quoted_error_replicates(table, "CPRR", 0.5, 1.0, 400, rng=3)
    exact = analytic_ed("CPRR", 0.5, table)
    se = runs.std(ddof=1) / math.sqrt(runs.size)
    assert runs.mean() < exact + 5 * se
    assert runs.mean() > 0.9 * exact


def test_one_feature_per_user_scales_the_error_by_about_root_eight():
    table = load_table("fig3a")
    full = quoted_error_replicates(table, "CPRR", 0.5, 1.0, 300, rng=4).mean()
    eighth = quoted_error_replicates(table, "CPRR", 0.5, 1.0 / 8, 300, rng=5).mean()
    assert eighth / full == pytest.approx(math.sqrt(8), rel=0.1)


def test_replicates_are_reproducible_and_validated():
    table = load_table("fig3c")
    a = quoted_error_replicates(table, "JD_GRR", 1.0, 0.5, 5, rng=7)
    b = quoted_error_replicates(table, "JD_GRR", 1.0, 0.5, 5, rng=7)
    np.testing.assert_array_equal(a, b)
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="share"):
            quoted_error_replicates(table, "CPRR", 1.0, bad, 5)
    with pytest.raises(ValueError):
        quoted_error_replicates(table, "CPRR", 1.0, 1.0, 0)


def test_fig6_random_tables_have_the_sizes_asked():
    tables = fig6_tables((2000, 5000), "random", rng=1)
    assert {n: t.n for n, t in tables.items()} == {2000: 2000, 5000: 5000}
    with pytest.raises(ValueError, match="how"):
        fig6_tables((2000,), "last")
