"""The scorecard: any set of algorithms scored over a suite of worlds, in one figure.

A scorecard figure names *worlds* (each a configured simulated figure, ``base``, whose
agents, graph, population, horizon and runs it takes, with optional ``set`` overrides),
*algorithms* (an engine and the settings that make it that algorithm, ``set``) and the
privacy levels ``eps``.  Every algorithm meets every world it can run on in a *cell*: an
ordinary simulated figure ``<card>__<world>__<algorithm>`` (``__eps<value>`` appended for
an engine with one eps per figure), built by the same rules as any figure, with all eps as
lanes of one kernel call where the engine has them.  Every cell of a world draws the
base's random streams (``stream``): the same instances and data run by run, so the
comparisons between algorithms are paired, and a cell's curve equals, bit for bit, the
same curve of the base figure when the algorithm's settings are the base's.  Adding an
algorithm adds its cells and reruns nothing else but the card's table.

The card (``card_rows``), for each world x eps x algorithm, at the world's horizon T:

* MSE / Local with a 2-se interval, paired run by run with Local where Local is simulated
  (a world from a data file), the delta method's;
* the first recorded t after which the mean curve stays below Local;
* the area of the log ratio: the mean of log10(MSE / Local) over log t;
* one-sided tests of "beats Local" and "beats the best baseline" (the baseline algorithm
  with the lowest MSE at T in that world and eps, paired run by run), Holm-corrected over
  every test of the card (``holm``);
* its rank by MSE at T, deployable algorithms apart from those that know something a
  deployed agent would not (``Algorithm.privileged_knowledge``: the oracle's classes, the
  authors' C-ColME stopping its restarts on the true classes);
* what it cost: the cell's kernel CPU seconds per run.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy.special import ndtr  # Phi; the normal's sf(x) is ndtr(-x), without scipy.stats' start-up

from ..aggregation import panel_rows
from ..engines import FigureTables, check_names_figure, no_diagnostics, no_pairs, table_path
from ..errors import ConfigError
from ..integrity import load_verified
from .base import DerivedEngine
from .sweeps import _assign, global_settings, value_token

#: The keys a world takes from its base figure: where the agents live and what they see.
#: Everything else (rules, weights, schedules, exponents, ...) belongs to the algorithm.
WORLD_KEYS = ("n_agents", "degree", "graph", "population", "privacy_mixes", "groups", "t_max", "grid", "runs",
              "chunk_runs")
#: The comparison every ratio is to (``colme.baselines``): each agent alone.
LOCAL = "Local"
#: Standard errors of the intervals.
K = 2.0
#: The family-wise error rate of the card's tests (Holm).
ALPHA = 0.05
#: Columns of the card's table, one row per world x privacy level x algorithm.
CARD_COLUMNS = ["world", "privacy", "eps", "curve", "kind", "t", "mse", "se", "runs", "local", "ratio", "ratio_lo",
                "ratio_hi", "below_local_from", "log_ratio_area", "p_local", "beats_local", "best_baseline",
                "p_baseline", "beats_baseline", "rank", "ranked_among", "knows", "cpu_seconds_per_run", "figure"]


def cell_suffix(world: str, algorithm: str, eps=None) -> str:
    """``<world>__<algorithm>[__eps<value>]``: a cell is the figure ``<card>__<suffix>``."""
    return "__".join([world, algorithm] + ([] if eps is None else [f"eps{value_token(eps)}"]))


@functools.cache
def figure_properties(engine) -> dict:
    """The schema of each key a figure of ``engine`` may have (its definition's properties)."""
    return yaml.safe_load(Path(engine.schema).read_text())["$defs"][engine.figure_schema].get("properties", {})


def lanes_eps(engine) -> bool:
    """Whether the engine takes a list of eps, one curve each, in one figure (else one
    figure per eps)."""
    return figure_properties(engine).get("eps", {}).get("type") == "array"


def world_stream(card: dict, name: str, world: str) -> str:
    """The random streams a world's cells draw: its base figure's (so that a cell's curve is
    the base's, bit for bit, where their settings agree), or, for a world that sets
    anything over its base, its own (``<card>__<world>``)."""
    spec = card["worlds"][world]
    return f"{name}__{world}" if spec.get("set") else spec["base"]


def cell_entry(config: dict, card: dict, world: str, algorithm: str, engine, eps) -> dict:
    """The figure entry of one cell: the world's keys of its base (``WORLD_KEYS``), the
    world's ``set``, the algorithm's engine and ``set``, and ``eps`` (a list, with the
    card's ``theta_k`` for an engine that zips it with eps, or one value)."""
    spec, chosen = card["worlds"][world], card["algorithms"][algorithm]
    base = config["figures"][spec["base"]]
    accepted = figure_properties(engine)
    entry = {"engine": engine.name, "title": f"{algorithm} on {world}"}
    entry.update({key: copy.deepcopy(base[key]) for key in WORLD_KEYS if key in base and key in accepted})
    for key, value in [*spec.get("set", {}).items(), *chosen.get("set", {}).items()]:
        _assign(entry, key, value)
    entry["eps"] = list(eps) if isinstance(eps, list) else eps
    if "theta_k" in engine.lane_keys.get("eps", ()):
        entry["theta_k"] = list(card["theta_k"]) if card["theta_k"] else [5] * len(eps)
    return entry


def privacy_of(curve: str, settings: dict) -> tuple[str, float]:
    """A cell curve's privacy level: its name's ``eps=...`` (a value, or a privacy mix's
    ``eps=1:30%,inf:70%``, whose eps is NaN), else its figure's one ``eps``."""
    found = re.search(r"\beps=(\S+)", curve)
    token = found[1] if found else f"{float(settings['eps']):g}"
    try:
        return f"eps={token}", float(token)
    except ValueError:
        return f"eps={token}", math.nan


def holm(p_values: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Holm's step-down rejections of a family of p-values (NaN: no test, never rejected):
    sorted ascending, the i-th smallest (from 0) is rejected while p <= alpha / (m - i)."""
    p = np.asarray(p_values, dtype=float)
    rejected = np.zeros(p.shape, dtype=bool)
    tested = np.flatnonzero(~np.isnan(p))
    m = len(tested)
    for i, index in enumerate(tested[np.argsort(p[tested], kind="stable")]):
        if p[index] > alpha / (m - i):
            break
        rejected[index] = True
    return rejected


def ranks(frame: pd.DataFrame) -> pd.Series:
    """Each row's rank by ``mse`` (1 = lowest, ties share the lowest rank) within its world,
    privacy level and ``ranked_among`` (deployable algorithms apart from privileged ones)."""
    return frame.groupby(["world", "privacy", "ranked_among"], sort=False)["mse"].rank(method="min").astype(int)


def first_below(t: np.ndarray, mse: np.ndarray, local: np.ndarray) -> float:
    """The first recorded t from which the curve stays below Local to the horizon; NaN if it
    is not below Local at the horizon."""
    above = np.flatnonzero(~(mse < local))
    if len(above) and above[-1] == len(t) - 1:
        return math.nan
    return float(t[above[-1] + 1]) if len(above) else float(t[0])


def log_ratio_area(t: np.ndarray, mse: np.ndarray, local: np.ndarray) -> float:
    """The mean of log10(MSE / Local) over ln t (trapezoids on the recorded times, divided by
    ln T - ln t_1): negative where collaboration helps on (log-)average over the horizon."""
    x, y = np.log(t.astype(float)), np.log10(mse / local)
    if len(x) < 2:
        return float(y[-1])
    return float(np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)) / (x[-1] - x[0]))


def ratio_and_se(runs_mse: np.ndarray, runs_local: np.ndarray | None, local: float) -> tuple[float, float, float]:
    """(MSE / Local, its se, the se of MSE - Local) at one t from the per-run values: with
    Local simulated run by run (``runs_local``), the ratio of means' delta-method se and the
    paired se of the difference; with Local exact, se / Local and se."""
    n = len(runs_mse)
    mean = float(runs_mse.mean())
    if runs_local is None:
        se = float(runs_mse.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        return mean / local, se / local, se
    if n < 2:
        return mean / local, math.nan, math.nan
    cov = np.cov(runs_mse, runs_local, ddof=1) / n
    ratio = mean / local
    relative = cov[0, 0] / mean**2 + cov[1, 1] / local**2 - 2 * cov[0, 1] / (mean * local)
    return ratio, ratio * math.sqrt(max(relative, 0.0)), math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0))


def one_sided_p(difference: float, se: float) -> float:
    """P(Z >= z) for z = difference / se (the evidence that the difference is > 0); NaN
    without an se; 0 or 1 with an se of 0 and a nonzero difference."""
    if not np.isfinite(se):
        return math.nan
    if se == 0:
        return 0.0 if difference > 0 else 1.0
    return float(ndtr(-difference / se))


def card_rows(cells: list[dict]) -> pd.DataFrame:
    """The card from its cells' curves.  Each cell is ``{"world", "privacy" (its label:
    ``eps=<value>`` or a mix's), "eps" (NaN for a mix), "curve", "figure",
    "knows", "baseline", "cpu_seconds_per_run", "t" (recorded times), "mse" (mean curve),
    "local" (Local's curve), "run_ids", "runs_mse" (per run, at the horizon), "runs_local"
    (per run at the horizon, or None where Local is exact)}``."""
    rows = []
    for cell in cells:
        t, mse, local = cell["t"], cell["mse"], cell["local"]
        ratio, ratio_se, diff_se = ratio_and_se(cell["runs_mse"], cell["runs_local"], float(local[-1]))
        rows.append({
            "world": cell["world"], "privacy": cell["privacy"], "eps": float(cell["eps"]), "curve": cell["curve"],
            "kind": "simulated", "t": int(t[-1]),
            "mse": float(mse[-1]), "se": float(np.std(cell["runs_mse"], ddof=1) / math.sqrt(len(cell["runs_mse"])))
            if len(cell["runs_mse"]) > 1 else math.nan, "runs": len(cell["runs_mse"]), "local": float(local[-1]),
            "ratio": ratio, "ratio_lo": ratio - K * ratio_se, "ratio_hi": ratio + K * ratio_se,
            "below_local_from": first_below(t, mse, local), "log_ratio_area": log_ratio_area(t, mse, local),
            "p_local": one_sided_p(float(local[-1]) - float(mse[-1]), diff_se),
            "knows": cell["knows"], "ranked_among": "privileged" if cell["knows"] else "deployable",
            "cpu_seconds_per_run": cell["cpu_seconds_per_run"], "figure": cell["figure"],
            "_baseline": cell["baseline"], "_ids": cell["run_ids"], "_runs": cell["runs_mse"],
        })
    frame = pd.DataFrame(rows)
    best, p_best = [], []
    for _, row in frame.iterrows():
        rivals = frame[(frame["world"] == row["world"]) & (frame["privacy"] == row["privacy"]) & frame["_baseline"]
                       & (frame["curve"] != row["curve"])]
        if rivals.empty:
            best.append("")
            p_best.append(math.nan)
            continue
        rival = rivals.loc[rivals["mse"].idxmin()]
        common, mine, theirs = np.intersect1d(row["_ids"], rival["_ids"], return_indices=True)
        differences = rival["_runs"][theirs] - row["_runs"][mine]
        se = float(differences.std(ddof=1) / math.sqrt(len(common))) if len(common) > 1 else math.nan
        best.append(rival["curve"])
        p_best.append(one_sided_p(float(differences.mean()) if len(common) else math.nan, se))
    frame["best_baseline"], frame["p_baseline"] = best, p_best
    family = np.concatenate([frame["p_local"].to_numpy(float), frame["p_baseline"].to_numpy(float)])
    rejected = holm(family)
    frame["beats_local"], frame["beats_baseline"] = rejected[: len(frame)], rejected[len(frame):]
    frame["rank"] = ranks(frame)
    return frame[CARD_COLUMNS]


class ScorecardEngine(DerivedEngine):
    """Algorithms x worlds x eps, each cell a simulated figure on its world's streams."""

    name = "scorecard"
    figure_schema = "scorecard_figure"
    time_axis = False
    #: Its cells draw their world's streams with the same instances (``colme.expansion``).
    cells_share_instances = True

    def standalone_config(self, entry):
        base = next(engine.name for engine in self.engines.values() if engine.simulated)
        return {"figures": {"base": {"engine": base},
                            "figure": {"worlds": {"w": {"base": "base"}}, "algorithms": {"a": {"engine": base}},
                                       **entry}}}

    def check(self, settings, where, config):
        figures = config["figures"]
        for world, spec in settings["worlds"].items():
            check_names_figure(f"{where}.worlds.{world}.base", spec["base"], figures,
                               lambda f: self.engines[figures[f]["engine"]].simulated, "a simulated figure")
        simulated = sorted(name for name, engine in self.engines.items() if engine.simulated)
        for algorithm, spec in settings["algorithms"].items():
            if spec["engine"] not in simulated:
                raise ConfigError(f"{where}.algorithms.{algorithm}.engine={spec['engine']!r}: not a simulated "
                                  f"engine; allowed: {simulated}")
            unknown = sorted(set(spec["worlds"]) - set(settings["worlds"]))
            if unknown:
                raise ConfigError(f"{where}.algorithms.{algorithm}.worlds: unknown world(s) {unknown}; the card's "
                                  f"worlds: {sorted(settings['worlds'])}")
            kind = self.engines[spec["engine"]].world_kind
            for world in spec["worlds"]:
                base = figures[settings["worlds"][world]["base"]]["engine"]
                if self.engines[base].world_kind != kind:
                    raise ConfigError(f"{where}.algorithms.{algorithm}.worlds: cannot run on world {world!r}: "
                                      f"engine {spec['engine']!r} runs on {kind} worlds, the world's base figure "
                                      f"is {base!r}'s ({self.engines[base].world_kind})")
            if not self.worlds_of(settings, algorithm, figures):
                raise ConfigError(f"{where}.algorithms.{algorithm}: runs on none of the worlds "
                                  f"{sorted(settings['worlds'])} (engine {spec['engine']!r} runs on {kind} worlds)")
        if settings["theta_k"] and len(settings["theta_k"]) != len(settings["eps"]):
            raise ConfigError(f"{where}.theta_k: {len(settings['theta_k'])} values for {len(settings['eps'])} eps; "
                              "give one per eps (or none: 5 for every eps)")

    def worlds_of(self, settings: dict, algorithm: str, figures: dict) -> list[str]:
        """The worlds an algorithm runs on: those it lists, else every world whose base
        figure's engine lives in the same kind of world as the algorithm's."""
        chosen = settings["algorithms"][algorithm]
        if chosen["worlds"]:
            return list(chosen["worlds"])
        kind = self.engines[chosen["engine"]].world_kind
        return [world for world, spec in settings["worlds"].items()
                if spec["base"] in figures and self.engines[figures[spec["base"]]["engine"]].world_kind == kind]

    def cell_keys(self, settings: dict, figures: dict) -> list[tuple[str, str, str, list]]:
        """(name suffix, world, algorithm, eps list) of every cell of the card: one per
        algorithm and world it runs on, and per eps for an engine without eps lanes."""
        keys = []
        for algorithm, chosen in settings["algorithms"].items():
            lanes = lanes_eps(self.engines[chosen["engine"]])
            for world in self.worlds_of(settings, algorithm, figures):
                for eps in [settings["eps"]] if lanes else [[e] for e in settings["eps"]]:
                    keys.append((cell_suffix(world, algorithm, None if lanes else eps[0]), world, algorithm, eps))
        return keys

    def cells(self, settings: dict, name: str, config: dict) -> list[dict]:
        """Every cell of the card: ``{"name", "set" (its world and algorithm), "world",
        "algorithm", "eps" (its list), "config" (a configuration holding the cell alone),
        "stream" (``world_stream``)}``."""
        out = []
        for suffix, world, algorithm, eps in self.cell_keys(settings, config["figures"]):
            engine = self.engines[settings["algorithms"][algorithm]["engine"]]
            trial = global_settings(config)
            trial["figures"] = {f"{name}__{suffix}": cell_entry(config, settings, world, algorithm, engine,
                                                                 eps if lanes_eps(engine) else eps[0])}
            out.append({"name": f"{name}__{suffix}", "set": {"world": world, "algorithm": algorithm},
                        "world": world, "algorithm": algorithm, "eps": eps,
                        "stream": world_stream(settings, name, world), "config": trial})
        return out

    def generated_figures(self, settings, name, config, base):
        return self.cells(settings, name, config)

    def complete(self, settings, config):
        """The card's cells (name suffix -> world, algorithm, baseline, knows), which the
        table stage reads; a card ``check`` refuses has none."""
        figures = config["figures"]

        def simulated(engine):
            return engine in self.engines and self.engines[engine].simulated

        known = all(spec["base"] in figures and simulated(figures[spec["base"]]["engine"])
                    for spec in settings["worlds"].values()) and all(
            simulated(spec["engine"]) and set(spec["worlds"]) <= set(settings["worlds"])
            for spec in settings["algorithms"].values())
        algorithms = settings["algorithms"]
        settings["cells"] = {
            suffix: {"world": world, "algorithm": algorithm, "baseline": algorithms[algorithm]["baseline"],
                     "knows": algorithms[algorithm]["knows"]}
            for suffix, world, algorithm, _ in (self.cell_keys(settings, figures) if known else [])
        }

    def check_generated(self, settings, where, generated, resolved):
        """Each cell draws its world's streams (the expansion checks that all figures drawing
        them have the same instances) and makes one curve per eps."""
        resolved["stream"] = generated["stream"]
        curves = len(self.engines[resolved["engine"]].spec(resolved).curves)
        levels = len(generated["eps"]) + len(resolved.get("privacy_mixes", ()))
        if curves != levels:
            raise ConfigError(f"{where}.algorithms.{generated['algorithm']}: makes {curves} curves for "
                              f"{levels} privacy levels (eps and mixes) on world {generated['world']!r}; an "
                              "algorithm's `set` must choose exactly one curve per level (one rule; one algorithm "
                              "and depth; ...)")

    def table_inputs(self, figure, settings, chunk_paths, results="results"):
        names = [f"{figure}__{suffix}" for suffix in settings["cells"]]
        return {
            "tables": [table_path(results, name) for name in names],
            "metas": [table_path(results, name, ".json") for name in names],
            "chunks": [path for name in names for path in chunk_paths("chunks", name)],
        }

    def tables(self, figure, params, inputs):
        metas = {Path(path).name[: -len(".json")]: json.loads(Path(path).read_text()) for path in inputs["metas"]}
        tables = {Path(path).name[: -len(".csv")]: pd.read_csv(path, float_precision="round_trip")
                  for path in inputs["tables"]}
        chunks: dict[str, list[dict]] = {}
        for path in inputs["chunks"]:
            arrays, made = load_verified(path)
            chunks.setdefault(made["figure"], []).append(arrays)
        cells = []
        for suffix, info in params["cells"].items():
            name = f"{figure}__{suffix}"
            table, meta = panel_rows(tables[name]), metas[name]  # a grouped table: its panel rows
            parts = sorted(chunks[name], key=lambda part: int(part["runs"][0]))
            settings = meta["settings"]
            run_ids = np.concatenate([part["runs"] for part in parts])
            mse_runs = np.concatenate([part["mse"] for part in parts])  # runs x curves x t
            local_runs = np.concatenate([part["local_mse"] for part in parts]) if "local_mse" in parts[0] else None
            local = table[table["curve"] == LOCAL].sort_values("t")
            knows = "; ".join([*self.engines[settings["engine"]].privileged_knowledge(settings), *info["knows"]])
            for index, curve in enumerate(parts[0]["curves"]):
                rows = table[table["curve"] == curve].sort_values("t")
                privacy, eps = privacy_of(str(curve), settings)
                cells.append({
                    "world": info["world"], "privacy": privacy, "eps": eps, "curve": info["algorithm"],
                    "figure": name,
                    "knows": knows, "baseline": info["baseline"],
                    "cpu_seconds_per_run": float(meta["compute_seconds"]) / max(int(meta["runs"]), 1),
                    "t": rows["t"].to_numpy(), "mse": rows["mse"].to_numpy(), "local": local["mse"].to_numpy(),
                    "run_ids": run_ids, "runs_mse": mse_runs[:, index, -1],
                    "runs_local": None if local_runs is None else local_runs[:, -1],
                })
        card = card_rows(cells).sort_values(["world", "eps", "privacy", "ranked_among", "rank"], kind="stable")
        tests = int(card["p_local"].notna().sum() + card["p_baseline"].notna().sum())
        provenance = {
            "runs": int(card["runs"].max()),
            "compute_seconds": float(sum(m["compute_seconds"] for m in metas.values())),
            "cells": {name: {"settings": m["settings"], "runs": m["runs"]} for name, m in metas.items()},
            "tests": f"one-sided z tests, Holm over the card's {tests} tests at family-wise {ALPHA:g}",
            "frontier": frontier(card),
        }
        return FigureTables(card.reset_index(drop=True), pd.DataFrame(), no_pairs(), no_diagnostics(), provenance)

    def figure_interpretations(self, settings):
        return (
            (f"each cell is read at its world's horizon T; the area is the mean of log10(MSE / Local) over ln t; "
             f"tests are one-sided at family-wise {ALPHA:g} (Holm over the card); the best baseline is the "
             "baseline algorithm with the lowest MSE at T in that world and eps, compared run by run"),
            (f"a world's base figure gives its {', '.join(WORLD_KEYS)}; every other setting is the algorithm's "
             "(its `set`, else its engine's default); theta_k (one per eps) is the card's, 5 where it gives none"),
            "cost: the cell figure's kernel CPU seconds per run, all its eps together",
        )

    def subtitle(self, meta):
        worlds = sorted({c["world"] for c in meta["settings"]["cells"].values()})
        runs = sorted({c["runs"] for c in meta["cells"].values()})
        seeds = sorted({c["settings"]["seed"] for c in meta["cells"].values()})
        return (f"{len(worlds)} worlds, {len(meta['settings']['algorithms'])} algorithms, eps "
                f"{'/'.join(f'{float(e):g}' for e in meta['settings']['eps'])}; {'/'.join(map(str, runs))} runs "
                f"per cell, seed {'/'.join(map(str, seeds))}; at each world's horizon")

    def draw(self, table, meta, title, pdf, png):
        from ..plotting import draw_scorecard  # lazy: matplotlib, only where a figure is drawn

        draw_scorecard(table, meta, title, pdf, png)


def frontier(card: pd.DataFrame) -> list[str]:
    """In words, per world and eps: which deployable algorithms beat Local significantly
    (Holm) at the horizon, and by how much; or that none does."""
    lines = []
    for (world, privacy), rows in card.groupby(["world", "privacy"], sort=False):
        deployable = rows[rows["ranked_among"] == "deployable"]
        winners = deployable[deployable["beats_local"]].sort_values("ratio")
        where = f"{world}, {privacy}"
        if winners.empty:
            best = deployable.sort_values("ratio").head(1)
            detail = (f" (best deployable: {best['curve'].iloc[0]} at {best['ratio'].iloc[0]:.3g} x Local)"
                      if len(best) else "")
            lines.append(f"{where}: no deployable algorithm beats Local{detail}")
        else:
            lines.append(f"{where}: " + ", ".join(f"{r.curve} {r.ratio:.3g} x Local" for r in winners.itertuples())
                         + " beat Local")
    return lines


def frontier_by_privacy(card: pd.DataFrame) -> list[str]:
    """In words, per privacy level: the worlds where some deployable algorithm beats Local
    significantly (Holm), with the best such one and its MSE / Local, and those where none
    does: where practical (private) collaboration pays, and where it does not."""
    lines = []
    for privacy, rows in card.groupby("privacy", sort=False):
        pays, not_pays = [], []
        for world, group in rows.groupby("world", sort=True):
            winners = group[(group["ranked_among"] == "deployable") & group["beats_local"]].sort_values("ratio")
            if winners.empty:
                not_pays.append(world)
            else:
                pays.append(f"{world} ({winners['curve'].iloc[0]} {winners['ratio'].iloc[0]:.2g} x Local)")
        if not pays:
            lines.append(f"{privacy}: pays on no world ({', '.join(not_pays)})")
        elif not not_pays:
            lines.append(f"{privacy}: pays on every world: {', '.join(pays)}")
        else:
            lines.append(f"{privacy}: pays on {', '.join(pays)}; not on {', '.join(not_pays)}")
    return lines
