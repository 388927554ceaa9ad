"""The spec of a Private-C-ColME panel (Yakimenka et al. 2025, arXiv:2511.04702, Algorithm 1):
its curves (a decision rule at a privacy level or a privacy mix), its options, and the
per-curve and per-profile parameters they give the kernel.  Plain data: the compiled kernel
is ``kernel.py``'s, so the analytic tables and the engine read a panel without loading it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..populations import Population
from ..privacy import laplace_sigma_dp
from .decision_rules import DecisionRule, builtin_rules
from .rules import difference_beta, laplace_beta_dp, noisy_mean_beta
from .weight_rules import WeightRule, builtin_weights

#: Per recorded t and curve: the rule's type-I rate (same-class edges rejected), type-II
#: rate (other-class edges accepted) and the share of agents whose C_a changed at that
#: step (each restarts its alpha clock when alpha_reset is per_agent).
DIAGNOSTICS = ("same-class edges rejected", "other-class edges accepted", "agents whose C_a changed")


#: What a figure's agents can be grouped by (``groups.by``; their product when several):
#: the class, the privacy level of a mix (one group per level; a curve with one eps has
#: one), the degree band (``degree_bands``: on irregular graphs) and the band of the count
#: of neighbours more private than the agent (smaller eps; ``neighbour_bands``).
GROUPINGS = ("class", "privacy", "degree", "private_neighbours")


def default_degree_bands(n_agents: int) -> tuple[int, ...]:
    """Cut points 2, 4, 8, ... below ``n_agents``: bands of degree < 2, 2-3, 4-7, ..."""
    cuts, cut = [], 2
    while cut < n_agents:
        cuts.append(cut)
        cut *= 2
    return tuple(cuts)


def band_labels(cuts, what: str = "degree") -> list[str]:
    """Labels of the bands the cut points make: "degree < c1" ("degree 0" for c1 = 1),
    "degree c1-c2-1" ("degree c1" for a band of one), ..., "degree >= ck" (one band, "any
    degree", without cut points)."""
    if not cuts:
        return [f"any {what}"]
    labels = [f"{what} 0" if cuts[0] == 1 else f"{what} < {cuts[0]}"]
    for low, high in itertools.pairwise(cuts):
        labels.append(f"{what} {low}" if high == low + 1 else f"{what} {low}-{high - 1}")
    return [*labels, f"{what} >= {cuts[-1]}"]


#: The ``private_neighbours`` groups' name in their labels ("more-private neighbours 2-3").
MORE_PRIVATE = "more-private neighbours"


def default_neighbour_bands(n_agents: int) -> tuple[int, ...]:
    """Cut points 1, 2, 4, 8, ... below ``n_agents``: none, 1, 2-3, 4-7, ... more-private
    neighbours."""
    return (1, *default_degree_bands(n_agents))


def eps_text(eps: float) -> str:
    return "inf" if math.isinf(eps) else f"{eps:g}"


@dataclass(frozen=True)
class Curve:
    """One curve of a panel: a decision rule at a privacy level, or at a privacy ``mix``:
    (eps, share) pairs, the share of the agents at each eps (``agent_levels``)."""

    rule: str
    eps: float  # NaN for a mix
    theta_k: float = math.nan  # exponent k of theta_t = min(2, 3/t^(1/k)); Bernstein only
    mix: tuple[tuple[float, float], ...] = ()

    @property
    def name(self) -> str:
        if self.mix:
            return f"{self.rule} eps=" + ",".join(f"{eps_text(eps)}:{100 * share:g}%" for eps, share in self.mix)
        return f"{self.rule} eps={eps_text(self.eps)}"

    def levels(self, count: int) -> tuple[float, ...]:
        """The curve's eps per privacy level, padded to ``count`` levels (unused ones)."""
        levels = tuple(eps for eps, _ in self.mix) or (self.eps,)
        return levels + (levels[-1],) * (count - len(levels))

    def agent_levels(self, ranks: np.ndarray) -> np.ndarray:
        """Each agent's privacy level from its rank (a uniformly random permutation of the
        agents, ``colme.instances.privacy_ranks``): the first share_1 M ranks get the first
        eps, and so on, with counts rounded by largest remainder.  One permutation per run
        serves every curve, so mixes of one figure nest and pair run by run."""
        if not self.mix:
            return np.zeros(len(ranks), dtype=np.int64)
        counts = share_counts([share for _, share in self.mix], len(ranks))
        return np.searchsorted(np.cumsum(counts), ranks, side="right")


def share_counts(shares, n_agents: int) -> np.ndarray:
    """Agents per share: floor(share M), the remainder to the largest fractional parts
    (the first listed among equal ones)."""
    exact = np.asarray(shares, dtype=np.float64) * n_agents
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: n_agents - int(counts.sum())]] += 1
    return counts


@dataclass(frozen=True)
class PanelSpec:
    """Everything the engine needs besides the instances and the seeds."""

    n_agents: int
    #: r of the optimistic radius's ln(4 r M sqrt(t + 1)/delta): the random regular graph's
    #: degree, or None for another family: then each run's mean degree 2E/M (choices.py).
    degree: int | None
    curves: tuple[Curve, ...]
    t_record: np.ndarray  # strictly increasing recorded times, last one = t_max
    population: Population = Population()  # noqa: RUF009 - frozen, so shared safely
    alpha_schedule: str = "floor10"
    alpha_reset: str = "per_agent"  # a value of rules.ALPHA_RESETS
    weights: str = "eq2"  # a key of rules.WEIGHT_OFFSETS (a built-in of weight_rules)
    optimistic_delta: float = 1.0
    optimistic_radius: str = "sqrt_over_all"  # a key of rules.OPTIMISTIC_RADII
    bernstein_beta: str = "sec3c1"  # a value of rules.BERNSTEIN_BETAS
    #: A researcher's own decision rules (``decision_rules.user_rule``), by the names curves use.
    user_rules: tuple[DecisionRule, ...] = ()
    #: A researcher's own mixing weights (``weight_rules.user_weights``), in place of ``weights``.
    weight_rule: WeightRule | None = None
    #: What the MSE is also recorded per group of (``GROUPINGS``; none: the panel mean only).
    groups: tuple[str, ...] = ()
    #: Cut points of the degree bands (``groups`` by degree).
    degree_bands: tuple[int, ...] = ()
    #: Cut points of the bands of more-private neighbours (``groups`` by private_neighbours).
    neighbour_bands: tuple[int, ...] = ()

    def group_shape(self) -> tuple[int, ...]:
        """Groups per grouping of ``groups``, in its order (a group's index is mixed radix)."""
        counts = {"class": self.population.n_classes, "privacy": self.n_levels,
                  "degree": len(self.degree_bands) + 1, "private_neighbours": len(self.neighbour_bands) + 1}
        return tuple(counts[grouping] for grouping in self.groups)

    @property
    def n_groups(self) -> int:
        """Groups the MSE is recorded for (0 without ``groups``)."""
        return int(np.prod(self.group_shape())) if self.groups else 0

    def agent_groups(self, curve: Curve, classes: np.ndarray, ranks: np.ndarray | None,
                     indptr: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
        """Each agent's group (M,) on ``curve`` in one run (graph in CSR, ``indptr`` and
        ``neighbours``): its class, its privacy level in the curve's mix
        (``Curve.agent_levels`` of the run's privacy ``ranks``; level 0 on a curve with one
        eps), its degree band and its band of neighbours with a smaller eps than its own,
        combined in ``groups``' order."""
        levels = curve.agent_levels(np.zeros(len(classes), dtype=np.int64) if ranks is None else ranks)

        def more_private() -> np.ndarray:
            eps = np.asarray(curve.levels(self.n_levels))[levels]
            heads = np.repeat(np.arange(len(classes)), np.diff(indptr))
            counts = np.bincount(heads[eps[neighbours] < eps[heads]], minlength=len(classes))
            return np.searchsorted(np.asarray(self.neighbour_bands), counts, side="right")

        parts = {
            "class": lambda: classes.astype(np.int64),
            "privacy": lambda: levels,
            "degree": lambda: np.searchsorted(np.asarray(self.degree_bands), np.diff(indptr), side="right"),
            "private_neighbours": more_private,
        }
        index = np.zeros(len(classes), dtype=np.int64)
        for grouping, count in zip(self.groups, self.group_shape(), strict=True):
            index = index * count + parts[grouping]()
        return index

    def group_labels(self, curve: Curve) -> list[str]:
        """The label of each group of ``curve`` (``agent_groups``' indices), e.g.
        "class 1, eps=1": a mix's level by its eps (a level the curve lacks is never
        anybody's, as is a class or band no agent falls in)."""
        names = {
            "class": [f"class {c}" for c in range(self.population.n_classes)],
            "privacy": [f"eps={eps_text(eps)}" for eps in curve.levels(self.n_levels)],
            "degree": band_labels(self.degree_bands),
            "private_neighbours": band_labels(self.neighbour_bands, MORE_PRIVATE),
        }
        labels = [""]
        for grouping in self.groups:
            labels = [f"{head}, {name}" if head else name for head in labels for name in names[grouping]]
        return labels

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    @property
    def mixed(self) -> bool:
        """Whether agents differ beyond their means (per-class laws or sigma, or a privacy
        mix): then the kernel's ``mixed`` variant runs (``kernel_source``)."""
        return not self.population.uniform_law or any(c.mix for c in self.curves)

    @property
    def n_levels(self) -> int:
        """Privacy levels per curve: the largest mix's (1 without mixes)."""
        return max(len(c.mix) or 1 for c in self.curves)

    def decision_rules(self) -> tuple[DecisionRule, ...]:
        """The panel's decision rules, a curve's rule code being its rule's index: the
        built-in ones (always all three, so that every panel without a rule of its own runs
        one compiled kernel), with the panel's options bound, then the researcher's own
        that its curves use (``user_rules``)."""
        rules = builtin_rules(self.optimistic_delta, self.optimistic_radius == "sqrt_closed_early")
        used = set(c.rule for c in self.curves)
        return (*rules.values(), *(rule for rule in self.user_rules if rule.name in used))

    def mixing_weights(self) -> WeightRule:
        """The panel's mixing weights (``weight_rules``): the researcher's ``weight_rule``,
        else the built-in ``weights`` (eq. (2) or Metropolis)."""
        return self.weight_rule if self.weight_rule is not None else builtin_weights()[self.weights]

    def curve_arrays(self) -> dict[str, np.ndarray]:
        """Per-curve parameters as arrays for the kernel: rule code (an index into
        ``decision_rules``), whether the rule accepts by class, the rule's own parameters
        (curves, most parameters of a panel rule), sigma_DP, the Bernstein parameter of a
        noisy difference (``difference_beta`` of two agents' beta~), k.  sigma_DP and the
        pair's beta are those of the shared law (NaN in a mixed panel, whose kernel reads
        ``profile_arrays`` instead)."""
        rules = self.decision_rules()
        code = {rule.name: index for index, rule in enumerate(rules)}
        width = max(1, *(len(rule.params) for rule in rules))
        rule_params = np.zeros((len(self.curves), width))
        for row, curve in enumerate(self.curves):
            values = [value for _, value in rules[code[curve.rule]].params]
            rule_params[row, : len(values)] = values
        arrays = {
            "rule": np.array([code[c.rule] for c in self.curves], dtype=np.int64),
            "by_class": np.array([rules[code[c.rule]].by_class for c in self.curves], dtype=np.float64),
            "rule_params": rule_params,
            "theta_k": np.array([c.theta_k for c in self.curves], dtype=np.float64),
        }
        if self.mixed:
            nan = np.full(len(self.curves), math.nan)
            return arrays | {"sigma_dp": nan, "beta_pair": nan}
        law = self.population.shared_law
        sigma, half_width, beta = law.sigma, law.half_width, law.bernstein_beta
        sigma_dp = np.array([laplace_sigma_dp(c.eps, half_width) for c in self.curves])
        beta_bar = [noisy_mean_beta(sigma, beta, s, laplace_beta_dp(s)) for s in sigma_dp]
        return arrays | {
            "sigma_dp": sigma_dp,
            "beta_pair": np.array(
                [
                    difference_beta(b, b, sigma, sigma, s, s, self.bernstein_beta)
                    for b, s in zip(beta_bar, sigma_dp, strict=True)
                ]
            ),
        }

    def profile_noise(self, curves) -> np.ndarray:
        """sigma_DP (lanes, profiles) of a mixed panel's lane group ``curves``: profile
        p = class * n_levels + level, the Laplace mechanism of Lemma 1 calibrated to the
        class law's support (half-width L of ``DataLaw.half_width``)."""
        levels = self.n_levels
        return np.array([
            [laplace_sigma_dp(curve.levels(levels)[p % levels], self.population.laws[p // levels].half_width)
             for p in range(self.population.n_classes * levels)]
            for curve in curves
        ])

    def profile_arrays(self, curves, noise: np.ndarray) -> dict[str, np.ndarray]:
        """The threshold parameters of every (profile, profile) pair per lane, flattened
        (pair * lanes + lane) for the mixed kernel: both agents' sigma and sigma_DP (``noise``,
        ``profile_noise(curves)``) and the Bernstein parameter of their noisy difference
        (Sec. III-C1 with each agent's law's beta, ``DataLaw.bernstein_beta``, and beta_DP =
        sigma_DP/sqrt 2)."""
        levels = self.n_levels
        laws = [self.population.laws[p // levels] for p in range(self.population.n_classes * levels)]
        beta_bar = np.array([
            [noisy_mean_beta(law.sigma, law.bernstein_beta, s, laplace_beta_dp(s))
             for law, s in zip(laws, row, strict=True)]
            for row in noise
        ])
        pairs = [(pa, pb) for pa in range(len(laws)) for pb in range(len(laws))]
        lanes = range(len(curves))
        def flat(value):
            return np.array([[value(lane, pa, pb) for lane in lanes] for pa, pb in pairs], dtype=np.float64).reshape(-1)
        return {
            "pair_sigma_a": flat(lambda lane, pa, pb: laws[pa].sigma),
            "pair_sigma_b": flat(lambda lane, pa, pb: laws[pb].sigma),
            "pair_noise_a": flat(lambda lane, pa, pb: noise[lane, pa]),
            "pair_noise_b": flat(lambda lane, pa, pb: noise[lane, pb]),
            "pair_beta": flat(lambda lane, pa, pb: difference_beta(
                beta_bar[lane, pa], beta_bar[lane, pb], laws[pa].sigma, laws[pb].sigma,
                noise[lane, pa], noise[lane, pb], self.bernstein_beta)),
        }

    def agent_profiles(self, curves, noise: np.ndarray, classes: np.ndarray, ranks: np.ndarray | None) -> dict:
        """Per agent and lane (a * lanes + lane) of a mixed panel's run: the agent's noise
        level (from ``noise``, ``profile_noise(curves)``) and its profile's row and column
        offsets in the pair table."""
        levels = self.n_levels
        n_profiles = self.population.n_classes * levels
        lanes = len(curves)
        ranks = np.zeros(len(classes), dtype=np.int64) if ranks is None else ranks
        profile = np.stack(
            [classes.astype(np.int64) * levels + curve.agent_levels(ranks) for curve in curves], axis=1
        )
        return {
            "agent_noise": noise[np.arange(lanes)[None, :], profile].reshape(-1),
            "profile_row": (profile * n_profiles * lanes).astype(np.uint64).reshape(-1),
            "profile_col": (profile * lanes).astype(np.uint64).reshape(-1),
        }

