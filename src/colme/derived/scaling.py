"""The scaling engine: several simulated figures side by side, and their cost against M.

A view, not an experiment, like ``zoom``: it knows no paper.  Each source figure is drawn
as one MSE-vs-t panel by its own engine, and a last panel shows the kernel time per step
(and per curve) against the number of agents M, from the simulation seconds every chunk
file records (the table stage's ``compute_seconds``: kernel time only, instances, start-up
and aggregation excluded).  ``scale_m`` (issue "Scale") is one.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..engines import FigureTables, check_names_figure, no_diagnostics, no_pairs, table_path
from .base import DerivedEngine

#: Columns of the timing table (the figure's supplement), one row per source.
TIMING_COLUMNS = ["figure", "n_agents", "degree", "curves", "runs", "t_max", "compute_seconds",
                  "seconds_per_step", "agent_curve_steps_per_second", "config_edge_updates_per_second"]



def timing_row(figure: str, meta: dict) -> dict:
    """One source's cost: kernel seconds per time step of one run (all its curves), and
    throughput per core in agent-curve-steps/s and, on a graph of degree r, in
    config-edge-updates/s (M r curves per step, the unit of benchmarks/bench_scale.py)."""
    settings = meta["settings"]
    runs, t_max, seconds = int(meta["runs"]), int(settings["t_max"]), float(meta["compute_seconds"])
    n_agents, curves = int(settings["n_agents"]), len(meta["curves"])
    degree = settings.get("degree")
    steps = runs * t_max
    per_second = n_agents * curves * steps / seconds if seconds > 0 else np.nan
    return {
        "figure": figure, "n_agents": n_agents, "degree": degree, "curves": curves, "runs": runs,
        "t_max": t_max, "compute_seconds": seconds, "seconds_per_step": seconds / steps,
        "agent_curve_steps_per_second": per_second,
        "config_edge_updates_per_second": per_second * degree if degree else np.nan,
    }


class ScalingEngine(DerivedEngine):
    """Simulated figures side by side (one panel each) and their time per step against M."""

    name = "scaling"
    figure_schema = "scaling_figure"
    time_axis = False

    def standalone_config(self, entry):
        source = next(engine.name for engine in self.engines.values() if engine.simulated)
        return {"figures": {"source": {"engine": source}, "figure": {"sources": ["source"], **entry}}}

    def check(self, settings, where, config):
        figures = config["figures"]

        def drawable(name):
            return self.engines[figures[name]["engine"]].simulated

        for index, source in enumerate(settings["sources"]):
            check_names_figure(f"{where}.sources[{index}]", source, figures, drawable, "a simulated figure")

    def table_inputs(self, figure, settings, chunk_paths, results="results"):
        sources = settings["sources"]
        return {
            "tables": [table_path(results, source) for source in sources],
            "metas": [table_path(results, source, ".json") for source in sources],
        }

    def tables(self, figure, params, inputs):
        sources = params["sources"]
        metas = [json.loads(Path(path).read_text()) for path in inputs["metas"]]
        frames = [
            pd.read_csv(path).assign(figure=source, n_agents=int(meta["settings"]["n_agents"]))
            for source, path, meta in zip(sources, inputs["tables"], metas, strict=True)
        ]
        timing = pd.DataFrame([timing_row(s, m) for s, m in zip(sources, metas, strict=True)],
                              columns=TIMING_COLUMNS)
        provenance = {
            "runs": int(sum(m["runs"] for m in metas)),
            "compute_seconds": float(timing["compute_seconds"].sum()),
            "sources": {s: {"settings": m["settings"], "runs": m["runs"], "curves": m["curves"]}
                        for s, m in zip(sources, metas, strict=True)},
            "timing": timing.to_dict(orient="records"),
        }
        return FigureTables(pd.concat(frames, ignore_index=True), timing, no_pairs(), no_diagnostics(), provenance)

    def subtitle(self, meta):
        runs = ", ".join(f"M={s['settings']['n_agents']:g}: {s['runs']}" for s in meta["sources"].values())
        return f"runs {runs}; time per step from the chunks' kernel seconds"

    def draw(self, table, meta, title, pdf, png):
        # lazy: matplotlib, only where a figure is drawn
        import matplotlib.pyplot as plt
        import seaborn as sns

        from ..plotting import draw_mse_axes, save_figure  # lazy: as above

        sources = list(meta["sources"])
        sns.set_theme(style="whitegrid", context="paper")
        columns = min(3, len(sources) + 1)
        rows = -(-(len(sources) + 1) // columns)
        fig, axes = plt.subplots(rows, columns, figsize=(4.4 * columns, 3.6 * rows), squeeze=False)
        panels = list(axes.flat)
        for index, (ax, source) in enumerate(zip(panels, sources, strict=False)):
            rows_of = table[table["figure"] == source].drop(columns=["figure", "n_agents"])
            engine = self.engines[meta["sources"][source]["settings"]["engine"]]
            m = meta["sources"][source]["settings"]["n_agents"]
            draw_mse_axes(ax, rows_of, engine.panel_style(rows_of), f"M = {m:g}", legend=index == 0)
        timing = pd.DataFrame(meta["timing"])
        ax = panels[len(sources)]
        ax.loglog(timing["n_agents"], timing["seconds_per_step"] / timing["curves"], "o-", color="tab:blue",
                  label="kernel seconds per step and curve")
        reference = timing["seconds_per_step"].iloc[0] / timing["curves"].iloc[0]
        ax.loglog(timing["n_agents"], reference * timing["n_agents"] / timing["n_agents"].iloc[0], ":",
                  color="grey", label="proportional to M")
        ax.set_xlabel("Agents $M$")
        ax.set_ylabel("Seconds per time step and curve (one core)")
        ax.set_title("Kernel time per step", fontsize=9)
        ax.legend(fontsize=7)
        for ax in panels[len(sources) + 1:]:
            ax.set_visible(False)
        fig.suptitle(title, fontsize=9)
        fig.tight_layout()
        save_figure(fig, title, meta, pdf, png)
