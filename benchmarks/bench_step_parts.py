"""What each part of a Private-C-ColME step costs: the kernel with one part removed, A/B.

Each variant is today's generated kernel with a textual change that drops (or simplifies)
one part of a time step, so it computes other numbers: these are timing ablations, not
layouts (``bench_layouts.py`` holds those, each bit-identical).  The difference to
``today`` bounds what any rewrite of that part can gain.  Variants:

* ``no-receive``: no sample or noise drawn after t = 1 (``receive``: two SplitMix64
  draws, the sample and the Laplace inverse CDF, a scalar libm ``log``, per agent);
* ``no-log``: the noise draw's uniform accumulated instead of its Laplace inversion;
* ``no-cap``: the weight rule's cap q_a replaced by |C_a| (no division);
* ``no-clock``: alpha's step size 1/(block + 2) replaced by the clock itself, and no
  clock reset (no floor, division or select);
* ``no-scatter``: the decision no longer adds to the other end's |C_b| and flips;
* ``no-cap-gather``: the consensus weight min(q_a, q_b) taken as q_a (no row of q_b).

Timed interleaved in one process (``--repeat`` rounds, CPU seconds of the kernel's calls)
on the 12-curve Fig. 1 panel at one M and degree (random regular graph, float32, one
core; the large-graph layout from ``LARGE_AGENTS`` agents, as ``simulate_runs`` picks).
Prints the CPU, each variant's rate, its time per agent-step and its ratio to today's.
Usage:

    python benchmarks/bench_step_parts.py [--agents 200] [--degree 5] [--steps 3000] [--repeat 3]
        [--variants no-log no-cap ...]

Measured results: docs/kernel.md ("Where a step's time goes").
"""

from __future__ import annotations

import argparse

import numpy as np
from baseline import cpu_description
from bench_layouts import TODAY, Timed, _once, timed_rounds
from bench_scale import panel

import colme.ccolme.kernel as consensus
import colme.ccolme.template as kernel_template
from colme.ccolme import codegen
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.seeding import run_generator

LANES = 12

#: Variant name -> (template text, its replacement), each found exactly once in today's template.
VARIANTS = {
    "no-receive": (("        counter = receive(counter, t,",
                    "        counter = counter if t > 1 else receive(counter, t,"),),
    "no-log": (("noise_sum[a] += unit_laplace(mix_uniform(counter))", "noise_sum[a] += mix_uniform(counter)"),),
    "no-cap": (("weight_cap[ra + U@] = mixing_cap(size@, degree, n_agents, weight_params)",
                "weight_cap[ra + U@] = size@"),),
    "no-clock": (("        tick@ = one if trigger@ > zero else last@ + one\n", "        tick@ = last@\n"),
                 ("        clock[ra + U@] = tick@\n", ""),
                 ("fresh@ = one / (np.floor(tick@ * block_scale) + block_shift + two)", "fresh@ = tick@")),
    "no-scatter": (("            set_size[rb + U@] += now@\n", ""), ("            flips[rb + U@] += change@\n", "")),
    "no-cap-gather": (("min(own@, weight_cap[rb + U@])", "own@"),),
}


def variant_template(name: str) -> str:
    template = TODAY
    for old, new in VARIANTS.get(name, ()):
        template = _once(template, old, new)
    return template


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=float, default=200)
    parser.add_argument("--degree", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    args = parser.parse_args()
    n_agents = int(args.agents)
    large = n_agents >= consensus.LARGE_AGENTS
    names = ["today", *args.variants]
    edges = random_regular_edges(args.degree, n_agents, run_generator(1, "scale", 0, "instance"))[None]
    classes = Population().assign(n_agents, run_generator(2, "scale", 0, "instance"))[None]
    built = {}
    for name in names:
        kernel_template._TEMPLATE = variant_template(name)
        built[name] = Timed(codegen.build_kernel(LANES, large=large))
    kernel_template._TEMPLATE = TODAY
    key = codegen.kernel_key(LANES, False, large)
    original = codegen._KERNELS.get(key)

    def run(name: str) -> float:
        kernel = built[name]
        codegen._KERNELS[key], kernel.seconds = kernel, 0.0
        consensus.simulate_runs(panel(n_agents, args.degree, args.steps), classes, edges,
                                [run_generator(1, "scale", 0, "data")], np.float32, large=large)
        return kernel.seconds

    try:
        for name in names:  # compile (or load) every variant before timing any
            run(name)
        times = timed_rounds(run, names, args.repeat)
    finally:
        codegen._KERNELS.pop(key, None)
        if original is not None:
            codegen._KERNELS[key] = original
    print(cpu_description())
    print(f"M={n_agents} r={args.degree} steps={args.steps} repeat={args.repeat} "
          f"({'large' if large else 'small'} layout, float32, 12 curves)")
    updates = n_agents * args.degree * LANES * args.steps
    best = {name: min(seconds) for name, seconds in times.items()}
    for name in names:
        print(f"M={n_agents} r={args.degree} {name}: {updates / best[name]:.3e} config-edge-updates/s/core, "
              f"{best[name] / args.steps / n_agents * 1e9:.1f} ns per agent-step "
              f"(x{best['today'] / best[name]:.2f} today)", flush=True)


if __name__ == "__main__":
    main()
