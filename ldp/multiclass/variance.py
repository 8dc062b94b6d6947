"""Closed-form moments for Mao et al., "Multi-class item mining under LDP": exact variances and the paper's formulas.

Everything here is a function of the ``c x d`` table of true pair counts (and the
budgets), vectorised over all cells.  For a cell ``(C, I)`` we write ``f`` for its
count, ``n`` for the size of class ``C`` (row sum), ``F`` for the count of item ``I``
(column sum) and ``N`` for the number of users.

Exact variances (all checked against simulation in ``tests/test_multiclass_variance.py``):

* :func:`cp_variance` -- PTS-CP, Eq. (4).  The estimator is a sum over users of
  ``X_u - κ Y_u`` (``X`` = the user is counted in ``f~``, ``Y`` = she reports label ``C``).
  Because ``X <= Y``, ``Cov(X, Y) = E X (1 - E Y) > 0``; Eq. (5) of the paper
  (:func:`cp_variance_eq5`) drops this covariance and therefore over-estimates.
* :func:`pts_variance` -- PTS with GRR + OUE, Eq. (6): a sum over users of
  ``L·B - q2 L - q1 B`` with independent Bernoulli ``L`` (label) and ``B`` (item bit).
* :func:`ptj_variance`, :func:`hec_variance` -- PTJ and HEC (the latter including the
  randomness of the group split).

The paper's Theorems 4-7 (noise injected by invalid users) and Table I are here too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_domain_size, check_epsilon
from ..oracles import GRR, OUE, adaptive_oracle

__all__ = [
    "pts_probabilities",
    "cp_constants",
    "cell_margins",
    "pmi",
    "cp_variance",
    "cp_variance_eq5",
    "pts_variance",
    "pts_variance_independent",
    "ptj_variance",
    "hec_variance",
    "hec_random_item_bias",
    "theorem10_bound",
    "table1_coefficients",
    "replacement_noise",
    "vp_noise",
    "target_count_replacement",
    "target_count_vp",
    "pooled_rmse",
]


# ---------------------------------------------------------------------------- constants
def pts_probabilities(
    epsilon1: float, epsilon2: float, c: int, d: int | None = None, *, item_oracle: str = "oue"
) -> tuple[float, float, float, float]:
    """``(p1, q1, p2, q2)``: GRR(ε1) over ``c`` labels, and the item oracle's support probabilities.

    ``item_oracle="oue"`` (the paper's PTS): OUE(ε2) bits.  ``item_oracle="adaptive"``:
    :func:`ldp.oracles.adaptive_oracle` (ε2, ``d``), GRR when ``d < 3e^ε2 + 2``, else OUE;
    ``d`` is then required.
    """
    c = check_domain_size(c, "c", minimum=2)
    d = None if d is None else check_domain_size(d, "d", minimum=2)
    g = GRR(check_epsilon(epsilon1, "epsilon1"), c)
    e2 = check_epsilon(epsilon2, "epsilon2")
    if item_oracle == "oue":
        o = OUE(e2, 2)
    elif item_oracle == "adaptive":
        if d is None:
            raise ValueError("item_oracle='adaptive' needs the number of items d")
        o = adaptive_oracle(e2, d)
    else:
        raise ValueError(f"item_oracle must be 'oue' or 'adaptive', got {item_oracle!r}")
    return g.p, g.q, o.p, o.q


def cp_constants(epsilon1: float, epsilon2: float, c: int) -> dict[str, float]:
    """The per-user hit probabilities of CP and the calibration constants.

    ``alpha = p1(1-q2)p2`` (user holds (C, I)), ``beta = p1(1-q2)q2`` (class C, other
    item), ``gamma = q1(1-p2)q2`` (other class), ``delta = alpha - beta`` (signal scale,
    the denominator of Eq. (4)), ``kappa = q2[p1(1-q2) - q1(1-p2)]/(p1 - q1)`` (weight of
    ``n~`` in the estimator) and ``K = kappa (p1 - q1)/delta`` (the paper's coefficient of
    ``n^`` in Eq. (4)).
    """
    p1, q1, p2, q2 = pts_probabilities(epsilon1, epsilon2, c)
    alpha = p1 * (1 - q2) * p2
    beta = p1 * (1 - q2) * q2
    gamma = q1 * (1 - p2) * q2
    delta = alpha - beta
    kappa = q2 * (p1 * (1 - q2) - q1 * (1 - p2)) / (p1 - q1)
    return dict(
        p1=p1,
        q1=q1,
        p2=p2,
        q2=q2,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        delta=delta,
        kappa=kappa,
        K=kappa * (p1 - q1) / delta,
    )


def cell_margins(table: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(f, n, F, N)`` broadcast to the table's shape: cell, class size, item count, total."""
    tab = np.asarray(table, dtype=float)
    if tab.ndim != 2:
        raise ValueError(f"table must be 2-D (classes x items), got shape {tab.shape}")
    if np.any(tab < 0) or not np.all(np.isfinite(tab)):
        raise ValueError("table must be finite and non-negative")
    N = float(tab.sum())
    if N <= 0:
        raise ValueError("table sums to 0: at least one user is needed")
    n = np.broadcast_to(tab.sum(axis=1, keepdims=True), tab.shape)
    F = np.broadcast_to(tab.sum(axis=0, keepdims=True), tab.shape)
    return tab, n, F, N


def pmi(table: Any) -> np.ndarray:
    """Pointwise mutual information ``log2[p(C,I) / (p(C) p(I))]`` of every cell (-inf for empty cells)."""
    f, n, F, N = cell_margins(table)
    with np.errstate(divide="ignore"):
        return np.log2(f * N / (n * F))


# ---------------------------------------------------------------------------- CP (Eq. 4)
def cp_variance(table: Any, epsilon1: float, epsilon2: float) -> np.ndarray:
    """Exact ``Var[f^(C, I)]`` of the CP estimator, Eq. (4), for every cell.

    Per user, ``f^ = [sum_u (X_u - kappa Y_u) + const] / delta`` with ``X_u`` the
    indicator that she is counted in ``f~(C, I)`` and ``Y_u`` that she reports label
    ``C``.  Users are independent, so

        Var = sum_u [Var X_u + kappa^2 Var Y_u - 2 kappa Cov(X_u, Y_u)] / delta^2,

    and ``Cov(X, Y) = E X (1 - E Y)`` because ``X <= Y``.  Per group:

    ===================  =======  ======  ====================
    group                count    E X     E Y
    ===================  =======  ======  ====================
    holds (C, I)         f        alpha   p1
    class C, item != I   n - f    beta    p1
    other classes        N - n    gamma   q1
    ===================  =======  ======  ====================
    """
    f, n, _, N = cell_margins(table)
    k = cp_constants(epsilon1, epsilon2, np.asarray(table).shape[0])
    a, b, g, kap = k["alpha"], k["beta"], k["gamma"], k["kappa"]
    p1, q1 = k["p1"], k["q1"]
    var_x = f * a * (1 - a) + (n - f) * b * (1 - b) + (N - n) * g * (1 - g)
    var_y = n * p1 * (1 - p1) + (N - n) * q1 * (1 - q1)
    cov = f * a * (1 - p1) + (n - f) * b * (1 - p1) + (N - n) * g * (1 - q1)
    return (var_x + kap**2 * var_y - 2 * kap * cov) / k["delta"] ** 2


def cp_variance_eq5(table: Any, epsilon1: float, epsilon2: float) -> np.ndarray:
    """The paper's Eq. (5) (Theorem 8): ``Var[f~]/delta^2 + K^2 Var[n^]``, i.e. the exact formula
    without the covariance term.  Over-estimates the true variance."""
    f, n, _, N = cell_margins(table)
    k = cp_constants(epsilon1, epsilon2, np.asarray(table).shape[0])
    a, b, g = k["alpha"], k["beta"], k["gamma"]
    p1, q1 = k["p1"], k["q1"]
    var_f = (f * a * (1 - a) + (n - f) * b * (1 - b) + (N - n) * g * (1 - g)) / k["delta"] ** 2
    var_n = (n * (p1 * (1 - p1) - q1 * (1 - q1)) + N * q1 * (1 - q1)) / (p1 - q1) ** 2
    return var_f + k["K"] ** 2 * var_n


# ---------------------------------------------------------------------------- PTS (Eq. 6)
def _pts_w_variance(r: Any, s: Any, q1: float, q2: float) -> Any:
    """``Var(L B - q2 L - q1 B)`` for independent ``L ~ Bern(r)``, ``B ~ Bern(s)``."""
    mean = r * s - q2 * r - q1 * s
    second = r * s * (1 - 2 * q1 - 2 * q2 + 2 * q1 * q2) + q2**2 * r + q1**2 * s
    return second - mean**2


def pts_variance(table: Any, epsilon1: float, epsilon2: float, *, item_oracle: str = "oue") -> np.ndarray:
    """Exact ``Var[f^(C, I)]`` of the PTS estimator, Eq. (6) (GRR labels, OUE items by default).

    ``f^ = [sum_u W_u + const] / ((p1-q1)(p2-q2))`` with ``W = L·B - q2 L - q1 B``,
    ``L`` = "reports label C", ``B`` = "bit I is set".  The four user groups have
    ``(P(L), P(B))`` = ``(p1, p2)`` for holders of (C, I), ``(p1, q2)`` for the rest of
    class C, ``(q1, p2)`` for holders of I in other classes and ``(q1, q2)`` otherwise.
    Only these marginals enter, so the formula also holds for a GRR item oracle
    (``item_oracle="adaptive"``, :func:`pts_probabilities`): "supports ``I``" is then
    "reported ``I``", still a Bernoulli variable independent of the label report.
    """
    f, n, F, N = cell_margins(table)
    shape = np.asarray(table).shape
    p1, q1, p2, q2 = pts_probabilities(epsilon1, epsilon2, shape[0], shape[1], item_oracle=item_oracle)
    w = lambda r, s: _pts_w_variance(r, s, q1, q2)  # noqa: E731
    total = f * w(p1, p2) + (n - f) * w(p1, q2) + (F - f) * w(q1, p2) + (N - n - F + f) * w(q1, q2)
    return total / ((p1 - q1) * (p2 - q2)) ** 2


def pts_variance_independent(table: Any, epsilon1: float, epsilon2: float) -> np.ndarray:
    """PTS variance if ``f~``, ``n^`` and ``F^`` were independent (the approximation of the
    technical report's Eq. (10)).  Not a correct variance; shown for comparison."""
    f, n, F, N = cell_margins(table)
    p1, q1, p2, q2 = pts_probabilities(epsilon1, epsilon2, np.asarray(table).shape[0])
    hit = lambda r, s: r * s * (1 - r * s)  # noqa: E731
    var_f = f * hit(p1, p2) + (n - f) * hit(p1, q2) + (F - f) * hit(q1, p2) + (N - n - F + f) * hit(q1, q2)
    var_n = (n * p1 * (1 - p1) + (N - n) * q1 * (1 - q1)) / (p1 - q1) ** 2
    var_F = (F * p2 * (1 - p2) + (N - F) * q2 * (1 - q2)) / (p2 - q2) ** 2
    D = (p1 - q1) * (p2 - q2)
    return (var_f + (q2 * (p1 - q1)) ** 2 * var_n + (q1 * (p2 - q2)) ** 2 * var_F) / D**2


def theorem10_bound(table: Any, epsilon1: float, epsilon2: float) -> np.ndarray:
    """The paper's lower bound (Theorem 10) on ``Var_PTS - Var_CP``, as stated in the paper."""
    f, n, F, N = cell_margins(table)
    k = cp_constants(epsilon1, epsilon2, np.asarray(table).shape[0])
    p1, q1, p2, q2, delta = k["p1"], k["q1"], k["p2"], k["q2"], k["delta"]
    t1 = ((n - f) * p1**2 * q2**2 * (1 - q2) ** 2 + (N - n) * q1 * q2 * p2 * (1 - q1 * q2) ** 2) / delta**2
    t2 = (q1 * q2 * (1 - p2) / delta) ** 2 * (n * p1 * (1 - p1) + (N - n) * q1 * (1 - q1)) / (p1 - q1) ** 2
    t3 = (q1 / ((p1 - q1) * (p2 - q2))) ** 2 * (F * p2 * (1 - p2) + (N - F) * q2 * (1 - q2))
    return t1 + t2 + t3


# ---------------------------------------------------------------------------- PTJ, HEC
def ptj_variance(table: Any, epsilon: float) -> np.ndarray:
    """Exact ``Var[f^]`` of PTJ: ``[f p(1-p) + (N - f) q(1-q)]/(p-q)^2`` with the adaptive oracle's
    ``p, q`` for the joint domain of size ``c·d``."""
    f, _, _, N = cell_margins(table)
    o = adaptive_oracle(epsilon, f.size)
    p, q = o.p, o.q
    return (f * p * (1 - p) + (N - f) * q * (1 - q)) / (p - q) ** 2


def hec_variance(table: Any, epsilon: float, *, invalid: str = "dummy") -> np.ndarray:
    """Exact ``Var[f^]`` of HEC, including the randomness of the group split.

    Derivation.  Fix a cell ``(j, I)``.  Group ``j`` is a uniformly random set ``G`` of
    ``N_j`` users (``np.array_split`` sizes), and ``f^ = (N/N_j)(S - N_j q)/(p - q)`` where
    ``S`` is the number of reports in ``G`` that support ``I``.  Given ``G``, each member
    supports ``I`` independently with a probability ``m_u`` that depends only on what she
    feeds the oracle:

    * ``m_u = p`` if she holds ``(j, I)`` (``f`` such users in the population),
    * ``m_u = q`` if she is in class ``j`` with another item (``n - f`` users),
    * ``m_u = r`` if she is in another class, i.e. invalid in group ``j`` (``N - n`` users):
      ``r = q`` when she reports the dummy item; when she reports a uniformly random
      real item, she holds ``I`` with chance ``1/d``, so ``r = p/d + (1 - 1/d) q``.

    The law of total variance splits ``Var S`` into two parts.  The mean of the
    conditional variance: each user is in ``G`` with probability ``N_j/N``, so

        E Var(S | G) = (N_j/N) [f p(1-p) + (n-f) q(1-q) + (N-n) r(1-r)].

    The variance of the conditional mean ``E(S | G) = sum_{u in G} m_u``: this is the sum
    of a simple random sample of size ``N_j`` drawn without replacement from the ``N``
    numbers ``m_u``, whose variance is ``N_j (N - N_j)/(N - 1)`` times their population
    variance ``Var_pop(m) = (1/N) sum_u (m_u - mean m)^2``.  A variance does not change
    when the same constant is subtracted from every ``m_u``; subtracting ``r`` leaves
    ``w_u = p - r`` for the ``f`` holders, ``q - r`` for the ``n - f`` other class-``j``
    users and ``0`` for the ``N - n`` invalid users, so

        Var E(S | G) = N_j (N - N_j)/(N - 1) · Var_pop(w).

    Finally ``Var f^ = (N/N_j)^2 (E Var(S|G) + Var E(S|G)) / (p - q)^2``.  With the dummy
    item (``r = q``) only the holders have ``w != 0`` and, for ``N_j = N/c``, this is
    ``c [f p(1-p) + (N-f) q(1-q)]/(p-q)^2 + (c-1) f (1 - f/N) N/(N-1)``.  With a random
    item the holders' weight is ``p - r`` (not ``p - q``): at large ``ε`` and small ``d``,
    ``r`` is close to ``1/d`` and the two differ a lot.  ``tests/test_multiclass_variance.py``
    checks this against a brute-force enumeration and against simulation.
    """
    if invalid not in ("dummy", "random"):
        raise ValueError(f"invalid must be 'dummy' or 'random', got {invalid!r}")
    f, n, _, N = cell_margins(table)
    c, d = f.shape
    o = adaptive_oracle(epsilon, d + 1 if invalid == "dummy" else d)
    p, q = o.p, o.q
    r = q if invalid == "dummy" else p / d + (1 - 1 / d) * q
    base, extra = divmod(int(round(N)), c)
    Nj = np.array([base + (1 if j < extra else 0) for j in range(c)], dtype=float)[:, None]
    within = (Nj / N) * (f * p * (1 - p) + (n - f) * q * (1 - q) + (N - n) * r * (1 - r))
    a, b = p - r, q - r  # w_u of holders and of the other class-j users; invalid users have w_u = 0
    mean_w = (f * a + (n - f) * b) / N
    var_w = (f * a**2 + (n - f) * b**2) / N - mean_w**2
    between = Nj * (N - Nj) / (N - 1) * var_w if N > 1 else 0.0 * var_w
    return (N / Nj) ** 2 * (within + between) / (p - q) ** 2


def hec_random_item_bias(table: Any) -> np.ndarray:
    """Bias ``E f^ - f = (N - n_C)/d`` of HEC's estimator when invalid users report a random item."""
    f, n, _, N = cell_margins(table)
    return (N - n) / f.shape[1]


# ---------------------------------------------------------------------------- Table I
def table1_coefficients(epsilon: float, c: int = 4, *, version: str = "printed") -> dict[str, float]:
    """Coefficients of ``f``, ``n`` and ``N`` in ``Var[f^]`` for CP with ``ε1 = ε2 = ε/2`` (Table I).

    ``version``:

    * ``"printed"``: the recipe that reproduces the paper's Table I to 0.1 (found by trying readings of Eq. (5)):
      f row ``(1 - alpha)/delta``, n row as Eq. (5), N row ``gamma(1-gamma)/delta^2``;
    * ``"eq5"``: a literal reading of Eq. (5) (differs from the table in the f and N rows);
    * ``"exact"``: the coefficients of the exact variance :func:`cp_variance`.
    """
    if version not in ("printed", "eq5", "exact"):
        raise ValueError(f"version must be 'printed', 'eq5' or 'exact', got {version!r}")
    eps = check_epsilon(epsilon)
    k = cp_constants(eps / 2, eps / 2, c)
    a, b, g, D, K, kap = k["alpha"], k["beta"], k["gamma"], k["delta"], k["K"], k["kappa"]
    p1, q1 = k["p1"], k["q1"]
    v = lambda x: x * (1 - x)  # noqa: E731
    n_eq5 = (v(b) - v(g)) / D**2 + K**2 * (v(p1) - v(q1)) / (p1 - q1) ** 2
    if version == "printed":
        return {"f": (1 - a) / D, "n": n_eq5, "N": v(g) / D**2}
    if version == "eq5":
        return {"f": (v(a) - v(b)) / D**2, "n": n_eq5, "N": v(g) / D**2 + K**2 * v(q1) / (p1 - q1) ** 2}
    return {
        "f": (v(a) - v(b) - 2 * kap * (a - b) * (1 - p1)) / D**2,
        "n": (v(b) - v(g) + kap**2 * (v(p1) - v(q1)) - 2 * kap * (b * (1 - p1) - g * (1 - q1))) / D**2,
        "N": (v(g) + kap**2 * v(q1) - 2 * kap * g * (1 - q1)) / D**2,
    }


# ---------------------------------------------------------------------------- Theorems 4-7
def _pq(p: float, q: float) -> tuple[float, float]:
    if not (0 < q < p < 1):
        raise ValueError(f"need 0 < q < p < 1, got p={p!r}, q={q!r}")
    return float(p), float(q)


def replacement_noise(m_inv: float, d: int, p: float, q: float) -> tuple[float, float]:
    """Theorem 4: mean and variance of the count added to one valid item by ``m_inv`` invalid users who
    each report a uniformly random valid item through unary encoding."""
    p, q = _pq(p, q)
    d = check_domain_size(d, "d", minimum=1)
    return m_inv * q + m_inv / d * (p - q), m_inv * q * (1 - q) + m_inv / d * (p - q) * (1 - p - q)


def vp_noise(m_inv: float, p: float, q: float) -> tuple[float, float]:
    """Theorem 5: mean and variance of the count added to one item by ``m_inv`` invalid VP users
    (their item bit is ``q`` and their flag must turn to 0, probability ``1 - p``)."""
    p, q = _pq(p, q)
    h = q * (1 - p)
    return m_inv * h, m_inv * h * (1 - h)


def target_count_replacement(N1: float, N2: float, m_inv: float, d: int, p: float, q: float) -> tuple[float, float]:
    """Theorem 6: mean and variance of the raw count of a target item under unary encoding with random
    replacement (``N1`` holders, ``N2`` users of other valid items, ``m_inv`` invalid users)."""
    e, v = replacement_noise(m_inv, d, p, q)
    return N1 * p + N2 * q + e, N1 * p * (1 - p) + N2 * q * (1 - q) + v


def target_count_vp(N1: float, N2: float, m_inv: float, p: float, q: float) -> tuple[float, float]:
    """Theorem 7: mean and variance of the raw (kept) count of a target item under VP."""
    p, q = _pq(p, q)
    h1, h2, h3 = p * (1 - q), q * (1 - q), q * (1 - p)
    return (N1 * h1 + N2 * h2 + m_inv * h3, N1 * h1 * (1 - h1) + N2 * h2 * (1 - h2) + m_inv * h3 * (1 - h3))


def pooled_rmse(variances: Any) -> float:
    """Expected pooled RMSE ``sqrt(sum of variances / number of cells)`` over one or several tables
    of cell variances (the cells of all features pooled, as the authors' evaluation scripts do)."""
    arrs = (
        [np.asarray(variances, dtype=float)]
        if isinstance(variances, np.ndarray)
        else [np.asarray(v, dtype=float) for v in variances]
    )
    total = sum(float(a.sum()) for a in arrs)
    cells = sum(a.size for a in arrs)
    if cells == 0:
        raise ValueError("variances is empty")
    return math.sqrt(total / cells)
