"""Memory-layout variants of the Private-C-ColME kernel, A/B against today's in one process.

Each variant is today's generated kernel with a textual change, checked bit-identical to it
on a short run, then timed interleaved with it (best of ``--repeat``), on the 12-curve
Fig. 1 panel at one M (random r-regular graph, float32, one core):

* ``interleaved``: the per-agent fields a neighbour costs in one row each (noisy, |C_b|,
  flips for the decision; 1/(|C_b|+offset), e_b for the consensus) instead of one array
  per field, so a neighbour touches 2-4 cache lines instead of 5-9;
* ``padded16``: 16 lanes (4 dummy curves) so that every 64-byte row is one cache line;
* ``uint8``: the accepted-edge state as uint8 (12 bytes per edge instead of 48).

    python benchmarks/bench_layouts.py [--agents 100000] [--degree 10] [--steps 60] [--repeat 2]

Measured results and which layout was kept: docs/kernel.md ("Layouts tried at scale").
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import time

import numpy as np
from baseline import cpu_description
from bench_scale import panel

import colme.ccolme.kernel as consensus
from colme.graphs import random_regular_edges
from colme.populations import UniformClasses
from colme.seeding import run_generator

TODAY, TODAY_WORKSPACE = consensus._TEMPLATE, consensus.Workspace
LANES = 12


def interleaved(template: str) -> str:
    """Decision fields in rows of 3 x LANES, consensus fields in rows of 2 x LANES."""
    source = template.replace(
        "accepted, clock, noisy, error, error_next, set_size, inverse_weight, flips, threshold,",
        "accepted, clock, decision_rows, consensus_rows, error_next, threshold,")
    for field, row in (("noisy", "decision_rows[D3 * \\1 + U@]"),
                       ("set_size", "decision_rows[D3 * \\1 + LANES + U@]"),
                       ("flips", "decision_rows[D3 * \\1 + LANES + LANES + U@]"),
                       ("inverse_weight", "consensus_rows[C2 * \\1 + U@]"),
                       ("error", "consensus_rows[C2 * \\1 + LANES + U@]")):
        source = re.sub(rf"\b{field}\[(\w+) \+ U@\]", row, source)
    source = source.replace(
        "        for i in range(error.shape[0]):\n            error[i] = error_next[i]",
        "        for a in range(n_agents):\n            ra = np.uint64(a) * LANES\n"
        "            consensus_rows[C2 * ra + LANES + U@] = error_next[ra + U@]")
    return source.replace("n_agents = sample_sum.shape[0]",
                          "n_agents = sample_sum.shape[0]\n    D3 = np.uint64(3)\n    C2 = np.uint64(2)")


def compact_accepted(template: str) -> str:
    """The accepted-edge state stored as uint8 (0 or 1), read back as the lane's float."""
    source = template.replace("accepted[re + U@] = now@", "accepted[re + U@] = np.uint8(now@)")
    source = re.sub(r"(?<![\w(])accepted\[re \+ U@\](?! =)", "(one * accepted[re + U@])", source)
    return source.replace("            accepted[i] = zero", "            accepted[i] = 0")


@dataclasses.dataclass(frozen=True)
class InterleavedWorkspace:
    accepted: np.ndarray
    clock: np.ndarray
    decision_rows: np.ndarray
    consensus_rows: np.ndarray
    error_next: np.ndarray
    threshold: np.ndarray
    sample_sum: np.ndarray
    noise_sum: np.ndarray

    @classmethod
    def allocate(cls, n_agents, n_edges, lanes, dtype):
        def zeros(n):
            return np.zeros(n, dtype=dtype)

        return cls(zeros(n_edges * lanes), zeros(n_agents * lanes), zeros(3 * n_agents * lanes),
                   zeros(2 * n_agents * lanes), zeros(n_agents * lanes), zeros(lanes), np.zeros(n_agents),
                   np.zeros(n_agents))

    def arguments(self):
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


class CompactWorkspace:
    @staticmethod
    def allocate(n_agents, n_edges, lanes, dtype):
        arrays = TODAY_WORKSPACE.allocate(n_agents, n_edges, lanes, dtype).arguments()
        return TODAY_WORKSPACE(**{**arrays, "accepted": np.zeros(n_edges * lanes, dtype=np.uint8)})


def variants():
    """name -> (template, workspace class, lanes)."""
    return {
        "today": (TODAY, TODAY_WORKSPACE, LANES),
        "interleaved": (interleaved(TODAY), InterleavedWorkspace, LANES),
        "padded16": (TODAY, TODAY_WORKSPACE, 16),
        "uint8": (compact_accepted(TODAY), CompactWorkspace, LANES),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=float, default=1e5)
    parser.add_argument("--degree", type=int, default=10)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    n_agents = int(args.agents)
    edges = random_regular_edges(args.degree, n_agents, run_generator(1, "scale", 0, "instance"))[None]
    classes = UniformClasses().assign(n_agents, run_generator(2, "scale", 0, "instance"))[None]
    kernels = {}
    for name, (template, _, lanes) in variants().items():
        consensus._TEMPLATE = template
        kernels[name] = consensus.build_kernel(lanes)
    consensus._TEMPLATE = TODAY

    def run(name, steps):
        _, workspace, lanes = variants()[name]
        consensus._KERNELS[lanes] = kernels[name]
        consensus.Workspace, consensus.lane_groups = workspace, (lambda n, lanes=lanes: (1, lanes))
        start = time.process_time()
        mse = consensus.simulate_runs(panel(n_agents, args.degree, steps), classes, edges,
                                      [run_generator(1, "scale", 0, "data")], np.float32)
        return time.process_time() - start, mse

    original = (consensus.Workspace, consensus.lane_groups)
    try:
        reference = run("today", 20)[1]
        for name in variants():
            assert np.array_equal(run(name, 20)[1], reference), f"{name} is not bit-identical"
        times = {name: [] for name in variants()}
        for _ in range(args.repeat):  # interleaved, so that drifts of the machine hit every variant
            for name in variants():
                times[name].append(run(name, args.steps)[0])
        best = {name: min(seconds) for name, seconds in times.items()}
    finally:
        consensus.Workspace, consensus.lane_groups = original
    print(cpu_description())
    updates = n_agents * args.degree * LANES * args.steps
    for name, seconds in best.items():
        print(f"M={n_agents} r={args.degree} layout={name}: {updates / seconds:.3e} config-edge-updates/s/core "
              f"(x{best['today'] / seconds:.2f} today)", flush=True)


if __name__ == "__main__":
    main()
