"""EM_JD (Alg. 1): worked example, invariants, agreement with the per-report loop, recovery within the noise."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from ldp.lopub import (
    LoPubEncoder,
    LoPubReports,
    em_joint,
    em_joint_per_report,
    empirical_joint,
    log_likelihood_table,
    mismatch_counts,
    report_probability,
)
from ldp.lopub.paper import table6_reports


# ------------------------------------------------------------------ T-E1, T-E2: Examples 3 and 6
def test_example3_conditional_probability():
    assert report_probability("0111", "0101", 0.5) == pytest.approx(27 / 256, rel=1e-14)


def _exact_first_iteration() -> dict:
    """P_1 of Example 6 in exact rational arithmetic, straight from Table 6 (independent of the library)."""
    f = Fraction(1, 2)
    gender = {"M": "01", "F": "10"}
    edu = {"college": "0101", "master": "0110", "phd": "1100"}
    reports = [("10", "0111"), ("00", "1110"), ("10", "0100"), ("00", "0110")]

    def lik(rep, filt):
        out = Fraction(1)
        for r, h in zip(rep, filt):
            out *= f / 2 if r != h else 1 - f / 2
        return out

    cells = list(itertools.product(gender, edu))
    p0 = Fraction(1, len(cells))
    p1 = {c: Fraction(0) for c in cells}
    for rg, re in reports:
        w = {c: p0 * lik(rg, gender[c[0]]) * lik(re, edu[c[1]]) for c in cells}
        z = sum(w.values())
        for c in cells:
            p1[c] += w[c] / z / len(reports)
    return p1


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
def test_example6_first_iteration_exact():
    p1 = _exact_first_iteration()
    assert p1[("F", "phd")] == Fraction(329, 2090)
    assert p1[("M", "college")] == Fraction(239, 6270)
    assert p1[("M", "master")] == Fraction(1139, 6270)
    assert p1[("M", "phd")] == Fraction(503, 6270)
    assert p1[("F", "college")] == Fraction(417, 2090)
    assert p1[("F", "master")] == Fraction(717, 2090)
    assert sum(p1.values()) == 1
    res = em_joint(table6_reports(), (0, 1), max_iter=1)
    expected = np.array([[float(p1[(g, e)]) for e in ("college", "master", "phd")] for g in ("M", "F")])
    np.testing.assert_allclose(res.joint, expected, rtol=1e-12)
    assert res.iterations == 1 and not res.converged
    # the paper's "about 0.1564" is off by about 0.001 (erratum E12)
    assert abs(res.joint[1, 2] - 0.1564) > 9e-4


def test_mismatch_counts_and_log_table():
    bits = np.array([[0, 1, 1, 1], [1, 1, 1, 0]])
    filters = np.array([[0, 1, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])
    np.testing.assert_array_equal(mismatch_counts(bits, filters), [[1, 1, 3], [3, 1, 1]])
    ll = log_likelihood_table(bits, filters, 0.5)
    assert np.exp(ll[0, 0]) == pytest.approx(27 / 256)


def test_likelihood_matches_bloom_rappor_log_likelihood():
    enc = LoPubEncoder((7,), f=0.35, m=32, h=4)
    rep = enc.encode(np.arange(7).repeat(5)[:, None], rng=3)
    ours = log_likelihood_table(rep.bits[0], rep.filters[0], 0.35)
    np.testing.assert_allclose(ours, enc.oracles[0].log_likelihood(rep.bits[0]), rtol=1e-12)


# ------------------------------------------------------------------ invariants and the reference loop
def _reports(n=600, f=0.4, domains=(3, 4, 2), m=16, h=2, seed=0):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, v, n) for v in domains])
    codes[:, 1] = (codes[:, 0] + (rng.random(n) < 0.2)) % domains[1]
    enc = LoPubEncoder(domains, f=f, m=m, h=h)
    return codes, enc.encode(codes, rng=seed + 1)


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
@pytest.mark.parametrize("attrs", [(0,), (0, 1), (1, 0), (0, 1, 2), (2, 0, 1)])
def test_vectorised_em_equals_per_report_loop(attrs):
    _, rep = _reports(n=120)
    fast = em_joint(rep, attrs, max_iter=5)
    slow = em_joint_per_report(rep, attrs, max_iter=5)
    np.testing.assert_allclose(fast.joint, slow.joint, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(fast.loglik, slow.loglik, rtol=1e-10)


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
def test_em_invariants_and_monotone_likelihood():
    _, rep = _reports(f=0.7)
    res = em_joint(rep, (0, 1, 2), delta=1e-9, max_iter=300)
    assert res.joint.shape == (3, 4, 2)
    assert res.joint.sum() == pytest.approx(1.0, abs=1e-12)
    assert res.joint.min() >= 0
    assert np.all(np.diff(res.loglik) >= -1e-9 * np.abs(res.loglik[:-1]))
    assert res.loglik[-1] > res.loglik[0]


def test_em_keeps_structural_zeros():
    _, rep = _reports()
    support = np.ones((3, 4), dtype=bool)
    support[0, 1] = support[2, 3] = False
    init = np.random.default_rng(5).random((3, 4))
    res = em_joint(rep, (0, 1), init=init, support=support, delta=1e-8)
    assert res.joint[0, 1] == 0 and res.joint[2, 3] == 0
    assert res.joint.sum() == pytest.approx(1.0)
    # dense and sparse paths give the same iterates
    small = np.zeros((3, 4), dtype=bool)
    small[0, 0] = small[1, 1] = small[2, 2] = True
    a = em_joint(rep, (0, 1), init=init, support=small, max_iter=7)
    full = np.where(small, init, 0.0)
    b = em_joint(rep, (0, 1), init=full, max_iter=7)
    np.testing.assert_allclose(a.joint, b.joint, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(a.loglik, b.loglik, rtol=1e-12)


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
def test_t_e4_tiny_f_returns_empirical_joint_in_one_step():
    codes, _ = _reports(n=500)
    enc = LoPubEncoder((3, 4, 2), f=1e-6, m=16, h=2)
    rep = enc.encode(codes, rng=2)
    res = em_joint(rep, (0, 1), max_iter=1)
    np.testing.assert_allclose(res.joint, empirical_joint(codes, (3, 4, 2), (0, 1)), atol=1e-4)


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
def test_stopping_rules_and_iteration_count():
    _, rep = _reports(f=0.8)
    linf = em_joint(rep, (0, 1), delta=1e-3)
    assert linf.converged and 1 <= linf.iterations < 10_000
    assert linf.loglik.size == linf.iterations
    capped = em_joint(rep, (0, 1), delta=1e-12, max_iter=3)
    assert capped.iterations == 3 and not capped.converged
    printed = em_joint(rep, (0, 1), delta=1e-3, criterion="paper_max")
    assert printed.iterations <= linf.iterations


# ------------------------------------------------------------------ recovery within the noise (Fisher information)
def _fisher_sd(pi: np.ndarray, factors: list[np.ndarray]) -> np.ndarray:
    """Asymptotic sd of the MLE of every cell of ``pi`` observed through a product channel.

    ``factors[j]`` is attribute j's channel (values x 2^m outputs).  The MLE of the
    joint from N reports has covariance (N I)^-1 on the simplex; here for N = 1.
    """
    q = factors[0]
    for F in factors[1:]:
        q = np.einsum("ax,by->abxy", q, F).reshape(q.shape[0] * F.shape[0], -1)
    p = pi.ravel()
    py = p @ q
    grad = q[:-1] - q[-1]  # d P(y) / d theta_c, theta = first V-1 cells
    info = (grad / py) @ grad.T
    cov = np.linalg.inv(info)
    var_last = cov.sum()
    return np.sqrt(np.append(np.diag(cov), var_last)).reshape(pi.shape)


def test_em_recovers_known_joint_within_five_fisher_standard_errors():
    f, n = 0.2, 20_000
    pi = np.array([[0.30, 0.05, 0.05], [0.05, 0.25, 0.30]])
    enc = LoPubEncoder((2, 3), f=f, m=6, h=2)
    rng = np.random.default_rng(11)
    flat = rng.choice(6, size=n, p=pi.ravel())
    codes = np.column_stack(np.unravel_index(flat, pi.shape))
    rep = enc.encode(codes, rng=12)
    res = em_joint(rep, (0, 1), delta=1e-9)
    sd = _fisher_sd(pi, [o.channel() for o in enc.oracles]) / np.sqrt(n)
    assert np.all(np.abs(res.joint - pi) <= 5 * sd)
    # and the error is of the size the noise predicts (not vastly smaller or larger)
    assert np.max(np.abs(res.joint - pi) / sd) > 0.05


def test_em_accuracy_degrades_with_f():
    rng = np.random.default_rng(4)
    n = 5000
    codes = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n)])
    codes[:, 1] = np.where(rng.random(n) < 0.7, codes[:, 0] % 3, codes[:, 1])
    truth = empirical_joint(codes, (4, 3), (0, 1))
    errs = []
    for f in (0.1, 0.5, 0.9):
        rep = LoPubEncoder((4, 3), f=f, m=32, h=4).encode(codes, rng=9)
        errs.append(0.5 * np.abs(em_joint(rep, (0, 1), delta=1e-6).joint - truth).sum())
    assert errs[0] < 0.01 and errs[0] < errs[1] < errs[2]


# ------------------------------------------------------------------ bad input
def test_bad_cluster_and_options():
    _, rep = _reports(n=50)
    with pytest.raises(ValueError, match="k = 4 attributes but the data has only d = 3"):
        em_joint(rep, (0, 1, 2, 0))
    with pytest.raises(ValueError, match="repeated"):
        em_joint(rep, (0, 0))
    with pytest.raises(ValueError, match="outside the attribute range"):
        em_joint(rep, (0, 5))
    with pytest.raises(ValueError, match="empty"):
        em_joint(rep, ())
    with pytest.raises(ValueError, match="criterion must be one of"):
        em_joint(rep, (0, 1), criterion="l2")
    with pytest.raises(ValueError, match="delta must be > 0"):
        em_joint(rep, (0, 1), delta=0.0)
    with pytest.raises(ValueError, match="init must have shape"):
        em_joint(rep, (0, 1), init=np.ones(3))
    with pytest.raises(ValueError, match="support is empty"):
        em_joint(rep, (0, 1), support=np.zeros((3, 4), dtype=bool))


def test_reports_validation():
    b = np.zeros((3, 4), dtype=np.uint8)
    h = np.eye(2, 4, dtype=np.uint8)
    with pytest.raises(ValueError, match="f must lie in"):
        LoPubReports((b,), (h,), 1.5)
    with pytest.raises(ValueError, match="0/1 bits"):
        LoPubReports((b + 2,), (h,), 0.5)
    with pytest.raises(ValueError, match="bits per value"):
        LoPubReports((b,), (np.eye(2, 5, dtype=np.uint8),), 0.5)
    with pytest.raises(ValueError, match="users"):
        LoPubReports((b, b[:2]), (h, h), 0.5)


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
@pytest.mark.parametrize("attrs", [(0, 1), (0, 1, 2)])
def test_chunked_em_with_reused_work_arrays_equals_per_report_loop(monkeypatch, attrs):
    # users processed in chunks of unequal size (the last one shorter) give the per-report result
    import ldp.lopub.em as em_module

    _, rep = _reports(n=120)
    monkeypatch.setattr(em_module, "_CACHE_ENTRIES", 10)
    monkeypatch.setattr(em_module, "_CHUNK_ENTRIES", 7 * 37)
    chunked = em_joint(rep.uncached(), attrs, max_iter=5)
    slow = em_joint_per_report(rep, attrs, max_iter=5)
    np.testing.assert_allclose(chunked.joint, slow.joint, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(chunked.loglik, slow.loglik, rtol=1e-10)


# ------------------------------------------------------------------ EM on distinct report patterns
def _binary_reports(n: int = 12_000, k: int = 3, f: float = 0.8, seed: int = 4) -> LoPubReports:
    """Binary attributes with short filters (as Retail's): few distinct likelihood rows, so EM groups its users."""
    rng = np.random.default_rng(seed)
    codes = (rng.random((n, k)) < np.linspace(0.2, 0.6, k)).astype(np.int64)
    codes[:, 1] = codes[:, 0] ^ (rng.random(n) < 0.1)  # a coupling for EM to find
    return LoPubEncoder([2] * k, f=f, m=32, h=4).encode(codes, rng=seed + 1)


@pytest.mark.parametrize("domains", [(2, 2, 2), (3, 4, 2)])
def test_likelihood_patterns_are_the_users_with_equal_likelihood_rows(domains):
    from ldp.lopub.likelihood import likelihood_patterns, pattern_bound, scaled_likelihoods
    from ldp.tables import distinct_rows

    _, rep = _reports(n=3000, f=0.6, domains=domains, m=16, h=3)
    for j, v in enumerate(domains):
        table = scaled_likelihoods(rep, j)[0]
        first, inverse = likelihood_patterns(rep, j)
        # one row per pattern, up to rounding of the log-likelihoods
        np.testing.assert_allclose(table[first][inverse], table, rtol=1e-12)
        # the same partition as the users' mismatch counts relative to value 0 (Hamming distances, computed apart)
        mism = mismatch_counts(rep.bits[j], rep.filters[j])
        rel = mism[:, 1:] - mism[:, :1]
        other_first, other_inverse = distinct_rows(rel - rel.min(axis=0))
        assert other_first.size == first.size
        assert len({(a, b) for a, b in zip(inverse, other_inverse)}) == first.size
        assert first.size <= pattern_bound(rep.filters[j])
        if v == 2:  # one integer in a range of |H(1) xor H(0)| + 1 <= 2h + 1 values
            assert pattern_bound(rep.filters[j]) == np.count_nonzero(rep.filters[j][0] ^ rep.filters[j][1]) + 1 <= 7


@pytest.mark.filterwarnings("ignore::ldp.exceptions.ConvergenceWarning")  # fixed iteration counts on purpose
@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("f", [0.3, 0.9])
def test_em_on_distinct_patterns_equals_em_per_user(monkeypatch, chunked, f):
    # the same iterates as the per-user EM up to the order of the sums (rounding): joints, log-likelihoods, iterations
    import ldp.lopub.em as em_module

    rep = _binary_reports(f=f)
    groups = em_module.report_groups(rep, (0, 1, 2))
    assert groups is not None and groups[1].sum() == rep.n and groups[0].size <= rep.n / 2  # grouping happens
    if chunked:
        monkeypatch.setattr(em_module, "_CACHE_ENTRIES", 10)
        monkeypatch.setattr(em_module, "_CHUNK_ENTRIES", 7 * 37)
    support = np.ones((2, 2, 2), dtype=bool)
    support[0, 1, 0] = support[1, 0, 1] = support[1, 1, 0] = support[0, 0, 1] = support[1, 0, 0] = False
    init = np.random.default_rng(3).random((2, 2, 2))
    runs = [dict(), dict(max_iter=4, delta=1e-12), dict(init=init, support=support)]  # dense and sparse paths
    grouped = [em_joint(rep.uncached(), (0, 1, 2), **kw) for kw in runs]
    monkeypatch.setattr(em_module, "_GROUP_SHARE", 0.0)  # no grouping: one row per user, as before
    assert em_module.report_groups(rep.uncached(), (0, 1, 2)) is None
    for kw, a in zip(runs, grouped):
        b = em_joint(rep.uncached(), (0, 1, 2), **kw)
        assert a.iterations == b.iterations
        np.testing.assert_allclose(a.joint, b.joint, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(a.loglik, b.loglik, rtol=1e-12)


def test_em_runs_per_user_when_patterns_are_many():
    # 16-value attributes over 64 bits: nearly every user has her own likelihood rows, so there is nothing to group
    import ldp.lopub.em as em_module

    _, rep = _reports(n=300, f=0.5, domains=(16, 16), m=64, h=4)
    assert em_module.report_groups(rep, (0, 1)) is None
