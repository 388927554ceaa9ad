"""Config validation and the helpers every rule uses.

Each rule's params are a canonical JSON string (sorted keys) of exactly what determines
its outputs (colme.registry.stage_params), so Snakemake reruns a job when, and only when,
one of those values changed; reordering the config's keys or editing a title reruns no
simulation.  Scripts read these params and their inputs, never snakemake.config.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from colme.claims import load_claims
from colme.config import ConfigError, load_schema, resolve_figure, validate_config
from colme.aggregation import run_chunks
from colme.registry import ENGINES, figure_caption, stage_params
from colme.provenance import canonical_json
from colme.sensitivity import sensitivity_variants

SCHEMA = load_schema(Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
try:
    validated = validate_config(config, SCHEMA)
except ConfigError as error:
    raise WorkflowError(str(error)) from None

FIGURES = sorted(validated["figures"])
SETTINGS = {figure: resolve_figure(validated, figure) for figure in FIGURES}

CLAIMS = Path(workflow.basedir) / "workflow/claims.yaml"
CLAIM_LIST = load_claims(CLAIMS)
# results/sensitivity.md's variant figures: each claim-bearing figure with one
# interpretation option flipped (colme.sensitivity); built only for that target.
VARIANT_SETTINGS, VARIANTS, SKIPPED_VARIANTS = sensitivity_variants(
    validated,
    SCHEMA,
    {claim["figure"] for claim in CLAIM_LIST},
    {name for name, entry in config["figures"].items() if "derived_from" in entry},
)
SETTINGS.update(VARIANT_SETTINGS)


# Cheap steps run on the submitting host, not as cluster jobs: instances take seconds per
# chunk, tables and figures read small files (PriCER's tables take under a minute).
localrules:
    all,
    instances,
    table,
    figure,
    diagnostics_figure,


wildcard_constraints:
    figure="|".join(FIGURES + sorted(VARIANT_SETTINGS)),
    start=r"\d+",
    stop=r"\d+",


def engine_figures(simulated):
    """Regex of the figures whose engine is (or is not) a chunked simulation."""
    names = [
        f for f in SETTINGS if ENGINES[SETTINGS[f]["engine"]].simulated == simulated
    ]
    return "|".join(names) if names else "(?!)"


def params_of(stage):
    """The rule's params: canonical JSON of what determines this stage's outputs."""

    def params(wildcards):
        settings = SETTINGS[wildcards.figure]
        if stage in ("instances", "simulate"):
            start, stop = int(wildcards.start), int(wildcards.stop)
            return canonical_json(stage_params(settings, stage, start, stop))
        return canonical_json(stage_params(settings, stage))

    return params


def chunk_paths(directory, figure):
    settings = SETTINGS[figure]
    return [
        f"results/{directory}/{figure}/runs{start}-{stop}.npz"
        for start, stop in run_chunks(settings["runs"], settings["chunk_runs"])
    ]


def table_inputs(wildcards):
    """The table stage's inputs, as the figure's engine names them (chunks, a source's
    tables, or nothing)."""
    figure = wildcards.figure
    settings = SETTINGS[figure]
    return ENGINES[settings["engine"]].table_inputs(
        figure, settings, lambda kind: chunk_paths(kind, figure)
    )


def simulate_runtime(wildcards, attempt):
    """Minutes requested for one chunk, doubled on each retry after a time-out."""
    settings = SETTINGS[wildcards.figure]
    params = stage_params(
        settings, "simulate", int(wildcards.start), int(wildcards.stop)
    )
    runs = int(wildcards.stop) - int(wildcards.start)
    return ENGINES[settings["engine"]].runtime_minutes(params, runs) * 2 ** (
        attempt - 1
    )


def caption(wildcards):
    return figure_caption(wildcards.figure, SETTINGS[wildcards.figure])


def report_labels(kind):
    """Report labels of a figure's file, read at report time from its provenance.

    Evaluated by `snakemake --report` (not at DAG time), so the compute time and the
    package versions can sit next to the figure without making the figure rule rerun.
    """

    def labels(wildcards, input):
        meta = json.loads(Path(input.meta).read_text())
        versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
        return {
            "figure": wildcards.figure,
            "file": kind,
            "runs": meta["runs"],
            "seed": meta["settings"].get("seed", "none"),
            "preset": config.get("preset", "default"),
            "wall time (core-s)": round(float(meta["compute_seconds"]), 1),
            "package versions": versions,
        }

    return labels


DIAGNOSED = [f for f in FIGURES if ENGINES[SETTINGS[f]["engine"]].diagnostics]


def figure_targets():
    return expand(
        "results/figures/{figure}.{ext}", figure=FIGURES, ext=("pdf", "png")
    ) + expand(
        "results/figures/{figure}_diagnostics.{ext}",
        figure=DIAGNOSED,
        ext=("pdf", "png"),
    )
