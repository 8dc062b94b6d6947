"""``python -m ldp.data fetch|status``: fill data/external/ with verified copies, or list what is there.

``fetch`` copies each missing file from the shared datasets folder (``$LDP_SHARED_DATASETS``, default
``../shared/datasets`` next to the repository) and otherwise tries the canonical download URLs.  Every file
is verified against the registry checksum; failures are reported, never fatal, because each chapter falls
back to a documented stand-in.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import sys
import urllib.request
from pathlib import Path

from .loaders import REPO_ROOT, DatasetUnavailable, locate, sha256_of
from .registry import DATASETS


def shared_dir() -> Path:
    return Path(os.environ.get("LDP_SHARED_DATASETS", REPO_ROOT.parent / "shared" / "datasets"))


def _ok(path: Path, sha: str) -> bool:
    try:
        return sha256_of(path) == sha
    except (OSError, EOFError, gzip.BadGzipFile):
        return False


def fetch() -> int:
    target = REPO_ROOT / "data" / "external"
    target.mkdir(parents=True, exist_ok=True)
    problems = 0
    for ds in DATASETS.values():
        for f in ds.files:
            try:
                path = locate(f, ds)
                if _ok(path, f.sha256):
                    print(f"[ok]      {ds.name:10s} {path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path}")
                    continue
                if path.parent != target:  # a vendored or user-provided copy: never delete it, report it
                    problems += 1
                    print(f"[corrupt] {ds.name:10s} {path}: checksum mismatch; not touching a file outside "
                          f"data/external/ (restore it with `git checkout -- {path.name}` or replace it by hand)")
                    continue
                print(f"[corrupt] {ds.name:10s} {path}: checksum mismatch, replacing")
                path.unlink()
            except DatasetUnavailable:
                pass
            src = shared_dir() / f.name
            if src.is_file() and _ok(src, f.sha256):
                shutil.copyfile(src, target / f.name)
                print(f"[copied]  {ds.name:10s} {f.name} from {src.parent}")
                continue
            fetched = False
            for url in f.urls:
                dest = target / f.stem
                try:
                    with urllib.request.urlopen(url, timeout=20) as resp:
                        content = resp.read()
                except OSError as exc:
                    print(f"[failed]  {ds.name:10s} download {url}: {exc}")
                    continue
                if hashlib.sha256(content).hexdigest() != f.sha256:
                    print(f"[failed]  {ds.name:10s} {url}: checksum mismatch (a different version of the file)")
                    continue
                dest.write_bytes(content)
                print(f"[fetched] {ds.name:10s} {url}")
                fetched = True
                break
            if not fetched:
                problems += 1
                print(f"[missing] {ds.name:10s} {f.name}: chapters using it fall back to stand-ins. Source: {ds.source}")
    print(f"{problems} file(s) unavailable." if problems else "All datasets available and verified.")
    return 0


def status() -> int:
    for ds in DATASETS.values():
        for f in ds.files:
            try:
                path = locate(f, ds)
                state = "ok" if _ok(path, f.sha256) else "CORRUPTED"
            except DatasetUnavailable:
                path, state = "-", "missing"
            print(f"{ds.name:10s} {f.name:38s} {state:9s} {path}")
    return 0


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "status"
    if cmd == "fetch":
        return fetch()
    if cmd == "status":
        return status()
    print(f"usage: python -m ldp.data [fetch|status] (got {cmd!r})", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
