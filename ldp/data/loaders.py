"""Finding, parsing and content-verifying the registered datasets.

Where files are searched, in order (:func:`search_dirs`):

1. the package's own data (``ldp/data/vendored/``: Adult, CC BY 4.0, ships with the package);
2. ``$LDP_DATA_DIR`` when set.  A relative value is resolved against the repository root when
   ``ldp`` runs from a source checkout (so ``LDP_DATA_DIR=data/external`` means the same folder
   from the repository root, from ``notebooks/`` under papermill, or from anywhere else); outside a
   checkout a relative value is refused with :class:`DataDirError`, because no directory would be
   the obvious reference;
3. ``data/external/`` of the repository, when ``ldp`` runs from a source checkout;
4. the per-user data directory (``platformdirs.user_data_dir("ldp-compendium")``).

``python -m ldp.data fetch`` writes into :func:`data_home`: ``$LDP_DATA_DIR`` if set, else
``data/external/`` in a checkout, else the per-user directory, never into the installed package.

In each directory a part of a dataset is found under any of its accepted names, plain or gzipped,
or inside one of the dataset's zip archives.  Every copy is *parsed* into the dataset's canonical
table (fixed column names and order, normalised values; see ``data/README.md``) and verified with
the registered content checksum: sha256 of the canonical CSV with its rows sorted.  The same data in
any packaging therefore verify; a changed value raises :class:`DatasetCorrupted` naming the file.
When a copy is corrupted and a later one is good, the good one is used and the bad one reported
with a :class:`DatasetWarning`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import warnings
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .registry import (
    ADULT_COLUMNS,
    DATASETS,
    MAO_SYN_CLASSES,
    MAO_SYN_KINDS,
    NURSERY_VALUES,
    Dataset,
    Part,
    mao_syn_part_key,
)

PACKAGE_DATA = Path(__file__).resolve().parent / "vendored"
REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "LDP_DATA_DIR"
APP_NAME = "ldp-compendium"


class DatasetUnavailable(LookupError):
    """A dataset is unknown, or no copy of one of its files is in any data directory."""


class DatasetCorrupted(DatasetUnavailable):
    """A copy of a dataset file was found but cannot be read or its content checksum does not match."""


class DataDirError(ValueError):
    """``$LDP_DATA_DIR`` cannot be resolved (a relative path outside a source checkout)."""


class DatasetWarning(UserWarning):
    """A corrupted copy was skipped in favour of a good one, or the rows are not in the published order."""


# ---------------------------------------------------------------------------- directories
def in_checkout(root: Path | None = None) -> bool:
    """True when ``ldp`` is imported from a source checkout of the repository (not an installed copy)."""
    root = REPO_ROOT if root is None else root
    return (
        (root / "pyproject.toml").is_file()
        and (root / "ldp" / "data").is_dir()
        and "site-packages" not in root.parts
        and "dist-packages" not in root.parts
    )


def user_data_dir() -> Path:
    """The per-user data directory (platformdirs), e.g. ``~/.local/share/ldp-compendium`` on Linux."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def env_data_dir() -> Path | None:
    """``$LDP_DATA_DIR`` resolved by the rule in the module docstring, or None when unset or empty."""
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if path.is_absolute():
        return _usable_dir(path, value)
    if in_checkout():
        return _usable_dir((REPO_ROOT / path).resolve(), value)
    raise DataDirError(
        f"${ENV_VAR}={value!r} is a relative path and ldp is not running from a source checkout, so there "
        f"is no fixed directory to resolve it against (the working directory differs between a shell, "
        f"papermill and Jupyter). Set ${ENV_VAR} to an absolute path, e.g. {Path(value).resolve()}."
    )


def _usable_dir(path: Path, value: str) -> Path:
    """``path`` unless something other than a directory is in the way (it may not exist yet: fetch creates it)."""
    blocker = next((p for p in (path, *path.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        what = "is" if blocker == path else f"lies under {blocker}, which is"
        raise DataDirError(
            f"${ENV_VAR}={value!r}: {path} {what} a regular file, not a directory. Point ${ENV_VAR} at a "
            f"directory (it is created if it does not exist), or unset it to use the default."
        )
    return path


def repo_external_dir() -> Path | None:
    return REPO_ROOT / "data" / "external" if in_checkout() else None


def data_home() -> Path:
    """Where ``python -m ldp.data fetch`` puts files: $LDP_DATA_DIR, else data/external/ in a checkout,
    else the per-user directory.  :class:`DataDirError` when ``$LDP_DATA_DIR`` is a relative path outside
    a checkout, or names a regular file (or a path under one)."""
    return env_data_dir() or repo_external_dir() or user_data_dir()


def search_dirs() -> list[Path]:
    """The directories searched for data files, in order (see the module docstring)."""
    dirs: list[Path] = []
    for d in (PACKAGE_DATA, env_data_dir(), repo_external_dir(), user_data_dir()):
        if d is not None and d not in dirs:
            dirs.append(d)
    return dirs


def where_text() -> str:
    """One sentence naming the directory a reader should put files into."""
    home = data_home()
    if os.environ.get(ENV_VAR, "").strip():
        why = f"${ENV_VAR}"
    elif in_checkout():
        why = "data/external/ of this repository"
    else:
        why = f"the per-user data directory (set ${ENV_VAR} to use another)"
    return f"{home} ({why})"


# ---------------------------------------------------------------------------- registry access
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
            f"ldp/data/registry.py with its content checksum and provenance, and add a row to data/README.md."
        ) from None


# ---------------------------------------------------------------------------- copies of a part
@dataclass(frozen=True)
class Source:
    """One copy of a part: a file, or a member of a zip archive."""

    path: Path
    member: str | None = None

    def __str__(self) -> str:
        return f"{self.path}" + (f" (member {self.member})" if self.member else "")

    def stamp(self) -> tuple:
        st = self.path.stat()
        return str(self.path), self.member, st.st_mtime_ns, st.st_size


def _zip_member(path: Path, part: Part) -> str | None | Exception:
    try:
        with zipfile.ZipFile(path) as zf:
            wanted = {n.lower() for n in part.names} | {n.lower() + ".gz" for n in part.names}
            for info in zf.infolist():
                if not info.is_dir() and info.filename.rsplit("/", 1)[-1].lower() in wanted:
                    return info.filename
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        return exc
    return None


def as_dirs(dirs, name: str = "dirs") -> list[Path]:
    """``dirs`` (a list of directories given as ``str`` or path objects) as Paths; each must be an existing
    directory.  :class:`TypeError` / :class:`ValueError` naming ``name`` otherwise."""
    if isinstance(dirs, str | bytes | os.PathLike):
        raise TypeError(f"{name} must be a list of directories, got the single {type(dirs).__name__} {dirs!r}")
    try:
        items = list(dirs)
    except TypeError:
        raise TypeError(f"{name} must be a list of directories, got {type(dirs).__name__}") from None
    out = []
    for i, d in enumerate(items):
        if not isinstance(d, str | os.PathLike) or isinstance(d, bytes):
            raise TypeError(f"{name}[{i}] must be a path (str or pathlib.Path), got {type(d).__name__}: {d!r}")
        path = Path(d).expanduser()
        if not path.is_dir():
            what = "is not a directory" if path.exists() else "does not exist"
            raise ValueError(f"{name}[{i}]={str(d)!r} {what}; give existing directories to search")
        out.append(path)
    return out


def candidates(dataset: Dataset, part: Part, dirs: list[Path] | None = None) -> list[Source | tuple]:
    """Every copy of ``part`` in ``dirs`` (default :func:`search_dirs`; else a list of existing
    directories), in search order.

    Unreadable zip archives appear as ``(path, error)`` tuples so that they are reported.
    """
    out: list[Source | tuple] = []
    for d in search_dirs() if dirs is None else as_dirs(dirs):
        for name in part.names:
            for fname in (name, name + ".gz"):
                if (d / fname).is_file():
                    out.append(Source(d / fname))
        for arch in dataset.archives:
            path = d / arch
            if path.is_file():
                member = _zip_member(path, part)
                if isinstance(member, Exception):
                    out.append((path, member))
                elif member is not None:
                    out.append(Source(path, member))
    return out


def read_source(source: Source, dataset: Dataset) -> bytes:
    """Decompressed bytes of a copy; :class:`DatasetCorrupted` naming the file when it cannot be read."""
    try:
        if source.member is not None:
            with zipfile.ZipFile(source.path) as zf:
                raw = zf.read(source.member)
            name = source.member
        else:
            raw = source.path.read_bytes()
            name = source.path.name
        return gzip.decompress(raw) if name.lower().endswith(".gz") else raw
    except (OSError, EOFError, zlib.error, zipfile.BadZipFile, gzip.BadGzipFile) as exc:
        raise DatasetCorrupted(
            f"dataset {dataset.name!r}: cannot read {source}: {type(exc).__name__}: {exc}. The file is damaged; "
            f"{_remedy(str(source))}."
        ) from None


REINSTALL = (
    "this file ships inside the package, which `python -m ldp.data fetch` cannot restore: reinstall the package "
    "(`pip install --force-reinstall ldp-compendium`, or `git checkout -- ldp/data/vendored` in a clone)"
)


def is_package_data(path: Path | str) -> bool:
    """True when ``path`` lies in the package's own data folder (files only a reinstall restores)."""
    return PACKAGE_DATA in Path(str(path).split(" (member ")[0]).parents


def _remedy(where: str) -> str:
    """What to do about a bad copy: delete and fetch again, or, for package data, reinstall."""
    return REINSTALL if is_package_data(where) else "delete the file and run `python -m ldp.data fetch` again"


# ---------------------------------------------------------------------------- canonical tables
def _bad(dataset: Dataset, where: str, what: str) -> DatasetCorrupted:
    return DatasetCorrupted(
        f"dataset {dataset.name!r}: {where}: {what}. This is not the registered data; "
        f"{_remedy(where)} (source: {dataset.landing_page})."
    )


def _text(content: bytes, dataset: Dataset, where: str) -> str:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _bad(dataset, where, f"not UTF-8 text ({exc})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _split_csv(text: str, delimiters: str, dataset: Dataset, where: str) -> pd.DataFrame:
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("|")]
    if not lines:
        raise _bad(dataset, where, "the file is empty")
    first = lines[0]
    delim = max(delimiters, key=first.count)
    try:
        frame = pd.read_csv(
            io.StringIO("\n".join(lines)),
            sep=delim,
            header=None,
            dtype=str,
            keep_default_na=False,
            skipinitialspace=True,
            quotechar='"',
        )
    except (pd.errors.ParserError, ValueError) as exc:
        raise _bad(dataset, where, f"cannot be parsed as {delim!r}-separated text ({exc})") from None
    if frame.isna().any().any():
        rows = np.flatnonzero(frame.isna().any(axis=1).to_numpy())
        raise _bad(dataset, where, f"{len(rows)} line(s) have too few fields (first: line {rows[0] + 1})")
    return pd.DataFrame({i: np.char.strip(frame[i].to_numpy(dtype=str)).astype(object) for i in frame.columns})


def _columns(
    raw: pd.DataFrame,
    dataset: Dataset,
    where: str,
    aliases: dict[str, str],
    layouts: list[tuple[str, ...]],
    optional: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Name the columns: from a header line (mapped through ``aliases``) or, without one, by layout."""
    head = [str(v).strip().lower() for v in raw.iloc[0]]
    known = {c.lower(): c for c in dataset.columns} | {k.lower(): v for k, v in aliases.items()}
    if all(h in known for h in head):
        names = [known[h] for h in head]
        if len(set(names)) != len(names):
            raise _bad(dataset, where, f"repeated columns in the header {list(raw.iloc[0])}")
        body = raw.iloc[1:].reset_index(drop=True)
    else:
        layout = next((lay for lay in layouts if len(lay) == raw.shape[1]), None)
        if layout is None:
            raise _bad(
                dataset,
                where,
                f"{raw.shape[1]} columns and no recognised header line (expected "
                f"{' or '.join(str(len(lay)) for lay in layouts)} columns)",
            )
        names, body = list(layout), raw
    body.columns = names
    missing = [c for c in dataset.columns if c not in names and c not in optional]
    if missing:
        raise _bad(dataset, where, f"columns {missing} are missing")
    return body


def _ints(col: pd.Series, dataset: Dataset, where: str) -> np.ndarray:
    try:
        return col.to_numpy(dtype=str).astype(np.int64)
    except ValueError:
        pass  # maybe written as floats ("62.0"): accepted when every value is integral
    try:
        vals = col.to_numpy(dtype=str).astype(np.float64)
    except ValueError as exc:
        raise _bad(dataset, where, f"column {col.name!r} has a non-numeric value ({exc})") from None
    if not np.all(np.isfinite(vals)) or np.any(vals != np.round(vals)):
        raise _bad(dataset, where, f"column {col.name!r} has a non-integer value")
    return vals.astype(np.int64)


def _floats(col: pd.Series, dataset: Dataset, where: str) -> np.ndarray:
    try:
        vals = col.to_numpy(dtype=str).astype(np.float64)
    except ValueError as exc:
        raise _bad(dataset, where, f"column {col.name!r} has a non-numeric value ({exc})") from None
    if not np.all(np.isfinite(vals)):
        raise _bad(dataset, where, f"column {col.name!r} has a non-finite value")
    return vals


def _words(
    col: pd.Series,
    dataset: Dataset,
    where: str,
    mapping: dict[str, str] | None = None,
    allowed: tuple[str, ...] | None = None,
) -> np.ndarray:
    vals = col.to_numpy(dtype=object)
    if mapping is not None:
        unknown = sorted(set(vals) - set(mapping))
        if unknown:
            raise _bad(dataset, where, f"column {col.name!r} has unknown values {unknown[:5]}")
        vals = np.array([mapping[v] for v in vals], dtype=object)
    if allowed is not None:
        unknown = sorted(set(vals) - set(allowed))
        if unknown:
            raise _bad(dataset, where, f"column {col.name!r} has unknown values {unknown[:5]}")
    return vals


def _parse_adult(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    raw = _split_csv(_text(content, dataset, where), ",", dataset, where)
    if raw.shape[1] != len(ADULT_COLUMNS):
        raise _bad(dataset, where, f"{raw.shape[1]} columns, expected {len(ADULT_COLUMNS)}")
    raw.columns = list(ADULT_COLUMNS)
    out = {}
    for c in ADULT_COLUMNS:
        if c in ("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"):
            out[c] = _ints(raw[c], dataset, where)
        else:
            vals = raw[c].to_numpy(dtype=object)
            if c == "income":
                vals = np.array([v[:-1] if v.endswith(".") else v for v in vals], dtype=object)
                _words(pd.Series(vals, name=c), dataset, where, allowed=("<=50K", ">50K"))
            out[c] = np.where(vals == "?", None, vals)
    return pd.DataFrame(out)


def _parse_retail(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    baskets = []
    for i, line in enumerate(_text(content, dataset, where).split("\n")):
        if line.strip():
            try:
                baskets.append(tuple(int(t) for t in line.split()))
            except ValueError:
                raise _bad(dataset, where, f"line {i + 1} is not a list of item numbers: {line[:60]!r}") from None
    return pd.DataFrame({"basket": baskets})


def _named_table(
    content: bytes,
    dataset: Dataset,
    where: str,
    delimiters: str,
    aliases: dict[str, str] | None = None,
    layouts: list[tuple[str, ...]] | None = None,
    optional: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Decode, split and name the columns of a delimited file (the common first step of the CSV parsers)."""
    raw = _split_csv(_text(content, dataset, where), delimiters, dataset, where)
    return _columns(raw, dataset, where, aliases or {}, layouts or [dataset.columns], optional)


_STAB_WORDS = ("stable", "unstable")


def _parse_smartgrid(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    cols = dataset.columns
    raw = _named_table(content, dataset, where, ",;", layouts=[cols, cols[:-1]], optional=("stabf",))
    out = {c: np.round(_floats(raw[c], dataset, where), 9) for c in cols[:-1]}
    derived = np.where(out["stab"] > 0, "unstable", "stable").astype(object)
    if "stabf" in raw.columns:
        given = _words(raw["stabf"], dataset, where, allowed=_STAB_WORDS)
        wrong = np.flatnonzero(given != derived)
        if len(wrong):
            raise _bad(
                dataset,
                where,
                f"stabf disagrees with the sign of stab in {len(wrong)} row(s) (first: data row {wrong[0] + 1})",
            )
    out["stabf"] = derived
    return pd.DataFrame(out)


def _parse_nursery(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    cols = dataset.columns
    raw = _named_table(content, dataset, where, ",", {"class": "classification"})
    classes = ("not_recom", "recommend", "very_recom", "priority", "spec_prior")
    out = {c: _words(raw[c], dataset, where, allowed=NURSERY_VALUES.get(c, classes)) for c in cols}
    return pd.DataFrame(out)


_STUDENT_WORDS = ("gender", "race/ethnicity", "parental level of education", "lunch", "test preparation course")


def _parse_students(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    cols = dataset.columns
    raw = _named_table(
        content, dataset, where, ",", {"math": "math score", "reading": "reading score", "writing": "writing score"}
    )
    out = {c: (_words(raw[c], dataset, where) if c in _STUDENT_WORDS else _ints(raw[c], dataset, where)) for c in cols}
    return pd.DataFrame(out)


def _parse_cardio(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    cols = dataset.columns
    raw = _named_table(content, dataset, where, ";,", {"sbp": "ap_hi", "dbp": "ap_lo"})
    out = {c: (_floats(raw[c], dataset, where) if c == "weight" else _ints(raw[c], dataset, where)) for c in cols}
    return pd.DataFrame(out)


#: the integer codes of the re-packaged copy (identified from the value counts, which match the
#: original's category counts one to one) and the original words
DIABETES_GENDER = {"Female": "Female", "Male": "Male", "Other": "Male", "1": "Female", "0": "Male"}
DIABETES_SMOKING = {w: w for w in ("No Info", "not current", "never", "former", "ever", "current")} | {
    "0": "No Info",
    "1": "not current",
    "2": "never",
    "3": "former",
    "4": "ever",
    "5": "current",
}


def _parse_diabetes(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    cols = dataset.columns
    raw = _named_table(content, dataset, where, ",")
    out = {}
    for c in cols:
        if c == "gender":
            out[c] = _words(raw[c], dataset, where, DIABETES_GENDER)
        elif c == "smoking_history":
            out[c] = _words(raw[c], dataset, where, DIABETES_SMOKING)
        elif c in ("age", "bmi", "HbA1c_level"):
            out[c] = _floats(raw[c], dataset, where)
        else:
            out[c] = _ints(raw[c], dataset, where)
    return pd.DataFrame(out)


_IMAGE_COLUMN_NAMES = ("image_id", "image", "image_name", "file", "filename")


def _parse_celeba(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    """``list_attr_celeba.txt``: count line (optional), names line, then ``NNNNNN.jpg v1 ... v40``.

    Vectorised (one ``pandas.read_csv`` over the body); see the registry's normalisation text.
    """
    cols = dataset.columns
    body = content[3:] if content.startswith(b"\xef\xbb\xbf") else content
    body = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n").lstrip(b"\n")
    first, _, rest = body.partition(b"\n")
    count = None
    if first.strip().isdigit():
        count = int(first.strip())
        body = rest.lstrip(b"\n")
    header, _, rows = body.partition(b"\n")
    comma = b"," in header
    names = header.decode("utf-8", errors="replace").replace(",", " ").split()
    if names and names[0].lower() in _IMAGE_COLUMN_NAMES:
        names = names[1:]
    if len(names) != len(cols) or set(names) != set(cols):
        raise _bad(dataset, where, f"the attribute names line does not list CelebA's {len(cols)} attributes")
    try:
        raw = pd.read_csv(io.BytesIO(rows), sep="," if comma else r"\s+", header=None, dtype={0: str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise _bad(dataset, where, f"cannot be parsed as an attribute table ({exc})") from None
    if raw.shape[1] != len(cols) + 1:
        raise _bad(dataset, where, f"{raw.shape[1]} fields per line, expected {len(cols) + 1} (image and attributes)")
    vals = raw.iloc[:, 1:].to_numpy()
    if vals.dtype.kind not in "iu":
        raise _bad(dataset, where, "a line has too few fields or a value that is not an integer")
    low = -1 if (vals == -1).any() else 0  # -1/1 as published, or 0/1 in a re-packaged copy
    if not ((vals == low) | (vals == 1)).all():
        if low == -1:
            raise _bad(dataset, where, "an attribute value is not -1 or 1")
        raise _bad(dataset, where, "an attribute value is not -1/1 (or 0/1)")
    n = len(raw)
    if count is not None and count != n:
        raise _bad(dataset, where, f"the count line says {count} images but {n} lines follow")
    images = raw[0].to_numpy(dtype=str)
    order = np.argsort(images, kind="stable")
    expected = np.char.mod("%06d.jpg", np.arange(1, n + 1))
    if not np.array_equal(images[order], expected):
        raise _bad(dataset, where, f"the image names are not 000001.jpg to {n:06d}.jpg, each once")
    codes = (vals[order] > 0).astype(np.int8)
    return pd.DataFrame(codes, columns=names)[list(cols)]


def _parse_heart(content: bytes, dataset: Dataset, part: Part, where: str) -> pd.DataFrame:
    """Kaggle's BRFSS 2015 heart disease CSV: 22 columns, values written as floats; header optional."""
    cols = dataset.columns
    first = content[:4096].decode("utf-8-sig", errors="replace").lstrip().split("\n", 1)[0]
    head = [h.strip().strip('"') for h in first.strip().split(",")]
    try:
        float(head[0])
        has_header = False
    except ValueError:
        has_header = True
    if has_header and (len(head) != len(cols) or set(head) != set(cols)):
        raise _bad(dataset, where, f"the header {head[:4]}... does not name the {len(cols)} published columns")
    try:
        raw = pd.read_csv(io.BytesIO(content), header=0 if has_header else None, dtype=np.float64, encoding="utf-8-sig")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise _bad(dataset, where, f"cannot be parsed as a numeric CSV ({exc})") from None
    if raw.shape[1] != len(cols):
        raise _bad(dataset, where, f"{raw.shape[1]} columns, expected {len(cols)}")
    if not has_header:
        raw.columns = list(cols)
    vals = raw[list(cols)].to_numpy()
    if not np.isfinite(vals).all():
        raise _bad(dataset, where, "a field is missing or not finite")
    if (vals != np.round(vals)).any():
        raise _bad(dataset, where, "a value is not integral")
    return pd.DataFrame(vals.astype(np.int64), columns=list(cols))


def _parse_mao_syn(content: bytes, dataset: Dataset, part: Part, where: str) -> np.ndarray:
    """One ``.npy`` SYN table: an integer array of the registered shape with non-negative counts."""
    try:
        arr = np.load(io.BytesIO(content), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise _bad(dataset, where, f"not a NumPy .npy array ({exc})") from None
    if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "iu":
        raise _bad(dataset, where, f"not an integer array (dtype {getattr(arr, 'dtype', type(arr).__name__)})")
    if arr.shape != part.shape:
        raise _bad(dataset, where, f"shape {arr.shape}, the registry expects {part.shape}")
    if (arr < 0).any():
        raise _bad(dataset, where, "a count is negative")
    return arr.astype(np.int64)


PARSERS: dict[str, Callable[[bytes, Dataset, Part, str], pd.DataFrame | np.ndarray]] = {
    "adult": _parse_adult,
    "smartgrid": _parse_smartgrid,
    "retail": _parse_retail,
    "nursery": _parse_nursery,
    "students": _parse_students,
    "cardio": _parse_cardio,
    "diabetes": _parse_diabetes,
    "celeba": _parse_celeba,
    "heart": _parse_heart,
    "mao2025_syn": _parse_mao_syn,
}


def _published_order(name: str, frame: pd.DataFrame) -> np.ndarray | None:
    """Row permutation into the published order where the content determines it (nursery, cardio)."""
    if name == "nursery":
        keys = [pd.Categorical(frame[c], categories=NURSERY_VALUES[c]).codes for c in NURSERY_VALUES]
        return np.lexsort(keys[::-1])
    if name == "cardio":
        return np.argsort(frame["id"].to_numpy(), kind="stable")
    return None


def _restore_order(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    order = _published_order(name, frame)
    return frame if order is None else frame.iloc[order].reset_index(drop=True)


def _column_strings(col: pd.Series) -> pd.Series:
    values = col.to_numpy()
    if col.dtype.kind == "f":
        strings = [repr(float(v)) for v in values]
    elif col.dtype.kind in "iub":
        strings = values.astype(str).tolist()
    elif len(values) and isinstance(values[0], tuple):
        strings = [" ".join(map(str, v)) for v in values]
    else:
        strings = ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in values]
    return pd.Series(strings, dtype=object)


def canonical_lines(frame: pd.DataFrame) -> list[str]:
    """The data lines of the canonical CSV of ``frame`` (fields joined by commas, missing = empty)."""
    if len(frame.columns) and all(frame[c].dtype.kind in "iu" for c in frame.columns):
        values = frame.to_numpy()
        if len(frame) and values.min() >= 0 and values.max() <= 9:
            # single digits (e.g. CelebA's 0/1): the lines assembled as bytes, ~50x faster than below
            n, k = values.shape
            chars = np.full((n, 2 * k), ord(","), dtype=np.uint8)
            chars[:, 0::2] = values + ord("0")
            chars[:, -1] = ord("\n")
            return chars.tobytes().decode("ascii").split("\n")[:-1]
        # integers only: pandas writes them exactly as str(int) does, and about 3x faster
        return frame.to_csv(header=False, index=False, lineterminator="\n").split("\n")[:-1]
    cols = [_column_strings(frame[c]) for c in frame.columns]
    line = cols[0]
    for c in cols[1:]:
        line = line + "," + c
    return line.tolist()


def _digest(columns, lines: list[str]) -> str:
    text = ",".join(map(str, columns)) + "\n" + "".join(ln + "\n" for ln in lines)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_sha256(frame: pd.DataFrame, *, sort: bool = True) -> str:
    """sha256 of the canonical CSV of ``frame``: a header line, then one line per row, rows sorted.

    With ``sort=False`` the rows stay in frame order (the registry's ``order_sha256``).
    """
    lines = canonical_lines(frame)
    return _digest(frame.columns, sorted(lines) if sort else lines)


def array_sha256(array: np.ndarray) -> str:
    """Content checksum of an integer array: sha256 of ``"int64 <shape>\\n"`` and its values as
    little-endian int64 in C order, so that any integer dtype, byte order or file packaging verifies."""
    arr = np.asarray(array)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"array must hold integers, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype="<i8")
    head = ("int64 " + "x".join(map(str, arr.shape)) + "\n").encode()
    return hashlib.sha256(head + arr.tobytes()).hexdigest()


def parse_part(dataset: Dataset, part: Part, source: Source) -> pd.DataFrame | np.ndarray:
    """The verified canonical table of one copy of ``part``, rows in the published order where the
    content determines it; :class:`DatasetCorrupted` otherwise.  ``frame.attrs["in_published_order"]``
    tells whether the rows are in the order of the original publication.  For an array dataset, the
    verified int64 array."""
    where = str(source)
    frame = PARSERS[dataset.name](read_source(source, dataset), dataset, part, where)
    if dataset.kind == "array":
        digest = array_sha256(frame)
        if digest != part.sha256:
            raise _bad(
                dataset,
                where,
                f"content checksum mismatch: sha256 of the array is {digest}, the registry expects "
                f"{part.sha256} (some value differs)",
            )
        return frame
    if len(frame) != part.rows:
        raise _bad(dataset, where, f"{len(frame)} rows, the registry expects {part.rows}")
    lines = canonical_lines(frame)
    digest = _digest(frame.columns, sorted(lines))
    if digest != part.sha256:
        raise _bad(
            dataset,
            where,
            f"content checksum mismatch: sha256 of the canonical table is {digest}, the "
            f"registry expects {part.sha256} (some value differs)",
        )
    order = _published_order(dataset.name, frame)
    if order is not None:
        frame = frame.iloc[order].reset_index(drop=True)
        lines = [lines[i] for i in order]
    frame.attrs["in_published_order"] = _digest(frame.columns, lines) == part.order_sha256
    return frame


# ---------------------------------------------------------------------------- datasets
@dataclass
class Inspection:
    """What :func:`inspect` found for one dataset."""

    name: str
    state: str  # "ok", "missing" or "corrupted"
    used: list[Source] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)  # messages naming every corrupted copy
    bad_files: list[Path] = field(default_factory=list)  # the files of those copies
    order_note: str = ""
    frames: list[pd.DataFrame] = field(default_factory=list)


def _first_good(dataset: Dataset, part: Part, dirs: list[Path] | None, result: Inspection):
    """``(source, parsed)`` of the first copy of ``part`` that verifies, or None; bad copies go to ``result``."""
    for cand in candidates(dataset, part, dirs):
        if isinstance(cand, tuple):
            path, exc = cand
            result.bad.append(f"dataset {dataset.name!r}: cannot read the zip archive {path}: {exc}")
            result.bad_files.append(path)
            continue
        try:
            return cand, parse_part(dataset, part, cand)
        except DatasetCorrupted as exc:
            result.bad.append(str(exc))
            result.bad_files.append(cand.path)
    return None


def inspect(name: str, dirs: list[Path] | None = None) -> Inspection:
    """Find, parse and verify every part of ``name`` in ``dirs`` (default: all search directories; else a
    list of existing directories, ``str`` or :class:`pathlib.Path`)."""
    dataset = get_dataset(name)
    dirs = None if dirs is None else as_dirs(dirs)
    result = Inspection(name, "ok")
    for part in dataset.parts:
        found = _first_good(dataset, part, dirs, result)
        if found is None:
            result.state = "corrupted" if result.bad else "missing"
            return result
        result.used.append(found[0])
        result.frames.append(found[1])
    return result


_CACHE: dict[str, tuple[tuple, pd.DataFrame, tuple[str, ...]]] = {}


def _stamp(dataset: Dataset) -> tuple:
    stamps = []
    for part in dataset.parts:
        for cand in candidates(dataset, part):
            stamps.append(cand.stamp() if isinstance(cand, Source) else (str(cand[0]), "unreadable"))
    return tuple(stamps)


def _missing_message(dataset: Dataset, parts: tuple[Part, ...] | None = None) -> str:
    where = ", ".join(str(d) for d in search_dirs())
    names = " or ".join(f"{p.name}[.gz]" for p in (dataset.parts if parts is None else parts))
    return (
        f"dataset {dataset.name!r} ({dataset.title}) is not available: no copy of {names}"
        f"{' or ' + ' / '.join(dataset.archives) if dataset.archives else ''} in {where}. "
        f"{how_to_get(dataset)}"
    )


def how_to_get(dataset: Dataset) -> str:
    """What a reader does to obtain ``dataset`` (the command, or the file to download and where to put it)."""
    if dataset.vendored:
        return "It ships with the package; reinstall ldp-compendium if its files are missing."
    if dataset.local_only:
        return (
            f"{dataset.obtain[0].upper()}{dataset.obtain[1:]}: {where_text()}. `python -m ldp.data fetch` "
            f"copies it from a local folder ($LDP_SHARED_DATASETS, or ../shared/datasets next to a checkout) "
            f"when one holds it, and never downloads it."
        )
    if dataset.login_required:
        return (
            f"Download it from {dataset.landing_page} (Kaggle's Download button; it needs a free Kaggle "
            f"account), then put the zip archive, or the file {dataset.parts[0].name} inside it, into "
            f"{where_text()}. `python -m ldp.data status` then checks it."
        )
    return (
        f"Run `python -m ldp.data fetch` (or `make data` in the repository), which downloads "
        f"{dataset.urls[0]} into {where_text()} and verifies it; or put that file there yourself."
    )


def load(name: str) -> pd.DataFrame:
    """Load a registered dataset as its canonical, content-verified DataFrame.

    Raises
    ------
    DatasetUnavailable
        unknown name, or no copy of a file in any data directory (the message says what to do).
    DatasetCorrupted
        copies exist but none verifies (the message names every file and what is wrong with it).

    Warns
    -----
    DatasetWarning
        a corrupted copy was skipped because a later copy is good; or the rows are not in the order of
        the original publication (results that depend on row order then differ from the book's).
    """
    dataset = get_dataset(name)
    if dataset.kind == "array":
        keys = ", ".join(repr(p.key) for p in dataset.parts)
        raise ValueError(
            f"dataset {name!r} is a set of arrays, not a table: use ldp.data.load_array({name!r}, part) with "
            f"part one of {keys}" + (" (or ldp.data.load_syn_counts(kind, c))" if name == "mao2025_syn" else "")
        )
    stamp = _stamp(dataset)
    cached = _CACHE.get(name)
    if cached is not None and cached[0] == stamp:
        for msg in cached[2]:
            warnings.warn(msg, DatasetWarning, stacklevel=2)
        return cached[1].copy()
    result = inspect(name)
    if result.state == "missing":
        raise DatasetUnavailable(_missing_message(dataset))
    if result.state == "corrupted":
        raise DatasetCorrupted("no good copy; " + " | ".join(result.bad))
    notes = [f"skipped a corrupted copy and used {', '.join(map(str, result.used))}: {msg}" for msg in result.bad]
    parts = []
    for part, frame in zip(dataset.parts, result.frames):
        if not frame.attrs.pop("in_published_order"):
            notes.append(
                f"dataset {name!r}: the rows of {', '.join(map(str, result.used))} are not in the order "
                f"of the original publication; results that depend on row order (leading rows, "
                f"seeded subsamples) will differ from the book's."
            )
        if name == "adult":
            frame["split"] = part.key
        parts.append(frame)
    out = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]) and not (len(out) and isinstance(out[col].iloc[0], tuple)):
            out[col] = out[col].astype("category")
    for msg in notes:
        warnings.warn(msg, DatasetWarning, stacklevel=2)
    _CACHE[name] = (stamp, out, tuple(notes))
    return out.copy()


def is_available(name: str, part: str | None = None) -> bool:
    """True when a copy of every file of ``name`` (or of its part ``part``) is present (the content is
    verified on load)."""
    dataset = get_dataset(name)
    parts = dataset.parts if part is None else (get_part(dataset, part),)
    return all(any(isinstance(c, Source) for c in candidates(dataset, p)) for p in parts)


def get_part(dataset: Dataset, part: str) -> Part:
    """The part of ``dataset`` whose key is ``part``; a clear error naming the keys otherwise."""
    if not isinstance(part, str):
        raise TypeError(f"part must be a string, got {type(part).__name__}")
    for p in dataset.parts:
        if p.key == part:
            return p
    keys = ", ".join(repr(p.key) for p in dataset.parts)
    raise ValueError(f"part must be one of {keys} for dataset {dataset.name!r}, got {part!r}")


_ARRAY_CACHE: dict[tuple[str, str], tuple[tuple, np.ndarray, tuple[str, ...]]] = {}


def load_array(name: str, part: str) -> np.ndarray:
    """Load one part of a registered array dataset as its verified int64 array (a fresh copy).

    Raises
    ------
    DatasetUnavailable
        unknown name, or no copy of the part in any data directory (the message says what to do).
    DatasetCorrupted
        copies exist but none verifies (the message names every file).
    ValueError
        ``name`` is a table dataset (use :func:`load`) or ``part`` is not one of its parts.

    Warns
    -----
    DatasetWarning
        a corrupted copy was skipped because a later copy is good.
    """
    dataset = get_dataset(name)
    if dataset.kind != "array":
        raise ValueError(f"dataset {name!r} is a table: use ldp.data.load({name!r})")
    p = get_part(dataset, part)
    stamp = tuple(c.stamp() if isinstance(c, Source) else (str(c[0]), "unreadable") for c in candidates(dataset, p))
    cached = _ARRAY_CACHE.get((name, part))
    if cached is None or cached[0] != stamp:
        result = Inspection(name, "ok")
        found = _first_good(dataset, p, None, result)
        if found is None:
            if result.bad:
                raise DatasetCorrupted("no good copy; " + " | ".join(result.bad))
            raise DatasetUnavailable(_missing_message(dataset, (p,)))
        notes = tuple(f"skipped a corrupted copy and used {found[0]}: {msg}" for msg in result.bad)
        cached = (stamp, found[1], notes)
        _ARRAY_CACHE[(name, part)] = cached
    for msg in cached[2]:
        warnings.warn(msg, DatasetWarning, stacklevel=2)
    return cached[1].copy()


def _syn_kind(kind) -> int:
    if isinstance(kind, str) and kind.strip().lower().removeprefix("syn").isdigit():
        kind = int(kind.strip().lower().removeprefix("syn"))
    if isinstance(kind, bool) or not isinstance(kind, int | np.integer) or int(kind) not in MAO_SYN_KINDS:
        raise ValueError(f"kind must be 3 or 4 (SYN3 or SYN4; also 'syn3'/'SYN4'), got {kind!r}")
    return int(kind)


def load_syn_counts(kind: int | str, c: int) -> np.ndarray:
    """The multi-class authors' SYN3/SYN4 class x item count table for ``c`` classes (Mao et al., Fig. 10).

    Parameters
    ----------
    kind : 3, 4, "syn3" or "SYN4"
        the synthetic data set.
    c : int
        number of classes, one of 10, 20, 30, 40, 50.

    Returns
    -------
    numpy.ndarray
        int64 array of shape ``(c, 20000)``: row ``k`` is the k-th class in the generator's order (the
        class index it seeds with), column ``j`` the count of item ``j + 1``; the output of the authors'
        ``top-k item mining/SYN{kind}/generate_data.py`` (Multi-class-Item-Mining, commit
        fb20ec9e5823a006db2439d5cf41643ef0146f6c), counted per class.  Raises
        :class:`DatasetUnavailable` when the file is absent (the chapter then regenerates the table)
        and :class:`DatasetCorrupted` when a copy does not verify.
    """
    k = _syn_kind(kind)
    if isinstance(c, bool) or not isinstance(c, int | np.integer) or int(c) not in MAO_SYN_CLASSES:
        raise ValueError(f"c must be one of {MAO_SYN_CLASSES}, got {c!r}")
    return load_array("mao2025_syn", mao_syn_part_key(k, int(c)))


def sha256_of(path: Path) -> str:
    """sha256 of the decompressed bytes of a file (kept for comparing packagings byte for byte)."""
    raw = Path(path).read_bytes()
    return hashlib.sha256(gzip.decompress(raw) if str(path).endswith(".gz") else raw).hexdigest()


__all__ = [
    "DataDirError",
    "DatasetCorrupted",
    "DatasetUnavailable",
    "DatasetWarning",
    "Inspection",
    "REINSTALL",
    "Source",
    "array_sha256",
    "as_dirs",
    "candidates",
    "content_sha256",
    "data_home",
    "env_data_dir",
    "get_dataset",
    "get_part",
    "how_to_get",
    "in_checkout",
    "inspect",
    "is_available",
    "is_package_data",
    "load",
    "load_array",
    "load_syn_counts",
    "parse_part",
    "search_dirs",
    "sha256_of",
    "user_data_dir",
    "where_text",
]
