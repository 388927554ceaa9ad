"""Seed 002's own tables: Theorem 1's asymptotes as curves, and Corollary 1's bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..aggregation import analytic_frame, concatenate_runs, mean_se
from ..privacy import laplace_sigma_dp
from .closed_forms import ALPHA_FACTOR, corollary1_terms, theorem1_coefficient
from .kernel import Curve, PanelSpec


def curve_fields(spec: PanelSpec, curve: Curve) -> dict:
    """The table columns describing a Private-C-ColME curve (beyond its name): rule and
    eps; a mix's curve has eps NaN and its mix in ``eps_mix`` (e.g. "1:20%,inf:80%")."""
    if curve.mix:
        return {"rule": curve.rule, "eps": curve.eps, "eps_mix": curve.name.partition("eps=")[2]}
    return {"rule": curve.rule, "eps": curve.eps}


def closed_forms_apply(spec: PanelSpec) -> bool:
    """Theorem 1 and Corollary 1 assume one sigma, one support (so one sigma_DP per eps)
    and equal means within a class: a population with one shared law and no jitter.  Mix
    curves, whose agents have different sigma_DP, get neither."""
    population = spec.population
    return len(set(population.laws)) == 1 and population.jitter == 0


def theorem1_coefficients(spec: PanelSpec, sizes: np.ndarray) -> dict[float, tuple[float, float]]:
    """Per eps: t times Theorem 1's asymptote, mean and standard error over the instances
    (none where ``closed_forms_apply`` says the theorem does not)."""
    factor = ALPHA_FACTOR[spec.alpha_schedule]
    out = {}
    if not closed_forms_apply(spec):
        return out
    for eps in sorted({c.eps for c in spec.curves if not c.mix}):
        sigma_dp = laplace_sigma_dp(eps, spec.population.half_width)
        per_instance = np.array(
            [theorem1_coefficient(n, spec.population.sigma, sigma_dp, factor) for n in sizes]
        )
        coef, coef_se = mean_se(per_instance[:, None])
        out[eps] = (float(coef[0]), float(coef_se[0]))
    return out


def theorem1_frames(spec: PanelSpec, t: np.ndarray, sizes: np.ndarray) -> list[pd.DataFrame]:
    """Theorem 1's asymptote per eps as closed-form curves (rule ``theorem1``)."""
    frames = []
    for eps, (coef, coef_se) in theorem1_coefficients(spec, sizes).items():
        name = f"theorem1 eps={'inf' if math.isinf(eps) else f'{eps:g}'}"
        frames.append(analytic_frame(name, "theorem1", eps, t, coef / t, coef_se / t, len(sizes)))
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
    if not closed_forms_apply(spec):
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
    for eps, (coef, coef_se) in theorem1_coefficients(spec, sizes).items():
        sigma_dp2 = laplace_sigma_dp(eps, spec.population.half_width) ** 2
        rows.append(("theorem1_coefficient", eps, coef, coef_se, None))
        rows.append(("sigma_dp2", eps, sigma_dp2, 0.0, bool(sigma_dp2 < ratio_of_means)))
    table = pd.DataFrame(rows, columns=["quantity", "eps", "value", "se", "gain_predicted"])
    table["runs"] = len(sizes)
    return table
