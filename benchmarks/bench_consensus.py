"""Throughput of the Private-C-ColME kernel and projected paper-fidelity wall time.

Prints the CPU, its vector ISA and the one Numba compiles for (``NUMBA_CPU_NAME`` /
``NUMBA_CPU_FEATURES``), the lanes per kernel call, and config-edge-updates per second
per core for each (r, precision), where one config-edge-update is one (agent a, neighbour
b in N_a, curve) triple processed in one time step, i.e. a panel with M agents, degree r
and C curves does M*r*C of them per step.  Seconds are CPU seconds of this process (best
of ``--repeat``), so other load on a shared machine disturbs them less than wall time.
``--baseline REF`` also measures the kernel of git revision REF in the same process,
interleaved, and prints the ratio.  Each line also gives the mixed kernel's rate on the
same panel (every curve a 100% privacy mix at its eps: the same numbers through the
variant that serves per-class laws and privacy mixes, ``kernel_source(mixed=True)``) and
its ratio to the shared kernel, and the grouped kernel's (the MSE also recorded per class,
``kernel_source(grouped=True)``, ``groups: {by: [class]}``) and its ratio.  Usage:

    python benchmarks/bench_consensus.py [--t-max 3000] [--runs 2] [--dtypes float32 float64]
        [--baseline d3a38a9]

Another CPU on this machine: ``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=<host features
without avx512*>`` (the name alone keeps the host's AVX-512 features), with a private
``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from baseline import CCOLME_KERNEL_MODULES, cpu_description, load_baseline, spec_module

from colme.ccolme import kernel as consensus
from colme.ccolme.kernel import lane_groups
from colme.ccolme.spec import Curve, PanelSpec
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.seeding import run_generator

PAPER_RUNS = 4000
PAPER_T_MAX = 30_000
THETA_K = {5: {1.0: 8, 2.0: 7, 4.0: 7, math.inf: 7}, 20: {1.0: 7, 2.0: 6, 4.0: 5, math.inf: 5}}


def panel(degree: int, t_max: int, module=consensus) -> PanelSpec:
    """The 12-curve Fig. 1 panel, in the spec classes of the kernel ``module`` (this
    revision's or a baseline's, ``baseline.spec_module``)."""
    spec = spec_module(module)
    curves = tuple(
        spec.Curve(rule, eps, THETA_K[degree][eps] if rule == "bernstein" else math.nan)
        for rule in ("oracle", "bernstein", "optimistic")
        for eps in (1.0, 2.0, 4.0, math.inf)
    )
    grid = np.unique(np.geomspace(1, t_max, 200).astype(np.int64))
    return spec.PanelSpec(n_agents=200, degree=degree, curves=curves, t_record=grid)


def instances(degree: int, runs: int):
    population = Population()
    rngs = [run_generator(1, "bench", run, "instance") for run in range(runs)]
    classes = np.stack([population.assign(200, g) for g in rngs])
    edges = np.stack([random_regular_edges(degree, 200, g) for g in rngs])
    return classes, edges


def mixed_panel(spec: PanelSpec) -> PanelSpec:
    """The same panel with every curve a 100% mix at its eps (the mixed kernel)."""
    curves = tuple(Curve(c.rule, math.nan, c.theta_k, ((c.eps, 1.0),)) for c in spec.curves)
    return PanelSpec(n_agents=spec.n_agents, degree=spec.degree, curves=curves, t_record=spec.t_record)


def grouped_panel(spec: PanelSpec) -> PanelSpec:
    """The same panel recording the MSE per class too (the grouped kernel)."""
    return PanelSpec(n_agents=spec.n_agents, degree=spec.degree, curves=spec.curves, t_record=spec.t_record,
                     groups=("class",))


def cpu_seconds(module, spec, classes, edges, dtype) -> float:
    generators = [run_generator(1, "bench", r, "data") for r in range(classes.shape[0])]
    extra = {"privacy_ranks": np.tile(np.arange(200), (classes.shape[0], 1))} if spec.mixed else {}
    if getattr(spec, "groups", ()):
        shape = (classes.shape[0], len(spec.curves), spec.n_groups)
        extra |= {"group_sums": np.empty((*shape, len(spec.t_record))), "group_counts": np.empty(shape, np.int64)}
    start = time.process_time()
    module.simulate_runs(spec, classes, edges, generators, dtype, **extra)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-max", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many measurements")
    parser.add_argument("--dtypes", nargs="+", choices=("float32", "float64"),
                        default=["float32", "float64"])
    parser.add_argument("--dtype", choices=("float32", "float64"), help="one precision only")
    parser.add_argument("--baseline", help="git revision whose kernel to measure alongside")
    parser.add_argument("--cores", type=int, default=2, help="cores assumed for the projection")
    args = parser.parse_args()
    dtypes = [args.dtype] if args.dtype else args.dtypes
    modules = {"this": consensus}
    if args.baseline:
        modules[args.baseline] = load_baseline(args.baseline, CCOLME_KERNEL_MODULES)
    print(cpu_description())
    groups, lanes = lane_groups(12)
    print(f"lanes: {lanes} per kernel call ({groups} call(s) per run for 12 curves)")
    hours = {}
    for dtype_name in dtypes:
        dtype = np.dtype(dtype_name).type
        for degree in (20, 5):
            classes, edges = instances(degree, args.runs)
            best = {}
            for module in modules.values():  # compile, then interleave the measurements
                warm = panel(degree, 5, module)
                cpu_seconds(module, warm, classes[:1], edges[:1], dtype)
            cpu_seconds(consensus, mixed_panel(panel(degree, 5)), classes[:1], edges[:1], dtype)
            cpu_seconds(consensus, grouped_panel(panel(degree, 5)), classes[:1], edges[:1], dtype)
            for _ in range(args.repeat):
                for name, module in modules.items():
                    seconds = cpu_seconds(module, panel(degree, args.t_max, module), classes, edges, dtype)
                    best[name] = min(best.get(name, math.inf), seconds)
                seconds = cpu_seconds(consensus, mixed_panel(panel(degree, args.t_max)), classes, edges, dtype)
                best["mixed"] = min(best.get("mixed", math.inf), seconds)
                seconds = cpu_seconds(consensus, grouped_panel(panel(degree, args.t_max)), classes, edges, dtype)
                best["grouped"] = min(best.get("grouped", math.inf), seconds)
            updates = 200 * degree * 12 * args.t_max * args.runs
            rate = updates / best["this"]
            paper_updates = 200 * degree * 12 * PAPER_T_MAX * PAPER_RUNS
            hours[dtype_name, degree] = paper_updates / rate / args.cores / 3600
            line = (f"fig1 r={degree:2d} {dtype_name}: {rate:.3e} config-edge-updates/s/core; "
                    f"paper fidelity ({PAPER_RUNS} runs, t_max={PAPER_T_MAX}) on {args.cores} "
                    f"cores: {hours[dtype_name, degree]:.2f} h")
            line += f"; mixed kernel {updates / best['mixed']:.3e} (x{best['this'] / best['mixed']:.2f})"
            line += f"; grouped kernel {updates / best['grouped']:.3e} (x{best['this'] / best['grouped']:.2f})"
            if args.baseline:
                base = updates / best[args.baseline]
                line += f"; {args.baseline}: {base:.3e} (x{rate / base:.2f})"
            print(line, flush=True)
    for dtype_name in dtypes:
        total = hours[dtype_name, 20] + hours[dtype_name, 5]
        print(f"both fig1 panels at paper fidelity in {dtype_name} on {args.cores} cores: "
              f"{total:.2f} h (target <= 1.2 h on 2 AVX2 cores)")


if __name__ == "__main__":
    main()
