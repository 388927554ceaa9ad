"""Private-C-ColME's own tables (Yakimenka et al. 2025, arXiv:2511.04702): Theorem 1's
asymptotes as curves, and Corollary 1's bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..aggregation import ALL_AGENTS, analytic_frame, concatenate_runs, mean_se, pooled_mean_se
from ..graphs import csr_neighbours, valid_edges
from ..populations import component_labels
from ..privacy import laplace_sigma_dp
from .closed_forms import ALPHA_FACTOR, corollary1_terms, theorem1_coefficient, theorem1_terms
from .spec import Curve, PanelSpec


def curve_fields(spec: PanelSpec, curve: Curve) -> dict:
    """The table columns describing a Private-C-ColME curve (beyond its name): rule and
    eps; a mix's curve has eps NaN and its mix in ``eps_mix`` (e.g. "1:20%,inf:80%")."""
    if curve.mix:
        return {"rule": curve.rule, "eps": curve.eps, "eps_mix": curve.name.partition("eps=")[2]}
    return {"rule": curve.rule, "eps": curve.eps}


def theorem1_applies(spec: PanelSpec) -> bool:
    """Theorem 1 needs equal means within a class (no jitter): its oracle averages a
    class-induced component, whose agents then share one mean and one law, so per-class
    laws enter agent by agent (and a mix's levels component by component,
    ``theorem1_agent_terms``)."""
    return spec.population.jitter == 0


def theorem1_agent_terms(spec: PanelSpec, curve: Curve, classes: np.ndarray, edges: np.ndarray,
                         sizes: np.ndarray, ranks: np.ndarray | None) -> np.ndarray:
    """t times Theorem 1's asymptotic MSE of each agent of one run (M,) on ``curve``'s
    privacy (its eps, or its mix's levels by the run's privacy ``ranks``).

    An agent with n_a <= 2 keeps its local mean: sigma_a^2.  Otherwise consensus gives
    every agent of a class-induced component G the average of the component's noisy means,
    so its term is f * mean_{b in G}(sigma_b^2 + sigma_DP,b^2) / n_a (f of the alpha
    schedule, ``ALPHA_FACTOR``): with one sigma_DP this is the theorem's f (sigma^2 +
    sigma_DP^2)/n_a; in a mix, private agents and their non-private classmates share it.
    """
    levels = curve.agent_levels(np.zeros(len(classes), dtype=np.int64) if ranks is None else ranks)
    laws = spec.population.laws
    level_eps = curve.levels(spec.n_levels)
    noise = np.array([[laplace_sigma_dp(eps, law.half_width) for law in laws] for eps in level_eps])
    sigma = spec.population.class_sigmas()[classes]
    variance = sigma**2 + noise[levels, classes] ** 2
    labels = component_labels(edges, classes)
    component_mean = np.bincount(labels, variance) / np.bincount(labels)
    return theorem1_terms(sizes, sigma, component_mean[labels], ALPHA_FACTOR[spec.alpha_schedule])


def run_edges(instances: list[dict]) -> list[np.ndarray]:
    """Each run's edge list, in run order, without its padding (a chunk pads its runs'
    edge lists to its own longest)."""
    return [valid_edges(e) for part in sorted(instances, key=lambda p: int(p["runs"][0])) for e in part["edges"]]


def run_groups(spec: PanelSpec, curve: Curve, classes: np.ndarray, edges: list[np.ndarray],
               ranks: np.ndarray | None) -> np.ndarray:
    """Each run's agents' groups (runs, M) on ``curve`` (``PanelSpec.agent_groups``)."""
    return np.stack([
        spec.agent_groups(curve, classes[r], None if ranks is None else ranks[r], *csr_neighbours(e, spec.n_agents))
        for r, e in enumerate(edges)
    ])


def theorem1_group_frames(spec: PanelSpec, t: np.ndarray, instances: list[dict]) -> list[pd.DataFrame]:
    """Theorem 1's asymptote for each mix (the whole panel) and, in a grouped panel, for
    each group of each eps and mix (``PanelSpec.groups``): the agents' terms
    (``theorem1_agent_terms``) pooled over the runs like the simulated groups
    (``colme.aggregation.pooled_mean_se``)."""
    if not theorem1_applies(spec):
        return []
    privacy = list({c.name.partition("eps=")[2]: Curve("theorem1", c.eps, math.nan, c.mix)
                    for c in spec.curves if c.mix or spec.groups}.values())
    if not privacy:
        return []
    classes = concatenate_runs(instances, "classes")
    edges = run_edges(instances)
    sizes = concatenate_runs(instances, "component_sizes")
    ranks = concatenate_runs(instances, "privacy_ranks") if "privacy_ranks" in instances[0] else None
    n_runs, n_agents = classes.shape
    frames = []
    for curve in privacy:
        terms = np.stack([
            theorem1_agent_terms(spec, curve, classes[r], edges[r], sizes[r], None if ranks is None else ranks[r])
            for r in range(n_runs)
        ])
        privacy_text = curve.name.partition("eps=")[2]
        name = f"theorem1 eps={privacy_text}"
        fields = {"eps_mix": privacy_text} if curve.mix else {}
        if curve.mix:
            coef, coef_se = mean_se(terms.mean(axis=1)[:, None])
            frames.append(analytic_frame(name, "theorem1", math.nan, t, coef / t, coef_se / t, n_runs)
                          .assign(**fields))
        if not spec.groups:
            continue
        groups = run_groups(spec, curve, classes, edges, ranks)
        for group, label in enumerate(spec.group_labels(curve)):
            members = groups == group
            counts = members.sum(axis=1)
            if counts.sum() == 0:
                continue
            coef, coef_se = pooled_mean_se(np.where(members, terms, 0.0).sum(axis=1)[:, None], counts)
            frames.append(analytic_frame(name, "theorem1", curve.eps, t, coef[0] / t, coef_se[0] / t, n_runs)
                          .assign(group=label, group_share=counts.sum() / (n_runs * n_agents), **fields))
    return frames


def corollary1_applies(spec: PanelSpec) -> bool:
    """Corollary 1 compares one sigma_DP^2 with a bound in one sigma: it needs, beyond
    Theorem 1, one law shared by every class (one support, so one sigma_DP per eps)."""
    return theorem1_applies(spec) and spec.population.one_law


def theorem1_coefficients(spec: PanelSpec, instances: list[dict]) -> dict[float, tuple[float, float]]:
    """Per eps: t times Theorem 1's asymptote, mean and standard error over the instances,
    none where ``theorem1_applies`` says the theorem does not.  Per-class laws: each
    agent's term takes its class's sigma and sigma_DP (Laplace noise calibrated to its
    class's support)."""
    factor = ALPHA_FACTOR[spec.alpha_schedule]
    out = {}
    if not theorem1_applies(spec):
        return out
    population = spec.population
    sizes = concatenate_runs(instances, "component_sizes")
    for eps in sorted({c.eps for c in spec.curves if not c.mix}):
        if population.one_law:
            sigma, sigma_dp = population.sigma, laplace_sigma_dp(eps, population.half_width)
            per_instance = np.array([theorem1_coefficient(n, sigma, sigma_dp, factor) for n in sizes])
        else:
            classes = concatenate_runs(instances, "classes")
            sigmas = population.class_sigmas()
            sigma_dps = np.array([laplace_sigma_dp(eps, law.half_width) for law in population.laws])
            per_instance = np.array(
                [theorem1_coefficient(n, sigmas[c], sigma_dps[c], factor) for n, c in zip(sizes, classes, strict=True)]
            )
        coef, coef_se = mean_se(per_instance[:, None])
        out[eps] = (float(coef[0]), float(coef_se[0]))
    return out


def theorem1_frames(spec: PanelSpec, t: np.ndarray, instances: list[dict]) -> list[pd.DataFrame]:
    """Theorem 1's asymptote per eps as closed-form curves (rule ``theorem1``), then per mix
    and per group (``theorem1_group_frames``)."""
    frames = []
    for eps, (coef, coef_se) in theorem1_coefficients(spec, instances).items():
        name = f"theorem1 eps={'inf' if math.isinf(eps) else f'{eps:g}'}"
        runs = len(concatenate_runs(instances, "runs"))
        frames.append(analytic_frame(name, "theorem1", eps, t, coef / t, coef_se / t, runs))
    return frames + theorem1_group_frames(spec, t, instances)


def bound_table(spec: PanelSpec, instances: list[dict]) -> pd.DataFrame:
    """Corollary 1's right-hand side over the instances, and Theorem 1's coefficient per eps.

    Rows: ``corollary1_mean_of_ratios`` (mean over instances of num/den, with its standard
    error), ``corollary1_ratio_of_means`` (mean num / mean den), and per eps the
    ``theorem1_coefficient`` (t times the asymptotic MSE) and ``sigma_dp2`` with
    ``gain_predicted`` = sigma_DP^2 < ratio of means (Corollary 1's condition).
    """
    sizes = concatenate_runs(instances, "component_sizes")
    columns = ["quantity", "eps", "value", "se", "gain_predicted", "runs"]
    if not corollary1_applies(spec):
        return pd.DataFrame(columns=columns)
    sigma = spec.population.sigma
    terms = np.array([corollary1_terms(n, sigma) for n in sizes])
    with np.errstate(divide="ignore", invalid="ignore"):  # no agent with a classmate: NaN
        ratios = np.where(terms[:, 1] > 0, terms[:, 0] / terms[:, 1], 0.0)
        ratio_of_means = np.float64(terms[:, 0].mean()) / terms[:, 1].mean()
    ratio_mean, ratio_se = mean_se(ratios[:, None])
    rows = [
        ("corollary1_mean_of_ratios", math.nan, ratio_mean[0], ratio_se[0], None),
        ("corollary1_ratio_of_means", math.nan, ratio_of_means, math.nan, None),
    ]
    for eps, (coef, coef_se) in theorem1_coefficients(spec, instances).items():
        sigma_dp2 = laplace_sigma_dp(eps, spec.population.half_width) ** 2
        rows.append(("theorem1_coefficient", eps, coef, coef_se, None))
        rows.append(("sigma_dp2", eps, sigma_dp2, 0.0, bool(sigma_dp2 < ratio_of_means)))
    table = pd.DataFrame(rows, columns=["quantity", "eps", "value", "se", "gain_predicted"])
    table["runs"] = len(sizes)
    if not spec.groups:
        return table
    return pd.concat([table.assign(group=ALL_AGENTS), group_bound_rows(spec, instances, sizes)], ignore_index=True)


def group_bound_rows(spec: PanelSpec, instances: list[dict], sizes: np.ndarray) -> pd.DataFrame:
    """Corollary 1 per group of a grouped panel (``corollary1_applies``): bound (3) summed
    over the group's agents only (Theorem 1's terms add agent by agent, so a group gains
    over Local iff its sigma_DP^2 is below its own ratio), as ``corollary1_ratio_of_means``
    per group, and per eps of the single-eps curves ``sigma_dp2`` with ``gain_predicted``.
    Groups are those of the panel's first single-eps curve (a mix has no single sigma_DP:
    no bound)."""
    single = [c for c in spec.curves if not c.mix]
    if not single:
        return pd.DataFrame()
    groups = run_groups(spec, single[0], concatenate_runs(instances, "classes"), run_edges(instances), None)
    rows = []
    for group, label in enumerate(spec.group_labels(single[0])):
        members = groups == group
        if not members.any():
            continue
        numerator, denominator = corollary1_terms(sizes[members], spec.population.sigma)
        with np.errstate(divide="ignore", invalid="ignore"):  # no member with classmates: NaN
            bound = np.float64(numerator) / denominator
        rows.append(("corollary1_ratio_of_means", math.nan, bound, math.nan, None, label))
        for eps in sorted({c.eps for c in single}):
            sigma_dp2 = laplace_sigma_dp(eps, spec.population.half_width) ** 2
            rows.append(("sigma_dp2", eps, sigma_dp2, 0.0, bool(sigma_dp2 < bound), label))
    table = pd.DataFrame(rows, columns=["quantity", "eps", "value", "se", "gain_predicted", "group"])
    table["runs"] = len(sizes)
    return table
