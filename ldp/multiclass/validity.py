"""Validity perturbation (VP) and correlated perturbation (CP), with exact estimators.

Mao et al., Sec. IV.

**VP** (Sec. IV-A, Theorem 1).  A report is a unary encoding of length ``d + 1``:
a valid user sets the bit of her item, an *invalid* user (her item was pruned, or
her label flipped) sets only the last bit, the *validity flag*.  All ``d + 1`` bits
go through OUE (``p = 1/2``, ``q = 1/(e^ε + 1)``), so VP is exactly OUE over
``d + 1`` values and is ε-LDP with no extra budget.  The server drops every report
whose perturbed flag is 1; an invalid user then only adds noise ``q(1 - p)`` to a
bit instead of the ``q + (p - q)/d`` of random replacement (Theorems 4 and 5).

**CP** (Sec. IV-B, Theorems 2, 3, 8).  The label goes through GRR(ε1); a user whose
label flipped is invalid for VP(ε2) on the item.  She knows whether it flipped, the
server does not: that is the whole trick.  The server counts a pair ``(C, I)``
only when the reported label is ``C``, bit ``I`` is 1 *and* the flag is 0, and
calibrates with the class size estimated from the same reports (Eq. (4)).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._checks import as_generator, check_codes, check_counts, check_domain_size, check_int, check_support_counts
from ..mechanism import Mechanism
from ..oracles import GRR, OUE
from . import samplers, variance
from .frameworks import MulticlassFramework, Tallies, split_budget

__all__ = ["VP", "VPCounts", "CP"]


class VPCounts(NamedTuple):
    """The server's counts of validity perturbation (what :meth:`VP.estimate_counts` needs)."""

    kept: np.ndarray  #: reports with bit ``I`` set among those whose flag is 0, for ``I < d``
    flagged: int  #: reports whose perturbed flag is 1 (dropped)
    n: int  #: all reports


class VP(Mechanism):
    """Validity perturbation over ``d`` valid values plus the validity flag (Mao et al., Sec. IV-A).

    Parameters
    ----------
    epsilon : float
        Budget; the bit probabilities are OUE's, ``p = 1/2`` and ``q = 1/(e^ε + 1)``.
    d : int
        Number of valid values (positions); the flag is position ``d``.

    Notes
    -----
    Unbiased estimator (derived here, not in the paper): with
    ``n`` reports, ``c_I`` the kept reports with bit ``I`` set and ``c_flag`` the
    reports whose flag is set, the invalid count is ``m^ = (c_flag - n q)/(p - q)``
    and

        f^_I = [c_I - (1 - q) q (n - m^) - m^ q (1 - p)] / [(1 - q)(p - q)],

    because ``E c_I = (1-q)[f_I p + (n - m - f_I) q] + m q (1 - p)``.
    """

    name = "VP"
    estimand = "counts"
    has_count_sampler = True

    def __init__(self, epsilon: float, d: int) -> None:
        super().__init__(epsilon)
        self.d = check_domain_size(d)
        self.oracle = OUE(self.epsilon, self.d + 1)

    @property
    def p(self) -> float:
        return self.oracle.p

    @property
    def q(self) -> float:
        return self.oracle.q

    def encode(self, values: Any, valid: Any) -> np.ndarray:
        """The position of each user's 1: her value if valid, else the flag ``d``."""
        v = check_codes(values, self.d, "values")
        ok = np.asarray(valid)
        if ok.dtype != bool or ok.shape != v.shape:
            raise ValueError(f"valid must be a boolean array of shape {v.shape}, got {ok.dtype} {ok.shape}")
        return np.where(ok, v, self.d)

    def perturb(self, values: Any, valid: Any, rng: Any = None) -> np.ndarray:
        """``n x (d + 1)`` boolean reports (last column = perturbed flag)."""
        return self.oracle.perturb(self.encode(values, valid), as_generator(rng))

    def population(self, true_counts: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(values, valid)`` of one user per unit of ``true_counts`` (``d`` valid counts, then the invalid)."""
        counts = check_counts(true_counts, self.d + 1, "true_counts")
        pos = np.repeat(np.arange(self.d + 1, dtype=np.int64), counts)
        valid = pos < self.d
        return np.where(valid, pos, 0), valid

    def support_counts(self, reports: Any) -> VPCounts:
        """:class:`VPCounts` ``(kept, flagged, n)``: kept reports with bit I set, flagged reports, all reports."""
        bits = np.asarray(reports)
        if bits.dtype != bool and not (
            np.issubdtype(bits.dtype, np.integer) and (bits.size == 0 or (bits.min() >= 0 and bits.max() <= 1))
        ):
            raise TypeError(f"reports must be a boolean (or 0/1) matrix, got dtype {bits.dtype}")
        bits = bits.astype(bool)
        if bits.ndim != 2 or bits.shape[1] != self.d + 1:
            raise ValueError(f"reports must have shape (n, {self.d + 1}), got {bits.shape}")
        flag = bits[:, self.d]
        return VPCounts(bits[~flag, : self.d].sum(axis=0).astype(np.int64), int(flag.sum()), int(bits.shape[0]))

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> VPCounts:
        """The same :class:`VPCounts` as :meth:`support_counts`, drawn exactly.

        Drawn by :func:`~ldp.multiclass.samplers.vp_counts`.

        ``true_counts`` has length ``d + 1``: the valid users at each position, then the invalid users.
        """
        counts = check_counts(true_counts, self.d + 1, "true_counts")
        if counts.sum() == 0:
            raise ValueError("true_counts sums to 0: at least one user is needed")
        kept, dropped = samplers.vp_counts(counts[: self.d], int(counts[self.d]), self.p, self.q, as_generator(rng))
        return VPCounts(kept, dropped, int(counts.sum()))

    def estimate_counts(self, counts: Any, n: int | None = None) -> np.ndarray:
        """Unbiased estimate of the number of valid users at every position from :class:`VPCounts` (see Notes)."""
        if not (isinstance(counts, tuple) and len(counts) == 3):
            raise TypeError(f"counts must be a VPCounts (kept, flagged, n), got {type(counts).__name__}")
        kept, flagged, total = counts
        total = check_int(total, "counts.n", minimum=1)
        if n is not None and check_int(n, "n", minimum=1) != total:
            raise ValueError(f"n={n} differs from counts.n={total}")
        flagged = check_int(flagged, "counts.flagged", minimum=0, maximum=total)
        c = check_support_counts(kept, self.d, total - flagged, "counts.kept")
        p, q = self.p, self.q
        m_hat = (flagged - total * q) / (p - q)
        return (c - (1 - q) * q * (total - m_hat) - m_hat * q * (1 - p)) / ((1 - q) * (p - q))

    def variance(self, n: int, f: Any) -> np.ndarray:
        """Exact variance of the estimate at every position, for ``n`` users with frequencies ``f`` (length ``d + 1``).

        ``f[:d]`` are the valid users' positions and ``f[d]`` the invalid share.  The estimate is
        ``sum_u (X_u + kappa F_u) / delta + const`` with ``X_u`` = "kept with bit ``I``" and ``F_u`` =
        "flagged", ``kappa = [(1-q) q - q (1-p)]/(p-q)`` and ``delta = (1-q)(p-q)``; ``X_u F_u = 0``, so
        ``Cov(X, F) = -E X E F`` per user.
        """
        n = check_int(n, "n", minimum=1)
        from .._checks import check_distribution

        if np.ndim(f) != 1:
            raise ValueError(f"f must be a probability vector of length d + 1 = {self.d + 1}, got shape {np.shape(f)}")
        f = check_distribution(f, self.d + 1, "f")
        p, q = self.p, self.q
        kappa = ((1 - q) * q - q * (1 - p)) / (p - q)
        delta = (1 - q) * (p - q)
        inv = f[self.d]
        hold = f[: self.d]  # users valid at I
        other = 1.0 - inv - hold  # valid elsewhere
        ex = np.stack([(1 - q) * p * np.ones(self.d), (1 - q) * q * np.ones(self.d), (1 - p) * q * np.ones(self.d)])
        ef = np.array([q, q, p])[:, None] * np.ones((3, self.d))
        w = np.stack([hold, other, np.full(self.d, inv)])
        per = ex * (1 - ex) + kappa**2 * ef * (1 - ef) - 2 * kappa * ex * ef
        return n * (w * per).sum(axis=0) / delta**2

    def channel(self) -> np.ndarray:
        """``(d + 1) x 2^(d+1)`` channel: rows = values ``0..d-1`` then "invalid" (row ``d``)."""
        return self.oracle.channel()

    def __repr__(self) -> str:
        return f"VP(epsilon={self.epsilon:g}, d={self.d})"


class CP(MulticlassFramework):
    """PTS with correlated perturbation ("PTS-CP", Mao et al., Sec. IV-B, Eq. (4)).

    Parameters
    ----------
    epsilon : float
        Total budget ``ε = ε1 + ε2``.
    c, d : int
        Numbers of classes and items.
    epsilon1, epsilon2 : float, optional
        Label and item budgets (:func:`ldp.multiclass.frameworks.split_budget`; default ``ε/2`` each).

    Notes
    -----
    With ``α = p1(1-q2)p2``, ``β = p1(1-q2)q2``, ``γ = q1(1-p2)q2`` the expected collected
    count is ``E f~ = f α + (n - f) β + (N - n) γ`` (Theorem 3), hence Eq. (4):

        f^ = [f~ - N q1 q2 (1 - p2) - n^ q2 (p1(1-q2) - q1(1-p2))] / [p1 (1-q2)(p2 - q2)],
        n^ = (n~ - N q1)/(p1 - q1).
    """

    name = "PTS-CP"

    def __init__(
        self, epsilon: float, c: int, d: int, *, epsilon1: float | None = None, epsilon2: float | None = None
    ) -> None:
        super().__init__(epsilon, c, d)
        self.epsilon1, self.epsilon2 = split_budget(self.epsilon, epsilon1, epsilon2)
        self.label_oracle = GRR(self.epsilon1, self.c)
        self.vp = VP(self.epsilon2, self.d)

    def perturb(self, labels: Any, items: Any, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Returns ``(reported labels, n x (d+1) boolean VP reports)``."""
        lab, itm = self._pairs(labels, items)
        gen = as_generator(rng)
        rep = self.label_oracle.perturb(lab, gen)
        return rep, self.vp.perturb(itm, rep == lab, gen)

    def support_counts(self, reports: tuple[np.ndarray, np.ndarray]) -> Tallies:
        from .._checks import check_report_pair

        lab, bits = check_report_pair(reports, "reports", "(reported labels, item reports)")
        lab = check_codes(lab, self.c, "reported labels")
        bits = np.asarray(bits, dtype=bool)
        if bits.shape != (lab.size, self.d + 1):
            raise ValueError(f"item reports must have shape ({lab.size}, {self.d + 1}), got {bits.shape}")
        kept = ~bits[:, self.d]
        pair = np.stack([bits[(lab == C) & kept, : self.d].sum(axis=0) for C in range(self.c)]).astype(np.int64)
        return Tallies(N=int(lab.size), pair=pair, label=np.bincount(lab, minlength=self.c))

    def simulate_counts(self, true_counts: Any, rng: Any = None) -> Tallies:
        """Exact: reported labels per cell, then the VP sampler within each reported class.

        Within reported class ``C`` the users whose true label is ``C`` are valid at their
        item and the others (flipped labels) are invalid; VP counts are then exact by
        :func:`ldp.multiclass.samplers.vp_counts`, independently across reported classes.
        """
        tab = self._table(true_counts)
        gen = as_generator(rng)
        moved = samplers.grr_reported_labels(tab, self.label_oracle.p, self.label_oracle.q, gen)  # (c, d, c)
        label = moved.sum(axis=(0, 1))
        pair = np.empty((self.c, self.d), dtype=np.int64)
        for C in range(self.c):
            valid = moved[C, :, C]
            pair[C] = samplers.vp_counts(valid, int(label[C] - valid.sum()), self.vp.p, self.vp.q, gen)[0]
        return Tallies(N=int(tab.sum()), pair=pair, label=label)

    def _estimate(self, tallies: Tallies) -> np.ndarray:
        if tallies.label is None:
            raise ValueError("CP tallies need the label counts")
        p1, q1 = self.label_oracle.p, self.label_oracle.q
        p2, q2 = self.vp.p, self.vp.q
        N = tallies.N
        n_hat = (tallies.label - N * q1) / (p1 - q1)
        num = tallies.pair - N * q1 * q2 * (1 - p2) - n_hat[:, None] * q2 * (p1 * (1 - q2) - q1 * (1 - p2))
        return num / (p1 * (1 - q2) * (p2 - q2))

    def _variance(self, table: np.ndarray) -> np.ndarray:
        """Exact variance including the covariance of ``f~`` and ``n~`` (Eq. (5) leaves it out)."""
        return variance.cp_variance(table, self.epsilon1, self.epsilon2)

    def variance_eq5(self, n: int, f: Any) -> np.ndarray:
        """The paper's Eq. (5) (Theorem 8), which over-estimates the variance (arguments as :meth:`variance`)."""
        return variance.cp_variance_eq5(self._true_table(n, f), self.epsilon1, self.epsilon2)

    def channel(self) -> np.ndarray:
        """Rows ``C·d + I``; columns ``C'·2^(d+1) + bits`` (bit ``d`` of the index is the flag)."""
        L = self.label_oracle.channel()
        V = self.vp.channel()
        rows = []
        for C in range(self.c):
            for I in range(self.d):
                # flag row of VP when the label flipped, item row when it did not
                rows.append(np.concatenate([L[C, C2] * (V[I] if C2 == C else V[self.d]) for C2 in range(self.c)]))
        return np.array(rows)
