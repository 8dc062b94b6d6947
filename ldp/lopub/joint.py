"""One entry point for the three joint-distribution estimators of LoPub (Sec. 5.3-5.4).

``estimate_joint(reports, attrs, method)`` runs EM_JD (Alg. 1), Lasso_JD (Alg. 2)
or Lasso+EM_JD (Alg. 3) and returns the joint with its wall-clock time and EM
iteration count, so that experiments and the pipeline treat the estimators
uniformly.  The method names are the paper's and are the keys of
``ldp.plotting.style_for``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_choice
from .em import em_joint
from .hybrid import lasso_em_joint
from .lasso import lasso_joint
from .likelihood import likelihood_patterns, scaled_likelihoods
from .reports import LoPubReports

EM = "EM_JD"
LASSO = "Lasso_JD"
LASSO_EM = "Lasso+EM_JD"
METHODS = (EM, LASSO, LASSO_EM)


@dataclass(frozen=True)
class JointEstimate:
    """An estimated joint with its cost: ``seconds`` of wall-clock time, EM ``iterations`` (0 for Lasso)."""

    joint: np.ndarray
    method: str
    attrs: tuple[int, ...]
    seconds: float
    iterations: int
    converged: bool


def check_method(method: Any) -> str:
    return check_choice(method, METHODS, "method")


def estimate_joint(
    reports: LoPubReports,
    attrs: Iterable[int] | int,
    method: str = LASSO_EM,
    *,
    alpha: float = 1e-5,
    delta: float = 1e-3,
    criterion: str = "linf",
    max_iter: int = 10_000,
) -> JointEstimate:
    """Estimate the joint of ``attrs`` with ``method`` in ``("EM_JD", "Lasso_JD", "Lasso+EM_JD")``."""
    method = check_method(method)
    attrs = reports.attrs(attrs)
    start = time.perf_counter()
    if method == EM:
        r = em_joint(reports, attrs, delta=delta, criterion=criterion, max_iter=max_iter)
        joint, it, conv = r.joint, r.iterations, r.converged
    elif method == LASSO:
        r = lasso_joint(reports, attrs, alpha=alpha)
        joint, it, conv = r.joint, 0, r.converged
    else:
        r = lasso_em_joint(reports, attrs, alpha=alpha, delta=delta, criterion=criterion, max_iter=max_iter)
        joint, it, conv = r.joint, r.iterations, r.em.converged
    return JointEstimate(joint, method, attrs, time.perf_counter() - start, it, conv)


def estimate_joints(
    reports: LoPubReports,
    attrs: Iterable[int] | int,
    methods: Sequence[str] = METHODS,
    *,
    alpha: float = 1e-5,
    delta: float = 1e-3,
    criterion: str = "linf",
    max_iter: int = 10_000,
) -> dict[str, JointEstimate]:
    """:func:`estimate_joint` for several methods on the same reports, each timed as if run alone.

    When both Lasso_JD and Lasso+EM_JD are asked for, the Lasso fit (line 1 of Alg. 3 is
    Alg. 2) runs once and serves both; when both EM_JD and Lasso+EM_JD are asked for, the
    likelihood tables of the attributes (and their distinct rows) are built once and serve both EMs.  The time of a
    shared step is charged to every method that uses it, so each ``seconds`` is still the
    cost of that method run alone from an empty cache.  Results equal separate
    :func:`estimate_joint` calls (every step is deterministic).
    """
    methods = [check_method(m) for m in methods]
    attrs = reports.attrs(attrs)
    opts = dict(alpha=alpha, delta=delta, criterion=criterion, max_iter=max_iter)
    out: dict[str, JointEstimate] = {}
    lasso, lasso_seconds = None, 0.0
    if LASSO in methods and LASSO_EM in methods:
        start = time.perf_counter()
        lasso = lasso_joint(reports.uncached(), attrs, alpha=alpha)
        lasso_seconds = time.perf_counter() - start
    shared, lik_seconds = reports.uncached(), 0.0
    share_lik = EM in methods and LASSO_EM in methods
    if share_lik:
        start = time.perf_counter()
        for a in attrs:
            scaled_likelihoods(shared, a)
            likelihood_patterns(shared, a)
        lik_seconds = time.perf_counter() - start
    for method in methods:
        rep = shared if share_lik and method in (EM, LASSO_EM) else reports.uncached()
        extra = lik_seconds if rep is shared else 0.0
        if method == LASSO and lasso is not None:
            out[method] = JointEstimate(lasso.joint, method, attrs, lasso_seconds, 0, lasso.converged)
        elif method == LASSO_EM and lasso is not None:
            start = time.perf_counter()
            r = lasso_em_joint(
                rep, attrs, alpha=alpha, delta=delta, criterion=criterion, max_iter=max_iter, start=lasso
            )
            seconds = lasso_seconds + extra + time.perf_counter() - start
            out[method] = JointEstimate(r.joint, method, attrs, seconds, r.iterations, r.em.converged)
        else:
            r = estimate_joint(rep, attrs, method, **opts)
            out[method] = JointEstimate(r.joint, method, attrs, r.seconds + extra, r.iterations, r.converged)
    return out
