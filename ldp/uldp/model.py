"""Utility-optimised LDP (ULDP): sensitive sets, the 2-D model and exact checks on a channel.

Murakami and Kawamoto (2019) split a categorical domain ``X`` into sensitive
values ``X_S`` and non-sensitive values ``X_N``, and the output domain into
*protected* outputs ``W_P`` and *invertible* outputs ``W_I``.  A mechanism is
``(X_S, W_P, ε)``-ULDP (Definition 2 of Yin et al. 2023) when

1. every invertible output can be produced by exactly one input, which is
   non-sensitive (so the output reveals that input, and only non-sensitive
   inputs are ever revealed), and
2. on protected outputs every pair of inputs has likelihood ratio ``<= e^ε``.

Yin, Zhu and Zhang (2023, Definition 3) extend this to pairs ``(x, y)``, each
attribute with its own split; the four *cases* of an input are the regions
``PP = X_S×Y_S``, ``PI = X_S×Y_N``, ``IP = X_N×Y_S`` and ``II = X_N×Y_N``
(as in ULDP, outputs live in the same grid, with ``W_P = X_S``, ``W_I = X_N``,
``V_P = Y_S``, ``V_I = Y_N``).  :func:`check_uldp_2d` evaluates the six
conditions of Definition 3 exactly on a channel matrix and
:func:`check_uldp` evaluates the one-dimensional Definition 2.

Channels follow the house convention: ``P[v, o] = Pr(output o | input v)``,
rows are inputs.  A 2-D cell ``(x, y)`` has the flat index ``x * k_y + y``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import check_channel, check_domain_size, check_epsilon, check_int
from ..tables import ProductDomain

__all__ = [
    "REGIONS",
    "SensitiveDomain",
    "ULDPModel2D",
    "ULDPCheck",
    "check_uldp",
    "check_uldp_2d",
]

#: region labels of a 2-D cell, in the order of the paper's four cases (1..4)
REGIONS = ("PP", "PI", "IP", "II")

#: relative slack allowed on likelihood ratios (floating point only; ratios are exact in theory)
RATIO_RTOL = 1e-9


# ---------------------------------------------------------------------------- one attribute
@dataclass(frozen=True)
class SensitiveDomain:
    """One categorical attribute with a sensitive subset.

    Parameters
    ----------
    size : int
        Number of categories ``k >= 1``; values are integer codes ``0 .. k-1``.
    sensitive : iterable of int
        Codes of the sensitive values ``X_S`` (a subset of the domain, no duplicates).
        Any positions are allowed: the sensitive values need not come first.
    labels : sequence, optional
        Category labels (``labels[c]`` is the label of code ``c``); enables
        :meth:`encode` and :meth:`from_labels`.

    Notes
    -----
    A domain of size 1 is allowed (the reductions of a 2-D mechanism to a 1-D
    one use it); mechanisms that need two values check that themselves.
    """

    size: int
    sensitive: tuple[int, ...]
    labels: tuple[Any, ...] | None = field(default=None, compare=False)

    def __init__(self, size: int, sensitive: Iterable[int] = (), labels: Sequence[Any] | None = None) -> None:
        size = check_domain_size(size, "size", minimum=1)
        if isinstance(sensitive, (str, bytes)):
            raise TypeError(f"sensitive must be an iterable of integer codes, got the string {sensitive!r}")
        codes = []
        for c in sensitive:
            if isinstance(c, bool) or not isinstance(c, numbers.Integral):
                raise TypeError(f"sensitive must hold integer codes, got {c!r} of type {type(c).__name__}")
            c = int(c)
            if not 0 <= c < size:
                raise ValueError(
                    f"sensitive value {c} is not in the domain {{0, ..., {size - 1}}}: "
                    "the sensitive set must be a subset of the domain"
                )
            codes.append(c)
        if len(set(codes)) != len(codes):
            raise ValueError(f"sensitive contains duplicates: {sorted(codes)}")
        if labels is not None:
            labels = tuple(labels)
            if len(labels) != size:
                raise ValueError(f"labels must have one entry per category ({size}), got {len(labels)}")
            if len(set(labels)) != size:
                raise ValueError(f"labels must be distinct, got {list(labels)}")
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "sensitive", tuple(sorted(codes)))
        object.__setattr__(self, "labels", labels)

    @classmethod
    def from_labels(cls, categories: Sequence[Any], sensitive: Iterable[Any]) -> SensitiveDomain:
        """Build from category labels; ``sensitive`` lists labels, each must be a category."""
        categories = tuple(categories)
        index = {c: i for i, c in enumerate(categories)}
        if len(index) != len(categories):
            raise ValueError(f"categories must be distinct, got {list(categories)}")
        if isinstance(sensitive, (str, bytes)):
            sensitive = [sensitive]
        codes = []
        for s in sensitive:
            if s not in index:
                raise ValueError(f"sensitive value {s!r} is not one of the categories {list(categories)}")
            codes.append(index[s])
        return cls(len(categories), codes, labels=categories)

    # -------------------------------------------------------------- derived quantities
    @property
    def mask(self) -> np.ndarray:
        """Boolean array, True at sensitive codes."""
        m = np.zeros(self.size, dtype=bool)
        m[list(self.sensitive)] = True
        return m

    @property
    def n_sensitive(self) -> int:
        return len(self.sensitive)

    @property
    def n_nonsensitive(self) -> int:
        return self.size - len(self.sensitive)

    @property
    def nonsensitive(self) -> tuple[int, ...]:
        m = self.mask
        return tuple(int(c) for c in np.flatnonzero(~m))

    def encode(self, values: Iterable[Any], name: str = "values") -> np.ndarray:
        """Map labels to integer codes; an unknown label raises ``ValueError`` naming it."""
        if self.labels is None:
            raise ValueError("this domain has no labels: pass integer codes, or build it with from_labels()")
        index = {c: i for i, c in enumerate(self.labels)}
        vals = list(values)
        unknown = [v for v in dict.fromkeys(vals) if v not in index]
        if unknown:
            raise ValueError(
                f"{name} contains unknown categories {unknown[:5]}; valid categories are {list(self.labels)}"
            )
        return np.fromiter((index[v] for v in vals), dtype=np.int64, count=len(vals))

    def __repr__(self) -> str:
        return f"SensitiveDomain(size={self.size}, sensitive={self.sensitive})"


# ---------------------------------------------------------------------------- the 2-D model
@dataclass(frozen=True)
class ULDPModel2D:
    """The two-attribute ULDP model of Yin et al. (2023, Sec. 4): ``x`` and ``y``, each with a sensitive set.

    Parameters
    ----------
    x, y : SensitiveDomain
        The two attributes.  Outputs use the same grid as inputs (protected
        outputs ``W_P = X_S``, ``V_P = Y_S``; invertible ``W_I = X_N``, ``V_I = Y_N``).

    Examples
    --------
    >>> m = ULDPModel2D.from_sizes(3, 5, x_sensitive=[0, 1], y_sensitive=[0, 1])
    >>> m.region_grid()[0, 0], m.region_grid()[2, 4]
    ('PP', 'II')
    """

    x: SensitiveDomain
    y: SensitiveDomain

    def __post_init__(self) -> None:
        for nm in ("x", "y"):
            if not isinstance(getattr(self, nm), SensitiveDomain):
                raise TypeError(f"{nm} must be a SensitiveDomain, got {type(getattr(self, nm)).__name__}")

    @classmethod
    def from_sizes(
        cls, kx: int, ky: int, x_sensitive: Iterable[int] = (), y_sensitive: Iterable[int] = ()
    ) -> ULDPModel2D:
        """Model on ``{0..kx-1} × {0..ky-1}`` with the given sensitive codes."""
        return cls(SensitiveDomain(kx, x_sensitive), SensitiveDomain(ky, y_sensitive))

    @classmethod
    def first_sensitive(cls, kx: int, ky: int, sx: int, sy: int) -> ULDPModel2D:
        """The paper's index convention: the first ``sx`` (``sy``) codes are sensitive."""
        kx = check_domain_size(kx, "kx", minimum=1)
        ky = check_domain_size(ky, "ky", minimum=1)
        sx = check_int(sx, "sx", minimum=0, maximum=kx)
        sy = check_int(sy, "sy", minimum=0, maximum=ky)
        return cls.from_sizes(kx, ky, range(sx), range(sy))

    # -------------------------------------------------------------- sizes
    @property
    def kx(self) -> int:
        return self.x.size

    @property
    def ky(self) -> int:
        return self.y.size

    @property
    def n_cells(self) -> int:
        """``K = |X|·|Y|``, the size of the flattened product domain."""
        return self.x.size * self.y.size

    @property
    def sx(self) -> int:
        return self.x.n_sensitive

    @property
    def sy(self) -> int:
        return self.y.n_sensitive

    @property
    def shape(self) -> tuple[int, int]:
        return (self.x.size, self.y.size)

    # -------------------------------------------------------------- regions and cases
    def region_masks(self) -> dict[str, np.ndarray]:
        """Boolean ``kx × ky`` masks of the four regions ``PP, PI, IP, II``."""
        xs, ys = self.x.mask[:, None], self.y.mask[None, :]
        return {"PP": xs & ys, "PI": xs & ~ys, "IP": ~xs & ys, "II": ~xs & ~ys}

    def region_grid(self) -> np.ndarray:
        """``kx × ky`` array of region labels."""
        grid = np.empty(self.shape, dtype=object)
        for name, m in self.region_masks().items():
            grid[m] = name
        return grid

    def case_grid(self) -> np.ndarray:
        """``kx × ky`` array of the paper's case numbers 1 (S,S), 2 (S,N), 3 (N,S), 4 (N,N)."""
        grid = np.zeros(self.shape, dtype=np.int64)
        for c, name in enumerate(REGIONS, start=1):
            grid[self.region_masks()[name]] = c
        return grid

    def sensitive_cells(self) -> np.ndarray:
        """Flat indices of ``S = PP ∪ PI ∪ IP``, the cells with at least one sensitive coordinate."""
        return np.flatnonzero(~self.region_masks()["II"].ravel())

    @property
    def cells(self) -> ProductDomain:
        """The ``kx × ky`` cell domain; its flat index is ``x * ky + y``."""
        return ProductDomain(self.shape, ("x", "y"))

    def flat_index(self, x: Any, y: Any) -> np.ndarray:
        """Flat cell index ``x * ky + y`` of code arrays (validated)."""
        return self.cells.encode(x, y)

    def encode(self, x_values: Iterable[Any], y_values: Iterable[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Map two label sequences to code arrays (both domains must carry labels)."""
        return self.x.encode(x_values, "x"), self.y.encode(y_values, "y")

    def __repr__(self) -> str:
        return (
            f"ULDPModel2D(kx={self.kx}, ky={self.ky}, x_sensitive={self.x.sensitive}, y_sensitive={self.y.sensitive})"
        )


# ---------------------------------------------------------------------------- exact checks
@dataclass(frozen=True)
class ULDPCheck:
    """Outcome of an exact ULDP check: one verdict per condition, with the worst ratio where relevant.

    ``conditions[c]`` is True when condition ``c`` holds; ``worst_log_ratio[c]``
    is the largest ``log Pr(o|v)/Pr(o|v')`` met by a ratio condition (``inf``
    when some output separates two inputs with certainty).
    """

    epsilon: float
    conditions: dict[int, bool]
    worst_log_ratio: dict[int, float]
    descriptions: dict[int, str]

    @property
    def satisfied(self) -> bool:
        return all(self.conditions.values())

    def failed(self) -> list[int]:
        return [c for c, ok in self.conditions.items() if not ok]

    def __repr__(self) -> str:
        flags = ", ".join(f"{c}:{'ok' if ok else 'FAIL'}" for c, ok in self.conditions.items())
        return f"ULDPCheck(epsilon={self.epsilon:g}, {flags})"


def _as_channel(P: Any, K: int | None = None) -> np.ndarray:
    """A square channel (rows = inputs, columns = outputs; rows sum to 1): a verdict on anything else is meaningless."""
    arr = check_channel(P, atol=1e-9, name="P")
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"P must be a square channel matrix (rows = inputs, columns = outputs), got shape {arr.shape}")
    if K is not None and arr.shape[0] != K:
        raise ValueError(f"P must be {K} x {K} for this model, got shape {arr.shape}")
    return arr


def _worst_log_ratio(block: np.ndarray) -> float:
    """max over columns of log(max/min) of a (inputs × outputs) block; all-zero columns are ignored."""
    if block.size == 0:
        return 0.0
    colmax, colmin = block.max(axis=0), block.min(axis=0)
    used = colmax > 0
    if not np.any(used):
        return 0.0
    if np.any(colmin[used] == 0):
        return math.inf
    return float(np.max(np.log(colmax[used]) - np.log(colmin[used])))


def _ratio_ok(log_ratio: float, epsilon: float) -> bool:
    return log_ratio <= epsilon + RATIO_RTOL * max(1.0, epsilon)


def check_uldp(P: Any, sensitive: Iterable[int], protected: Iterable[int], epsilon: float) -> ULDPCheck:
    """Check ``(X_S, Y_P, ε)``-ULDP (Definition 2 of Yin et al.; Murakami & Kawamoto 2019) exactly.

    Parameters
    ----------
    P : array_like, shape (d, d)
        Channel with rows = inputs, columns = outputs.
    sensitive : iterable of int
        Sensitive inputs ``X_S``.
    protected : iterable of int
        Protected outputs ``Y_P``; the other outputs are the invertible ones ``Y_I``.
    epsilon : float

    Returns
    -------
    ULDPCheck
        Condition 1: every invertible output with positive probability has exactly
        one input that can produce it, and that input is non-sensitive
        (Eqs. (2)-(3)).  Condition 2: on protected outputs every ratio is
        ``<= e^ε`` (Eq. (4)).
    """
    epsilon = check_epsilon(epsilon)
    P = _as_channel(P)
    d = P.shape[0]
    dom_s = SensitiveDomain(d, sensitive)
    dom_p = SensitiveDomain(d, protected)
    inv = ~dom_p.mask
    block = P[:, inv]
    reach = block > 0
    n_sources = reach.sum(axis=0)
    occurs = n_sources > 0
    # which input produces each invertible output (only meaningful where n_sources == 1)
    source = np.argmax(reach, axis=0)
    c1 = bool(np.all(n_sources[occurs] == 1) and not np.any(dom_s.mask[source[occurs & (n_sources == 1)]]))
    r2 = _worst_log_ratio(P[:, dom_p.mask])
    return ULDPCheck(
        epsilon=epsilon,
        conditions={1: c1, 2: _ratio_ok(r2, epsilon)},
        worst_log_ratio={2: r2},
        descriptions={
            1: "each invertible output has a single, non-sensitive source",
            2: "ratios on protected outputs are <= e^eps",
        },
    )


def check_uldp_2d(P: Any, model: ULDPModel2D, epsilon: float, reading: str = "strict") -> ULDPCheck:
    """Check the six conditions of ``(X, Y, W, V, ε)``-ULDP (Definition 3 of Yin et al. 2023) exactly.

    ``P`` is the ``K × K`` channel on flat cells ``x * ky + y`` (rows = inputs).  The
    conditions, in the paper's numbering (Eqs. (5)-(10)), on the outputs in each region:

    1. ``W_P×V_P``: every pair of inputs has ratio ``<= e^ε``;
    2. ``W_P×V_I`` reveal ``y``: the inputs that can produce one such output share one ``y``;
    3. ``W_P×V_I``: for each fixed ``y_0 ∈ Y_N``, inputs ``(x, y_0)`` have ratios ``<= e^ε``;
    4. ``W_I×V_P`` reveal ``x`` (mirror of 2);
    5. ``W_I×V_P``: for each fixed ``x_0 ∈ X_N``, inputs ``(x_0, y)`` have ratios ``<= e^ε``;
    6. each output in ``W_I×V_I`` has exactly one input that can produce it.

    ``reading`` says which inputs the structural conditions 2, 4 and 6 range over.
    ``"literal"``: the sets the paper writes, ``X × Y_N`` for 2, ``X_N × Y`` for 4 and
    ``X_N × Y_N`` for 6 (an output that only other inputs can produce has no "exactly
    one" source and fails).  ``"strict"`` (default): *all* inputs, the exact 2-D analogue
    of Murakami and Kawamoto's invertibility (Eq. (3): ``Pr = 0`` for every other input);
    it implies the literal reading.  JuRR and TDRR pass both; CPRR fails 2 and 4 under
    the strict reading, and under the literal one fails 2 only when ``|Y_N| >= 2`` and 4
    only when ``|X_N| >= 2``.  Outputs that no input can produce are ignored.
    """
    if not isinstance(model, ULDPModel2D):
        raise TypeError(f"model must be a ULDPModel2D, got {type(model).__name__}")
    if reading not in ("strict", "literal"):
        raise ValueError(f"reading must be 'strict' or 'literal', got {reading!r}")
    epsilon = check_epsilon(epsilon)
    kx, ky = model.shape
    P4 = _as_channel(P, model.n_cells).reshape(kx, ky, kx, ky)  # [x, y, x~, y~]
    xs, ys = model.x.mask, model.y.mask
    xn, yn = ~xs, ~ys
    allowed_y, allowed_x, allowed_one = _allowed_sources(model, literal=reading == "literal")

    # 1: protected × protected outputs, all inputs
    r1 = _worst_log_ratio(P4[:, :, xs][:, :, :, ys].reshape(model.n_cells, -1))
    # 2 / 3: outputs in W_P × V_I
    blk_pi = P4[:, :, xs][:, :, :, yn].reshape(kx, ky, -1)
    c2 = _single_source(blk_pi, allowed_y, 1)
    r3 = max((_worst_log_ratio(blk_pi[:, j, :]) for j in np.flatnonzero(yn)), default=0.0)
    # 4 / 5: outputs in W_I × V_P
    blk_ip = P4[:, :, xn][:, :, :, ys].reshape(kx, ky, -1)
    c4 = _single_source(blk_ip, allowed_x, 0)
    r5 = max((_worst_log_ratio(blk_ip[i, :, :]) for i in np.flatnonzero(xn)), default=0.0)
    # 6: outputs in W_I × V_I
    c6 = _single_source(P4[:, :, xn][:, :, :, yn].reshape(kx, ky, -1), allowed_one, None)

    return ULDPCheck(
        epsilon=epsilon,
        conditions={
            1: _ratio_ok(r1, epsilon),
            2: c2,
            3: _ratio_ok(r3, epsilon),
            4: c4,
            5: _ratio_ok(r5, epsilon),
            6: c6,
        },
        worst_log_ratio={1: r1, 3: r3, 5: r5},
        descriptions=dict(_CONDITIONS_2D),
    )


#: what each condition of Definition 3 asks, in the paper's numbering
_CONDITIONS_2D = {
    1: "W_P×V_P: all input pairs within e^eps",
    2: "W_P×V_I: output reveals y",
    3: "W_P×V_I: for fixed y, x within e^eps",
    4: "W_I×V_P: output reveals x",
    5: "W_I×V_P: for fixed x, y within e^eps",
    6: "W_I×V_I: single source",
}


def _allowed_sources(model: ULDPModel2D, literal: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``kx × ky`` masks of the inputs that conditions 2, 4 and 6 range over (all inputs when strict)."""
    everyone = np.ones(model.shape, dtype=bool)
    if not literal:
        return everyone, everyone, everyone
    xn, yn = ~model.x.mask, ~model.y.mask
    return everyone & yn[None, :], everyone & xn[:, None], xn[:, None] & yn[None, :]


def _single_source(block: np.ndarray, allowed: np.ndarray, coord: int | None) -> bool:
    """block: [x, y, outputs].  Every producible output must have its positive inputs inside ``allowed``
    sharing one value along ``coord`` (0 = x, 1 = y), or being a single input (``coord=None``)."""
    for o in range(block.shape[2]):
        positive = block[:, :, o] > 0
        if not positive.any():
            continue
        pos = np.argwhere(positive & allowed)
        if pos.size == 0:
            return False
        n_values = len(pos) if coord is None else np.unique(pos[:, coord]).size
        if n_values != 1:
            return False
    return True
