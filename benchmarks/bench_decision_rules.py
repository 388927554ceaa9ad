"""A researcher's own decision rule against the built-in rule it copies, in one run.

The Fig. 1 panel (12 curves: oracle, bernstein and optimistic at eps 1, 2, 4, inf) runs
twice, interleaved: once as built, once with the Bernstein curves drawn by
``experiments/rules/bernstein.py`` (a copy written as a user's rule file, compiled into
the same kernel through ``colme.ccolme.decision_rules``).  Prints the CPU and the vector
ISA Numba compiles for, both rates in config-edge-updates per second per core (CPU
seconds, best of ``--repeat``) and their ratio (the target: >= 0.9), and checks that both
panels give the same numbers bit for bit.  Usage:

    python benchmarks/bench_decision_rules.py [--t-max 3000] [--runs 2] [--repeat 3] [--dtype float32]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from pathlib import Path

import numpy as np
from baseline import cpu_description
from bench_consensus import instances, panel

from colme.ccolme.decision_rules import user_rule
from colme.ccolme.kernel import simulate_runs
from colme.seeding import run_generator

RULE_FILE = Path(__file__).resolve().parents[1] / "experiments" / "rules" / "bernstein.py"


def own_panel(spec):
    """The panel with every Bernstein curve drawn by the user's copy of the rule."""
    rule = user_rule("bernstein_copy", {"file": str(RULE_FILE), "function": "bernstein_copy"}, "benchmark")
    curves = tuple(dataclasses.replace(c, rule=rule.name) if c.rule == "bernstein" else c for c in spec.curves)
    return dataclasses.replace(spec, curves=curves, user_rules=(rule,))


def timed(spec, classes, edges, dtype) -> tuple[float, np.ndarray]:
    generators = [run_generator(1, "bench", r, "data") for r in range(classes.shape[0])]
    start = time.process_time()
    mse = simulate_runs(spec, classes, edges, generators, dtype)
    return time.process_time() - start, mse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-max", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many measurements")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    args = parser.parse_args()
    dtype = np.dtype(args.dtype).type
    print(cpu_description())
    for degree in (20, 5):
        classes, edges = instances(degree, args.runs)
        panels = {"built-in bernstein": panel(degree, args.t_max), "user copy": own_panel(panel(degree, args.t_max))}
        for spec in panels.values():  # compile first
            timed(dataclasses.replace(spec, t_record=np.array([1, 2, 5])), classes[:1], edges[:1], dtype)
        best, results = {}, {}
        for _ in range(args.repeat):
            for name, spec in panels.items():
                seconds, results[name] = timed(spec, classes, edges, dtype)
                best[name] = min(best.get(name, math.inf), seconds)
        updates = 200 * degree * 12 * args.t_max * args.runs
        builtin, own = (updates / best[name] for name in panels)
        same = np.array_equal(*results.values())
        print(f"fig1 r={degree:2d} {args.dtype}: built-in bernstein {builtin:.3e}, user copy {own:.3e} "
              f"config-edge-updates/s/core: x{own / builtin:.3f} (target >= 0.9); "
              f"numbers {'bit-identical' if same else 'DIFFER'}", flush=True)


if __name__ == "__main__":
    main()
