"""Private-ColME: seed 004 (Yakimenka et al., "Differentially-private collaborative online
personalized mean estimation", ISIT 2023 and its journal version; seed 001 is a poster).

Modules, along the paper's seams: ``mechanisms`` (PM-I/PM-II p-sum releases, Var[T]),
``variance`` (unknown variances, Sec. V: Student-t quantiles, Welch, eq. (19)),
``kernel`` (Algorithm 1: RR/rRR queries, decision rule, eq. (3); compiled), ``oracle``
(Proposition 3, Remark 3, exact), ``tables`` (the oracle curves, privacy accounting),
``choices`` (where the paper is silent), ``plots`` and ``engine`` (engines ``private_colme`` and
``oracle``).
"""
