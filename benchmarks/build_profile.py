"""Where a build's time goes, from the files the build itself writes: its Snakemake benchmark
files (``<results>/benchmarks/<stage>/<figure>[/<chunk>].tsv``: wall and CPU seconds per job)
and its simulate logs (``kernel <name>: compiled in X s`` or ``loaded from the cache in X s``,
written by ``colme._jit.compile_once``; ``N runs in X s``, the simulation).

Prints the CPU and its vector ISA of this machine (the build's is in its build.json), then,
per stage, the jobs, wall seconds and CPU seconds; the simulate jobs' split into compiling
kernels, loading compiled kernels, simulating (the kernel seconds a job reports: its first
call, which compiles, counted at the rate of its later calls) and the rest (start-up,
reading, writing); and the figures that cost the most.  Usage:

    python benchmarks/build_profile.py [RESULTS] [--top 15]
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

import pandas as pd
from baseline import cpu_description

KERNEL_LINE = re.compile(r"^kernel \S+: (compiled|loaded from the cache) in ([0-9.]+) s$")
RUNS_LINE = re.compile(r"^\d+ runs in ([0-9.]+) s$")


def benchmark_jobs(results: Path) -> pd.DataFrame:
    """One row per job with a benchmark file: stage, figure, job (its chunk or ""), wall
    seconds ``s`` and ``cpu_time``; a build-wide job (``benchmarks/claims.tsv``) is its own
    stage and figure."""
    rows = []
    for path in sorted((results / "benchmarks").rglob("*.tsv")):
        parts = path.relative_to(results / "benchmarks").with_suffix("").parts
        stage, figure, job = parts[0], (parts[1] if len(parts) > 1 else parts[0]), "/".join(parts[2:])
        last = pd.read_csv(path, sep="\t").iloc[-1]
        rows.append({"stage": stage, "figure": figure, "job": job, "s": float(last["s"]),
                     "cpu_time": float(last["cpu_time"])})
    return pd.DataFrame(rows, columns=["stage", "figure", "job", "s", "cpu_time"])


def simulate_split(results: Path, job: pd.Series) -> dict:
    """A simulate job's seconds compiling and loading kernels and simulating, from its log."""
    log = results / "logs" / "simulate" / job["figure"] / f"{job['job']}.log"
    found = defaultdict(float)
    if log.exists():
        for line in log.read_text().splitlines():
            if match := KERNEL_LINE.match(line.strip()):
                found["compile" if match[1] == "compiled" else "load"] += float(match[2])
            elif match := RUNS_LINE.match(line.strip()):
                found["simulate"] += float(match[1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, default=Path("results"))
    parser.add_argument("--top", type=int, default=15, help="how many of the costliest figures to list")
    args = parser.parse_args()
    jobs = benchmark_jobs(args.results)
    if jobs.empty:
        raise SystemExit(f"no benchmark files under {args.results / 'benchmarks'}")
    print(cpu_description())
    by_stage = jobs.groupby("stage").agg(jobs=("s", "size"), wall_s=("s", "sum"), cpu_s=("cpu_time", "sum"))
    print(by_stage.sort_values("wall_s", ascending=False).to_string(float_format=lambda x: f"{x:.1f}"))
    simulate = jobs[jobs["stage"] == "simulate"]
    if not simulate.empty:
        split = pd.DataFrame([simulate_split(args.results, job) for _, job in simulate.iterrows()]).fillna(0.0)
        total = float(simulate["s"].sum())
        parts = {name: float(split[name].sum()) if name in split else 0.0 for name in ("compile", "load", "simulate")}
        parts["rest"] = total - sum(parts.values())
        print(f"\nsimulate jobs: {total:.1f} wall-s in all")
        for name, seconds in parts.items():
            print(f"  {name:9s} {seconds:8.1f} s  {100 * seconds / total:5.1f} %")
    print(f"\nthe {args.top} costliest figures (wall-s over all stages):")
    costly = jobs.groupby("figure")["s"].agg(["size", "sum"]).sort_values("sum", ascending=False).head(args.top)
    print(costly.rename(columns={"size": "jobs", "sum": "wall_s"}).to_string(float_format=lambda x: f"{x:.1f}"))


if __name__ == "__main__":
    main()
