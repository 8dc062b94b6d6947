"""The exponential mechanism as the CPL paper defines it for categorical data (its Appendix A).

McSherry & Talwar (2007) with utility ``u(x, r) = 1[x = r]`` and sensitivity
``Delta u = 1``: the output ``r`` is drawn with probability proportional to
``exp(eps u(x, r) / (2 Delta u))``.  Normalising gives

    P(r = x) = e^{eps/2} / (e^{eps/2} + d - 1),   P(r = r' != x) = 1 / (e^{eps/2} + d - 1),

which is *exactly* generalised randomized response at budget ``eps/2``.

Why the factor 2: the generic exponential mechanism divides by ``2 Delta u`` so that
it is ``eps``-DP for *any* utility.  Changing the input can multiply the weight of one
output by up to ``e^{eps/2}`` *and* the normalising sum by up to another ``e^{eps/2}``,
so half of the budget is reserved for the normaliser.  With ``u = 1[x = r]`` the
normaliser ``e^{eps/2} + d - 1`` is the same for every input, so that half is never
spent: the channel's max log-ratio is ``eps/2``, and the mechanism is ``eps``-LDP but
not tight at ``eps``.  The CPL paper
uses it as defined, and several of its conclusions ("EXP leaks little") follow
from this factor, so it is kept as defined, not "fixed".
"""

from __future__ import annotations

from .base import DelegatedProbabilities, FrequencyOracle
from .grr import GRR


class Exponential(DelegatedProbabilities, GRR):
    """Exponential mechanism with utility ``1[x = r]`` (Jayawardana et al., Appendix A), i.e. ``GRR(eps/2)``.

    Parameters
    ----------
    epsilon : float
        The *nominal* budget ``eps`` of the exponential mechanism, finite and > 0.
    d : int
        Domain size, >= 2.

    Notes
    -----
    Sampling, support counts, the count-level sampler, the channel and the unbiased
    estimator are inherited from :class:`~ldp.oracles.grr.GRR`; only ``p = e^{eps/2} / (e^{eps/2} + d - 1)``
    and ``q = 1 / (e^{eps/2} + d - 1)`` change, and they (with ``1 - p`` and ``p - q``) are taken from a
    ``GRR(eps/2, d)`` instance held by composition, so no sampling
    or probability formula is duplicated.  :attr:`exact_epsilon` is ``eps/2``, which is what
    an exact channel audit returns.  The estimator here is the unbiased GRR(eps/2) one; the
    paper's artifact used raw output frequencies (tools/dataset_perturbation.ipynb), which a chapter can compute
    from :meth:`support_counts` directly.
    """

    name = "EXP"
    _delegate = "_grr"

    def __init__(self, epsilon: float, d: int) -> None:
        FrequencyOracle.__init__(self, epsilon, d)  # validation of the budget is GRR(eps/2)'s, just below
        self._grr = GRR(self.epsilon / 2, self.d)

    @property
    def exact_epsilon(self) -> float:
        """The channel's exact max log-ratio: ``eps / 2``."""
        return self._grr.epsilon

    def as_grr(self) -> GRR:
        """The identical mechanism written as GRR at ``eps/2``."""
        return GRR(self.epsilon / 2, self.d)
