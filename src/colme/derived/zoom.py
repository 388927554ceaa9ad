"""The zoom engine: another figure's table redrawn over t <= t_max, drawn as its source is.

A view, not an experiment: it knows no paper, and draws through its source's engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..engines import FigureTables, check_names_figure, table_path
from .base import DerivedEngine


class ZoomEngine(DerivedEngine):
    """Another figure's table redrawn over t <= t_max, drawn as its source is."""

    name = "zoom"
    figure_schema = "zoom_figure"
    drawing_keys = ("title", "draws_as")

    def standalone_config(self, entry):
        source = next(engine.name for engine in self.engines.values() if engine.time_axis and engine is not self)
        return {"figures": {"source": {"engine": source}, "figure": {"source": "source", **entry}}}

    def source(self, settings):
        return settings.get("source")

    def with_source(self, settings, source):
        return {**settings, "source": source}

    def complete(self, settings, config):
        # Validation resolves a figure before its engine's check runs: a source that is not
        # a configured figure is that check's error (naming the key), not a KeyError here.
        source = config["figures"].get(settings["source"])
        settings["draws_as"] = source["engine"] if isinstance(source, dict) else None

    def check(self, settings, where, config):
        figures = config["figures"]

        def zoomable(name):
            engine = self.engines[figures[name]["engine"]]
            return engine.time_axis and engine.source(figures[name]) is None

        check_names_figure(f"{where}.source", settings["source"], figures, zoomable, "a figure with a time axis")

    def table_inputs(self, figure, settings, chunk_paths, results="results"):
        source = settings["source"]
        return {
            "table": table_path(results, source),
            "meta": table_path(results, source, ".json"),
            "supplement": table_path(results, source, "_supplement.csv"),
            "covariance": table_path(results, source, "_covariance.csv"),
            "diagnostics": table_path(results, source, "_diagnostics.csv"),
        }

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

    def figure_interpretations(self, settings):
        return self.engines[settings["draws_as"]].interpretations

    def subtitle(self, meta):
        return self.engines[meta["settings"]["engine"]].subtitle(meta)

    def draw(self, table, meta, title, pdf, png):
        self.engines[meta["settings"]["engine"]].draw(table, meta, title, pdf, png)
