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
    content_sha256,
    data_home,
    get_dataset,
    inspect,
    is_available,
    load,
    search_dirs,
    sha256_of,
    user_data_dir,
)
from .registry import DATASETS, NOT_PUBLIC

__all__ = [
    "DATASETS",
    "NOT_PUBLIC",
    "DataDirError",
    "DataSource",
    "DatasetCorrupted",
    "DatasetUnavailable",
    "DatasetWarning",
    "content_sha256",
    "data_home",
    "get_dataset",
    "inspect",
    "is_available",
    "load",
    "load_or_standin",
    "search_dirs",
    "sha256_of",
    "show_source",
    "user_data_dir",
]
