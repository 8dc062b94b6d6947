"""Table 7 of LoPub as the authors computed it (ldp.lopub.authors), and the options it added to Algorithm 5."""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

import numpy as np
import pytest

from ldp.data import is_available, load
from ldp.lopub import authors as au
from ldp.lopub import dependency_graph, entropy_prune, mi_threshold, relative_entropy
from ldp.lopub import paper as ex


def _stream(values):
    it = iter(values)
    return lambda: next(it)


# ------------------------------------------------------------------ Python 2.7's random.sample
def test_py27_sample_set_branch_by_hand():
    # n = 100, k = 3: setsize = 21 + 4 ** ceil(log_4 9) = 37 < 100, so the set-based branch runs.
    # draws: int(0.10 * 100) = 10; int(0.105 * 100) = 10 again (already chosen, redraw);
    # int(0.55 * 100) = 55; int(0.999 * 100) = 99
    assert au.py27_sample(100, 3, _stream([0.10, 0.105, 0.55, 0.999])) == [10, 55, 99]


def test_py27_sample_pool_branch_by_hand():
    # n = 10 <= setsize = 21: pool branch.  i = 0: j = int(0.5 * 10) = 5 -> 5, pool[5] = pool[9] = 9;
    # i = 1: j = int(0.95 * 9) = 8 -> pool[8] = 8; i = 2: j = int(0.6 * 8) = 4 -> 4;
    # i = 3: j = int(0.75 * 7) = 5 -> pool[5] = 9 (moved there at i = 0)
    assert au.py27_sample(10, 4, _stream([0.5, 0.95, 0.6, 0.75])) == [5, 8, 4, 9]


def test_py27_sample_first_draws_after_seed_10():
    # Random(10).random() starts 0.5714025946899135, 0.4288890546751146, 0.5780913011344704 (the same
    # Mersenne-Twister stream as Python 2.7's random.seed(10)); times n = 45,222 and truncated:
    # 25839.56..., 19395.12..., 26142.05...  (n = 45,222 > setsize = 16,405 for k = 4,522: set branch)
    r = random.Random(10)
    assert [r.random() for _ in range(3)] == [0.5714025946899135, 0.4288890546751146, 0.5780913011344704]
    idx = au.py27_sample(45_222, 4_522, random.Random(10).random)
    assert idx[:3] == [25839, 19395, 26142]
    assert len(set(idx)) == 4_522 and min(idx) >= 0 and max(idx) < 45_222
    # Python 3's sample is a different algorithm: same seed, different first draw
    assert random.Random(10).sample(range(45_222), 3)[0] != 25839


def test_py27_sample_validates():
    with pytest.raises(ValueError, match="k"):
        au.py27_sample(5, 6, random.random)
    with pytest.raises(TypeError, match="random_fn"):
        au.py27_sample(5, 2, 0.3)
    assert au.py27_sample(5, 0, random.random) == []


# ------------------------------------------------------------------ coding
def test_equal_width_bins_exact_at_edges():
    x = np.arange(0, 17)  # span 16, 16 bins of width 1: (0,1] -> 0, ..., (15,16] -> 15
    np.testing.assert_array_equal(au.equal_width_bins(x, 16), np.r_[0, np.arange(16)])
    gen = np.random.default_rng(0)
    for lo, hi in ((17, 90), (12_285, 1_484_705), (0, 99_999), (1, 99)):
        vals = np.r_[
            lo, hi, gen.integers(lo, hi + 1, 500), [lo + (hi - lo) * b // 16 for b in range(17)]
        ]  # values on or next to edges
        got = au.equal_width_bins(vals, 16)
        want = [
            max(
                0,
                -(
                    -(Fraction(16 * (int(v) - lo), hi - lo).numerator)
                    // Fraction(16 * (int(v) - lo), hi - lo).denominator
                )
                - 1,
            )
            for v in vals
        ]
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="constant"):
        au.equal_width_bins(np.array([3, 3]))
    with pytest.raises(TypeError, match="integer"):
        au.equal_width_bins(np.array([0.5, 1.5]))


def test_first_appearance_codes():
    codes, values = au.first_appearance_codes(["b", "a", "b", "c", "a"])
    assert codes.tolist() == [0, 1, 0, 2, 1] and values == ("b", "a", "c")


# ------------------------------------------------------------------ the options added to Algorithm 4/5
def test_edge_rule_and_sort_key():
    tau = mi_threshold(2, 2, 0.2)
    mi = np.array([[0, tau], [tau, 0]])  # a pair exactly at the threshold
    assert dependency_graph(mi, (2, 2), 0.2)[0, 1] == 1
    assert dependency_graph(mi, (2, 2), 0.2, edge_rule=">")[0, 1] == 0
    with pytest.raises(ValueError, match="edge_rule"):
        dependency_graph(mi, (2, 2), 0.2, edge_rule="gt")
    uniform2, uniform4 = np.full(2, 0.5), np.full(4, 0.25)
    assert relative_entropy(uniform2) == pytest.approx(np.log(2) / 2)
    assert relative_entropy(uniform4, "authors") == pytest.approx(np.log(4) / 3)
    # entropies 0.500, 1.280, 0.688 nats; H/|Omega| = 0.250, 0.320, 0.344 and H/(|Omega|-1) = 0.500, 0.427, 0.688;
    # half_up(3 * 0.6) = 2 attributes are kept
    margs = [np.array([0.8, 0.2]), np.array([0.4, 0.3, 0.2, 0.1]), np.array([0.45, 0.55])]
    mi3 = np.zeros((3, 3))
    assert entropy_prune(mi3, margs, (2, 4, 2), 0.4).kept == (1, 2)
    assert entropy_prune(mi3, margs, (2, 4, 2), 0.4, key="authors").kept == (0, 2)
    with pytest.raises(ValueError, match="key"):
        relative_entropy(uniform2, "H")


# ------------------------------------------------------------------ the real Adult files
adult_only = pytest.mark.skipif(not is_available("adult"), reason="Adult files not present")

#: read with read_file from IoTDATALab/Python_LoPub, data/Data2-coarse.dat at commit
#: 548db5d28b491f0fed18cb7eb1b7b68e0b28aed7 (ren2018code): its length in characters, the sha256 of its first
#: 374 characters (the count line and the first 12 records) and of its characters from offset 1,387,500 to the end
#: (the last 18 records).  The file itself is not vendored.
AUTHORS_FILE_CHARS = 1_388_056
AUTHORS_HEAD_SHA256 = "2f9b4f12c1a2e30c4def55416cb6df8f986cd87c63fa513a691a262ebd1a9a02"
AUTHORS_TAIL_OFFSET = 1_387_500
AUTHORS_TAIL_SHA256 = "5a9408132d0f0d24eaf65f0bcd7c6a445b4926d54010b29ce5866af7260e2fd4"


@pytest.fixture(scope="module")
def authors_adult():
    return au.adult_authors_table(load("adult"))


@adult_only
def test_adult_coding_matches_authors_file(authors_adult):
    t = authors_adult
    assert t.n == 45_222 and t.d == 15
    assert t.sizes == (16, 7, 16, 16, 16, 7, 14, 6, 5, 2, 16, 16, 16, 41, 2)
    text = au.authors_file_text(t)
    assert len(text) == AUTHORS_FILE_CHARS
    assert hashlib.sha256(text[:374].encode()).hexdigest() == AUTHORS_HEAD_SHA256
    assert hashlib.sha256(text[AUTHORS_TAIL_OFFSET:].encode()).hexdigest() == AUTHORS_TAIL_SHA256


@adult_only
def test_table7_as_the_authors_computed_it(authors_adult):
    """Every printed cell of Table 7.  Before this module the book's pipeline gave #Dep 82, 36, 24, 14, 6
    (paper 102, 42, 24, 14, 8) and #Dep (Pruning) 78, 32, 22, 14, 6 (paper 88, 38, 22, 12, 6)."""
    ours = au.table7(authors_adult).set_index("phi")
    paper = ex.PAPER_TABLES["adult"].set_index("phi")
    for col in ("dep_pruning", "dep", "pairs_pruning", "pairs"):
        np.testing.assert_array_equal(ours[col].to_numpy(), paper[col].to_numpy(), err_msg=col)
    for col in ("loss_ratio", "reduction_ratio"):  # printed to three decimals
        np.testing.assert_array_equal(ours[col].round(3).to_numpy(), paper[col].to_numpy(), err_msg=col)


@adult_only
def test_table7_readings_that_differ(authors_adult):
    """Full data, or the paper text's H/|Omega| key, do not reproduce Table 7 (the sample and the key matter)."""
    paper = ex.PAPER_TABLES["adult"].set_index("phi")
    full = au.table7(authors_adult, data="full").set_index("phi")
    assert (full["dep"] != paper["dep"]).any()
    text_key = au.table7(authors_adult, key="paper").set_index("phi")
    assert (text_key["dep_pruning"] != paper["dep_pruning"]).any()
    assert (text_key["dep"] == paper["dep"]).all()  # the key changes only the pruned search
    with pytest.raises(ValueError, match="data"):
        au.table7(authors_adult, data="train")


@pytest.mark.parametrize("seed", [0, 1, 10, 12345, 2**32 - 1, 2**32, 2**40 + 7, 2**70 + 3])
def test_python_uniforms_is_pythons_stream(seed):
    # numpy's RandomState seeded with the 32-bit words of the seed is Python's Mersenne Twister after
    # random.seed(seed): the same 53-bit uniforms, call by call
    ours, theirs = au.python_uniforms(seed), random.Random(seed).random
    assert [ours() for _ in range(2_000)] == [theirs() for _ in range(2_000)]


def test_python_uniforms_refuses_a_negative_seed():
    with pytest.raises(ValueError, match="seed"):
        au.python_uniforms(-1)
