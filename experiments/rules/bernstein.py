"""The Bernstein rule of Private-C-ColME (Sec. III-C1), written as a researcher's own rule:
the starting point of docs/decision_rules.md.  A figure naming it gives the built-in
`bernstein` curves' numbers bit for bit (tests/ccolme/test_decision_rules.py)."""

import math


def bernstein_copy(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents):
    """z_theta_t: accept b iff |X~_a - X~_b| < 2 beta/sqrt t ln(2/theta) + spread/sqrt t sqrt(2 ln(2/theta))."""
    log_term = math.log(2.0 / theta)
    root_t = math.sqrt(t)
    spread = math.sqrt(sigma_a**2 + sigma_b**2 + (sigma_dp_a**2 + sigma_dp_b**2))
    return 2.0 * beta_pair / root_t * log_term + spread / root_t * math.sqrt(2.0 * log_term)
