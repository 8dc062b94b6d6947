"""Tests for ldp.claims: rules, verdicts, the basis policy, provenance, glue keys and JSON round trip."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ldp.claims import (
    DIFFERS,
    NOT_REPRODUCIBLE,
    QUALITATIVE_ONLY,
    REPRODUCED,
    ClaimsTable,
    not_reproducible,
    ordering_holds,
    same_order,
    same_sign,
    scoreboard,
    within_abs,
    within_rel,
)


def test_rules():
    assert within_rel(0.1)(1.0, 1.09) and not within_rel(0.1)(1.0, 1.11)
    assert within_rel(0.1)([1.0, 2.0], [1.05, 1.9]) and not within_rel(0.1)([1.0, 2.0], [1.05, 1.7])
    assert not within_rel(0.1)(1.0, float("nan"))
    assert within_rel(0.1)(0.0, 0.0) and not within_rel(0.1)(0.0, 1e-9)
    assert within_abs(0.01)(0.5, 0.509) and not within_abs(0.01)(0.5, 0.52)
    assert same_sign()(-2.0, -0.1) and not same_sign()(2.0, -0.1) and not same_sign()(0.0, 0.1)
    assert same_order()([3, 1, 2], [30, 10, 20]) and not same_order()([3, 1, 2], [10, 30, 20])
    assert same_order()([1, 1, 2], [5, 4, 9])  # paper tie: unconstrained
    assert ordering_holds()(True, True) and not ordering_holds()(True, False)
    assert ordering_holds()(True, np.array([True, True]))
    assert "10%" in within_rel(0.1).description
    with pytest.raises(ValueError, match="tol"):
        within_rel(-1)
    with pytest.raises(ValueError, match="why"):
        not_reproducible("  ")


def test_verdicts_and_reasons():
    t = ClaimsTable("demo")
    assert t.add("a", 1.0, 1.02, within_rel(0.05)) == REPRODUCED
    assert t.add("b", 1.0, 2.0, within_rel(0.05), reason_if_differs="paper's typo, see errata") == DIFFERS
    assert t.add("c", 12.3, None, not_reproducible("TPC-E data are not public")) == NOT_REPRODUCIBLE
    assert t.add("d", True, bool(2 > 1), ordering_holds(), note="computed") == REPRODUCED
    assert t.add("e", 0.3, 0.9, within_abs(0.1), reason_if_differs="smoke-size noise") == DIFFERS
    with pytest.raises(ValueError, match="no reason_if_differs"):
        t.add("f", 1.0, 2.0, within_rel(0.05))
    assert len(t) == 5  # the failing claim was not added
    assert t.totals() == {REPRODUCED: 2, DIFFERS: 2, NOT_REPRODUCIBLE: 1, QUALITATIVE_ONLY: 0}
    df = t.frame()
    assert list(df.columns[:5]) == ["claim", "paper", "ours", "verdict", "reason"]
    assert list(df.index) == [1, 2, 3, 4, 5]
    assert df.loc[2, "reason"] == "paper's typo, see errata"
    assert df.loc[3, "reason"] == "TPC-E data are not public"
    assert df.loc[1, "reason"] == ""  # a reproduced claim shows no reason
    assert set(df["verdict"]) <= {REPRODUCED, DIFFERS, NOT_REPRODUCIBLE}


def test_plain_callables_and_bad_rules():
    t = ClaimsTable("demo")
    assert t.add("lambda rule", 2, 3, lambda p, o: o > p) == REPRODUCED
    assert t.frame().loc[1, "criterion"] == "<lambda>"
    with pytest.raises(TypeError, match="bool"):
        t.add("x", 1, 2, lambda p, o: "yes")
    with pytest.raises(TypeError, match="callable"):
        t.add("x", 1, 2, "within 10%")
    with pytest.raises(ValueError, match="rule failed"):
        t.add("x", 1, "abc", within_rel(0.1))
    with pytest.raises(ValueError, match="rule failed"):
        t.add("x", True, 0.5, ordering_holds())
    with pytest.raises(ValueError, match="claim"):
        t.add("", 1, 1, within_abs(0))
    with pytest.raises(TypeError, match="reason"):  # the old synonym of reason_if_differs is gone
        t.add("x", 1, 1, within_abs(0), reason="a")
    for bad in ("", "has space", "a.b", 3):
        with pytest.raises(ValueError, match="chapter"):
            ClaimsTable(bad)


def test_glue_keys(monkeypatch):
    import myst_nb

    glued = {}

    def fake_glue(name, variable, display=True):
        assert display is False
        glued[name] = variable

    monkeypatch.setattr(myst_nb, "glue", fake_glue)
    t = ClaimsTable("ch-1")
    t.add("a", 1.0, 1.0, within_rel(0.1))
    t.add("b", 1.0, None, not_reproducible("offline"))
    t.glue()
    assert glued["ch-1-claim-1-verdict"] == REPRODUCED
    assert glued["ch-1-claim-1-ours"] == 1.0
    assert glued["ch-1-claim-2-verdict"] == NOT_REPRODUCIBLE
    assert glued["ch-1-claims-total-reproduced"] == 1
    assert glued["ch-1-claims-total-differs"] == 0
    assert glued["ch-1-claims-total-not-reproducible"] == 1
    assert glued["ch-1-claims-total"] == 2
    pd.testing.assert_frame_equal(glued["ch-1-claims"], t.frame())


def test_importing_ldp_claims_does_not_import_myst_nb():
    code = "import sys, ldp.claims; t = ldp.claims.ClaimsTable('x'); assert 'myst_nb' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_show_returns_a_styler():
    t = ClaimsTable("demo")
    t.add("a", np.array([1.0, 2.0]), np.array([1.0, 2.1]), within_rel(0.1))
    t.add("b", 1.0, 5.0, within_rel(0.1), reason_if_differs="because")
    html = t.show().to_html()
    assert "reproduced" in html and "differs" in html and "because" in html


def test_json_round_trip_and_scoreboard(tmp_path):
    t = ClaimsTable("lopub")
    t.add("a", 0.08, np.float64(0.081), within_rel(0.1))
    t.add("b", [1, 2], np.array([2, 1]), same_order(), reason_if_differs="Lasso is solver-dependent")
    t.add("c", None, None, not_reproducible("TPC-E not public"))
    path = t.write_json(tmp_path / "claims" / "lopub.json")
    back = ClaimsTable.read_json(path)
    assert back.chapter == "lopub" and back.totals() == t.totals()
    assert back.frame().loc[2, "reason"] == "Lasso is solver-dependent"
    assert back.frame().loc[1, "ours"] == pytest.approx(0.081)
    u = ClaimsTable("cpl")
    u.add("x", 1.0, 1.0, within_abs(0.0))
    board = scoreboard([t, back, u])
    assert board.loc["total", "claims"] == 7
    assert board.loc["total", REPRODUCED] == 3 and board.loc["cpl", DIFFERS] == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"chapter": "x", "claims": [{"claim": "a", "verdict": "maybe"}]}')
    with pytest.raises(ValueError, match="unknown verdict"):
        ClaimsTable.read_json(bad)
    bad.write_text('{"chapter": "x", "claims": [{"claim": "a", "verdict": "differs"}]}')
    with pytest.raises(ValueError, match="no reason"):
        ClaimsTable.read_json(bad)
    with pytest.raises(TypeError):
        scoreboard([object()])


# ----------------------------------------------------------------------------- the verdict policy
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ldp.claims import (  # noqa: E402
    AGREES,
    BASES,
    CALIBRATED,
    DISAGREES,
    MODEL,
    PAPER_DATA,
    STAND_IN,
    agrees_within,
    agrees_within_rel,
    at_least,
    at_most,
    exceeds,
    in_range,
    margin_from_se,
    printed,
    read_off,
)

_finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
_small = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)
_rules = st.one_of(
    st.builds(within_abs, _small),
    st.builds(within_rel, _small),
    st.builds(agrees_within, _small, _small),
    st.builds(agrees_within_rel, _small, _small),
    st.builds(exceeds, _small),
    st.builds(at_most),
    st.builds(at_least),
    st.builds(same_sign),
    st.just(lambda p, o: True),
)


@settings(max_examples=300, deadline=None)
@given(rule=_rules, paper=_finite, ours=_finite, basis=st.sampled_from([STAND_IN, MODEL, CALIBRATED]))
def test_a_claim_not_on_the_papers_data_is_never_reproduced(rule, paper, ours, basis):
    t = ClaimsTable("prop")
    verdict = t.add("c", paper, ours, rule, basis=basis, reason_if_differs="shown, not counted")
    row = t.frame().iloc[0]
    assert verdict == QUALITATIVE_ONLY and row["verdict"] == QUALITATIVE_ONLY
    assert row["check"] == (AGREES if rule(paper, ours) else DISAGREES)  # the rule's outcome is still shown
    assert t.totals()[REPRODUCED] == 0 and t.totals()[DIFFERS] == 0


@settings(max_examples=200, deadline=None)
@given(rule=_rules, paper=_finite, ours=_finite)
def test_on_the_papers_data_the_verdict_is_the_rules_outcome(rule, paper, ours):
    t = ClaimsTable("prop")
    verdict = t.add("c", paper, ours, rule, reason_if_differs="why")
    assert verdict == (REPRODUCED if rule(paper, ours) else DIFFERS)


def test_basis_is_validated_and_explained():
    t = ClaimsTable("demo")
    with pytest.raises(ValueError, match="basis"):
        t.add("x", 1.0, 1.0, within_abs(0.1), basis="paper")
    assert t.add("cal", 2.4, 2.4, agrees_within(0.1), basis=CALIBRATED) == QUALITATIVE_ONLY
    assert "calibrated to this paper value" in t.frame().loc[1, "reason"]
    with pytest.raises(ValueError, match="no reason_if_differs"):  # a disagreement needs a reason on any basis
        t.add("model", 0.5, 0.9, within_abs(0.1), basis=MODEL)
    assert t.add("model", 0.5, 0.9, within_abs(0.1), basis=MODEL, reason_if_differs="script bug") == QUALITATIVE_ONLY
    assert t.frame().loc[2, "check"] == DISAGREES and "script bug" in t.frame().loc[2, "reason"]
    assert t.add("nr", 1.0, None, not_reproducible("offline"), basis=STAND_IN) == NOT_REPRODUCIBLE
    assert set(BASES) == {PAPER_DATA, STAND_IN, MODEL, CALIBRATED}


def test_tolerance_shows_both_parts_and_respects_reading_precision():
    rule = agrees_within(0.02, our_se=0.004, z=3)
    assert rule.description == "|ours − paper| ≤ 0.02 (reading) + 3×0.004 (MC s.e.)"
    assert rule(0.5, 0.531) and not rule(0.5, 0.533)  # 0.02 + 0.012 = 0.032
    rel = agrees_within_rel(0.2, our_se=0.01, z=2, label="reading")
    assert "20%·|paper|" in rel.description and "2×0.01" in rel.description
    assert rel(1.0, 1.21) and not rel(1.0, 1.23)
    t = ClaimsTable("demo")
    fig = read_off("Fig. 6a of the technical report", 0.02)
    assert str(fig) == "Fig. 6a of the technical report, read off (±0.02)"
    with pytest.raises(ValueError, match="reading precision"):
        t.add("too tight", 0.5, 0.5, agrees_within(0.01, our_se=0.004), source=fig)
    with pytest.raises(ValueError, match="reading precision"):
        t.add("too tight", 0.5, 0.5, within_abs(0.015), source=fig)
    with pytest.raises(ValueError, match="reading precision"):  # 20 % of a log-axis value is 0.2 at 1.0
        t.add("too tight", 1.0, 1.0, within_abs(0.1), source=read_off("Fig. 5", 0.2, relative=True))
    assert t.add("ok", 0.5, 0.51, agrees_within(0.02, our_se=0.004), source=fig) == REPRODUCED
    assert (
        t.add("printed", 0.261, 0.2612, agrees_within(0.0005, label="printed"), source=printed("Table III"))
        == REPRODUCED
    )
    assert list(t.frame()["source"]) == [str(fig), "Table III (printed)"]
    for bad in (
        dict(paper_precision=-0.1),
        dict(paper_precision=0.1, our_se=float("nan")),
        dict(paper_precision=0.1, z=0),
        dict(paper_precision=0.1, label="guess"),
    ):
        with pytest.raises(ValueError, match=next(iter(k for k in bad if k != "paper_precision"), "paper_precision")):
            agrees_within(**bad)
    for loose_enough, too_tight in (
        (at_most(tol=0.02), at_most()),
        (at_least(tol=0.03), at_least(tol=0.01)),
        (exceeds(0.02), exceeds(0.01)),
    ):
        t.add(
            "bound",
            0.5,
            0.55 if "ours >" in loose_enough.description else 0.5,
            loose_enough,
            source=fig,
            reason_if_differs="noise",
        )
        with pytest.raises(ValueError, match="reading precision"):
            t.add("bound", 0.5, 0.5, too_tight, source=fig, reason_if_differs="noise")
    t.add("fixed bound", 0.5, 0.05, at_most(0.1), source=fig)  # a fixed bound does not use the read-off value
    with pytest.raises(ValueError, match="precision"):
        read_off("Fig. 1", 0)
    with pytest.raises(ValueError, match="where"):
        printed(" ")
    with pytest.raises(TypeError, match="source"):
        t.add("x", 1.0, 1.0, within_abs(0.1), source=3)


def test_margin_rules_fail_on_ties():
    assert not same_order()([1, 2], [5, 5])  # a tie never passes
    assert not same_order(margin=0.1)([1, 2], [5.0, 5.05])  # ordered, but within the noise
    assert same_order(margin=0.1)([1, 2], [5.0, 5.2])
    assert "every gap > 0.1" in same_order(margin=0.1).description
    assert not exceeds()(1.0, 1.0) and exceeds()(1.0, 1.001)
    assert not exceeds(0.25)(1.0, 1.25) and exceeds(0.25)(1.0, 1.3)  # a gap equal to the margin fails
    assert margin_from_se(0.03, 0.04, z=2) == pytest.approx(0.1)
    assert at_most()(1.0, 1.0) and not at_most()(1.0, 1.01) and at_most(tol=0.02)(1.0, 1.01)
    assert at_least(0.9)(None, 0.95) and not at_least(0.9)(None, 0.85)
    assert at_least(tol=0.05)(0.5, 0.46) and at_least(tol=0.05).description == "ours ≥ paper − 0.05"
    assert at_most(0.1).description == "ours ≤ 0.1"
    assert in_range()((0.10, 0.15), 0.12) and not in_range()((0.10, 0.15), 0.16)
    assert not at_most()(1.0, float("nan")) and not exceeds()(0.0, float("nan"))
    assert "no margin" in ordering_holds().description
    for make in (same_order, exceeds, margin_from_se):
        with pytest.raises(ValueError, match="margin|se_a"):
            make(-1.0)


def test_four_totals_and_glue_keys(monkeypatch):
    import myst_nb

    glued = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=True: glued.__setitem__(name, value))
    t = ClaimsTable("four")
    t.add("r", 1.0, 1.0, within_abs(0.1))
    t.add("d", 1.0, 2.0, within_abs(0.1), reason_if_differs="because")
    t.add("n", 1.0, None, not_reproducible("offline"))
    t.add("q", 1.0, 1.0, within_abs(0.1), basis=STAND_IN)
    assert t.totals() == {REPRODUCED: 1, DIFFERS: 1, NOT_REPRODUCIBLE: 1, QUALITATIVE_ONLY: 1}
    t.glue()
    for verdict in ("reproduced", "differs", "not-reproducible", "qualitative-only"):
        assert glued[f"four-claims-total-{verdict}"] == 1
    assert glued["four-claims-total"] == 4 and glued["four-claim-4-check"] == AGREES
    board = scoreboard([t])
    assert list(board.columns) == [REPRODUCED, DIFFERS, NOT_REPRODUCIBLE, QUALITATIVE_ONLY, "claims", "without source"]
    assert board.loc["total", "without source"] == 4 and t.missing_sources() == ["r", "d", "n", "q"]


def test_json_round_trip_keeps_basis_check_and_source(tmp_path):
    t = ClaimsTable("rt")
    t.add("q", 0.5, 0.52, agrees_within(0.02, 0.004), basis=MODEL, source=read_off("Fig. 6a", 0.02))
    t.add("r", 0.261, 0.2611, agrees_within(0.0005, label="printed"), source=printed("Table III"))
    back = ClaimsTable.read_json(t.write_json(tmp_path / "rt.json"))
    pd.testing.assert_frame_equal(
        back.frame()[["verdict", "reason", "criterion", "check", "basis", "source"]],
        t.frame()[["verdict", "reason", "criterion", "check", "basis", "source"]],
    )
    assert back.totals() == t.totals() and back.missing_sources() == []
    bad = tmp_path / "bad.json"
    bad.write_text('{"chapter": "x", "claims": [{"claim": "a", "verdict": "reproduced", "basis": "stand-in"}]}')
    with pytest.raises(ValueError, match="policy"):
        ClaimsTable.read_json(bad)
    old = tmp_path / "old.json"  # a file written before the basis column existed
    old.write_text('{"chapter": "x", "claims": [{"claim": "a", "verdict": "reproduced"}]}')
    row = ClaimsTable.read_json(old).frame().iloc[0]
    assert row["basis"] == PAPER_DATA and row["check"] == AGREES and row["source"] == ""


def test_glue_values(monkeypatch):
    import myst_nb

    from ldp.pages import glue_values

    glued = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=True: glued.__setitem__(name, (value, display)))
    names = glue_values({"eps": np.float64(0.5), "n-users": 1000}, prefix="ch")
    assert names == ["ch-eps", "ch-n-users"]
    assert glued["ch-eps"] == (0.5, False) and type(glued["ch-eps"][0]) is float
    assert glue_values({"x": 1}) == ["x"]
    with pytest.raises(ValueError, match="names"):
        glue_values({"bad key": 1}, prefix="ch")
    with pytest.raises(ValueError, match="prefix"):
        glue_values({"x": 1}, prefix="a b")
    with pytest.raises(TypeError, match="mapping"):
        glue_values([("x", 1)])
    assert "ch-bad key" not in glued


def test_show_is_readable_at_page_width():
    """Styling only: fixed widths, the reason beneath its claim, nothing escaped twice or lost."""
    import re

    t = ClaimsTable("x")
    t.add("a <b> claim", 1.0, 1.5, within_rel(0.1), reason_if_differs="because of <noise> & more")
    t.add("another", 1.0, 1.0, within_rel(0.1))
    html = t.show().to_html()
    assert "table-layout: fixed" in html and 'class="dataframe ldp-claims"' in html
    widths = [float(w) for w in re.findall(r"th\.col\d+ \{\s*width: ([\d.]+)%", html)]
    assert len(widths) == 6 and 95 <= sum(widths) + 3 <= 101 and min(widths) >= 8
    assert 'a &lt;b&gt; claim<br><small class="ldp-beneath">because of &lt;noise&gt; &amp; more</small>' in html
    header = re.findall(r"<th[^>]*col_heading[^>]*>([^<]*)</th>", html)
    assert header == ["claim", "paper", "ours", "verdict", "rule", "basis"]
    assert t.frame()["reason"].tolist() == ["because of <noise> & more", ""]  # the data are unchanged
