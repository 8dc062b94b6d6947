"""The three datasets of the LoPub experiments, as coded categorical tables.

* **Adult** (UCI, ``ldp.data.load("adult")``): train + test, rows with a missing
  value dropped (45,222 records, the paper's count), 15 attributes in UCI order.
  The paper bins "some continuous domains" without saying how; here
  age (32 equal-width bins), fnlwgt (32 quantile bins), capital-gain (0 plus 15
  quantile bins of the positive values), capital-loss (0 plus 7), hours-per-week
  (32 equal-width bins), so that ``sum_j log2 |Omega_j| = 51.7``, the paper's
  ``2^52`` domain.  Sex (10th) and income (15th) are the binary attributes.
* **Retail** (FIMI ``retail.dat``, ``ldp.data.load("retail")``): the paper keeps
  27,522 baskets and 16 binary attributes without saying which.  Here the 16
  attributes are the 16 most frequent items of the whole file (present = 1) and
  the records are the first 27,522 baskets in file order (the file is in time
  order, so this is a contiguous period of the shop's history).
* **TPC-E** cannot be obtained here (TPC's generator is licensed), so
  :func:`tpce_standin` generates a documented stand-in with 24 columns named after
  the joined TPC-E tables, binary at positions 2, 10, 23 and 24 (1-based) as in
  the paper, ``sum_j log2 |Omega_j| = 76.7`` and dependencies that mimic the
  schema (trade type determines the sell flag and shifts the charge, prices move
  together, and so on).

:func:`adult_standin` and :func:`retail_standin` are used only when the real files
are missing (see ``ldp.data.load_or_standin``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_generator, check_domain_size, check_int
from ..data.registry import ADULT_COLUMNS
from ..tables import CodedTable, equal_width_codes, interval_labels

#: the 15 Adult attributes in the file's order (the loader's canonical columns)
ADULT_ATTRIBUTES = ADULT_COLUMNS
#: 0-based indices of the SVM targets of Sec. 6.3 (sex and income; the paper prints "marital", E14)
ADULT_SVM_TARGETS = (9, 14)
RETAIL_RECORDS = 27_522
RETAIL_ITEMS = 16
#: 0-based binary attributes of the TPC-E stand-in (1-based 2, 10, 23, 24 in the paper)
TPCE_SVM_TARGETS = (1, 9, 22, 23)


def _equal_width(x: np.ndarray, k: int) -> tuple[np.ndarray, tuple[str, ...]]:
    return equal_width_codes(x, k, return_labels=True)


def _quantile(x: np.ndarray, k: int) -> tuple[np.ndarray, tuple[str, ...]]:
    edges = np.quantile(x, np.linspace(0, 1, k + 1))
    codes = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, k - 1)
    return codes, interval_labels(edges)


def _zero_then_quantile(x: np.ndarray, k: int) -> tuple[np.ndarray, tuple[str, ...]]:
    pos = x[x > 0]
    edges = np.quantile(pos, np.linspace(0, 1, k))
    codes = np.where(x > 0, 1 + np.clip(np.searchsorted(edges, x, side="right") - 1, 0, k - 2), 0)
    return codes, ("0",) + interval_labels(edges)


_ADULT_BINS = {
    "age": (_equal_width, 32),
    "fnlwgt": (_quantile, 32),
    "capital_gain": (_zero_then_quantile, 16),
    "capital_loss": (_zero_then_quantile, 8),
    "hours_per_week": (_equal_width, 32),
}


def code_adult(frame: pd.DataFrame, code_column: Callable[[str, pd.Series], tuple[np.ndarray, tuple]]) -> CodedTable:
    """The complete-case rows of Adult (the 15 :data:`ADULT_ATTRIBUTES`, UCI order) as a :class:`CodedTable`.

    ``code_column(name, values)`` returns the integer codes and the value labels of one column; rows with any
    missing field are dropped first.
    """
    missing = [c for c in ADULT_ATTRIBUTES if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the Adult columns {missing}")
    df = frame[list(ADULT_ATTRIBUTES)].dropna().reset_index(drop=True)
    coded = [code_column(c, df[c]) for c in ADULT_ATTRIBUTES]
    return CodedTable(np.column_stack([cc for cc, _ in coded]), ADULT_ATTRIBUTES, tuple(lab for _, lab in coded))


def _adult_column(name: str, values: pd.Series) -> tuple[np.ndarray, tuple]:
    """Our coding of one Adult column: :data:`_ADULT_BINS` for the numeric ones, sorted categories otherwise."""
    if name in _ADULT_BINS:
        fn, k = _ADULT_BINS[name]
        cc, lab = fn(values.to_numpy(dtype=float), k)
    else:
        cat = pd.Categorical(values.astype(str))
        cc, lab = np.asarray(cat.codes), tuple(cat.categories)
    return np.asarray(cc, dtype=np.int64), lab


def adult_table(frame: pd.DataFrame) -> CodedTable:
    """Binned, complete-case Adult as a :class:`CodedTable` (15 attributes, UCI order)."""
    return code_adult(frame, _adult_column)


def retail_table(frame: pd.DataFrame, n_records: int = RETAIL_RECORDS, n_items: int = RETAIL_ITEMS) -> CodedTable:
    """First ``n_records`` baskets of FIMI retail, as presence flags of the ``n_items`` most frequent items."""
    if "basket" not in frame.columns:
        raise ValueError("frame must have a 'basket' column of item-id tuples")
    n_records = check_int(n_records, "n_records", minimum=1, maximum=len(frame))
    n_items = check_int(n_items, "n_items", minimum=2)
    counts = Counter(item for basket in frame["basket"] for item in set(basket))
    top = [item for item, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n_items]]
    index = {item: j for j, item in enumerate(top)}
    codes = np.zeros((n_records, n_items), dtype=np.int64)
    for i, basket in enumerate(frame["basket"].iloc[:n_records]):
        for item in basket:
            j = index.get(item)
            if j is not None:
                codes[i, j] = 1
    return CodedTable(codes, tuple(f"item_{item}" for item in top), ((0, 1),) * n_items)


# ------------------------------------------------------------------------------ stand-in generators
def _sample_rows(gen: np.random.Generator, table: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Draw one child value per row from ``table[parent_row]`` (inverse CDF, grouped by parent)."""
    cdf = np.cumsum(table, axis=1)
    cdf /= cdf[:, -1:]
    u = gen.random(parent.size)
    out = np.empty(parent.size, dtype=np.int64)
    for v in np.unique(parent):
        rows = parent == v
        out[rows] = np.minimum(np.searchsorted(cdf[v], u[rows], side="right"), table.shape[1] - 1)
    return out


def _diagonal_table(n_parent: int, n_child: int, spread: float) -> np.ndarray:
    """Conditional table whose child value tracks the (rescaled) parent value with Gaussian spread."""
    centre = (np.arange(n_parent) + 0.5) * n_child / n_parent - 0.5
    grid = np.arange(n_child)
    t = np.exp(-0.5 * ((grid[None, :] - centre[:, None]) / spread) ** 2) + 1e-3
    return t / t.sum(axis=1, keepdims=True)


def _dirichlet_table(gen: np.random.Generator, n_parent: int, n_child: int, concentration: float) -> np.ndarray:
    return gen.dirichlet(np.full(n_child, concentration), size=n_parent)


def _network(spec: Sequence[tuple], n: int, gen: np.random.Generator) -> np.ndarray:
    """Sample a small Bayesian network.

    ``spec`` rows: ``(name, size, parent_index_or_None, kind, param)`` with kind in
    ``"root"`` (Dirichlet marginal, param = concentration), ``"diag"`` (tracks the
    parent, param = spread), ``"dirichlet"`` (random table, param = concentration),
    ``"map"`` (deterministic function given as an int array, param = that array).
    """
    cols: list[np.ndarray] = []
    for _name, size, parent, kind, param in spec:
        if kind == "root":
            p = gen.dirichlet(np.full(size, param))
            cols.append(_sample_rows(gen, p[None, :], np.zeros(n, dtype=np.int64)))
            continue
        par = cols[parent]
        psize = spec[parent][1]
        if kind == "map":
            cols.append(np.asarray(param, dtype=np.int64)[par])
            continue
        table = _diagonal_table(psize, size, param) if kind == "diag" else _dirichlet_table(gen, psize, size, param)
        cols.append(_sample_rows(gen, table, par))
    return np.column_stack(cols)


def _labels(sizes: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(range(v)) for v in sizes)


#: TPC-E stand-in: 24 attributes mimicking Trade, Trade_Type, Security and Status_Type joined
_TPCE_SPEC = (
    ("trade_type", 5, None, "root", 5.0),  # TMB TMS TSL TLS TLB
    ("tt_is_sell", 2, 0, "map", [0, 1, 1, 1, 0]),  # 1-based 2: binary
    ("trade_status", 5, 0, "dirichlet", 0.6),  # CMPT ACTV SBMT PNDG CNCL
    ("t_qty", 16, 0, "dirichlet", 0.8),
    ("sector", 12, None, "root", 3.0),
    ("t_bid_price", 32, 4, "diag", 4.0),
    ("t_trade_price", 32, 5, "diag", 0.8),
    ("t_chrg", 8, 0, "dirichlet", 0.3),
    ("t_comm", 16, 3, "diag", 1.5),
    ("t_is_cash", 2, 2, "dirichlet", 2.0),  # 1-based 10: binary
    ("broker", 10, 9, "dirichlet", 1.5),
    ("trade_month", 12, None, "root", 50.0),
    ("trade_hour", 8, 2, "dirichlet", 2.0),
    ("s_issue", 6, 4, "dirichlet", 0.5),
    ("s_exch", 4, 4, "dirichlet", 0.7),
    ("t_tax", 16, 6, "diag", 2.0),
    ("s_num_out", 16, 14, "dirichlet", 0.7),
    ("s_pe", 16, 4, "dirichlet", 0.6),
    ("s_52wk_high", 32, 5, "diag", 1.5),
    ("s_52wk_low", 32, 5, "diag", 1.5),
    ("s_dividend", 8, 13, "dirichlet", 0.5),
    ("s_yield", 16, 20, "diag", 1.2),
    ("t_lifo", 2, 9, "dirichlet", 1.0),  # 1-based 23: binary
    ("st_status", 2, 14, "dirichlet", 0.8),  # 1-based 24: binary
)

_ADULT_STANDIN_SPEC = (
    ("age", 32, None, "root", 3.0),
    ("workclass", 7, 0, "dirichlet", 0.5),
    ("fnlwgt", 32, None, "root", 20.0),
    ("education", 16, None, "root", 1.0),
    ("education_num", 16, 3, "map", list(range(16))),
    ("marital_status", 7, 0, "dirichlet", 0.5),
    ("occupation", 14, 3, "dirichlet", 0.4),
    ("relationship", 6, 5, "dirichlet", 0.3),
    ("race", 5, None, "root", 0.5),
    ("sex", 2, 7, "dirichlet", 0.5),
    ("capital_gain", 16, 4, "dirichlet", 0.2),
    ("capital_loss", 8, 4, "dirichlet", 0.2),
    ("hours_per_week", 32, 9, "dirichlet", 0.3),
    ("native_country", 41, 8, "dirichlet", 0.1),
    ("income", 2, 4, "dirichlet", 1.0),
)


def tpce_standin(n: int = 40_000, rng: Any = 2018) -> CodedTable:
    """Stand-in for the paper's TPC-E join: 24 attributes, 4 binary, ``sum log2|Omega| = 76.7``."""
    n = check_int(n, "n", minimum=1)
    gen = as_generator(rng)
    codes = _network(_TPCE_SPEC, n, gen)
    return CodedTable(codes, tuple(s[0] for s in _TPCE_SPEC), _labels([s[1] for s in _TPCE_SPEC]))


def adult_standin(n: int = 45_222, rng: Any = 1994) -> CodedTable:
    """Synthetic Adult-shaped table (15 attributes with the binned Adult domains) from a small Bayesian network."""
    n = check_int(n, "n", minimum=1)
    gen = as_generator(rng)
    codes = _network(_ADULT_STANDIN_SPEC, n, gen)
    return CodedTable(codes, tuple(s[0] for s in _ADULT_STANDIN_SPEC), _labels([s[1] for s in _ADULT_STANDIN_SPEC]))


def retail_standin(n: int = RETAIL_RECORDS, d: int = RETAIL_ITEMS, rng: Any = 1999) -> CodedTable:
    """Synthetic 16-item basket table in which a latent shopper type (35 % heavy shoppers) drives every item.

    Every pair of items is then associated (Cramer's V about 0.2-0.35), which is the dense dependence the
    paper reports for its Retail subset; item frequencies are about 10-40 %.
    """
    n = check_int(n, "n", minimum=1)
    d = check_domain_size(d, "d", minimum=2)
    gen = as_generator(rng)
    z = (gen.random(n) < 0.35).astype(np.int64)  # occasional vs. heavy shoppers
    rates = np.vstack([gen.uniform(0.03, 0.2, d), gen.uniform(0.35, 0.8, d)])
    codes = (gen.random((n, d)) < rates[z]).astype(np.int64)
    return CodedTable(codes, tuple(f"item_{j}" for j in range(d)), ((0, 1),) * d)


def domain_bits(domains: Sequence[int]) -> float:
    """``sum_j log2 |Omega_j|``: the exponent of the paper's "domain size" column."""
    return float(sum(math.log2(v) for v in domains))
