"""Warnings raised by the package (errors are the built-in ``ValueError`` and ``TypeError``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ConvergenceWarning", "fixed_iterations", "warn_not_converged"]


class ConvergenceWarning(UserWarning):
    """An iterative estimator (IBU, EM) stopped at ``max_iter`` before meeting its tolerance.

    The estimate is still returned; raise ``max_iter`` or loosen ``tol`` if the
    iteration should have converged.  Same role as scikit-learn's warning of that name.
    """


def warn_not_converged(converged: bool, method: str, max_iter: int, tol: float) -> None:
    """Emit a :class:`ConvergenceWarning` when ``converged`` is false."""
    if not converged:
        warnings.warn(
            f"{method} stopped at max_iter={max_iter} before the change fell below tol={tol:g}; "
            "raise max_iter or loosen tol",
            ConvergenceWarning,
            stacklevel=3,
        )


@contextmanager
def fixed_iterations() -> Iterator[None]:
    """Silence :class:`ConvergenceWarning` for runs that stop at ``max_iter`` on purpose.

    For instance a worked example that shows EM's first iterate (``max_iter=1``), or a
    comparison of two implementations step by step.  Other warnings still show.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield
