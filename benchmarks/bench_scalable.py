"""C-ColME and B-ColME (colme.scalable): cost per agent-step against the depth d and M, and,
with ``--simulator``, against the authors' public C++ simulator in the same run.

For each M (random 10-regular graph, two classes, data N(mu, 2^2) as a normal truncated at
10 sigma, the authors' definitions), one run of T steps per curve: C-ColME and B-ColME at
d = 1, 2, 3.  Prints the CPU and the vector ISA, CPU seconds per curve, agent-steps per
second per core, and B-ColME's cost relative to C-ColME's.  With ``--simulator PATH`` (the
``sim_driver`` that validation/galante_aaai25/run_simulator.sh builds), the same setting
runs through the simulator at each M up to ``--simulator-max-agents`` (one process per
algorithm; its time includes its graph generation, its oracle and its per-step evaluation,
as colme's includes its own graph-independent set-up and MSE), and the ratio is printed.
``--baseline REV`` also measures the kernel of git revision REV in the same process, on the
same graphs and draws (best of ``--repeat`` each, the two kernels taking turns, so that a
drift of the machine's speed hits both), and prints this kernel's rate over it.
``--panel`` measures instead, at each M, one run of the eight curves of the default suite's
baselines (C-ColME and B-ColME d = 1, 2, 3, each at eps = inf and eps = 1) in one call, as a
figure's simulate job runs them (the kernel runs a run's curves in lockstep: the draws once
per step, the decisions once per rule and eps), in nanoseconds of CPU per curve-agent-step.
Usage:

    python benchmarks/bench_scalable.py [--agents 1000 10000 100000] [--t-max 200]
        [--simulator /tmp/galante-sim/colme_scalable_algorithms/build/sim_driver] [--baseline 49d9dc0]
        [--panel]
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import tempfile
import time

import numpy as np
from baseline import cpu_description, load_baseline, spec_module

from colme.graphs import random_regular_edges
from colme.scalable import kernel as this_kernel
from colme.scalable.spec import ScalableCurve

CURVES = (ScalableCurve("c_colme"), *(ScalableCurve("b_colme", depth) for depth in (1, 2, 3)))


def population(kernel=this_kernel):
    """Two classes, data N(mu, 2^2) truncated at 10 sigma, as the revision of ``kernel``
    (a ``scalable.kernel`` module) writes a population: its kernel reads its own."""
    populations = importlib.import_module(kernel.__name__.split(".")[0] + ".populations")
    return populations.Population(means=(0.0, 1.0), laws=(populations.DataLaw("truncated_normal", 2.0, 10.0),) * 2)

DEGREE = 10
KERNEL_MODULES = ("scalable.kernel",)


#: The default suite's baselines panel: each curve at eps = inf, then at eps = 1.
PANEL = tuple(ScalableCurve(curve.algorithm, curve.depth, eps=eps) for eps in (np.inf, 1.0) for curve in CURVES)


def colme_seconds(n_agents: int, t_max: int, curves: tuple[ScalableCurve, ...], kernel=this_kernel) -> float:
    """CPU seconds of one run of ``curves`` in one call with ``kernel`` (a revision's
    ``scalable.kernel`` module, compiled beforehand)."""
    spec_of = spec_module(kernel)
    rng = np.random.default_rng(n_agents)
    classes = rng.integers(0, 2, size=(1, n_agents))
    edges = random_regular_edges(DEGREE, n_agents, rng)[None]
    theirs = tuple(spec_of.ScalableCurve(curve.algorithm, curve.depth, curve.rule, curve.eps) for curve in curves)
    spec = spec_of.ScalableSpec(n_agents=n_agents, curves=theirs, t_record=np.array([t_max]),
                                population=population(kernel))
    start = time.process_time()
    kernel.simulate_scalable_runs(spec, classes, edges, [np.random.default_rng(1)])
    return time.process_time() - start


def best_seconds(n_agents: int, t_max: int, curves: tuple[ScalableCurve, ...], kernels: dict,
                 repeat: int) -> dict[str, float]:
    """The best of ``repeat`` ``colme_seconds`` per kernel (name: module), the kernels
    taking turns."""
    best = dict.fromkeys(kernels, np.inf)
    for _ in range(repeat):
        for name, kernel in kernels.items():
            best[name] = min(best[name], colme_seconds(n_agents, t_max, curves, kernel))
    return best


def simulator_seconds(binary: str, n_agents: int, t_max: int, curve: ScalableCurve) -> float:
    """Wall seconds of one simulator process on the same setting (its own graph and data)."""
    algorithm = "consensus" if curve.algorithm == "c_colme" else "belief_propagation_v1"
    up_to = str(curve.depth + 1 if curve.depth else 2)
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "mse.csv")
        start = time.perf_counter()
        subprocess.run([binary, algorithm, "1", str(n_agents), str(DEGREE), str(t_max), "2", "0.1", up_to, "0.5", out],
                       cwd=folder, env={**os.environ, "SIM_NO_LOG": "1"}, check=True, capture_output=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--t-max", type=int, default=200)
    parser.add_argument("--simulator", default=None, help="the authors' simulator's sim_driver, to compare with")
    parser.add_argument("--simulator-max-agents", type=int, default=10000)
    parser.add_argument("--baseline", help="git revision whose kernel to measure alongside")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per kernel")
    parser.add_argument("--panel", action="store_true", help="the eight curves of the baselines panel in one call")
    args = parser.parse_args()
    print(cpu_description())
    kernels = {"this": this_kernel}
    if args.baseline:
        kernels[args.baseline] = load_baseline(args.baseline, KERNEL_MODULES)
    for kernel in kernels.values():
        for curves in [PANEL] if args.panel else [(curve,) for curve in CURVES]:  # compile
            colme_seconds(100, 3, curves, kernel)
    if args.panel:
        measure_panel(args, kernels)
        return
    for n_agents in args.agents:
        steps = n_agents * args.t_max
        base = None
        for curve in CURVES:
            best = best_seconds(n_agents, args.t_max, (curve,), kernels, args.repeat)
            seconds = best["this"]
            base = seconds if base is None else base
            line = (f"M={n_agents:>7d} r={DEGREE} T={args.t_max} {curve.name:<18s} colme {seconds:8.3f} s, "
                    f"{steps / seconds:.3e} agent-steps/s/core, x{seconds / base:.2f} C-ColME's time")
            if args.baseline:
                theirs = best[args.baseline]
                line += f"; {args.baseline}: {steps / theirs:.3e}/s (this x{theirs / seconds:.2f})"
            if args.simulator and n_agents <= args.simulator_max_agents:
                theirs = simulator_seconds(args.simulator, n_agents, args.t_max, curve)
                line += f"; simulator {theirs:8.3f} s ({steps / theirs:.3e}/s): colme x{theirs / seconds:.1f} faster"
            print(line, flush=True)


def measure_panel(args, kernels: dict) -> None:
    """``--panel``: the eight curves in one call per M, this kernel and the baseline's."""
    for n_agents in args.agents:
        steps = n_agents * args.t_max * len(PANEL)
        best = best_seconds(n_agents, args.t_max, PANEL, kernels, args.repeat)
        seconds = best["this"]
        line = (f"M={n_agents:>7d} r={DEGREE} T={args.t_max} panel of {len(PANEL)} curves: colme {seconds:8.3f} s, "
                f"{1e9 * seconds / steps:.1f} ns per curve-agent-step")
        if args.baseline:
            theirs = best[args.baseline]
            line += f"; {args.baseline}: {1e9 * theirs / steps:.1f} ns (this x{theirs / seconds:.2f} faster)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
