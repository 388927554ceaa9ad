"""The toy engine: local means, simulated with NumPy (no compiled kernel needed)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from colme.engines import SimulatedEngine, population
from colme.errors import ConfigError
from colme.plotting import PanelStyle
from colme.populations import Population
from colme.timegrid import checked_t_record, figure_grid


@dataclass(frozen=True)
class LocalCurve:
    name: str = "local mean"


@dataclass(frozen=True)
class ToySpec:
    n_agents: int
    t_record: np.ndarray
    population: Population
    curves: tuple = (LocalCurve(),)


def local_mean_mse(spec: ToySpec, classes: np.ndarray, generators) -> np.ndarray:
    """Average over agents of (local mean - mu_a)^2 at the recorded times, per run."""
    t_record = checked_t_record(spec.t_record)
    out = np.empty((len(generators), 1, len(t_record)))
    half_width = spec.population.half_width
    for run, rng in enumerate(generators):
        errors = half_width * (2.0 * rng.random((t_record[-1], spec.n_agents)) - 1.0)
        means = np.cumsum(errors, axis=0)[t_record - 1] / t_record[:, None]
        out[run, 0] = np.mean(means**2, axis=1)
    return out


class ToyEngine(SimulatedEngine):
    name = "toy"
    schema = Path(__file__).with_name("schema.yaml")
    figure_schema = "toy_figure"
    interpretations = ("no collaboration: every agent keeps its local mean",)

    def check(self, settings, where, config):
        if settings["t_max"] < settings["grid"]["log"]:
            raise ConfigError(f"{where}.t_max={settings['t_max']}: below grid.log={settings['grid']['log']}")

    def spec(self, params):
        return ToySpec(params["n_agents"], figure_grid(params), population(params))

    def run_kernel(self, spec, params, instances, generators, diagnostics, progress):
        return local_mean_mse(spec, instances["classes"], generators)

    def curve_fields(self, spec, curve):
        return {"rule": "local_sim", "eps": math.inf}

    def details(self, settings):
        return f"M={settings['n_agents']}"

    def panel_style(self, table):
        curves = table[table["kind"] == "simulated"]
        lines = {name: ("k", "-") for name in curves["curve"].unique()}
        return PanelStyle(curves, lines, [plt.Line2D([], [], color="k", label="local mean (simulated)")])
