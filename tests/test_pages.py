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
        (12345678.9, "1.23 × 10⁷"),
        (4.56e-5, "4.56 × 10⁻⁵"),
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
    assert cells[1] == ["GRR", "1000000", "1.11 × 10⁻⁶"] and cells[2] == ["OUE", "200000", "0.0185"]
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
