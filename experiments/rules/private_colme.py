"""Decision rules for Private-ColME (engine ``private_colme``, key ``decision_rule``): each
returns the largest squared gap (X-bar_a - T_b->a)^2 that keeps b in C_a
(colme.private_colme.decision_rules documents the arguments).  docs/decision_rules.md
walks through them."""

import math

from colme.private_colme.variance import student_t_quantile, welch_dof


def z_test_copy(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents):
    """Private-ColME's own test, copied: z-test with known variances (Sec. III-C1), Welch
    test with estimated ones (Sec. V).  A figure naming it gives the paper's numbers bit for
    bit (tests/private_colme/test_decision_rules.py)."""
    if known > 0.5:
        return z_lower * z_lower * (own_var + other_var)
    if t < 2.0 or other_count < 2.0 or own_var <= 0.0:
        return math.inf
    nu = welch_dof(own_var_of_mean=own_var, own_count=t, other_var=other_var, other_count=other_count)
    quantile = student_t_quantile(two_sided_tail=theta, z_lower=z_lower, nu=nu)
    return quantile * quantile * (own_var + other_var)


def union_bound(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents, scale=1.0):
    """A z-test at level theta_t / (M - 1) for each of a's M - 1 tests together: a keeps a
    classmate with probability >= 1 - theta_t over all of them (union bound), through the
    Gaussian tail bound P(|Z| > z) <= 2 exp(-z^2 / 2), so z^2 = 2 ln(2 (M - 1) / theta_t).
    ``scale`` multiplies the bound (1: the union bound; below 1: a more aggressive test)."""
    z2 = 2.0 * math.log(2.0 * (n_agents - 1.0) / theta)
    return scale * z2 * (own_var + other_var)
