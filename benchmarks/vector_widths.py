"""Which vector registers the Private-C-ColME kernel's lane arithmetic uses on a named CPU,
compiled here and never run (so any x86 CPU LLVM knows can be asked on any machine).

For each layout (small, large: ``simulate_runs(large=...)``, M = 40) and lane count, a
child process on this CPU builds the 12-curve Fig. 1 panel in float32 (the curves of ``bench_scale.panel``, 16
lanes padded with copies of the last curve, as ``bench_scale.py --lanes`` runs them) and
stops at the kernel's call, writing the kernel's variant and argument types; then for each
CPU a child with ``NUMBA_CPU_NAME`` set to it (its features LLVM's defaults for that CPU;
``--wide``: also without the ``prefer-256-bit`` tuning, as ``bench_scale.py --isa wide``)
compiles that variant and counts the xmm (128-bit), ymm (256) and zmm (512) operands of the
arithmetic that carries the lanes (vaddps, vsubps, vmulps, vdivps, vminps, vmaxps) in its
assembly.  Usage:

    python benchmarks/vector_widths.py [--cpus znver3 emeraldrapids znver4] [--lanes 12 16] [--wide]
        [--layouts small large]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ARITHMETIC = re.compile(r"^\s*v(?:add|sub|mul|div|min|max)ps\s.*$", re.MULTILINE)
LAYOUTS = ("small", "large")
N_AGENTS = 40


class _KernelCalled(Exception):
    """Raised in place of the kernel's call, once its types are known."""


def capture(layout: str, lanes: int, out: Path) -> None:
    """Pickle the kernel variant and argument types the panel's first call would compile."""
    import bench_scale

    from colme._jit import kernel_parameters
    from colme.ccolme import kernel
    from colme.graphs import random_regular_edges
    from colme.populations import Population
    from colme.seeding import run_generator

    bench_scale.pad_lanes(lanes)
    found = {}
    compiled_kernel = kernel.compiled_kernel

    def record_variant(*variant):
        found["variant"] = variant
        return compiled_kernel(*variant)

    def stop(dispatcher, arguments):
        found["types"] = tuple(dispatcher.typeof_pyval(arguments[name])
                               for name in kernel_parameters(dispatcher))
        raise _KernelCalled

    kernel.compiled_kernel, kernel.call_kernel = record_variant, stop
    classes = Population().assign(N_AGENTS, run_generator(2, "widths", 0, "instance"))[None]
    edges = random_regular_edges(4, N_AGENTS, run_generator(1, "widths", 0, "instance"))[None]
    with contextlib.suppress(_KernelCalled):
        kernel.simulate_runs(bench_scale.panel(N_AGENTS, 4, 3), classes, edges,
                             [run_generator(1, "widths", 0, "data")], np.float32, large=layout == "large")
    out.write_bytes(pickle.dumps(found))


def compile_for(captured: Path) -> str:
    """Compile the captured variant for this process's Numba target; count the widths."""
    from colme.ccolme.codegen import build_kernel

    found = pickle.loads(captured.read_bytes())
    lanes, mixed, large, rules, weights, grouped, file = found["variant"]
    dispatcher = build_kernel(lanes, mixed, False, large, rules, weights, grouped, file)
    dispatcher.compile(found["types"])
    lines = ARITHMETIC.findall(dispatcher.inspect_asm(found["types"]))
    return " ".join(f"{register} {sum(f'%{register}' in line for line in lines)}" for register in ("xmm", "ymm", "zmm"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", nargs="+", default=["znver3", "emeraldrapids", "znver4"])
    parser.add_argument("--lanes", nargs="+", type=int, default=[12, 16])
    parser.add_argument("--wide", action="store_true", help="also each CPU without prefer-256-bit")
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    parser.add_argument("--capture", nargs=3, help=argparse.SUPPRESS)  # child: layout lanes file
    parser.add_argument("--compile", help=argparse.SUPPRESS)  # child: captured file
    args = parser.parse_args()
    if args.capture:
        capture(args.capture[0], int(args.capture[1]), Path(args.capture[2]))
        return
    if args.compile:
        print(compile_for(Path(args.compile)))
        return
    print("instructions of the float32 Fig. 1 kernel's lane arithmetic (v{add,sub,mul,div,min,max}ps) "
          "with an xmm, ymm or zmm register")
    targets = [(cpu, tune) for cpu in args.cpus for tune in (["", ",-prefer-256-bit"] if args.wide else [""])]
    with tempfile.TemporaryDirectory(prefix="colme-widths-") as folder:
        for layout in args.layouts:
            for lanes in args.lanes:
                captured = Path(folder) / f"{layout}-{lanes}.pickle"
                subprocess.run([sys.executable, __file__, "--capture", layout, str(lanes), str(captured)],
                               check=True, capture_output=True)
                for cpu, tune in targets:
                    cache = Path(folder) / f"cache-{cpu}{tune}"
                    env = {**os.environ, "NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": "+sse2" + tune,
                           "NUMBA_CACHE_DIR": str(cache), "COLME_KERNEL_DIR": str(cache)}
                    output = subprocess.run([sys.executable, __file__, "--compile", str(captured)], env=env,
                                            check=True, capture_output=True, text=True).stdout
                    print(f"{layout} layout, {lanes} lanes, {cpu}{tune}: {output.splitlines()[-1]}", flush=True)


if __name__ == "__main__":
    main()
