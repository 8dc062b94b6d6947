"""Re-read the pages that only gather glued values from other pages on every build.

Sphinx rebuilds a page when its own source changes; it does not know that the scoreboard's numbers come
from the chapters' notebooks (cross-document glue). Without this, an incremental `make book` after a
chapter's verdicts change would keep serving the old totals.
"""

GATHERING_PAGES = ("book/scoreboard", "book/errata")


def _always_outdated(app, env, added, changed, removed):
    return [doc for doc in GATHERING_PAGES if doc in env.found_docs]


def setup(app):
    app.connect("env-get-outdated", _always_outdated)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
