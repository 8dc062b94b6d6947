"""Statistical assertions shared by the oracle tests (tolerances derived from theory, not tuned)."""

import math

import numpy as np


def assert_mean_and_variance(oracle, counts, estimates):
    """z-test of the mean and a normal-approximation test of the variance, value by value.

    ``estimates`` is a ``reps x d`` array of independent estimates for the population ``counts``.  The
    mean must lie within 5 standard errors of the truth, and the sample variance within
    ``5 sqrt(2/(reps-1))`` (relative) of ``oracle.variance(n, f)``.
    """
    n = int(counts.sum())
    f = counts / n
    var = oracle.variance(n, f)
    reps = estimates.shape[0]
    z = (estimates.mean(axis=0) - f) / np.sqrt(var / reps)
    assert np.all(np.abs(z) < 5), z
    ratio = estimates.var(axis=0, ddof=1) / var
    assert np.all(np.abs(ratio - 1) < 5 * math.sqrt(2 / (reps - 1))), ratio
