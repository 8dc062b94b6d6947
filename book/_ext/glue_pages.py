"""Re-read the pages that only gather glued values from other pages on every build.

Sphinx rebuilds a page when its own source changes; it does not know that the scoreboard's numbers come
from the chapters' notebooks (cross-document glue). Without this, an incremental `make book` after a
chapter's verdicts change would keep serving the old totals.
"""

GATHERING_PAGES = ("book/scoreboard", "book/errata")
#: pages whose text the build computes from the whole book (chapter numbers, the proof index, exercise counts,
#: the profile of the build): re-read on every build for the same reason
COMPUTED_PAGES = ("book/intro", "book/notation", "book/proof-index", "book/how-to-use")


def _always_outdated(app, env, added, changed, removed):
    return [doc for doc in GATHERING_PAGES + COMPUTED_PAGES if doc in env.found_docs]


def setup(app):
    app.connect("env-get-outdated", _always_outdated)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
