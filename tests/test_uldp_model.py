"""ULDP definitions and the exact condition checks (Yin et al., Definitions 2 and 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp.audit import channel_epsilon
from ldp.oracles import GRR
from ldp.uldp import (
    CPRR,
    TDRR,
    URR,
    JointGRR,
    JuRR,
    SensitiveDomain,
    ULDPModel2D,
    check_uldp,
    check_uldp_2d,
    jurr_min_epsilon,
)


# ---------------------------------------------------------------------------- domains
def test_sensitive_domain_basics():
    d = SensitiveDomain(5, [3, 1])
    assert d.sensitive == (1, 3)
    assert d.mask.tolist() == [False, True, False, True, False]
    assert (d.n_sensitive, d.n_nonsensitive, d.nonsensitive) == (2, 3, (0, 2, 4))


@pytest.mark.parametrize(
    "sensitive, exc, match",
    [
        ([5], ValueError, "not in the domain"),
        ([-1], ValueError, "not in the domain"),
        ([1, 1], ValueError, "duplicates"),
        ([1.0], TypeError, "integer codes"),
        ([True], TypeError, "integer codes"),
        ("ab", TypeError, "string"),
    ],
)
def test_sensitive_domain_rejects_bad_sets(sensitive, exc, match):
    with pytest.raises(exc, match=match):
        SensitiveDomain(5, sensitive)


def test_sensitive_domain_rejects_bad_size():
    with pytest.raises(ValueError, match="size"):
        SensitiveDomain(0, [])
    with pytest.raises(TypeError, match="size"):
        SensitiveDomain(2.5, [])


def test_labels_and_unknown_categories():
    d = SensitiveDomain.from_labels(["low", "mid", "high"], ["low"])
    assert d.sensitive == (0,)
    assert d.encode(["high", "low", "high"]).tolist() == [2, 0, 2]
    with pytest.raises(ValueError, match="unknown categories.*'top'"):
        d.encode(["low", "top"])
    with pytest.raises(ValueError, match="'top' is not one of the categories"):
        SensitiveDomain.from_labels(["low", "mid"], ["top"])
    with pytest.raises(ValueError, match="no labels"):
        SensitiveDomain(3, [0]).encode(["a"])


@given(k=st.integers(1, 8), data=st.data())
@settings(max_examples=40, deadline=None)
def test_any_subset_is_accepted_and_anything_else_rejected(k, data):
    subset = data.draw(st.lists(st.integers(0, k - 1), unique=True))
    assert SensitiveDomain(k, subset).sensitive == tuple(sorted(subset))
    outside = data.draw(st.integers(k, k + 10) | st.integers(-10, -1))
    with pytest.raises(ValueError, match="subset of the domain"):
        SensitiveDomain(k, subset + [outside])


def test_model_regions_and_cases():
    m = ULDPModel2D.from_sizes(3, 4, x_sensitive=[2], y_sensitive=[0, 3])
    grid = m.region_grid()
    assert grid[2, 0] == "PP" and grid[2, 1] == "PI" and grid[0, 3] == "IP" and grid[0, 1] == "II"
    assert m.case_grid()[2, 0] == 1 and m.case_grid()[0, 1] == 4
    assert sorted(m.sensitive_cells().tolist()) == sorted(
        int(i * 4 + j) for i in range(3) for j in range(4) if grid[i, j] != "II"
    )
    assert m.flat_index([2, 0], [3, 1]).tolist() == [11, 1]
    with pytest.raises(ValueError, match="same length"):
        m.flat_index([0, 1], [0])
    with pytest.raises(ValueError, match="outside the domain"):
        m.flat_index([3], [0])
    with pytest.raises(TypeError, match="SensitiveDomain"):
        ULDPModel2D(3, 4)
    with pytest.raises(ValueError, match="sx must be <= 3"):
        ULDPModel2D.first_sensitive(3, 4, 4, 1)


# ---------------------------------------------------------------------------- 1-D ULDP (Definition 2)
def test_urr_is_uldp_and_tight():
    eps = 0.7
    m = URR(eps, 6, [1, 4])
    chk = check_uldp(m.channel(), [1, 4], [1, 4], eps)
    assert chk.satisfied
    assert chk.worst_log_ratio[2] == pytest.approx(eps, rel=1e-12)
    # the same channel is not ULDP for a smaller epsilon
    assert not check_uldp(m.channel(), [1, 4], [1, 4], 0.69).satisfied


def test_grr_is_not_uldp_with_invertible_outputs():
    P = GRR(1.0, 4).channel()
    assert check_uldp(P, [0, 1], [0, 1, 2, 3], 1.0).satisfied  # no invertible output: plain LDP
    assert not check_uldp(P, [0, 1], [0, 1], 1.0).conditions[1]


def test_identity_reveals_sensitive_inputs():
    """An output that reveals a *sensitive* input breaks condition 1."""
    assert not check_uldp(np.eye(3), [0], [1, 2], 1.0).conditions[1]
    assert check_uldp(np.eye(3), [], [], 1.0).satisfied


# ---------------------------------------------------------------------------- 2-D ULDP (Definition 3)
EXPECTED_VERDICTS = {
    # condition -> holds? (the table of conditions in the theory notebook)
    "JuRR": {1: True, 2: True, 3: True, 4: True, 5: True, 6: True},
    "TDRR": {1: True, 2: True, 3: True, 4: True, 5: True, 6: True},
    "CPRR": {1: True, 2: False, 3: True, 4: False, 5: True, 6: True},
    "JD_GRR": {1: True, 2: False, 3: True, 4: False, 5: True, 6: False},
}


@st.composite
def proper_models(draw):
    """Models where all four regions are non-empty (so every condition is exercised)."""
    kx, ky = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    xs = draw(st.lists(st.integers(0, kx - 1), min_size=1, max_size=kx - 1, unique=True))
    ys = draw(st.lists(st.integers(0, ky - 1), min_size=1, max_size=ky - 1, unique=True))
    return ULDPModel2D.from_sizes(kx, ky, xs, ys)


@given(model=proper_models(), extra=st.floats(0.05, 4.0))
@settings(max_examples=40, deadline=None)
def test_definition3_verdicts(model, extra):
    eps = jurr_min_epsilon(model.sx, model.sy) + extra
    for mech in (JuRR(eps, model), TDRR(eps, model), CPRR(eps, model), JointGRR(eps, model)):
        chk = check_uldp_2d(mech.channel(), model, eps)
        assert chk.conditions == EXPECTED_VERDICTS[mech.name], (mech.name, chk)


@given(model=proper_models(), extra=st.floats(0.05, 4.0))
@settings(max_examples=40, deadline=None)
def test_definition3_literal_reading(model, extra):
    """Quantifying 2, 4, 6 over the paper's input sets only: CPRR fails 2 iff |Y_N| >= 2 and 4 iff |X_N| >= 2."""
    eps = jurr_min_epsilon(model.sx, model.sy) + extra
    nx, ny = model.x.n_nonsensitive, model.y.n_nonsensitive
    expected = {
        "JuRR": {2: True, 4: True, 6: True},
        "TDRR": {2: True, 4: True, 6: True},
        "CPRR": {2: ny < 2, 4: nx < 2, 6: True},
        "JD_GRR": {2: ny < 2, 4: nx < 2, 6: nx * ny < 2},
    }
    for mech in (JuRR(eps, model), TDRR(eps, model), CPRR(eps, model), JointGRR(eps, model)):
        chk = check_uldp_2d(mech.channel(), model, eps, reading="literal")
        assert {c: chk.conditions[c] for c in (2, 4, 6)} == expected[mech.name], (mech.name, chk)
        strict = check_uldp_2d(mech.channel(), model, eps)
        assert all(chk.conditions[c] or not strict.conditions[c] for c in (2, 4, 6))  # strict implies literal


@given(model=proper_models(), extra=st.floats(0.05, 4.0))
@settings(max_examples=30, deadline=None)
def test_ratio_conditions_are_tight_for_jurr(model, extra):
    eps = jurr_min_epsilon(model.sx, model.sy) + extra
    chk = check_uldp_2d(JuRR(eps, model).channel(), model, eps)
    for c in (1, 3, 5):
        assert chk.worst_log_ratio[c] == pytest.approx(eps, rel=1e-9)
    # and a slightly smaller budget is refused by the check
    assert not check_uldp_2d(JuRR(eps, model).channel(), model, eps * 0.999).conditions[1]


@given(model=proper_models(), extra=st.floats(0.05, 4.0))
@settings(max_examples=30, deadline=None)
def test_product_domain_uldp_holds_for_cprr_only(model, extra):
    """CPRR is 1-D ULDP on the product domain (stronger than Def. 3); JuRR and TDRR are not."""
    eps = jurr_min_epsilon(model.sx, model.sy) + extra
    S = model.sensitive_cells()
    assert check_uldp(CPRR(eps, model).channel(), S, S, eps).satisfied
    assert not check_uldp(JuRR(eps, model).channel(), S, S, eps).satisfied
    assert not check_uldp(TDRR(eps, model).channel(), S, S, eps).satisfied


def test_ldp_audit_agrees():
    """Joint GRR is plain ε-LDP (tight); the ULDP mechanisms are not LDP at all (invertible outputs)."""
    model = ULDPModel2D.first_sensitive(3, 5, 2, 2)
    eps = 2.0
    assert channel_epsilon(JointGRR(eps, model).channel()) == pytest.approx(eps, rel=1e-12)
    for mech in (JuRR(eps, model), CPRR(eps, model), TDRR(eps, model)):
        assert math.isinf(channel_epsilon(mech.channel()))
    # restricted to the protected x protected outputs, every mechanism is within e^eps
    pp = np.flatnonzero(model.region_masks()["PP"].ravel())
    for mech in (JuRR(eps, model), CPRR(eps, model), TDRR(eps, model)):
        assert channel_epsilon(mech.channel()[:, pp]) <= eps + 1e-12


def test_check_2d_validation():
    model = ULDPModel2D.first_sensitive(2, 2, 1, 1)
    with pytest.raises(ValueError, match="4 x 4"):
        check_uldp_2d(np.eye(3), model, 1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        check_uldp_2d(np.eye(4), model, 0.0)
    with pytest.raises(TypeError, match="ULDPModel2D"):
        check_uldp_2d(np.eye(4), "model", 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        check_uldp_2d(-np.eye(4), model, 1.0)
    with pytest.raises(ValueError, match="reading"):
        check_uldp_2d(np.eye(4), model, 1.0, reading="loose")
