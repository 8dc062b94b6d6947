"""Tests for ldp.claims: rules, verdicts, reasons, frame/totals, glue keys and JSON round trip."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ldp.claims import (
    DIFFERS,
    NOT_REPRODUCIBLE,
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
    assert t.add("e", 0.3, 0.9, within_abs(0.1), reason="smoke-size noise") == DIFFERS
    with pytest.raises(ValueError, match="no reason_if_differs"):
        t.add("f", 1.0, 2.0, within_rel(0.05))
    assert len(t) == 5  # the failing claim was not added
    assert t.totals() == {REPRODUCED: 2, DIFFERS: 2, NOT_REPRODUCIBLE: 1}
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
    with pytest.raises(ValueError, match="either"):
        t.add("x", 1, 1, within_abs(0), reason="a", reason_if_differs="b")
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
