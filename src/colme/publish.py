"""Publish a finished build under ``docs/<preset>/`` so that a reader sees it without running it.

``python -m colme.publish RESULTS DEST --preset paper --wall-seconds S --cores N`` copies,
for every figure of the configuration (``config.yaml`` with ``preset`` set):

* ``figures/<figure>.png`` and, for engines with diagnostics, ``<figure>_diagnostics.png``;
* ``tables/<figure>.csv`` (tidy: curve, t, mse, se, runs), ``<figure>_supplement.csv``
  where not empty, and gzip-compressed ``<figure>_covariance.csv.gz`` and
  ``<figure>_diagnostics.csv.gz`` where the engine writes them: with them every verdict and
  measured string of ``claims.csv`` is re-derived from ``docs/`` alone
  (``tests/workflow/test_published.py``);
* ``provenance/<figure>.json`` (settings, runs, seed, choices, versions, compute seconds);
* ``claims.md`` / ``claims.csv`` and, when built, ``sensitivity.md`` / ``sensitivity.csv``;
* ``build.json``: the preset, figures, claim verdict counts (paired and independent
  standard errors, and the claims whose verdict depends on the choice), the diagnoses'
  verdicts (causes, and re-readings apart: ``colme.claims.diagnosis_counts``), the measured
  wall time and cores, the machine, the summed compute seconds and the commit.

No chunk or instance file is copied.  ``tests/workflow/test_published.py`` checks that what is
published matches the current configuration's figures and claim ids.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from .claims import (
    HOLM,
    INDEPENDENT,
    diagnosis_counts,
    evaluate,
    load_claims,
    model_dependent,
    read_inputs,
    to_markdown,
)
from .config import load_config, resolve_figure
from .docpages import build_page, build_title
from .expansion import validate_config
from .provenance import atomic_write_text, canonical_json, host_cpu, vector_isa
from .registry import ENGINES


def published_figures(config: dict) -> tuple[list[str], list[str]]:
    """(figures, figures with a diagnostics figure) of a validated configuration: its
    ``targets`` (an experiment's), else all."""
    figures = sorted(config.get("targets") or config["figures"])
    diagnosed = [f for f in figures if ENGINES[resolve_figure(config, f)["engine"]].diagnostics]
    return figures, diagnosed


def machine() -> dict:
    """The CPU model and the widest vector ISA it reports (speed figures depend on both)."""
    model, flags = host_cpu()
    return {"cpu": model, "vector_isa": vector_isa(flags)}


def _commit(root: Path) -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _gzip(source: Path, dest: Path) -> None:
    """A byte-for-byte gzip copy of ``source`` (no name or time in the header: rebuilt
    tables republish to identical files)."""
    with open(dest, "wb") as raw, gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw,
                                                 mtime=0) as handle:
        handle.write(source.read_bytes())


def _has_rows(path: Path) -> bool:
    """Whether a table file holds any row (an engine without a supplement writes an empty one)."""
    try:
        return len(pd.read_csv(path)) > 0
    except pd.errors.EmptyDataError:
        return False


def publish(results: Path, dest: Path, config: dict, wall_seconds: float | None, cores: int | None,
            root: Path | None = None) -> dict:
    """Copy ``results`` (a finished build of ``config``) to ``dest``; returns build.json.

    The copy is made in a staging folder beside ``dest`` and swapped in only once complete:
    a build that lacks a file (a failed or partial build) raises and leaves ``dest`` as it
    was, never half-replaced.  Its page (``index.md``, ``colme.docpages.build_page``) comes
    with it."""
    staging = dest.with_name(f".{dest.name}.publishing")
    if staging.exists():
        shutil.rmtree(staging)
    try:
        build = _publish_into(results, staging, config, wall_seconds, cores, root)
        name = f"{dest.parent.name}/{dest.name}" if dest.parent.name == "suites" else dest.name
        (staging / "index.md").write_text(build_page(staging, build_title(name)))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    previous = dest.with_name(f".{dest.name}.previous")
    if dest.exists():
        dest.rename(previous)
    staging.rename(dest)
    shutil.rmtree(previous, ignore_errors=True)
    return build


def _publish_into(results: Path, dest: Path, config: dict, wall_seconds: float | None, cores: int | None,
                  root: Path | None) -> dict:
    """``publish``'s copy, into a fresh folder ``dest``."""
    figures, diagnosed = published_figures(config)
    for part in ("figures", "tables", "provenance"):
        (dest / part).mkdir(parents=True)
    compute = 0.0
    for figure in figures:
        shutil.copy2(results / "figures" / f"{figure}.png", dest / "figures" / f"{figure}.png")
        if figure in diagnosed:
            name = f"{figure}_diagnostics.png"
            shutil.copy2(results / "figures" / name, dest / "figures" / name)
        for suffix in ("", "_supplement"):
            source = results / "tables" / f"{figure}{suffix}.csv"
            if suffix == "" or _has_rows(source):
                shutil.copy2(source, dest / "tables" / source.name)
        for suffix in ("_covariance", "_diagnostics"):
            source = results / "tables" / f"{figure}{suffix}.csv"
            if source.exists() and _has_rows(source):
                _gzip(source, dest / "tables" / f"{source.name}.gz")
        meta = json.loads((results / "tables" / f"{figure}.json").read_text())
        compute += float(meta.get("compute_seconds", 0.0))
        shutil.copy2(results / "tables" / f"{figure}.json", dest / "provenance" / f"{figure}.json")
    for name in ("claims.md", "claims.csv", "sensitivity.md", "sensitivity.csv"):
        if (results / name).exists():
            shutil.copy2(results / name, dest / name)
    build = {
        "preset": config["preset"],
        "seed": config["seed"],
        "figures": figures,
        "diagnostics_figures": diagnosed,
        **(claim_counts(pd.read_csv(results / "claims.csv")) if not config.get("targets") else {}),
        "wall_seconds": wall_seconds,
        "cores": cores,
        "compute_seconds": round(compute, 1),
        "machine": machine(),
        "commit": _commit(root or Path.cwd()),
    }
    atomic_write_text(dest / "build.json", json.dumps(json.loads(canonical_json(build)), indent=1) + "\n")
    return build


def claim_counts(claims: pd.DataFrame) -> dict:
    """What build.json says of a build's claims (an experiment's build has none)."""
    return {
        "claims": len(claims),
        "verdicts": claims["verdict"].value_counts().sort_index().to_dict(),
        **diagnosis_counts(claims),
        "verdicts_independent_se": claims["verdict" + INDEPENDENT].value_counts().sort_index().to_dict(),
        "origins": claims["origin"].value_counts().sort_index().to_dict(),
        "verdicts_holm": claims[HOLM].value_counts().sort_index().to_dict(),
        "moved_by_holm": list(claims[claims["verdict"] != claims[HOLM]]["id"]),
        "error_model_dependent": list(model_dependent(claims)["id"]),
    }


def recheck_claims(folder: Path, claims_file: Path, root: Path | None = None) -> dict:
    """Re-evaluate a published build's claims from its own tables (tidy, supplementary,
    covariance and diagnostics: what ``test_published`` re-derives them from), after an
    edit of the claims' diagnoses, which no table depends on: rewrites ``claims.csv``,
    ``claims.md`` and build.json's claim counts, and records the recheck's commit in
    build.json (``claims_rechecked_at``); the tables, figures and timings stay the build's."""
    tables = folder / "tables"
    claims = evaluate(load_claims(claims_file), **read_inputs(
        [p for p in tables.glob("*.csv") if not p.name.endswith("_supplement.csv")],
        tables.glob("*_supplement.csv"), tables.glob("*_covariance.csv.gz"), tables.glob("*_diagnostics.csv.gz")))
    atomic_write_text(folder / "claims.csv", claims.to_csv(index=False))
    atomic_write_text(folder / "claims.md", to_markdown(claims))
    build = json.loads((folder / "build.json").read_text())
    build.update(claim_counts(pd.read_csv(folder / "claims.csv")))
    build["claims_rechecked_at"] = _commit(root or Path.cwd())
    atomic_write_text(folder / "build.json", json.dumps(json.loads(canonical_json(build)), indent=1) + "\n")
    return build


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "recheck-claims":  # python -m colme.publish recheck-claims docs/default
        parser = argparse.ArgumentParser(description=recheck_claims.__doc__.splitlines()[0])
        parser.add_argument("command")
        parser.add_argument("folder", type=Path, help="a published build, e.g. docs/default")
        parser.add_argument("--claims", type=Path, default=Path("workflow/claims.yaml"))
        args = parser.parse_args(argv)
        print(json.dumps(recheck_claims(args.folder, args.claims), indent=1))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a finished build's results/ folder")
    parser.add_argument("dest", type=Path, help="where to publish, e.g. docs/paper")
    parser.add_argument("--config", type=Path, default=Path("config.yaml"))
    parser.add_argument("--configfile", type=Path, default=None,
                        help="an experiment's file merged over --config, as snakemake --configfile does")
    parser.add_argument("--preset", choices=("default", "paper"), required=True)
    parser.add_argument("--wall-seconds", type=float, default=None, help="measured wall time of the build")
    parser.add_argument("--cores", type=int, default=None, help="cores the build ran on")
    args = parser.parse_args(argv)
    config = validate_config({**load_config(args.config, args.configfile), "preset": args.preset})
    build = publish(args.results, args.dest, config, args.wall_seconds, args.cores, args.config.resolve().parent)
    print(json.dumps(build, indent=1))


if __name__ == "__main__":
    main()
