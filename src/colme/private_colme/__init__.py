"""Private-ColME: Yakimenka, Weng, Lin, Rosnes, Kliewer, "Differentially-Private
Collaborative Online Personalized Mean Estimation", 2024, arXiv:2411.07094 (the journal
version; its conference version: ISIT 2023, pp. 737-742; the Private-ColME poster presents
the same work).

Modules, along the paper's seams: ``mechanisms`` (PM-I/PM-II p-sum releases, Var[T]),
``variance`` (unknown variances, Sec. V: Student-t quantiles, Welch, eq. (19)),
``kernel`` (Algorithm 1: RR/rRR queries, decision rule, eq. (3); compiled), ``oracle``
(Proposition 3, Remark 3, exact), ``tables`` (the oracle curves, privacy accounting),
``choices`` (where the paper is silent), ``plots`` and ``engine`` (engines ``private_colme`` and
``oracle``).
"""
