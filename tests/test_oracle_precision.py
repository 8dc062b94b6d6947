"""Relative precision of the variance formulas when ``p`` is near 1 (or near ``q``).

References are exact rational arithmetic (``fractions``) on ``e^eps`` evaluated to 60 significant
digits (``decimal``), so they are correct far beyond double precision.  Computing ``1 - p`` or
``k - p`` by subtraction loses about ``1e-16/(1 - p)`` of relative accuracy; the closed forms keep
every formula within 1e-13 (a few dozen rounding errors) across the grid, whose corners include
large budgets with small beliefs (e.g. eps = 8, m = 20, omega = 0.02, where ``1 - p`` is about 1e-4)
and small budgets (``p`` close to ``q``).
"""

from __future__ import annotations

import decimal
import itertools
from fractions import Fraction as F

import pytest

from ldp.clldp import KHR, expected_sq_l2, khr_variance
from ldp.oracles import BLH, GRR, SUE, HadamardResponse, SubsetSelection
from ldp.oracles.local_hash import MERSENNE31, collision_probability

REL = 1e-13


def exp_exact(x: float, scale: int = 1) -> F:
    """``e^(x/scale)`` to 60 significant digits, as an exact fraction."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        return F(decimal.Decimal(x).exp() ** (decimal.Decimal(1) / scale) if scale != 1 else decimal.Decimal(x).exp())


def var_exact(p: F, q: F, n: int, f: F) -> F:
    return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)


def rel_err(value: float, exact: F) -> float:
    return float(abs(F(value) - exact) / abs(exact))


KHR_GRID = [
    (eps, w, k, dims)
    for eps, w, k, dims in itertools.product(
        [0.01, 0.1, 1.0, 4.0, 8.0, 12.0], [0.02, 0.3, 1.0], [1, 2, 5], [(2, 2), (10, 2), (25, 4)]
    )
    if k < dims[0] * dims[1]
]


@pytest.mark.parametrize("eps,w,k,dims", KHR_GRID)
def test_khr_variance_to_full_precision(eps, w, k, dims):
    m = dims[0] * dims[1]
    n = 1000
    E1 = exp_exact(eps) - 1
    W = F(w)
    p = k * (E1 + W) / (k * E1 + m * W)
    q = (k - p) / (m - 1)
    mech = KHR(eps, w, k, *dims)
    for f in (0.0, 0.3, 1.0):
        exact = var_exact(p, q, n, F(f))
        assert rel_err(khr_variance(eps, w, k, m, n, f), exact) < REL
        assert rel_err(mech.variance(n, f), exact) < REL
    assert rel_err(khr_variance(eps, w, k, m, n), var_exact(p, q, n, F(0))) < REL
    total = (p * (1 - p) + (m - 1) * q * (1 - q)) / (n * (p - q) ** 2)
    assert rel_err(expected_sq_l2(eps, w, k, m, n), total) < REL
    assert rel_err(mech.one_minus_p, 1 - p) < REL and rel_err(mech.q, q) < REL
    assert rel_err(mech.p_minus_q, p - q) < REL


def test_khr_corner_named_in_the_issue():
    """eps = 8, m = 20, omega = 0.02: 1 - p is about 1.3e-4 for k = 1."""
    E1 = exp_exact(8.0) - 1
    W = F(0.02)
    p = (E1 + W) / (E1 + 20 * W)
    q = (1 - p) / 19
    for f in (0.0, 0.5):
        assert rel_err(khr_variance(8.0, 0.02, 1, 20, 10_000, f), var_exact(p, q, 10_000, F(f))) < REL
        assert rel_err(KHR(8.0, 0.02, 1, 10, 2).variance(10_000, f), var_exact(p, q, 10_000, F(f))) < REL


EPS_GRID = [0.01, 0.5, 2.0, 8.0, 16.0, 24.0]


@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("d", [2, 20, 500])
def test_grr_ss_sue_hr_variance_to_full_precision(eps, d):
    E = exp_exact(eps)
    cases = [(GRR(eps, d), E / (E + d - 1), 1 / (E + d - 1))]
    for w in sorted({1, max(1, d // 4), d - 1}):
        cases.append((SubsetSelection(eps, d, w), w * E / (w * E + d - w), None))
    e2 = exp_exact(eps, 2)
    cases.append((SUE(eps, d), e2 / (1 + e2), 1 / (1 + e2)))
    if d <= 64:
        cases.append((HadamardResponse(eps, d), E / (E + 1), F(1, 2)))
    for o, p, q in cases:
        if q is None:  # SS: q = (omega - p)/(d - 1)
            q = (o.subset_size - p) / (d - 1)
        for f in (0.0, 0.25, 1.0):
            assert rel_err(o.variance(1000, f), var_exact(p, q, 1000, F(f))) < REL, (o, f)
        assert rel_err(o.one_minus_p, 1 - p) < REL, o
        assert rel_err(o.p_minus_q, p - q) < REL, o
        assert rel_err(o.q, q) < REL, o


@pytest.mark.parametrize("eps", [0.01, 1.0, 8.0, 16.0])
def test_local_hashing_variance_to_full_precision(eps):
    o = BLH(eps, 50)
    E = exp_exact(eps)
    p, qh = E / (E + 1), 1 / (E + 1)
    pairs = F(collision_probability(2))  # exact value of the float; recompute exactly from integers
    k, rho = divmod(MERSENNE31, 2)
    c = F(rho * (k + 1) * k + (2 - rho) * k * (k - 1), MERSENNE31 * (MERSENNE31 - 1))
    assert rel_err(float(pairs), c) < 1e-15
    q = qh + c * (p - qh)
    for f in (0.0, 0.5):
        assert rel_err(o.variance(1000, f), var_exact(p, q, 1000, F(f))) < REL
    assert rel_err(o.one_minus_p, 1 - p) < REL and rel_err(o.p_minus_q, p - q) < REL
