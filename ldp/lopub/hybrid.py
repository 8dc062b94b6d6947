"""Lasso+EM_JD: Lasso prunes and initialises, EM refines (Alg. 3 of Ren et al.).

Line 1 runs Lasso_JD; line 2 collects the cells it set to zero; lines 3-12 give
those cells zero likelihood; lines 13-18 run the EM loop of Algorithm 1 from the
Lasso estimate instead of the uniform start.  Here the zero cells are simply
excluded from the support of :func:`ldp.lopub.em.em_joint`, which is the same
thing (a cell with zero prior or zero likelihood has zero posterior forever) and
lets EM evaluate only the ``v'`` surviving cells (Theorems 6-7).

Caveat: a true cell that Lasso zeroes can never come back, so the support of the
result is contained in the support of the Lasso estimate (test T-L5).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .em import EMResult, em_joint
from .lasso import LassoResult, lasso_joint
from .reports import LoPubReports


@dataclass(frozen=True)
class HybridResult:
    """Output of :func:`lasso_em_joint`: the refined joint and both stages' diagnostics."""

    joint: np.ndarray
    lasso: LassoResult
    em: EMResult
    support_size: int

    @property
    def iterations(self) -> int:
        """EM iterations after the Lasso start."""
        return self.em.iterations


def lasso_em_joint(
    reports: LoPubReports,
    attrs: Iterable[int] | int,
    *,
    alpha: float = 1e-5,
    delta: float = 1e-3,
    criterion: str = "linf",
    max_iter: int = 10_000,
    start: LassoResult | None = None,
) -> HybridResult:
    """Lasso+EM_JD for the cluster ``attrs`` (Alg. 3 of Ren et al.).

    If Lasso returns no positive coefficient (its uniform fallback), EM runs on the full
    product domain from the uniform start, i.e. plain EM_JD.  ``start`` is a Lasso_JD
    result already computed on the same reports, attributes and ``alpha`` (line 1 is
    then not repeated; the Lasso fit is deterministic, so the result is the same).
    """
    attrs = reports.attrs(attrs)
    if start is None:
        start = lasso_joint(reports, attrs, alpha=alpha)
    elif tuple(start.attrs) != attrs:
        raise ValueError(f"start is a Lasso estimate of attributes {start.attrs}, not of {attrs}")
    if start.fallback:
        em = em_joint(reports, attrs, delta=delta, criterion=criterion, max_iter=max_iter)
        return HybridResult(em.joint, start, em, int(em.joint.size))
    support = start.joint > 0
    em = em_joint(
        reports, attrs, delta=delta, criterion=criterion, init=start.joint, support=support, max_iter=max_iter
    )
    return HybridResult(em.joint, start, em, int(support.sum()))
