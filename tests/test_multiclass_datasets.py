"""Dataset generators of Mao et al. (multi-class item mining): SYN1-SYN4 as Sec. VII-A describes them, stand-ins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ldp.multiclass import datasets as D


def test_syn1_syn2_margins():
    s1 = D.syn1_table()
    assert np.all(s1.sum(axis=0) == 1_111_000) and np.all(s1.sum(axis=1) == 1_111_000)
    assert s1.sum() == 4_444_000
    s2 = D.syn2_table()
    assert s2.sum(axis=1).tolist() == [3_010_000, 1_210_000, 211_000, 13_000]
    assert s2.sum() == 4_444_000 and np.all(s2[:, 0] == 10_000)


def test_syn3_syn4_sizes_and_overlap():
    assert D.syn_class_sizes(10).tolist() == [
        765555,
        751219,
        709800,
        645782,
        565738,
        477227,
        387628,
        303168,
        228314,
        165563,
    ]
    assert D.syn_class_sizes(5).tolist() == [1548208, 1406908, 1055786, 654273, 334823]
    s = D.syn_scales(10)
    assert s[0] == pytest.approx(0.1) and s[-1] == pytest.approx(0.001 + 0.099 * np.exp(-5))
    syn3 = D.syn_classes_table(10, shared=True)
    syn4 = D.syn_classes_table(10, shared=False)
    assert syn3.sum() == syn4.sum() == 5_178_550  # independent of the seed
    assert syn3.min() >= 1
    assert 7 <= D.topk_overlap(syn3) <= 10
    assert D.topk_overlap(syn4) < 0.5


def test_standins_shapes():
    jd = D.jd_standin(scale=0.01, d=3000)
    assert jd.shape == (5, 3000) and np.argmax(jd.sum(axis=1)) == 1
    an = D.anime_standin(scale=0.02, d=2000)
    assert an.shape == (2, 2000) and an[0].sum() > an[1].sum()
    lab, feats = D.diabetes_standin()
    assert lab.size == 100_000 and lab.sum() == 8_500
    assert {k: int(v.max()) + 1 for k, v in feats.items()}["age"] == 80


def test_prepare_diabetes_and_feature_groups():
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "gender": rng.integers(0, 3, n),
            "age": rng.uniform(0.1, 80, n),
            "hypertension": rng.integers(0, 2, n),
            "heart_disease": rng.integers(0, 2, n),
            "smoking_history": rng.integers(0, 6, n),
            "bmi": rng.uniform(15, 40, n).round(2),
            "HbA1c_level": rng.choice([4.0, 5.5, 6.6], n),
            "blood_glucose_level": rng.choice([80, 100, 140], n),
            "diabetes": rng.integers(0, 2, n),
        }
    )
    lab, feats = D.prepare_diabetes(frame)
    assert set(np.unique(lab)) <= {0, 1} and feats["age"].max() < 80
    tables = D.feature_group_tables(lab, feats, rng=1)
    assert list(tables) == list(D.DIABETES_DOMAINS)
    assert sum(int(t.sum()) for t in tables.values()) == n
    assert all(t.shape[0] == 2 for t in tables.values())
    with pytest.raises(ValueError, match="lacks"):
        D.prepare_diabetes(frame.drop(columns="bmi"))


def test_prepare_heart_rank_codes_every_feature():
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame({col: rng.integers(0, dom, n) * 2 + 1 for col, dom in D.HEART_DOMAINS.items()})
    frame["HeartDiseaseorAttack"] = rng.integers(0, 2, n).astype(float)
    frame.loc[0, "BMI"] = np.nan  # a missing value drops the row
    lab, feats = D.prepare_heart(frame)
    assert lab.size == n - 1 and set(np.unique(lab)) <= {0, 1}
    for col, dom in D.HEART_DOMAINS.items():
        codes = feats[col]
        assert codes.min() == 0 and codes.max() < dom
        if dom <= 13:  # every value occurs, so the odd values 1, 3, 5, ... become the ranks 0, 1, 2, ...
            assert np.array_equal(codes, (frame[col].to_numpy()[1:] - 1) // 2)
    with pytest.raises(ValueError, match="lacks"):
        D.prepare_heart(frame.drop(columns="Income"))
