"""Private-C-ColME: Yakimenka, Lin, Rosnes, Kliewer, "Communication-Constrained Private
Decentralized Online Personalized Mean Estimation", 2025, arXiv:2511.04702 (a conference
version of the same title precedes it: Private-C-ColME's conference version).

Modules, along the paper's seams: ``rules`` (decision rules, confidence schedules, the
mixing weights of eq. (2) and the alpha schedules, Sec. III), ``decision_rules`` and
``weight_rules`` (the two extension points: thresholds and mixing-weight caps, built-in or
a researcher's own file, sharing ``colme.user_code``), ``kernel`` (Algorithm 1,
compiled, every curve of a panel per pass), ``closed_forms`` (Theorem 1, Corollary 1, the
exact oracle expectation), ``tables`` (Theorem 1's curves, Corollary 1's bound),
``choices`` (where the paper is silent), ``plots`` and ``engine`` (engine ``ccolme``).
"""
