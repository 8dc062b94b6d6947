"""The multi-class chapter's plot helper draws one series per method and the paper's values."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from ldp.multiclass.figures import method_curves  # noqa: E402
from ldp.plotting import new_figure  # noqa: E402


def test_method_curves_draws_each_method_and_the_paper():
    frame = pd.DataFrame(
        {
            "method": ["A", "A", "B", "B"],
            "x": [1, 2, 1, 2],
            "f1_mean": [0.1, 0.2, 0.3, 0.4],
            "f1_se": [0.01, float("nan"), 0.02, 0.02],
        }
    )
    fig, ax = new_figure(1, 1)
    method_curves(ax, frame, "x", "f1", ["A", "B"], paper_x=[1, 2], paper={"A": [0.15, 0.25], "B": [0.3, 0.5]})
    assert len(ax.containers) == 2  # one errorbar per method
    labels = [t.get_text() for t in ax.legend().get_texts()]
    assert labels.count("paper (read off)") == 1 and {"A", "B"} <= set(labels)
    with pytest.raises(ValueError, match="no column 'ncr_mean'"):
        method_curves(ax, frame, "x", "ncr", ["A"])
