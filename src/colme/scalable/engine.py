"""The C-ColME / B-ColME engine (Galante, Neglia, Leonardi, AAAI 2025) on random r-regular
graphs: the algorithms Private-C-ColME builds on, on its instances and data streams."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..engines import SimulatedEngine, check_regular_degree, population, population_summary, wall_minutes
from ..populations import population_choices
from ..timegrid import figure_grid
from .choices import CHOICES
from .spec import DIAGNOSTICS, ScalableCurve, ScalableSpec

#: Conservative agent-link updates per second for sizing cluster jobs (B-ColME: per hop).
CONSERVATIVE_LINK_UPDATES_PER_SECOND = 5e7


#: The figure keys that are ``ScalableSpec`` fields as they are.
SPEC_KEYS = ("delta", "test", "exclusions", "weights", "alpha_reset", "start", "tolerance")


def panel_curves(params: dict) -> tuple[ScalableCurve, ...]:
    """Per eps and rule: C-ColME, then B-ColME at each depth (those of ``algorithms``)."""
    curves = []
    for eps in params["eps"]:
        for rule in params["rules"]:
            if "c_colme" in params["algorithms"]:
                curves.append(ScalableCurve("c_colme", 0, rule, float(eps)))
            if "b_colme" in params["algorithms"]:
                curves += [ScalableCurve("b_colme", int(depth), rule, float(eps)) for depth in params["depths"]]
    return tuple(curves)


def with_local_curves(diagnostics):
    """The diagnostics with "wrong local estimates" drawn as curves "Local eps=..." of the
    "wrong estimates" panel (the first curve's, per privacy level)."""
    local = diagnostics[diagnostics["quantity"] == DIAGNOSTICS[4]]
    eps = local["curve"].str.rsplit(" eps=", n=1).str[1]
    first = local.groupby(eps, sort=False)["curve"].transform("first")
    local = local[local["curve"] == first].assign(curve="Local eps=" + eps, quantity=DIAGNOSTICS[3])
    return pd.concat([diagnostics[diagnostics["quantity"] != DIAGNOSTICS[4]], local], ignore_index=True)


class ScalableEngine(SimulatedEngine):
    """C-ColME and B-ColME (Galante, Neglia, Leonardi, AAAI 2025) on random r-regular graphs."""

    name = "scalable"
    schema = Path(__file__).with_name("schema.yaml")
    figure_schema = "scalable_figure"
    interpretations = CHOICES
    diagnostics = DIAGNOSTICS
    log_diagnostics = frozenset(DIAGNOSTICS[:2] + DIAGNOSTICS[3:4])
    unused_globals = frozenset({"precision"})
    graph_keys = ("degree",)

    def check(self, settings, where, config):
        check_regular_degree(settings["n_agents"], settings["degree"], where)

    def numeric_params(self, settings: dict) -> dict:
        """The settings; a figure without B-ColME without its depths."""
        params = super().numeric_params(settings)
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
        )

    def run_kernel(self, spec, params, instances, generators, diagnostics, progress):
        from .kernel import simulate_scalable_runs  # lazy: compiles/loads the Numba kernel

        return simulate_scalable_runs(spec, instances["classes"], instances["edges"], generators, diagnostics,
                                      progress, instances.get("agent_means"))

    def curve_fields(self, spec, curve):
        return {"algorithm": curve.algorithm, "depth": curve.depth, "rule": curve.rule, "eps": curve.eps}

    def figure_interpretations(self, settings: dict) -> tuple[str, ...]:
        return self.interpretations + population_choices(population(settings))

    def details(self, settings: dict) -> str:
        line = (f"C-ColME / B-ColME (Galante et al., AAAI 2025), r = {settings['degree']}, "
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
        updates = runs * params["n_agents"] * params["degree"] * hops * params["t_max"]
        return wall_minutes(updates / CONSERVATIVE_LINK_UPDATES_PER_SECOND)
