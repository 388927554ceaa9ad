"""Build a figure's tables from a configuration in-process, without Snakemake: for a
notebook or a script exploring one figure.

``figure_tables(config, figure)`` validates the configuration as the workflow does (a
sweep's point can be named too: ``<sweep>__<key><value>``), then
runs the same stages as its rules (instances, chunks, table: ``colme.stages``) in a
temporary folder (or ``root``), and returns the figure's ``FigureTables``: the tidy
table, the supplement, the covariance of the curves' means, the diagnostics and the
provenance.  The numbers are those the workflow writes, bit for bit: same seeds, same
streams, same chunks.  Views of other figures (sweeps, zooms, overlays, scaling) read
those figures' tables: build them with Snakemake.

    >>> import yaml
    >>> from colme.explore import figure_tables
    >>> config = yaml.safe_load(open("config.yaml"))
    >>> config["figures"]["mine"] = {"engine": "ccolme", "n_agents": 100, "degree": 10,
    ...                              "t_max": 300, "runs": 2, "rules": ["oracle"], "eps": [1],
    ...                              "theta_k": [6]}
    >>> figure_tables(config, "mine").table.groupby("curve")["mse"].last()  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

from .aggregation import run_chunks
from .engines import FigureTables
from .errors import ConfigError
from .expansion import expand_config
from .registry import ENGINES, stage_params
from .stages import makers, owner, result_path, write_chunk, write_instances


def figure_tables(config: dict, figure: str, root: str | Path | None = None) -> FigureTables:
    """The tables of ``figure`` of ``config`` (a configuration as in config.yaml, validated
    here: a bad key raises ``ConfigError`` naming it), computed in-process.

    Instance and chunk files go under ``root`` (kept) or a temporary folder (removed).
    """
    expansion = expand_config(copy.deepcopy(config))
    if figure in expansion.figures:
        settings = expansion.figures[figure]
    elif figure in expansion.sweep_figures:  # a sweep's point
        settings = expansion.sweep_figures[figure]
    else:
        raise ConfigError(f"unknown figure {figure!r}; configured figures: {sorted(expansion.figures)}, "
                          f"sweep points: {sorted(expansion.sweep_figures)}")
    engine = ENGINES[settings["engine"]]
    if engine.source(settings) is not None or engine.base_figure(settings) is not None or (
        not engine.simulated and engine.table_inputs(figure, settings, lambda kind: []) != {}
    ):
        raise ConfigError(f"figure {figure!r} (engine {engine.name}) is made from other figures' tables: "
                          "build it with snakemake")
    return settings_tables(figure, settings, root)


def settings_tables(figure: str, settings: dict, root: str | Path | None = None) -> FigureTables:
    """The tables of a figure from its resolved ``settings`` (``colme.config.resolve_figure``):
    an analytic figure's directly, a simulated figure's through its instance and chunk files
    under ``root`` (kept) or a temporary folder (removed)."""
    engine = ENGINES[settings["engine"]]
    if not engine.simulated:
        return engine.tables(figure, stage_params(settings, "table"), {})
    if root is None:
        with tempfile.TemporaryDirectory() as folder:
            return _simulated_tables(engine, figure, settings, Path(folder))
    return _simulated_tables(engine, figure, settings, Path(root))


def _simulated_tables(engine, figure: str, settings: dict, root: Path) -> FigureTables:
    paths = {"instances": [], "chunks": []}
    for start, stop in run_chunks(settings["runs"], settings["chunk_runs"]):
        made_by = makers(figure, settings, start, stop)
        for kind in paths:
            paths[kind].append(result_path(kind, owner(kind, figure, settings), start, stop, made_by[kind], root=root))
            Path(paths[kind][-1]).parent.mkdir(parents=True, exist_ok=True)
        if not Path(paths["instances"][-1]).exists():
            write_instances(made_by["instances"], paths["instances"][-1])
        write_chunk(made_by["chunks"], paths["instances"][-1], paths["chunks"][-1])
    inputs = engine.table_inputs(figure, settings, lambda kind: paths[kind])
    return engine.tables(figure, stage_params(settings, "table"), inputs)
