"""The details Yin et al. leave unpublished, and our values under each plausible reading of them.

The paper's experiments depend on choices its text does not fix.  The claims of the
book's experiments chapter are evaluated under every plausible reading of each:

* :data:`EPSILON_GRIDS` -- "7 values between 0.5 and 6" (Sec. 7.4.1): the integers
  {0.5, 1, 2, …, 6} or seven equally spaced values;
* :data:`USER_SHARES` -- which users report the pair behind a figure: every record,
  one randomly sampled feature per user (Sec. 4.2: "each user samples one feature and
  pairs it with the class label"; nursery has 8 features), the 20 % estimation split
  that Sec. 4.2 also mentions, or both;
* the normalisation of the error: Eq. (59) divides by the number of cells, the plain
  Euclidean distance does not (a constant factor ``sqrt(|X||Y|)`` within a panel);
* :func:`fig6_tables` -- "the dataset cut to 2,000, 5,000 and 10,000 records"
  (Sec. 7.4.3): the first N rows of the file, or N records drawn at random.

:func:`quoted_error_replicates` simulates, at count level, the mean ED the paper's text
quotes for CPRR at ε = 0.5 under a given share of reporting users.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_generator, check_epsilon, check_int
from .datasets import JointTable, leading_rows_table, load_table
from .metrics import ed
from .trials import PAPER_EPSILONS, make_mechanism

__all__ = ["EPSILON_GRIDS", "USER_SHARES", "NURSERY_FEATURES", "quoted_error_replicates", "fig6_tables"]

#: nursery's number of features besides the class label (Sec. 7.3: 8 features and 1 class label)
NURSERY_FEATURES = 8

#: the two plausible readings of "7 values between 0.5 and 6" (Sec. 7.4.1)
EPSILON_GRIDS: dict[str, tuple[float, ...]] = {
    "ε ∈ {0.5, 1, 2, …, 6}": tuple(float(e) for e in PAPER_EPSILONS),
    "7 equally spaced ε from 0.5 to 6": tuple(float(e) for e in np.linspace(0.5, 6.0, 7)),
}

#: share of the records that report the figure's pair, under each reading of Sec. 4.2 (nursery)
USER_SHARES: dict[str, float] = {
    "every record reports the pair": 1.0,
    "each user reports one of the 8 features (Sec. 4.2)": 1.0 / NURSERY_FEATURES,
    "only the 20% estimation split reports (Sec. 4.2)": 0.2,
    "20% split, one feature per user": 0.2 / NURSERY_FEATURES,
}


def quoted_error_replicates(
    table: JointTable, mechanism: str, epsilon: float, share: float, trials: int, rng: Any = None
) -> np.ndarray:
    """ED (Eq. 59) of ``trials`` independent runs in which a random ``share`` of the records report.

    Each run draws the number of reporting users as Binomial(N, share) (every user
    independently, as when each user samples one feature at random), the users
    themselves uniformly without replacement, their reports at count level, and
    scores the estimate against the whole table's joint distribution (the quantity the
    collector wants).  ``share = 1`` is every record.  Multiply by ``sqrt(|X||Y|)`` for
    the un-normalised Euclidean distance.
    """
    eps = check_epsilon(epsilon)
    trials = check_int(trials, "trials", minimum=1)
    if not 0.0 < float(share) <= 1.0:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    gen = as_generator(rng)
    mech = make_mechanism(mechanism, eps, table.model)
    f, flat = table.frequencies, table.counts.ravel()
    out = np.empty(trials)
    for i in range(trials):
        n = table.n if share == 1.0 else max(1, int(gen.binomial(table.n, share)))
        sub = flat if n == table.n else gen.multivariate_hypergeometric(flat, n)
        out[i] = ed(f, mech.estimate_counts(mech.simulate_counts(sub.reshape(f.shape), gen)))
    return out


def fig6_tables(sizes: Any, how: str, rng: Any = None) -> dict[int, JointTable]:
    """Nursery's has_nurs×class tables of Fig. 6 cut to each size: ``how`` is ``"first"`` or ``"random"``.

    ``"first"`` takes the first N rows of the (sorted) file and needs the real file;
    ``"random"`` draws N records uniformly without replacement (one fixed draw per size
    from ``rng``).
    """
    if how not in ("first", "random"):
        raise ValueError(f"how must be 'first' or 'random', got {how!r}")
    sizes = [check_int(n, "size", minimum=1) for n in sizes]
    if how == "first":
        return {n: leading_rows_table("fig6", n) for n in sizes}
    gen = as_generator(rng)
    full = load_table("fig6")
    return {n: full.subsample(n, gen) for n in sizes}
