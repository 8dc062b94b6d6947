"""Attribute-inference attacks on single reports (Appendix B) and the effective channels they induce.

Jayawardana et al. measure CPL *statistically* on the value an adversary infers from
each report, not on the raw report.  For every mechanism of the paper the
attack is (Appendix B; Arcolezi & Gambs 2024):

* GRR, EXP: the report itself;
* unary encoding (RAPPOR = SUE, OUE): a uniform draw from the set bits
  ``I = {v : y_v = 1}``, or from the whole domain when ``I`` is empty;
* local hashing (BLH, OLH): a uniform draw from ``I = {v : H(v) = y}`` (whole
  domain when empty);
* subset selection: a uniform draw from the reported subset;
* SHE: ``argmax_v y_v``, the MAP estimate under a uniform prior (the paper's
  Bayes-optimal rule with a data prior is ``rule="map"``).

Composing a mechanism with its attack gives a channel ``K(v_infer | u)`` on the
original alphabet.  Every mechanism above treats the values symmetrically, so
``K`` is "GRR-like": ``K[u, u] = a`` and ``K[u, v] = (1 - a)/(k - 1)``.  Its
privacy level ``ε_eff = ln(a (k - 1)/(1 - a))`` is the *effective* budget, and the
infinite-sample statistical CPL of the mechanism is the GRR closed form at
``ε_eff`` (shown in the CPL theory chapter).  :func:`attack_accuracy` gives ``a`` in closed form;
:func:`effective_channel` also offers the exact channel (finite-output
mechanisms, by enumerating outputs) and a Monte Carlo estimate (any mechanism,
including the real hash family of :class:`~ldp.oracles.local_hash.LocalHashing`,
for which the ideal-hash formula is only an approximation).

Mechanisms are always :mod:`ldp.oracles` instances; :func:`make_oracle` builds
them with the CPL paper's parametrisation (RAPPOR = SUE, SS with ``floor``, OLH with
``g = round(e^ε) + 1``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import integrate, stats

from .._checks import as_generator, check_domain_size, check_int
from ..oracles import GRR, SHE, FrequencyOracle, LocalHashing, SubsetSelection, UnaryEncoding, make

__all__ = [
    "PAPER_MECHANISMS",
    "make_oracle",
    "infer",
    "attack_accuracy",
    "effective_channel",
    "effective_channel_epsilon",
    "expected_zero_one_error",
    "two_level_channel",
    "channel_factory",
]

#: the eight mechanisms of the CPL paper, in the order of its Table II
PAPER_MECHANISMS = ("GRR", "RAPPOR", "EXP", "OUE", "BLH", "OLH", "SS", "SHE")
#: per-bit probabilities of the fixed-parameter RAPPOR the paper's text describes (f = 0.5, p = 0.5, q = 0.75)
RAPPOR_FIXED_PQ = (0.6875, 0.5625)
#: report entries handled at once by the set-based attacks (float64 keys: 32 MiB)
_CHUNK_ENTRIES = 1 << 22


def make_oracle(
    name: str, epsilon: float, d: int, *, rappor: str = "sue", ss_rule: str = "floor", olh_rule: str = "round"
) -> FrequencyOracle:
    """An :mod:`ldp.oracles` instance with the CPL paper's parametrisation (its Appendix A).

    Parameters
    ----------
    name : str
        One of :data:`PAPER_MECHANISMS` (``"SUE"`` is accepted as an alias of RAPPOR).
    epsilon : float
        Budget (> 0).
    d : int
        Domain size (>= 2).
    rappor : {"sue", "fixed"}
        ``"sue"`` (default): basic one-time RAPPOR = SUE(ε), what the authors' code
        ran.  ``"fixed"``: the per-bit probabilities 0.6875/0.5625 implied by the
        paper's text (f = 0.5, p = 0.5, q = 0.75), which ignore ε.
    ss_rule : str
        Subset-size rule of :class:`~ldp.oracles.SubsetSelection` (paper: ``"floor"``).
    olh_rule : str
        Hash-range rule of :class:`~ldp.oracles.local_hash.OLH` (paper's code: ``"round"``).
    """
    key = str(name).upper()
    if key == "SUE":
        key = "RAPPOR"
    if key not in PAPER_MECHANISMS:
        raise ValueError(f"name must be one of {PAPER_MECHANISMS} (or 'SUE'), got {name!r}")
    if key == "RAPPOR":  # the paper's RAPPOR is basic one-time RAPPOR, i.e. SUE (or its fixed-probability reading)
        if rappor == "fixed":
            return UnaryEncoding(None, d, *RAPPOR_FIXED_PQ)
        if rappor != "sue":
            raise ValueError(f"rappor must be 'sue' or 'fixed', got {rappor!r}")
        key = "SUE"
    options = {"OLH": dict(rule=olh_rule), "SS": dict(subset_size=ss_rule)}
    return make(key, epsilon, d, **options.get(key, {}))


# ----------------------------------------------------------------------------- the attacks
def _uniform_member(mask: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """For each row of a boolean matrix, a uniform index among its True entries (uniform over all if none)."""
    keys = gen.random(mask.shape)
    keys[~mask] = -1.0
    out = np.argmax(keys, axis=1)
    empty = ~mask.any(axis=1)
    if np.any(empty):
        out[empty] = gen.integers(0, mask.shape[1], size=int(empty.sum()))
    return out


def _rows_per_chunk(d: int) -> int:
    return max(1, _CHUNK_ENTRIES // d)


def infer(
    oracle: FrequencyOracle, reports: Any, rng: Any = None, *, rule: str = "argmax", prior: Any = None
) -> np.ndarray:
    """The attack of Appendix B: one inferred value in ``{0, .., d-1}`` per report.

    Parameters
    ----------
    oracle : FrequencyOracle
        The mechanism that produced ``reports`` (GRR, Exponential, SUE/OUE or any
        :class:`~ldp.oracles.UnaryEncoding`, :class:`~ldp.oracles.local_hash.LocalHashing`,
        :class:`~ldp.oracles.SubsetSelection` or :class:`~ldp.oracles.histogram.SHE`).
    reports : the oracle's report format
    rng : Generator, int or None
        Randomness of the uniform tie-breaking draws.
    rule : {"argmax", "map"}
        SHE only: ``"argmax"`` (default, the authors' code; MAP under a uniform
        prior) or ``"map"`` with ``prior``.
    prior : array_like, optional
        SHE with ``rule="map"``: the adversary's prior over the ``d`` values.

    Returns
    -------
    numpy.ndarray of int64
    """
    gen = as_generator(rng)
    if isinstance(oracle, GRR):  # includes Exponential
        return _infer_grr(oracle, reports)
    if isinstance(oracle, UnaryEncoding):
        return _infer_unary(oracle, reports, gen)
    if isinstance(oracle, SubsetSelection):
        return _infer_subset(oracle, reports, gen)
    if isinstance(oracle, LocalHashing):
        return _infer_local_hash(oracle, reports, gen)
    if isinstance(oracle, SHE):
        return _infer_she(oracle, reports, rule, prior)
    raise TypeError(
        f"no Appendix-B attack is defined for {type(oracle).__name__}; supported: GRR, Exponential, "
        "unary encoding (SUE/OUE), local hashing (BLH/OLH), SubsetSelection, SHE"
    )


def _infer_grr(oracle: GRR, reports: Any) -> np.ndarray:
    """GRR and Exponential report one value: the attack takes it."""
    d = oracle.d
    y = np.asarray(reports)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"{oracle.name} reports must be a 1-D integer array")
    if y.size and (y.min() < 0 or y.max() >= d):
        raise ValueError(f"{oracle.name} reports must lie in 0..{d - 1}")
    return y.astype(np.int64)


def _infer_unary(oracle: UnaryEncoding, reports: Any, gen: np.random.Generator) -> np.ndarray:
    """Unary encoding: a uniformly drawn set bit (a uniform value when no bit is set), chunked over users."""
    bits = oracle._check_reports(reports)
    out = np.empty(bits.shape[0], dtype=np.int64)
    step = _rows_per_chunk(oracle.d)
    for s in range(0, bits.shape[0], step):
        out[s : s + step] = _uniform_member(bits[s : s + step], gen)
    return out


def _infer_subset(oracle: SubsetSelection, reports: Any, gen: np.random.Generator) -> np.ndarray:
    """Subset selection: a uniformly drawn member of the reported subset."""
    subsets = np.asarray(reports)
    if subsets.ndim != 2 or subsets.shape[1] != oracle.subset_size:
        raise ValueError(f"SS reports must be an n x {oracle.subset_size} array, got shape {subsets.shape}")
    pick = gen.integers(0, oracle.subset_size, size=subsets.shape[0])
    return subsets[np.arange(subsets.shape[0]), pick].astype(np.int64)


def _infer_local_hash(oracle: LocalHashing, reports: Any, gen: np.random.Generator) -> np.ndarray:
    """Local hashing: a uniformly drawn value among those hashing to the report, chunked over users."""
    d = oracle.d
    a, b, y = oracle._check_reports(reports)
    out = np.empty(y.size, dtype=np.int64)
    values = np.arange(d, dtype=np.int64)
    step = _rows_per_chunk(d)
    for s in range(0, y.size, step):
        sl = slice(s, s + step)
        mask = oracle.hash_values(a[sl, None], b[sl, None], values[None, :]) == y[sl, None]
        out[sl] = _uniform_member(mask, gen)
    return out


def _infer_she(oracle: SHE, reports: Any, rule: str, prior: Any) -> np.ndarray:
    """SHE: the largest coordinate (``rule="argmax"``) or the MAP value under ``prior`` (``rule="map"``)."""
    d = oracle.d
    y = np.asarray(reports, dtype=float)
    if y.ndim != 2 or y.shape[1] != d:
        raise ValueError(f"SHE reports must be an n x {d} matrix, got shape {y.shape}")
    if rule == "argmax":
        return np.argmax(y, axis=1).astype(np.int64)
    if rule != "map":
        raise ValueError(f"rule must be 'argmax' or 'map', got {rule!r}")
    if prior is None:
        raise ValueError("rule='map' needs prior (a distribution over the d values)")
    pr = np.asarray(prior, dtype=float)
    if pr.shape != (d,) or np.any(pr < 0) or not np.isclose(pr.sum(), 1.0):
        raise ValueError(f"prior must be a distribution of length {d}")
    with np.errstate(divide="ignore"):
        logp = np.log(pr)
    b = oracle.scale
    # log f(y|v) = const + (|y_v| - |y_v - 1|)/b, which is flat in y_v outside [0, 1], so the
    # posterior often has several maximisers; ties go to the largest y_v (with a uniform prior
    # this makes the MAP rule coincide with argmax y).  Chunked over users.
    out = np.empty(y.shape[0], dtype=np.int64)
    step = _rows_per_chunk(d)
    for s in range(0, y.shape[0], step):
        yy = y[s : s + step]
        score = logp + (np.abs(yy) - np.abs(yy - 1.0)) / b
        top = score >= score.max(axis=1, keepdims=True) - 1e-12
        out[s : s + step] = np.argmax(np.where(top, yy, -np.inf), axis=1)
    return out


# ----------------------------------------------------------------------------- effective channels
def _ue_accuracy(p: float, q: float, k: int) -> float:
    """``a`` for unary encoding + uniform-over-set-bits: ``E[1/(1+N)] = (1-(1-q)^k)/(kq)``, N ~ Bin(k-1, q)."""
    miss = (1.0 - q) ** (k - 1)
    return p * (-math.expm1(k * math.log1p(-q))) / (k * q) + (1.0 - p) * miss / k


def _lh_accuracy_ideal(p: float, g: int, k: int) -> float:
    """``a`` for local hashing with an ideal (fully random) hash: each other value collides w.p. 1/g."""
    return _ue_accuracy(p, 1.0 / g, k)


def _she_accuracy(epsilon: float, k: int) -> float:
    """``P(argmax y = own value) = ∫ f_L(l) F_L(l + 1)^{k-1} dl`` for Laplace(0, 2/ε) noise."""
    b = 2.0 / epsilon
    lap = stats.laplace(scale=b)
    val, _ = integrate.quad(
        lambda l: lap.pdf(l) * lap.cdf(l + 1.0) ** (k - 1), -np.inf, np.inf, epsabs=1e-13, epsrel=1e-11, limit=200
    )
    return float(val)


def attack_accuracy(oracle: FrequencyOracle, *, hash_model: str = "ideal") -> float:
    """``a = P(v_infer = u | input u)`` of mechanism + attack, in closed form.

    Our derivation, tested against simulation.

    Parameters
    ----------
    oracle : FrequencyOracle
    hash_model : {"ideal"}
        Local hashing only: the closed form assumes an ideal random hash (each
        other value lands in the reported bucket independently w.p. ``1/g``).  For
        the real hash family use ``effective_channel(..., method="monte_carlo")``.
    """
    k = oracle.d
    if isinstance(oracle, GRR):
        return float(oracle.p)
    if isinstance(oracle, UnaryEncoding):
        return _ue_accuracy(oracle.p, oracle.q, k)
    if isinstance(oracle, LocalHashing):
        if hash_model != "ideal":
            raise ValueError(f"hash_model must be 'ideal' for the closed form, got {hash_model!r}")
        return _lh_accuracy_ideal(oracle.p, oracle.g, k)
    if isinstance(oracle, SubsetSelection):
        return float(oracle.p / oracle.subset_size)
    if isinstance(oracle, SHE):
        return _she_accuracy(oracle.epsilon, k)
    raise TypeError(f"no closed-form attack accuracy for {type(oracle).__name__}")


def two_level_channel(a: float, k: int) -> np.ndarray:
    """The GRR-like ``k x k`` channel with ``a`` on the diagonal and ``(1-a)/(k-1)`` elsewhere."""
    k = check_domain_size(k, "k", minimum=2)
    if not (0.0 <= a <= 1.0):
        raise ValueError(f"a must lie in [0, 1], got {a!r}")
    K = np.full((k, k), (1.0 - a) / (k - 1))
    np.fill_diagonal(K, a)
    return K


def _attack_kernel(oracle: FrequencyOracle) -> tuple[np.ndarray, np.ndarray]:
    """``(T, A)``: the oracle's finite channel and the attack's kernel ``A[y, v] = P(v_infer = v | y)``."""
    d = oracle.d
    if isinstance(oracle, GRR):
        T = oracle.channel()
        return T, np.eye(d)
    if isinstance(oracle, UnaryEncoding):
        T = oracle.channel()
        bits = oracle.output_bits().astype(float)
        size = bits.sum(axis=1, keepdims=True)
        A = np.where(size > 0, bits / np.maximum(size, 1), 1.0 / d)
        return T, A
    if isinstance(oracle, SubsetSelection):
        T = oracle.channel()
        subsets = oracle.output_subsets()
        A = np.zeros((subsets.shape[0], d))
        A[np.arange(subsets.shape[0])[:, None], subsets] = 1.0 / oracle.subset_size
        return T, A
    if isinstance(oracle, LocalHashing):
        T = oracle.channel()
        out = oracle.channel_outputs()
        hit = oracle.hash_values(out.a[:, None], out.b[:, None], np.arange(d)[None, :]) == out.y[:, None]
        size = hit.sum(axis=1, keepdims=True)
        A = np.where(size > 0, hit / np.maximum(size, 1), 1.0 / d)
        return T, A
    raise TypeError(f"no enumerable channel + attack kernel for {type(oracle).__name__}")


def effective_channel(
    oracle: FrequencyOracle, *, method: str = "closed", n: int = 100_000, rng: Any = None
) -> np.ndarray:
    """The ``d x d`` channel ``K[u, v] = P(v_infer = v | input u)`` of mechanism + attack.

    Parameters
    ----------
    oracle : FrequencyOracle
    method : {"closed", "exact", "monte_carlo"}
        ``"closed"``: :func:`two_level_channel` of :func:`attack_accuracy` (ideal hash
        for local hashing).  ``"exact"``: ``T @ A`` by enumerating the oracle's
        finite outputs (small domains; for local hashing build the oracle with a
        small ``prime`` so the family is enumerable).  ``"monte_carlo"``: ``n``
        reports per input value through the real mechanism and attack.
    n : int
        Reports per input value for ``"monte_carlo"``.
    rng : Generator, int or None
    """
    if method == "closed":
        return two_level_channel(attack_accuracy(oracle), oracle.d)
    if method == "exact":
        T, A = _attack_kernel(oracle)
        return T @ A
    if method == "monte_carlo":
        n = check_int(n, "n", minimum=1)
        gen = as_generator(rng)
        d = oracle.d
        K = np.empty((d, d))
        for u in range(d):
            x = np.full(n, u, dtype=np.int64)
            v = infer(oracle, oracle.perturb(x, gen), gen)
            K[u] = np.bincount(v, minlength=d) / n
        return K
    raise ValueError(f"method must be 'closed', 'exact' or 'monte_carlo', got {method!r}")


def effective_channel_epsilon(oracle_or_a: Any, k: int | None = None) -> float:
    """``ε_eff = ln(a (k - 1)/(1 - a))``: the privacy level of the GRR-like effective channel.

    Pass an oracle (closed-form ``a``) or a number ``a`` together with ``k``.
    """
    if isinstance(oracle_or_a, FrequencyOracle):
        a, k = attack_accuracy(oracle_or_a), oracle_or_a.d
    else:
        a = float(oracle_or_a)
        if k is None:
            raise ValueError("k is required when an accuracy a is given")
        k = check_domain_size(k, "k", minimum=2)
    if not (1.0 / k <= a < 1.0):
        if a == 1.0:
            return math.inf
        raise ValueError(f"a must lie in [1/k, 1] = [{1.0 / k:.6g}, 1] for a non-negative ε_eff, got {a!r}")
    return math.log(a * (k - 1)) - math.log1p(-a)


def expected_zero_one_error(oracle: FrequencyOracle) -> float:
    """Expected normalised 0-1 error of Eq. (24) for one attribute: ``1 - a``."""
    return 1.0 - attack_accuracy(oracle)


def channel_factory(
    mechanism: Any, epsilon: float, *, method: str = "closed", **kwargs: Any
) -> Callable[[int], np.ndarray]:
    """``t -> K_t``: the effective channel of ``mechanism`` at ``epsilon`` on a domain of size ``t`` (memoised).

    ``t = 1`` gives the 1 x 1 identity (a constant attribute).  ``method`` and
    ``kwargs`` are passed to :func:`effective_channel`.
    """
    factory = _mechanism_factory(mechanism)
    cache: dict[int, np.ndarray] = {}

    def channel(t: int) -> np.ndarray:
        t = check_int(t, "t", minimum=1)
        if t not in cache:
            cache[t] = np.ones((1, 1)) if t == 1 else effective_channel(factory(epsilon, t), method=method, **kwargs)
        return cache[t]

    return channel


def _mechanism_factory(mechanism: Any) -> Callable[[float, int], FrequencyOracle]:
    """A ``(epsilon, d) -> oracle`` callable from a mechanism name or callable."""
    if isinstance(mechanism, str):
        make_oracle(mechanism, 1.0, 2)  # validates the name
        return lambda eps, d: make_oracle(mechanism, eps, d)
    if callable(mechanism):
        return mechanism
    raise TypeError(
        f"mechanism must be a name in {PAPER_MECHANISMS} or a callable (epsilon, d) -> oracle, "
        f"got {type(mechanism).__name__}"
    )
