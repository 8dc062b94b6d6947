"""The Cartesian (attribute combination x label) domain of Xue et al., Sec. 4.

A user holding value ``s_v`` of an attribute combination ``s`` (domain size
``m^s``) and label ``l`` (``m^l`` labels) encodes the pair as one index of the
product domain of size ``m = m^s m^l``:

    x = l * m^s + s_v                       (label-major blocks, footnote 2)

For a combination of several attributes ``s = (c_1 < ... < c_J)`` the value
``s_v`` is the row-major (C order) index of ``(d^{c_1}, ..., d^{c_J})`` in the
grid ``m^{c_1} x ... x m^{c_J}``, so a frequency vector over the product domain
reshapes to an array with axes ``(label, c_1, ..., c_J)``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._checks import check_codes, check_domain_size

__all__ = ["ProductDomain", "combination_codes"]


class ProductDomain:
    """The domain ``[m^s] x [m^l]`` and its one-dimensional index ``x = l m^s + s_v``.

    Parameters
    ----------
    m_attr : int
        ``m^s``, number of attribute(-combination) values, >= 1.
    m_label : int
        ``m^l``, number of labels, >= 2.
    """

    def __init__(self, m_attr: int, m_label: int) -> None:
        self.m_attr = check_domain_size(m_attr, "m_attr", minimum=1)
        self.m_label = check_domain_size(m_label, "m_label", minimum=2)
        self.m = self.m_attr * self.m_label

    def encode(self, attr: Any, label: Any) -> np.ndarray:
        """``x = label * m_attr + attr`` for whole populations (validated int codes)."""
        a = check_codes(attr, self.m_attr, "attr")
        lab = check_codes(label, self.m_label, "label")
        if a.size != lab.size:
            raise ValueError(f"attr and label must have the same length, got {a.size} and {lab.size}")
        return lab * self.m_attr + a

    def decode(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        """Inverse of :meth:`encode`: ``(attr, label)`` arrays of the same shape as ``x``."""
        arr = np.asarray(x)
        flat = check_codes(arr.ravel(), self.m, "x", allow_empty=True).reshape(arr.shape)
        return flat % self.m_attr, flat // self.m_attr

    def as_joint(self, f: Any) -> np.ndarray:
        """Reshape a length-``m`` vector over the product domain to the ``(m_label, m_attr)`` table."""
        v = np.asarray(f, dtype=float)
        if v.shape != (self.m,):
            raise ValueError(f"expected a vector of length m = {self.m}, got shape {v.shape}")
        return v.reshape(self.m_label, self.m_attr)


def combination_codes(columns: Sequence[Any], sizes: Sequence[int]) -> np.ndarray:
    """Row-major index of several attribute columns in the grid ``sizes`` (C order, last fastest).

    Parameters
    ----------
    columns : sequence of array_like
        One integer-code column per attribute of the combination, equal lengths.
    sizes : sequence of int
        The attributes' domain sizes.
    """
    if len(columns) == 0 or len(columns) != len(sizes):
        raise ValueError(f"columns and sizes must be non-empty and of equal length, got {len(columns)} "
                         f"and {len(sizes)}")
    cols = [check_codes(c, int(m), f"columns[{j}]") for j, (c, m) in enumerate(zip(columns, sizes))]
    if len({c.size for c in cols}) != 1:
        raise ValueError("all columns must have the same length")
    return np.ravel_multi_index(tuple(cols), tuple(int(m) for m in sizes)).astype(np.int64)
