"""Stream identity of the top-k miners across the refactor that gave every method one miner with a ``route``.

The arrays below were recorded on the code before that refactor (commit 2e501c1), on the table of
:func:`_table`, ``k = 4``, ε = 3 and seeds 0 and 1:

* ``COUNTS``: the count-level miners of that code (``mine_topk_table`` and the table version of the
  HEC script model); ``route="counts"`` must draw the same random stream, so that the book's numbers
  do not move unnoticed.  They have been re-recorded twice since, each time for a faster exact sampler
  (the same law, tested in ``test_multiclass_topk_engines.py``, another stream; the book's numbers moved
  with it deliberately and the verdicts were compared before and after, README, "Verdicts that do not
  depend on the build"): the miners that shuffle users into rounds at the commit that gave the round
  groups the cheapest exact multivariate-hypergeometric algorithm (``ldp.multiclass.samplers._draw_group``),
  and all 30 arrays when that algorithm became binomial thinning with a uniform correction (every miner
  splits its users into groups with it) and GRR's label movers lost the multinomial route
  (``grr_stay_arrive``);
* ``route="users"`` was checked the same way at the refactor (commit 0dc6ffa: 30 of 30 arrays equal to the
  former per-user miners').  The unary-encoding sampler has changed since (its sub-2^-16 mass is now drawn as
  independent marks, with no tie search), which gives other per-user reports for a seed, so that check is
  gone; the route's law is tested against the count level in ``test_multiclass_topk_engines.py``.

A test of the refactor, not of the paper: the numbers are whatever those seeds gave.
"""

from __future__ import annotations

import numpy as np
import pytest

from ldp.multiclass.authors import hec_topk_as_scripted
from ldp.multiclass.topk import mine_topk


def _table():
    gen = np.random.default_rng(2024)
    table = gen.integers(0, 40, size=(3, 37))
    table[0, :5] += 200
    table[1, 10:14] += 150
    table[2, -3:] += 100
    return table


COUNTS = {
    ("HEC", 0): [[33, 1, 3, 0], [10, 12, 22, 13], [4, 19, 36, 8]],
    ("HEC", 1): [[3, 8, 2, 34], [26, 13, 33, 2], [35, 22, 3, 34]],
    ("PTJ", 0): [[2, 1, 4, 3], [11, 10, 13, 30], [36, 14, -1, -1]],
    ("PTJ", 1): [[1, 4, 3, 0], [11, 27, 31, -1], [34, 35, 36, 8]],
    ("PTJ-S+VP", 0): [[1, 2, 3, 4], [12, 11, 10, 13], [35, 30, 34, -1]],
    ("PTJ-S+VP", 1): [[1, 3, 4, 2], [11, 13, 12, 10], [1, 36, -1, -1]],
    ("PTS", 0): [[3, 4, 33, 36], [11, 19, 0, 21], [10, 35, 34, 3]],
    ("PTS", 1): [[3, 1, 0, 13], [10, 28, 20, 34], [36, 4, 24, 35]],
    ("PTS-opt", 0): [[2, 0, 10, 34], [13, 11, 12, 0], [34, 3, 36, 2]],
    ("PTS-opt", 1): [[1, 10, 12, 27], [12, 13, 9, 32], [12, 34, 32, 36]],
    ("PTJ:Baseline", 0): [[2, 1, 4, 3], [11, 10, 13, 30], [36, 14, -1, -1]],
    ("PTJ:Baseline", 1): [[1, 4, 3, 0], [11, 27, 31, -1], [34, 35, 36, 8]],
    ("PTJ:+VP", 0): [[3, 1, 4, 0], [10, 5, 13, 27], [34, 36, -1, -1]],
    ("PTJ:+VP", 1): [[1, 3, 0, 2], [13, 11, 10, 29], [-1, -1, -1, -1]],
    ("PTJ:+Shuffling", 0): [[1, 3, 2, 4], [13, 12, 10, 11], [36, 34, -1, -1]],
    ("PTJ:+Shuffling", 1): [[1, 3, 4, 2], [11, 12, 10, 35], [12, -1, -1, -1]],
    ("PTJ:All", 0): [[1, 2, 3, 4], [12, 11, 10, 13], [35, 30, 34, -1]],
    ("PTJ:All", 1): [[1, 3, 4, 2], [11, 13, 12, 10], [1, 36, -1, -1]],
    ("PTS:Baseline", 0): [[3, 4, 33, 36], [11, 19, 0, 21], [10, 35, 34, 3]],
    ("PTS:Baseline", 1): [[3, 1, 0, 13], [10, 28, 20, 34], [36, 4, 24, 35]],
    ("PTS:+Global", 0): [[1, 3, 0, 2], [11, 1, 12, 8], [1, 34, 12, 36]],
    ("PTS:+Global", 1): [[3, 4, 0, 22], [13, 11, 28, 25], [1, 4, 22, 32]],
    ("PTS:+VP", 0): [[1, 0, 32, 3], [32, 12, 11, 10], [34, 2, 27, 9]],
    ("PTS:+VP", 1): [[0, 3, 35, 33], [10, 12, 20, 17], [7, 34, 2, 8]],
    ("PTS:+Shuffling", 0): [[1, 2, 5, 11], [11, 13, 10, 12], [1, 26, 29, 13]],
    ("PTS:+Shuffling", 1): [[2, 7, 1, 0], [1, 10, 6, 12], [36, 5, 13, 34]],
    ("PTS:All", 0): [[2, 0, 10, 34], [13, 11, 12, 0], [34, 3, 36, 2]],
    ("PTS:All", 1): [[1, 10, 12, 27], [12, 13, 9, 32], [12, 34, 32, 36]],
    ("scripted", 0): [[4, 36, 17, 28], [11, 13, 35, 21], [34, 17, 18, 28]],
    ("scripted", 1): [[34, 4, 18, 2], [35, 11, 3, 27], [17, 9, 35, 3]],
}


def _mine(name, seed, route):
    if name == "scripted":
        return hec_topk_as_scripted(_table(), 4, 3.0, seed, route=route).items
    return mine_topk(name, _table(), 4, 3.0, seed, route=route).items


@pytest.mark.parametrize(("name", "seed"), list(COUNTS))
def test_count_route_draws_the_stream_of_the_former_count_level_miners(name, seed):
    assert _mine(name, seed, "counts").tolist() == COUNTS[(name, seed)]
