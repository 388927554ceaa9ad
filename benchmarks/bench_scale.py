"""Throughput and memory of the Private-C-ColME kernel as the number of agents grows.

One line per M: the graph generation time (compiled pairing generator; networkx's
``random_regular_graph``, the same graphs, up to ``--networkx-max``), then the kernel's
config-edge-updates per second per core on the 12-curve Fig. 1 panel (3 rules x eps 1, 2,
4, inf) at degree r, float32, and the peak RSS of a fresh process that made the graph and
ran the panel.  Each M runs in its own process, so the RSS is that M's alone; t_max is
chosen so that each M does about ``--updates`` config-edge-updates (at least 3 steps).
Compile time is excluded (a 2-step warm-up on a small graph first).  With ``--isa native
avx2`` every M is measured twice, once with the code numba generates for this CPU (e.g.
AVX-512) and once for an AVX2 CPU (``NUMBA_CPU_NAME=haswell`` with the host's features
less every ``avx512*`` in ``NUMBA_CPU_FEATURES``: the name alone keeps the host's features;
its own compile cache), and the ratio is printed.  ``--isa wide`` is the host's code with
LLVM's ``prefer-256-bit`` tuning off: on Intel's AVX-512 CPUs LLVM keeps vectors at 256
bits unless told otherwise (on AMD's, and on AVX2 CPUs, it changes nothing).  ``--lanes 12
16`` measures the kernel with the panel's 12 curves in calls of that many lanes, the last
ones copies of the last curve (16: one 512-bit register of float32 per lane row).
``--repeat`` runs every variant that many times, in turn, and keeps each one's best rate.
Every run of every (isa, lanes) variant must give the same numbers bit for bit (a digest
of the 12 curves' MSE): the script says so and exits non-zero if one does not.  Usage:

    python benchmarks/bench_scale.py [--sizes 100 1000 10000 100000 1000000] [--degree 10]
        [--updates 3e9] [--networkx-max 100000] [--isa native avx2 wide] [--lanes 12 16] [--repeat 1]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from baseline import cpu_description, spec_module

from colme.ccolme import kernel
from colme.ccolme.kernel import LARGE_AGENTS
from colme.ccolme.spec import PanelSpec
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.seeding import run_generator

THETA_K = {1.0: 7, 2.0: 6, 4.0: 6, math.inf: 6}
def avx2_target() -> dict:
    """Environment of a Numba that generates AVX2 code on this CPU: Haswell, and the host's
    features with every ``avx512*`` (and AMX) switched off."""
    import llvmlite.binding as llvm

    features = [("-" + f[1:]) if "avx512" in f or "amx" in f or "avx10" in f else f
                for f in llvm.get_host_cpu_features().flatten().split(",")]
    return {"NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": ",".join(features)}


def wide_target() -> dict:
    """Environment of a Numba that generates this CPU's code without LLVM's ``prefer-256-bit``
    tuning (set for Intel's AVX-512 CPUs: 512-bit registers are then used only where a
    function asks for them)."""
    import llvmlite.binding as llvm

    return {"NUMBA_CPU_FEATURES": llvm.get_host_cpu_features().flatten() + ",-prefer-256-bit"}


#: Code generation targets: the host CPU, an AVX2 CPU (AVX2 and FMA, no AVX-512), or the
#: host CPU with 512-bit vectors preferred.
ISAS = {"native": dict, "avx2": avx2_target, "wide": wide_target}


def panel(n_agents: int, degree: int, t_max: int, module=kernel) -> PanelSpec:
    """The 12-curve Fig. 1 panel, in the spec classes of the kernel ``module`` (this
    revision's or a baseline's, ``baseline.load_baseline``)."""
    spec = spec_module(module)
    curves = tuple(
        spec.Curve(rule, eps, THETA_K[eps] if rule == "bernstein" else math.nan)
        for rule in ("oracle", "bernstein", "optimistic")
        for eps in (1.0, 2.0, 4.0, math.inf)
    )
    grid = np.unique(np.geomspace(1, t_max, 20).astype(np.int64))
    return spec.PanelSpec(n_agents=n_agents, degree=degree, curves=curves, t_record=grid)


def run_panel(n_agents: int, degree: int, t_max: int, edges: np.ndarray, large: bool | None = None,
              module=kernel) -> tuple[float, np.ndarray]:
    """CPU seconds and MSE (1, curves, times) of one run of the panel on ``edges``
    (``large``: the kernel's layout; default by size, ``simulate_runs``), by this
    revision's kernel module or ``module`` (a baseline's, ``baseline.load_baseline``)."""
    classes = Population().assign(n_agents, run_generator(2, "scale", 0, "instance"))[None]
    start = time.process_time()
    mse = module.simulate_runs(panel(n_agents, degree, t_max, module), classes, edges[None],
                               [run_generator(1, "scale", 0, "data")], np.float32, large=large)
    return time.process_time() - start, mse


def run_kernel(n_agents: int, degree: int, t_max: int, edges: np.ndarray, large: bool | None = None,
               module=kernel) -> float:
    """CPU seconds of ``run_panel``."""
    return run_panel(n_agents, degree, t_max, edges, large, module)[0]


def pad_lanes(lanes: int) -> None:
    """Make this process's kernel run a panel in one call of ``lanes`` lanes (at least its
    curves, at most ``MAX_LANES``, as ``main`` checks): ``simulate_runs`` pads the call
    with copies of the last curve and drops their results."""
    kernel.lane_groups = lambda n_curves: (1, lanes)


def measure(n_agents: int, degree: int, updates: float, networkx_max: int) -> dict:
    """One M, in this process: graph times, kernel rate and peak RSS."""
    # compile (or load) the layout this M runs, on a small graph
    run_kernel(200, degree, 2, random_regular_edges(degree, 200, np.random.default_rng(0)),
               large=n_agents >= LARGE_AGENTS)
    start = time.perf_counter()
    edges = random_regular_edges(degree, n_agents, run_generator(1, "scale", 0, "instance"))
    compiled = time.perf_counter() - start
    networkx = math.nan
    if n_agents <= networkx_max:
        import networkx as nx

        start = time.perf_counter()
        nx.random_regular_graph(degree, n_agents, seed=run_generator(1, "scale", 0, "instance"))
        networkx = time.perf_counter() - start
    per_step = n_agents * degree * 12
    t_max = max(3, int(updates / per_step))
    seconds, mse = run_panel(n_agents, degree, t_max, edges)
    return {
        "M": n_agents, "r": degree, "t_max": t_max, "rate": per_step * t_max / seconds,
        "digest": hashlib.sha256(np.ascontiguousarray(mse).tobytes()).hexdigest()[:16],
        "graph_s": compiled, "networkx_s": networkx,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "target": cpu_description().split("Numba compiles for ")[1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e2, 1e3, 1e4, 1e5, 1e6])
    parser.add_argument("--degree", type=int, default=10)
    parser.add_argument("--updates", type=float, default=3e9, help="config-edge-updates per M")
    parser.add_argument("--networkx-max", type=int, default=100_000, help="largest M timed with networkx")
    parser.add_argument("--isa", nargs="+", choices=sorted(ISAS), default=["native"],
                        help="code generation targets to measure (native: this CPU's widest ISA)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of every variant, in turn (best rate of each; fresh processes)")
    parser.add_argument("--lanes", nargs="+", type=int, default=[12],
                        help="lanes per kernel call for the 12 curves (13-16: padded with copies)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process: one M
    args = parser.parse_args()
    if args.one:
        pad_lanes(args.lanes[0])
        print(json.dumps(measure(args.one, args.degree, args.updates, args.networkx_max)))
        return
    for lanes in args.lanes:  # refuse a bad count before any child runs
        if not 12 <= lanes <= kernel.MAX_LANES:
            parser.error(f"--lanes must be between the panel's 12 curves and {kernel.MAX_LANES}, got {lanes}")
    print(cpu_description())
    print("panel: 12 curves (oracle, bernstein, optimistic x eps 1, 2, 4, inf), float32, one core")
    targets = {isa: ISAS[isa]() for isa in args.isa}
    caches = {isa: tempfile.mkdtemp(prefix=f"colme-bench-{isa}-") for isa in args.isa if targets[isa]}
    variants = list(itertools.product(args.isa, args.lanes))
    differ = False
    for size in args.sizes:
        rates, digests = {}, {}
        for isa, lanes in [*variants] * args.repeat:
            command = [sys.executable, __file__, "--one", str(int(size)), "--degree", str(args.degree),
                       "--updates", str(args.updates), "--networkx-max", str(args.networkx_max),
                       "--lanes", str(lanes)]
            env = {**os.environ, **targets[isa], **({"NUMBA_CACHE_DIR": caches[isa]} if isa in caches else {})}
            output = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
            result = json.loads(output.splitlines()[-1])  # after the kernel's compile or load line
            rates[isa, lanes] = max(rates.get((isa, lanes), 0.0), result["rate"])
            digests.setdefault((isa, lanes), set()).add(result["digest"])
            ratio = result["networkx_s"] / result["graph_s"]
            networkx = (f"networkx {result['networkx_s']:.3f} s (x{ratio:.0f})" if math.isfinite(ratio)
                        else "networkx not timed")
            print(f"M={result['M']} r={result['r']} t_max={result['t_max']} isa={isa} lanes={lanes}: "
                  f"{result['rate']:.3e} config-edge-updates/s/core; peak RSS {result['peak_rss_mb']:.0f} MB; "
                  f"graph {result['graph_s']:.3f} s, {networkx}; code for {result['target']}", flush=True)
        if len(variants) > 1:
            first = variants[0]
            name = "isa={} lanes={}".format
            print(f"  best rates against {name(*first)}: " + ", ".join(f"{name(*v)} x{rates[v] / rates[first]:.2f}"
                                                            for v in variants[1:]), flush=True)
        if len(variants) > 1 or args.repeat > 1:
            same = len(set().union(*digests.values())) == 1
            differ |= not same
            print(f"  same numbers in every run: {'yes' if same else 'NO'}", flush=True)
    if differ:
        sys.exit("the runs did not all give the same MSE")


if __name__ == "__main__":
    main()
