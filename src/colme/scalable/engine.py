"""The C-ColME / B-ColME engine (Galante, Neglia, Leonardi, AAAI 2025) on any world
(``colme.world``): the algorithms Private-C-ColME builds on, on its graphs (every family,
edge lists), classes, data streams, privacy levels and mixes, with per-group MSE."""

from __future__ import annotations

import math
from pathlib import Path

from ..engines import WorldEngine, data_bytes, job_memory_mb, population, population_summary, wall_minutes
from ..errors import ConfigError
from ..graphs import expected_mean_degree
from ..populations import population_choices
from ..timegrid import figure_grid
from ..world import check_world, graph_line, mix_curves, panel_groups
from .choices import CHOICES, MIX_CHOICE
from .spec import DIAGNOSTICS, LOCKSTEP_BYTES, ScalableCurve, ScalableSpec, workspace_bytes

#: Conservative agent-link updates per second for sizing cluster jobs (B-ColME: per hop).
CONSERVATIVE_LINK_UPDATES_PER_SECOND = 5e7


#: The figure keys that are ``ScalableSpec`` fields as they are.
SPEC_KEYS = ("delta", "test", "exclusions", "weights", "alpha_reset", "start", "tolerance")


def panel_curves(params: dict) -> tuple[ScalableCurve, ...]:
    """Per eps (then per privacy mix) and rule: C-ColME, then B-ColME at each depth (those
    of ``algorithms``)."""
    privacy = [{"eps": float(eps)} for eps in params["eps"]]
    privacy += [{"eps": math.nan, "mix": mix} for mix in mix_curves(params.get("privacy_mixes", ()))]
    curves = []
    for level in privacy:
        for rule in params["rules"]:
            if "c_colme" in params["algorithms"]:
                curves.append(ScalableCurve("c_colme", 0, rule, **level))
            if "b_colme" in params["algorithms"]:
                curves += [ScalableCurve("b_colme", int(depth), rule, **level) for depth in params["depths"]]
    return tuple(curves)


def links_estimate(params: dict) -> float:
    """The expected number of directed links of a figure's graphs (M times the mean degree)."""
    graph = WorldEngine.graph(params)
    return params["n_agents"] * expected_mean_degree(graph, params["n_agents"], params.get("degree"))


def memory_bytes(params: dict) -> float:
    """An upper estimate of one simulate job's memory: the ``Workspace`` of a run's kernel
    call (B-ColME's four tables of (links, depth) doubles dominate; its curves in lockstep,
    at most ``LOCKSTEP_BYTES`` of them, or its largest curve alone: ``lockstep_batches``),
    the graph's CSR arrays and the run's instance, twice over for the allocator and
    Python."""
    curves = panel_curves(params)
    links, agents = round(links_estimate(params)), params["n_agents"]
    largest_curve = max(workspace_bytes(agents, links, (curve,)) for curve in curves)
    workspace = max(largest_curve, min(workspace_bytes(agents, links, curves), LOCKSTEP_BYTES))
    graph = links * (3 * 8 + 1) + agents * (8 + 8 + 8 + 8)
    return 2.0 * (workspace + graph)


#: The most memory a simulate job may need (``memory_bytes``): a figure above it is refused
#: before any job (a laptop's or a cluster node's memory; the runs' own chunks are smaller).
MAX_JOB_BYTES = 64 * 2**30


def with_local_curves(diagnostics):
    """The diagnostics with "wrong local estimates" drawn as curves "Local eps=..." of the
    "wrong estimates" panel (the first curve's, per privacy level)."""
    import pandas as pd  # lazy: a simulate job starts without pandas (colme.registry)

    local = diagnostics[diagnostics["quantity"] == DIAGNOSTICS[4]]
    eps = local["curve"].str.rsplit(" eps=", n=1).str[1]
    first = local.groupby(eps, sort=False)["curve"].transform("first")
    local = local[local["curve"] == first].assign(curve="Local eps=" + eps, quantity=DIAGNOSTICS[3])
    return pd.concat([diagnostics[diagnostics["quantity"] != DIAGNOSTICS[4]], local], ignore_index=True)


class ScalableEngine(WorldEngine):
    """C-ColME and B-ColME (Galante, Neglia, Leonardi, AAAI 2025) on any world."""

    name = "scalable"
    schema = Path(__file__).with_name("schema.yaml")
    figure_schema = "scalable_figure"
    interpretations = CHOICES
    diagnostics = DIAGNOSTICS
    log_diagnostics = frozenset(DIAGNOSTICS[:2] + DIAGNOSTICS[3:4])
    unused_globals = frozenset({"precision"})

    def check(self, settings, where, config):
        check_world(settings, where)
        needed = memory_bytes(settings)
        if needed > MAX_JOB_BYTES:
            depth = max(settings["depths"]) if "b_colme" in settings["algorithms"] else 0
            raise ConfigError(
                f"{where}: a simulate job of this figure needs about {needed / 2**30:.0f} GiB "
                f"(n_agents={settings['n_agents']}, ~{links_estimate(settings):.3g} directed links"
                + (f", B-ColME's tables to depths={depth}" if depth else "")
                + f"), more than the {MAX_JOB_BYTES / 2**30:.0f} GiB a job may use: lower n_agents, the degree "
                "or depths"
            )

    def numeric_params(self, settings: dict) -> dict:
        """The settings; a figure without B-ColME without its depths."""
        params = super().numeric_params(settings)  # the world's keys canonical (``colme.world``)
        if "b_colme" not in params["algorithms"]:
            params.pop("depths", None)
        return params

    def spec(self, params: dict) -> ScalableSpec:
        return ScalableSpec(
            n_agents=params["n_agents"],
            curves=panel_curves(params),
            t_record=figure_grid(params),
            population=population(params),
            **{key: params[key] for key in SPEC_KEYS},
            **panel_groups(params),
        )

    def run_kernel(self, spec, params, instances, generators, diagnostics, progress):
        from .kernel import simulate_scalable_runs  # lazy: compiles/loads the Numba kernel

        groups = self.group_outputs(spec, len(generators))
        mse = simulate_scalable_runs(spec, instances["classes"], instances["edges"], generators, diagnostics,
                                     progress, instances.get("agent_means"), instances.get("privacy_ranks"), **groups)
        return {"mse": mse, **groups} if groups else mse

    def privileged_knowledge(self, settings):
        known = ["the true classes (oracle tests)"] if "oracle" in settings["rules"] else []
        if "c_colme" in settings["algorithms"] and settings["alpha_reset"] == "global_until_learnt":
            known.append("the true classes (C-ColME's restarts stop once no wrong link is left)")
        return tuple(known)

    def curve_fields(self, spec, curve):
        """Algorithm, depth, rule and eps; a mix's curve has eps NaN and its mix in
        ``eps_mix`` (as Private-C-ColME's tables)."""
        fields = {"algorithm": curve.algorithm, "depth": curve.depth, "rule": curve.rule, "eps": curve.eps}
        return fields | ({"eps_mix": curve.eps_label.removeprefix("eps=")} if curve.mix else {})

    def figure_interpretations(self, settings: dict) -> tuple[str, ...]:
        return (self.interpretations + self.graph_choices(settings)
                + ((MIX_CHOICE,) if self.has_mixes(settings) else ()) + population_choices(population(settings)))

    def details(self, settings: dict) -> str:
        graph = self.graph(settings)
        where = f"r = {settings['degree']}" if graph is None else graph_line(graph)
        line = (f"C-ColME / B-ColME (Galante et al., AAAI 2025), {where}, "
                f"delta {settings['delta']:g}\ntest {settings['test']}, exclusions {settings['exclusions']}, "
                f"weights {settings['weights']}, alpha restart {settings['alpha_reset']}, start {settings['start']}")
        population_line = population_summary(settings["population"])
        return line + (f"\n{population_line}" if population_line else "")

    def panel_style(self, table):
        from .plots import panel_style  # lazy: matplotlib, only where a figure is drawn

        return panel_style(table)

    def draw_diagnostics(self, diagnostics, meta, title, pdf, png):
        """[16]'s Figs. 1-2 read on one panel: Local's wrong estimates (one line per eps: the
        local means do not depend on the algorithm) beside the curves' own."""
        super().draw_diagnostics(with_local_curves(diagnostics), meta, title, pdf, png)

    def diagnostics_line_styles(self, diagnostics):
        return {curve: "--" for curve in diagnostics["curve"].unique() if curve.startswith("Local")}

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        return ("test", "exclusions", "alpha_reset", "start") + (
            ("weights",) if "c_colme" in settings["algorithms"] else ())

    def runtime_minutes(self, params: dict, runs: int) -> int:
        spec = self.spec(params)
        hops = sum(max(curve.depth, 1) + 1 for curve in spec.curves)
        updates = runs * links_estimate(params) * hops * params["t_max"]
        return wall_minutes(updates / CONSERVATIVE_LINK_UPDATES_PER_SECOND)

    def memory_mb(self, params: dict, runs: int) -> int:
        return job_memory_mb(memory_bytes(params) + data_bytes(params))  # the state: an upper estimate, twice it
