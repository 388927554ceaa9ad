"""Instances, chunk files and their aggregation into tidy tables.

A chunk file holds the per-run average-MSE curves (not only their sums): aggregation
concatenates the chunks in run order and reduces once, so the tables are bit-identical
whatever the chunk size, the number of cores or the executor.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from . import analytic
from .consensus import PanelSpec
from .queries import ColmeSpec
from .graphs import random_regular_edges
from .mechanisms import pm2_levels
from .populations import assign_classes, component_sizes
from .privacy import composed_privacy, laplace_sigma_dp
from .seeding import run_generator


def make_instances(
    n_agents: int, n_classes: int, degree: int | None, figure: str, runs: range, root_seed: int
) -> dict[str, np.ndarray]:
    """Class assignments, graphs and n_a for a range of runs.

    With a ``degree`` (Private-C-ColME): random r-regular graphs, n_a = class-induced
    component size.  Without (Private-ColME): all-to-all (no edge list stored), n_a = |C_a|.
    Each run's instance comes from its own generator (root seed, figure, run):
    independent of the chunking.
    """
    runs = np.arange(runs.start, runs.stop)
    classes, edges = [], []
    for run in runs:
        rng = run_generator(root_seed, figure, int(run), "instance")
        classes.append(assign_classes(n_agents, n_classes, rng))
        if degree is not None:
            edges.append(random_regular_edges(degree, n_agents, rng))
    classes = np.stack(classes)
    if degree is not None:
        edges = np.stack(edges)
        sizes = np.stack([component_sizes(e, c) for e, c in zip(edges, classes)])
    else:
        edges = np.zeros((len(runs), 0, 2), dtype=np.int32)
        sizes = np.stack([np.bincount(c)[c] for c in classes]).astype(np.int32)
    return {"runs": runs, "classes": classes, "edges": edges, "component_sizes": sizes}


def load_npz(path: str | Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def _concatenate(parts: list[dict], key: str) -> np.ndarray:
    parts = sorted(parts, key=lambda part: int(part["runs"][0]))
    return np.concatenate([part[key] for part in parts])


def _mean_se(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over axis 0 and its standard error (NaN with a single run)."""
    n = values.shape[0]
    se = values.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(values.shape[1:], np.nan)
    return values.mean(axis=0), se


def curve_fields(spec: PanelSpec | ColmeSpec, curve) -> dict:
    """The table columns describing a simulated curve (beyond its name)."""
    if isinstance(spec, ColmeSpec):
        return {
            "rule": "oracle" if curve.oracle else "test",
            "eps": spec.eps,
            "schedule": curve.schedule,
            "mechanism": curve.mechanism,
            "weights": curve.weights,
            "noise": curve.noise,
        }
    return {"rule": curve.rule, "eps": curve.eps}


def aggregate_table(
    spec: PanelSpec | ColmeSpec, sims: list[dict], instances: list[dict]
) -> pd.DataFrame:
    """Tidy table: one row per curve and recorded t (simulated curves, Local, Ideal, Theorem 1).

    Columns: curve, kind (simulated/analytic), rule, eps, t, mse, se, runs (Private-ColME
    adds schedule, mechanism, weights, noise).  Ideal and Theorem 1 (Private-C-ColME only)
    average over the panel's instances; their ``se`` is over instances.
    """
    runs = _concatenate(sims, "runs")
    if np.any(np.diff(runs) != 1) or runs[0] != 0:
        raise ValueError("chunks do not cover consecutive runs from 0: missing or duplicate chunk")
    mse = _concatenate(sims, "mse")
    t = sims[0]["t"].astype(np.int64)
    sizes = _concatenate(instances, "component_sizes")
    sigma = spec.population.sigma
    frames = []
    mean, se = _mean_se(mse)
    for index, curve in enumerate(spec.curves):
        frames.append(
            pd.DataFrame(
                {
                    "curve": curve.name,
                    "kind": "simulated",
                    **curve_fields(spec, curve),
                    "t": t,
                    "mse": mean[index],
                    "se": se[index],
                    "runs": len(runs),
                }
            )
        )
    local = analytic.local_mse(t, sigma)
    frames.append(_analytic_frame("Local", "local", math.nan, t, local, np.zeros_like(local), 0))
    ideal_per_instance = np.array([analytic.ideal_mse(1.0, sigma, n) for n in sizes])
    coef, coef_se = _mean_se(ideal_per_instance[:, None])
    frames.append(_analytic_frame("Ideal", "ideal", math.nan, t, coef / t, coef_se / t, len(sizes)))
    if isinstance(spec, ColmeSpec):
        return pd.concat(frames, ignore_index=True)
    for eps, (coef, coef_se) in _theorem1_coefficients(spec, sizes).items():
        name = f"theorem1 eps={'inf' if math.isinf(eps) else f'{eps:g}'}"
        frames.append(_analytic_frame(name, "theorem1", eps, t, coef / t, coef_se / t, len(sizes)))
    return pd.concat(frames, ignore_index=True)


COVARIANCE_COLUMNS = ["curve_a", "curve_b", "t", "cov"]
DIAGNOSTICS_COLUMNS = ["curve", "quantity", "t", "value", "se", "runs"]


def diagnostics_table(spec: PanelSpec | ColmeSpec, sims: list[dict], names: tuple[str, ...]) -> pd.DataFrame:
    """Tidy diagnostics of a simulated figure: per curve, quantity and recorded t, the mean
    over runs and its standard error (empty where the engine records none).

    ``names`` are the engine's diagnostic quantities, in the chunks' order.
    Private-ColME: the share of an agent's classmates in C_a and of the other agents, and
    the mean number of releases per accepted pair (``colme.queries.DIAGNOSTICS``).
    Private-C-ColME: the decision rule's type-I and type-II rates over the graph's edges
    and the share of agents whose C_a changed (``colme.consensus.DIAGNOSTICS``).
    """
    values = _concatenate(sims, "diagnostics")  # (runs, curves, quantities, t)
    t = sims[0]["t"].astype(np.int64)
    counted = np.sum(~np.isnan(values), axis=0)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: NaN, as wanted
        mean = np.nanmean(values, axis=0)
        se = np.nanstd(values, axis=0, ddof=1) / np.sqrt(np.maximum(counted, 1))
    frames = [
        pd.DataFrame({"curve": curve.name, "quantity": name, "t": t, "value": mean[i, q],
                      "se": se[i, q], "runs": counted[i, q]})
        for i, curve in enumerate(spec.curves)
        for q, name in enumerate(names)
    ]
    return pd.concat(frames, ignore_index=True)


def covariance_table(spec: PanelSpec | ColmeSpec, sims: list[dict]) -> pd.DataFrame:
    """Covariance of the Monte Carlo means of every pair of simulated curves, per t.

    The curves of a panel share each run's instance, samples and noise draws (common
    random numbers), so their per-run MSEs are correlated; ``cov`` = sample covariance of
    the per-run values / runs, in the units of ``se**2``, gives the paired standard error
    of a difference, sqrt(se_a^2 + se_b^2 - 2 cov), which the claim checks use.
    """
    mse = _concatenate(sims, "mse")
    runs = mse.shape[0]
    t = sims[0]["t"].astype(np.int64)
    names = [curve.name for curve in spec.curves]
    if runs < 2:
        return pd.DataFrame(columns=COVARIANCE_COLUMNS)
    centred = mse - mse.mean(axis=0)
    frames = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            cov = (centred[:, i] * centred[:, j]).sum(axis=0) / (runs - 1) / runs
            frames.append(pd.DataFrame({"curve_a": names[i], "curve_b": names[j], "t": t, "cov": cov}))
    return pd.concat(frames, ignore_index=True)


def _theorem1_coefficients(spec: PanelSpec, sizes: np.ndarray) -> dict[float, tuple[float, float]]:
    """Per eps: t times Theorem 1's asymptote, mean and standard error over the instances."""
    factor = analytic.ALPHA_FACTOR[spec.alpha_schedule]
    out = {}
    for eps in sorted({c.eps for c in spec.curves}):
        sigma_dp = laplace_sigma_dp(eps, spec.population.half_width)
        per_instance = np.array(
            [analytic.theorem1_coefficient(n, spec.population.sigma, sigma_dp, factor) for n in sizes]
        )
        coef, coef_se = _mean_se(per_instance[:, None])
        out[eps] = (float(coef[0]), float(coef_se[0]))
    return out


def _analytic_frame(name, rule, eps, t, mse, se, runs) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "curve": name,
            "kind": "analytic",
            "rule": rule,
            "eps": eps,
            "t": t,
            "mse": np.broadcast_to(mse, t.shape),
            "se": np.broadcast_to(se, t.shape),
            "runs": runs,
        }
    )


def bound_table(spec: PanelSpec, instances: list[dict]) -> pd.DataFrame:
    """Corollary 1's right-hand side over the instances, and Theorem 1's coefficient per eps.

    Rows: ``corollary1_mean_of_ratios`` (mean over instances of num/den, with its standard
    error), ``corollary1_ratio_of_means`` (mean num / mean den), and per eps the
    ``theorem1_coefficient`` (t times the asymptotic MSE) and ``sigma_dp2`` with
    ``gain_predicted`` = sigma_DP^2 < ratio of means (Corollary 1's condition).
    """
    sizes = _concatenate(instances, "component_sizes")
    sigma = spec.population.sigma
    terms = np.array([analytic.corollary1_terms(n, sigma) for n in sizes])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(terms[:, 1] > 0, terms[:, 0] / terms[:, 1], 0.0)
    ratio_of_means = terms[:, 0].mean() / terms[:, 1].mean()
    ratio_mean, ratio_se = _mean_se(ratios[:, None])
    rows = [
        ("corollary1_mean_of_ratios", math.nan, ratio_mean[0], ratio_se[0], None),
        ("corollary1_ratio_of_means", math.nan, ratio_of_means, math.nan, None),
    ]
    for eps, (coef, coef_se) in _theorem1_coefficients(spec, sizes).items():
        sigma_dp2 = laplace_sigma_dp(eps, spec.population.half_width) ** 2
        rows.append(("theorem1_coefficient", eps, coef, coef_se, None))
        rows.append(("sigma_dp2", eps, sigma_dp2, 0.0, bool(sigma_dp2 < ratio_of_means)))
    table = pd.DataFrame(rows, columns=["quantity", "eps", "value", "se", "gain_predicted"])
    table["runs"] = len(sizes)
    return table


def oracle_table(spec: ColmeSpec) -> pd.DataFrame:
    """Analytic tidy table: Proposition 3 (RR) / Remark 3 (rRR) per curve, Local, Ideal.

    Same columns as the simulated tables; ``kind`` is ``analytic``, ``se`` 0 (exact up to
    quadrature error) and ``runs`` 0.
    """
    t = np.asarray(spec.t_record, dtype=np.int64)
    sigma = spec.population.sigma
    n_classes = len(spec.population.means)
    frames = []
    for curve in spec.curves:
        args = (spec.n_agents, n_classes, sigma, spec.sigma_dp(curve), curve.mechanism, curve.weights, t)
        if curve.schedule == "rr":
            analytic_mse = analytic.prop3_oracle_mse(*args, pm2_variance=spec.pm2_variance)
        else:
            analytic_mse = analytic.remark3_rrr_oracle_mse(*args)
        fields = {**curve_fields(spec, curve), "rule": "prop3" if curve.schedule == "rr" else "remark3"}
        frames.append(pd.DataFrame({"curve": curve.name, "kind": "analytic", **fields, "t": t,
                                    "mse": analytic_mse, "se": 0.0, "runs": 0}))
    local = analytic.local_mse(t, sigma)
    frames.append(_analytic_frame("Local", "local", math.nan, t, local, np.zeros_like(local), 0))
    ideal = analytic.ideal_all_to_all_mse(spec.n_agents, n_classes, sigma, t)
    frames.append(_analytic_frame("Ideal", "ideal", math.nan, t, ideal, np.zeros_like(ideal), 0))
    return pd.concat(frames, ignore_index=True)


def privacy_table(spec: ColmeSpec) -> pd.DataFrame:
    """Per mechanism and noise: each p-sum's (eps, delta), sigma_DP, and what a sample gets.

    PM-I puts every sample in one p-sum; PM-II in up to floor(log2 k) + 1 dyadic blocks
    after k releases to the same agent (basic composition, Sec. IV-B).  ``sample_*`` is the
    worst case over schedules (rRR can query one agent every step: k <= t_max);
    ``sample_*_rr`` is what a sample gets under RR, k = ceil(t_max / (M - 1)).  Sch-Var-1
    rows add the partial-variance release each sample enters (half the budget).
    """
    rows = []
    schemes = sorted({(c.mechanism, c.noise, c.variance == "schvar1") for c in spec.curves})
    for mechanism, noise, releases_variance in schemes:
        curve = next(
            c for c in spec.curves
            if (c.mechanism, c.noise, c.variance == "schvar1") == (mechanism, noise, releases_variance)
        )
        eps, delta = spec.psum_budget(curve)
        delta = delta if noise == "gaussian" else 0.0
        rr_releases = -(-spec.t_max // (spec.n_agents - 1))
        uses = 1 if mechanism == "pm1" else pm2_levels(spec.t_max)
        uses_rr = 1 if mechanism == "pm1" else pm2_levels(rr_releases)
        # Sch-Var-1: each sample also enters one partial-variance release with the other half
        extra = (eps, delta) if releases_variance else (0.0, 0.0)
        total_eps, total_delta = composed_privacy(eps, delta, uses)
        rr_eps, rr_delta = composed_privacy(eps, delta, uses_rr)
        rows.append({
            "mechanism": mechanism, "noise": noise, "variance_releases": releases_variance,
            "psum_eps": eps, "psum_delta": delta, "sigma_dp": spec.sigma_dp(curve),
            "psums_per_sample": uses,
            "sample_eps": total_eps + extra[0], "sample_delta": total_delta + extra[1],
            "psums_per_sample_rr": uses_rr,
            "sample_eps_rr": rr_eps + extra[0], "sample_delta_rr": rr_delta + extra[1],
        })
    return pd.DataFrame(rows)
