"""Data from a file against data drawn from a law, per agent-step, in the kernels that read
both: Private-C-ColME's (engine ``ccolme``, the mixed kernel: 12 curves, the three rules at
four eps) and C-ColME's (engine ``scalable``).

On a random 10-regular graph of M agents (two classes, Beta(2, 5) data of sigma 0.5), one
run of T steps per kernel: the law's draws, then a file of ``--samples`` draws of that law
per agent replayed ``in_order``, by ``permutation`` and by ``bootstrap`` (the same samples
and the same classes).  Prints the CPU and its vector ISA, agent-steps per second per core
(CPU seconds, best of ``--repeat``) and each file policy's time over the law's: the goal is
1.5 or less.  Usage:

    python benchmarks/bench_data_files.py [--agents 2000] [--t-max 2000] [--samples 100]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np
from baseline import cpu_description

from colme.ccolme.kernel import simulate_runs
from colme.ccolme.spec import Curve, PanelSpec
from colme.graphs import random_regular_edges
from colme.populations import DataLaw, Population
from colme.scalable.kernel import simulate_scalable_runs
from colme.scalable.spec import ScalableCurve, ScalableSpec

LAWS = Population(means=(0.0, 1.0), laws=(DataLaw("beta", 0.5, a=2.0, b=5.0),) * 2)
RULE_CURVES = tuple(Curve(rule, eps, 6.0 if rule == "bernstein" else math.nan)
                    for rule in ("oracle", "bernstein", "optimistic") for eps in (1.0, 2.0, 4.0, math.inf))


def data_file(folder: Path, classes: np.ndarray, samples: int, rng) -> Path:
    """A long file of ``samples`` draws of the law per agent (``DataLaw.sample``)."""
    path = folder / "draws.csv"
    lines = ["agent,t,value,class"]
    for a, c in enumerate(classes):
        values = LAWS.means[c] + LAWS.laws[c].sample(rng.random(samples))
        lines += [f"{a},{t + 1},{float(v)!r},{c}" for t, v in enumerate(values)]
    path.write_text("\n".join(lines) + "\n")
    return path


def seconds(run, repeat: int) -> float:
    run()  # compile
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=2000)
    parser.add_argument("--t-max", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(cpu_description())
    rng = np.random.default_rng(1)
    m, t_max = args.agents, args.t_max
    classes = rng.integers(0, 2, size=m).astype(np.int8)
    edges = random_regular_edges(10, m, rng)[None]
    t_record = np.array([t_max])
    with tempfile.TemporaryDirectory() as folder:
        path = data_file(Path(folder), classes, args.samples, rng)
        worlds = {"law": LAWS}
        for replay in ("in_order", "permutation", "bootstrap"):
            worlds[replay] = Population.from_settings({"data": {"kind": "file", "path": str(path), "replay": replay}})
        kernels = {
            "Private-C-ColME (12 curves)": lambda world: simulate_runs(
                PanelSpec(n_agents=m, degree=10, curves=RULE_CURVES, t_record=t_record, population=world),
                classes[None], edges, [np.random.default_rng(2)]),
            "C-ColME": lambda world: simulate_scalable_runs(
                ScalableSpec(n_agents=m, curves=(ScalableCurve("c_colme"),), t_record=t_record, population=world),
                classes[None], edges, [np.random.default_rng(2)]),
        }
        for name, kernel in kernels.items():
            law = None
            for world_name, world in worlds.items():
                spent = seconds(lambda world=world, kernel=kernel: kernel(world), args.repeat)
                line = f"{name:28s} {world_name:12s} {m * t_max / spent:.3e} agent-steps/s/core"
                if law is None:
                    law = spent
                else:
                    line += f", x{spent / law:.2f} the law's time"
                print(line)


if __name__ == "__main__":
    main()
