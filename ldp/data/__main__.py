"""``python -m ldp.data status|fetch [--no-download] [NAME ...]``: list or obtain the real datasets.

``status`` lists the directories searched and, for every dataset, whether a copy verifies and where
it is.  ``fetch`` obtains what is missing into the data directory (:func:`ldp.data.loaders.data_home`:
``$LDP_DATA_DIR``, else ``data/external/`` in a checkout, else the per-user directory; never the
installed package): it copies verified files from the shared datasets folder (``$LDP_SHARED_DATASETS``,
default ``../shared/datasets`` next to a checkout) when present, otherwise downloads the direct URLs
of the original files and verifies them, and for data behind a login (Kaggle) prints exactly which
file to download and where to put it.  Both exit with status 1 when a dataset is missing or a copy is
corrupted (naming them), 2 with a one-line message on a usage or configuration error (unknown command
or dataset; ``$LDP_DATA_DIR`` relative outside a checkout, a regular file, or not creatable/writable;
``$LDP_SHARED_DATASETS`` a regular file), 0 when everything verifies.  CelebA and the SYN tables are
never downloaded: ``fetch`` only copies them from the shared folder.
"""

from __future__ import annotations

import os
import shutil
import sys
import urllib.parse
import urllib.request
from pathlib import Path

from . import loaders
from .loaders import DataDirError, get_dataset, how_to_get, inspect
from .registry import DATASETS


def shared_dir() -> Path | None:
    """The local folder ``fetch`` copies verified files from: ``$LDP_SHARED_DATASETS``, else
    ``../shared/datasets`` next to a checkout (it need not exist); :class:`DataDirError` when the
    variable names a regular file."""
    value = os.environ.get("LDP_SHARED_DATASETS", "").strip()
    if value:
        path = Path(value).expanduser().resolve()
        if path.exists() and not path.is_dir():
            raise DataDirError(
                f"$LDP_SHARED_DATASETS={value!r} is a regular file, not a directory; point it at the folder "
                f"that holds the datasets, or unset it."
            )
        return path
    if loaders.in_checkout():
        return loaders.REPO_ROOT.parent / "shared" / "datasets"
    return None


def _show_dirs() -> None:
    home = loaders.data_home()
    print("Data directories searched, in order:")
    for d in loaders.search_dirs():
        if d == loaders.PACKAGE_DATA:
            role = "package data (ships with ldp)"
        elif d == loaders.env_data_dir():
            role = "$LDP_DATA_DIR"
        elif d == loaders.repo_external_dir():
            role = "data/external/ of the repository"
        else:
            role = "per-user data directory"
        mark = "  <- fetch writes here" if d == home else ""
        exists = "" if d.is_dir() else " (does not exist yet)"
        print(f"  {d}  [{role}]{exists}{mark}")


def _report(name: str) -> tuple[str, list[str]]:
    """Print one dataset's state; return it and the bad-copy messages."""
    res = inspect(name)
    where = ", ".join(map(str, res.used)) if res.used else "-"
    if len(res.used) > 3:  # e.g. the ten SYN tables: one summary instead of ten paths
        folders = sorted({str(src.path.parent) for src in res.used})
        where = f"{len(res.used)} files in {', '.join(folders)}"
    print(f"[{res.state}]{' ' * (10 - len(res.state))}{name:10s} {where}")
    for msg in res.bad:
        print(f"    corrupted copy: {msg}")
    return res.state, res.bad


def _names(args: list[str]) -> list[str]:
    for n in args:
        get_dataset(n)
    return args or list(DATASETS)


def status(names: list[str] | None = None) -> int:
    names = _names(names or [])
    _show_dirs()
    missing, corrupted = [], []
    for name in names:
        state, bad = _report(name)
        if state == "missing":
            missing.append(name)
        elif state == "corrupted" or bad:
            corrupted.append(name)
    return _summary(missing, corrupted)


def _summary(missing: list[str], corrupted: list[str]) -> int:
    if missing:
        print(f"Missing: {', '.join(missing)}. The chapters use documented stand-ins for them and say so.")
        for name in missing:
            print(f"  {name}: {how_to_get(DATASETS[name])}")
    if corrupted:
        print(f"Corrupted copies: {', '.join(corrupted)} (see the lines above; delete or replace those files).")
        if any(loaders.is_package_data(p) for name in corrupted for p in inspect(name).bad_files):
            print(f"  A corrupted file is package data: {loaders.REINSTALL}.")
    if missing or corrupted:
        return 1
    print("All datasets present and verified.")
    return 0


def _quarantine(path: Path) -> Path:
    dest = path.with_name(path.name + ".corrupted")
    path.replace(dest)
    return dest


def _copy_from_shared(name: str, target: Path) -> bool:
    src_dir = shared_dir()
    if src_dir is None or not src_dir.is_dir():
        return False
    res = inspect(name, [src_dir])
    if res.state != "ok":
        for msg in res.bad:
            print(f"    shared copy unusable: {msg}")
        return False
    for src in res.used:
        dest = target / src.path.relative_to(src_dir)  # keeps a sub-folder such as mao2025-syn/
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            _quarantine(dest)
        shutil.copyfile(src.path, dest)
    copied = ", ".join(str(src.path.relative_to(src_dir)) for src in res.used)
    print(f"[copied]   {name:10s} {copied} from {src_dir} to {target}")
    return True


def _download(name: str, target: Path) -> bool:
    ds = DATASETS[name]
    for url in ds.urls:
        fname = urllib.parse.unquote(url.rsplit("/", 1)[-1])
        dest = target / fname
        tmp = target / (fname + ".part")
        try:
            with urllib.request.urlopen(url, timeout=30) as resp, open(tmp, "wb") as out:
                shutil.copyfileobj(resp, out)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            print(f"[failed]   {name:10s} download {url}: {exc}")
            continue
        if dest.exists():
            _quarantine(dest)
        tmp.replace(dest)
        res = inspect(name, [target])
        if res.state == "ok":
            print(f"[fetched]  {name:10s} {url} -> {dest}")
            return True
        if any(str(dest) in msg for msg in res.bad) or res.state == "corrupted":
            dest.unlink(missing_ok=True)
            print(
                f"[failed]   {name:10s} {url}: the download does not match the registered content "
                f"({'; '.join(res.bad) or 'unreadable'})"
            )
        # a partial dataset (Adult's two files from separate URLs): keep going with the next URL
    return inspect(name, [target]).state == "ok"


def _prepare_target() -> Path:
    """The data directory, created if needed; :class:`DataDirError` when it cannot be created or written."""
    target = loaders.data_home()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataDirError(f"cannot create the data directory {target}: {exc.strerror or exc}") from None
    if not os.access(target, os.W_OK | os.X_OK):
        raise DataDirError(f"the data directory {target} is not writable; set $LDP_DATA_DIR to a writable directory")
    return target


def fetch(names: list[str] | None = None, download: bool = True) -> int:
    names = _names(names or [])
    target = _prepare_target()
    shared_dir()  # a misconfigured $LDP_SHARED_DATASETS is refused before anything is done
    _show_dirs()
    missing, corrupted = [], []
    for name in names:
        ds = DATASETS[name]
        res = inspect(name)
        for msg in res.bad:
            print(f"    corrupted copy: {msg}")
        for path in {p for p in res.bad_files if target in p.parents and p.is_file()}:
            print(f"    moved {path} aside to {_quarantine(path).name} (files in the data directory are fetch's)")
        outside = [p for p in res.bad_files if target not in p.parents]
        if res.state == "ok":
            print(f"[ok]       {name:10s} {', '.join(map(str, res.used))}")
            if outside:
                corrupted.append(name)
            continue
        if _copy_from_shared(name, target):
            continue
        if ds.local_only or ds.login_required:  # never downloaded (licence, login or no publisher)
            print(f"[manual]   {name:10s} {how_to_get(ds)}")
        elif download and ds.urls:
            if _download(name, target):
                continue
        elif not download:
            print(f"[skipped]  {name:10s} download disabled (--no-download): {how_to_get(ds)}")
        final = inspect(name)
        if final.state == "ok":
            continue
        (corrupted if final.state == "corrupted" or outside else missing).append(name)
    return _summary(missing, corrupted)


USAGE = "usage: python -m ldp.data [status|fetch] [--no-download] [NAME ...]"


def main(argv: list[str]) -> int:
    args = list(argv)
    cmd = args.pop(0) if args else "status"
    download = "--no-download" not in args
    args = [a for a in args if a != "--no-download"]
    if cmd in ("-h", "--help", "help"):
        print(USAGE)
        print(__doc__)
        return 0
    try:
        if cmd == "fetch":
            return fetch(args, download=download)
        if cmd == "status":
            return status(args)
    except (DataDirError, loaders.DatasetUnavailable) as exc:  # configuration, or an unknown dataset name
        if isinstance(exc, loaders.DatasetCorrupted):
            raise  # not a configuration error (never raised here: inspect reports corruption)
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)  # one line
        return 2
    print(f"{USAGE} (got {cmd!r})", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


__all__ = ["fetch", "main", "shared_dir", "status"]
