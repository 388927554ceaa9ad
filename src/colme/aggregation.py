"""Chunk files and their aggregation into tidy tables, whatever the engine.

A chunk file holds the per-run average-MSE curves (not only their sums): aggregation
concatenates the chunks in run order and reduces once, so the tables are bit-identical
whatever the chunk size, the number of cores or the executor.  What a table says about a
curve beyond its name (``curve_fields``) and which closed-form curves it adds
(``analytic_frames``) are the engine's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from .baselines import ideal_mse, local_mse

COVARIANCE_COLUMNS = ["curve_a", "curve_b", "t", "cov"]
DIAGNOSTICS_COLUMNS = ["curve", "quantity", "t", "value", "se", "runs"]


def run_chunks(runs: int, chunk_runs: int) -> list[tuple[int, int]]:
    """Run ranges [start, stop) of ``chunk_runs`` runs each (the last may be shorter).

    A range depends only on its position, never on the total, so raising ``runs`` keeps
    every full chunk and only adds new ones.
    """
    return [(start, min(start + chunk_runs, runs)) for start in range(0, runs, chunk_runs)]


def concatenate_runs(parts: list[dict], key: str) -> np.ndarray:
    """``key`` of every chunk (or instance file), concatenated in run order."""
    parts = sorted(parts, key=lambda part: int(part["runs"][0]))
    return np.concatenate([part[key] for part in parts])


def mean_se(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over axis 0 and its standard error (NaN with a single run)."""
    n = values.shape[0]
    se = values.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(values.shape[1:], np.nan)
    return values.mean(axis=0), se


def analytic_frame(name, rule, eps, t, mse, se, runs) -> pd.DataFrame:
    """Rows of one closed-form curve in the tidy table's columns (``kind`` analytic)."""
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


def aggregate_table(
    spec,
    sims: list[dict],
    instances: list[dict],
    curve_fields: Callable[[object, object], dict],
    analytic_frames: Callable[[object, np.ndarray, list[dict]], Iterable[pd.DataFrame]],
) -> pd.DataFrame:
    """Tidy table: one row per curve and recorded t (simulated curves, Local, Ideal, then the
    engine's closed-form curves; in a world from a data file, Local simulated run by run,
    ``local_mse`` of the chunks, and neither Ideal nor a closed form).

    Columns: curve, kind (simulated/analytic), the engine's ``curve_fields`` (rule, eps,
    ...), t, mse, se, runs.  Ideal and the engine's ``analytic_frames(spec, t, instances)``
    average over the panel's instances (class-induced component sizes n_a); their ``se`` is
    over instances.
    """
    runs = concatenate_runs(sims, "runs")
    if np.any(np.diff(runs) != 1) or runs[0] != 0:
        raise ValueError("chunks do not cover consecutive runs from 0: missing or duplicate chunk")
    mse = concatenate_runs(sims, "mse")
    t = sims[0]["t"].astype(np.int64)
    frames = []
    mean, se = mean_se(mse)
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
    if "local_mse" in sims[0]:  # a world from a data file: Local simulated, no closed form applies
        local, local_se = mean_se(concatenate_runs(sims, "local_mse"))
        frames.append(analytic_frame("Local", "local", math.nan, t, local, local_se, len(runs)))
    else:
        frames += model_frames(spec, t, instances, analytic_frames)
    if "group_sums" not in sims[0]:
        return pd.concat(frames, ignore_index=True)
    return grouped_table([*frames, *group_frames(spec, sims, curve_fields)])


def model_frames(spec, t: np.ndarray, instances: list[dict], analytic_frames) -> list[pd.DataFrame]:
    """Local, Ideal and the engine's closed forms (``analytic_frames``) of a world drawn
    from its classes' laws, over the panel's instances."""
    sizes = concatenate_runs(instances, "component_sizes")
    sigmas = spec.population.class_sigmas()
    sigma = float(sigmas[0])
    frames = []
    if np.all(sigmas == sigmas[0]):
        local = local_mse(t, sigma)
        frames.append(analytic_frame("Local", "local", math.nan, t, local, np.zeros_like(local), 0))
        ideal_per_instance = np.array([ideal_mse(1.0, sigma, n) for n in sizes])
    else:  # per-class sigma: Propositions 1 and 2 agent by agent, averaged over the instances
        variances = sigmas[concatenate_runs(instances, "classes")] ** 2
        coef, coef_se = mean_se(variances.mean(axis=1)[:, None])
        frames.append(analytic_frame("Local", "local", math.nan, t, coef / t, coef_se / t, len(sizes)))
        ideal_per_instance = (variances / sizes).mean(axis=1)
    coef, coef_se = mean_se(ideal_per_instance[:, None])
    frames.append(analytic_frame("Ideal", "ideal", math.nan, t, coef / t, coef_se / t, len(sizes)))
    frames.extend(analytic_frames(spec, t, instances))
    return frames


def grouped_table(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The tidy table of a grouped panel's frames: ``group`` and ``group_share`` columns
    before ``t``, the panel's rows in group ``ALL_AGENTS``."""
    table = pd.concat(frames, ignore_index=True)
    table["group"] = table["group"].fillna(ALL_AGENTS)
    table["group_share"] = table["group_share"].fillna(1.0)
    columns = [c for c in table.columns if c not in ("group", "group_share")]
    at = columns.index("t")
    return table[[*columns[:at], "group", "group_share", *columns[at:]]]


#: The ``group`` of a grouped table's panel rows (every agent).
ALL_AGENTS = "all"


def panel_rows(table: pd.DataFrame) -> pd.DataFrame:
    """A table's panel rows (every agent): a grouped table (``group_frames``) without its
    group rows and group columns; any other table as it is."""
    if "group" not in table.columns:
        return table
    return table[table["group"] == ALL_AGENTS].drop(columns=["group", "group_share"]).reset_index(drop=True)


def group_rows(table: pd.DataFrame) -> pd.DataFrame:
    """A grouped table's rows of groups, but a group that holds every agent (a curve with
    one eps grouped by privacy: the panel again); none for a table without groups."""
    if "group" not in table.columns:
        return table.iloc[:0]
    return table[_own_groups(table)]


def _own_groups(table: pd.DataFrame) -> pd.Series:
    """Which rows of a grouped table are a group's that is not the panel again."""
    return (table["group"] != ALL_AGENTS) & (table["group_share"] < 1.0)


def groups_as_curves(table: pd.DataFrame) -> pd.DataFrame:
    """A grouped table with each group's rows as a curve of its own, ``"<curve> [<group>]"``,
    and no group columns (a sweep summarises them like any curve), but for a group that
    holds every agent (a curve with one eps grouped by privacy: the panel again); any
    other table as it is."""
    if "group" not in table.columns:
        return table
    out = table[(table["group"] == ALL_AGENTS) | _own_groups(table)].copy()
    grouped = out["group"] != ALL_AGENTS
    out.loc[grouped, "curve"] = out.loc[grouped, "curve"] + " [" + out.loc[grouped, "group"] + "]"
    return out.drop(columns=["group", "group_share"])


def pooled_mean_se(sums: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A group's pooled mean over runs, sum(sums) / sum(counts), and its standard error by
    the delta method for a ratio estimator (the plain standard error of the mean when
    every run has the same count); ``sums`` (runs, ...) and ``counts`` (runs,)."""
    counts = np.asarray(counts, dtype=np.float64)
    mean = sums.sum(axis=0) / counts.sum()
    residuals = (sums - mean[None] * counts.reshape((-1,) + (1,) * (sums.ndim - 1))) / counts.mean()
    return mean, mean_se(residuals)[1]


def group_frames(spec, sims: list[dict], curve_fields: Callable[[object, object], dict]) -> list[pd.DataFrame]:
    """Rows of every simulated curve's groups (``spec.group_labels(curve)``) from the chunks'
    ``group_sums`` and ``group_counts``: a group's mse is its agents' pooled mean squared
    error (``pooled_mean_se``), ``group_share`` its share of the agents over the runs, so
    that sum(group_share * mse) is the panel's mse; groups no agent fell in are left out."""
    sums = concatenate_runs(sims, "group_sums")  # (runs, curves, groups, t)
    counts = concatenate_runs(sims, "group_counts")  # (runs, curves, groups)
    runs, t = sums.shape[0], sims[0]["t"].astype(np.int64)
    frames = []
    for index, curve in enumerate(spec.curves):
        for group, label in enumerate(spec.group_labels(curve)):
            if counts[:, index, group].sum() == 0:
                continue
            mse, se = pooled_mean_se(sums[:, index, group], counts[:, index, group])
            frames.append(pd.DataFrame({
                "curve": curve.name, "kind": "simulated", **curve_fields(spec, curve), "group": label,
                "group_share": counts[:, index, group].sum() / (runs * spec.n_agents),
                "t": t, "mse": mse, "se": se, "runs": runs,
            }))
    return frames


def diagnostics_table(spec, sims: list[dict], names: tuple[str, ...]) -> pd.DataFrame:
    """Tidy diagnostics of a simulated figure: per curve, quantity and recorded t, the mean
    over runs and its standard error (empty where the engine records none).

    ``names`` are the engine's diagnostic quantities, in the chunks' order.
    """
    if not names:
        return pd.DataFrame(columns=DIAGNOSTICS_COLUMNS)
    values = concatenate_runs(sims, "diagnostics")  # (runs, curves, quantities, t)
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


def covariance_table(spec, sims: list[dict]) -> pd.DataFrame:
    """Covariance of the Monte Carlo means of every pair of simulated curves, per t.

    The curves of a panel share each run's instance, samples and noise draws (common
    random numbers), so their per-run MSEs are correlated; ``cov`` = sample covariance of
    the per-run values / runs, in the units of ``se**2``, gives the paired standard error
    of a difference, sqrt(se_a^2 + se_b^2 - 2 cov), which the claim checks use.
    """
    mse = concatenate_runs(sims, "mse")
    runs = mse.shape[0]
    t = sims[0]["t"].astype(np.int64)
    names = [curve.name for curve in spec.curves]
    if runs < 2 or len(names) < 2:
        return pd.DataFrame(columns=COVARIANCE_COLUMNS)
    centred = mse - mse.mean(axis=0)
    frames = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            cov = (centred[:, i] * centred[:, j]).sum(axis=0) / (runs - 1) / runs
            frames.append(pd.DataFrame({"curve_a": names[i], "curve_b": names[j], "t": t, "cov": cov}))
    return pd.concat(frames, ignore_index=True)
