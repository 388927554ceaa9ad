"""One interface for every engine family, found through one registry (``ENGINES``).

A figure's ``engine`` names its family: ``ccolme`` (Private-C-ColME, seed 002, simulated),
``colme`` (Private-ColME, seed 004, simulated), ``oracle`` (seed 004 Proposition 3 /
Remark 3, exact), ``zoom`` (another figure's table over a shorter time range) and
``pricer`` (PriCER, seed 003).  Each engine says:

* which settings determine its numbers (``numeric_params``) and, for simulated engines,
  its instances (``instance_params``): the workflow's rule params are built from these
  alone, so a job reruns exactly when what determines its output changed;
* how to build its specification (``spec``), instances and one chunk's simulation
  (simulated engines), its tables (``tables``), how to draw them (``draw``), the choices
  made where its paper is silent (``interpretations``) and a runtime estimate.

Nothing here knows Snakemake: the rules pass plain dictionaries in and get tables out.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from . import interpretations as choices
from .consensus import DIAGNOSTICS as CONSENSUS_DIAGNOSTICS
from .consensus import Curve, PanelSpec, simulate_runs
from .populations import UniformClasses
from .provenance import format_caption, table_provenance
from .queries import DIAGNOSTICS as COLME_DIAGNOSTICS
from .queries import ColmeCurve, ColmeSpec, simulate_colme_runs
from .results import (
    COVARIANCE_COLUMNS,
    DIAGNOSTICS_COLUMNS,
    aggregate_table,
    bound_table,
    covariance_table,
    diagnostics_table,
    load_npz,
    make_instances,
    oracle_table,
    privacy_table,
)
from .seeding import run_generator

#: Settings that never enter an engine's numbers: drawing-only keys and the run bookkeeping
#: (``runs`` enters the tables, through the chunk files it selects, not the simulation).
NOT_NUMERIC = frozenset({"title", "runs", "chunk_runs"})

#: Conservative throughputs for sizing cluster jobs: Private-C-ColME config-edge-updates/s
#: (6x below the 2.5e9 measured on an AVX-512 core, 3x below the ~1.2e9 projected for an
#: older AVX2 core), Private-ColME agent-steps/s (one query, release and update; 10x
#: below) and pair tests/s (retest = every_step).
CONSERVATIVE_UPDATES_PER_SECOND = 4e8
CONSERVATIVE_AGENT_STEPS_PER_SECOND = 6e5
CONSERVATIVE_PAIR_TESTS_PER_SECOND = 2e8


class FigureTables(NamedTuple):
    """What a figure's table stage writes: the tidy table, the supplementary table, the
    covariance of its simulated curves' means (pairs), the engine's diagnostics and the
    provenance extras."""

    table: pd.DataFrame
    supplement: pd.DataFrame
    covariance: pd.DataFrame
    diagnostics: pd.DataFrame
    provenance: dict


NO_PAIRS = pd.DataFrame(columns=COVARIANCE_COLUMNS)
NO_DIAGNOSTICS = pd.DataFrame(columns=DIAGNOSTICS_COLUMNS)


def time_grid(t_max: int, linear: int, log: int) -> np.ndarray:
    """Recorded times: ``log`` geometric points from 1 and ``linear`` even points up to t_max.

    The geometric part resolves the early transient, the linear part the paper's linear
    time axis; t_max is always recorded.
    """
    geometric = np.geomspace(1, t_max, max(log, 1))
    even = np.linspace(t_max / max(linear, 1), t_max, max(linear, 1))
    return np.unique(np.rint(np.concatenate([geometric, even, [t_max]])).astype(np.int64))


def run_chunks(runs: int, chunk_runs: int) -> list[tuple[int, int]]:
    """Run ranges [start, stop) of ``chunk_runs`` runs each (the last may be shorter).

    A range depends only on its position, never on the total, so raising ``runs`` keeps
    every full chunk and only adds new ones.
    """
    return [(start, min(start + chunk_runs, runs)) for start in range(0, runs, chunk_runs)]


def population(settings: dict) -> UniformClasses:
    spec = settings["population"]
    return UniformClasses(means=tuple(float(m) for m in spec["means"]), sigma=float(spec["sigma"]))


def _grid(settings: dict) -> np.ndarray:
    return time_grid(settings["t_max"], settings["grid"]["linear"], settings["grid"]["log"])


class Engine:
    """Base of the engine families; see the module docstring for the interface."""

    name = ""
    simulated = False
    interpretations: tuple[str, ...] = ()
    #: Global keys copied into every figure's settings that this engine does not read.
    unused_globals: frozenset = frozenset({"precision"})
    #: Figure-level keys that change only the drawing.
    drawing_keys: tuple[str, ...] = ("title",)
    #: Quantities of the engine's diagnostics table (none: no diagnostics figure).
    diagnostics: tuple[str, ...] = ()

    def numeric_params(self, settings: dict) -> dict:
        """The settings that determine this figure's numbers (tables and chunk files)."""
        drop = NOT_NUMERIC | self.unused_globals | set(self.drawing_keys)
        return {key: value for key, value in settings.items() if key not in drop}

    def instance_params(self, settings: dict) -> dict:
        raise NotImplementedError(f"engine {self.name!r} has no instances")

    def spec(self, params: dict):
        return None

    def tables(self, figure: str, params: dict, inputs: dict) -> FigureTables:
        """The tables of one figure (``FigureTables``)."""
        raise NotImplementedError

    def provenance(self, figure: str, params: dict, extras: dict) -> dict:
        """What the table stage records next to the table (``<figure>.json``)."""
        return table_provenance(figure, params, self.interpretations, **extras)

    def subtitle(self, meta: dict) -> str:
        """Second line of the figure's title: runs, seed and the settings that matter most."""
        raise NotImplementedError

    def draw(self, table: pd.DataFrame, meta: dict, title: str, pdf, png) -> None:
        from .plotting import plot_mse_panel

        plot_mse_panel(table, title, meta, pdf, png)

    def runtime_minutes(self, params: dict, runs: int) -> int:
        return 5

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        """Keys of the options behind this figure's choices where the paper is silent or
        inconsistent, restricted to those that can change this figure's numbers;
        ``colme.sensitivity`` flips each to every other value its schema allows."""
        return ()


def stream_name(params: dict, figure: str) -> str:
    """Whose random streams a figure draws: its own, or (``stream``) those of the figure a
    sensitivity variant varies, so that variant and figure are paired run by run."""
    return params.get("stream", figure)


class SimulatedEngine(Engine):
    """Chunked Monte Carlo: instances -> one chunk's simulation -> aggregation."""

    simulated = True
    #: Settings of the communication graph, beyond the number of agents.
    graph_keys: tuple[str, ...] = ()

    def instance_params(self, settings: dict) -> dict:
        keys = ("engine", "n_agents", "seed") + self.graph_keys + (("stream",) if "stream" in settings else ())
        return {
            **{key: settings[key] for key in keys},
            "n_classes": len(settings["population"]["means"]),
        }

    def instances(self, params: dict, figure: str, start: int, stop: int) -> dict:
        degree = params["degree"] if "degree" in self.graph_keys else None
        return make_instances(
            params["n_agents"], params["n_classes"], degree, stream_name(params, figure), range(start, stop), params["seed"]
        )

    def simulate(self, params: dict, instances: dict, figure: str) -> dict:
        """Every curve on one run range's instances: per-run MSE curves and diagnostics.

        Each run's data stream comes from (seed, figure, run), never from the chunking.
        """
        spec = self.spec(params)
        stream = stream_name(params, figure)
        generators = [run_generator(params["seed"], stream, int(run), "data") for run in instances["runs"]]
        diagnostics = np.empty((len(generators), len(spec.curves), len(self.diagnostics), len(spec.t_record)))
        start = time.perf_counter()
        mse = self.run_kernel(spec, params, instances, generators, diagnostics)
        return {
            "runs": instances["runs"],
            "t": np.asarray(spec.t_record),
            "curves": np.array([c.name for c in spec.curves]),
            "mse": mse,
            "diagnostics": diagnostics,
            "seconds": np.array(time.perf_counter() - start),
        }

    def run_kernel(self, spec, params, instances, generators, diagnostics) -> np.ndarray:
        """The engine's compiled simulation: MSE (runs, curves, t), ``diagnostics`` filled."""
        raise NotImplementedError

    def tables(self, figure, params, inputs):
        spec = self.spec(params)
        sims = [load_npz(path) for path in inputs["sims"]]
        instances = [load_npz(path) for path in inputs["instances"]]
        table = aggregate_table(spec, sims, instances)
        supplement, extras = self.supplement(spec, instances)
        extras = {
            "curves": [c.name for c in spec.curves],
            "population": {
                "means": list(spec.population.means),
                "sigma": spec.population.sigma,
                "half_width_L": spec.population.half_width,
            },
            **extras,
        }
        seconds = sum(float(s["seconds"]) for s in sims)
        runs = sum(len(s["runs"]) for s in sims)
        provenance = {"runs": runs, "compute_seconds": seconds, **extras}
        return FigureTables(
            table, supplement, covariance_table(spec, sims), diagnostics_table(spec, sims, self.diagnostics),
            provenance,
        )

    def subtitle(self, meta: dict) -> str:
        return f"{meta['runs']} runs, seed {meta['settings']['seed']}, {self.details(meta['settings'])}"


class ConsensusEngine(SimulatedEngine):
    """Private-C-ColME (seed 002, Algorithm 1) on random r-regular graphs."""

    name = "ccolme"
    interpretations = choices.CONSENSUS
    diagnostics = CONSENSUS_DIAGNOSTICS
    unused_globals = frozenset()
    graph_keys = ("degree",)

    def spec(self, params: dict) -> PanelSpec:
        curves = tuple(
            Curve(rule, float(eps), float(k) if rule == "bernstein" else math.nan)
            for rule in params["rules"]
            for eps, k in zip(params["eps"], params["theta_k"])
        )
        return PanelSpec(
            n_agents=params["n_agents"],
            degree=params["degree"],
            curves=curves,
            t_record=_grid(params),
            population=population(params),
            alpha_schedule=params["alpha_schedule"],
            alpha_reset=params["alpha_reset"],
            weights=params["weights"],
            optimistic_delta=params["optimistic_delta"],
            optimistic_radius=params["optimistic_radius"],
            bernstein_beta=params["bernstein_beta"],
        )

    def run_kernel(self, spec, params, instances, generators, diagnostics):
        dtype = np.dtype(params["precision"]).type
        return simulate_runs(spec, instances["classes"], instances["edges"], generators, dtype, diagnostics)

    def supplement(self, spec, instances):
        bound = bound_table(spec, instances)
        return bound, {"corollary1": bound.to_dict(orient="records")}

    def details(self, settings: dict) -> str:
        line = f"alpha {settings['alpha_schedule']} (restart {settings['alpha_reset']}), weights {settings['weights']}"
        for key, printed in (("optimistic_radius", "sqrt_over_all"), ("bernstein_beta", "sec3c1")):
            if settings.get(key, printed) != printed:
                line += f", {key} {settings[key]}"
        return line

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        rules = settings["rules"]
        return (
            ("alpha_reset", "weights")
            + (("optimistic_radius",) if "optimistic" in rules else ())
            + (("bernstein_beta",) if "bernstein" in rules else ())
        )

    def runtime_minutes(self, params: dict, runs: int) -> int:
        curves = len(self.spec(params).curves)
        updates = runs * params["n_agents"] * params["degree"] * curves * params["t_max"]
        return _minutes(updates / CONSERVATIVE_UPDATES_PER_SECOND)


def _minutes(seconds: float) -> int:
    """Wall-time request: twice the conservative estimate plus 2 minutes."""
    return int(math.ceil(2 * seconds / 60)) + 2


def _colme_curves(params: dict, oracle: bool) -> tuple[ColmeCurve, ...]:
    if params.get("curves"):
        return tuple(ColmeCurve(**curve, oracle=oracle) for curve in params["curves"])
    return tuple(
        ColmeCurve(schedule, mechanism, weights, noise, oracle)
        for schedule in params["schedules"]
        for mechanism in params["mechanisms"]
        for weights in params["weights"]
        for noise in params["noises"]
    )


def _colme_spec(params: dict, oracle: bool) -> ColmeSpec:
    """A Private-ColME spec; keys only one of the two engines has keep the spec's defaults
    (the simulation's decision-rule keys, the analytic figures' pm2_variance)."""
    optional = ("theta0", "retest", "pm2_variance", "bayes_prior", "welch_dof", "schvar2_first_interval")
    return ColmeSpec(
        n_agents=params["n_agents"],
        curves=_colme_curves(params, oracle),
        t_record=_grid(params),
        eps=float(params["eps"]),
        delta=float(params["delta"]),
        pm2_split=params["pm2_split"],
        population=population(params),
        **{key: params[key] for key in optional if key in params},
    )


class PrivateColmeEngine(SimulatedEngine):
    """Private-ColME (seed 004): all-to-all queries, p-sum releases, decision rule."""

    name = "colme"
    interpretations = choices.PRIVATE_COLME
    diagnostics = COLME_DIAGNOSTICS

    def numeric_params(self, settings: dict) -> dict:
        params = super().numeric_params(settings)
        if params.get("curves"):  # an explicit curve list replaces the product
            for key in ("schedules", "mechanisms", "weights", "noises"):
                params.pop(key, None)
        return params

    def spec(self, params: dict) -> ColmeSpec:
        return _colme_spec(params, oracle=params["oracle"])

    def run_kernel(self, spec, params, instances, generators, diagnostics):
        return simulate_colme_runs(spec, instances["classes"], generators, diagnostics)

    def supplement(self, spec, instances):
        privacy = privacy_table(spec)
        return privacy, {"privacy": privacy.to_dict(orient="records")}

    def details(self, settings: dict) -> str:
        return f"eps {settings['eps']:g}, delta {settings['delta']:g}, retest {settings['retest']}"

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        variances = {curve.variance for curve in _colme_curves(settings, settings["oracle"])}
        # retest = every_step with estimated variances runs a Welch test per pair and step:
        # over an hour per 5-run chunk at M = 200 on one core, too slow to flip routinely.
        return (
            (("retest",) if variances == {"known"} else ())
            + (("welch_dof", "schvar2_first_interval") if variances & {"schvar2", "schvar2_bayes"} else ())
            + (("bayes_prior",) if "schvar2_bayes" in variances else ())
        )

    def runtime_minutes(self, params: dict, runs: int) -> int:
        curves = len(self.spec(params).curves)
        steps = runs * curves * params["t_max"] * params["n_agents"]
        seconds = steps / CONSERVATIVE_AGENT_STEPS_PER_SECOND
        if params["retest"] == "every_step":
            seconds += steps * params["n_agents"] / CONSERVATIVE_PAIR_TESTS_PER_SECOND
        return _minutes(seconds)


class OracleEngine(Engine):
    """Seed 004 Proposition 3 (RR) and Remark 3 (rRR) with the oracle class estimator, exact."""

    name = "oracle"
    interpretations = choices.PROPOSITION3_ORACLE
    unused_globals = frozenset({"precision", "seed"})

    def spec(self, params: dict) -> ColmeSpec:
        return _colme_spec(params, oracle=True)

    def tables(self, figure, params, inputs):
        spec = self.spec(params)
        start = time.process_time()
        table = oracle_table(spec)
        privacy = privacy_table(spec)
        extras = {"curves": [c.name for c in spec.curves], "privacy": privacy.to_dict(orient="records")}
        provenance = {"runs": 0, "compute_seconds": time.process_time() - start, **extras}
        return FigureTables(table, privacy, NO_PAIRS, NO_DIAGNOSTICS, provenance)

    def subtitle(self, meta: dict) -> str:
        settings = meta["settings"]
        return f"analytic (oracle class estimator), eps {settings['eps']:g}, delta {settings['delta']:g}"

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        return ("pm2_variance",) if "pm2" in settings["mechanisms"] else ()


class ZoomEngine(Engine):
    """Another figure's table redrawn over t <= t_max, drawn as its source is."""

    name = "zoom"
    unused_globals = frozenset({"precision", "seed", "population"})
    drawing_keys = ("title", "draws_as")

    def tables(self, figure, params, inputs):
        source_meta = json.loads(Path(inputs["meta"]).read_text())
        table = pd.read_csv(inputs["table"])
        zoomed = table[table["t"] <= params["t_max"]]
        pairs = pd.read_csv(inputs["covariance"])
        diagnostics = pd.read_csv(inputs["diagnostics"])
        meta = {**source_meta, "zoom": {"source": params["source"], "t_max": params["t_max"]}}
        return FigureTables(
            zoomed,
            pd.read_csv(inputs["supplement"]),
            pairs[pairs["t"] <= params["t_max"]],
            diagnostics[diagnostics["t"] <= params["t_max"]],
            meta,
        )

    def provenance(self, figure, params, extras):
        return {**extras, "figure": figure}  # the source's, with the zoom recorded

    def subtitle(self, meta: dict) -> str:
        return ENGINES[meta["settings"]["engine"]].subtitle(meta)

    def draw(self, table, meta, title, pdf, png):
        ENGINES[meta["settings"]["engine"]].draw(table, meta, title, pdf, png)


class PricerEngine(Engine):
    """PriCER (seed 003): Algorithm 3, the joint optimum of (8), Monte Carlo of Algorithms 1-2."""

    name = "pricer"
    interpretations = choices.PRICER
    unused_globals = frozenset({"precision", "population"})

    def numeric_params(self, settings: dict) -> dict:
        params = super().numeric_params(settings)
        if params["kind"] == "feasible_set":  # no random draws
            params.pop("seed")
        return params

    def tables(self, figure, params, inputs):
        from . import pricer
        from .seeding import figure_generator

        start = time.process_time()
        table = pricer.table_for(params, figure_generator(params.get("seed", 0), stream_name(params, figure)))
        seconds = time.process_time() - start
        checks = {}
        if "max_violation" in table.columns:
            checks = {
                "max_constraint_violation": float(table["max_violation"].max()),
                "all_links_private": bool(table["privacy_ok"].dropna().astype(bool).all()),
            }
        supplement = pd.DataFrame({"quantity": list(checks), "value": list(checks.values())})
        extras = {
            "paper": "seed 003 (Saha et al., PriCER)",
            "curves": list(dict.fromkeys(table["curve"])),
            "checks": checks,
        }
        runs = int(table["runs"].max()) if "runs" in table.columns else 0
        provenance = {"runs": runs, "compute_seconds": seconds, **extras}
        return FigureTables(table, supplement, NO_PAIRS, NO_DIAGNOSTICS, provenance)

    def subtitle(self, meta: dict) -> str:
        settings = meta["settings"]
        line = f"seed {settings['seed']}" if "seed" in settings else "exact"
        if settings["kind"] == "connectivity":
            line += f", d={settings['d']}, {settings['realisations']} realisations x {settings['draws']} draws"
        elif settings["kind"] == "trust":
            line += f", d={settings['d']}, R={settings['R']:g}, eps {settings['eps_high']:g}/{settings['eps_low']:g}"
        return line

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        return ("reciprocity",) if "reciprocity" in settings else ()

    def draw(self, table, meta, title, pdf, png):
        from .pricer import plot_pricer

        plot_pricer(table, meta["settings"]["kind"], title, meta, pdf, png)


ENGINES: dict[str, Engine] = {
    engine.name: engine
    for engine in (ConsensusEngine(), PrivateColmeEngine(), OracleEngine(), ZoomEngine(), PricerEngine())
}


def engine_of(settings: dict) -> Engine:
    return ENGINES[settings["engine"]]


def stage_params(settings: dict, stage: str, start: int | None = None, stop: int | None = None) -> dict:
    """What determines the output of one workflow stage of a figure (its rule's params).

    ``instances``: the instance model, seed and run range; ``simulate``: every numeric
    setting and the run range; ``table``: every numeric setting and, for simulated
    figures, the run count; ``figure``: that plus the drawing keys (title).
    """
    engine = engine_of(settings)
    if stage == "instances":
        return {**engine.instance_params(settings), "run_range": [start, stop]}
    numeric = engine.numeric_params(settings)
    if stage == "simulate":
        return {**numeric, "run_range": [start, stop]}
    table = {**numeric, **({"runs": settings["runs"]} if engine.simulated else {})}
    if stage == "table":
        return table
    if stage == "figure":
        return {**table, **{key: settings[key] for key in engine.drawing_keys}}
    raise ValueError(f"unknown stage {stage!r}; stages: instances, simulate, table, figure")


def figure_interpretations(settings: dict) -> tuple[str, ...]:
    """The choices behind a figure (a zoom figure's are its source's engine's)."""
    engine = ENGINES[settings.get("draws_as", settings["engine"])]
    return engine.interpretations


def figure_caption(figure: str, settings: dict) -> str:
    """Report caption: the figure's params and the choices made where its paper is silent."""
    params = stage_params(settings, "figure")
    return format_caption(settings["title"] or figure, params, figure_interpretations(settings))
