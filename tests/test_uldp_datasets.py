"""The nursery / score count tables, the stand-in fallback and random subsamples (Yin et al., Sec. 7.3)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.data import DatasetUnavailable, is_available
from ldp.uldp import datasets
from ldp.uldp.datasets import SETTINGS, leading_rows_table, load_table, standin_table


def test_standin_tables_have_the_published_marginals():
    nursery = standin_table("nursery", "parents")
    assert nursery.sum() == 12960
    assert nursery.sum(axis=0).tolist() == [4320, 2, 328, 4266, 4044]
    for x in ("form", "has_nurs"):
        t = standin_table("nursery", x)
        assert t.sum(axis=0).tolist() == [4320, 2, 328, 4266, 4044]
        assert len(set(t.sum(axis=1).tolist())) == 1  # full factorial design: uniform features
    race = standin_table("students", "race/ethnicity")
    assert race.sum(axis=0).tolist() == [336, 332, 332]
    assert race.sum(axis=1).tolist() == [89, 190, 319, 262, 140]
    edu = standin_table("students", "parental level of education", "equal-width")
    assert edu.sum(axis=0).tolist() == [27, 514, 459]


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_settings_shapes_and_sensitive_first(name):
    t = load_table(name)
    st = SETTINGS[name]
    assert t.model.sx == len(st.x_sensitive) and t.model.sy == len(st.y_sensitive)
    assert t.x_labels[: t.model.sx] == st.x_sensitive
    assert t.y_labels[: t.model.sy] == st.y_sensitive
    assert t.model.x.sensitive == tuple(range(t.model.sx))
    assert t.n == (12960 if st.dataset == "nursery" else 1000)
    assert not t.counts.flags.writeable


@pytest.mark.skipif(not (is_available("nursery") and is_available("students")), reason="real files not present")
@pytest.mark.parametrize("name", sorted(SETTINGS))
@pytest.mark.parametrize("classes", ["tertile", "equal-width"])
def test_real_files_give_exactly_the_standin_tables(name, classes):
    st = SETTINGS[name]
    real = load_table(name, classes, allow_standin=False)
    assert real.source.real
    counts, _ = datasets._reorder(standin_table(st.dataset, st.x, classes), st.dataset, st)
    np.testing.assert_array_equal(real.counts, counts)


def test_fallback_when_the_file_is_missing(monkeypatch):
    def missing(name):
        raise DatasetUnavailable(f"{name} is not here")

    monkeypatch.setattr(datasets, "load", missing)
    load_table.cache_clear()
    try:
        t = load_table("fig3a")
        assert not t.source.real and "count table" in t.source.description
        assert t.counts.sum() == 12960
        with pytest.raises(DatasetUnavailable):
            load_table("fig3c", allow_standin=False)
    finally:
        load_table.cache_clear()


def test_random_subsample():
    t = load_table("fig6")
    a = t.subsample(2000, rng=1)
    assert a.n == 2000 and np.all(a.counts <= t.counts)
    np.testing.assert_array_equal(a.counts, t.subsample(2000, rng=1).counts)
    assert not np.array_equal(a.counts, t.subsample(2000, rng=2).counts)
    # every has_nurs value appears in a random subsample (unlike the first 2000 rows)
    assert np.all(a.counts.sum(axis=1) > 0)
    with pytest.raises(ValueError, match="n must be <= 12960"):
        t.subsample(20000)


@pytest.mark.skipif(not is_available("nursery"), reason="real nursery file not present")
def test_leading_rows_are_degenerate():
    lead = leading_rows_table("fig6", 2000)
    assert lead.n == 2000
    assert int((lead.counts.sum(axis=1) > 0).sum()) == 3  # only 3 of the 5 has_nurs values


def test_users_expand_the_table():
    t = load_table("fig3c")
    x, y = t.users()
    assert x.size == 1000
    np.testing.assert_array_equal(
        np.bincount(x * t.model.ky + y, minlength=t.counts.size).reshape(t.counts.shape), t.counts
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="setting must be one of"):
        load_table("fig9")
    with pytest.raises(ValueError, match="score_classes"):
        load_table("fig3c", "quartile")
    with pytest.raises(ValueError, match="no stand-in"):
        standin_table("nursery", "housing")
