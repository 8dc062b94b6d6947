"""Data for Xue et al.: synthetic generators (Table 4 reading), public tables, stand-ins."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp.audit import chi_square_agreement
from ldp.clldp import KHR, omega
from ldp.clldp.datasets import (
    HEALTHCARE_DOMAINS,
    SYNTHETIC_NAMES,
    code_frame,
    equal_width_codes,
    healthcare_standin,
    make_synthetic,
    smartgrid_augment,
    smartgrid_standin,
    smartgrid_table,
    synthetic_conditional,
)


@pytest.mark.parametrize("name", SYNTHETIC_NAMES)
def test_generator_matches_its_conditional(name):
    cond = synthetic_conditional(name)
    np.testing.assert_allclose(cond.sum(axis=1), 1.0)
    attr, label = make_synthetic(name, 60_000, 3)
    assert attr.min() >= 0 and attr.max() <= 49 and label.max() == 4
    for lab in (0, 4):
        sample = attr[label == lab]
        assert chi_square_agreement(sample, cond[lab], kind="samples") > 1e-3


def test_table4_reading():
    """Variance reading + rounding to nearest integer reproduces Table 4; sd reading and floor do not."""
    from scipy import stats

    assert omega(synthetic_conditional("N(25,1)"), 1) == pytest.approx(0.3829, abs=1e-4)
    assert omega(synthetic_conditional("N(25,0.3)"), 1) == pytest.approx(0.6387, abs=1e-4)
    assert 2 * stats.norm.cdf(0.5 / 0.3) - 1 == pytest.approx(0.904, abs=1e-3)  # sd = 0.3 reading
    assert stats.norm.cdf(1.0) - stats.norm.cdf(0.0) == pytest.approx(0.341, abs=1e-3)  # floor reading


def test_equal_width_codes():
    np.testing.assert_array_equal(equal_width_codes([0.0, 0.5, 1.0, 0.99], bins=2), [0, 1, 1, 1])
    assert equal_width_codes(np.linspace(0, 1, 101)).max() == 9
    with pytest.raises(ValueError, match="finite"):
        equal_width_codes([0.0, np.nan])


def test_code_frame_keeps_missing_as_category():
    frame = pd.DataFrame({"a": ["x", None, "y", "x"], "b": [1.0, 2.0, 3.0, 4.0], "lab": ["n", "p", "n", "p"]})
    t = code_frame(frame, "lab", ["b"], bins=2)
    assert t.sizes == (3, 2) and t.classes == ("n", "p")
    assert len(set(t.X[:, 0])) == 3


def test_smartgrid_augmentation_and_standin():
    base = smartgrid_standin(200, rng=1)
    big = smartgrid_augment(base)
    assert len(big) == 1200
    # the six copies permute nodes 2-4 jointly: the multiset of (tau_j, p_j, g_j) triples is preserved
    row = big.iloc[[0, 200, 400, 600, 800, 1000]]
    assert np.allclose(
        np.sort(row[["tau2", "tau3", "tau4"]].to_numpy(), axis=1),
        np.sort(base.loc[[0], ["tau2", "tau3", "tau4"]].to_numpy(), axis=1),
    )
    table = smartgrid_table(base)
    assert table.n == 1200 and table.X.shape[1] == 13 and max(table.sizes) == 10
    assert 0.55 < np.mean(table.y == table.classes.index("unstable")) < 0.72


def test_healthcare_standin_shape():
    t = healthcare_standin(20_000, rng=0)
    assert t.sizes == HEALTHCARE_DOMAINS and t.X.shape == (20_000, 15) and not t.real
    assert abs(t.y.mean() - 0.406) < 0.02
    assert np.all(t.X.max(axis=0) < np.array(HEALTHCARE_DOMAINS))


def test_public_joint_error_trial():
    """Fig. 3 on a public table: four methods, ω from the SS sample, Eq. (7) given the ω used."""
    from ldp.clldp.trials import FIG3_PUBLIC_ATTRIBUTE, JOINT_METHODS, public_joint_error_trial

    rows = public_joint_error_trial("healthcare", 8.0, rng=1, max_rows=3000)
    assert [r["method"] for r in rows] == list(JOINT_METHODS)
    m = 32 * 2  # Hospital_code x two labels
    assert all(r["attribute"] == FIG3_PUBLIC_ATTRIBUTE["healthcare"] and r["m"] == m for r in rows)
    assert rows[0]["k"] == m and rows[0]["omega"] == 1.0
    assert all(r["n"] == 3000 - 300 for r in rows)  # 10% of the rows estimate ω and do not report
    for r in rows[1:]:
        assert r["k"] == 1  # ε = 8: the floor is clamped to 1, and Eq. 8 prefers k = 1 for a weak attribute
        assert 0 < r["omega"] <= 1 and 0 < r["omega_true"] <= 1
        assert r["theory"] == pytest.approx(math.sqrt(KHR(8.0, r["omega"], 1, 32, 2).expected_sq_l2(r["n"])))
    assert all(np.isfinite(r["err"]) and r["err"] > 0 for r in rows)
    with pytest.raises(ValueError, match="attribute must be one of"):
        public_joint_error_trial("healthcare", 1.0, rng=1, max_rows=3000, attribute="Stay")
