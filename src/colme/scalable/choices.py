"""The choices made where C-ColME and B-ColME (Galante, Neglia, Leonardi, AAAI 2025) leave
one, recorded in every figure's provenance.  The definitions follow the authors' public
simulator (Franco-Galante/scalable-decentralized-algorithms-AAAI25); where it differs
from what this project does elsewhere, the figure's keys offer both (``spec.py``)."""

CHOICES = (
    ("the definitions default to the authors' public simulator: a tests b's previous-step mean "
    "and radius (test: stale), exclusions are permanent, W_ab = 1/(1 + max(C_a(t), C_b(t-1))) "
    "with C the kept neighbours, alpha = s/(s+1) restarted for everybody the step after any "
    "change until no other-class link is kept (judged with the classes), y_a(1) = the first sample"),
    ("the optimistic radius of Eq. (3) with the union bound over 4 x the run's directed links 2E "
    "(4 r M on an r-regular graph, Private-C-ColME's; on graphs of other families each run's own "
    "count, as the authors' simulator counts its graph's links, the same for every agent), +inf "
    "below two samples (stale test), sigma^2 + sigma_DP^2 in place of sigma^2 under privacy"),
    ("B-ColME's depth d counts hops: the tables hold the agents 1..d hops away (the simulator's "
    "up_to = d + 1); a mean k + 1 steps old weighs its t - 1 - k samples; messages are "
    "non-backtracking by identity only (on cycles an agent can be counted more than once)"),
    ("privacy (eps < inf): every agent publishes its mean with Private-C-ColME's Laplace noise "
    "(fresh unit draws accumulated, sigma_DP of its class's support); B-ColME's messages carry "
    "those noisy means; none of the papers defines a private B-ColME"),
    ("random r-regular simple graphs (the simulator's configuration model drops repeated pairs "
    "and keeps self-loops, so its degrees are at most r); data from the figure's population "
    "(the simulator draws Gaussian data, float32)"),
    ("one fresh class assignment, graph and data stream per run, the draws of a Private-C-ColME "
    "figure with the same seed and stream (common random numbers across curves)"),
)


#: What a figure with privacy mixes adds to CHOICES.
MIX_CHOICE = (
    "privacy mixes: each agent publishes its mean with the Laplace noise of its own level (the "
    "run's privacy permutation, as Private-C-ColME's figures assign it), and its optimistic radius "
    "uses its own sigma_DP, so a pair's test adds the two agents' radii; B-ColME's messages carry "
    "each agent's own noisy mean"
)
