"""What each part of a Private-C-ColME step costs: the kernel with one part removed, A/B.

Each variant is today's generated kernel with a textual change that drops (or simplifies)
one part of a time step, so it computes other numbers: these are timing ablations, not
layouts (``bench_layouts.py`` holds those, each bit-identical).  The difference to
``today`` bounds what any rewrite of that part can gain.  Variants:

* ``no-receive``: no sample or noise drawn after t = 1 (``receive``: two SplitMix64
  draws, the sample and the Laplace inverse CDF, a scalar libm ``log``, per agent);
* ``no-log``: the noise draw's uniform accumulated instead of its Laplace inversion;
* ``poly-log``: the Laplace inversion with a logarithm LLVM can vectorise (``POLY_LOG``:
  integer normalisation of the uniform's 53 bits, fdlibm's polynomial) instead of libm's
  scalar ``log``; a candidate, not an ablation: its draws differ from today's in the last
  bits now and then, and the script prints how often (``poly_log_agreement``);
* ``no-cap``: the weight rule's cap q_a replaced by |C_a| (no division);
* ``no-clock``: alpha's step size 1/(block + 2) replaced by the clock itself, and no
  clock reset (no floor, division or select);
* ``no-scatter``: the decision no longer adds to the other end's |C_b| and flips;
* ``no-cap-gather``: the consensus weight min(q_a, q_b) taken as q_a (no row of q_b).

Timed interleaved in one process (``--repeat`` rounds, CPU seconds of the kernel's calls)
on the 12-curve Fig. 1 panel at one M and degree (random regular graph, float32, one
core), in the small layout at every M: the variants change its ``decide`` and
``consensus``, which the large layout's ``fused_pass`` replaces.
Prints the CPU, each variant's rate, its time per agent-step and its ratio to today's.
Usage:

    python benchmarks/bench_step_parts.py [--agents 200] [--degree 5] [--steps 3000] [--repeat 3]
        [--variants no-log no-cap ...]

Measured results: docs/kernel.md ("Where a step's time goes").
"""

from __future__ import annotations

import argparse

import numba
import numpy as np
from baseline import cpu_description
from bench_layouts import TODAY, Timed, _once, timed_rounds
from bench_scale import panel

import colme.ccolme.kernel as consensus
import colme.ccolme.template as kernel_template
from colme.ccolme import codegen
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.privacy import unit_laplace
from colme.seeding import run_generator

LANES = 12

#: A Laplace draw whose log LLVM can vectorise: the inversion of ``privacy.unit_laplace``
#: from the uniform's 53 bits k, whose argument 2u or 2 - 2u is m 2^-52 exactly (m = k or
#: 2^53 - k; m = 0, i.e. u = 0, maps to 0 as there), log(m 2^-52) with m normalised by its
#: leading zeros (integer ops, one exact conversion) and fdlibm's e_log.c reduction and
#: polynomial (Sun Microsystems 1993: s = f / (2 + f), degree-14 series in s, |error| < 1 ulp).
#: Its last bits differ from libm's log now and then, so every Private-C-ColME number would move.
POLY_LOG = """from numba.cpython.unsafe.numbers import leading_zeros
from colme.ccolme.randoms import _mix64 as mix64


@step
def unit_laplace_bits(bits):
    lower = bits < np.uint64(4503599627370496)
    m = bits if lower else np.uint64(9007199254740992) - bits
    m = m if m > np.uint64(0) else np.uint64(4503599627370496)
    top = np.uint64(63) - np.uint64(leading_zeros(m))
    f1 = np.float64(m << (np.uint64(52) - top)) * 2.220446049250313e-16
    big = f1 > 1.4142135623730951
    f1 = f1 * 0.5 if big else f1
    k = np.float64(np.int64(top) - 52) + (1.0 if big else 0.0)
    f = f1 - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01))
    t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01
                                                                           + w * 1.479819860511658591e-01)))
    hfsq = 0.5 * f * f
    logarithm = k * 6.93147180369123816490e-01 - ((hfsq - (s * (hfsq + t2 + t1) + k * 1.90821492927058770002e-10)) - f)
    magnitude = 0.7071067811865475 * logarithm
    return magnitude if lower else -magnitude


"""

#: Variant name -> (template text, its replacement), each found exactly once in today's template.
VARIANTS = {
    "no-receive": (("            counter = receive(counter, t + 1,",
                    "            counter = counter if t > 0 else receive(counter, t + 1,"),),
    "no-log": (("noise_sum[a] += unit_laplace(mix_uniform(counter))", "noise_sum[a] += mix_uniform(counter)"),),
    "poly-log": (("@step\ndef receive(", POLY_LOG + "@step\ndef receive("),
                 ("noise_sum[a] += unit_laplace(mix_uniform(counter))",
                  "noise_sum[a] += unit_laplace_bits(mix64(counter) >> np.uint64(11))")),
    "no-cap": (("weight_cap[ra + U@] = mixing_cap(size@, degree, n_agents, weight_params)",
                "weight_cap[ra + U@] = size@"),),
    "no-clock": (("        tick@ = one if trigger@ > zero else last@ + one\n", "        tick@ = last@\n"),
                 ("        clock[ra + U@] = tick@\n", ""),
                 ("fresh@ = one / (np.floor(tick@ * block_scale) + block_shift + two)", "fresh@ = tick@")),
    "no-scatter": (("            set_size[rb + U@] += now@\n", ""), ("            flips[rb + U@] += change@\n", "")),
    "no-cap-gather": (("min(own@, weight_cap[rb + U@])", "own@"),),
}


def poly_log_agreement(n_draws: int = 10**7) -> str:
    """How often the ``poly-log`` draw equals ``privacy.unit_laplace``'s bit for bit, over
    ``n_draws`` seeded 53-bit uniforms and the edge cases (u = 0, 2^-53, 1/2 and its
    neighbours, 1 - 2^-53), and by how many units in the last place the others differ."""
    namespace = {"np": np, "step": numba.njit(inline="always", error_model="numpy")}
    exec(POLY_LOG, namespace)  # the variant's own source, compiled as the kernel compiles it
    poly = namespace["unit_laplace_bits"]

    @numba.njit
    def both(bits, libm, polynomial):
        for i in range(bits.shape[0]):
            libm[i] = unit_laplace(np.float64(bits[i]) * 2.0**-53)
            polynomial[i] = poly(bits[i])

    half = 2**52
    edges = np.array([0, 1, 2, half - 2, half - 1, half, half + 1, 2 * half - 1], dtype=np.uint64)
    bits = np.concatenate([edges, np.random.default_rng(0).integers(0, 2 * half, n_draws, dtype=np.uint64)])
    libm, polynomial = np.empty(bits.size), np.empty(bits.size)
    both(bits, libm, polynomial)
    ulps = np.abs(libm.view(np.int64) - polynomial.view(np.int64))
    counts = np.bincount(np.minimum(ulps, 3), minlength=4)
    return (f"poly-log draws against libm's log over {bits.size} uniforms: {counts[0] / bits.size:.4%} bit-identical, "
            f"{counts[1]} differ by 1 ulp, {counts[2]} by 2, {counts[3]} by more (largest {ulps.max()} ulp), "
            f"edge cases {'identical' if np.array_equal(libm[:8], polynomial[:8]) else 'differ'}")


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
    names = ["today", *args.variants]
    edges = random_regular_edges(args.degree, n_agents, run_generator(1, "scale", 0, "instance"))[None]
    classes = Population().assign(n_agents, run_generator(2, "scale", 0, "instance"))[None]
    built = {}
    for name in names:
        kernel_template._TEMPLATE = variant_template(name)
        built[name] = Timed(codegen.build_kernel(LANES))
    kernel_template._TEMPLATE = TODAY
    key = codegen.kernel_key(LANES)
    original = codegen._KERNELS.get(key)

    def run(name: str) -> float:
        kernel = built[name]
        codegen._KERNELS[key], kernel.seconds = kernel, 0.0
        consensus.simulate_runs(panel(n_agents, args.degree, args.steps), classes, edges,
                                [run_generator(1, "scale", 0, "data")], np.float32, large=False)
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
    if "poly-log" in names:
        print(poly_log_agreement())
    print(f"M={n_agents} r={args.degree} steps={args.steps} repeat={args.repeat} "
          "(small layout, float32, 12 curves)")
    updates = n_agents * args.degree * LANES * args.steps
    best = {name: min(seconds) for name, seconds in times.items()}
    for name in names:
        print(f"M={n_agents} r={args.degree} {name}: {updates / best[name]:.3e} config-edge-updates/s/core, "
              f"{best[name] / args.steps / n_agents * 1e9:.1f} ns per agent-step "
              f"(x{best['today'] / best[name]:.2f} today)", flush=True)


if __name__ == "__main__":
    main()
