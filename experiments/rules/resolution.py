"""A candidate decision rule for private agents: collaborate at a known resolution.

The built-in practical rules test "could these two agents have the same mean?" with a
radius that shrinks like 1/sqrt(t) but is inflated by the privacy noise, so under strong
privacy they accept agents of other classes for a long time, and the consensus pays for
it (docs/decision_rules.md has the numbers).  This rule takes one piece of prior
knowledge instead, the smallest gap between class means that matters (`gap`), and
refuses every neighbour until the noisy difference of two agents' means is resolved at
that scale: its standard deviation times `confidence` below gap/2.  From then on it
accepts b iff |X~_a - X~_b| < gap/2.  Before that time the agent keeps its local mean
(Local); after it, a neighbour of another class passes only with the probability of a
`confidence`-sigma deviation.
"""

import math


def resolution(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents, gap, confidence=3.0):
    """gap/2 once confidence * sd(X~_a - X~_b) < gap/2, else -1 (nobody)."""
    spread = math.sqrt((sigma_a**2 + sigma_b**2 + sigma_dp_a**2 + sigma_dp_b**2) / t)
    if confidence * spread < 0.5 * gap:
        return 0.5 * gap
    return -1.0
