"""Helpers behind the CLLDP experiments chapter: paired gaps, trial summaries, the paper's constants, and the
exact two-round leakage used by the theory chapter."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ldp._checks import MIN_EPSILON
from ldp.claims import Source
from ldp.clldp import KHR, omega, paper, pl_closed_form, privacy_leakage, two_round_leakage
from ldp.clldp.trials import paired_gap, summarise_trials


def _frame():
    # two groups x three trials x three methods; B - A = 1, 2, 3 in group g1 and 0 (an exact tie) in g2
    rows = []
    for g, shift in (("g1", [1.0, 2.0, 3.0]), ("g2", [0.0, 0.0, 0.0])):
        for t in range(3):
            rows += [
                dict(group=g, trial=t, method="A", v=10.0 + t),
                dict(group=g, trial=t, method="B", v=10.0 + t + shift[t]),
                dict(group=g, trial=t, method="C", v=30.0),
            ]
    return pd.DataFrame(rows)


def test_paired_gap_is_the_mean_within_trial_difference_with_its_standard_error():
    out = paired_gap(_frame(), "v", "B", "A", by=["group"])
    assert out.loc["g1", "gap"] == pytest.approx(2.0)
    assert out.loc["g1", "se"] == pytest.approx(1.0 / math.sqrt(3))  # sd of (1, 2, 3) is 1
    assert out.loc["g1", "z"] == pytest.approx(2.0 * math.sqrt(3))
    assert out.loc["g2", "gap"] == 0.0 and out.loc["g2", "z"] == 0.0  # an exact tie is z = 0, not NaN


def test_paired_gap_picks_the_lowest_or_highest_mean_of_a_list():
    low = paired_gap(_frame(), "v", "B", ["A", "C"], by=["group"], against="min")
    high = paired_gap(_frame(), "v", "B", ["A", "C"], by=["group"], against="max")
    assert set(low.against) == {"A"} and set(high.against) == {"C"}
    assert high.loc["g2", "gap"] == pytest.approx(np.mean([10.0, 11.0, 12.0]) - 30.0)


def test_paired_gap_with_one_trial_has_zero_se_and_infinite_z():
    one = _frame().query("trial == 0")
    out = paired_gap(one, "v", "B", "A", by=["group"])
    assert out.loc["g1", "se"] == 0.0 and out.loc["g1", "z"] == np.inf


def test_paired_gap_refuses_unknown_methods_and_choices():
    with pytest.raises(ValueError, match="methods not in frame"):
        paired_gap(_frame(), "v", "B", "Z", by=["group"])
    with pytest.raises(ValueError, match="against"):
        paired_gap(_frame(), "v", "B", "A", by=["group"], against="mean")


def test_summarise_trials_gives_zero_se_for_a_single_trial():
    out = summarise_trials(_frame().query("trial == 0"), by=["group", "method"], values=["v"])
    assert np.all(out.v_se == 0.0) and not out.isna().any().any()


def test_every_paper_constant_has_a_printed_source():
    names = [n for n in vars(paper) if n.isupper() and n not in ("SOURCES", "PRECISION")]
    assert sorted(paper.SOURCES) == sorted(names)
    assert all(isinstance(s, Source) and not s.read_off for s in paper.SOURCES.values())
    assert set(paper.PRECISION) <= set(paper.SOURCES)


def test_two_round_leakage_is_within_the_bound_and_reduces_to_one_round():
    rng = np.random.default_rng(3)
    for _ in range(5):
        F = rng.dirichlet(np.ones(6) * 0.6, size=2).reshape(2, 3, 2)
        e1, e2 = rng.uniform(0.1, 1.5, size=2)
        w1, w2 = omega(F.sum(axis=2), 1), omega(F.reshape(2, -1), 1)
        exact = two_round_leakage(F, [(e1, w1), (e2, w2)], 1)
        assert exact <= pl_closed_form([e1, e2], [w1, w2]) * (1 + 1e-9)
    # a second round with the smallest budget a mechanism accepts adds (almost) nothing to the first round's leakage
    one = privacy_leakage(KHR(e1, w1, 1, 3, 2).channel(), F.sum(axis=2))
    assert two_round_leakage(F, [(e1, w1), (MIN_EPSILON, w2)], 1) == pytest.approx(one, rel=1e-6)


def test_two_round_leakage_refuses_bad_shapes():
    with pytest.raises(ValueError, match="joint must have shape"):
        two_round_leakage(np.full((2, 3), 1 / 3), [(1.0, 1.0), (1.0, 1.0)], 1)
    with pytest.raises(ValueError, match="two"):
        two_round_leakage(np.full((2, 3, 2), 1 / 6), [(1.0, 1.0)], 1)
    with pytest.raises(ValueError, match="sum to 1"):
        two_round_leakage(np.full((2, 3, 2), 0.5), [(1.0, 1.0), (1.0, 1.0)], 1)


def test_draw_errors_draws_one_series_per_method_and_refuses_bad_frames():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ldp.clldp.figures import draw_errors

    frame = pd.DataFrame(
        {
            "dataset": "D",
            "method": ["a", "a", "b", "b"],
            "epsilon": [1.0, 2.0, 1.0, 2.0],
            "err_mean": [1.0, 0.5, 2.0, 1.0],
            "err_se": 0.1,
            "theory_mean": [1.0, 0.5, 2.0, 1.0],
        }
    )
    fig, ax = plt.subplots()
    draw_errors(ax, frame, "D")
    assert ax.get_legend_handles_labels()[1] == ["a", "b"] and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="not in frame"):
        draw_errors(ax, frame, "E")
    with pytest.raises(ValueError, match="lacks"):
        draw_errors(ax, frame.drop(columns="theory_mean"), "D")
    plt.close(fig)
