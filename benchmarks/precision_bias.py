"""Paired float32-vs-float64 bias of the Private-C-ColME curves at the paper horizon.

Same instances and draws for both precisions; prints, per (r, curve, t), the relative bias
mean(MSE32 - MSE64) / mean(MSE64) and its paired standard error.  Usage:

    python benchmarks/precision_bias.py [--runs 24] [--t-max 30000] [--degrees 20 5]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from colme.ccolme.kernel import simulate_runs
from colme.ccolme.spec import Curve, PanelSpec
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.seeding import run_generator

THETA_K = {5: {2.0: 7, math.inf: 7}, 20: {2.0: 6, math.inf: 5}}


def paired_bias(degree: int, runs: int, t_max: int, n_agents: int = 200, seed: int = 1):
    curves = tuple(
        Curve(rule, eps, THETA_K[degree][eps] if rule == "bernstein" else math.nan)
        for rule in ("oracle", "bernstein")
        for eps in (math.inf, 2.0)
    )
    grid = np.array([t_max // 3, 2 * t_max // 3, t_max])
    spec = PanelSpec(n_agents=n_agents, degree=degree, curves=curves, t_record=grid)
    population = Population()
    rngs = [run_generator(seed, "precision", r, "instance") for r in range(runs)]
    classes = np.stack([population.assign(n_agents, g) for g in rngs])
    edges = np.stack([random_regular_edges(degree, n_agents, g) for g in rngs])
    out = {}
    for dtype in (np.float32, np.float64):
        gens = [run_generator(seed, "precision", r, "data") for r in range(runs)]
        out[dtype] = simulate_runs(spec, classes, edges, gens, dtype)
    diff = out[np.float32] - out[np.float64]
    scale = out[np.float64].mean(axis=0)
    bias = diff.mean(axis=0) / scale
    se = diff.std(axis=0, ddof=1) / math.sqrt(runs) / scale
    return curves, grid, bias, se


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=24)
    parser.add_argument("--t-max", type=int, default=30_000)
    parser.add_argument("--degrees", type=int, nargs="+", default=[20, 5])
    args = parser.parse_args()
    for degree in args.degrees:
        start = time.perf_counter()
        curves, grid, bias, se = paired_bias(degree, args.runs, args.t_max)
        for c, curve in enumerate(curves):
            cells = "  ".join(
                f"t={t}: {100 * bias[c, i]:+.2e}% +- {100 * se[c, i]:.1e}% ({bias[c, i] / se[c, i]:+.1f} se)"
                for i, t in enumerate(grid)
            )
            print(f"r={degree:2d} {curve.name:18s} {cells}", flush=True)
        print(f"r={degree} done in {time.perf_counter() - start:.0f} s ({args.runs} runs)", flush=True)


if __name__ == "__main__":
    main()
