"""The kernels against those of a git revision: the same numbers, bit for bit.

Runs 12 panels through both kernels in one process (the revision's ``src/colme`` loaded as
``colme_baseline``, see ``baseline.load_baseline``): degree r = 20 / 5 / 10 with the
floor10 / theory / floor10 schedules and per-agent / global / no clock reset, each with the
shared kernel (the papers' uniform laws, eps 1 and inf) and the mixed one (per-class Beta
laws and a 30/70 privacy mix), in float32 and float64; M = 200, 2 runs, MSE and
diagnostics recorded up to t = ``--t-max``; this kernel in both its layouts (the small
graphs' and the large graphs' one, ``kernel_source``), forced at M = 200.  Then C-ColME
and B-ColME d = 1..3 (``scalable``: 8 curves, several of one rule and eps, and the oracle)
and four Private-ColME curves (PM-I, PM-II MoM, Sch-Var-2, the oracle) on per-class Beta
laws at M = 60, up to t = min(t_max, 1000).
Exits non-zero at the first panel that differs.  For kernel work (layouts, step splits,
arguments) that must not move a number.  Usage:

    python benchmarks/bit_identity.py REV [--t-max 3000]

(REV's own kernel has one layout where it predates them.)
"""

from __future__ import annotations

import argparse
import importlib
import math

import numpy as np
from baseline import load_baseline, spec_module

from colme import populations
from colme.ccolme import kernel
from colme.graphs import random_regular_edges
from colme.instances import privacy_ranks
from colme.seeding import run_generator

#: (degree, alpha schedule, alpha reset) of the panels.
PANELS = ((20, "floor10", "per_agent"), (5, "theory", "global"), (10, "floor10", "none"))
MIX = ((1.0, 0.3), (math.inf, 0.7))
N_AGENTS, RUNS = 200, 2


def curves(module, mixed: bool) -> tuple:
    """3 rules x eps 1 and inf, and with ``mixed`` the 3 rules of a privacy mix (``module``:
    the spec module, ``baseline.spec_module``)."""
    out = [module.Curve(rule, eps, k if rule == "bernstein" else math.nan)
           for eps, k in ((1.0, 7.0), (math.inf, 6.0)) for rule in ("oracle", "bernstein", "optimistic")]
    if mixed:
        out += [module.Curve(rule, math.nan, 6.0 if rule == "bernstein" else math.nan, MIX)
                for rule in ("oracle", "bernstein", "optimistic")]
    return tuple(out)


def run(module, population_module, panel, mixed: bool, dtype, t_max: int, **layout):
    """(MSE, diagnostics) of one panel through ``module``'s kernel."""
    degree, schedule, reset = panel
    spec_code = spec_module(module)
    laws = (tuple(population_module.DataLaw("beta", s, a=2.0, b=5.0) for s in (0.3, 0.5, 0.4)) if mixed
            else (population_module.DataLaw(),) * 3)
    population = population_module.Population(laws=laws)
    classes = np.stack([population.assign(N_AGENTS, run_generator(1, "bits", r, "instance")) for r in range(RUNS)])
    edges = np.stack([random_regular_edges(degree, N_AGENTS, run_generator(2, "bits", r, "instance"))
                      for r in range(RUNS)])
    record = np.unique(np.geomspace(1, t_max, 6).astype(np.int64))
    spec = spec_code.PanelSpec(n_agents=N_AGENTS, degree=degree, curves=curves(spec_code, mixed), t_record=record,
                               population=population, alpha_schedule=schedule, alpha_reset=reset)
    diagnostics = np.empty((RUNS, len(spec.curves), 3, len(record)))
    mse = module.simulate_runs(
        spec, classes, edges, [run_generator(1, "bits", r, "data") for r in range(RUNS)], dtype, diagnostics,
        privacy_ranks=privacy_ranks(N_AGENTS, "bits", range(RUNS), 1) if mixed else None, **layout,
    )
    return mse, diagnostics


def other_kernels(package: str, t_max: int) -> dict[str, tuple]:
    """(MSE, diagnostics) of C-ColME and B-ColME d = 1..3 (``scalable``) and of four
    Private-ColME curves (``private_colme``) through ``package``'s kernels (``colme`` or
    ``colme_baseline``): per-class Beta laws, eps 1, 2 and inf, M = 60, 2 runs."""
    populations = importlib.import_module(f"{package}.populations")
    population = populations.Population(means=(0.2, 0.4, 0.8), laws=tuple(
        populations.DataLaw("beta", s, a=2.0, b=5.0) for s in (0.3, 0.5, 0.4)))
    agents = 60
    classes = np.stack([population.assign(agents, run_generator(1, "bits", r, "instance")) for r in range(RUNS)])
    edges = np.stack([random_regular_edges(6, agents, run_generator(2, "bits", r, "instance")) for r in range(RUNS)])
    record = np.unique(np.geomspace(1, t_max, 6).astype(np.int64))
    found = {}
    scalable = importlib.import_module(f"{package}.scalable.kernel")
    spec_code = spec_module(scalable)
    curves = (spec_code.ScalableCurve("c_colme"), spec_code.ScalableCurve("c_colme", 0, "optimistic", 1.0),
              *(spec_code.ScalableCurve("b_colme", d, "optimistic", 2.0) for d in (1, 2, 3)),
              spec_code.ScalableCurve("b_colme", 2, "optimistic", 1.0), spec_code.ScalableCurve("c_colme", 0, "oracle"),
              spec_code.ScalableCurve("b_colme", 3, "oracle"))
    spec = spec_code.ScalableSpec(n_agents=agents, curves=curves, t_record=record, population=population)
    diagnostics = np.empty((RUNS, len(curves), len(spec_code.DIAGNOSTICS), len(record)))
    generators = [run_generator(1, "bits", r, "data") for r in range(RUNS)]
    found["C-ColME and B-ColME d = 1..3"] = (
        scalable.simulate_scalable_runs(spec, classes, edges, generators, diagnostics), diagnostics)
    private = importlib.import_module(f"{package}.private_colme.kernel")
    spec_code = spec_module(private)
    curves = (spec_code.ColmeCurve(noise="laplace"), spec_code.ColmeCurve("rrr", "pm2", "mom", "laplace"),
              spec_code.ColmeCurve(variance="schvar2", noise="laplace"),
              spec_code.ColmeCurve(noise="laplace", oracle=True))
    spec = spec_code.ColmeSpec(n_agents=agents, curves=curves, t_record=record, eps=2.0, population=population)
    diagnostics = np.empty((RUNS, len(curves), len(spec_code.DIAGNOSTICS), len(record)))
    found["Private-ColME"] = (private.simulate_colme_runs(spec, classes, generators, diagnostics), diagnostics)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="git revision whose kernel to compare with")
    parser.add_argument("--t-max", type=int, default=3000)
    args = parser.parse_args()
    baseline = load_baseline(args.revision, ("ccolme.kernel",))
    baseline_populations = importlib.import_module("colme_baseline.populations")
    checked = 0
    theirs = other_kernels("colme_baseline", min(args.t_max, 1000))
    for where, mine in other_kernels("colme", min(args.t_max, 1000)).items():
        if not (np.array_equal(mine[0], theirs[where][0])
                and np.array_equal(mine[1], theirs[where][1], equal_nan=True)):
            raise SystemExit(f"{where}: MSE or diagnostics differ from {args.revision}")
        checked += 1
        print(f"{where}: bit-identical to {args.revision}", flush=True)
    for panel in PANELS:
        for mixed in (False, True):
            for dtype in (np.float32, np.float64):
                theirs = run(baseline, baseline_populations, panel, mixed, dtype, args.t_max)
                for large in (False, True):
                    mine = run(kernel, populations, panel, mixed, dtype, args.t_max, large=large)
                    where = (f"r={panel[0]} {panel[1]} reset={panel[2]} {'mixed' if mixed else 'shared'} "
                             f"{dtype.__name__} {'large' if large else 'small'} layout")
                    if not np.array_equal(mine[0], theirs[0]):
                        raise SystemExit(f"{where}: MSE differs from {args.revision}")
                    if not np.array_equal(mine[1], theirs[1], equal_nan=True):
                        raise SystemExit(f"{where}: diagnostics differ from {args.revision}")
                    checked += 1
                    print(f"{where}: bit-identical to {args.revision}", flush=True)
    print(f"{checked} panels bit-identical to {args.revision} up to t = {args.t_max}")


if __name__ == "__main__":
    main()
