"""Throughput of the Private-C-ColME kernel and projected paper-fidelity wall time.

Prints config-edge-updates per second per core, where one config-edge-update is one
(agent a, neighbour b in N_a, curve) triple processed in one time step, i.e. a panel
with M agents, degree r and C curves does M*r*C of them per step.  Usage:

    python benchmarks/bench_consensus.py [--t-max 3000] [--runs 2] [--dtype float32]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from colme.consensus import Curve, PanelSpec, simulate_runs
from colme.graphs import random_regular_edges
from colme.populations import UniformClasses
from colme.seeding import run_generator

PAPER_RUNS = 4000
PAPER_T_MAX = 30_000
THETA_K = {5: {1.0: 8, 2.0: 7, 4.0: 7, math.inf: 7}, 20: {1.0: 7, 2.0: 6, 4.0: 5, math.inf: 5}}


def panel(degree: int, t_max: int) -> PanelSpec:
    curves = tuple(
        Curve(rule, eps, THETA_K[degree][eps] if rule == "bernstein" else math.nan)
        for rule in ("oracle", "bernstein", "optimistic")
        for eps in (1.0, 2.0, 4.0, math.inf)
    )
    grid = np.unique(np.geomspace(1, t_max, 200).astype(np.int64))
    return PanelSpec(n_agents=200, degree=degree, curves=curves, t_record=grid)


def measure(degree: int, t_max: int, runs: int, dtype) -> float:
    spec = panel(degree, t_max)
    population = UniformClasses()
    instance_rngs = [run_generator(1, "bench", run, "instance") for run in range(runs)]
    classes = np.stack([population.assign(spec.n_agents, g) for g in instance_rngs])
    edges = np.stack([random_regular_edges(degree, spec.n_agents, g) for g in instance_rngs])
    warm = PanelSpec(**{**spec.__dict__, "t_record": np.array([5])})
    simulate_runs(warm, classes[:1], edges[:1], [run_generator(1, "bench", 0, "data")], dtype)
    start = time.perf_counter()
    simulate_runs(
        spec, classes, edges, [run_generator(1, "bench", r, "data") for r in range(runs)], dtype
    )
    seconds = time.perf_counter() - start
    updates = spec.n_agents * degree * len(spec.curves) * t_max * runs
    return updates / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-max", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--cores", type=int, default=2, help="cores assumed for the projection")
    args = parser.parse_args()
    dtype = np.dtype(args.dtype).type
    total = 0.0
    for degree in (20, 5):
        rate = measure(degree, args.t_max, args.runs, dtype)
        paper_updates = 200 * degree * 12 * PAPER_T_MAX * PAPER_RUNS
        hours = paper_updates / rate / args.cores / 3600
        total += hours
        print(
            f"fig1 r={degree:2d} {args.dtype}: {rate:.3e} config-edge-updates/s/core; "
            f"paper fidelity ({PAPER_RUNS} runs, t_max={PAPER_T_MAX}) on {args.cores} cores: {hours:.2f} h"
        )
    print(f"both fig1 panels at paper fidelity on {args.cores} cores: {total:.2f} h (target <= 1.5 h)")


if __name__ == "__main__":
    main()
