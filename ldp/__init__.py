"""ldp: the shared package of the LDP-under-correlation compendium.

A map of the package (one idea per module):

Core
    ``ldp.mechanism``   the one vocabulary of every mechanism (:class:`~ldp.mechanism.Mechanism`: perturb,
                        support_counts, simulate_counts, sample_support, estimate, estimate_counts,
                        variance, channel, exact_epsilon)
    ``ldp.oracles``     frequency oracles (GRR, SUE/OUE, BLH/OLH, SS, HR, Bloom RAPPOR, EXP, SHE);
                        ``ldp.oracles.make(name, epsilon, d)`` builds one by name; ``ldp.oracles.overview``
                        sets them side by side (parameters, audited channels, the zero-frequency variance trial)
    ``ldp.estimate``    post-processing (Norm-Sub, simplex projection) and IBU/EM estimators
    ``ldp.audit``       exact ε of a channel; agreement tests of samples with a channel
    ``ldp.channels``    sampling, count-level sampling, inversion and variance for any finite channel
    ``ldp.metrics``     error metrics, all called ``metric(estimate, truth)``
    ``ldp._checks``     every input-validation helper (clear ValueError/TypeError naming the parameter)
    ``ldp.exceptions``  :class:`~ldp.exceptions.ConvergenceWarning`
    ``ldp.sweep``       parameter sweeps with one seed stream per trial (serial, joblib or Dask)
    ``ldp.claims``, ``ldp.profiles``, ``ldp.plotting``, ``ldp.progress``, ``ldp.data``
                        claims tables, notebook size profiles, the figure style, progress bars, data loaders
    ``ldp.comparison``  the cross-chapter comparison of approaches on one pair task

Chapters (one subpackage per paper)
    ``ldp.clldp``       label privacy under attribute-label correlation: CLLDP, kHR, private classifiers
    ``ldp.lopub``       LoPub: Bloom-filter reports, EM/Lasso joint estimation, junction trees, synthesis
    ``ldp.multiclass``  multi-class item mining: HEC/PTJ/PTS frameworks, validity and correlated perturbation
    ``ldp.cpl``         correlation-induced privacy leakage: theory, attacks, statistical estimation
    ``ldp.uldp``        utility-optimised LDP for 2-D joint distributions: uRR, JuRR, CPRR

Every chapter names a module by its role, the same way in all five:
    ``trials``          the trial functions its experiments notebook sweeps
    ``paper``           what the paper prints (numbers, worked examples, tables), each with its place
    ``authors``         models of the authors' public code, where the book compares with it (LoPub, multi-class)
    ``errata``          the paper's formulas as printed, to demonstrate its errata (ULDP)
"""

__version__ = "0.1.0"
