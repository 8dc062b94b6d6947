"""Trial functions of the experiments notebook (Yin et al., Figs. 3-7)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.sweep import sweep
from ldp.uldp import JuRR, ULDPModel2D, jurr_parameters
from ldp.uldp.datasets import load_table
from ldp.uldp.errata import jurr_algorithm2_as_printed
from ldp.uldp.trials import (
    MECHANISMS,
    analytic_curves,
    analytic_ed,
    disclosure_probability,
    error_trial,
    is_defined,
    make_mechanism,
    timing_trial,
)


def test_error_trial_fields_and_undefined_points():
    out = error_trial("fig3a", "CPRR", 2.0, rng=1)
    assert set(out) == {"ed", "euclid", "expected_ed", "n_users", "defined"}
    assert out["defined"] and out["n_users"] == 12960
    assert out["euclid"] == pytest.approx(out["ed"] * math.sqrt(15))
    low = error_trial("fig3a", "JuRR", 1.0, rng=1)
    assert not low["defined"] and math.isnan(low["ed"])
    assert math.isnan(analytic_ed("JuRR", 0.5, load_table("fig4a")))
    assert not is_defined("JuRR", 1.3, load_table("fig4a").model)
    assert is_defined("JuRR", 1.35, load_table("fig4a").model)


def test_error_trial_subsample_is_random_and_reproducible():
    a = error_trial("fig6", "JD_GRR", 2.0, rng=5, subsample=2000)
    b = error_trial("fig6", "JD_GRR", 2.0, rng=5, subsample=2000)
    c = error_trial("fig6", "JD_GRR", 2.0, rng=6, subsample=2000)
    assert a == b and a["n_users"] == 2000 and a["ed"] != c["ed"]


def test_sweep_mean_matches_the_exact_expectation():
    df = sweep(
        error_trial,
        {"setting": ["fig3c"], "mechanism": ["JuRR", "CPRR", "TDRR", "JD_GRR"], "epsilon": [2.0]},
        trials=200,
        seed=3,
        progress=False,
    )
    for mech, grp in df.groupby("mechanism"):
        ms = (grp["ed"] ** 2).to_numpy()
        target = analytic_ed(mech, 2.0, load_table("fig3c")) ** 2
        assert abs(ms.mean() - target) < 5 * ms.std(ddof=1) / math.sqrt(ms.size), mech


def test_analytic_curves_shape():
    cur = analytic_curves(load_table("fig3a"), [0.5, 2.0])
    assert len(cur) == 8 and cur["expected"].isna().sum() == 1  # JuRR at 0.5


def test_disclosure_probabilities():
    model = ULDPModel2D.first_sensitive(3, 5, 2, 2)
    pr = jurr_parameters(2.0, 2, 2)
    j = disclosure_probability("JuRR", 2.0, model)
    assert j["PI: reveals y"] == pytest.approx(math.expm1(2.0) / pr.D)
    assert j["PP: reveals x"] == 0 and j["PI: reveals x"] == 0
    c = disclosure_probability("CPRR", 2.0, model)
    assert c["PI: reveals y"] == 0 and c["IP: reveals x"] == 0
    assert c["II: reveals x"] == pytest.approx(make_mechanism("CPRR", 2.0, model).t_prime)


def test_timing_trial():
    out = timing_trial("fig3c", "TDRR", 2.0, rng=0)
    assert out["defined"] and 0 < out["seconds"] < 5 and out["n_users"] == 1000
    assert math.isnan(timing_trial("fig3c", "JuRR", 0.5, rng=0)["seconds"])


def test_algorithm2_as_printed_is_biased():
    t = load_table("fig3a")
    j = JuRR(2.0, t.model)
    printed = jurr_algorithm2_as_printed(j, t.n * j.output_distribution(t.frequencies))
    assert np.abs(printed - t.frequencies).max() > 0.05
    # its PI cells (line 9) are the correct ones
    pi = t.model.region_masks()["PI"]
    np.testing.assert_allclose(printed[pi], t.frequencies[pi], atol=1e-12)


def test_bad_mechanism_name():
    with pytest.raises(ValueError, match="mechanism must be one of"):
        error_trial("fig3a", "GRR", 1.0)
    assert set(MECHANISMS) >= {"JuRR", "CPRR", "TDRR", "JD_GRR"}


def test_jurr_satisfies_definition3_on_every_paper_setting():
    """Corollary 1 holds by construction, so the notebook's claim carries no 'reason if differs': assert it here
    for every setting of the experiments and every budget of the paper's grid where JuRR exists."""
    from ldp.uldp import check_uldp_2d
    from ldp.uldp.datasets import SETTINGS
    from ldp.uldp.trials import PAPER_EPSILONS

    checked = 0
    for key in SETTINGS:
        model = load_table(key).model
        for eps in PAPER_EPSILONS:
            if is_defined("JuRR", eps, model):
                assert check_uldp_2d(make_mechanism("JuRR", eps, model).channel(), model, eps).satisfied, (key, eps)
                checked += 1
    assert checked >= len(SETTINGS)
