"""The spec of a panel of C-ColME and B-ColME (Galante, Neglia, Leonardi, AAAI 2025): its
curves (algorithm, depth, rule, privacy level) and the definitions where the paper and
its authors' simulator leave a choice.  Plain data: the kernel is ``kernel.py``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..populations import Population
from ..privacy import laplace_sigma_dp
from ..world import GroupedPanel, PrivacyLevels

#: Algorithm codes of the kernel.
ALGORITHMS = {"c_colme": 0, "b_colme": 1}
#: Decision rules: the optimistic distance of [16, Eq. (3)], or the classes (oracle).
RULES = ("optimistic", "oracle")
#: Whom a tests b against: b's previous-step state (the authors' simulator) or its current one.
TESTS = ("stale", "current")
#: Exclusions: for good (the authors' simulator, ``irrevocable_decision``) or re-tested every step.
EXCLUSIONS = ("permanent", "revocable")
#: C-ColME's weights: W_ab = 1/(offset + max(C_a, C_b)) with C the kept neighbours
#: (metropolis: offset 1, Private-C-ColME's eq. (2): offset 2), or uniform 1/(1 + C_a).
WEIGHTS = {"metropolis": 1.0, "eq2": 2.0, "uniform": 1.0}
#: alpha's clock restarts: never, for everybody at a change (seen the same step, or the
#: next as the authors' simulator sees it; until the graph is learnt, judged with the
#: classes, as it also does), per agent at its own change, or at every step (constant:
#: alpha = 1/2, the simulator's static_alpha).
RESETS = {"none": 0, "global": 1, "global_next_step": 2, "global_until_learnt": 3, "per_agent": 4, "constant": 5}
#: Where the estimate starts: y_a(1) = the first sample (the authors' simulator), or
#: y_a(0) = 0 and a first consensus step at t = 1 (Private-C-ColME's Algorithm 1).
STARTS = ("first_sample", "zero")
#: Per recorded t and curve: the share of same-class links dropped, of other-class links
#: kept (directed links), of agents whose kept set changed at t, and of agents whose
#: estimate, then whose local mean, is more than ``tolerance`` from its mean ([16]'s
#: "wrong estimates" of the algorithm and of Local, Figs. 1-2).
DIAGNOSTICS = ("same-class links dropped", "other-class links kept", "agents whose set changed",
               "wrong estimates", "wrong local estimates")


@dataclass(frozen=True)
class ScalableCurve(PrivacyLevels):
    """One curve: algorithm, B-ColME's depth (hops), decision rule, privacy level (or a
    privacy ``mix``: (eps, share) pairs, ``colme.world.PrivacyLevels``)."""

    algorithm: str = "c_colme"
    depth: int = 0
    rule: str = "optimistic"
    eps: float = math.inf  # NaN for a mix
    mix: tuple[tuple[float, float], ...] = ()

    @property
    def decisions(self) -> tuple:
        """What the curve's tests depend on in a run: its rule and its privacy (eps or mix).
        Curves with the same ``decisions`` have the same noisy means, radii and kept links at
        every step, whatever their algorithm (``kernel``: computed once for them)."""
        return self.rule, self.mix or self.eps

    @property
    def name(self) -> str:
        label = "C-ColME" if self.algorithm == "c_colme" else f"B-ColME d={self.depth}"
        rule = "" if self.rule == "optimistic" else " oracle"
        return f"{label}{rule} {self.eps_label}"


#: The most a run's ``Workspace`` may hold for its curves to run in lockstep (the draws once
#: per step, the decisions once per ``ScalableCurve.decisions``); above it (B-ColME's tables
#: at M = 1e6, ~1 GB per curve at d = 3) the curves run one by one.
LOCKSTEP_BYTES = 2**28


def table_depths(curves: tuple[ScalableCurve, ...]) -> tuple[int, ...]:
    """The depths of the B-ColME curves of ``curves``, in order: the kernel's tables hold
    (links, depth) rows for each."""
    return tuple(max(curve.depth, 1) for curve in curves if curve.algorithm == "b_colme")


def workspace_bytes(n_agents: int, n_links: int, curves: tuple[ScalableCurve, ...]) -> int:
    """The bytes of the kernel's ``Workspace`` for ``curves`` in lockstep, on ``n_links``
    directed links: per agent the shared sums, per decision set (``decisions``) its means,
    radii, sizes, changes (float64) and kept links (uint8), per curve its estimate, clock
    and state, per B-ColME curve four tables of (links, its depth) and the scratch rows."""
    deciders = len({curve.decisions for curve in curves})
    depths = table_depths(curves)
    per_agent = 3 + 7 * deciders + 2 * len(curves) + 2 * max([1, *depths])
    return 8 * (n_agents * per_agent + 4 * n_links * sum(depths) + 2 * deciders + 2 * len(curves)) \
        + 2 * deciders * n_links


def lockstep_batches(n_agents: int, n_links: int, curves: tuple[ScalableCurve, ...]) -> tuple[slice, ...]:
    """The curves each kernel call of a run runs together: all of them while their
    ``workspace_bytes`` is at most ``LOCKSTEP_BYTES``, else one by one."""
    if workspace_bytes(n_agents, n_links, curves) <= LOCKSTEP_BYTES:
        return (slice(0, len(curves)),)
    return tuple(slice(index, index + 1) for index in range(len(curves)))


@dataclass(frozen=True)
class ScalableSpec(GroupedPanel):
    """A panel: agents, curves, the definitions' choices, the recorded times and the groups
    of agents whose MSE it records (``colme.world.GroupedPanel``)."""

    n_agents: int
    curves: tuple[ScalableCurve, ...]
    t_record: np.ndarray
    population: Population = Population()  # noqa: RUF009 - frozen, so shared safely
    delta: float = 0.1
    test: str = "stale"
    exclusions: str = "permanent"
    weights: str = "metropolis"
    alpha_reset: str = "global_until_learnt"
    start: str = "first_sample"
    tolerance: float = 0.1
    #: What the MSE is also recorded per group of (``colme.world.GROUPINGS``; none: the panel only).
    groups: tuple[str, ...] = ()
    degree_bands: tuple[int, ...] = ()
    neighbour_bands: tuple[int, ...] = ()

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    def curve_arguments(self, curve: ScalableCurve, classes: np.ndarray, ranks: np.ndarray | None = None) -> dict:
        """The kernel's per-curve parameters (``kernel.CurveArrays``): algorithm code, depth, the oracle flag, each
        agent's sigma_DP (Laplace, calibrated to its class's support at its own eps, as
        Private-C-ColME's: the curve's eps, or its level in the curve's mix from the run's
        privacy ``ranks``; 0 at eps = inf) and sqrt(sigma^2 + sigma_DP^2) (its sigma, ``Population.agent_sigmas``):
        each agent's optimistic radius is its own, so a pair's test adds both agents'."""
        levels = curve.levels(len(curve.mix) or 1)
        per_profile = np.array([[laplace_sigma_dp(eps, law.half_width) for eps in levels]
                                for law in self.population.laws])  # (class, privacy level)
        ranks = np.zeros(len(classes), dtype=np.int64) if ranks is None else ranks
        sigma_dp = per_profile[classes, curve.agent_levels(ranks)]
        return {
            "algorithm_code": ALGORITHMS[curve.algorithm],
            "depth": max(curve.depth, 1),
            "by_class": curve.rule == "oracle",
            "sigma_dp": sigma_dp,
            "spread": np.sqrt(self.population.agent_sigmas(classes) ** 2 + sigma_dp**2),
        }
