"""Snakemake's own CPU during a build, with the scheduler's wake-ups as Snakemake 9 makes them
and with ``workflow/rules/scheduler_timers.py`` (one pending wake-up), A/B on the same DAG.

Each variant is a copy of this repository's tracked files (``git archive HEAD``); the
``snakemake`` variant drops the line of ``common.smk`` that applies the fix.  Both build the
default config's figures but the ones named by ``--exclude`` (by default the M >= 1e3 scale
figures, whose few long jobs say nothing about the scheduler) with ``--config runs=R
t_max=T`` (many short jobs, as a fresh build's instances, tables and figures are), from an
empty ``results/``, on ``--cores`` cores, kernels compiled beforehand into one cache.  Printed
per variant and round: the wall seconds, Snakemake's own CPU seconds (its process, not its
jobs', from ``psutil``) and its peak number of threads; then the ratios.  Usage:

    python benchmarks/bench_scheduler.py [--runs 2] [--t-max 300] [--cores 2] [--repeat 1]

About 3 minutes per variant and round on 2 cores (the reduced DAG has 131 jobs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml
from baseline import cpu_description, extract_revision

#: The line of common.smk that applies the fix; the ``snakemake`` variant drops it.
FIX_LINE = "keep_one_pending(JobScheduler)\n"
EXCLUDE = ("scale_m", "baselines_m", "baselines_scale")


def tree(destination: Path, fixed: bool) -> Path:
    """This repository's tracked files at HEAD in ``destination``, the fix dropped unless ``fixed``."""
    extract_revision("HEAD", destination)
    if not fixed:
        common = destination / "workflow" / "rules" / "common.smk"
        text = common.read_text()
        if FIX_LINE not in text:
            raise SystemExit(f"{common}: no line {FIX_LINE.strip()!r} to drop")
        common.write_text(text.replace(FIX_LINE, "", 1))
    return destination


def targets(folder: Path, exclude: tuple[str, ...]) -> list[str]:
    """The default config's figure targets but those whose names start with ``exclude``."""
    figures = yaml.safe_load((folder / "config.yaml").read_text())["figures"]
    return [f"results/figures/{name}.pdf" for name in figures if not name.startswith(exclude)]


def build(folder: Path, names: list[str], overrides: list[str], cores: int) -> dict:
    """One build from an empty results/: wall seconds, Snakemake's own CPU seconds, peak threads."""
    snakemake = Path(sys.executable).with_name("snakemake")
    command = [str(snakemake), "--cores", str(cores), *names, "--config", *overrides]
    log = folder / "snakemake.log"
    start = time.perf_counter()
    with log.open("w") as stream:
        process = subprocess.Popen(command, cwd=folder, stdout=stream, stderr=subprocess.STDOUT)
    watched = psutil.Process(process.pid)
    cpu = threads = 0.0
    while process.poll() is None:
        try:
            times = watched.cpu_times()
            cpu, threads = times.user + times.system, max(threads, watched.num_threads())
        except psutil.NoSuchProcess:
            break
        time.sleep(0.5)
    wall = time.perf_counter() - start
    if process.wait() != 0:
        raise SystemExit(f"snakemake failed in {folder}:\n{log.read_text()[-3000:]}")
    return {"wall": wall, "cpu": cpu, "threads": int(threads)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--t-max", type=int, default=300)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="rounds, each building every variant once")
    parser.add_argument("--exclude", nargs="*", default=list(EXCLUDE), help="figure name prefixes left out")
    args = parser.parse_args()
    print(cpu_description())
    overrides = [f"runs={args.runs}", f"t_max={args.t_max}"]
    with tempfile.TemporaryDirectory(prefix="colme-scheduler-") as scratch:
        scratch = Path(scratch)
        os.environ["COLME_KERNEL_DIR"] = str(scratch / "kernels")
        folders = {name: tree(scratch / name, fixed) for name, fixed in (("snakemake", False), ("one-pending", True))}
        names = targets(folders["one-pending"], tuple(args.exclude))
        print(f"{len(names)} figures, --config {' '.join(overrides)}, {args.cores} cores; kernels compiled first")
        build(folders["one-pending"], names, ["runs=1", "t_max=20"], args.cores)
        results = {name: [] for name in folders}
        for round_ in range(args.repeat):
            for name, folder in folders.items():
                for made in ("results", ".snakemake"):
                    shutil.rmtree(folder / made, ignore_errors=True)
                result = build(folder, names, overrides, args.cores)
                results[name].append(result)
                print(f"round {round_ + 1} {name:12s} wall {result['wall']:7.1f} s, snakemake's own CPU "
                      f"{result['cpu']:6.1f} s, peak threads {result['threads']}", flush=True)
    best = {name: min(rounds, key=lambda r: r["wall"]) for name, rounds in results.items()}
    before, after = best["snakemake"], best["one-pending"]
    print(f"one pending wake-up against Snakemake's (best wall of each): wall x{after['wall'] / before['wall']:.2f}, "
          f"snakemake's own CPU x{after['cpu'] / before['cpu']:.2f}, peak threads {before['threads']} -> "
          f"{after['threads']}")


if __name__ == "__main__":
    main()
