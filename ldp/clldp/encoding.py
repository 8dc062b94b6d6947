"""The Cartesian (label x attribute combination) domain of Xue et al., Sec. 4.

A user holding value ``s_v`` of an attribute combination ``s`` (domain size
``m^s``) and label ``l`` (``m^l`` labels) encodes the pair as one index of the
product domain of size ``m = m^s m^l``:

    x = l * m^s + s_v                       (label-major blocks, footnote 2)

that is, the flat index of ``(l, s_v)`` in the :class:`ldp.tables.ProductDomain`
of sizes ``(m^l, m^s)``.  For a combination of several attributes
``s = (c_1 < ... < c_J)`` the value ``s_v`` is the flat index of
``(d^{c_1}, ..., d^{c_J})`` in the grid ``m^{c_1} x ... x m^{c_J}``, so a
frequency vector over the product domain reshapes to an array with axes
``(label, c_1, ..., c_J)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._checks import check_domain_size
from ..tables import ProductDomain

__all__ = ["label_attribute_domain", "combination_codes"]


def label_attribute_domain(m_attr: int, m_label: int) -> ProductDomain:
    """The domain ``[m^l] x [m^s]`` whose flat index is ``x = l m^s + s_v`` (encode ``(label, attr)``).

    Parameters
    ----------
    m_attr : int
        ``m^s``, number of attribute(-combination) values, >= 1.
    m_label : int
        ``m^l``, number of labels, >= 2.
    """
    m_attr = check_domain_size(m_attr, "m_attr", minimum=1)
    m_label = check_domain_size(m_label, "m_label", minimum=2)
    return ProductDomain((m_label, m_attr), names=("label", "attr"))


def combination_codes(columns: Sequence[Any], sizes: Sequence[int]) -> np.ndarray:
    """Flat index of several attribute columns in the grid ``sizes`` (C order, last fastest).

    Parameters
    ----------
    columns : sequence of array_like
        One integer-code column per attribute of the combination, equal lengths.
    sizes : sequence of int
        The attributes' domain sizes.
    """
    if len(columns) == 0 or len(columns) != len(sizes):
        raise ValueError(
            f"columns and sizes must be non-empty and of equal length, got {len(columns)} and {len(sizes)}"
        )
    return ProductDomain(sizes, [f"columns[{j}]" for j in range(len(sizes))]).encode(*columns)
