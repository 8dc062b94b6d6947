"""Finding, verifying and parsing the registered datasets.

Search order for every file: the vendored ``data/`` folder of the repository,
then the git-ignored ``data/external/``, then ``$LDP_DATA_DIR``.  A file may be
stored gzipped or plain; its sha256 is always taken over the decompressed
bytes and must match the registry, otherwise :class:`DatasetCorrupted` is raised.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import os
from pathlib import Path

import pandas as pd

from .registry import DATASETS, DataFile, Dataset

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "LDP_DATA_DIR"


class DatasetUnavailable(LookupError):
    """A dataset is unknown, or its file is not in any data directory."""


class DatasetCorrupted(DatasetUnavailable):
    """A dataset file was found but its checksum does not match the registry."""


def search_dirs() -> list[Path]:
    """The directories searched for data files, in order."""
    dirs = [REPO_ROOT / "data", REPO_ROOT / "data" / "external"]
    env = os.environ.get(ENV_VAR)
    if env:
        dirs.append(Path(env).expanduser())
    return dirs


def get_dataset(name: str) -> Dataset:
    """The registry entry of ``name``; a clear :class:`DatasetUnavailable` for unknown names."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    try:
        return DATASETS[name]
    except KeyError:
        known = ", ".join(sorted(DATASETS))
        raise DatasetUnavailable(
            f"unknown dataset {name!r}. Known datasets: {known}. To add one, register it in "
            f"ldp/data/registry.py with its sha256 and provenance, and add a row to data/README.md."
        ) from None


def _read_bytes(path: Path) -> bytes:
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw


def sha256_of(path: Path) -> str:
    """sha256 of the decompressed content of ``path``."""
    return hashlib.sha256(_read_bytes(path)).hexdigest()


def _candidates(file: DataFile) -> list[Path]:
    return [d / n for d in search_dirs() for n in (file.name, file.stem)]


def locate(file: DataFile, dataset: Dataset) -> Path:
    """Path of the first existing copy of ``file``; :class:`DatasetUnavailable` naming what to do if none."""
    for path in _candidates(file):
        if path.is_file():
            return path
    where = ", ".join(str(d) for d in search_dirs())
    env = "" if os.environ.get(ENV_VAR) else f" (${ENV_VAR} is not set)"
    urls = f" or download it from {file.urls[0]}" if file.urls else ""
    raise DatasetUnavailable(
        f"dataset {dataset.name!r} ({dataset.title}) is not available: file {file.name} (or {file.stem}) "
        f"was not found in {where}{env}. Put the verified file (sha256 of its decompressed content "
        f"{file.sha256}) into data/external/ or into ${ENV_VAR}: run `make data`, which copies it from "
        f"../shared/datasets when that folder exists{urls}. Source: {dataset.source}."
    )


_VERIFIED: dict[tuple[str, float, int], bytes] = {}


def read_verified(file: DataFile, dataset: Dataset) -> bytes:
    """Decompressed, checksum-verified bytes of ``file``."""
    path = locate(file, dataset)
    stat = path.stat()
    key = (str(path), stat.st_mtime, stat.st_size)
    if key in _VERIFIED:
        return _VERIFIED[key]
    try:
        content = _read_bytes(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise DatasetCorrupted(
            f"dataset {dataset.name!r}: cannot read {path} ({exc}). Delete the file and run `make data` again."
        ) from None
    digest = hashlib.sha256(content).hexdigest()
    if digest != file.sha256:
        raise DatasetCorrupted(
            f"dataset {dataset.name!r}: checksum mismatch for {path}: expected sha256 {file.sha256} of the "
            f"decompressed content, got {digest}. The file is corrupted or a different version; delete it and "
            f"run `make data` again (or fetch it from {dataset.source})."
        )
    _VERIFIED.clear()  # keep at most one file's bytes in memory
    _VERIFIED[key] = content
    return content


def is_available(name: str) -> bool:
    """True when every file of ``name`` can be found (the checksum is checked on load)."""
    dataset = get_dataset(name)
    try:
        for file in dataset.files:
            locate(file, dataset)
    except DatasetUnavailable:
        return False
    return True


# ---------------------------------------------------------------------------- parsers
ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
    "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country",
    "income",
]


def _parse_adult(files: list[bytes]) -> pd.DataFrame:
    parts = []
    for split, content in zip(("train", "test"), files):
        frame = pd.read_csv(io.BytesIO(content), header=None, names=ADULT_COLUMNS, skipinitialspace=True,
                            na_values="?", comment="|", skip_blank_lines=True)
        frame["income"] = frame["income"].str.rstrip(".")
        frame["split"] = split
        parts.append(frame)
    out = pd.concat(parts, ignore_index=True)
    for col in ADULT_COLUMNS:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].astype("category")
    out["split"] = out["split"].astype("category")
    return out


def _parse_retail(files: list[bytes]) -> pd.DataFrame:
    lines = files[0].decode("ascii").splitlines()
    baskets = [tuple(int(t) for t in line.split()) for line in lines if line.strip()]
    return pd.DataFrame({"basket": baskets})


def _csv(sep: str = ",", categorical: bool = True):
    def parse(files: list[bytes]) -> pd.DataFrame:
        frame = pd.read_csv(io.BytesIO(files[0]), sep=sep)
        if categorical:
            for col in frame.columns:
                if not pd.api.types.is_numeric_dtype(frame[col]):
                    frame[col] = frame[col].astype("category")
        return frame
    return parse


_PARSERS = {
    "adult": _parse_adult,
    "smartgrid": _csv(";"),
    "retail": _parse_retail,
    "nursery": _csv(","),
    "students": _csv(","),
    "cardio": _csv(";"),
    "diabetes": _csv(","),
}


def load(name: str) -> pd.DataFrame:
    """Load a registered dataset as a DataFrame after verifying its checksum.

    Raises
    ------
    DatasetUnavailable
        unknown name, or no copy of a file in any data directory (the message says where to put it).
    DatasetCorrupted
        a copy exists but its checksum does not match.
    """
    dataset = get_dataset(name)
    contents = [read_verified(f, dataset) for f in dataset.files]
    frame = _PARSERS[name](contents)
    if len(frame) != dataset.rows:
        raise DatasetCorrupted(
            f"dataset {name!r}: parsed {len(frame)} rows, the registry expects {dataset.rows}."
        )
    return frame
