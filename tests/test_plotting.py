"""Tests for ldp.plotting (Agg backend): stable, distinct styles and working figure helpers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ldp.plotting import (  # noqa: E402
    MAX_PANELS_PER_ROW,
    METHOD_STYLES,
    MIN_FONT_PT,
    PAGE_WIDTH_IN,
    PALETTE,
    min_display_font_pt,
    new_figure,
    overlay_paper_values,
    plot_theory_vs_sim,
    small_multiples,
    style_for,
    use_house_style,
)

REQUIRED = [
    "GRR",
    "SUE",
    "OUE",
    "OLH",
    "BLH",
    "SS",
    "HR",
    "RAPPOR",
    "EXP",
    "ADP",
    "kHR",
    "basic solution",
    "LabelDP",
    "non-private",
    "EM",
    "Lasso",
    "Lasso+EM",
    "HEC",
    "PTJ",
    "PTS",
    "PTS-CP",
    "VP",
    "CP",
    "JuRR",
    "CPRR",
    "TDRR",
    "JD-GRR",
    "uRR",
    "theory",
    "paper",
]


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
    for chapter in (
        ["GRR", "SUE", "OUE", "OLH", "SS", "HR"],
        ["HEC", "PTJ", "PTS", "PTS-CP"],
        ["uRR", "JuRR", "CPRR", "TDRR", "JD-GRR"],
        ["EM", "Lasso", "Lasso+EM", "RAPPOR"],
        ["kHR", "basic solution", "LabelDP", "non-private"],
    ):
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
    fig, axes = new_figure(2, 4, figsize=(13, 7))  # too wide for the page: scaled to its width
    assert fig.get_size_inches() == pytest.approx((PAGE_WIDTH_IN, 7 * PAGE_WIDTH_IN / 13))
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


# ----------------------------------------------------------------------------- one figure, distinct series
FIGURES_OF_THE_BOOK = [
    ["GRR", "SUE", "OUE", "OLH", "BLH", "SS", "HR", "RAPPOR", "EXP", "ADP", "theory", "paper"],
    ["kHR", "kHR (k=1)", "kHR (k=2)", "kHR (k=4)", "basic solution", "LabelDP", "non-private", "paper"],
    ["HEC", "PTJ", "PTS", "PTS-CP", "VP", "CP", "PTJ-S+VP", "PTS-opt", "paper"],
    ["EM", "Lasso", "Lasso+EM", "RAPPOR", "theory"],
    ["uRR", "JuRR", "CPRR", "TDRR", "JD-GRR", "paper"],
    # the comparison chapter: thirteen series, more than the palette has colours
    [
        "GRR",
        "OUE",
        "OLH",
        "kHR",
        "basic solution",
        "LabelDP",
        "EM",
        "PTJ",
        "PTS-CP",
        "JuRR",
        "CPRR",
        "uRR",
        "TDRR",
        "JD-GRR",
        "HEC",
        "theory",
    ],
]


@pytest.mark.parametrize("methods", FIGURES_OF_THE_BOOK, ids=lambda m: f"{len(m)}-series")
def test_two_methods_of_one_figure_never_share_colour_and_marker(methods):
    fig, axes = new_figure(1, 2)
    styles = {m: style_for(m, axes[0]) for m in methods}
    pairs = [(st["color"], st["marker"]) for st in styles.values()]
    assert len(set(pairs)) == len(pairs), styles
    # while the palette lasts, the methods (references apart) do not even share a colour
    coloured = [st["color"] for m, st in styles.items() if m not in ("theory", "paper", "non-private")]
    if len(coloured) <= len(PALETTE):
        assert len(set(coloured)) == len(coloured), styles
    # the same method in another panel of the same figure: the same style
    assert all(style_for(m, axes[1]) == st for m, st in styles.items())
    assert all(style_for(m, fig) == st for m, st in styles.items())


def test_collisions_reported_in_the_book_are_resolved_within_a_figure():
    fig, ax = new_figure()
    assert style_for("PTJ", ax)["color"] != style_for("PTJ-S+VP", ax)["color"]  # both blue in the registry
    fig2, ax2 = new_figure()
    khr = [style_for(f"kHR (k={k})", ax2)["color"] for k in (1, 2, 4)]  # all red in the registry
    assert len(set(khr)) == 3


def test_the_current_pyplot_figure_is_used_by_default_and_a_new_figure_starts_afresh():
    new_figure()
    a = style_for("PTJ")
    b = style_for("PTJ-S+VP")
    assert a["color"] != b["color"]
    plt.close("all")
    new_figure()
    assert style_for("PTJ-S+VP") == dict(METHOD_STYLES["PTJ-S+VP"])  # first in its figure: registered style
    plt.close("all")
    assert style_for("PTJ-S+VP") == dict(METHOD_STYLES["PTJ-S+VP"])  # no figure open: registered style
    with pytest.raises(TypeError, match="figure"):
        style_for("GRR", figure="not a figure")


def _decorate(fig, axes):
    for i, ax in enumerate(axes):
        for m in ("GRR", "OUE", "OLH"):
            ax.plot([1, 2, 3], [1, 2, 4], label=m, **style_for(m, ax))
        ax.set_xlabel("privacy budget ε")
        ax.set_ylabel("mean squared error")
        ax.set_title(f"panel {i + 1}")
        ax.legend()
    fig.canvas.draw()


@pytest.mark.parametrize("grid", [(1, 1), (1, 2), (1, 3), (2, 3), (3, 3)])
def test_figures_are_readable_at_the_width_the_page_shows_them(grid):
    fig, axes = new_figure(*grid, squeeze=False)
    _decorate(fig, list(axes.ravel()))
    assert fig.get_size_inches()[0] <= PAGE_WIDTH_IN
    assert min_display_font_pt(fig) >= MIN_FONT_PT


def test_min_display_font_pt_sees_a_shrunk_figure():
    import matplotlib.figure

    fig = matplotlib.figure.Figure(figsize=(13, 4), dpi=110)  # made without the helpers, 13 in wide
    ax = fig.add_subplot()
    ax.set_title("t", fontsize=9)
    # 9 pt drawn at 110 dpi on a 1430 px image shown in a 717 px column
    assert min_display_font_pt(fig) == pytest.approx(9 * 110 / 72 * 717 / 1430 * 0.75)
    assert min_display_font_pt(fig) < MIN_FONT_PT
    with pytest.raises(ValueError, match="column_px"):
        min_display_font_pt(fig, column_px=0)


def test_small_multiples_at_most_three_per_row_and_exactly_n_panels():
    fig, axes = small_multiples(5)
    assert len(axes) == 5 and len(fig.axes) == 5
    gs = axes[0].get_subplotspec().get_gridspec()
    assert gs.ncols == MAX_PANELS_PER_ROW and gs.nrows == 2
    _decorate(fig, axes)
    assert min_display_font_pt(fig) >= MIN_FONT_PT
    fig, axes = small_multiples(2, sharey=True)
    assert axes[0].get_subplotspec().get_gridspec().ncols == 2
    for bad in (dict(n_panels=0), dict(n_panels=4, ncols=4), dict(n_panels=2, ncols=0), dict(n_panels=True)):
        with pytest.raises(ValueError):
            small_multiples(**bad)
    with pytest.raises(ValueError, match="panel_height"):
        small_multiples(2, panel_height=-1)


# ---- finish_figure: the one layout pass of every multi-panel figure (issue 25, scope 4) ---------------------

from ldp.plotting import finish_figure, layout_problems  # noqa: E402


def _crowded_panel(ax, labels=("GRR", "OUE", "OLH")):
    """Series that fill the upper right corner (where matplotlib's default legend goes)."""
    x = np.linspace(0.0, 1.0, 30)
    for i, name in enumerate(labels):
        ax.plot(x, 0.5 + 0.5 * x + 0.05 * i, label=name, **style_for(name, ax))


def test_layout_problems_sees_a_legend_over_the_data():
    fig, ax = new_figure()
    _crowded_panel(ax)
    ax.legend(loc="upper right")
    assert any("covers its data" in p for p in layout_problems(fig))


def test_layout_problems_sees_overlapping_labels_and_small_fonts():
    fig, axes = new_figure(1, 3, figsize=(7.0, 2.5), layout="none")
    for ax in axes:
        ax.plot([1, 2], [1, 2])
        ax.set_ylabel("a long y label that cannot fit between two panels", fontsize=12)
    axes[0].set_title("t", fontsize=4)
    fig.subplots_adjust(wspace=0.0)
    problems = layout_problems(fig)
    assert any("overlap" in p for p in problems)
    assert any("below 8 pt" in p for p in problems)


def test_finish_figure_moves_the_legend_to_a_free_corner():
    fig, ax = new_figure()
    _crowded_panel(ax)
    ax.legend(loc="upper right")
    finish_figure(fig)
    assert layout_problems(fig) == []
    assert ax.get_legend() is not None  # a free corner (lower right) exists: the legend stays inside
    assert ax.get_legend()._loc in (3, 4, 2)  # not upper right (1)


def test_finish_figure_puts_the_legend_outside_when_no_corner_is_free():
    fig, ax = new_figure()
    x = np.linspace(0, 1, 200)
    ax.fill_between(x, 0, 1, color="0.9", label="band")
    ax.plot(x, x, label="GRR", **style_for("GRR", ax))
    ax.legend()
    finish_figure(fig)
    assert ax.get_legend() is None and len(fig.legends) == 1
    assert layout_problems(fig) == []


def test_finish_figure_on_a_multi_panel_figure():
    """One legend below the panels, no overlapping texts, fonts >= 8 pt, distinct series, title set."""
    fig, axes = small_multiples(3, sharey=False)
    for i, ax in enumerate(axes):
        _crowded_panel(ax, ("GRR", "OUE", f"kHR (k={i + 2})"))
        ax.set_ylabel("mean squared error of the estimate")
        ax.set_xlabel("privacy budget epsilon")
        ax.tick_params(labelsize=5)
        ax.legend()
    finish_figure(fig, title="Three panels")
    assert fig.get_suptitle() == "Three panels"
    assert layout_problems(fig) == []
    assert [ax.get_legend() for ax in axes] == [None, None, None] and len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["GRR", "OUE", "kHR (k=2)", "kHR (k=3)", "kHR (k=4)"]
    assert min_display_font_pt(fig) >= MIN_FONT_PT - 1e-6


def test_finish_figure_gives_each_series_its_own_colour_and_marker():
    fig, ax = new_figure()
    x = np.arange(20.0)
    for eps in (1, 2, 4):  # three curves in the same red, as in the bug report
        ax.plot(x, x * eps, color="#D62728", label=f"epsilon = {eps}")
    finish_figure(fig)
    looks = {(line.get_color(), line.get_marker()) for line in ax.get_lines()}
    assert len(looks) == 3
    assert all(line.get_marker() not in ("", "None") for line in ax.get_lines())


def test_finish_figure_refuses_a_repeated_label_and_the_word_profile():
    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1], label="simulation")
    ax.plot([0, 1], [1, 0], label="simulation")
    with pytest.raises(ValueError, match="simulation"):
        finish_figure(fig)
    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1])
    with pytest.raises(ValueError, match="profile"):
        finish_figure(fig, title="book profile: 1 trial")


def test_finish_figure_fits_the_axes_to_the_data():
    fig, axes = small_multiples(2, sharey=False)
    axes[0].errorbar([1, 2, 3], [0.75, 0.8, 0.83], yerr=0.01, marker="o")
    axes[0].set_ylim(0, 1)
    axes[1].plot([1, 10, 100], [1e-3, 1e-2, 1e-1], marker="o")
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xlim(1e-2, 1e4)
    finish_figure(fig)
    lo, hi = axes[0].get_ylim()
    assert 0.7 < lo < 0.74 and 0.84 < hi < 0.9
    lo, hi = axes[1].get_xlim()
    assert 0.5 < lo < 1 and 100 < hi < 200


def test_finish_figure_validates_its_arguments():
    fig, _ = new_figure()
    with pytest.raises(ValueError, match="legend"):
        finish_figure(fig, legend="somewhere")
    with pytest.raises(ValueError, match="fit"):
        finish_figure(fig, fit="z")
    with pytest.raises(ValueError, match="margin"):
        finish_figure(fig, margin=2.0)
    with pytest.raises(TypeError, match="Figure"):
        finish_figure("fig")


def test_plain_log_labels_change_the_notation_not_which_ticks_are_labelled():
    from ldp.plotting import plain_log_labels

    fig, (wide, narrow) = new_figure(1, 2)
    wide.plot([1e-3, 1.0], [1e-3, 1.0])
    narrow.plot([0.12, 0.9], [0.12, 0.9])
    for ax in (wide, narrow):
        ax.set_yscale("log")
    fig.draw_without_rendering()
    before = [[t.get_text() != "" for t in ax.yaxis.get_ticklabels(which="both")] for ax in (wide, narrow)]
    for ax in (wide, narrow):
        plain_log_labels(ax)
    fig.draw_without_rendering()
    after = [[t.get_text() for t in ax.yaxis.get_ticklabels(which="both")] for ax in (wide, narrow)]
    assert [[s != "" for s in labels] for labels in after] == before
    shown = {s for labels in after for s in labels if s}
    assert {"0.001", "0.01", "0.1", "1", "0.2"} <= shown
    assert not any("e" in s or "^" in s or "times" in s for s in shown)
    with pytest.raises(ValueError, match="axis"):
        plain_log_labels(wide, axis="z")


# ---- phone=True: a grid a phone shows whole (issue 25, scope 6) ------------------------------------------------

from ldp.plotting import PHONE_COLUMN_PX, PHONE_WIDTH_IN, outer_labels  # noqa: E402


def test_a_wide_grid_for_a_phone_is_transposed_and_keeps_its_indexing():
    fig, axes = new_figure(2, 3, phone=True, sharey="row")
    assert axes.shape == (2, 3)  # the grid of the code
    gs = axes[0, 0].get_subplotspec().get_gridspec()
    assert (gs.nrows, gs.ncols) == (3, 2)  # the grid of the page: one row per column of the code
    for r in range(2):
        for c in range(3):
            spec = axes[r, c].get_subplotspec()
            assert (spec.rowspan.start, spec.colspan.start) == (c, r)
    # sharey="row" of the code's grid: the panels of one code row share y
    axes[0, 0].set_ylim(0, 5)
    assert axes[0, 2].get_ylim() == (0, 5) and axes[1, 0].get_ylim() != (0, 5)
    assert fig.get_size_inches()[0] == pytest.approx(PHONE_WIDTH_IN)
    fig, axes = new_figure(1, 3, phone=True)
    assert axes.shape == (3,) and axes[0].get_subplotspec().get_gridspec().ncols == 1
    with pytest.raises(ValueError, match="phone"):
        new_figure(3, 3, phone=True)


def test_outer_labels_follow_the_page_layout():
    fig, axes = new_figure(2, 3, phone=True)
    outer_labels(axes, xlabel="ε", ylabel="error")
    xl = {(r, c): axes[r, c].get_xlabel() for r in range(2) for c in range(3)}
    yl = {(r, c): axes[r, c].get_ylabel() for r in range(2) for c in range(3)}
    # on the page the code's last column is the bottom row, its first row the left column
    assert [k for k, v in xl.items() if v] == [(0, 2), (1, 2)]
    assert [k for k, v in yl.items() if v] == [(0, 0), (0, 1), (0, 2)]
    fig, flat = small_multiples(3, phone=True)  # 2 + 1: the lowest panel of the right column is in row 1
    outer_labels(flat, xlabel="x")
    assert [ax.get_xlabel() for ax in flat] == ["", "x", "x"]


def test_a_phone_figure_is_whole_and_readable_on_a_phone(tmp_path):
    """Narrower than the width above which the page scrolls a figure (1.3 x the phone column), text >= 8 pt there."""
    fig, axes = new_figure(2, 3, phone=True, sharex=True)
    for i, ax in enumerate(axes.ravel()):
        _crowded_panel(ax, ("GRR", "OUE", f"kHR (k={i + 2})"))
        ax.set_title(f"panel {i + 1}", fontsize=7)
    outer_labels(axes, xlabel="privacy budget ε", ylabel="mean squared error")
    finish_figure(fig, title="Six panels")
    assert layout_problems(fig) == []
    assert min_display_font_pt(fig, PHONE_COLUMN_PX) >= MIN_FONT_PT - 1e-6
    path = tmp_path / "phone.png"
    fig.savefig(path, dpi=fig.dpi)  # the notebook's inline image is drawn at the figure's dpi
    width = plt.imread(path).shape[1]
    assert width <= 1.3 * PHONE_COLUMN_PX, width


def test_finish_figure_wraps_a_figure_title_wider_than_the_figure():
    fig, axes = new_figure(1, 2, phone=True)
    for ax in axes:
        ax.plot([1, 2], [1, 2], label="GRR", **style_for("GRR", ax))
    finish_figure(fig, title="income × relationship on Adult, n = 48,842, 20 perturbations per point")
    assert "\n" in fig.get_suptitle()
    fig.canvas.draw()
    assert fig._suptitle.get_window_extent().width <= fig.bbox.width
