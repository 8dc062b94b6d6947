"""The frequency oracles side by side: one instance of each, their parameters, their audited channels, and the
zero-frequency variance trial of the classic comparison of Wang et al. (2017).

These are the primer's tables and its simulation, kept here so the notebook only calls them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._checks import check_channel, check_domain_size, check_int
from ..audit import channel_epsilon
from . import make
from .base import FrequencyOracle
from .bloom import full_rank_seed
from .local_hash import LocalHashing

__all__ = ["STANDARD_ORACLES", "standard_oracles", "parameter_table", "audit_channels", "zero_frequency_trial"]

#: the nine oracles the primer compares, in the order of its tables
STANDARD_ORACLES = ("GRR", "SUE", "OUE", "BLH", "OLH", "SS", "HR", "RAPPOR", "EXP")


def standard_oracles(epsilon: float, d: int, names: Sequence[str] = STANDARD_ORACLES) -> dict[str, FrequencyOracle]:
    """One instance of every oracle in ``names`` at budget ``epsilon`` on ``d`` values, keyed by name.

    Every oracle takes its defaults, except Bloom RAPPOR: ``m = 2d`` bits, ``h = 2`` hashes and the first hash
    seed whose Bloom matrix has rank ``d`` (:func:`~ldp.oracles.bloom.full_rank_seed`), so that its
    least-squares estimator is defined.
    """
    d = check_domain_size(d)
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise TypeError(f"names must be a sequence of oracle names, got {names!r}")
    out = {}
    for name in names:
        options = dict(m=2 * d, h=2, hash_seed=full_rank_seed(d, 2 * d, 2)) if name.upper() == "RAPPOR" else {}
        out[name] = make(name, epsilon, d, **options)
    return out


def parameter_table(oracles: Mapping[str, FrequencyOracle], n: int = 1) -> pd.DataFrame:
    """``p``, ``q`` and ``n·Var*`` of a value of frequency 0 for every oracle, one row per name.

    ``Var*`` is the closed-form variance of the oracle's estimate with ``n`` users; for oracles whose variance
    differs between values (Bloom RAPPOR) the row gives its mean over the values.
    """
    n = check_int(n, "n", minimum=1)
    rows = [
        {"oracle": name, "p": o.p, "q": o.q, "n Var* (f=0)": float(np.mean(o.variance(n, 0.0))) * n}
        for name, o in oracles.items()
    ]
    return pd.DataFrame(rows).set_index("oracle")


def audit_channels(oracles: Mapping[str, FrequencyOracle], prime: int = 7) -> pd.DataFrame:
    """The exact privacy audit of every oracle's channel, one row per name.

    Each channel is enumerated, checked to be row-stochastic (a ValueError otherwise) and audited with
    :func:`ldp.audit.channel_epsilon`.  Local hashing is enumerated over the whole hash family of the prime
    ``prime`` (the hash function drawn is part of the report).  Columns: the nominal ``ε``, the number of
    outputs, the largest deviation of a row sum from 1, and the audited ``ε``.
    """
    prime = check_int(prime, "prime", minimum=2)
    rows = []
    for name, o in oracles.items():
        P = o.channel(prime=prime) if isinstance(o, LocalHashing) else o.channel()
        check_channel(P, atol=1e-9)
        rows.append(
            {
                "oracle": name,
                "nominal ε": o.epsilon,
                "outputs": P.shape[1],
                "max |row sum - 1|": float(np.abs(P.sum(axis=1) - 1).max()),
                "audited ε": channel_epsilon(P),
            }
        )
    return pd.DataFrame(rows).set_index("oracle")


def zero_frequency_trial(method: str, epsilon: float, d: int, n: int, rng: Any = None) -> dict[str, float]:
    """One trial of the classic comparison: ``n`` times the mean squared estimate over the values of frequency 0.

    The ``n`` users spread evenly over the first ``ceil(d/2)`` values (the remainder on value 0); the oracle
    ``method`` (a name for :func:`ldp.oracles.make`) estimates every frequency from its support counts, drawn
    by :meth:`~ldp.oracles.FrequencyOracle.sample_support`.  The values of the second half have frequency 0, so
    the mean of their squared estimates is an unbiased estimate of ``Var*`` there.  Returns ``{"nvar": ...}``,
    a row for :func:`ldp.sweep.sweep`.
    """
    o = make(method, epsilon, d)
    n = check_int(n, "n", minimum=1)
    half = (o.d + 1) // 2
    counts = np.zeros(o.d, dtype=np.int64)
    counts[:half] = n // half
    counts[0] += n - counts.sum()
    est = o.estimate_counts(o.sample_support(counts, rng), n)
    return {"nvar": n * float(np.mean(est[half:] ** 2))}
