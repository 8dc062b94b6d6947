"""ldp.comparison: the common task, the channels of every chapter, exact leakage and utility."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp import comparison as cmp
from ldp.audit import channel_epsilon
from ldp.clldp import KHR, khr_leakage, omega, privacy_leakage, select_k
from ldp.cpl import cpl_two_level


def _frame(seed: int = 0, n: int = 4000) -> pd.DataFrame:
    """A small correlated table: hidden H drives attribute A, A drives label L."""
    gen = np.random.default_rng(seed)
    h = gen.integers(0, 2, n)
    a = np.where(gen.random(n) < 0.7, h * 2 + gen.integers(0, 2, n), gen.integers(0, 4, n))
    l = (gen.random(n) < 0.2 + 0.15 * a).astype(int)
    return pd.DataFrame({"H": np.array(["f", "m"])[h], "A": np.array(list("wxyz"))[a], "L": np.array(["lo", "hi"])[l]})


@pytest.fixture(scope="module")
def task() -> cmp.PairTask:
    return cmp.pair_task(_frame(), label="L", attribute="A", hidden="H")


def test_pair_task_counts_and_conditionals(task):
    assert (task.c, task.d, task.n) == (2, 4, 4000)
    assert task.cube.sum() == task.n and task.joint.sum() == pytest.approx(1.0)
    for s in cmp.SECRETS:
        P = task.conditional(s)
        assert P.shape[1] == task.c * task.d
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
    # the label's conditional puts its mass on its own block of cells only
    P = task.conditional("label")
    assert np.all(P[0, task.d :] == 0) and np.all(P[1, : task.d] == 0)


def test_pair_task_validation():
    f = _frame()
    with pytest.raises(ValueError, match="three different columns"):
        cmp.pair_task(f, label="L", attribute="L", hidden="H")
    with pytest.raises(ValueError, match="not in the frame"):
        cmp.pair_task(f, label="L", attribute="A", hidden="nope")
    with pytest.raises(TypeError, match="DataFrame"):
        cmp.pair_task(f.to_numpy())
    with pytest.raises(ValueError, match="at least 2 values"):
        cmp.pair_task(f.assign(H="f"), label="L", attribute="A", hidden="H")


def test_approaches_cover_the_five_chapters_and_name_real_mechanisms():
    frame = cmp.approaches_frame()
    assert list(frame.index) == ["01", "02", "03", "04", "05"]
    for a in cmp.APPROACHES:
        assert a.mechanisms and all(m in cmp.MECHANISMS for m in a.mechanisms)
        assert all(cmp.MECHANISMS[m].approach == a.key for m in a.mechanisms)


@pytest.mark.parametrize("name", cmp.mechanism_names())
def test_every_channel_is_row_stochastic_on_the_pair_cells(task, name):
    eps = 2.0
    assert cmp.is_defined(name, task, eps)
    T = cmp.build_channel(name, task, eps)
    assert T.shape[0] == task.c * task.d
    assert np.all(T >= 0)
    np.testing.assert_allclose(T.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize(
    "name", ["GRR (pair)", "basic solution", "LoPub (h=1)", "HEC", "PTJ", "PTS", "PTS-CP", "GRR ⊗ GRR (ε/2 each)"]
)
def test_pair_ldp_mechanisms_audit_to_at_most_epsilon_and_secrets_follow(task, name):
    for eps in (0.5, 2.0):
        prof = cmp.leakage_profile(task, cmp.build_channel(name, task, eps))
        assert prof["pair"] <= eps + 1e-9
        # every secret is a post-processing of the pair: never more than the pair's level
        for s in cmp.SECRETS:
            assert prof[s] <= prof["pair"] + 1e-9


def test_grr_hidden_leakage_equals_the_two_level_closed_form(task):
    for eps in (0.5, 1.0, 3.0):
        prof = cmp.leakage_profile(task, cmp.build_channel("GRR (pair)", task, eps))
        assert prof["hidden"] == pytest.approx(cpl_two_level(task.conditional("hidden"), eps), rel=1e-12)


def test_khr_label_leakage_is_tight_and_matches_clldp(task):
    eps = 1.0
    cond = task.conditional_attribute_given_label()
    T = cmp.build_channel("kHR", task, eps)
    prof = cmp.leakage_profile(task, T)
    assert prof["label"] == pytest.approx(eps, abs=1e-9)  # Theorem 2, tight at the true ω
    assert prof["label"] == pytest.approx(math.log(privacy_leakage(T, cond)), abs=1e-12)
    # under-estimated ω: Algorithm 1 agrees with footnote 4's closed form
    k = select_k(eps, task.c * task.d, cond)
    w = omega(cond, k)
    T_low = KHR(eps, w / 2, k, m_attr=task.d, m_label=task.c).channel()
    assert cmp.leakage_profile(task, T_low)["label"] == pytest.approx(math.log(khr_leakage(eps, w / 2, w)), rel=1e-9)


def test_lopub_one_hash_is_tight_and_calibration_respects_each_attribute(task):
    eps = 1.0
    assert channel_epsilon(cmp.build_channel("LoPub (h=1)", task, eps)) == pytest.approx(eps, abs=1e-9)
    e_star = cmp.calibrated_budget(task, eps)
    assert eps / 2 <= e_star <= eps
    prof = cmp.leakage_profile(task, cmp.build_channel("GRR ⊗ GRR (CPL-calibrated)", task, eps))
    assert prof["pair"] == pytest.approx(2 * e_star)
    assert prof["label"] <= eps + 1e-9 and prof["attribute"] <= eps + 1e-9


def test_jurr_is_undefined_below_its_minimum(task):
    lo = cmp.MECHANISMS["JuRR"].min_epsilon(task, {})
    assert not cmp.is_defined("JuRR", task, lo * 0.9)
    with pytest.raises(ValueError, match="not defined"):
        cmp.build_channel("JuRR", task, lo * 0.9)
    out = cmp.utility_trial("JuRR", lo * 0.9, task=task, rng=0)
    assert out["defined"] is False and math.isnan(out["tv"])


def test_uldp_reveals_non_sensitive_values(task):
    prof = cmp.leakage_profile(task, cmp.build_channel("CPRR", task, 1.0))
    assert math.isinf(prof["pair"])
    all_sensitive = cmp.build_channel("CPRR", task, 1.0, label_sensitive=(0, 1), attribute_sensitive=range(4))
    assert channel_epsilon(all_sensitive) == pytest.approx(1.0, abs=1e-9)


def test_simulate_reports_matches_the_channel_in_mean():
    T = np.array([[0.7, 0.2, 0.1, 0.0], [0.1, 0.1, 0.4, 0.4]])
    counts = np.array([3000, 1000])
    draws = np.array([cmp.simulate_reports(T, counts, rng=s) for s in range(200)])
    assert np.all(draws.sum(axis=1) == 4000)
    mean, expected = draws.mean(axis=0), counts @ T
    var = (counts[:, None] * T * (1 - T)).sum(axis=0)
    se = np.sqrt(var / len(draws))
    assert np.all(np.abs(mean - expected) <= 5 * se + 1e-12)
    with pytest.raises(ValueError):
        cmp.simulate_reports(T, [1, 2, 3])


def test_merging_outputs_of_equal_columns_keeps_ibu_and_the_channel_stochastic():
    """IBU on the merged channel (each group's column summed, its counts added) gives IBU on the full one."""
    from ldp.comparison import _merge_equal_outputs
    from ldp.estimate import ibu

    gen = np.random.default_rng(4)
    base = gen.dirichlet(np.ones(5), size=4)  # 4 inputs, 5 distinct columns
    full = np.concatenate([base, base[:, [1, 3]], base[:, [1]]], axis=1)  # columns 1 and 3 repeated
    full /= full.sum(axis=1, keepdims=True)
    counts = gen.integers(0, 50, size=full.shape[1]).astype(float)
    merged, merged_counts = _merge_equal_outputs(full, counts)
    assert merged.shape == (4, 5) and np.allclose(merged.sum(axis=1), 1.0, atol=1e-12)
    assert merged_counts.sum() == counts.sum()
    np.testing.assert_allclose(
        ibu(merged, merged_counts, max_iter=500, tol=0.0), ibu(full, counts, max_iter=500, tol=0.0), rtol=0, atol=1e-12
    )
    same, same_counts = _merge_equal_outputs(base / base.sum(axis=1, keepdims=True), counts[:5])
    assert np.array_equal(same_counts, counts[:5])  # no repeats: returned as they are
    assert same.shape == (4, 5)


def test_joint_error_vanishes_at_large_epsilon_and_is_reproducible(task):
    T = cmp.build_channel("GRR (pair)", task, 12.0)
    assert cmp.joint_error(task, T, rng=1) < 0.01
    T = cmp.build_channel("PTS", task, 1.0)
    assert cmp.joint_error(task, T, rng=5) == cmp.joint_error(task, T, rng=5)
    assert cmp.joint_error(task, T, rng=5, n=500) > 0


def test_bad_input_is_refused(task):
    with pytest.raises(ValueError, match="mechanism must be one of"):
        cmp.build_channel("nope", task, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        cmp.build_channel("GRR (pair)", task, 0.0)
    with pytest.raises(TypeError, match="PairTask"):
        cmp.build_channel("GRR (pair)", object(), 1.0)
    with pytest.raises(ValueError, match="rows"):
        cmp.leakage_profile(task, np.eye(3))
    with pytest.raises(ValueError, match="secret"):
        task.conditional("income")


def test_leakage_table_skips_undefined_points(task):
    lo = cmp.MECHANISMS["JuRR"].min_epsilon(task, {})
    frame = cmp.leakage_table(task, [lo * 0.5, lo * 2], names=["JuRR", "GRR (pair)"])
    assert len(frame) == 3
    assert set(frame.columns) >= {"epsilon", "mechanism", "approach", "pair", *cmp.SECRETS}


def test_styles_are_distinct_and_coloured_by_approach():
    styles = {n: cmp.style(n) for n in cmp.mechanism_names()}
    assert len({tuple(sorted(s.items())) for s in styles.values()}) == len(styles)
    for a in cmp.APPROACHES:
        assert len({styles[m]["color"] for m in a.mechanisms}) == 1
    with pytest.raises(ValueError):
        cmp.style("nope")


def test_ibu_constants_are_the_defaults_the_notebook_glues():
    import inspect

    params = inspect.signature(cmp.joint_error).parameters
    assert params["max_iter"].default == cmp.IBU_MAX_ITER and params["tol"].default == cmp.IBU_TOL


def test_leakage_value_and_panels(task):
    leak = cmp.leakage_table(task, [1.0], names=["GRR (pair)", "kHR"])
    assert cmp.leakage_value(leak, "kHR", "label", 1.0) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no entry"):
        cmp.leakage_value(leak, "kHR", "label", 2.0)
    members = [m for _, ms in cmp.PANELS for m in ms]
    assert sorted(members) == sorted(cmp.mechanism_names()) and all(len(ms) <= 3 for _, ms in cmp.PANELS)
