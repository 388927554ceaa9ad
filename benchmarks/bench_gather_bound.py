"""How fast could any Private-C-ColME kernel be at scale?  The memory floor of a step.

Algorithm 1's consensus step (lines 8-10) needs, for every directed edge (a, b), agent b's
state: with 12 curves, one 48-byte float32 row gathered from an agent b that a random
regular graph puts anywhere in memory.  This script times loops that do only that
irreducible work, unrolled over 12 lanes and compiled like the kernel (``colme._jit``),
next to the real kernel on the same graph, in the same process:

* ``gather``: per agent, the sum of its neighbours' rows (one row gather per directed
  edge, the sequential CSR stream, one row written): the least any consensus can read;
* ``decide+gather``: also the decision rule's least work, per undirected edge the other
  end's noisy-mean row gathered and compared, the verdict stored (float32, as the kernel
  stores it), and the consensus weighting each row by it: a subset of the kernel's two
  passes, each operation as the kernel does it;
* ``kernel``: ``simulate_runs`` on the 12-curve Fig. 1 panel (bench_scale.py's), and with
  ``--baseline REF`` the kernel of git revision REF too.

The measurements are interleaved: ``--repeat`` rounds, each running every loop and kernel
once, and each one's best round is printed, so that a drift of a shared machine's speed
hits all of them alike.

Rates are config-edge-updates/s/core, M x r x 12 per step, as bench_scale.py counts
them.  If a floor's rate at some M is below a throughput target, no layout of the
kernel's other arrays can reach that target there on this CPU: the floor does strictly
less memory work than Algorithm 1.  Usage:

    python benchmarks/bench_gather_bound.py [--sizes 10000 100000 1000000] [--degree 10]
        [--updates 2e9] [--repeat 3] [--baseline 59cbd3e]
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np
from baseline import CCOLME_KERNEL_MODULES, cpu_description, load_baseline
from bench_scale import run_kernel

from colme._jit import jit_noalias
from colme.graphs import random_regular_edges
from colme.seeding import run_generator

LANES = 12
L = range(LANES)

_SOURCE = f"""
def gather(indptr, neighbour_row, state, out, steps):
    for _ in range(steps):
        for a in range(indptr.shape[0] - 1):
            ra = np.uint64(a) * LANES_U
            {"; ".join(f"s{c} = np.float32(0.0)" for c in L)}
            for k in range(indptr[a], indptr[a + 1]):
                rb = neighbour_row[k]
                {"; ".join(f"s{c} += state[rb + U{c}]" for c in L)}
            {"; ".join(f"out[ra + U{c}] = s{c}" for c in L)}
        for i in range(state.shape[0]):
            state[i] = out[i] * np.float32(0.1)


def decide_gather(indptr, upper, neighbour_row, edge_row, noisy, accepted, state, out, steps):
    one, zero, half = np.float32(1.0), np.float32(0.0), np.float32(0.5)
    for _ in range(steps):
        for a in range(indptr.shape[0] - 1):
            ra = np.uint64(a) * LANES_U
            {"; ".join(f"m{c} = noisy[ra + U{c}]" for c in L)}
            for k in range(upper[a], indptr[a + 1]):
                rb = neighbour_row[k]
                re = edge_row[k]
                {"; ".join(f"accepted[re + U{c}] = one if abs(m{c} - noisy[rb + U{c}]) < half else zero" for c in L)}
        for a in range(indptr.shape[0] - 1):
            ra = np.uint64(a) * LANES_U
            {"; ".join(f"s{c} = np.float32(0.0)" for c in L)}
            for k in range(indptr[a], indptr[a + 1]):
                rb = neighbour_row[k]
                re = edge_row[k]
                {"; ".join(f"s{c} += accepted[re + U{c}] * state[rb + U{c}]" for c in L)}
            {"; ".join(f"out[ra + U{c}] = s{c}" for c in L)}
        for i in range(state.shape[0]):
            state[i] = out[i] * np.float32(0.1)
            noisy[i] = noisy[i] * np.float32(0.5) + out[i]


def own_decide_gather(indptr, upper, neighbour_row, edge_row, noisy, accepted, state, out, steps):
    one, zero, half = np.float32(1.0), np.float32(0.0), np.float32(0.5)
    for _ in range(steps):
        for a in range(indptr.shape[0] - 1):
            ra = np.uint64(a) * LANES_U
            {"; ".join(f"m{c} = noisy[ra + U{c}]" for c in L)}
            for k in range(indptr[a], indptr[a + 1]):
                rb = neighbour_row[k]
                rk = np.uint64(k) * LANES_U
                {"; ".join(f"accepted[rk + U{c}] = one if abs(m{c} - noisy[rb + U{c}]) < half else zero" for c in L)}
        for a in range(indptr.shape[0] - 1):
            ra = np.uint64(a) * LANES_U
            {"; ".join(f"s{c} = np.float32(0.0)" for c in L)}
            for k in range(indptr[a], indptr[a + 1]):
                rb = neighbour_row[k]
                rk = np.uint64(k) * LANES_U
                {"; ".join(f"s{c} += accepted[rk + U{c}] * state[rb + U{c}]" for c in L)}
            {"; ".join(f"out[ra + U{c}] = s{c}" for c in L)}
        for i in range(state.shape[0]):
            state[i] = out[i] * np.float32(0.1)
            noisy[i] = noisy[i] * np.float32(0.5) + out[i]
"""


def floors():
    # uint64 constants: uint64 + int64 is float64 in Numba (the kernel's U0, U1, ... too)
    namespace = {"np": np, "LANES_U": np.uint64(LANES), **{f"U{c}": np.uint64(c) for c in L}}
    exec(compile(_SOURCE, "<bench_gather_bound>", "exec"), namespace)
    return {name: jit_noalias(namespace[name], cache=False, slp_vectorize=True)
            for name in ("gather", "decide_gather", "own_decide_gather")}


def csr(edges: np.ndarray, n_agents: int):
    """CSR of an undirected edge list with rows premultiplied by LANES, edges numbered by
    (lower, upper) end, ``upper[a]``: the first neighbour above a (the kernel's layout)."""
    ends = np.concatenate([edges, edges[:, ::-1]])
    edge_id = np.concatenate([np.arange(len(edges))] * 2)
    order = np.lexsort((ends[:, 1], ends[:, 0]))
    ends, edge_id = ends[order], edge_id[order]
    indptr = np.searchsorted(ends[:, 0], np.arange(n_agents + 1)).astype(np.int64)
    upper = np.array([indptr[a] + np.searchsorted(ends[indptr[a]:indptr[a + 1], 1], a) for a in range(n_agents)],
                     dtype=np.int64)
    return (indptr, upper, (ends[:, 1].astype(np.uint64) * LANES), (edge_id.astype(np.uint64) * LANES))


def seconds(function, arguments) -> float:
    """CPU seconds of ``function(*arguments)`` (a kernel's call returns its own)."""
    start = time.process_time()
    value = function(*arguments)
    return value if value is not None else time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6])
    parser.add_argument("--degree", type=int, default=10)
    parser.add_argument("--updates", type=float, default=2e9, help="config-edge-updates per measurement")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="git revision whose kernel to measure alongside")
    args = parser.parse_args()
    baseline = load_baseline(args.baseline, CCOLME_KERNEL_MODULES) if args.baseline else None
    print(cpu_description())
    compiled = floors()
    for size in args.sizes:
        n_agents, degree = int(size), args.degree
        edges = random_regular_edges(degree, n_agents, run_generator(1, "scale", 0, "instance"))
        indptr, upper, neighbour_row, edge_row = csr(edges, n_agents)
        per_step = n_agents * degree * LANES
        steps = max(3, int(args.updates / per_step))
        rng = np.random.default_rng(0)
        state = rng.standard_normal(n_agents * LANES).astype(np.float32)
        noisy = rng.standard_normal(n_agents * LANES).astype(np.float32)
        out = np.empty_like(state)
        accepted = np.zeros(len(edges) * LANES, dtype=np.float32)
        own = np.zeros(2 * len(edges) * LANES, dtype=np.float32)  # per directed edge, in CSR order
        compiled["gather"](indptr, neighbour_row, state.copy(), out, 1)  # compile and first touch
        compiled["decide_gather"](indptr, upper, neighbour_row, edge_row, noisy.copy(), accepted, state.copy(), out, 1)
        compiled["own_decide_gather"](indptr, upper, neighbour_row, edge_row, noisy.copy(), own, state.copy(), out, 1)
        loops = {
            "gather": (compiled["gather"], (indptr, neighbour_row, state, out, steps)),
            "decide+gather": (compiled["decide_gather"],
                              (indptr, upper, neighbour_row, edge_row, noisy, accepted, state, out, steps)),
            "own-decide+gather": (compiled["own_decide_gather"],
                                  (indptr, upper, neighbour_row, edge_row, noisy, own, state, out, steps)),
            "kernel": (run_kernel, (n_agents, degree, steps, edges)),
        }
        run_kernel(n_agents, degree, 2, edges)  # compile (or load) the layout this M runs
        if baseline is not None:
            run_kernel(n_agents, degree, 2, edges, module=baseline)
            loops[args.baseline] = (partial(run_kernel, module=baseline), (n_agents, degree, steps, edges))
        best = {name: np.inf for name in loops}
        for _ in range(args.repeat):
            for name, (function, arguments) in loops.items():
                best[name] = min(best[name], seconds(function, arguments))
        found = {name: per_step * steps / value for name, value in best.items()}
        print(f"M={n_agents} r={degree} steps={steps}: " + ", ".join(f"{k} {v:.3e}" for k, v in found.items())
              + f" config-edge-updates/s/core; kernel / gather = {found['kernel'] / found['gather']:.2f}, "
              f"kernel / (decide+gather) = {found['kernel'] / found['decide+gather']:.2f}"
              + (f", kernel / {args.baseline} = {found['kernel'] / found[args.baseline]:.2f}" if baseline else ""),
              flush=True)


if __name__ == "__main__":
    main()
