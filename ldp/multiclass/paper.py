"""The numbers of Mao et al., "Multi-class Item Mining under LDP", each with its provenance.

Two kinds of paper values are kept here, so that the chapters never type a paper number:

* values **printed** in the paper's text or tables (exact; the precision of a printed
  number is half a unit of its last digit), each constant naming the section or table;
* values **read off** the paper's figures.  The paper's figures are small, so they were
  read by eye from the same figures in the authors' technical report
  (``TechReport.pdf`` of the authors' repository, cited in the book as
  ``mao2025techreport``), to about ±0.02 on linear axes and about ±20 % on logarithmic
  axes.  Each figure's values come with a :class:`ldp.claims.Source` (``*_SOURCE``) that
  names the figure and the reading precision; a claim against them must allow at least
  that precision (:meth:`ldp.claims.ClaimsTable.add` enforces it).

Dataset keys are the paper's names ("Diabetes", "Heart Disease", "Anime", "JD", "SYN1"
... "SYN4"); series are tuples in the order of the figure's x grid (``*_X``).
"""

from __future__ import annotations

from ..claims import Source, printed, read_off

__all__ = [
    "LINEAR_READING",
    "LOG_READING",
    "TRIALS_PER_POINT",
    "technical_report_figure",
    "FIG7_AVERAGE_IMPROVEMENT",
    "SYN3_SHARED_TOP20",
    "SYN34_ITEMS",
    "SYN34_RECORDS",
    "TOPK_K",
    "ALG1_A",
    "ALG2_B",
    "TABLE3_EPSILON",
    "TABLE1_EPSILON",
    "TABLE1",
    "TABLE1_SOURCE",
    "FIG5",
    "FIG5_SOURCE",
    "FIG6_EPSILON",
    "FIG6",
    "FIG6_SOURCE",
    "FIG7_EPSILON",
    "FIG7",
    "FIG7_SOURCE",
    "FIG8",
    "FIG8_SOURCE",
    "FIG9_K",
    "FIG9",
    "FIG9_SOURCE",
    "FIG10_C",
    "FIG10",
    "FIG10_SOURCE",
    "TABLE3",
    "TABLE3_SOURCE",
    "FIG11_P",
    "FIG11",
    "FIG11_SOURCE",
    "FIG12_A",
    "FIG12_B",
    "FIG12",
    "FIG12_SOURCE",
]

#: reading precision of a value read by eye off a linear axis of the technical report's figures
LINEAR_READING = 0.02
#: relative reading precision of a value read by eye off a logarithmic axis
LOG_READING = 0.20

#: Sec. VII: every experiment is averaged over 20 trials, so each plotted value is itself a 20-trial mean.
TRIALS_PER_POINT = 20


def technical_report_figure(figure: str, *, log_axis: bool = False) -> Source:
    """The :class:`~ldp.claims.Source` of values read off ``figure`` (e.g. ``"Fig. 6a"``) of the technical report."""
    where = f"{figure} of the technical report"
    return read_off(where, LOG_READING, relative=True) if log_axis else read_off(where, LINEAR_READING)


# ------------------------------------------------------------------------------------------------ printed
#: Sec. VII-E (discussion of Fig. 7, k = 20): "average improvements" of the optimised methods over
#: their base framework, as fractions.  Keys: (dataset, framework, metric); the framework's optimised
#: method is PTS-opt for "PTS" and PTJ-S+VP for "PTJ".  The paper does not say how it averages.
FIG7_AVERAGE_IMPROVEMENT = {
    ("Anime", "PTS", "f1"): 1.166,
    ("Anime", "PTS", "ncr"): 1.343,
    ("Anime", "PTJ", "f1"): 0.256,
    ("Anime", "PTJ", "ncr"): 0.250,
    ("JD", "PTS", "f1"): 0.556,
    ("JD", "PTS", "ncr"): 0.408,
    ("JD", "PTJ", "f1"): 0.136,
    ("JD", "PTJ", "ncr"): 0.069,
}

#: Sec. VII-A (datasets): in SYN3 two classes share eight of their top 20 items on average.
SYN3_SHARED_TOP20 = 8

#: Sec. VII-A: SYN3 and SYN4 hold 20 000 items and five million records.
SYN34_ITEMS = 20_000
SYN34_RECORDS = 5_000_000

#: Sec. VII-E: k of the top-k experiments of Figs 7, 8 and 10 (k = 20).
TOPK_K = 20

#: Sec. VII-F: Algorithm 1's sampled share ``a`` ("a = 0.2") and Algorithm 2's threshold ``b`` ("b = 2").
ALG1_A, ALG2_B = 0.2, 2.0

#: Sec. VII-E (ablation, Table III): k = 20 and ε = 5.
TABLE3_EPSILON = 5.0

#: Table I: the coefficients of f, n and N in the CP variance for c = 4 and an even budget split,
#: at the budgets ``TABLE1_EPSILON`` (printed to one decimal).
TABLE1_EPSILON = (0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4)
TABLE1 = {
    "f": (87.4, 32.9, 17.1, 10.3, 6.8, 4.9, 3.7, 2.9),
    "n": (213.8, 58.9, 22.8, 10.5, 5.4, 3.0, 1.8, 1.1),
    "N": (441.8, 53.3, 12.0, 3.6, 1.3, 0.5, 0.2, 0.1),
}
TABLE1_SOURCE = printed("Table I")

#: Table III (ablation on Anime, ε = 5, k = 20): (F1, NCR) of each variant, printed to three decimals.
TABLE3 = {
    ("PTJ", "Baseline"): (0.261, 0.303),
    ("PTJ", "+VP"): (0.280, 0.326),
    ("PTJ", "+Shuffling"): (0.316, 0.360),
    ("PTJ", "All"): (0.340, 0.387),
    ("PTS", "Baseline"): (0.159, 0.163),
    ("PTS", "+Global"): (0.165, 0.180),
    ("PTS", "+VP"): (0.214, 0.229),
    ("PTS", "+Shuffling"): (0.241, 0.270),
    ("PTS", "All"): (0.358, 0.385),
}
TABLE3_SOURCE = printed("Table III")

# ------------------------------------------------------------------------------------------------ read off
#: Fig. 5 (ε = 1, t = 1000): variance of the estimate of item 0 in each class, PTS and PTS-CP.
#: SYN1 ordered by ascending PMI, SYN2 by ascending class size n (log axis).
FIG5 = {
    ("SYN1", "PTS"): (7.1e8, 6.45e8, 6.45e8, 7.55e8),
    ("SYN1", "PTS-CP"): (2.6e8, 2.65e8, 2.55e8, 2.75e8),
    ("SYN2", "PTS"): (5.85e8, 5.95e8, 6.55e8, 8.05e8),
    ("SYN2", "PTS-CP"): (2.2e8, 2.15e8, 2.65e8, 3.5e8),
}
FIG5_SOURCE = technical_report_figure("Fig. 5", log_axis=True)

#: Fig. 6: pooled RMSE (counts) of frequency estimation against ε (log axis).
FIG6_EPSILON = (0.1, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4)
FIG6 = {
    ("Diabetes", "HEC"): (7e5, 1.1e5, 4e4, 2e4, 1e4, 6e3, 4e3, 2.5e3, 1.7e3),
    ("Diabetes", "PTJ"): (4.5e3, 9e2, 3.5e2, 2.5e2, 1.5e2, 1.6e2, 1e2, 7e1, 6e1),
    ("Diabetes", "PTS"): (1e5, 3e3, 9e2, 4e2, 2.5e2, 1.7e2, 1.2e2, 1e2, 8e1),
    ("Diabetes", "PTS-CP"): (1e4, 1.7e3, 7e2, 4e2, 2.5e2, 1.7e2, 1.2e2, 1e2, 7.5e1),
    ("Heart Disease", "HEC"): (1.6e6, 2.5e5, 9e4, 5e4, 3e4, 1.7e4, 1.4e4, 1.3e4, 1.3e4),
    ("Heart Disease", "PTJ"): (2.2e4, 4e3, 1.6e3, 9e2, 6e2, 4e2, 3.5e2, 2.8e2, 1.8e2),
    ("Heart Disease", "PTS"): (9e4, 4e3, 8e2, 4.5e2, 2.8e2, 1.8e2, 1.4e2, 1.1e2, 9e1),
    ("Heart Disease", "PTS-CP"): (1e4, 1.6e3, 6.5e2, 3.8e2, 2.3e2, 1.7e2, 1.3e2, 1e2, 8e1),
}
FIG6_SOURCE = technical_report_figure("Fig. 6", log_axis=True)

#: Fig. 7 (k = 20): F1 and NCR of the five top-k methods against ε.  Keys: (dataset, metric, method).
FIG7_EPSILON = (1, 2, 3, 4, 5, 6, 7, 8)
FIG7 = {
    ("Anime", "f1", "HEC"): (0.01, 0.03, 0.05, 0.07, 0.08, 0.095, 0.095, 0.095),
    ("Anime", "f1", "PTJ"): (0.01, 0.09, 0.19, 0.22, 0.26, 0.275, 0.285, 0.30),
    ("Anime", "f1", "PTJ-S+VP"): (0.01, 0.11, 0.20, 0.30, 0.34, 0.37, 0.365, 0.385),
    ("Anime", "f1", "PTS"): (0.01, 0.02, 0.04, 0.10, 0.16, 0.21, 0.22, 0.29),
    ("Anime", "f1", "PTS-opt"): (0.01, 0.03, 0.12, 0.25, 0.36, 0.50, 0.57, 0.61),
    ("Anime", "ncr", "HEC"): (0.01, 0.02, 0.04, 0.065, 0.065, 0.08, 0.08, 0.08),
    ("Anime", "ncr", "PTJ"): (0.01, 0.10, 0.21, 0.26, 0.30, 0.32, 0.335, 0.335),
    ("Anime", "ncr", "PTJ-S+VP"): (0.01, 0.12, 0.23, 0.34, 0.39, 0.42, 0.40, 0.415),
    ("Anime", "ncr", "PTS"): (0.01, 0.02, 0.04, 0.10, 0.16, 0.21, 0.23, 0.29),
    ("Anime", "ncr", "PTS-opt"): (0.01, 0.04, 0.13, 0.27, 0.38, 0.55, 0.62, 0.685),
    ("JD", "f1", "HEC"): (0.01, 0.06, 0.12, 0.18, 0.23, 0.26, 0.28, 0.28),
    ("JD", "f1", "PTJ"): (0.08, 0.19, 0.26, 0.30, 0.31, 0.32, 0.32, 0.32),
    ("JD", "f1", "PTJ-S+VP"): (0.06, 0.22, 0.31, 0.33, 0.36, 0.38, 0.385, 0.39),
    ("JD", "f1", "PTS"): (0.04, 0.16, 0.27, 0.37, 0.44, 0.49, 0.505, 0.53),
    ("JD", "f1", "PTS-opt"): (0.05, 0.24, 0.46, 0.60, 0.68, 0.725, 0.76, 0.785),
    ("JD", "ncr", "HEC"): (0.02, 0.09, 0.18, 0.26, 0.31, 0.34, 0.37, 0.37),
    ("JD", "ncr", "PTJ"): (0.10, 0.27, 0.33, 0.36, 0.37, 0.37, 0.37, 0.37),
    ("JD", "ncr", "PTJ-S+VP"): (0.08, 0.28, 0.36, 0.39, 0.405, 0.41, 0.415, 0.42),
    ("JD", "ncr", "PTS"): (0.07, 0.24, 0.41, 0.51, 0.59, 0.635, 0.655, 0.685),
    ("JD", "ncr", "PTS-opt"): (0.07, 0.35, 0.60, 0.74, 0.80, 0.83, 0.86, 0.885),
}
FIG7_SOURCE = technical_report_figure("Fig. 7")

#: Fig. 8 (JD, k = 20, largest ε of Fig. 7): F1 per age group (classes 1-5), per method.
FIG8 = {
    "HEC": (0.23, 0.60, 0.57, 0.02, 0.02),
    "PTJ": (0.09, 0.95, 0.56, 0.02, 0.02),
    "PTJ-S+VP": (0.09, 0.96, 0.93, 0.02, 0.02),
    "PTS": (0.61, 0.61, 0.59, 0.46, 0.38),
    "PTS-opt": (0.86, 0.88, 0.88, 0.69, 0.61),
}
FIG8_SOURCE = technical_report_figure("Fig. 8")

#: Fig. 9 (JD, ε = 4): F1 and NCR against k.  Keys: (metric, method).
FIG9_K = (10, 20, 30, 40, 50)
FIG9 = {
    ("f1", "HEC"): (0.175, 0.185, 0.185, 0.175, 0.17),
    ("f1", "PTJ"): (0.29, 0.30, 0.305, 0.315, 0.325),
    ("f1", "PTJ-S+VP"): (0.345, 0.34, 0.335, 0.35, 0.355),
    ("f1", "PTS"): (0.41, 0.365, 0.355, 0.315, 0.30),
    ("f1", "PTS-opt"): (0.66, 0.62, 0.575, 0.535, 0.515),
    ("ncr", "HEC"): (0.24, 0.255, 0.255, 0.235, 0.23),
    ("ncr", "PTJ"): (0.335, 0.365, 0.37, 0.375, 0.38),
    ("ncr", "PTJ-S+VP"): (0.375, 0.39, 0.395, 0.42, 0.425),
    ("ncr", "PTS"): (0.57, 0.505, 0.505, 0.45, 0.435),
    ("ncr", "PTS-opt"): (0.79, 0.75, 0.72, 0.67, 0.65),
}
FIG9_SOURCE = technical_report_figure("Fig. 9")

#: Fig. 10 (ε = 4, k = 20): F1 and NCR against the number of classes c.  Keys: (dataset, metric, method).
FIG10_C = (10, 20, 30, 40, 50)
FIG10 = {
    ("SYN3", "f1", "HEC"): (0.015, 0, 0, 0, 0),
    ("SYN3", "f1", "PTJ"): (0.43, 0.355, 0.305, 0.245, 0.205),
    ("SYN3", "f1", "PTJ-S+VP"): (0.43, 0.37, 0.32, 0.275, 0.225),
    ("SYN3", "f1", "PTS"): (0.545, 0.485, 0.32, 0.255, 0.175),
    ("SYN3", "f1", "PTS-opt"): (0.655, 0.57, 0.395, 0.295, 0.235),
    ("SYN3", "ncr", "HEC"): (0.02, 0, 0, 0, 0),
    ("SYN3", "ncr", "PTJ"): (0.46, 0.385, 0.33, 0.275, 0.235),
    ("SYN3", "ncr", "PTJ-S+VP"): (0.46, 0.40, 0.345, 0.31, 0.265),
    ("SYN3", "ncr", "PTS"): (0.57, 0.55, 0.39, 0.30, 0.25),
    ("SYN3", "ncr", "PTS-opt"): (0.69, 0.64, 0.455, 0.345, 0.275),
    ("SYN4", "f1", "HEC"): (0.015, 0, 0, 0, 0),
    ("SYN4", "f1", "PTJ"): (0.44, 0.355, 0.31, 0.245, 0.195),
    ("SYN4", "f1", "PTJ-S+VP"): (0.43, 0.37, 0.32, 0.275, 0.225),
    ("SYN4", "f1", "PTS"): (0.31, 0.165, 0.085, 0.04, 0.025),
    ("SYN4", "f1", "PTS-opt"): (0.365, 0.21, 0.11, 0.06, 0.03),
    ("SYN4", "ncr", "HEC"): (0.02, 0, 0, 0, 0),
    ("SYN4", "ncr", "PTJ"): (0.46, 0.39, 0.34, 0.285, 0.235),
    ("SYN4", "ncr", "PTJ-S+VP"): (0.455, 0.40, 0.355, 0.31, 0.265),
    ("SYN4", "ncr", "PTS"): (0.345, 0.215, 0.12, 0.065, 0.035),
    ("SYN4", "ncr", "PTS-opt"): (0.40, 0.255, 0.15, 0.085, 0.045),
}
FIG10_SOURCE = technical_report_figure("Fig. 10")

#: Fig. 11 (SYN4, PTS-opt): F1 against the label share p = ε1/ε, for c = 5, 10 and 20 classes.
FIG11_P = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
FIG11 = {
    5: (0.40, 0.425, 0.45, 0.46, 0.46, 0.435, 0.40, 0.34, 0.18),
    10: (0.26, 0.315, 0.345, 0.36, 0.365, 0.34, 0.30, 0.22, 0.09),
    20: (0.105, 0.15, 0.185, 0.205, 0.20, 0.20, 0.155, 0.10, 0.025),
}
FIG11_SOURCE = technical_report_figure("Fig. 11")

#: Fig. 12 (PTS-opt on Anime and JD): F1 against a (with b = 2) and against b (with a = 0.2).
#: Keys: (dataset, parameter).
FIG12_A = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
FIG12_B = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
FIG12 = {
    ("Anime", "a"): (0.235, 0.24, 0.245, 0.23, 0.24, 0.265, 0.24, 0.225, 0.225),
    ("JD", "a"): (0.62, 0.625, 0.62, 0.60, 0.56, 0.555, 0.53, 0.47, 0.455),
    ("Anime", "b"): (0.25, 0.25, 0.245, 0.235, 0.235, 0.235, 0.235),
    ("JD", "b"): (0.63, 0.63, 0.62, 0.62, 0.615, 0.59, 0.59),
}
FIG12_SOURCE = technical_report_figure("Fig. 12")
