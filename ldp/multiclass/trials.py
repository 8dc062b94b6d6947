"""Trial functions for the multi-class experiments of Mao et al., shaped for :func:`ldp.sweep.sweep`.

Each function runs one trial of one experiment with an explicit ``rng`` and returns
plain dicts, so the experiments notebook only declares grids and plots.  The ``*_on``
adapters take a mapping of datasets first, so that ``functools.partial(adapter, data)``
is a picklable trial function whose remaining arguments are the sweep's grid.

* :func:`variance_trial` -- Fig. 5: squared errors of PTS and PTS-CP on one table.
* :func:`rmse_trial`, :func:`analytic_rmse` -- Fig. 6: pooled RMSE over feature groups
  (simulated with the count-level samplers; closed form from the exact variances, or
  from the models of the authors' script in :mod:`ldp.multiclass.authors`).
* :class:`TopKData`, :func:`topk_trial` -- Figs 7-10 and Table III: F1 and NCR of a miner.
* :func:`budget_split_trial` -- Fig. 11: PTS-opt on SYN4 with the label share ``ε1/ε`` varied.
* :func:`topk_parameter_trial` -- Fig. 12: PTS-opt with the parameter ``a`` or ``b`` varied.
* :func:`variance_on`, :func:`rmse_on`, :func:`topk_on`, :func:`syn_topk_on`, :func:`budget_split_on`,
  :func:`parameter_on` -- the same trials with the dataset looked up by name (for sweeps).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import as_generator
from .authors import hec_as_published_mse, hec_topk_as_scripted, ptj_as_published_mse
from .frameworks import HEC, PTJ, PTS, MulticlassFramework, check_table
from .paper import ALG1_A, ALG2_B, TOPK_K
from .topk import mine_topk, score_topk, true_topk
from .validity import CP
from .variance import hec_random_item_bias, hec_variance

__all__ = [
    "FREQUENCY_METHODS",
    "make_framework",
    "variance_trial",
    "rmse_trial",
    "analytic_rmse",
    "HEC_READINGS",
    "TopKData",
    "topk_trial",
    "budget_split_trial",
    "topk_parameter_trial",
    "variance_on",
    "rmse_on",
    "topk_on",
    "syn_topk_on",
    "budget_split_on",
    "parameter_on",
    "hec_script_topk_on",
]

#: the four frequency-estimation methods of Fig. 6, in the paper's legend order
FREQUENCY_METHODS = ("HEC", "PTJ", "PTS", "PTS-CP")


def make_framework(method: str, epsilon: float, c: int, d: int) -> MulticlassFramework:
    """The framework called ``method`` (``"HEC"``, ``"PTJ"``, ``"PTS"`` or ``"PTS-CP"``), even budget split."""
    classes = {"HEC": HEC, "PTJ": PTJ, "PTS": PTS, "PTS-CP": CP}
    if method not in classes:
        raise ValueError(f"method must be one of {list(classes)}, got {method!r}")
    return classes[method](epsilon, c, d)


def variance_trial(table: Any, epsilon: float, rng: Any = None, *, item: int = 0) -> list[dict[str, Any]]:
    """One Fig. 5 trial: ``(estimate - truth)^2`` of every cell ``(C, item)`` for PTS and PTS-CP."""
    tab = check_table(table)
    gen = as_generator(rng)
    rows = []
    for method in ("PTS", "PTS-CP"):
        F = make_framework(method, epsilon, *tab.shape)
        est = F.run(tab, gen)[:, item]
        rows += [
            {"method": method, "class": C, "sq_error": float((est[C] - tab[C, item]) ** 2)} for C in range(tab.shape[0])
        ]
    return rows


def rmse_trial(tables: dict[str, Any], method: str, epsilon: float, rng: Any = None) -> dict[str, float]:
    """One Fig. 6 trial: pooled RMSE ``sqrt(sum of squared errors / number of cells)`` over all features."""
    gen = as_generator(rng)
    sq, cells = 0.0, 0
    for tab in tables.values():
        t = check_table(tab)
        est = make_framework(method, epsilon, *t.shape).run(t, gen)
        sq += float(((est - t) ** 2).sum())
        cells += t.size
    return {"rmse": math.sqrt(sq / cells)}


#: What an invalid HEC user reports, and the estimator: the authors' code (a dummy item) and the paper's text (a
#: random real item), whose printed estimator keeps the bias ``(N - n_C)/d`` unless it is removed.
HEC_READINGS = {
    "dummy invalid item (authors' code)": "dummy",
    "random real item, bias removed": "random",
    "random real item, printed (biased) estimator": "random-biased",
}


def analytic_rmse(
    tables: dict[str, Any],
    method: str,
    epsilon: float,
    *,
    as_published: bool = False,
    shift_oue: bool = True,
    hec_invalid: str = "dummy",
) -> float:
    """Expected pooled RMSE, ``sqrt(mean over cells of E(estimate - truth)^2)``.

    ``as_published=False``: from the exact variances (the estimators are unbiased).
    ``as_published=True``: HEC and PTJ as the authors' script computed them
    (:mod:`ldp.multiclass.authors`; PTS and PTS-CP are unaffected).  ``shift_oue=False``: the
    HEC script without its one-item shift in the OUE branch (a counterfactual, to measure the shift).
    ``hec_invalid``: a value of :data:`HEC_READINGS` (``"dummy"``, ``"random"`` or ``"random-biased"``, whose
    squared bias is added to the variance); only for a correct HEC (``as_published=False``).
    """
    if hec_invalid not in HEC_READINGS.values():
        raise ValueError(f"hec_invalid must be one of {sorted(HEC_READINGS.values())}, got {hec_invalid!r}")
    total, cells = 0.0, 0
    n_features = len(tables)
    for tab in tables.values():
        t = check_table(tab)
        if as_published and method == "HEC":
            mse = hec_as_published_mse(t, epsilon, n_features, shift_oue=shift_oue)
        elif method == "HEC" and hec_invalid != "dummy":
            mse = hec_variance(t, epsilon, invalid="random")
            if hec_invalid == "random-biased":
                mse = mse + hec_random_item_bias(t) ** 2
        elif as_published and method == "PTJ":
            mse = ptj_as_published_mse(t, epsilon)
        else:
            mse = make_framework(method, epsilon, *t.shape).variance(t.sum(), t / t.sum())
        total += float(mse.sum())
        cells += mse.size
    return math.sqrt(total / cells)


@dataclass
class TopKData:
    """A label-item population for top-k runs: its ``c x d`` table and its true top-k per ``k`` (cached)."""

    table: np.ndarray
    _truth: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.table = check_table(self.table)

    @property
    def c(self) -> int:
        return self.table.shape[0]

    @property
    def d(self) -> int:
        return self.table.shape[1]

    def truth(self, k: int) -> np.ndarray:
        if k not in self._truth:
            self._truth[k] = true_topk(self.table, k)
        return self._truth[k]


def topk_trial(
    data: TopKData, method: str, epsilon: float, k: int = 20, rng: Any = None, **options: Any
) -> dict[str, Any]:
    """One top-k trial: F1 and NCR averaged over classes, plus the per-class F1.

    Mined at count level from ``data.table`` (:func:`ldp.multiclass.topk.mine_topk`, ``route="counts"``).
    """
    res = mine_topk(method, data.table, k, epsilon, rng, **options)
    s = score_topk(res.items, data.truth(k))
    out = {"f1": s["f1"], "ncr": s["ncr"]}
    out.update({f"f1_class{C}": float(v) for C, v in enumerate(s["f1_per_class"])})
    return out


def _check_share(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    if not (0.0 < v < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return v


def budget_split_trial(
    data: TopKData, proportion: float, epsilon: float = 4.0, k: int = 20, rng: Any = None
) -> dict[str, Any]:
    """One Fig. 11 trial: PTS-opt with ``ε1 = proportion·ε`` for the label and ``ε2 = ε - ε1`` for the items.

    As in the authors' budget-allocation script for SYN4 (``top-k item mining/SYN4/privacy budget
    allocation/PTS-CP.py``, commit fb20ec9e5823a006db2439d5cf41643ef0146f6c): no global stage
    (Algorithm 1 skipped, all rounds per reported class), validity perturbation in every round and
    CP in the last one without the ``b``-test.
    """
    share = _check_share(proportion, "proportion")
    e1 = share * float(epsilon)
    return topk_trial(
        data, "PTS-opt", epsilon, k, rng, use_global=False, b=None, epsilon1=e1, epsilon2=float(epsilon) - e1
    )


def topk_parameter_trial(
    data: TopKData, parameter: str, value: float, epsilon: float = 4.0, k: int = 20, rng: Any = None
) -> dict[str, Any]:
    """One Fig. 12 trial: PTS-opt (Algorithms 1 and 2) with ``a`` or ``b`` set to ``value``, the other at its default.

    As in the authors' scripts ``top-k item mining/code/PTS_optimized_a_vary.py`` and ``..._b_vary.py``
    (commit fb20ec9e5823a006db2439d5cf41643ef0146f6c): varying ``a`` keeps ``b = 2`` and the factor 2 of
    the estimated class size; varying ``b`` keeps ``a = 0.2``; ``ε1 = ε2 = ε/2``.
    """
    if parameter == "a":
        opts = {"a": _check_share(value, "a"), "b": ALG2_B}
    elif parameter == "b":
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not (math.isfinite(float(value)) and float(value) > 0)
        ):
            raise ValueError(f"b must be a finite number > 0, got {value!r}")
        opts = {"a": ALG1_A, "b": float(value)}
    else:
        raise ValueError(f"parameter must be 'a' or 'b', got {parameter!r}")
    return topk_trial(data, "PTS-opt", epsilon, k, rng, **opts)


def _lookup(data: Mapping[Any, Any], key: Any, what: str) -> Any:
    if not isinstance(data, Mapping):
        raise TypeError(f"{what} must be a mapping of datasets, got {type(data).__name__}")
    if key not in data:
        raise ValueError(f"{what} has no dataset {key!r}; available: {list(data)}")
    return data[key]


def variance_on(tables: Mapping[str, Any], dataset: str, epsilon: float = 1.0, rng: Any = None) -> list[dict[str, Any]]:
    """:func:`variance_trial` on ``tables[dataset]`` (Fig. 5)."""
    return variance_trial(_lookup(tables, dataset, "tables"), epsilon, rng)


def rmse_on(
    tables: Mapping[str, dict[str, Any]], dataset: str, method: str, epsilon: float, rng: Any = None
) -> dict[str, float]:
    """:func:`rmse_trial` on the feature-group tables ``tables[dataset]`` (Fig. 6)."""
    return rmse_trial(_lookup(tables, dataset, "tables"), method, epsilon, rng)


def topk_on(
    data: Mapping[str, TopKData], dataset: str, method: str, epsilon: float, rng: Any = None, k: int = TOPK_K
) -> dict[str, Any]:
    """:func:`topk_trial` on ``data[dataset]`` (Figs 7-9 and Table III)."""
    return topk_trial(_lookup(data, dataset, "data"), method, epsilon, k, rng)


def syn_topk_on(
    data: Mapping[tuple[str, int], TopKData],
    dataset: str,
    c: int,
    method: str,
    rng: Any = None,
    epsilon: float = 4.0,
    k: int = TOPK_K,
    syn4_reading: str = "script",
) -> dict[str, Any]:
    """One Fig. 10 trial on ``data[(dataset, c)]``.

    On SYN4, where no item is frequent in every class, PTS-opt skips the global stage
    (Algorithm 1) and uses CP in the last round of every class without the ``b``-test, as the
    authors' script for this data set does (``top-k item mining/SYN4/PTS_optimized.py``, commit
    fb20ec9e5823a006db2439d5cf41643ef0146f6c; ``syn4_reading="script"``).  The paper's text gives
    no exception for SYN4 (Sec. VII-B: ``a = 0.2``, ``b = 2`` in every top-k experiment):
    ``syn4_reading="paper"`` runs PTS-opt there as on every other data set.
    """
    if syn4_reading not in ("script", "paper"):
        raise ValueError(f"syn4_reading must be 'script' or 'paper', got {syn4_reading!r}")
    scripted = dataset == "SYN4" and method == "PTS-opt" and syn4_reading == "script"
    opts = {"use_global": False, "b": None} if scripted else {}
    return topk_trial(_lookup(data, (dataset, c), "data"), method, epsilon, k, rng, **opts)


def budget_split_on(
    data: Mapping[int, TopKData], c: int, proportion: float, rng: Any = None, epsilon: float = 4.0, k: int = TOPK_K
) -> dict[str, Any]:
    """:func:`budget_split_trial` on ``data[c]`` (Fig. 11)."""
    return budget_split_trial(_lookup(data, c, "data"), proportion, epsilon, k, rng)


def parameter_on(
    data: Mapping[str, TopKData],
    dataset: str,
    parameter: str,
    value: float,
    rng: Any = None,
    epsilon: float = 4.0,
    k: int = TOPK_K,
) -> dict[str, Any]:
    """:func:`topk_parameter_trial` on ``data[dataset]`` (Fig. 12)."""
    return topk_parameter_trial(_lookup(data, dataset, "data"), parameter, value, epsilon, k, rng)


def hec_script_topk_on(
    data: Mapping[tuple[str, int], TopKData],
    dataset: str,
    c: int,
    rng: Any = None,
    epsilon: float = 4.0,
    k: int = TOPK_K,
) -> dict[str, Any]:
    """One Fig. 10 trial of HEC as the authors' SYN script computes it (:func:`hec_topk_as_scripted`)."""
    d = _lookup(data, (dataset, c), "data")
    res = hec_topk_as_scripted(d.table, k, epsilon, rng)
    s = score_topk(res.items, d.truth(k))
    return {"f1": s["f1"], "ncr": s["ncr"]}
