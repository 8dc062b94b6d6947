"""Shared fixtures: repository paths and the list of pages in the book's table of contents."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import yaml

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = REPO / "notebooks"


def toc_files() -> list[str]:
    """Every document of ``_toc.yml`` (root first), as paths without extension."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return files


def toc_notebooks() -> list[Path]:
    """The MyST notebooks listed in the toc (files under notebooks/)."""
    return [REPO / f"{f}.md" for f in toc_files() if f.startswith("notebooks/")]


def browser_required() -> bool:
    return os.environ.get("LDP_REQUIRE_BROWSER") == "1"
