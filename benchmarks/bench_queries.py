"""Throughput of the Private-ColME engine (arXiv:2411.07094) and projected paper-fidelity times.

One agent-step = one agent receiving a sample, querying one agent (p-sum release, T and
Var[T] update) and re-testing it; with ``--retest every_step`` each step also re-tests
all M - 1 pairs.  Prints the CPU and the ISA Numba compiles for, agent-steps/s per core and
the projected time of fig2_sim (8 curves x 20 runs x t_max 3e4, M = 200), fig3_varest
(5 curves incl. the unknown-variance schemes, 20 runs) and fig4_laplace (4 curves x 100
runs, M = 15).  Seconds are CPU seconds of this process (best of ``--repeat``).
``--baseline REF`` also measures the kernel of git revision REF in the same process,
interleaved, and prints the ratio.  Usage:

    python benchmarks/bench_queries.py [--t-max 3000] [--retest query] [--repeat 3]
        [--baseline d3a38a9]
"""

from __future__ import annotations

import argparse
import importlib
import math
import time
from types import SimpleNamespace

import numpy as np
from baseline import cpu_description, load_baseline, spec_module

from colme.private_colme import kernel

#: Where the kernel module lives, newest layout first: ``colme.private_colme.kernel`` since
#: the one-home-per-paper restructure (666d3f3), ``colme.queries`` up to d3a38a9.
KERNEL_MODULES = ("private_colme.kernel", "queries")

#: Panel name -> (agents M, curves as ColmeCurve keyword arguments, runs at paper fidelity).
PANELS = {
    "fig2_sim": (
        200,
        [dict(schedule=s, mechanism=m, weights=w)
         for s in ("rr", "rrr") for m in ("pm1", "pm2") for w in ("mom", "last")],
        20,
    ),
    "fig3_varest": (
        200,
        [*(dict(variance=v) for v in ("known", "schvar1", "schvar2", "schvar2_bayes")), dict(weights="mom")],
        20,
    ),
    "fig4_laplace": (
        15,
        [dict(schedule="rr", mechanism=m, weights="last", noise=n)
         for m in ("pm1", "pm2") for n in ("gaussian", "laplace")],
        100,
    ),
}


def engine(module) -> SimpleNamespace:
    """The kernel ``module`` with its spec module (``baseline.spec_module``) and the
    ``populations`` and ``seeding`` of its own root package (``colme`` or ``colme_baseline``)."""
    package = module.__name__.split(".")[0]
    return SimpleNamespace(
        kernel=module,
        spec=spec_module(module),
        populations=importlib.import_module(f"{package}.populations"),
        seeding=importlib.import_module(f"{package}.seeding"),
    )


def cpu_seconds(code: SimpleNamespace, n_agents: int, curves: list[dict], t_record: np.ndarray, retest: str) -> float:
    """CPU seconds of one run of the panel, recorded at ``t_record``, with ``code``'s kernel."""
    spec = code.spec.ColmeSpec(
        n_agents=n_agents,
        curves=tuple(code.spec.ColmeCurve(**curve) for curve in curves),
        t_record=t_record,
        retest=retest,
    )
    instance = code.seeding.run_generator(1, "bench", 0, "instance")
    classes = code.populations.Population().assign(n_agents, instance)[None]
    generators = [code.seeding.run_generator(1, "bench", 0, "data")]
    start = time.process_time()
    code.kernel.simulate_colme_runs(spec, classes, generators)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-max", type=int, default=3000)
    parser.add_argument("--retest", choices=("query", "every_step"), default="query")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many measurements")
    parser.add_argument("--baseline", help="git revision whose Private-ColME kernel to measure alongside")
    parser.add_argument("--cores", type=int, default=2, help="cores assumed for the projection")
    args = parser.parse_args()
    codes = {"this": engine(kernel)}
    if args.baseline:
        codes[args.baseline] = engine(load_baseline(args.baseline, KERNEL_MODULES))
    print(cpu_description(), flush=True)
    grid = np.unique(np.geomspace(1, args.t_max, 300).astype(np.int64))
    for name, (n_agents, curves, runs) in PANELS.items():
        best = {}
        for code in codes.values():  # compile, then interleave the measurements
            cpu_seconds(code, n_agents, curves, np.array([3]), args.retest)
        for _ in range(args.repeat):
            for label, code in codes.items():
                seconds = cpu_seconds(code, n_agents, curves, grid, args.retest)
                best[label] = min(best.get(label, math.inf), seconds)
        steps = len(curves) * n_agents * args.t_max
        rate = steps / best["this"]
        total = len(curves) * runs * 30_000 * n_agents
        line = (f"{name} (retest={args.retest}): {rate:.3e} agent-steps/s/core; "
                f"paper fidelity on {args.cores} cores: {total / rate / args.cores / 60:.1f} min")
        if args.baseline:
            base = steps / best[args.baseline]
            line += f"; {args.baseline}: {base:.3e} (x{rate / base:.2f})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
