"""The spec of a Private-C-ColME panel (Yakimenka et al. 2025, arXiv:2511.04702, Algorithm 1):
its curves (a decision rule at a privacy level or a privacy mix), its options, and the
per-curve and per-profile parameters they give the kernel.  Plain data: the compiled kernel
is ``kernel.py``'s, so the analytic tables and the engine read a panel without loading it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..populations import Population
from ..privacy import laplace_sigma_dp
from ..world import (  # noqa: F401 - re-exported: the panel's groups and privacy levels are the world's
    GROUPINGS,
    MORE_PRIVATE,
    GroupedPanel,
    PrivacyLevels,
    band_labels,
    default_degree_bands,
    default_neighbour_bands,
    eps_text,
    share_counts,
)
from .decision_rules import DecisionRule, builtin_rules
from .rules import difference_beta, laplace_beta_dp, noisy_mean_beta
from .weight_rules import WeightRule, builtin_weights

#: Per recorded t and curve: the rule's type-I rate (same-class edges rejected), type-II
#: rate (other-class edges accepted) and the share of agents whose C_a changed at that
#: step (each restarts its alpha clock when alpha_reset is per_agent).
DIAGNOSTICS = ("same-class edges rejected", "other-class edges accepted", "agents whose C_a changed")


@dataclass(frozen=True)
class Curve(PrivacyLevels):
    """One curve of a panel: a decision rule at a privacy level, or at a privacy ``mix``:
    (eps, share) pairs, the share of the agents at each eps (``PrivacyLevels``)."""

    rule: str
    eps: float  # NaN for a mix
    theta_k: float = math.nan  # exponent k of theta_t = min(2, 3/t^(1/k)); Bernstein only
    mix: tuple[tuple[float, float], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.rule} {self.eps_label}"


@dataclass(frozen=True)
class PanelSpec(GroupedPanel):
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

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    @property
    def mixed(self) -> bool:
        """Whether agents differ beyond their means (per-class laws or sigma, or a privacy
        mix): then the kernel's ``mixed`` variant runs (``kernel_source``)."""
        return not self.population.uniform_law or any(c.mix for c in self.curves)

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

