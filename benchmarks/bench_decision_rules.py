"""A researcher's own decision rule against the built-in rule it copies, in one run.

The Fig. 1 panel (12 curves: oracle, bernstein and optimistic at eps 1, 2, 4, inf) runs
twice, interleaved: once as built, once with the Bernstein curves drawn by
``experiments/rules/bernstein.py`` (a copy written as a user's rule file, compiled into
the same kernel through ``colme.ccolme.decision_rules``).  Prints the CPU and the vector
ISA Numba compiles for, both rates in config-edge-updates per second per core (CPU
seconds, best of ``--repeat``) and their ratio (the target: >= 0.9), and checks that both
panels give the same numbers bit for bit.  Then the same for Private-ColME: a panel of
known-variance (z-test) and estimated-variance (Welch test) curves, once with the paper's
test and once with ``experiments/rules/private_colme.py``'s copy of it
(``colme.private_colme.decision_rules``), in agent-steps per second per core.  Usage:

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
from colme.private_colme import decision_rules as private_rules
from colme.private_colme.kernel import simulate_colme_runs
from colme.private_colme.spec import ColmeCurve, ColmeSpec
from colme.seeding import run_generator

RULES = Path(__file__).resolve().parents[1] / "experiments" / "rules"
RULE_FILE = RULES / "bernstein.py"


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

    private_colme(args)


def private_colme(args) -> None:
    """Private-ColME (M = 200): the paper's test against the user's copy of it, in one run."""
    n_agents, t_max = 200, max(args.t_max // 10, 10)
    curves = tuple(ColmeCurve(schedule, "pm1", "last", "gaussian", variance=variance)
                   for schedule in ("rr", "rrr") for variance in ("known", "schvar2"))
    paper = ColmeSpec(n_agents=n_agents, curves=curves, t_record=np.array([t_max]))
    copy = private_rules.user_rule({"file": str(RULES / "private_colme.py"), "function": "z_test_copy"}, "benchmark")
    panels = {"paper's test": paper, "user copy": dataclasses.replace(paper, decision_rule=copy)}
    classes = np.random.default_rng(1).integers(0, 2, size=(args.runs, n_agents))

    def run(spec, runs):
        generators = [run_generator(1, "bench", r, "data") for r in range(runs)]
        start = time.process_time()
        mse = simulate_colme_runs(spec, classes[:runs], generators)
        return time.process_time() - start, mse

    for spec in panels.values():  # compile first
        run(dataclasses.replace(spec, t_record=np.array([3])), 1)
    best, results = {}, {}
    for _ in range(args.repeat):
        for name, spec in panels.items():
            seconds, results[name] = run(spec, args.runs)
            best[name] = min(best.get(name, math.inf), seconds)
    steps = n_agents * len(curves) * t_max * args.runs
    builtin, own = (steps / best[name] for name in panels)
    same = np.array_equal(*results.values())
    print(f"private_colme M={n_agents} t={t_max}: paper's test {builtin:.3e}, user copy {own:.3e} "
          f"agent-steps/s/core: x{own / builtin:.3f} (target >= 0.9); numbers {'bit-identical' if same else 'DIFFER'}",
          flush=True)


if __name__ == "__main__":
    main()
