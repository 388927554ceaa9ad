"""Throughput of the Private-ColME engine (seed 004) and projected paper-fidelity times.

One agent-step = one agent receiving a sample, querying one agent (p-sum release, T and
Var[T] update) and re-testing it; with ``--retest every_step`` each step also re-tests
all M - 1 pairs.  Prints agent-steps/s per core and the projected time of fig2_sim
(8 curves x 20 runs x t_max 3e4, M = 200), fig3_varest (5 curves incl. the unknown-variance
schemes, 20 runs) and fig4_laplace (4 curves x 100 runs, M = 15).

    python benchmarks/bench_queries.py [--t-max 3000] [--retest query]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from colme.populations import UniformClasses
from colme.private_colme.kernel import ColmeCurve, ColmeSpec, simulate_colme_runs
from colme.seeding import run_generator

FIG2_CURVES = tuple(
    ColmeCurve(s, m, w) for s in ("rr", "rrr") for m in ("pm1", "pm2") for w in ("mom", "last")
)


def rate(n_agents: int, curves, t_max: int, retest: str) -> float:
    grid = np.unique(np.geomspace(1, t_max, 300).astype(np.int64))
    spec = ColmeSpec(n_agents=n_agents, curves=curves, t_record=grid, retest=retest)
    classes = UniformClasses().assign(n_agents, run_generator(1, "bench", 0, "instance"))[None]
    warm = ColmeSpec(n_agents=n_agents, curves=curves, t_record=np.array([3]), retest=retest)
    simulate_colme_runs(warm, classes, [run_generator(1, "bench", 0, "data")])
    start = time.perf_counter()
    simulate_colme_runs(spec, classes, [run_generator(1, "bench", 0, "data")])
    return len(curves) * n_agents * t_max / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-max", type=int, default=3000)
    parser.add_argument("--retest", choices=("query", "every_step"), default="query")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    fig4_curves = tuple(ColmeCurve("rr", m, "last", n) for m in ("pm1", "pm2") for n in ("gaussian", "laplace"))
    fig3_curves = (
        *(ColmeCurve(variance=v) for v in ("known", "schvar1", "schvar2", "schvar2_bayes")),
        ColmeCurve(weights="mom"),
    )
    panels = (
        ("fig2_sim", 200, FIG2_CURVES, 20),
        ("fig3_varest", 200, fig3_curves, 20),
        ("fig4_laplace", 15, fig4_curves, 100),
    )
    for name, n_agents, curves, runs in panels:
        steps_per_second = rate(n_agents, curves, args.t_max, args.retest)
        total = len(curves) * runs * 30_000 * n_agents
        print(
            f"{name} (retest={args.retest}): {steps_per_second:.3e} agent-steps/s/core; "
            f"paper fidelity on "
            f"{args.cores} cores: {total / steps_per_second / args.cores / 60:.1f} min"
        )


if __name__ == "__main__":
    main()
