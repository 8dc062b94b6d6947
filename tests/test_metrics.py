"""Tests for ldp.metrics: known values, the F1/NCR examples of Mao et al., and shape validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.metrics import (
    avd,
    f1_topk,
    kl_divergence,
    l1,
    linf,
    mae,
    misclassification_rate,
    mse,
    ncr,
    rmse,
    total_variation,
)


def test_vector_metrics_known_values():
    est, true = np.array([0.5, 0.3, 0.2]), np.array([0.4, 0.4, 0.2])
    assert mse(est, true) == pytest.approx(0.02 / 3)
    assert rmse(est, true) == pytest.approx(math.sqrt(0.02 / 3))
    assert mae(est, true) == pytest.approx(0.2 / 3)
    assert l1(est, true) == pytest.approx(0.2)
    assert linf(est, true) == pytest.approx(0.1)
    assert total_variation(est, true) == pytest.approx(0.1)
    assert mse(true, true) == 0.0


def test_avd_is_half_l1_over_the_whole_joint_table():
    P = np.array([[0.25, 0.25], [0.25, 0.25]])
    Q = np.array([[0.5, 0.0], [0.0, 0.5]])
    assert avd(P, Q) == pytest.approx(0.5)
    assert avd(Q, np.array([[0.0, 0.5], [0.5, 0.0]])) == pytest.approx(1.0)  # disjoint supports
    rng = np.random.default_rng(0)
    a, b = rng.dirichlet(np.ones(12)), rng.dirichlet(np.ones(12))
    assert avd(a.reshape(3, 4), b.reshape(3, 4)) == pytest.approx(0.5 * np.abs(a - b).sum())
    assert 0 <= avd(a, b) <= 1


def test_kl_divergence():
    p, q = np.array([0.5, 0.5]), np.array([0.25, 0.75])
    expected = 0.5 * math.log(2) + 0.5 * math.log(0.5 / 0.75)
    assert kl_divergence(p, q) == pytest.approx(expected)
    assert kl_divergence(p, q, base=2) == pytest.approx(expected / math.log(2))
    assert kl_divergence(p, p) == 0.0
    assert kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(math.log(2))  # 0 log 0 = 0
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    with pytest.raises(ValueError, match="sum to 1"):
        kl_divergence([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ValueError, match="non-negative"):
        kl_divergence([1.5, -0.5], [0.5, 0.5])
    with pytest.raises(ValueError, match="base"):
        kl_divergence(p, q, base=1)


def test_f1_and_ncr_worked_examples():
    truth = ["a", "b", "c"]
    assert ncr({"a", "c", "x"}, truth) == pytest.approx(4 / 6)
    assert f1_topk(["a", "c", "x"], truth) == pytest.approx(2 / 3)
    assert ncr(truth, truth) == f1_topk(truth, truth) == 1.0


def test_ncr_and_f1_wrong_sizes_repeats_and_order():
    truth = [10, 20, 30, 40]
    # order of the mined list does not matter; repeats count once
    assert ncr([40, 10], truth) == ncr([10, 40, 40], truth) == pytest.approx((4 + 1) / 10)
    # a longer result gains nothing from extra items for NCR, but loses precision in F1
    assert ncr([10, 20, 30, 40, 50, 60], truth) == 1.0
    assert f1_topk([10, 20, 30, 40, 50, 60], truth) == pytest.approx(2 * (4 / 6) * 1 / (4 / 6 + 1))
    # a shorter result: precision 1, recall 1/2
    assert f1_topk([10, 20], truth) == pytest.approx(2 / 3)
    assert ncr([10, 20], truth) == pytest.approx(7 / 10)
    # empty results score zero
    assert f1_topk([], truth) == 0.0 and ncr([], truth) == 0.0
    assert f1_topk([99], truth) == 0.0
    # numpy arrays of items work
    assert ncr(np.array([30]), np.array(truth)) == pytest.approx(2 / 10)


@pytest.mark.parametrize("fn", [f1_topk, ncr])
def test_set_metric_validation(fn):
    with pytest.raises(ValueError, match="empty"):
        fn([1], [])
    with pytest.raises(ValueError, match="repeated"):
        fn([1], [1, 1, 2])
    with pytest.raises(TypeError):
        fn(["a"], "abc")
    with pytest.raises(TypeError):
        fn([1], [[1], [2]])
    with pytest.raises(TypeError):
        fn(5, [1, 2])


def test_misclassification_rate():
    assert misclassification_rate([0, 1, 1, 0], [0, 1, 0, 1]) == 0.5
    assert misclassification_rate(["a", "b"], ["a", "b"]) == 0.0
    with pytest.raises(ValueError, match="same length"):
        misclassification_rate([0, 1], [0])
    with pytest.raises(ValueError, match="empty"):
        misclassification_rate([], [])
    with pytest.raises(ValueError, match="one-dimensional"):
        misclassification_rate([[0]], [[0]])


@pytest.mark.parametrize("fn", [mse, rmse, mae, l1, linf, total_variation, avd])
def test_vector_metric_validation(fn):
    with pytest.raises(ValueError, match="same shape"):
        fn([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="same shape"):
        fn(np.ones((2, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="finite"):
        fn([np.nan, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="empty"):
        fn([], [])
    with pytest.raises(TypeError):
        fn(["a"], ["b"])
