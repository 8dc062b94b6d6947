"""Tests for ldp.plotting (Agg backend): stable, distinct styles and working figure helpers."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ldp.plotting import (  # noqa: E402
    METHOD_STYLES,
    PALETTE,
    new_figure,
    overlay_paper_values,
    plot_theory_vs_sim,
    style_for,
    use_house_style,
)

REQUIRED = ["GRR", "SUE", "OUE", "OLH", "BLH", "SS", "HR", "RAPPOR", "EXP", "ADP", "kHR", "basic solution",
            "LabelDP", "non-private", "EM", "Lasso", "Lasso+EM", "HEC", "PTJ", "PTS", "PTS-CP", "VP", "CP",
            "JuRR", "CPRR", "TDRR", "JD-GRR", "uRR", "theory", "paper"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_registry_covers_the_book_and_styles_are_distinct():
    for name in REQUIRED:
        assert name in METHOD_STYLES
        st = style_for(name)
        assert set(st) == {"color", "marker", "linestyle"}
        assert matplotlib.colors.is_color_like(st["color"])
    triples = {tuple(sorted(style_for(n).items())) for n in REQUIRED}
    assert len(triples) == len(REQUIRED)


def test_methods_of_one_chapter_have_distinct_colours():
    for chapter in (["GRR", "SUE", "OUE", "OLH", "SS", "HR"], ["HEC", "PTJ", "PTS", "PTS-CP"],
                    ["uRR", "JuRR", "CPRR", "TDRR", "JD-GRR"], ["EM", "Lasso", "Lasso+EM", "RAPPOR"],
                    ["kHR", "basic solution", "LabelDP", "non-private"]):
        colours = [style_for(m)["color"] for m in chapter]
        assert len(set(colours)) == len(colours), chapter


def test_lookup_is_normalised_and_returns_copies():
    assert style_for("pts_cp") == style_for("PTS-CP") == style_for("PTS CP")
    assert style_for("grr") == style_for("GRR")
    st = style_for("GRR")
    st["color"] = "pink"
    assert style_for("GRR")["color"] != "pink"
    with pytest.raises(TypeError):
        METHOD_STYLES["GRR"]["color"] = "pink"


def test_unknown_names_get_a_deterministic_fallback():
    a, b = style_for("MyNewMethod"), style_for("MyNewMethod")
    assert a == b and a["color"] in PALETTE
    assert style_for("AnotherOne") != a or style_for("Third") != a
    with pytest.raises(TypeError):
        style_for(3)


def test_khr_variants_share_the_family_colour():
    base = style_for("kHR")
    v1, v2 = style_for("kHR (k=2)"), style_for("kHR (k=12)")
    assert v1["color"] == v2["color"] == base["color"]
    assert v1 != v2 or v1 != base


def test_house_style_sets_rcparams():
    use_house_style()
    rc = matplotlib.rcParams
    assert rc["axes.spines.top"] is False and rc["axes.spines.right"] is False
    assert rc["axes.grid"] is True
    assert rc["savefig.dpi"] >= 150


def test_new_figure_shapes():
    fig, ax = new_figure()
    assert hasattr(ax, "plot")
    fig, axes = new_figure(2, 3, sharex=True)
    assert axes.shape == (2, 3)
    fig, ax = new_figure(figsize=(3, 2))
    assert tuple(fig.get_size_inches()) == (3, 2)
    with pytest.raises(ValueError, match="ncols"):
        new_figure(1, 0)


def test_overlay_and_theory_vs_sim_draw_labelled_artists(tmp_path):
    fig, ax = new_figure()
    x = np.array([0.5, 1.0, 2.0, 4.0])
    out = plot_theory_vs_sim(ax, x, 1 / x**2, 1.05 / x**2, 0.1 / x**2, method="OUE")
    assert out is ax
    overlay_paper_values(ax, x, [4.1, np.nan, 0.26, 0.06])
    ax.set_xlabel("epsilon")
    ax.set_ylabel("variance")
    ax.legend()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(labels) == ["OUE (simulation)", "OUE (theory)", "paper"]
    paper_line = [ln for ln in ax.get_lines() if ln.get_label() == "paper"][0]
    assert paper_line.get_markerfacecolor() == "none" and len(paper_line.get_xdata()) == 3
    theory_line = [ln for ln in ax.get_lines() if ln.get_label() == "OUE (theory)"][0]
    assert matplotlib.colors.same_color(theory_line.get_color(), style_for("OUE")["color"])
    assert ax.get_xlabel() == "epsilon" and ax.get_ylabel() == "variance"
    path = tmp_path / "f.png"
    fig.savefig(path)
    assert path.stat().st_size > 0


def test_plot_helpers_validate_lengths():
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="same length"):
        overlay_paper_values(ax, [1, 2], [1])
    with pytest.raises(ValueError, match="theory"):
        plot_theory_vs_sim(ax, [1, 2], [1], None)
    with pytest.raises(ValueError, match="sim_err"):
        plot_theory_vs_sim(ax, [1, 2], None, [1, 2], [1, 2, 3])
    plot_theory_vs_sim(ax, [1, 2], None, [1, 2], np.ones((2, 2)), method="paper", label="x")
