"""Config validation and the helpers every rule uses.

Each rule's params are a canonical JSON string (sorted keys) of exactly what determines
its outputs (colme.registry.stage_params), so Snakemake reruns a job when, and only when,
one of those values changed; reordering the config's keys or editing a title reruns no
simulation.  Scripts read these params and their inputs, never snakemake.config.
"""

import json
import os
import sys
from pathlib import Path

from scheduler_timers import keep_one_pending
from snakemake.logging import logger
from snakemake.scheduling.job_scheduler import JobScheduler

from colme.aggregation import run_chunks
from colme.claims import load_claims
from colme.config import ConfigError
from colme.engines import table_path
from colme.expansion import expand_config
from colme.integrity import maker, problem, quarantine, stale_record
from colme.provenance import canonical_json
from colme.registry import ENGINES, figure_caption, stage_params
from colme.stages import KINDS, figure_path, makers

# One pending wake-up of the scheduler instead of one more per pass (scheduler_timers.py:
# Snakemake's own CPU grows with the jobs done, taken from the jobs on a small machine).
keep_one_pending(JobScheduler)

CLAIMS = Path(workflow.basedir) / "workflow/claims.yaml"
CLAIM_LIST = load_claims(CLAIMS)
# The expansion stage (colme.expansion), once: the configured figures, the points of every
# sweep (ordinary simulated figures, built for their sweep's table and as targets of their
# own) and results/sensitivity.md's variant figures (each claim-bearing figure with one
# interpretation option flipped; built only for that target), each validated once.
try:
    EXPANDED = expand_config(config, claimed={claim["figure"] for claim in CLAIM_LIST})
except ConfigError as error:
    raise WorkflowError(str(error)) from None
validated = EXPANDED.config
# Where every output goes (config key `results`): an experiment names its own folder.
RESULTS = validated["results"]
FIGURES = sorted(validated["figures"])
VARIANT_SETTINGS = EXPANDED.variant_settings
VARIANTS = EXPANDED.variants
SKIPPED_VARIANTS = EXPANDED.skipped
SWEEP_SETTINGS = EXPANDED.sweep_figures
SETTINGS = EXPANDED.settings


# Cheap steps run on the submitting host, not as cluster jobs: instances take seconds per
# chunk, tables and figures read small files (PriCER's tables take under a minute).
localrules:
    all,
    instances,
    table,
    figure,
    figure_with_diagnostics,


wildcard_constraints:
    figure="|".join(FIGURES + sorted(VARIANT_SETTINGS) + sorted(SWEEP_SETTINGS)),
    start=r"\d+",
    stop=r"\d+",
    digest=r"[0-9a-f]{16}",


def engine_figures(simulated, owners=False):
    """Regex of the figures whose engine is (or is not) a chunked simulation (with
    ``owners``, also the streams whose instance files they share, e.g. a sweep's)."""
    names = [
        f for f in SETTINGS if ENGINES[SETTINGS[f]["engine"]].simulated == simulated
    ]
    if owners:
        names = sorted(
            set(names) | {SETTINGS[f].get("stream", f) for f in names}, key=str
        )
    return "|".join(names) if names else "(?!)"


def params_of(stage):
    """The rule's params: canonical JSON of what determines this stage's outputs."""

    def params(wildcards):
        return canonical_json(stage_params(SETTINGS[wildcards.figure], stage))

    return params


def file_makers(kind):
    """Every maker of a chunked file of ``kind`` the config asks for, by its path (an
    instance file can serve several figures: those drawing its stream)."""
    found = {}
    for figure, settings in SETTINGS.items():
        if ENGINES[settings["engine"]].simulated:
            for start, stop in run_chunks(settings["runs"], settings["chunk_runs"]):
                path = figure_path(kind, figure, settings, start, stop, RESULTS)
                found[path] = makers(figure, settings, start, stop)[kind]
    return found


def made_by_of(kind):
    """A chunked rule's params: the maker of its file (figure, stage, params; a chunk's
    names its instance file), whose digest the requested path must carry."""

    def made_by(wildcards):
        path = f"{RESULTS}/{kind}/{wildcards.figure}/runs{wildcards.start}-{wildcards.stop}-{wildcards.digest}.npz"
        if path not in FILE_MAKERS[kind]:
            raise WorkflowError(
                f"{path} is not made by this config (no figure's {kind} of these runs has "
                f"digest {wildcards.digest})"
            )
        return FILE_MAKERS[kind][path]

    return made_by


FILE_MAKERS = {kind: file_makers(kind) for kind in KINDS}


def chunk_paths(kind, figure):
    """A figure's chunk or instance files (for a report: those that exist, so that a figure
    made under other overrides, or chunks never built, leave no hole in its DAG)."""
    settings = SETTINGS[figure]
    return built_only(
        [
            figure_path(kind, figure, settings, start, stop, RESULTS)
            for start, stop in run_chunks(settings["runs"], settings["chunk_runs"])
        ]
    )


def instances_of_chunk(wildcards):
    """The instance file a chunk simulates."""
    figure, start, stop = wildcards.figure, int(wildcards.start), int(wildcards.stop)
    return figure_path("instances", figure, SETTINGS[figure], start, stop, RESULTS)


#: The table rule's outputs, by name.
TABLE_OUTPUTS = {
    name: table_path(RESULTS, "{figure}", suffix)
    for name, suffix in (
        ("table", ".csv"),
        ("supplement", "_supplement.csv"),
        ("covariance", "_covariance.csv"),
        ("diagnostics", "_diagnostics.csv"),
        ("meta", ".json"),
    )
}


#: The figure rules' outputs (figures.smk): Snakemake makes a missing table again only if
#: something downstream is missing too.
DRAWN_FROM_TABLE = (
    f"{RESULTS}/figures/{{figure}}.pdf",
    f"{RESULTS}/figures/{{figure}}.png",
    f"{RESULTS}/figures/{{figure}}.json",
    f"{RESULTS}/figures/{{figure}}_diagnostics.pdf",
    f"{RESULTS}/figures/{{figure}}_diagnostics.png",
)


def dry_run_requested(arguments):
    """Whether the command line asks for a dry run (-n, --dry-run, --dryrun, or -n among
    bundled short flags such as -np): the executor that knows is chosen after parsing.
    """
    return any(
        argument in ("--dry-run", "--dryrun")
        or (
            argument.startswith("-")
            and not argument.startswith("--")
            and "n" in argument[1:]
            and argument[1:].isalpha()
        )
        for argument in arguments
    )


DRY_RUN = dry_run_requested(sys.argv[1:])
# `snakemake --report`: the default target is what exists (a partial build reports its figures).
REPORT = any(arg == "--report" or arg.startswith("--report=") for arg in sys.argv[1:])


def retire(reason, paths):
    """Move the existing ``paths`` to <results>/quarantine/ (never deleted), with the reason;
    a dry run only says so."""
    existing = [path for path in paths if os.path.exists(path)]
    if not existing:
        return
    if DRY_RUN:
        logger.warning(
            f"{reason}: a real run moves {', '.join(existing)} to {RESULTS}/quarantine/ "
            "and makes them again (this dry run plans without that)"
        )
        return
    for path in existing:
        quarantine(path, reason, RESULTS)
    logger.warning(
        f"{reason}: {len(existing)} file(s) moved to {RESULTS}/quarantine/, made again when needed"
    )


def retire_untrusted_results():
    """Before the DAG is built (Snakemake caches what exists, and makes a missing file only
    when something downstream needs it): retire every table whose record names other params
    than the config's, with the figures drawn from it (results/ restored or copied without
    .snakemake/), and every instance file or chunk that is cut short, corrupt or made by
    another maker (colme.integrity)."""
    for figure, settings in SETTINGS.items():
        reason = stale_record(
            TABLE_OUTPUTS["meta"].format(figure=figure),
            maker(figure, "table", stage_params(settings, "table")),
        )
        if reason:
            outputs = (*TABLE_OUTPUTS.values(), *DRAWN_FROM_TABLE)
            retire(reason, [pattern.format(figure=figure) for pattern in outputs])
    for kind, found in FILE_MAKERS.items():
        for path, made_by in found.items():
            reason = problem(path, made_by)
            if reason:
                retire(reason, [path])


def table_inputs(wildcards):
    """The table stage's inputs, as the figure's engine names them (chunks, a source's
    tables, or nothing)."""
    figure = wildcards.figure
    settings = SETTINGS[figure]
    return ENGINES[settings["engine"]].table_inputs(
        figure, settings, lambda kind, other=figure: chunk_paths(kind, other), RESULTS
    )


def simulate_resource(estimate):
    """A simulate job's resource: its engine's ``estimate`` for the chunk (``runtime_minutes``
    or ``memory_mb``), doubled on each retry (after a time-out or running out of memory).
    """

    def resource(wildcards, attempt):
        settings = SETTINGS[wildcards.figure]
        params = stage_params(
            settings, "simulate", int(wildcards.start), int(wildcards.stop)
        )
        runs = int(wildcards.stop) - int(wildcards.start)
        engine = ENGINES[settings["engine"]]
        return getattr(engine, estimate)(params, runs) * 2 ** (attempt - 1)

    return resource


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
#: The other names of the figure wildcard (sensitivity variants and sweeps have no diagnostics figure).
UNDIAGNOSED = sorted({*FIGURES, *VARIANT_SETTINGS, *SWEEP_SETTINGS} - set(DIAGNOSED))


#: What the default target builds: every figure and the claims, or only `targets`.
TARGETS = validated["targets"] or FIGURES


def built_only(paths):
    """``paths``, or for `snakemake --report` those that exist (what a partial build made)."""
    return [path for path in paths if os.path.exists(path)] if REPORT else paths


def figure_targets():
    return built_only(
        expand(
            f"{RESULTS}/figures/{{figure}}.{{ext}}", figure=TARGETS, ext=("pdf", "png")
        )
        + expand(
            f"{RESULTS}/figures/{{figure}}_diagnostics.{{ext}}",
            figure=[f for f in DIAGNOSED if f in TARGETS],
            ext=("pdf", "png"),
        )
    )


def claim_targets():
    if validated["targets"]:
        return []
    return built_only([f"{RESULTS}/claims.csv", f"{RESULTS}/claims.md"])


if REPORT and not figure_targets():
    raise WorkflowError(
        f"no figure of this config in {RESULTS}/figures yet: build one first "
        f"(snakemake --cores all {RESULTS}/figures/<figure>.pdf), then report it; "
        "an experiment's build: pass its file here too (--configfile my.yaml)"
    )


# Not in each cluster job's own Snakemake, nor for a report: it reads what is built (a
# figure made under other overrides too, its provenance says which) and moves nothing.
if workflow.is_main_process and not REPORT:
    retire_untrusted_results()
