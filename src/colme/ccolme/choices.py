"""The choices made where Private-C-ColME (Yakimenka et al. 2025, arXiv:2511.04702) is silent.

Every Private-C-ColME figure's provenance (PDF metadata, sidecar JSON, report caption)
lists them; the options behind them are recorded with the settings.
"""

from ..populations import population_choices
from ..world import GRAPH_FAMILY_CHOICES, graph_choice  # noqa: F401 - re-exported: the world's

#: Choices made where Private-C-ColME is silent; printed in every Fig. 1 caption/metadata.
CHOICES = (
    "W_ab^(t) of eq. (2) uses the current |C_b^(t)| and the previous consensus mu~_b^(t-1)",
    "C_a^(0) is empty, so every agent resets its alpha clock at t = 1; mu~^(0) = 0 biases t = 1",
    (
        "alpha clock restart (alpha_reset): per_agent, each agent's own clock whenever its "
        "C_a^(t) != C_a^(t-1) (Sec. V, as in [16, App. I.3]); global restarts every clock in the "
        "step where any C_a^(t) changes (the public C-ColME code's one clock, restarted on its "
        "graph_change flag); "
        "none never restarts"
    ),
    (
        "optimistic radius (optimistic_radius): the square root over (1 + 1/t) ln(4 r M "
        "sqrt(t + 1)/delta) too (sqrt_over_all, Private-C-ColME arXiv:2511.04702 and [16, Eq. "
        "(3)]) or closed after 2 (sigma_DP^2 + sigma^2)/t (sqrt_closed_early, as "
        "Private-C-ColME's conference version prints it)"
    ),
    (
        "Bernstein parameter of the noisy difference (bernstein_beta): b~_a + b~_b as z_theta of "
        "Sec. III-C1 prints it (sec3c1), or Sec. II-D's min(beta_X + beta_Y, sqrt 2 max(sigma_X, "
        "sigma_Y, beta_X, beta_Y)) (sec2d; sqrt 2 b~ in the paper's set-up)"
    ),
    "final if/else: local non-private mean when |C_b^(t)| <= 2 for all b in C_a^(t), a included",
    "acceptance uses '<' for both rules (the optimistic rule's '<=' differs on a null event)",
    (
        "one fresh class assignment, graph and data stream per run; all curves of a panel share "
        "them (common random numbers: same samples and unit Laplace draws scaled by sigma_DP)"
    ),
    (
        "the degree r of the optimistic radius's ln(4 r M sqrt(t + 1)/delta) on a graph that is "
        "not random regular (graph key): the run's mean degree 2E/M, the same for every node, "
        "so that 4 r M = 4 * 2E counts the union bound's (agent, neighbour) pairs as r M does on "
        "an r-regular graph (Private-C-ColME's gamma = delta/(4 r M), arXiv:2511.04702); not "
        "each node's own degree d_a. On a random regular graph r is the degree key, as in "
        "Private-C-ColME"
    ),
    (
        "Theorem 1 curve uses the asymptote factor of the panel's alpha schedule "
        "(2 for t/(t+1), 20/19 for floor(t/10))"
    ),
)


#: What a Private-C-ColME figure whose agents differ adds to CHOICES and the population's
#: own lines (``colme.populations.population_choices``), each when it applies.
MIXED_CHOICES = {
    "closed_forms": (
        "Theorem 1 and Corollary 1 assume equal means within a class: without jitter, Theorem 1 is drawn "
        "for single-eps curves agent by agent, each term with its class's sigma and sigma_DP (a "
        "class-induced component shares one law); Corollary 1's bound (3) compares one sigma_DP^2 with "
        "a bound in one sigma, so it is given only when every class shares one law; mix curves get neither"
    ),
    "closed_forms_mix": (
        "Theorem 1 and Corollary 1 assume equal means within a class: without jitter, Theorem 1 is drawn "
        "agent by agent, each term with its class's sigma; on a mix curve an agent's term takes the "
        "average of sigma_b^2 + sigma_DP,b^2 over its class-induced component (consensus gives every "
        "agent of a component the component's average, so private agents and their non-private "
        "classmates share one asymptote), the mix drawn as a curve of its own; Corollary 1's bound (3) "
        "compares one sigma_DP^2 with a bound in one sigma, so it is given only for single-eps curves "
        "when every class shares one law, never for a mix"
    ),
    "groups": (
        "groups (groups.by): a group's MSE is its agents' pooled mean squared error over the runs (sum of "
        "squared errors over the count of its agents), its se the ratio estimator's by the delta method; "
        "group_share is its share of the agent-runs, so sum(group_share * mse) is the panel's MSE; "
        "Theorem 1's asymptote per group pools its agents' terms the same way; Corollary 1's bound per "
        "group (the bound over the group's agents only: the theorem's terms add agent by agent) only "
        "where the bound applies (single-eps curves, one law)"
    ),
    "mix": (
        "privacy mixes: shares of the agents at each eps (counts rounded by largest remainder), "
        "assigned by one uniformly random permutation of the agents per run from its privacy "
        "stream, shared by every mix of the figure (mixes nest); each agent's noise sigma_DP of its "
        "own eps, and a pair's threshold from both agents' sigma_DP and beta~ (Sec. III-C1 with "
        "sigma_DP,a^2 + sigma_DP,b^2 for 2 sigma_DP^2; the optimistic rule's radius(a) + radius(b))"
    ),
    "sigma": "per-class sigma: each agent's own sigma_a and beta_a in its pair's threshold (both agents' terms)",
}


def ccolme_population_choices(population, has_mixes: bool, grouped: bool = False) -> tuple[str, ...]:
    """The population's lines (``population_choices``) and those of MIXED_CHOICES
    that apply to a figure's population, curves and groups."""
    lines = list(population_choices(population))
    if population.sigmas_differ:
        lines.append(MIXED_CHOICES["sigma"])
    if has_mixes:
        lines.append(MIXED_CHOICES["closed_forms_mix"])
    elif not population.one_law or population.jitter > 0:
        lines.append(MIXED_CHOICES["closed_forms"])
    if has_mixes:
        lines.append(MIXED_CHOICES["mix"])
    if grouped:
        lines.append(MIXED_CHOICES["groups"])
    return tuple(lines)
