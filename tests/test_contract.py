"""One contract suite over every mechanism class of ``ldp`` (as scikit-learn's ``parametrize_with_checks``).

The classes are found by walking the package, so a new mechanism cannot escape: it must appear in
:data:`CASES` (a small instance built from a budget) or the first test fails.  Each instance is then
checked for the vocabulary of :class:`ldp.mechanism.Mechanism`:

* the channel's rows sum to 1 and its exact ε (``ldp.audit``) equals ``exact_epsilon``, which is
  <= the budget for LDP mechanisms (>= it for CLLDP, whose budget is not an LDP level; ULDP
  mechanisms are checked against their own definition);
* the estimate is unbiased and its variance is ``variance(n, f)``: both within 5 standard errors
  (mean: ``5 sqrt(Var/R)``; variance: ``5 sqrt(2/(R-1))`` relative, its normal-approximation
  standard error), fixed seeds;
* the count-level sampler, where offered, agrees with per-user perturbation in distribution
  (means within 5 standard errors of the difference, variances within 5 standard errors of their ratio);
* bad budgets, domain sizes, codes and counts are refused with a message naming the parameter;
* the same seed gives the same output.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import ldp
from ldp import audit
from ldp.clldp import KHR, BasicSolution
from ldp.mechanism import Mechanism
from ldp.multiclass import CP, HEC, PTJ, PTS, VP
from ldp.multiclass.frameworks import MulticlassFramework, Tallies
from ldp.oracles import (
    BLH,
    GRR,
    OLH,
    OUE,
    SHE,
    SUE,
    BloomRAPPOR,
    Exponential,
    FrequencyOracle,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.oracles.bloom import full_rank_seed
from ldp.uldp import CPRR, URR, JuRR, ULDPModel2D, check_uldp, check_uldp_2d
from ldp.uldp.baselines import TDRR, JointGRR, TDRRUnbiased
from ldp.uldp.mechanism import ChannelMechanism

MODEL = ULDPModel2D.first_sensitive(3, 3, 1, 2)


@dataclass(frozen=True)
class Case:
    """How to build one small instance, and which constructor argument is its domain size."""

    build: Callable[[Any], Mechanism]  #: epsilon -> instance
    domain: tuple[str, Callable[[Any], Mechanism]] | None  #: (parameter name, d -> instance at epsilon 1)
    domain_min: int = 2  #: smallest valid domain size
    n: int = 3000  #: users of the statistical checks
    reps: int = 2000  #: repetitions of the statistical checks


CASES: dict[type, Case] = {
    GRR: Case(lambda e: GRR(e, 5), ("d", lambda d: GRR(1.0, d))),
    Exponential: Case(lambda e: Exponential(e, 5), ("d", lambda d: Exponential(1.0, d))),
    SUE: Case(lambda e: SUE(e, 5), ("d", lambda d: SUE(1.0, d))),
    OUE: Case(lambda e: OUE(e, 5), ("d", lambda d: OUE(1.0, d))),
    UnaryEncoding: Case(lambda e: UnaryEncoding(e, 4, 0.7, 0.4), ("d", lambda d: UnaryEncoding(None, d, 0.7, 0.4))),
    LocalHashing: Case(lambda e: LocalHashing(e, 5, 3, prime=7), ("d", lambda d: LocalHashing(1.0, d, 3, prime=7))),
    BLH: Case(lambda e: BLH(e, 5, prime=7), ("d", lambda d: BLH(1.0, d, prime=7))),
    OLH: Case(lambda e: OLH(e, 5, prime=7), ("d", lambda d: OLH(1.0, d, prime=7))),
    SubsetSelection: Case(lambda e: SubsetSelection(e, 6, 2), ("d", lambda d: SubsetSelection(1.0, d))),
    HadamardResponse: Case(lambda e: HadamardResponse(e, 5), ("d", lambda d: HadamardResponse(1.0, d))),
    BloomRAPPOR: Case(
        lambda e: BloomRAPPOR(e, 4, 8, 2, hash_seed=full_rank_seed(4, 8, 2)), ("d", lambda d: BloomRAPPOR(1.0, d, 8, 2))
    ),
    SHE: Case(lambda e: SHE(e, 4), ("d", lambda d: SHE(1.0, d))),
    # one attribute value is a valid (degenerate) product domain, as long as m = m_attr m_label >= 2
    KHR: Case(lambda e: KHR(e, 0.6, 2, 3, 2), ("m_attr", lambda d: KHR(1.0, 0.6, 1, d, 2)), domain_min=1),
    BasicSolution: Case(lambda e: BasicSolution(e, 3, 2), ("m_attr", lambda d: BasicSolution(1.0, d, 2)), domain_min=1),
    URR: Case(lambda e: URR(e, 5, sensitive=[0, 1]), ("d", lambda d: URR(1.0, d, sensitive=[0]))),
    JuRR: Case(lambda e: JuRR(e, MODEL), None),
    CPRR: Case(lambda e: CPRR(e, MODEL), None),
    TDRR: Case(lambda e: TDRR(e, MODEL), None),
    TDRRUnbiased: Case(lambda e: TDRRUnbiased(e, MODEL), None),
    JointGRR: Case(lambda e: JointGRR(e, MODEL), None),
    HEC: Case(lambda e: HEC(e, 2, 3), ("d", lambda d: HEC(1.0, 2, d))),
    PTJ: Case(lambda e: PTJ(e, 2, 3), ("d", lambda d: PTJ(1.0, 2, d))),
    PTS: Case(lambda e: PTS(e, 2, 3), ("c", lambda c: PTS(1.0, c, 3))),
    CP: Case(lambda e: CP(e, 2, 3), ("c", lambda c: CP(1.0, c, 3))),
    VP: Case(lambda e: VP(e, 3), ("d", lambda d: VP(1.0, d))),
}
SAMPLER_REPS = 600  #: repetitions per route when comparing count-level and per-user sampling
EPSILON = 1.5  #: budget of the statistical checks (JuRR on MODEL needs epsilon >= ln(1 + sqrt 2))


def _package_classes() -> set[type]:
    found = set()
    for info in pkgutil.walk_packages(ldp.__path__, "ldp."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and obj.__module__.startswith("ldp"):
                found.add(obj)
    return found


def _params() -> list[Any]:
    return [pytest.param(cls, id=cls.__name__) for cls in CASES]


# ---------------------------------------------------------------------------- every class is covered
def test_every_mechanism_class_in_the_package_is_in_the_contract_suite():
    classes = _package_classes()
    concrete = {c for c in classes if issubclass(c, Mechanism) and not inspect.isabstract(c)}
    assert concrete == set(CASES), f"not covered: {concrete - set(CASES)}; stale: {set(CASES) - concrete}"
    # anything that perturbs users is a mechanism, so it cannot bypass the vocabulary
    rogue = {c.__name__ for c in classes if hasattr(c, "perturb") and not issubclass(c, Mechanism)}
    assert rogue == set()


@pytest.mark.parametrize("cls", _params())
def test_vocabulary(cls):
    mech = CASES[cls].build(EPSILON)
    for verb in (
        "perturb",
        "support_counts",
        "estimate",
        "estimate_counts",
        "variance",
        "channel",
        "simulate_counts",
        "sample_support",
        "population",
    ):
        assert callable(getattr(mech, verb)), verb
    assert isinstance(mech.has_count_sampler, bool) and isinstance(mech.has_channel, bool)
    assert mech.estimand in ("frequencies", "counts") and mech.notion in ("LDP", "CLLDP", "ULDP")
    assert isinstance(mech.epsilon, float) and isinstance(mech.exact_epsilon, float)
    if not mech.has_count_sampler:
        with pytest.raises(ValueError, match="count-level sampler"):
            mech.simulate_counts(_case(mech)[0], 0)


# ---------------------------------------------------------------------------- population of each family
def _case(mech: Mechanism) -> tuple[np.ndarray, Any, np.ndarray]:
    """``(true_counts, f for variance(n, f), truth the estimate targets)`` of a fixed skewed population."""
    n = CASES[type(mech)].n
    if isinstance(mech, MulticlassFramework):
        shape: tuple[int, ...] = (mech.c, mech.d)
    elif isinstance(mech, VP):
        shape = (mech.d + 1,)
    elif isinstance(mech, ChannelMechanism):
        shape = mech.shape
    else:
        shape = (mech.d,)
    size = int(np.prod(shape))
    weights = 0.6 ** np.arange(size)
    weights[size // 2] = 0.0  # one empty cell
    counts = np.floor(weights / weights.sum() * n).astype(np.int64)
    counts[0] += n - counts.sum()
    counts = counts.reshape(shape)
    f = counts / n
    if isinstance(mech, VP):
        return counts, f, counts[: mech.d].astype(float)
    return counts, f, (counts.astype(float) if mech.estimand == "counts" else f)


def _vector(counts: Any) -> np.ndarray:
    """Any family's counts as one float vector (for distribution comparisons)."""
    if isinstance(counts, Tallies):
        parts = [counts.pair, counts.label, counts.item, counts.group]
        return np.concatenate([np.ravel(p).astype(float) for p in parts if p is not None])
    if isinstance(counts, tuple):
        return np.concatenate([np.ravel(p).astype(float) for p in counts])
    return np.ravel(counts).astype(float)


# ---------------------------------------------------------------------------- channel and privacy
@pytest.mark.parametrize("cls", _params())
def test_channel_rows_sum_to_one_and_exact_epsilon(cls):
    mech = CASES[cls].build(EPSILON)
    if not mech.has_channel:
        with pytest.raises(ValueError, match="channel"):
            mech.channel()
        return
    P = audit.check_channel(mech.channel(), atol=1e-9)
    if isinstance(mech, ChannelMechanism) and mech.notion == "ULDP":
        model = getattr(mech, "model", None)
        verdict = (
            check_uldp_2d(P, model, mech.epsilon)
            if model is not None
            else check_uldp(P, mech.domain.sensitive, mech.domain.sensitive, mech.epsilon)
        )
        assert verdict.satisfied or cls is CPRR, verdict  # CPRR fails the strict reading by design
        return
    audited = audit.channel_epsilon(P)
    assert audited == pytest.approx(mech.exact_epsilon, rel=1e-9, abs=1e-12)
    if mech.notion == "LDP":
        assert mech.exact_epsilon <= mech.epsilon * (1 + 1e-9)
    else:  # CLLDP: the pair's LDP level exceeds the budget
        assert mech.exact_epsilon >= mech.epsilon * (1 - 1e-9)


# ---------------------------------------------------------------------------- unbiasedness and variance
@pytest.mark.parametrize("cls", _params())
def test_estimate_is_unbiased_with_the_stated_variance(cls):
    case = CASES[cls]
    mech = case.build(EPSILON)
    counts, f, truth = _case(mech)
    n = int(counts.sum())
    rng = np.random.default_rng(20261125)
    est = np.stack([mech.estimate_counts(mech.sample_support(counts, rng), n) for _ in range(case.reps)])
    var = np.asarray(mech.variance(n, f), dtype=float) * np.ones(truth.shape)
    expected = truth + (mech.bias(n, f) if not getattr(mech, "unbiased", True) else 0.0)
    zero = var <= 1e-15 * np.maximum(1.0, np.abs(expected))
    np.testing.assert_allclose(est.mean(axis=0)[zero], expected[zero], atol=1e-9)  # no randomness there
    z = (est.mean(axis=0) - expected)[~zero] / np.sqrt(var[~zero] / case.reps)
    assert np.all(np.abs(z) < 5), z
    ratio = est.var(axis=0, ddof=1)[~zero] / var[~zero]
    assert np.all(np.abs(ratio - 1) < 5 * math.sqrt(2 / (case.reps - 1))), ratio


@pytest.mark.parametrize("cls", [p for p in _params() if CASES[p.values[0]].build(EPSILON).has_count_sampler])
def test_count_level_sampler_matches_per_user_perturbation(cls):
    case = CASES[cls]
    mech = case.build(EPSILON)
    counts = _case(mech)[0]
    population = mech.population(counts)
    rng = np.random.default_rng(11)
    reps = SAMPLER_REPS
    fast = np.stack([_vector(mech.simulate_counts(counts, rng)) for _ in range(reps)])
    slow = np.stack([_vector(mech.support_counts(mech.perturb(*population, rng=rng))) for _ in range(reps)])
    vf, vs = fast.var(axis=0, ddof=1), slow.var(axis=0, ddof=1)
    fixed = (vf == 0) & (vs == 0)  # deterministic entries (e.g. N, group sizes)
    np.testing.assert_array_equal(fast.mean(axis=0)[fixed], slow.mean(axis=0)[fixed])
    se = np.sqrt((vf + vs)[~fixed] / reps)
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0))[~fixed] < 5 * se)
    # both sample variances estimate the same variance: their log-ratio has standard error ~ 2/sqrt(reps)
    ok = (vf > 0) & (vs > 0)
    assert np.all(np.abs(np.log(vf[ok] / vs[ok])) < 5 * 2 / math.sqrt(reps - 1))


# ---------------------------------------------------------------------------- bad input
BAD_EPSILONS = [0.0, -1.0, float("nan"), float("inf"), 1e-300, 1e6, "1", None, True]


@pytest.mark.parametrize("cls", _params())
@pytest.mark.parametrize("eps", BAD_EPSILONS, ids=repr)
def test_bad_epsilon_is_refused_naming_it(cls, eps):
    if cls is UnaryEncoding and eps is None:
        pytest.skip("UnaryEncoding(None, ...) means 'the exact level of p and q' (documented)")
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        CASES[cls].build(eps)


@pytest.mark.parametrize("cls", [p for p in _params() if CASES[p.values[0]].domain is not None])
@pytest.mark.parametrize("size", [1, 0, -3, 2.5, "5", None, 2**40], ids=repr)
def test_bad_domain_size_is_refused_naming_it(cls, size):
    name, build = CASES[cls].domain
    if size == CASES[cls].domain_min:
        build(size)  # the smallest valid size is accepted
        return
    with pytest.raises((ValueError, TypeError), match=name):
        build(size)


def _bad_populations(mech: Mechanism) -> list[tuple[tuple[Any, ...], str]]:
    """``(perturb arguments, parameter the error must name)`` for out-of-domain and float codes."""
    good = mech.population(_case(mech)[0])
    out = []
    for i, name in enumerate(inspect.signature(mech.perturb).parameters):
        if name == "rng" or i >= len(good):
            continue
        for bad in (np.append(good[i][:-1], -1), good[i].astype(float) + 0.5):
            if good[i].dtype == bool:
                bad = good[i].astype(np.int64) + 2
            args = list(good)
            args[i] = bad
            out.append((tuple(args), name))
        if good[i].dtype != bool:
            big = good[i].copy()
            big[-1] = 10**6
            args = list(good)
            args[i] = big
            out.append((tuple(args), name))
    return out


@pytest.mark.parametrize("cls", _params())
def test_bad_codes_are_refused_naming_the_parameter(cls):
    mech = CASES[cls].build(EPSILON)
    for args, name in _bad_populations(mech):
        with pytest.raises((ValueError, TypeError), match=name):
            mech.perturb(*args, rng=0)


@pytest.mark.parametrize("cls", _params())
def test_bad_counts_are_refused_naming_the_parameter(cls):
    mech = CASES[cls].build(EPSILON)
    counts, f, _ = _case(mech)
    for bad in (-counts, counts.astype(float) + 0.5, np.zeros_like(counts), counts.ravel()[:-1]):
        with pytest.raises((ValueError, TypeError), match="true_counts|table|counts"):
            mech.sample_support(bad, 0)
    n = int(counts.sum())
    with pytest.raises((ValueError, TypeError), match=r"\bn\b"):
        mech.variance(0, f)
    if isinstance(mech, FrequencyOracle) and mech.support_is_count:
        support = np.asarray(mech.sample_support(counts, 0), dtype=float)
        too_many = support.copy()
        too_many[0] = n + 1  # a report supports a value at most once
        with pytest.raises(ValueError, match="counts must be at most n"):
            mech.estimate_counts(too_many, n)
        with pytest.raises(ValueError, match="counts"):
            mech.estimate_counts(-support, n)


# ---------------------------------------------------------------------------- reproducibility
@pytest.mark.parametrize("cls", _params())
def test_same_seed_same_output(cls):
    mech = CASES[cls].build(EPSILON)
    counts = _case(mech)[0]
    np.testing.assert_array_equal(_vector(mech.sample_support(counts, 7)), _vector(mech.sample_support(counts, 7)))
    population = mech.population(counts)
    a = mech.support_counts(mech.perturb(*population, rng=np.random.default_rng(3)))
    b = mech.support_counts(mech.perturb(*population, rng=np.random.default_rng(3)))
    np.testing.assert_array_equal(_vector(a), _vector(b))
    np.testing.assert_array_equal(
        mech.estimate(mech.perturb(*population, rng=5)), mech.estimate(mech.perturb(*population, rng=5))
    )
