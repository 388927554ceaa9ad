"""The kernel benchmarks that rebuild the kernel from a changed template still run against
today's kernel interface (their variants broke once, silently, when its arguments became
named groups), on a graph small enough to take seconds."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(script, *arguments):
    """Run ``benchmarks/<script>`` (today's kernel from the kernel cache the other tests fill)."""
    result = subprocess.run([sys.executable, script, *arguments], cwd=ROOT / "benchmarks", capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_layout_variants_are_bit_identical_to_todays_kernel():
    """Each layout variant gives today's MSEs bit for bit (the script asserts it) and is timed:
    one variant per way of calling the kernel (its own workspace, directed edge rows, narrower
    graph indices) and the large layout's steps rewritten (no prefetch; another prefetch hint; one loop),
    with float verdicts in their own workspace; and both layouts' verdicts as the kernels made them
    until 2026-12-07 (a maximum of two selects, absolute values, verdicts read by a multiplication)."""
    variants = ("interleaved", "own", "index32", "large-noprefetch", "large-t2", "large-float", "large-oneloop",
                "previous", "large-previous")
    out = bench("bench_layouts.py", "--agents", "2000", "--steps", "2", "--check-steps", "3",
                "--repeat", "1", "--variants", *variants)
    assert f"bit-identical to today over 3 steps: today, {', '.join(variants)}" in out
    for name in ("today", *variants):
        assert re.search(rf"layout={re.escape(name)}: [\d.e+]+ config-edge-updates/s/core", out), name


def test_the_vectorisable_log_runs_in_the_kernel_and_agrees_with_libm():
    """The candidate log compiles into the kernel and runs; its Laplace draws equal libm's in
    most cases, and never differ by more than 2 units in the last place (fdlibm's logarithm
    is within 1 ulp, libm's within about 0.5, then both are scaled by 1/sqrt 2)."""
    out = bench("bench_step_parts.py", "--agents", "200", "--steps", "5", "--repeat", "1", "--variants", "poly-log")
    agreement = re.search(r"over (\d+) uniforms: ([\d.]+)% bit-identical, (\d+) differ by 1 ulp, (\d+) by 2, "
                          r"(\d+) by more \(largest (\d+) ulp\), edge cases (\w+)", out)
    assert agreement, out
    draws, identical, _, _, beyond, largest, edges = agreement.groups()
    assert int(draws) > 10**7 and float(identical) > 90.0
    assert int(beyond) == 0 and int(largest) <= 2 and edges == "identical"
    for name in ("today", "poly-log"):
        assert re.search(rf"r=5 {name}: [\d.e+]+ config-edge-updates/s/core", out), name


def test_padded_lanes_change_no_number():
    """The 12 curves in one call of 16 lanes (4 copies of the last curve) give the 12-lane
    call's MSE bit for bit: ``bench_scale.py --lanes`` compares digests and says so."""
    out = bench("bench_scale.py", "--sizes", "300", "--degree", "4", "--updates", "1e6", "--networkx-max", "0",
                "--lanes", "12", "16")
    for lanes in (12, 16):
        assert re.search(rf"isa=native lanes={lanes}: [\d.e+]+ config-edge-updates/s/core", out), lanes
    assert "same numbers in every run: yes" in out


def test_vector_widths_compiles_for_another_cpu():
    """The kernel compiles for a CPU this machine need not have: padded to 16 lanes on an
    AMD AVX-512 CPU, its lane arithmetic runs in 512-bit registers and in nothing narrower."""
    out = bench("vector_widths.py", "--cpus", "znver4", "--lanes", "16", "--layouts", "small")
    found = re.search(r"small layout, 16 lanes, znver4: xmm (\d+) ymm (\d+) zmm (\d+)", out)
    assert found, out
    xmm, ymm, zmm = map(int, found.groups())
    assert zmm > 0 and xmm == ymm == 0, found[0]
