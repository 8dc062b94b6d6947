"""Data layer: a registry of the real datasets, checksum-verified loaders, and the stand-in pattern.

See ``data/README.md`` for provenance.  ``python -m ldp.data fetch`` (``make data``) fills
``data/external/`` from ``../shared/datasets`` or the canonical URLs.
"""
from .fallback import DataSource, load_or_standin, show_source
from .loaders import (DatasetCorrupted, DatasetUnavailable, get_dataset, is_available, load, search_dirs,
                      sha256_of)
from .registry import DATASETS

__all__ = ["DATASETS", "DataSource", "DatasetCorrupted", "DatasetUnavailable", "get_dataset", "is_available",
           "load", "load_or_standin", "search_dirs", "sha256_of", "show_source"]
