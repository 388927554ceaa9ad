"""Seed 002's own tables: Theorem 1's asymptotes as curves, and Corollary 1's bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..aggregation import analytic_frame, concatenate_runs, mean_se
from ..privacy import laplace_sigma_dp
from .closed_forms import ALPHA_FACTOR, corollary1_terms, theorem1_coefficient
from .spec import Curve, PanelSpec


def curve_fields(spec: PanelSpec, curve: Curve) -> dict:
    """The table columns describing a Private-C-ColME curve (beyond its name): rule and
    eps; a mix's curve has eps NaN and its mix in ``eps_mix`` (e.g. "1:20%,inf:80%")."""
    if curve.mix:
        return {"rule": curve.rule, "eps": curve.eps, "eps_mix": curve.name.partition("eps=")[2]}
    return {"rule": curve.rule, "eps": curve.eps}


def theorem1_applies(spec: PanelSpec) -> bool:
    """Theorem 1 needs equal means within a class (no jitter): its oracle averages a
    class-induced component, whose agents then share one mean, one law and, on a
    single-eps curve, one sigma_DP, so per-class laws enter agent by agent.  Mix curves,
    whose components hold agents of different sigma_DP, get none."""
    return spec.population.jitter == 0


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
    """Theorem 1's asymptote per eps as closed-form curves (rule ``theorem1``)."""
    frames = []
    for eps, (coef, coef_se) in theorem1_coefficients(spec, instances).items():
        name = f"theorem1 eps={'inf' if math.isinf(eps) else f'{eps:g}'}"
        runs = len(concatenate_runs(instances, "runs"))
        frames.append(analytic_frame(name, "theorem1", eps, t, coef / t, coef_se / t, runs))
    return frames


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
    return table
