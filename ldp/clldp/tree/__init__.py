"""CART under CLLDP (Xue et al., Sec. 6, Algorithm 4), under LabelDP, and without privacy.

Tree model (Sec. 6.1).  A binary tree of one-vs-rest tests ``a^c = a_v`` (yes)
/ ``a^c != a_v`` (no); the root is at depth 1; a node is chosen by the Gini
criterion of Eqs. (11)-(12) and becomes a leaf labelled with its majority class
when no test lowers the Gini impurity; a node at the maximum depth ``dep`` that
still splits gets two labelled leaf children.

CLLDP protocol (Algorithm 4), one round per depth:

* round 1: every user draws one attribute ``c`` uniformly and reports
  ``(d^c, l)`` by kHR with ``ε_1 = ε/dep`` and ``ω_{a^c}(k)``; ``k`` is fixed for
  the user from this round on (Theorem 6 needs it), chosen on the round-1
  domain ``m^c m^l`` at budget ``ε_1``;
* round ``r >= 2``: each user adds one attribute from a candidate set (see
  ``candidate_rule``) to her combination ``s^{r-1}``, so ``s^r ⊇ s^{r-1}``, and
  reports the Cartesian value of ``s^r`` with her label, with the budget of
  Eq. (15) (:mod:`ldp.clldp.accounting`) and a belief that never increases
  along her chain; a user whose combination does not change reports nothing
  and spends nothing;
* the collector calibrates each group of users that share combination and
  parameters, pools the estimates of equal combinations, and decides the
  nodes of depth ``r`` from them (marginalising larger combinations when
  needed).

Choices where the paper is silent or ambiguous (all configurable):

* ``candidate_rule="covering"`` (default): a user may add the attribute that
  completes the path-attribute set of some undecided node, or any new
  attribute once her set already covers a node's path; otherwise any new
  attribute (the paper's fallback ``A \\ SL``).  ``"literal"`` follows the
  multiset text of Sec. 6.1 (``|SL - B_h| = 1`` and the extra attribute not on
  the branch gives the branch's last attribute).  Both depend only on public
  state, never on a user's values, so the accounting is unaffected;
* ``omega_update="first_round"`` (default) keeps the round-1 ω for the whole
  chain: if it bounds the true belief of the round-1 attribute, it bounds that
  of every refinement too, because refining a combination cannot raise ω at
  fixed k (the corrected Theorem 6 illustration).  ``"previous_estimate"`` is
  the paper's reading (Sec. 7.3): Def. 5 evaluated on the collector's noisy
  estimate of ``Pr{s^{r-1} | L}``, capped by the belief used before.  Clipped
  noise spread over a large combination makes that estimate *smaller* than the
  truth, so this reading can break the guarantee (see the experiments chapter);
* ``combine="inverse_variance"`` (default) pools estimates of the same
  combination with weights ``n (p-q)^2 / (q(1-q))``; ``"mean"`` is the paper's
  plain average;
* ``budget_rule`` = ``"remaining_even"`` (default) or ``"paper_literal"`` (Eq. (15)).

Modules: :mod:`.nodes` (tree nodes, Gini split, stop rules, routing), :mod:`.cart` (one-shot CART
for the LabelDP and non-private trees), :mod:`.pool` (:class:`JointPool`, node statistics),
:mod:`.protocol` (Algorithm 4 as named steps), :mod:`.estimator` (:class:`CLLDPDecisionTree`).
"""

from __future__ import annotations

from .cart import grow_from_counts
from .estimator import CLLDPDecisionTree
from .nodes import TreeNode, best_split
from .pool import COMBINE_RULES, JointPool
from .protocol import CANDIDATE_RULES, OMEGA_UPDATES, CLLDPTreeResult, clldp_tree

__all__ = [
    "TreeNode",
    "JointPool",
    "best_split",
    "grow_from_counts",
    "clldp_tree",
    "CLLDPTreeResult",
    "CLLDPDecisionTree",
    "CANDIDATE_RULES",
    "OMEGA_UPDATES",
    "COMBINE_RULES",
]
