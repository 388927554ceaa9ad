"""COLME's decision rule (Asadi, Bellet, Maillard, Tommasi, "Collaborative Algorithms for
Online Personalized Mean Estimation", TMLR 2022), the algorithm Private-ColME starts from,
as a Private-ColME decision rule (engine ``private_colme``, key ``decision_rule``).

COLME keeps b while the two agents' confidence intervals overlap (its optimistic test):
|X-bar_a - X-bar_b| <= beta(n_a) + beta(n_b), with beta(n) = sigma sqrt((2/n) (1 + 1/n)
ln(sqrt(n + 1) / gamma)), gamma = delta / (4 M) as the authors' public simulator sets it
(+inf below two samples).  Here sigma_a^2 = t own_var and sigma_b^2 = n_b other_var (the
data variance, plus the privacy noise's share under privacy), so that the rule stays an
honest interval for a private statistic too.  With eps = inf, known variances and RR
queries, Private-ColME then weighs each kept statistic by its sample count, as COLME does;
what differs is listed in docs/decision_rules.md."""

import math


def optimistic(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents, delta=0.1):
    """(beta_a + beta_b)^2: the largest squared gap COLME's optimistic test keeps."""
    if t < 2.0 or other_count < 2.0:
        return math.inf
    log_term = math.log(4.0 * n_agents / delta)
    own = math.sqrt(t * own_var * 2.0 / t * (1.0 + 1.0 / t) * (0.5 * math.log(t + 1.0) + log_term))
    n = other_count
    other = math.sqrt(n * other_var * 2.0 / n * (1.0 + 1.0 / n) * (0.5 * math.log(n + 1.0) + log_term))
    return (own + other) ** 2
