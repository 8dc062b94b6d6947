"""The three frameworks for multi-class frequency estimation: HEC, PTJ and PTS.

Mao et al. (Sec. III and VI-A).  Every user holds one label-item pair
``(C, I)`` with ``C`` in ``{0..c-1}`` and ``I`` in ``{0..d-1}``; the server wants
the ``c x d`` table ``f(C, I)`` of pair counts under ε-LDP on the whole pair.

* :class:`HEC` (the strawman): users are split at random into ``c`` groups and
  group ``j`` estimates the items of class ``j`` with the full budget.  A user of
  group ``j`` whose label is not ``j`` is *invalid*; she reports a dummy item
  ``d`` (oracle over ``d + 1`` values), or, as the paper's text says, a uniformly
  random real item (which biases the estimator, see :func:`ldp.multiclass.variance.hec_random_item_bias`).
* :class:`PTJ`: the pair is one value of the product domain of size ``c·d``,
  perturbed by the adaptive oracle (GRR or OUE) with the full budget.
* :class:`PTS`: the label is perturbed by GRR(ε1) and the item by OUE(ε2) (or, as an
  option, by the adaptive GRR/OUE choice at ε2) independently, ``ε1 + ε2 = ε``;
  Eq. (6) of the paper calibrates the counts.

The correlated-perturbation framework PTS-CP lives in :mod:`ldp.multiclass.validity`
and shares the interface defined here (:class:`MulticlassFramework`).

Every framework speaks the vocabulary of :class:`ldp.mechanism.Mechanism`, so that tests can tie
the routes together:

* ``perturb(labels, items, rng)``: per-user reports (vectorised over users);
* ``support_counts(reports)``: the server's raw counts, a :class:`Tallies`;
* ``simulate_counts(table, rng)``: the same :class:`Tallies` drawn *exactly in distribution*
  from the true ``c x d`` table, without per-user work (:mod:`ldp.multiclass.samplers`);
* ``estimate_counts(tallies)``: the raw unbiased ``c x d`` estimate of the pair *counts*.

``variance(n, f)`` gives the exact variance of every cell of the count estimate for ``n`` users
with pair frequencies ``f`` (the true table is ``n f``; :mod:`ldp.multiclass.variance`) and
``channel()`` the full ``P(report | pair)`` matrix on small domains.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (
    as_generator,
    check_codes,
    check_domain_size,
    check_epsilon,
    check_frequency_values,
    check_int,
    check_report_pair,
    check_support_counts,
    check_table,
)
from ..mechanism import Mechanism
from ..oracles import GRR, OUE, FrequencyOracle, adaptive_oracle
from ..tables import ProductDomain
from . import samplers, variance

__all__ = [
    "Tallies",
    "MulticlassFramework",
    "HEC",
    "PTJ",
    "PTS",
    "split_budget",
    "check_pairs",
    "check_table",
    "pairs_to_table",
    "table_to_pairs",
]


# ---------------------------------------------------------------------------- validation helpers
def split_budget(epsilon: float, epsilon1: float | None = None, epsilon2: float | None = None) -> tuple[float, float]:
    """Split ``epsilon`` into a label budget ``ε1`` and an item budget ``ε2`` with ``ε1 + ε2 = ε``.

    The paper's default is ``ε1 = ε2 = ε/2`` (Sec. IV-B).  Give one part and the
    other is the remainder; give both and they must add up to ``epsilon``
    (relative tolerance 1e-9), otherwise a ``ValueError`` is raised, because the
    sequential composition of Theorem 2 only guarantees ``ε1 + ε2``.
    """
    eps = check_epsilon(epsilon)
    if epsilon1 is None and epsilon2 is None:
        return eps / 2, eps / 2
    if epsilon1 is not None:
        e1 = check_epsilon(epsilon1, "epsilon1")
    if epsilon2 is not None:
        e2 = check_epsilon(epsilon2, "epsilon2")
    if epsilon1 is None:
        e1 = eps - e2
    elif epsilon2 is None:
        e2 = eps - e1
    if e1 <= 0 or e2 <= 0:
        raise ValueError(
            f"epsilon1 and epsilon2 must both be > 0 and add up to epsilon={eps!r}; "
            f"got epsilon1={e1!r}, epsilon2={e2!r}"
        )
    if not math.isclose(e1 + e2, eps, rel_tol=1e-9, abs_tol=1e-12):
        raise ValueError(f"epsilon1 + epsilon2 must equal epsilon={eps!r}, got {e1!r} + {e2!r} = {e1 + e2!r}")
    return e1, e2


def check_pairs(labels: Any, items: Any, c: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate a population of label-item pairs: integer codes, same length, inside the domains."""
    lab = check_codes(labels, c, "labels")
    itm = check_codes(items, d, "items")
    if lab.size != itm.size:
        raise ValueError(f"labels and items must have the same length, got {lab.size} and {itm.size}")
    return lab, itm


def pairs_to_table(labels: Any, items: Any, c: int, d: int) -> np.ndarray:
    """The ``c x d`` table of true pair counts of a population."""
    cells = ProductDomain((check_domain_size(c, "c"), check_domain_size(d, "d")), ("labels", "items"))
    return np.bincount(cells.encode(labels, items), minlength=cells.size).reshape(cells.sizes)


def table_to_pairs(table: Any, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """One user per unit of ``table``: ``(labels, items)`` int32 arrays, in random order if ``rng`` is given."""
    arr = check_table(table)
    c, d = arr.shape
    joint = np.repeat(np.arange(c * d, dtype=np.int64), arr.ravel())
    if rng is not None:
        as_generator(rng).shuffle(joint)
    labels, items = ProductDomain((c, d)).decode(joint)
    return labels.astype(np.int32), items.astype(np.int32)


# ---------------------------------------------------------------------------- tallies
@dataclass(frozen=True)
class Tallies:
    """The server's raw counts for one run of a framework (what ``estimate_counts`` needs).

    Attributes
    ----------
    N : int
        Number of users.
    pair : ndarray, shape (c, d)
        Collected pair counts ``f~(C, I)`` (meaning depends on the framework: for HEC
        row ``j`` is the support count of group ``j``; for PTJ the joint support counts).
    label : ndarray, shape (c,) or None
        Collected label counts ``n~(C)`` (PTS, CP).
    item : ndarray, shape (d,) or None
        Collected item counts ``T~(I)`` (PTS).
    group : ndarray, shape (c,) or None
        Group sizes ``N_j`` (HEC).
    """

    N: int
    pair: np.ndarray
    label: np.ndarray | None = None
    item: np.ndarray | None = None
    group: np.ndarray | None = None


# ---------------------------------------------------------------------------- base class
class MulticlassFramework(Mechanism):
    """Common interface of :class:`ldp.mechanism.Mechanism` for label-item pairs.

    ``true_counts`` is the ``c x d`` table of pair counts, the counts are a :class:`Tallies`
    and the estimate is the ``c x d`` table of pair counts (``estimand = "counts"``).

    Parameters
    ----------
    epsilon : float
        Total privacy budget of one user's report (finite, > 0).
    c : int
        Number of classes, >= 2.
    d : int
        Number of items, >= 2.
    """

    name = "framework"
    estimand = "counts"
    has_count_sampler = True

    def __init__(self, epsilon: float, c: int, d: int) -> None:
        super().__init__(epsilon)
        self.c = check_domain_size(c, "c")
        self.d = check_domain_size(d, "d")

    # client / server / count-level routes
    @abstractmethod
    def perturb(self, labels: Any, items: Any, rng: Any = None) -> Any:
        """Per-user reports for the population ``(labels, items)``."""

    @abstractmethod
    def support_counts(self, reports: Any) -> Tallies:
        """The server's raw counts from the reports."""

    @abstractmethod
    def simulate_counts(self, true_counts: Any, rng: Any = None) -> Tallies:
        """Raw counts drawn exactly in distribution from the true ``c x d`` table."""

    def estimate_counts(self, counts: Tallies, n: int | None = None) -> np.ndarray:
        """Raw unbiased ``c x d`` estimate of the pair counts from a :class:`Tallies`."""
        if not isinstance(counts, Tallies):
            raise TypeError(f"counts must be a Tallies, got {type(counts).__name__}")
        if n is not None and check_int(n, "n", minimum=1) != counts.N:
            raise ValueError(f"n={n} differs from the number of users in the tallies, {counts.N}")
        return self._estimate(self._check_tallies(counts))

    def _check_tallies(self, counts: Tallies) -> Tallies:
        """The tallies with every field checked: ``N`` an integer >= 1; ``pair`` a ``(c, d)`` table and ``item``
        a length-``d`` vector of counts in ``[0, N]``; ``label`` and ``group`` length-``c`` counts summing to ``N``
        (every user reports one label and belongs to one group; a group has at least one user).  Real-valued
        tallies (expectations) are accepted: sums are compared within a relative 1e-9."""
        N = check_int(counts.N, "counts.N", minimum=1)
        pair = check_support_counts(np.ravel(counts.pair), self.c * self.d, N, "counts.pair")
        if np.shape(counts.pair) != (self.c, self.d):
            raise ValueError(f"counts.pair must have shape ({self.c}, {self.d}), got {np.shape(counts.pair)}")
        fields = {"pair": pair.reshape(self.c, self.d)}
        if counts.item is not None:
            fields["item"] = check_support_counts(counts.item, self.d, N, "counts.item")
        for name in ("label", "group"):
            value = getattr(counts, name)
            if value is not None:
                arr = check_support_counts(value, self.c, N, f"counts.{name}")
                if not math.isclose(math.fsum(arr), N, rel_tol=1e-9):  # expected (real) tallies sum to N too
                    raise ValueError(f"counts.{name} must sum to counts.N={N}, got {arr.sum():g}")
                fields[name] = arr
        if counts.group is not None and np.any(fields["group"] < 1):
            raise ValueError(f"counts.group must give every group at least one user, got {counts.group!r}")
        return Tallies(N=N, **fields)

    @abstractmethod
    def _estimate(self, tallies: Tallies) -> np.ndarray:
        """The framework's estimator (inputs validated by :meth:`estimate_counts`)."""

    @abstractmethod
    def _variance(self, table: np.ndarray) -> np.ndarray:
        """Exact variance of every cell for the (real-valued) true table."""

    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact variance of every cell of the count estimate for ``n`` users with pair frequencies ``f``."""
        return self._variance(self._true_table(n, f))

    def _true_table(self, n: Any, f: Any) -> np.ndarray:
        n = check_int(n, "n", minimum=1)
        freq = check_frequency_values(f, "f")
        if freq.shape != (self.c, self.d):
            raise ValueError(f"f must have shape ({self.c}, {self.d}), got {freq.shape}")
        if abs(float(freq.sum()) - 1.0) > 1e-9:
            raise ValueError(f"f must sum to 1 (pair frequencies), got {float(freq.sum())!r}")
        return n * freq

    def population(self, true_counts: Any) -> tuple[np.ndarray, np.ndarray]:
        """One user per unit of the ``c x d`` table: ``(labels, items)``."""
        return table_to_pairs(self._table(true_counts))

    def run(self, table: Any, rng: Any = None) -> np.ndarray:
        """One count-level run: ``estimate_counts(simulate_counts(table, rng))``."""
        return self.estimate_counts(self.simulate_counts(table, rng))

    def channel(self) -> np.ndarray:
        """``P(report | pair)`` with rows ordered ``C·d + I`` (small domains only)."""
        raise ValueError(f"{type(self).__name__} has no single enumerable channel")

    def _table(self, table: Any) -> np.ndarray:
        return check_table(table, self.c, self.d, "true_counts")

    def _pairs(self, labels: Any, items: Any) -> tuple[np.ndarray, np.ndarray]:
        return check_pairs(labels, items, self.c, self.d)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, c={self.c}, d={self.d})"


# ---------------------------------------------------------------------------- HEC
class HEC(MulticlassFramework):
    """Hierarchical-each-class strawman (Mao et al., Sec. III and VI-A).

    Users are shuffled and cut into ``c`` groups of (almost) equal size; group ``j``
    runs a frequency oracle (the adaptive GRR/OUE choice) with the full ``epsilon``
    over the items, and only its users of class ``j`` are valid.

    Parameters
    ----------
    epsilon, c, d : see :class:`MulticlassFramework`.
    invalid : {"dummy", "random"}
        What an invalid user reports.  ``"dummy"`` (the authors' code): an extra item
        ``d``, the oracle runs over ``d + 1`` values, and the estimator is unbiased.
        ``"random"`` (the paper's text): a uniformly random real item, oracle over
        ``d`` values; the same estimator is then biased by ``(N - n_C)/d``.

    Notes
    -----
    Estimator: with ``N_j`` users in group ``j`` and support count ``f~(j, I)``,

        f^(j, I) = (N / N_j) · (f~(j, I) - N_j q) / (p - q),

    which is the paper's ``(c f~ - N q)/(p - q)`` when ``N_j = N/c``.  It is unbiased
    because the group is a uniformly random subset of size ``N_j``.
    """

    name = "HEC"

    def __init__(self, epsilon: float, c: int, d: int, *, invalid: str = "dummy") -> None:
        super().__init__(epsilon, c, d)
        if invalid not in ("dummy", "random"):
            raise ValueError(f"invalid must be 'dummy' or 'random', got {invalid!r}")
        self.invalid = invalid
        self.oracle: FrequencyOracle = adaptive_oracle(self.epsilon, self.d + 1 if invalid == "dummy" else self.d)

    def group_sizes(self, N: int) -> np.ndarray:
        """Sizes of the ``c`` groups of an ``N``-user population (``np.array_split`` convention)."""
        if N < self.c:
            raise ValueError(f"HEC needs at least c={self.c} users (one per group), got N={N}")
        base, extra = divmod(N, self.c)
        return np.array([base + (1 if j < extra else 0) for j in range(self.c)], dtype=np.int64)

    def perturb(self, labels: Any, items: Any, rng: Any = None) -> tuple[np.ndarray, Any]:
        """Returns ``(group, reports)``: each user's group and the oracle reports in user order."""
        lab, itm = self._pairs(labels, items)
        gen = as_generator(rng)
        sizes = self.group_sizes(lab.size)
        group = np.repeat(np.arange(self.c), sizes)[gen.permutation(lab.size)]
        valid = lab == group
        if self.invalid == "dummy":
            value = np.where(valid, itm, self.d)
        else:
            value = np.where(valid, itm, gen.integers(0, self.d, size=lab.size))
        return group, self.oracle.perturb(value, gen)

    def support_counts(self, reports: tuple[np.ndarray, Any]) -> Tallies:
        group, rep = check_report_pair(reports, "reports", "(group, reports)")
        group = check_codes(group, self.c, "group")
        pair = np.zeros((self.c, self.d), dtype=np.int64)
        rep_arr = np.asarray(rep)
        for j in range(self.c):
            pair[j] = self.oracle.support_counts(rep_arr[group == j])[: self.d]
        return Tallies(N=int(group.size), pair=pair, group=np.bincount(group, minlength=self.c))

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> Tallies:
        """Exact: multivariate-hypergeometric group split, then the oracle's count sampler per group."""
        tab = self._table(true_counts)
        gen = as_generator(rng)
        N = int(tab.sum())
        sizes = self.group_sizes(N)
        parts = samplers.split_table(tab, sizes, gen)
        pair = np.zeros((self.c, self.d), dtype=np.int64)
        for j, part in enumerate(parts):
            valid = part[j]
            n_inv = int(sizes[j] - valid.sum())
            if self.invalid == "dummy":
                counts = self.oracle.simulate_counts(np.append(valid, n_inv), gen)
            else:
                counts = self.oracle.simulate_counts(valid + gen.multinomial(n_inv, np.full(self.d, 1.0 / self.d)), gen)
            pair[j] = counts[: self.d]
        return Tallies(N=N, pair=pair, group=sizes)

    def _estimate(self, tallies: Tallies) -> np.ndarray:
        if tallies.group is None:
            raise ValueError("HEC tallies need the group sizes (tallies.group)")
        Nj = np.asarray(tallies.group, dtype=float)[:, None]
        p, q = self.oracle.p, self.oracle.q
        return (tallies.N / Nj) * (tallies.pair - Nj * q) / (p - q)

    def _variance(self, table: np.ndarray) -> np.ndarray:
        return variance.hec_variance(table, self.epsilon, invalid=self.invalid)

    def channel(self, group: int = 0) -> np.ndarray:
        """Channel of a user assigned to ``group``: rows ``C·d + I``, columns the oracle's outputs."""
        if not (0 <= int(group) < self.c):
            raise ValueError(f"group must lie in 0..{self.c - 1}, got {group!r}")
        P = self.oracle.channel()
        rows = []
        for C in range(self.c):
            for I in range(self.d):
                if C == group:
                    rows.append(P[I])
                elif self.invalid == "dummy":
                    rows.append(P[self.d])
                else:
                    rows.append(P.mean(axis=0))
        return np.array(rows)


# ---------------------------------------------------------------------------- PTJ
class PTJ(MulticlassFramework):
    """Perturbation of the joint pair (Mao et al., Sec. III and VI-A).

    The pair ``(C, I)`` is the value ``C·d + I`` of a domain of size ``c·d``,
    perturbed by :func:`ldp.oracles.adaptive_oracle` (GRR when ``c·d < 3e^ε + 2``, else
    OUE) with the full budget, and estimated by ``(f~ - N q)/(p - q)`` with the
    ``p, q`` **of the joint domain** (the authors' script used those of ``d``; see the
    experiments notebook).
    """

    name = "PTJ"

    def __init__(self, epsilon: float, c: int, d: int) -> None:
        super().__init__(epsilon, c, d)
        self.oracle: FrequencyOracle = adaptive_oracle(self.epsilon, self.c * self.d)

    def perturb(self, labels: Any, items: Any, rng: Any = None) -> Any:
        lab, itm = self._pairs(labels, items)
        return self.oracle.perturb(lab * self.d + itm, as_generator(rng))

    def support_counts(self, reports: Any) -> Tallies:
        support = self.oracle.support_counts(reports)
        return Tallies(N=self.oracle.n_reports(reports), pair=np.asarray(support).reshape(self.c, self.d))

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> Tallies:
        tab = self._table(true_counts)
        support = self.oracle.simulate_counts(tab.ravel(), as_generator(rng))
        return Tallies(N=int(tab.sum()), pair=support.reshape(self.c, self.d))

    def _estimate(self, tallies: Tallies) -> np.ndarray:
        p, q = self.oracle.p, self.oracle.q
        return (tallies.pair - tallies.N * q) / (p - q)

    def _variance(self, table: np.ndarray) -> np.ndarray:
        return variance.ptj_variance(table, self.epsilon)

    def channel(self) -> np.ndarray:
        return self.oracle.channel()


# ---------------------------------------------------------------------------- PTS
class PTS(MulticlassFramework):
    """Perturbation of label and item separately: GRR(ε1) on the label, OUE(ε2) on the item.

    Mao et al., Theorem 9, Eq. (6).  With ``n~`` the reported label counts,
    ``T~`` the item support counts and ``f~(C, I)`` the number of users reporting
    label ``C`` *and* supporting item ``I``,

        n^ = (n~ - N q1)/(p1 - q1),    F^ = (T~ - N q2)/(p2 - q2),
        f^ = (f~ - n^ q2 (p1 - q1) - F^ q1 (p2 - q2) - N q1 q2) / ((p1 - q1)(p2 - q2)).

    Parameters
    ----------
    epsilon, c, d : see :class:`MulticlassFramework`.
    epsilon1, epsilon2 : float, optional
        Budget split, see :func:`split_budget` (default ``ε/2`` each).
    item_oracle : {"oue", "adaptive"}
        ``"oue"`` (default): the item goes through OUE(ε2), as in the paper's PTS and
        its experiments (the authors' PTS.py).  ``"adaptive"``: GRR or OUE by
        :func:`ldp.oracles.adaptive_oracle` (ε2, d), the "GRR/OUE" reading of the framework;
        it picks GRR only for small item domains (``d < 3e^ε2 + 2``).

    Notes
    -----
    Eq. (6) only uses that a user's label report and item report are independent and
    that the item report supports her own item with probability ``p2`` and any other
    with ``q2``; both item oracles satisfy this, so the estimator, the exact variance
    (:func:`ldp.multiclass.variance.pts_variance`) and the count-level sampler are shared.
    """

    name = "PTS"

    def __init__(
        self,
        epsilon: float,
        c: int,
        d: int,
        *,
        epsilon1: float | None = None,
        epsilon2: float | None = None,
        item_oracle: str = "oue",
    ) -> None:
        super().__init__(epsilon, c, d)
        self.epsilon1, self.epsilon2 = split_budget(self.epsilon, epsilon1, epsilon2)
        if item_oracle not in ("oue", "adaptive"):
            raise ValueError(f"item_oracle must be 'oue' or 'adaptive', got {item_oracle!r}")
        self.item_oracle_choice = item_oracle
        self.label_oracle = GRR(self.epsilon1, self.c)
        self.item_oracle: FrequencyOracle = (
            OUE(self.epsilon2, self.d) if item_oracle == "oue" else adaptive_oracle(self.epsilon2, self.d)
        )

    def perturb(self, labels: Any, items: Any, rng: Any = None) -> tuple[np.ndarray, Any]:
        """Returns ``(reported labels, item reports)``: an ``n x d`` boolean matrix for OUE, codes for GRR."""
        lab, itm = self._pairs(labels, items)
        gen = as_generator(rng)
        return self.label_oracle.perturb(lab, gen), self.item_oracle.perturb(itm, gen)

    def support_counts(self, reports: tuple[np.ndarray, Any]) -> Tallies:
        lab, rep = check_report_pair(reports, "reports", "(reported labels, item reports)")
        lab = check_codes(lab, self.c, "reported labels")
        rep = np.asarray(rep)
        if self.item_oracle.n_reports(rep) != lab.size:
            raise ValueError(f"item reports must describe {lab.size} users, got shape {rep.shape}")
        pair = np.stack([self.item_oracle.support_counts(rep[lab == C]) for C in range(self.c)]).astype(np.int64)
        return Tallies(N=int(lab.size), pair=pair, label=np.bincount(lab, minlength=self.c), item=pair.sum(axis=0))

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> Tallies:
        """Exact: reported labels per (label, item) cell, then the item oracle's count sampler per reported class.

        Given the reported labels, the item reports of the users reporting ``C'`` are
        independent of everything else, so their support counts are the oracle's
        ``simulate_counts`` of those users' items (:meth:`ldp.oracles.UnaryEncoding.simulate_counts`
        or :meth:`ldp.oracles.GRR.simulate_counts`), independently over ``C'``.
        """
        tab = self._table(true_counts)
        gen = as_generator(rng)
        moved = samplers.grr_reported_labels(tab, self.label_oracle.p, self.label_oracle.q, gen)  # (c, d, c)
        by_report = moved.sum(axis=0).T  # (c', d): users reporting c' holding item i
        label = by_report.sum(axis=1)
        pair = np.zeros((self.c, self.d), dtype=np.int64)
        for C in range(self.c):
            if label[C] > 0:
                pair[C] = self.item_oracle.simulate_counts(by_report[C], gen)
        return Tallies(N=int(tab.sum()), pair=pair, label=label, item=pair.sum(axis=0))

    def _estimate(self, tallies: Tallies) -> np.ndarray:
        if tallies.label is None or tallies.item is None:
            raise ValueError("PTS tallies need label and item counts")
        p1, q1 = self.label_oracle.p, self.label_oracle.q
        p2, q2 = self.item_oracle.p, self.item_oracle.q
        N = tallies.N
        n_hat = (tallies.label - N * q1) / (p1 - q1)
        F_hat = (tallies.item - N * q2) / (p2 - q2)
        num = tallies.pair - n_hat[:, None] * q2 * (p1 - q1) - F_hat[None, :] * q1 * (p2 - q2) - N * q1 * q2
        return num / ((p1 - q1) * (p2 - q2))

    def _variance(self, table: np.ndarray) -> np.ndarray:
        return variance.pts_variance(table, self.epsilon1, self.epsilon2, item_oracle=self.item_oracle_choice)

    def channel(self) -> np.ndarray:
        """Rows ``C·d + I``; columns ``C'·m + y`` with ``m`` the item oracle's outputs (``2^d`` bit vectors for
        OUE, bit ``v`` of ``y`` being item bit ``v``; the ``d`` reported items for GRR)."""
        L = self.label_oracle.channel()
        B = self.item_oracle.channel()
        return np.einsum("ab,ij->aibj", L, B).reshape(self.c * self.d, -1)
