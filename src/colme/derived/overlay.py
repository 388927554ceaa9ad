"""The overlay engine: the curves of several simulated figures in one panel, figures that
draw the same random streams (``stream``), so that their curves are paired run by run,
even across engines (e.g. Private-C-ColME's rules next to C-ColME and B-ColME).

A view, not an experiment, like ``zoom``: it knows no paper.  Local, Ideal and the other
closed-form rows are the first source's (the sources share their instances); each
simulated curve keeps its own engine's line style and gets a colour of its own.  Curves of
two sources that share a name (a rule and its variant under one name) are each named after
their source figure, so every curve of the panel keeps a name of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..aggregation import ALL_AGENTS, group_rows, panel_rows
from ..engines import FigureTables, check_names_figure, no_pairs, table_path
from ..errors import ConfigError
from ..seeding import stream_name
from .base import DerivedEngine


def shared_names(simulated: pd.DataFrame) -> set[str]:
    """The curve names that several sources' simulated rows share."""
    owners = simulated.drop_duplicates(["figure", "curve"])
    return set(owners.loc[owners.duplicated("curve", keep=False), "curve"])


def with_unique_names(frame: pd.DataFrame, clashing: set[str]) -> pd.DataFrame:
    """``frame`` with each curve whose name several sources share named after its source,
    "<curve> (<figure>)": every curve of an overlay keeps a name of its own."""
    frame = frame.copy()
    rows = frame["curve"].isin(clashing)
    frame.loc[rows, "curve"] = frame.loc[rows, "curve"] + " (" + frame.loc[rows, "figure"] + ")"
    return frame


class OverlayEngine(DerivedEngine):
    """The curves of several figures drawing the same streams, in one MSE-vs-t panel."""

    name = "overlay"
    figure_schema = "overlay_figure"
    drawing_keys = ("title", "draw_groups")

    def standalone_config(self, entry):
        source = next(engine.name for engine in self.engines.values() if engine.simulated)
        return {"figures": {"a": {"engine": source}, "b": {"engine": source, "stream": "a"},
                            "figure": {"sources": ["a", "b"], **entry}}}

    def check(self, settings, where, config):
        figures = config["figures"]

        def simulated(name):
            return self.engines[figures[name]["engine"]].simulated

        for index, source in enumerate(settings["sources"]):
            check_names_figure(f"{where}.sources[{index}]", source, figures, simulated, "a simulated figure")
        streams = {source: stream_name(figures[source], source) for source in settings["sources"]}
        grids = {source: (figures[source].get("t_max"), json.dumps(figures[source].get("grid"), sort_keys=True))
                 for source in settings["sources"]}
        if len(set(streams.values())) > 1:
            raise ConfigError(f"{where}.sources: the figures draw different random streams {streams}; give the "
                              "others `stream: <the first>` so that their curves are paired run by run")
        if len(set(grids.values())) > 1:
            raise ConfigError(f"{where}.sources: the figures record different times (t_max, grid) {grids}")

    def table_inputs(self, figure, settings, chunk_paths, results="results"):
        sources = settings["sources"]
        return {
            "tables": [table_path(results, source) for source in sources],
            "metas": [table_path(results, source, ".json") for source in sources],
            "diagnostics": [table_path(results, source, "_diagnostics.csv") for source in sources],
        }

    def tables(self, figure, params, inputs):
        sources = params["sources"]
        metas = [json.loads(Path(path).read_text()) for path in inputs["metas"]]
        frames = []
        for index, (source, path, meta) in enumerate(zip(sources, inputs["tables"], metas, strict=True)):
            table = pd.read_csv(path).assign(figure=source, engine=meta["settings"]["engine"])
            frames.append(table if index == 0 else table[table["kind"] == "simulated"])
        table = pd.concat(frames, ignore_index=True)
        if "group" in table.columns:  # a source without groups: its rows are its panel's
            table["group"] = table["group"].fillna(ALL_AGENTS)
            table["group_share"] = table["group_share"].fillna(1.0)
        diagnostics = pd.concat([pd.read_csv(path).assign(figure=source)
                                 for source, path in zip(sources, inputs["diagnostics"], strict=True)],
                                ignore_index=True)
        clashing = shared_names(table[table["kind"] == "simulated"])
        table, diagnostics = (with_unique_names(frame, clashing) for frame in (table, diagnostics))
        provenance = {
            "runs": int(min(m["runs"] for m in metas)),
            "compute_seconds": float(sum(m["compute_seconds"] for m in metas)),
            "curves": [c for m in metas for c in m["curves"]],
            "sources": {s: {"settings": m["settings"], "runs": m["runs"], "curves": m["curves"]}
                        for s, m in zip(sources, metas, strict=True)},
        }
        return FigureTables(table, pd.DataFrame(), no_pairs(), diagnostics, provenance)

    def figure_interpretations(self, settings):
        return ()

    def subtitle(self, meta):
        parts = [f"{source} ({self.engines[s['settings']['engine']].name}, {s['runs']} runs)"
                 for source, s in meta["sources"].items()]
        return "the same instances and data: " + ", ".join(parts)

    def drawing_options(self, settings):
        return {"draw_groups": True} if settings.get("draw_groups") else {}

    def draw(self, table, meta, title, pdf, png):
        from ..plotting import plot_mse_panel  # lazy: matplotlib, only where a figure is drawn

        drawn = meta.get("drawing", {}).get("draw_groups", False)
        plot_mse_panel(table, self.panel_style(table, drawn), title, meta, pdf, png)

    def panel_style(self, table, draw_groups=False):
        """Each source's curves in its engine's line style and a colour of their own; with
        ``draw_groups``, each curve's groups of agents too (those not holding every agent),
        thin, in the curve's colour, a dash per group."""
        import matplotlib.pyplot as plt  # lazy: matplotlib, only where a figure is drawn

        from ..ccolme.plots import with_group_lines  # lazy: as above
        from ..plotting import PanelStyle, palette  # lazy: as above

        groups = group_rows(table)
        groups = groups[groups["kind"] == "simulated"] if draw_groups else groups.iloc[:0]
        table = panel_rows(table)
        simulated = table[table["kind"] == "simulated"]
        colours = palette(dict.fromkeys(simulated["curve"]))
        lines, handles = {}, []
        for _, rows in simulated.groupby("figure", sort=False):
            own = rows.dropna(axis=1, how="all")
            style = self.engines[own["engine"].iloc[0]].panel_style(own)
            for name in dict.fromkeys(own["curve"]):
                line = style.lines[name][1]
                lines[name] = (colours[name], line)
                handles.append(plt.Line2D([], [], color=colours[name], ls=line, label=name))
        return PanelStyle(*with_group_lines(simulated, lines, handles, groups, colours.__getitem__))
