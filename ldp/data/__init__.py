"""Data layer: a registry of the real datasets, content-verified loaders, and the stand-in pattern.

See ``data/README.md`` for provenance.  ``python -m ldp.data status`` lists what is present and where
files are searched; ``python -m ldp.data fetch`` (``make data``) obtains what can be obtained.
"""

from .fallback import DataSource, load_or_standin, show_source
from .loaders import (
    DataDirError,
    DatasetCorrupted,
    DatasetUnavailable,
    DatasetWarning,
    array_sha256,
    content_sha256,
    data_home,
    get_dataset,
    inspect,
    is_available,
    load,
    load_array,
    load_syn_counts,
    search_dirs,
    sha256_of,
    user_data_dir,
)
from .registry import DATASETS, NOT_PUBLIC, find_dataset

__all__ = [
    "DATASETS",
    "NOT_PUBLIC",
    "DataDirError",
    "DataSource",
    "DatasetCorrupted",
    "DatasetUnavailable",
    "DatasetWarning",
    "array_sha256",
    "content_sha256",
    "data_home",
    "find_dataset",
    "get_dataset",
    "inspect",
    "is_available",
    "load",
    "load_array",
    "load_or_standin",
    "load_syn_counts",
    "search_dirs",
    "sha256_of",
    "show_source",
    "user_data_dir",
]
