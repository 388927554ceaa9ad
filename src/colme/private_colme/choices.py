"""The choices made where Private-ColME (Yakimenka et al. 2024, arXiv:2411.07094) is silent,
for the simulated figures (``SIMULATION``) and the exact oracle figures (``ORACLE``).

Every Private-ColME figure's provenance (PDF metadata, sidecar JSON, report caption)
lists them; the options behind them are recorded with the settings.
"""

#: Choices made where Private-ColME is silent; printed in every Private-ColME figure's metadata.
SIMULATION = (
    (
        "RR: agent a queries the others in increasing index order, cyclically, from the lowest "
        "index (position l is queried at t = l + (i-1)(M-1), as in Proposition 3); rRR scans the "
        "same order from the last queried position and skips agents outside C_a^(t-1)"
    ),
    (
        "decision rule re-evaluated for b only when b answers (t = t_kappa), unless "
        "retest = every_step"
    ),
    "before b's first answer b is in C_a with T = 0 and Var[T] = inf (weight 0)",
    (
        "Var[T] from the actual p-sum structure (each p-sum's noise counted once with its total "
        "coefficient), maintained exactly per release"
    ),
    (
        "wMoM: uniform weights over releases 2^floor(log2 k)..k (the printed normalisation is "
        "not a valid weight)"
    ),
    (
        "PM-II releases each p-sum with (eps, delta) / pm2_split, pm2_split = floor(log2 t_max) + 1 "
        "by default (Sec. VII), so PM-I and PM-II give the same overall privacy"
    ),
    "common random numbers: all curves share each run's samples and standard noise draws",
    (
        "unknown variance (Sec. V, PM-I): Welch test with Hill's Student-t quantile (Newton-refined "
        "below 2.5 degrees of freedom); b is accepted with weight 0 until V_{b->a} exists; negative "
        "estimates count as infinite variance; before t = 2 an agent keeps its own mean"
    ),
    (
        "Sch-Var-1 halves (eps, delta) for the mean p-sums and spends the other half on the "
        "partial-variance releases (Lemma 3 noise), one per query interval like PM-I"
    ),
    (
        "Sch-Var-2 rebuilds each query interval's noisy sum from consecutive releases "
        "(t_k R_k - t_{k-1} R_{k-1}), as the receiving agent can"
    ),
    (
        "Sch-Var-2's Welch test uses t_kappa - 1 degrees of freedom as printed (welch_dof: "
        "kappa gives kappa - 1, the number of intervals its estimate is built from) and keeps "
        "the first, shorter query interval (schvar2_first_interval: drop leaves it out)"
    ),
    (
        "rRR with retest = query makes a rejection permanent: a rejected b is never queried "
        "again, so its statistic, hence the decision, never changes"
    ),
)


#: What a simulated Private-ColME figure whose classes have different sigma adds to SIMULATION.
PER_CLASS_SIGMA = (
    "per-class sigma: each sender b's p-sums carry noise calibrated to its own class's support "
    "(sigma_DP,b; Sch-Var-1's variance releases likewise); known variance means agent a knows its "
    "sigma_a and each sender's sigma_b and sigma_DP,b, so its z-test uses sigma_a^2/t + Var[T_{b->a}] "
    "and eq. (3) weighs its own mean by t/sigma_a^2"
)


#: Choices behind the analytic Private-ColME figures (Proposition 3, Remark 3).
ORACLE = (
    (
        "Proposition 3 evaluated exactly: E[1/(t/sigma^2 + sum_l B_l / Var[T_l])] over independent "
        "Bernoulli(1/Gamma) class memberships, as int_0^inf e^{-sc} prod_l (1 - p + p e^{-s x_l}) ds "
        "(adaptive quadrature, relative tolerance 1e-11), not the paper's truncated sum"
    ),
    (
        "PM-II Var[T]: by default from the actual p-sum structure of the mechanism (validated "
        "against simulation); the printed eq. (21) pools distinct dyadic blocks that share a bit "
        "(it overstates MoM/wMoM variances from k = 7 on) and is drawn only with "
        "pm2_variance: as_printed (RR curves); the settings record which one is drawn"
    ),
    (
        "rRR curves: Remark 3 (period n - 1 over the n - 1 classmates), averaged over "
        "n - 1 ~ Binomial(M - 1, 1/Gamma)"
    ),
    "wMoM: uniform weights over releases 2^floor(log2 k)..k",
    "PM-II releases each p-sum with (eps, delta) / (floor(log2 t_max) + 1) unless pm2_split is set",
)
