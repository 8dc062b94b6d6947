"""The paper's estimator and variance formulas *as printed*, kept to demonstrate its errata.

Nothing here is used by the mechanisms; :mod:`ldp.uldp.jurr` and
:mod:`ldp.uldp.cprr` implement the corrected forms.  Each function below
evaluates one printed formula of Yin, Zhu & Zhang (2023) on the cells of the
region it is meant for and returns a ``k_x × k_y`` table (NaN outside that
region), so that feeding it the *expected* report counts ``N Pᵀ f`` shows at
once whether it is unbiased.  :func:`errata_table` collects the comparison.

Printed formula → what goes wrong:

* Eq. (23), (S,S) cells: ``(c − b)/(a − b)`` — the counts are not divided by ``N``;
* Algorithm 2 line 5, (S,S) cells: ``c/(N t)`` — the (N,N) formula pasted in;
* Eq. (27), (S,N) cells: the counts lack ``/N`` and the factor ``q/(p−q)`` should be
  ``q/(p + (s_x−1)q) = 1/D_x`` (Algorithm 2 line 9 is correct);
* Eq. (30), (N,S) cells: the same two slips, plus ``q`` where ``n`` is meant;
* Algorithm 2 line 11, (N,S) cells: ``q`` where ``n`` is meant (harmless when
  ``s_x = s_y``, because then ``q = n``);
* Algorithm 4 line 7, CPRR (N,N) cells: ``t`` where ``t'`` is meant;
* Eq. (52) first line: ``Var(c̃)/(N(a−b))`` — the square and one ``N`` are missing;
* Eq. (53), JuRR (N,N) variance, and Eq. (57), CPRR (N,N) variance: the (S,S)
  binomial form copied in; the right value is ``f (1−t)/(N t)``;
* Eqs. (55), (58): "total variance = sum of the region variances" — each cell has
  its own variance; the meaningful total is ``Σ_ij Var f̂_ij = E‖f̂ − f‖²``
  (:func:`var_eq58` evaluates Eq. (58) as printed);
* Algorithms 2 and 4, lines 1-2: the loops visit only ``i ≤ |X_S|, j ≤ |Y_S|``
  (:func:`printed_loop_cells`);
* Eqs. (29) and (32): the partial sums of the non-sensitive counts stop at index
  ``|X_N|`` (``|Y_N|``) instead of ``|X|`` (``|Y|``) (:func:`pi_eq29_bounds`,
  :func:`ip_eq32_bounds`);
* Eq. (60): the MSE divides by the number of users ``N`` instead of the number of
  cells (:func:`ldp.uldp.metrics.mse_eq60`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .cprr import CPRR
from .jurr import JuRR, jurr_parameters

__all__ = [
    "pp_eq23",
    "pp_alg2_line5",
    "pi_eq27",
    "ip_eq30",
    "ip_alg2_line11",
    "cprr_alg4_line7",
    "var_pp_eq52_first_line",
    "var_ii_eq53",
    "var_ii_eq57",
    "var_eq58",
    "errata_table",
    "jurr_algorithm2_as_printed",
    "printed_loop_cells",
    "pi_eq29_bounds",
    "ip_eq32_bounds",
]


def _table(mech: Any, counts: Any) -> tuple[np.ndarray, float]:
    c = np.asarray(counts, dtype=float).reshape(mech.shape)
    return c, float(c.sum())


def _only(region_mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.where(region_mask, values, np.nan)


def pp_eq23(mech: JuRR, counts: Any) -> np.ndarray:
    """Eq. (23) as printed: ``(c̃ − b)/(a − b)`` on (S,S) cells."""
    c, _ = _table(mech, counts)
    pr = mech.params
    return _only(mech.model.region_masks()["PP"], (c - pr.b) / (pr.a - pr.b))


def pp_alg2_line5(mech: JuRR, counts: Any) -> np.ndarray:
    """Algorithm 2 line 5 as printed: ``c̃/(N t)`` on (S,S) cells."""
    c, N = _table(mech, counts)
    return _only(mech.model.region_masks()["PP"], c / (N * mech.params.t))


def pi_eq27(mech: JuRR, counts: Any) -> np.ndarray:
    """Eq. (27) as printed on (S,N) cells (no ``/N`` on ``c̃`` and ``S_Nx``; factor ``q/(p−q)``)."""
    c, N = _table(mech, counts)
    pr, xs, sx = mech.params, mech.model.x.mask, mech.model.sx
    S_N = c[~xs, :].sum(axis=0)[None, :]
    S_S = c[xs, :].sum(axis=0)[None, :]
    est = (c - pr.q / pr.t * S_N - (S_S / N - pr.q / (pr.t * N) * S_N * sx) * pr.q / (pr.p - pr.q)) / (pr.p - pr.q)
    return _only(mech.model.region_masks()["PI"], est)


def ip_eq30(mech: JuRR, counts: Any) -> np.ndarray:
    """Eq. (30) as printed on (N,S) cells (no ``/N`` on ``c̃``; ``q`` for ``n``; factor ``n/(m−n)``)."""
    c, N = _table(mech, counts)
    pr, ys, sy = mech.params, mech.model.y.mask, mech.model.sy
    S_N = c[:, ~ys].sum(axis=1)[:, None]
    S_S = c[:, ys].sum(axis=1)[:, None]
    numerator = c - pr.q / (pr.t * N) * S_N - (S_S / N - pr.n / (pr.t * N) * S_N * sy) * pr.n / (pr.m - pr.n)
    est = numerator / (pr.m - pr.n)
    return _only(mech.model.region_masks()["IP"], est)


def ip_alg2_line11(mech: JuRR, counts: Any) -> np.ndarray:
    """Algorithm 2 line 11 as printed on (N,S) cells: correct except ``q`` where ``n`` is meant."""
    c, N = _table(mech, counts)
    pr, ys, sy = mech.params, mech.model.y.mask, mech.model.sy
    S_N = c[:, ~ys].sum(axis=1)[:, None]
    S_S = c[:, ys].sum(axis=1)[:, None]
    g = pr.n / (pr.m + (sy - 1) * pr.n)
    est = (c / N - pr.q / (pr.t * N) * S_N - (S_S / N - pr.n / (pr.t * N) * S_N * sy) * g) / (pr.m - pr.n)
    return _only(mech.model.region_masks()["IP"], est)


def jurr_algorithm2_as_printed(mech: JuRR, counts: Any) -> np.ndarray:
    """Algorithm 2 read literally on every cell: line 5 (PP), 7 (II), 9 (PI, correct) and 11 (IP)."""
    c, N = _table(mech, counts)
    pr, masks = mech.params, mech.model.region_masks()
    out = np.where(masks["PP"], pp_alg2_line5(mech, c), 0.0)
    out = np.where(masks["II"], c / (N * pr.t) if masks["II"].any() else 0.0, out)
    if masks["PI"].any():
        out = np.where(masks["PI"], mech.estimate_from_frequencies(c / N), out)
    if masks["IP"].any():
        out = np.where(masks["IP"], ip_alg2_line11(mech, c), out)
    return out


def cprr_alg4_line7(mech: CPRR, counts: Any) -> np.ndarray:
    """Algorithm 4 line 7 as printed: ``c̃/(N t)`` with JuRR's ``t`` instead of ``t'`` on (N,N) cells."""
    c, N = _table(mech, counts)
    t = jurr_parameters(mech.epsilon, mech.model.sx, mech.model.sy).t
    return _only(mech.model.region_masks()["II"], c / (N * t))


def var_pp_eq52_first_line(mech: JuRR, f: Any, n: int) -> np.ndarray:
    """Eq. (52) first line as printed: ``[f a(1−a) + (1−f) b(1−b)] / (N (a−b))``."""
    ftab = np.asarray(f, dtype=float).reshape(mech.shape)
    a, b = mech.params.a, mech.params.b
    return _only(mech.model.region_masks()["PP"], (ftab * a * (1 - a) + (1 - ftab) * b * (1 - b)) / (n * (a - b)))


def var_ii_eq53(mech: JuRR, f: Any, n: int) -> np.ndarray:
    """Eq. (53) as printed (``t'`` read as JuRR's ``t``): ``[f a(1−a) + (1−f) b(1−b)] / (N t²)``."""
    ftab = np.asarray(f, dtype=float).reshape(mech.shape)
    a, b, t = mech.params.a, mech.params.b, mech.params.t
    return _only(mech.model.region_masks()["II"], (ftab * a * (1 - a) + (1 - ftab) * b * (1 - b)) / (n * t**2))


def var_ii_eq57(mech: CPRR, f: Any, n: int) -> np.ndarray:
    """Eq. (57) as printed: ``[f a'(1−a') + (1−f) b'(1−b')] / (N t'²)``."""
    ftab = np.asarray(f, dtype=float).reshape(mech.shape)
    a, b, t = mech.a_prime, mech.b_prime, mech.t_prime
    return _only(mech.model.region_masks()["II"], (ftab * a * (1 - a) + (1 - ftab) * b * (1 - b)) / (n * t**2))


def var_eq58(mech: CPRR, f: Any, n: int) -> np.ndarray:
    """Eq. (58) as printed, on every cell: ``[1/(a'−b')² + 1/t'²] [f a'(1−a') + (1−f) b'(1−b')] / N``.

    The printed "total" adds the ``S'`` variance and the (wrong, Eq. (57)) ``W_I×V_I``
    variance of the same cell; no cell has that variance.
    """
    ftab = np.asarray(f, dtype=float).reshape(mech.shape)
    a, b, t = mech.a_prime, mech.b_prime, mech.t_prime
    return (1 / (a - b) ** 2 + 1 / t**2) * (ftab * a * (1 - a) + (1 - ftab) * b * (1 - b)) / n


def printed_loop_cells(model: Any) -> np.ndarray:
    """Cells that Algorithms 2 and 4 visit as printed (``for i = 1..|X_S|, j = 1..|Y_S|``, sensitive values first).

    Returns a boolean ``k_x × k_y`` mask: the ``(S,S)`` cells only; every other cell is never estimated.
    """
    return model.region_masks()["PP"].copy()


def _printed_range(nonsensitive: Any, n_sensitive: int) -> list[int]:
    """Values with 1-based (sensitive-first) index ``|S|+1 .. |N|``: the first ``max(0, |N|−|S|)`` non-sensitive."""
    nons = list(nonsensitive)
    return nons[: max(0, len(nons) - n_sensitive)]


def pi_eq29_bounds(mech: JuRR, counts: Any) -> np.ndarray:
    """The (corrected) Algorithm 2 line 9 on (S,N) cells, with ``S_Nx`` summed over Eq. (29)'s printed range.

    Eq. (29) sums the column from index ``|X_S|+1`` to ``|X_N|``, so it sees only the
    first ``|X_N| − |X_S|`` non-sensitive rows (none when ``|X_N| ≤ |X_S|``); the
    right range ends at ``|X|``.
    """
    c, N = _table(mech, counts)
    pr, xs, sx = mech.params, mech.model.x.mask, mech.model.sx
    rows = _printed_range(mech.model.x.nonsensitive, sx)
    S_N = c[rows, :].sum(axis=0)[None, :] if rows else np.zeros((1, mech.model.ky))
    S_S = c[xs, :].sum(axis=0)[None, :]
    F_N = S_N / (N * pr.t)
    F_S = (S_S / N - sx * pr.q * F_N) / (pr.p + (sx - 1) * pr.q)
    return _only(mech.model.region_masks()["PI"], (c / N - pr.q * (F_N + F_S)) / (pr.p - pr.q))


def ip_eq32_bounds(mech: JuRR, counts: Any) -> np.ndarray:
    """The corrected (N,S) estimator with ``S_Ny`` summed over Eq. (32)'s printed range (mirror of Eq. (29))."""
    c, N = _table(mech, counts)
    pr, ys, sy = mech.params, mech.model.y.mask, mech.model.sy
    cols = _printed_range(mech.model.y.nonsensitive, sy)
    S_N = c[:, cols].sum(axis=1)[:, None] if cols else np.zeros((mech.model.kx, 1))
    S_S = c[:, ys].sum(axis=1)[:, None]
    G_N = S_N / (N * pr.t)
    G_S = (S_S / N - sy * pr.n * G_N) / (pr.m + (sy - 1) * pr.n)
    return _only(mech.model.region_masks()["IP"], (c / N - pr.n * (G_N + G_S)) / (pr.m - pr.n))


def errata_table(jurr: JuRR, cprr: CPRR, f: Any, n: int) -> pd.DataFrame:
    """Printed vs corrected formula, on the region each is meant for.

    Estimators are fed the expected report counts ``N Pᵀ f``: an unbiased
    formula must return ``f`` exactly, so ``max |bias|`` is the worst error over
    the region.  Variance formulas are compared with the exact variance through
    the largest ratio printed/exact over the region.
    """
    ftab = np.asarray(f, dtype=float).reshape(jurr.shape)
    rows = []
    for mech, label, fn, region in (
        (jurr, "Eq. (23)", pp_eq23, "PP"),
        (jurr, "Alg. 2 line 5", pp_alg2_line5, "PP"),
        (jurr, "Eq. (27)", pi_eq27, "PI"),
        (jurr, "Eq. (30)", ip_eq30, "IP"),
        (jurr, "Alg. 2 line 11", ip_alg2_line11, "IP"),
        (cprr, "Alg. 4 line 7", cprr_alg4_line7, "II"),
    ):
        mask = mech.model.region_masks()[region]
        if not mask.any():
            continue
        expected_counts = n * mech.output_distribution(ftab)
        printed = fn(mech, expected_counts)[mask]
        corrected = mech.estimate_from_frequencies(expected_counts / n)[mask]
        rows.append(
            dict(
                mechanism=mech.name,
                formula=label,
                kind="estimator",
                region=region,
                printed=float(np.max(np.abs(printed - ftab[mask]))),
                corrected=float(np.max(np.abs(corrected - ftab[mask]))),
                measure="max |E f̂ − f|",
            )
        )
    for mech, label, fn, region in (
        (jurr, "Eq. (52) first line", var_pp_eq52_first_line, "PP"),
        (jurr, "Eq. (53)", var_ii_eq53, "II"),
        (cprr, "Eq. (57)", var_ii_eq57, "II"),
    ):
        mask = mech.model.region_masks()[region]
        if not mask.any():
            continue
        exact = mech.variance(n, ftab)[mask]
        printed = fn(mech, ftab, n)[mask]
        rows.append(
            dict(
                mechanism=mech.name,
                formula=label,
                kind="variance",
                region=region,
                printed=float(np.max(printed / exact)),
                corrected=1.0,
                measure="max printed / exact",
            )
        )
    return pd.DataFrame(rows)
