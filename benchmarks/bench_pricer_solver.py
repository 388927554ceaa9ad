"""The table job of PriCER's SLSQP ablation (``pricer_fig3_solver``: problem (11) at
Algorithm 3's sigma_thr from 5 random starts, for every p_c and number of trusted
neighbours of config.yaml's Fig. 3) with this checkout's ``scipy_reference`` and with
another revision's, in turns, in one process: CPU seconds per table, their ratio, and how
far SLSQP stopped from Algorithm 3's value of (11).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_pricer_solver.py --baseline af1c0fb --repeat 2

One BLAS thread, as Snakemake runs its jobs: the solver's small products gain nothing from
more, and the ablation's last digits follow the threads' order of summation.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import yaml
from baseline import REPO, cpu_description, load_baseline

from colme.expansion import expand_config
from colme.pricer import figures
from colme.registry import stage_params
from colme.seeding import figure_generator, stream_name

FIGURE = "pricer_fig3_solver"


def ablation_table(params: dict, solver) -> tuple[float, float]:
    """CPU seconds of the ablation's table with ``solver`` as its SLSQP reference, and the
    largest |SLSQP / Algorithm 3 - 1| over its rows."""
    figures.scipy_reference = solver
    start = time.process_time()
    table = figures.table_for(params, figure_generator(params["seed"], stream_name(params, FIGURE)))
    seconds = time.process_time() - start
    reference = table[table["kind"] == "reference"]["mse"].to_numpy()
    algorithm3 = table[table["kind"] == "algorithm3"]["mse"].to_numpy()
    return seconds, float(np.abs(reference / algorithm3 - 1).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git revision whose scipy_reference to compare against")
    parser.add_argument("--repeat", type=int, default=2, help="rounds, each running both solvers in turn")
    args = parser.parse_args()
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    params = stage_params(expand_config(config).settings[FIGURE], "table")
    solvers = {
        f"{args.baseline} (baseline)": load_baseline(args.baseline, ("pricer.optimisation",)).scipy_reference,
        "this checkout": figures.scipy_reference,
    }
    print(cpu_description())
    best = {}
    for round_ in range(args.repeat):
        for name, solver in solvers.items():
            seconds, gap = ablation_table(params, solver)
            best[name] = min(best.get(name, np.inf), seconds)
            print(f"round {round_}: {name:24s} {seconds:6.1f} CPU-s, largest |SLSQP / Algorithm 3 - 1| = {gap:.2e}")
    baseline, current = best.values()
    print(f"best of {args.repeat}: {current:.1f} against {baseline:.1f} CPU-s (x{baseline / current:.2f} faster)")


if __name__ == "__main__":
    main()
