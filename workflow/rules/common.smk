"""Config validation and helpers shared by the rules."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from colme.config import load_schema, validate_config
from colme.experiments import (
    ConfigError,
    chunk_runtime_minutes,
    chunks,
    figure_settings,
    report_caption,
)

try:
    validated = validate_config(
        config,
        load_schema(Path(workflow.basedir) / "workflow/schemas/config.schema.yaml"),
    )
except ConfigError as error:
    raise WorkflowError(str(error)) from None
# In place, so the scripts' snakemake.config carries the defaults too.
config.clear()
config.update(validated)

FIGURES = sorted(config["figures"])


# Cheap steps run on the submitting host, not as cluster jobs.
localrules:
    all,
    aggregate,
    aggregate_colme,
    analytic,
    zoom,
    figure,


wildcard_constraints:
    figure="|".join(FIGURES),
    chunk=r"\d+",


def settings(wildcards):
    """The figure's resolved settings: a params entry, so config changes trigger reruns."""
    return figure_settings(config, wildcards.figure)


def chunk_ids(figure):
    return [c.index for c in chunks(figure_settings(config, figure))]


def chunk_files(pattern):
    def files(wildcards):
        return expand(
            pattern, figure=wildcards.figure, chunk=chunk_ids(wildcards.figure)
        )

    return files


def engine_figures(engine):
    """Regex matching the names of the figures simulated by ``engine``."""
    names = [f for f in FIGURES if config["figures"][f]["engine"] == engine]
    return "|".join(names) if names else "(?!)"


def report_labels(kind):
    """Report labels of a figure's file, read at report time from its provenance.

    Evaluated by `snakemake --report` (not at DAG time), so the wall time the simulation
    took can sit next to the figure without making the figure rule rerun.
    """

    def labels(wildcards, input):
        meta = json.loads(Path(input.meta).read_text())
        seconds = meta.get("simulation_seconds", meta.get("analytic_seconds", 0.0))
        return {
            "figure": wildcards.figure,
            "file": kind,
            "runs": meta["runs"],
            "seed": meta["settings"]["seed"],
            "preset": meta["settings"]["preset"],
            "wall time (core-s)": round(float(seconds), 1),
        }

    return labels


def figure_targets():
    return expand("results/figures/{figure}.{ext}", figure=FIGURES, ext=("pdf", "png"))
