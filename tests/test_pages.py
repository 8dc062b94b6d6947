"""ldp.pages.show_table and format_number: the house format of the book's tables."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from ldp.pages import format_number, show_table


@pytest.mark.parametrize(
    "value, text",
    [
        (3, "3"),
        (np.int64(1_000_000), "1000000"),
        (2.0, "2"),
        (1e6, "1000000"),
        (0.0, "0"),
        (0.012345, "0.0123"),
        (12.3456, "12.3"),
        (1234.56, "1235"),
        (1.5e7, "15000000"),
        (12345678.9, "1.23\u00a0×\u00a010⁷"),
        (4.56e-5, "4.56\u00a0×\u00a010⁻⁵"),
        (-0.5, "-0.500"),
        (float("nan"), "—"),
        (float("inf"), "∞"),
        ("text", "text"),
        (True, "True"),
    ],
)
def test_format_number(value, text):
    assert format_number(value) == text


def test_format_number_validates_digits():
    assert format_number(3.14159, digits=5) == "3.1416"
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="digits"):
            format_number(1.0, digits=bad)


def _cells(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, flags=re.S)]
        for r in rows
    ]


def test_show_table_hides_a_meaningless_index_and_formats_numbers():
    df = pd.DataFrame({"method": ["GRR", "OUE"], "n": [1e6, 2e5], "mse": [1.111e-6, 0.01848]})
    html = show_table(df).to_html()
    cells = _cells(html)
    assert cells[0] == ["method", "n", "mse"]  # no index column
    assert cells[1] == ["GRR", "1000000", "1.11\u00a0×\u00a010⁻⁶"] and cells[2] == ["OUE", "200000", "0.0185"]
    assert "text-align: right" in html and 'class="dataframe ldp-table"' in html


def test_show_table_keeps_a_meaningful_index_and_takes_series():
    s = pd.Series([0.5, 0.25], index=pd.Index([1.0, 2.0], name="ε"), name="error")
    cells = _cells(show_table(s).to_html())
    assert cells[-2:] == [["1", "0.500"], ["2", "0.250"]]
    assert _cells(show_table(s, index=False).to_html())[-1] == ["0.250"]
    with pytest.raises(TypeError, match="DataFrame"):
        show_table([1, 2])


def test_glue_values_returns_names_a_cell_does_not_display(monkeypatch):
    """A cell ending in glue_values(...) printed "['mc-profile', 'mc-t-freq', ...]" on the page (issue 25)."""
    import sys
    import types

    from ldp.pages import glue_values

    monkeypatch.setitem(sys.modules, "myst_nb", types.SimpleNamespace(glue=lambda *a, **k: None))
    names = glue_values({"a": 1, "b": 2.5}, prefix="ch")
    assert names == ["ch-a", "ch-b"] and isinstance(names, list)
    assert names._ipython_display_() is None  # IPython calls this instead of printing the repr


def test_plural_agrees_with_the_count():
    from ldp.pages import plural

    assert plural(1, "trial") == "1 trial"
    assert plural(np.int64(20), "trial") == "20 trials"
    assert plural(0, "run") == "0 runs"
    assert plural(5000, "record") == "5,000 records"
    assert plural(2.0, "matrix", "matrices") == "2 matrices"
    for bad in (-1, 1.5, True, "3", float("nan")):
        with pytest.raises(ValueError):
            plural(bad, "trial")
    with pytest.raises(ValueError):
        plural(2, "")


# ---------------------------------------------------------------------- the one formatter (issue 25)
_RAW = re.compile(r"np\.(int|float)\d*\(|\bNone\b|\bnan\b|\d\.?\d*e[+-]\d+")


@pytest.mark.parametrize(
    "value, digits, trim, text",
    [
        (0.99999999, 6, False, "1.00000"),  # rounds before choosing the decimals (was "1.000000": 7 digits)
        (0.9996, 3, False, "1.00"),
        (999_999.7, 3, False, "1.00\u00a0×\u00a010⁶"),
        (9.9996e-5, 3, False, "1.00\u00a0×\u00a010⁻⁴"),
        (2.220446049250313e-16, 2, False, "2.2\u00a0×\u00a010⁻¹⁶"),
        (1e-9, 3, True, "1\u00a0×\u00a010⁻⁹"),  # a tolerance: no false zeros
        (5e-05, 3, True, "5\u00a0×\u00a010⁻⁵"),
        (0.02, 3, True, "0.02"),
        (0.0002903, 4, True, "2.903\u00a0×\u00a010⁻⁴"),
        (1.21e8, 3, True, "121000000"),  # a whole number prints whole
        (3.15e8 + 0.5, 3, True, "3.15\u00a0×\u00a010⁸"),
        (-2.6e-06, 2, True, "-2.6\u00a0×\u00a010⁻⁶"),
        (np.float64(0.125), 3, True, "0.125"),
        (2.5, 4, False, "2.500"),
        (2.5, 4, True, "2.5"),
    ],
)
def test_format_number_rounding_and_trim(value, digits, trim, text):
    assert format_number(value, digits, trim=trim) == text


@pytest.mark.parametrize(
    "value, text",
    [
        (0.0, "0 exactly"),
        (2.220446049250313e-16, "less than 10⁻¹⁵"),
        (8.9e-16, "less than 10⁻¹⁵"),
        (1e-15, "less than 10⁻¹⁴"),  # a bound, never equal to the value
        (1.39e-17, "less than 10⁻¹⁶"),
        (np.float64(7.8e-16), "less than 10⁻¹⁵"),
        (0, "0 exactly"),
    ],
)
def test_format_below(value, text):
    from ldp.pages import format_below

    assert format_below(value) == text


def test_format_below_refuses_what_is_not_a_bound():
    from ldp.pages import format_below

    for bad in (-1e-16, float("nan"), float("inf"), "0", None):
        with pytest.raises(ValueError, match="format_below"):
            format_below(bad)


@pytest.mark.parametrize(
    "value, text",
    [
        (None, "—"),
        (float("nan"), "—"),
        (np.int64(7), "7"),
        ([(np.int64(1), np.int64(2)), (np.int64(1), np.int64(4))], "(1, 2), (1, 4)"),
        ((np.int64(3), 0.5), "(3, 0.5000)"),
        (np.array([True, True]), "yes"),
        (np.array([True, False, True]), "2 of 3 yes"),
        (list(np.linspace(0.25, 6, 24)), "0.2500 to 6 (24 values)"),
        ({"a": np.float64(1e-20), "b": [1, 2]}, "a: 1.000\u00a0×\u00a010⁻²⁰; b: 1, 2"),
        (list(range(6)), "0 to 5 (6 values)"),
        (["x", "y", "z", "w", "v"], "x, y, z, w, … (5 in all)"),
        ("ε-LDP", "ε-LDP"),
    ],
)
def test_format_value(value, text):
    from ldp.pages import format_value

    assert format_value(value) == text
    assert not _RAW.search(format_value(value))


@pytest.mark.parametrize(
    "text, html",
    [
        ("ε-LDP holds", '<span class="ldp-tok">ε-LDP</span> holds'),
        ("0.4–0.6", '<span class="ldp-tok">0.4–0.6</span>'),
        ("a <b> & c", 'a <span class="ldp-tok">&lt;b&gt;</span> &amp; c'),
        ("plain words 12", "plain words 12"),
        ("  two  spaces ", "  two  spaces "),
        ("100K-record sample,", '<span class="ldp-tok">100K-record</span> <span class="ldp-tok">sample,</span>'),
    ],
)
def test_html_unbroken_keeps_every_token_whole(text, html):
    import html as html_module

    from ldp.pages import html_unbroken

    assert html_unbroken(text) == html
    assert html_module.unescape(re.sub(r"<[^>]+>", "", html)) == text  # the text a reader sees is unchanged


def test_show_table_headers_text_columns_and_roundoff():
    df = pd.DataFrame(
        {
            0.5: [1.0000000000002, 2.2e-16],
            1.0: [3.646154, -4.4e-16],
            "edges": [[(np.int64(1), np.int64(2))], None],
            "label": ["a", None],
        },
        index=pd.Index(["x", "y"], name="case"),
    )
    cells = _cells(show_table(df, digits=4, roundoff=1e-12).to_html())
    assert cells[0][1:3] == ["0.5000", "1"]  # float column headers through the formatter, not "0.500000"
    assert cells[-2] == ["x", "1.000", "3.646", "(1, 2)", "a"]
    assert cells[-1] == ["y", "< 10⁻¹⁵", "> −10⁻¹⁵", "—", "—"]
    assert not _RAW.search(" ".join(sum(cells, [])))
    with pytest.raises(ValueError, match="roundoff"):
        show_table(df, roundoff=2.0)
