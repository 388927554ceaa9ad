"""Memory-layout variants of the Private-C-ColME kernel, A/B against today's in one process.

Each variant is today's generated kernel with a textual change, checked bit-identical to it
on a short run, then timed interleaved with it (``--repeat`` rounds, each running every
variant once; CPU time of the kernel's calls, not of ``simulate_runs``'s graph preparation)
on the 12-curve Fig. 1 panel at one M (random r-regular graph, float32, one core).
Printed per variant: the best rate, its ratio to today's best, and the median and range
of the per-round ratios (paired with the same round's today), which show the noise.

* ``interleaved``: the per-agent fields a neighbour costs in one row each (noisy, |C_b|,
  flips for the decision; the weight cap q_b, e_b for the consensus) instead of one array
  per field, so a neighbour touches 2-4 cache lines instead of 5-9;
* ``padded16``: 16 lanes (4 dummy curves) so that every 64-byte row is one cache line;
* ``uint8``: the accepted-edge state as uint8 (12 bytes per edge instead of 48);
* ``uint8sel``: ``uint8`` with selects instead of int/float conversions
  (``now > 0`` stored, ``one if accepted else zero`` read);
* ``counts8``: |C_a| and the flip counts (integers <= r + 1) as uint8, 12 bytes per agent
  instead of 48 each;
* ``index32``: the graph's row indices (neighbour_row, edge_row) as uint32 instead of
  uint64, 8 bytes less streamed per directed edge (the kernel's text is unchanged);
* ``prefetch``: software prefetch (``llvm.prefetch``) of the neighbour rows of the agent
  ``AHEAD`` places further on, in the decision and the consensus loops (both cache lines
  a 48-byte row may straddle), so that more misses are in flight;
* ``own``: each agent decides all its edges from its own end (the rule is symmetric bit
  for bit): no scatter to the neighbours' |C_b| and flips, and the accepted-edge state per
  directed edge in CSR order, read sequentially by the consensus; twice the comparisons;
* ``large``: the kernel's own layout for large graphs (``kernel_source``: one fused pass
  per step, each agent deciding its edges from its own end, parity rows, uint8 and
  prefetch), which ``simulate_runs`` picks from ``LARGE_AGENTS`` agents; every other
  variant, ``today`` included, is of the small one but these:
* ``large-ahead2``, ``large-ahead8``, ``large-ahead16``: the large layout prefetching the
  rows of the agent 2, 8 or 16 places on instead of ``template.PREFETCH_AHEAD``;
  ``large-noprefetch``: without its software prefetch (how far ahead pays depends on the
  CPU's memory latency and on how many misses it keeps in flight);
* ``large-float``: the large layout with the accepted-edge state in the lanes' float
  (4x its memory) instead of uint8: no uint8 <-> float conversion per edge and lane;
  ``large-select``: uint8 kept, written as ``now > 0`` and read as ``one if accepted else
  zero`` (selects instead of conversions);
  ``large-t1``, ``large-t2``, ``large-nta``: the large layout's software prefetch with
  locality 2, 1 or 0 (x86 ``prefetcht1``, ``prefetcht2``, ``prefetchnta``) instead of 3
  (``prefetcht0``): how a prefetch occupies the L1's fill buffers differs by hint and CPU;
  ``large-index32``: the large layout with ``index32``'s uint32 row indices;
  ``large-oneloop``: the large layout with one loop over an agent's edges doing both its
  consensus and its decision (each under its flag, in the same order per edge, the edge's
  row index, offset and verdict of step t read once) instead of a loop for each;
  ``large-previous`` (and ``previous``, the small layout's): the decision as the kernels
  made it until 2026-12-07, the verdict as the maximum of two selects ``max(one if
  abs(gap) < limit else zero, same * oracle)`` and the change as ``abs(now - before)``
  (today's: one select between 1 and the oracle lanes' classmate test, two bounds, a
  square), the uint8 verdicts read as ``one * accepted`` (a conversion and a
  multiplication by the runtime 1.0, today's ``as_state`` converts);
  ``large-select-weight``: the consensus's weight as ``min(q_a, q_b) if accepted else 0``
  instead of ``accepted * min(q_a, q_b)``;
  ``large-boolean``: the verdict as a boolean (the two bounds or an oracle lane's
  classmate) stored as it is and selected into the lanes' float, instead of the float
  stored through a conversion;
* ``a+b``: both changes.

The edge order needs no variant: each agent's neighbours are already sorted (CSR rows,
``csr_neighbours``) and edges are numbered by (lower end, upper end), so the decision
loop reads ``accepted`` sequentially; a random regular graph has no locality for agent
relabelling (e.g. Reverse Cuthill-McKee) to recover.

    python benchmarks/bench_layouts.py [--agents 100000] [--degree 10] [--steps 60] [--repeat 3]
        [--check-steps 20] [--variants today uint8 ...] [--isa native|avx2|wide]

``--isa avx2`` re-runs the script with Numba generating AVX2 code for this CPU (the
environment of ``bench_scale.avx2_target``, with its own compile cache); ``--isa wide``
without LLVM's ``prefer-256-bit`` tuning (``bench_scale.wide_target``).

Measured results and which layout was kept: docs/kernel.md ("Layouts tried at scale").
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from typing import NamedTuple

import numpy as np
from baseline import cpu_description
from bench_scale import ISAS, pad_lanes, panel

import colme.ccolme.kernel as consensus
import colme.ccolme.template as kernel_template
from colme._jit import prefetch_intrinsic
from colme.ccolme import codegen
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.seeding import run_generator

TODAY, TODAY_WORKSPACE = kernel_template._TEMPLATE, consensus.Workspace
LARGE_STEPS, PREFETCH_AHEAD = kernel_template._LARGE_TEMPLATE, kernel_template.PREFETCH_AHEAD
LANES = 12
#: Agents ahead whose neighbour rows the ``prefetch`` variant asks for.
AHEAD = 4


def small_layout(template: str) -> str:
    """The template with its layout tags resolved for the small layout (``#:large`` lines
    dropped, ``small`` taken out of the tags), which every variant but ``large`` changes."""
    lines = []
    for line in template.splitlines():
        tag = re.search(r"\s*#:(\w+)$", line)
        parts = tag[1].split("_") if tag else []
        if "large" in parts:
            continue
        if "small" in parts:
            kept = [part for part in parts if part != "small"]
            line = line[:tag.start()] + (f"  #:{'_'.join(kept)}" if kept else "")
        lines.append(line)
    return "\n".join(lines) + "\n"


def _once(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, f"expected one {old!r}"
    return source.replace(old, new)


#: The per-agent fields each interleaved row holds, by row array.
ROWS = {"decision_rows": ("noisy", "set_size", "flips"), "consensus_rows": ("weight_cap", "error")}


def interleaved(template: str) -> str:
    """Decision fields in rows of 3 x LANES, consensus fields in rows of 2 x LANES."""
    source = template.replace(
        "accepted, clock, noisy, error, error_next, set_size, weight_cap, flips, threshold,",
        "accepted, clock, decision_rows, consensus_rows, error_next, threshold,")
    for field, row in (("noisy", "decision_rows[D3 * \\1 + U@]"),
                       ("set_size", "decision_rows[D3 * \\1 + LANES + U@]"),
                       ("flips", "decision_rows[D3 * \\1 + LANES + LANES + U@]"),
                       ("weight_cap", "consensus_rows[C2 * \\1 + U@]"),
                       ("error", "consensus_rows[C2 * \\1 + LANES + U@]")):
        source = re.sub(rf"\b{field}\[(\w+) \+ U@\]", row, source)
    source = _once(
        source,
        "    for i in range(error.shape[0]):\n        error[i] = error_next[i]",
        "    for a in range(indptr.shape[0] - 1):\n        ra = np.uint64(a) * LANES\n"
        "        consensus_rows[C2 * ra + LANES + U@] = error_next[ra + U@]")
    # The steps' parameter and argument lists: each field's name becomes its row's, once.
    for rows, names in ROWS.items():
        source = re.sub(rf"\b({'|'.join(names)})\b(?!\[)", rows, source)

    def once_each(match):
        items = [item.strip() for item in match[1].split(",")]
        return "(" + ", ".join(dict.fromkeys(item for item in items if item)) + ")"

    source = re.sub(r"\(([^()#]*\b(?:decision|consensus)_rows\b[^()#]*)\)", once_each, source)
    return "D3 = np.uint64(3)\nC2 = np.uint64(2)\n" + source


def compact_accepted(template: str) -> str:
    """The accepted-edge state stored as uint8 (0 or 1), read back as the lane's float."""
    source = template.replace("accepted[re + U@] = now@", "accepted[re + U@] = np.uint8(now@)")
    return re.sub(r"(?<![\w(* ])accepted\[re \+ U@\](?! =)", "(one * accepted[re + U@])", source)


def compact_accepted_select(template: str) -> str:
    """``compact_accepted`` with selects instead of conversions: stored as ``now > 0``, read
    back as ``one if accepted else zero`` (the same 0.0/1.0, so the same products)."""
    source = template.replace("accepted[re + U@] = now@", "accepted[re + U@] = np.uint8(now@ > zero)")
    return re.sub(r"one \* accepted\[re \+ U@\](?! =)", "(one if accepted[re + U@] else one - one)", source)


def compact_counts(template: str) -> str:
    """|C_a| and the flip counts stored as uint8 (integers <= r + 1), read back as the lane's float."""
    for field in ("set_size", "flips"):
        template = re.sub(rf"\b{field}\[(\w+) \+ U@\] \+= (.+)",
                          rf"{field}[\1 + U@] = np.uint8({field}[\1 + U@] + \2)", template)
        template = re.sub(rf"\b{field}\[(\w+) \+ U@\] = (?!np\.uint8)(.+)", rf"{field}[\1 + U@] = np.uint8(\2)",
                          template)
        template = re.sub(rf"(?<![\w(])\b{field}\[(\w+) \+ U@\](?! =)", rf"(one * {field}[\1 + U@])", template)
    return template


def prefetched(template: str) -> str:
    """Prefetch the rows agent a + AHEAD's edges will read, in the decision and consensus loops."""
    def rows(first, arrays, edge=False):
        lines = [f"        ahead = a + {AHEAD}",
                 "        if ahead < indptr.shape[0] - 1:",
                 f"            for j in range({first}[ahead], indptr[ahead + 1]):",
                 "                pb = neighbour_row[j]",
                 "                pe = pb + LANES - np.uint64(1)"]
        lines += [f"                prefetch({name}, {row})" for name in arrays for row in ("pb", "pe")]
        if edge:
            lines += ["                prefetch(accepted, edge_row[j])"]
        return "\n".join(lines) + "\n"

    decision, consensus_step = "        mine@ = noisy[ra + U@]\n", "        own@ = weight_cap[ra + U@]\n"
    source = _once(template, decision, rows("upper", ("noisy", "set_size", "flips")) + decision)
    return _once(source, consensus_step, rows("indptr", ("weight_cap", "error"), edge=True) + consensus_step)


def own_decisions(template: str) -> str:
    """Each agent decides all its edges from its own end (the rule is symmetric bit for bit),
    so the decision loop scatters nothing to its neighbours' |C_b| and flips, and the
    accepted-edge state is per directed edge in CSR order (``directed_rows``): the consensus reads
    it sequentially instead of gathering half of it.  Twice the comparisons, no scatter."""
    start = template.index("def decide(")
    end = template.index("@step", start)
    decide = template[start:end]
    decide = _once(decide, "for k in range(upper[a], indptr[a + 1]):", "for k in range(indptr[a], indptr[a + 1]):")
    decide = _once(decide, "            set_size[rb + U@] += now@\n", "")
    decide = _once(decide, "            flips[rb + U@] += change@\n", "")
    return template[:start] + decide + template[end:]


class WorldRewrite:
    """The kernel called with some of its ``world`` group's arrays replaced: ``rewrite(world)``
    returns them by field name (the variant's other parameters are the kernel's own)."""

    def __init__(self, kernel, rewrite):
        self.kernel, self.py_func, self.rewrite = kernel, kernel.py_func, rewrite

    def __call__(self, **arguments):
        world = arguments["world"]
        self.kernel(**{**arguments, "world": world._replace(**self.rewrite(world))})


def directed_rows(world):
    """One accepted-edge row per directed edge, in CSR order."""
    return {"edge_row": np.arange(len(world.edge_row), dtype=np.uint64) * np.uint64(LANES)}


def index32_rows(world):
    """The graph's row indices as uint32 (same values)."""
    rows = {name: getattr(world, name) for name in ("neighbour_row", "edge_row")}
    assert all(row.max(initial=0) < 2**32 for row in rows.values())
    return {name: row.astype(np.uint32) for name, row in rows.items()}


class InterleavedWorkspace(NamedTuple):
    """The ``interleaved`` kernel's workspace group, in the order its unpacking reads it."""

    accepted: np.ndarray
    clock: np.ndarray
    decision_rows: np.ndarray
    consensus_rows: np.ndarray
    error_next: np.ndarray
    threshold: np.ndarray
    pair_threshold: np.ndarray
    sample_sum: np.ndarray
    noise_sum: np.ndarray
    group_squared: np.ndarray
    rows: np.ndarray
    change_count: np.ndarray


def workspace_class(layout: str, accepted_dtype, counts_dtype=None, directed=False):
    """A class whose ``allocate`` gives the layout's scratch arrays, accepted in ``accepted_dtype``
    (per directed edge if ``directed``) and |C_a|, flips in ``counts_dtype`` (None: the lanes' dtype)."""

    class Workspace:
        @staticmethod
        def allocate(n_agents, n_edges, lanes, dtype, n_pairs=1, large=False, n_groups=1):
            accepted = np.zeros((2 if directed else 1) * n_edges * lanes, dtype=accepted_dtype or dtype)
            if layout == "interleaved":
                def zeros(n):
                    return np.zeros(n, dtype=dtype)

                return InterleavedWorkspace(accepted, zeros(n_agents * lanes), zeros(3 * n_agents * lanes),
                                            zeros(2 * n_agents * lanes), zeros(n_agents * lanes), zeros(lanes),
                                            zeros(n_pairs * lanes), np.zeros(n_agents), np.zeros(n_agents),
                                            np.zeros(n_groups * lanes), zeros(0), zeros(lanes))
            arrays = TODAY_WORKSPACE.allocate(n_agents, n_edges, lanes, dtype, n_pairs, large, n_groups)._asdict()
            counts = {name: np.zeros(n_agents * lanes, dtype=counts_dtype) for name in ("set_size", "flips")}
            return TODAY_WORKSPACE(**{**arrays, "accepted": accepted, **(counts if counts_dtype else {})})

    return Workspace


class Timed:
    """The kernel, adding the CPU seconds of its calls to ``seconds``."""

    def __init__(self, kernel):
        self.kernel, self.py_func, self.seconds = kernel, kernel.py_func, 0.0

    def __call__(self, **arguments):
        start = time.process_time()
        self.kernel(**arguments)
        self.seconds += time.process_time() - start


#: Variant name -> the changes it makes (see the module's docstring).
VARIANTS = {
    "today": (),
    "interleaved": ("interleaved",),
    "padded16": ("padded16",),
    "uint8": ("uint8",),
    "index32": ("index32",),
    "prefetch": ("prefetch",),
    "interleaved+uint8": ("interleaved", "uint8"),
    "uint8+index32": ("uint8", "index32"),
    "uint8+prefetch": ("uint8", "prefetch"),
    "counts8": ("counts8",),
    "previous": ("previous",),
    "uint8sel": ("uint8sel",),
    "interleaved+uint8+index32": ("interleaved", "uint8", "index32"),
    "uint8+counts8+index32": ("uint8", "counts8", "index32"),
    "own": ("own",),
    "own+uint8": ("own", "uint8"),
    "own+uint8+prefetch": ("own", "uint8", "prefetch"),
    "large": ("large",),
    "large-ahead2": ("large", "ahead2"),
    "large-ahead8": ("large", "ahead8"),
    "large-ahead16": ("large", "ahead16"),
    "large-noprefetch": ("large", "noprefetch"),
    "large-float": ("large", "float"),
    "large-select": ("large", "select"),
    "large-index32": ("large", "index32"),
    "large-oneloop": ("large", "oneloop"),
    "large-previous": ("large", "previous"),
    "large-select-weight": ("large", "weight"),
    "large-boolean": ("large", "boolean"),
    "large-t1": ("large", "locality2"),
    "large-t2": ("large", "locality1"),
    "large-nta": ("large", "locality0"),
}


def timed_rounds(seconds_of, names, repeat: int) -> dict[str, list[float]]:
    """``seconds_of(name)`` for every name, ``repeat`` rounds each running every name once:
    drifts of the machine hit every variant alike."""
    times = {name: [] for name in names}
    for _ in range(repeat):
        for name in names:
            times[name].append(seconds_of(name))
    return times


#: The large layout's software prefetch (``large-noprefetch`` drops it).
PREFETCH_BLOCK = """        ahead = a + PREFETCH_AHEAD
        if ahead < indptr.shape[0] - 1:
            for j in range(indptr[ahead], indptr[ahead + 1]):
                prefetch_fields(rows, FIELDS * neighbour_row[j] + here)
"""


#: ``fused_pass``'s work per agent: a head, a loop over its edges and a tail for the
#: consensus, under its flag, then the same for the decision.
TWO_LOOPS = re.compile(
    r"^        if consensus_now:\n(?P<consensus_head>(?:            (?!for ).*\n)*)"
    r"            for k in range\(indptr\[a\], indptr\[a \+ 1\]\):\n(?:                .*\n)+"
    r"(?P<consensus_tail>(?:            .*\n)+?)"
    r"        if decide_next:\n(?P<decision_head>(?:            (?!for ).*\n)*)"
    r"            for k in range\(indptr\[a\], indptr\[a \+ 1\]\):\n(?:                .*\n)+"
    r"(?P<decision_tail>(?:            .*\n)+)", re.MULTILINE)

#: ``large-oneloop``'s loop over an agent's edges: the consensus's and the decision's work
#: per edge, each under its flag, the row index, offset and verdict of step t read once.
ONE_LOOP = """        for k in range(indptr[a], indptr[a + 1]):
            nb = neighbour_row[k]
            rb = FIELDS * nb + here
            rk = np.uint64(k) * LANES
            d = offset[k]
            before@ = as_state(accepted[rk + U@], one)
            if consensus_now:
                w@ = before@ * min(own@, rows[rb + CAP + U@])
                pull@ += w@ * (rows[rb + ERROR + U@] - d - error@)
            if decide_next:
                lower = k < upper[a]
                pair@ = profile_row[nb + U@] + col@ if lower else row@ + profile_col[nb + U@]  #:mixed
                limit@ = pair_threshold[pair@ + U@]  #:mixed
                low@ = zero - limit@  #:mixed
                classmate@ = same[k] * oracle@
                gap@ = noisy@ - rows[rb + NOISY + U@] + d
                now@ = one if (gap@ < limit@) & (gap@ > low@) else classmate@
                accepted[rk + U@] = np.uint8(now@)
                size@ += now@
                moved@ = now@ - before@
                flip@ += moved@ * moved@
"""


def one_loop(steps: str) -> str:
    """``fused_pass`` with ``ONE_LOOP`` between the heads and the tails of its two loops."""
    parts = TWO_LOOPS.search(steps)
    assert parts, "expected a consensus loop and then a decision loop"
    found = parts.groupdict()
    merged = (f"        if consensus_now:\n{found['consensus_head']}        if decide_next:\n{found['decision_head']}"
              f"{ONE_LOOP}        if consensus_now:\n{found['consensus_tail']}"
              f"        if decide_next:\n{found['decision_tail']}")
    return steps[:parts.start()] + merged + steps[parts.end():]


#: The decision's verdict and change as the kernels make them: a select between 1 and the
#: oracle lanes' classmate test, |gap| < limit as two bounds, the change as a square.
VERDICT = re.compile(r"^( +)classmate@ = (.+)\n\1gap@ = (.+)\n"
                     r"\1now@ = one if \(gap@ < limit@\) & \(gap@ > low@\) else classmate@\n"
                     r"\1moved@ = (.+)\n\1change@ = moved@ \* moved@$", re.MULTILINE)


def previous_formulas(template: str) -> str:
    """The decision's verdict and change as the kernels made them until 2026-12-07: the
    maximum of two selects, absolute values (``previous``, ``large-previous``)."""
    found, count = VERDICT.subn(r"\1now@ = max(one if abs(\3) < limit@ else zero, \2)\n\1change@ = abs(\4)",
                                template)
    assert count == 1, "expected one verdict"
    return found


def verdicts_read_as(steps: str, expression: str) -> str:
    """The large layout's ``steps`` with every read of a uint8 verdict (the consensus's and
    the decision's) written as ``expression`` instead of ``as_state``."""
    read = "as_state(accepted[rk + U@], one)"
    assert read in steps, f"expected {read!r}"
    return steps.replace(read, expression)


def large_template(changes: tuple[str, ...]) -> tuple[str, int]:
    """The large layout's steps and prefetch distance for a ``large`` variant."""
    ahead = next((int(change[len("ahead"):]) for change in changes if change.startswith("ahead")), PREFETCH_AHEAD)
    steps = LARGE_STEPS
    if "noprefetch" in changes:
        steps = _once(steps, PREFETCH_BLOCK, "")
    if "oneloop" in changes:
        steps = one_loop(steps)
    if "float" in changes:
        steps = _once(steps, "accepted[rk + U@] = np.uint8(now@)", "accepted[rk + U@] = now@")
    if "select" in changes:
        steps = _once(steps, "accepted[rk + U@] = np.uint8(now@)", "accepted[rk + U@] = np.uint8(now@ > zero)")
        steps = verdicts_read_as(steps, "(one if accepted[rk + U@] else zero)")
    if "previous" in changes:
        steps = verdicts_read_as(previous_formulas(steps), "(one * accepted[rk + U@])")
    if "boolean" in changes:
        steps = _once(steps, "    oracle@ = one if by_class[@] > 0.0 else zero\n",
                      "    oracle@ = one if by_class[@] > 0.0 else zero\n    knows@ = by_class[@] > 0.0\n")
        steps = _once(steps, "                now@ = one if (gap@ < limit@) & (gap@ > low@) else classmate@",
                      "                classmates = same[k] > 0.0\n"
                      "                verdict@ = ((gap@ < limit@) & (gap@ > low@)) | (classmates & knows@)\n"
                      "                now@ = one if verdict@ else zero")
        steps = _once(steps, "accepted[rk + U@] = np.uint8(now@)", "accepted[rk + U@] = verdict@")
    if "weight" in changes:
        steps = _once(steps, "w@ = as_state(accepted[rk + U@], one) * min(own@, rows[rb + CAP + U@])",
                      "cap@ = rows[rb + CAP + U@]\n                w@ = min(own@, cap@) if accepted[rk + U@] else zero")
    locality = next((change[-1] for change in changes if change.startswith("locality")), None)
    if locality is not None:
        steps = steps.replace("    prefetch(rows,", "    prefetch_hinted(rows,")
        steps = f"from bench_layouts import PREFETCH_HINTED\nprefetch_hinted = PREFETCH_HINTED[{locality}]\n{steps}"
    return steps, ahead


#: The large layout's prefetch with a lower locality hint (``large-t1``, ...), by hint.
PREFETCH_HINTED = {locality: prefetch_intrinsic(locality) for locality in range(3)}


def variant(changes: tuple[str, ...]):
    """(template, workspace class, lanes, kernel wrapper) of a set of changes (``large``:
    the kernel's own layout for large graphs, ``kernel_source``; its steps come from
    ``large_template``)."""
    rewrite = index32_rows if "index32" in changes else directed_rows if "own" in changes else None
    wrap = (lambda kernel: WorldRewrite(kernel, rewrite)) if rewrite else (lambda kernel: kernel)
    if "large" in changes:  # float verdicts: per directed edge, in the lanes' float
        workspace = workspace_class("today", None, directed=True) if "float" in changes else TODAY_WORKSPACE
        return TODAY, workspace, LANES, wrap
    template = small_layout(TODAY)
    if "own" in changes:
        template = own_decisions(template)
    if "uint8" in changes:
        template = compact_accepted(template)
    if "uint8sel" in changes:
        template = compact_accepted_select(template)
    if "counts8" in changes:
        template = compact_counts(template)
    if "previous" in changes:
        template = previous_formulas(template)
    if "interleaved" in changes:
        template = interleaved(template)
    if "prefetch" in changes:
        template = prefetched(template)
    layout = "interleaved" if "interleaved" in changes else "today"
    workspace = workspace_class(layout, np.uint8 if {"uint8", "uint8sel"} & set(changes) else None,
                                np.uint8 if "counts8" in changes else None, "own" in changes)
    if changes == ():
        workspace = TODAY_WORKSPACE
    return template, workspace, 16 if "padded16" in changes else LANES, wrap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=float, default=1e5)
    parser.add_argument("--degree", type=int, default=10)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--check-steps", type=int, default=20, help="steps of the bit-identity check")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--isa", choices=sorted(ISAS), default="native")
    args = parser.parse_args()
    target = ISAS[args.isa]()
    if any(os.environ.get(name) != value for name, value in target.items()):
        cache = tempfile.mkdtemp(prefix=f"colme-layouts-{args.isa}-")
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, **target, "NUMBA_CACHE_DIR": cache})
    names = ["today", *[name for name in args.variants if name != "today"]]
    n_agents = int(args.agents)
    edges = random_regular_edges(args.degree, n_agents, run_generator(1, "scale", 0, "instance"))[None]
    classes = Population().assign(n_agents, run_generator(2, "scale", 0, "instance"))[None]
    built = {}
    for name in names:
        template, workspace, lanes, wrap = variant(VARIANTS[name])
        large = "large" in VARIANTS[name]
        kernel_template._TEMPLATE = template
        kernel_template._LARGE_TEMPLATE, kernel_template.PREFETCH_AHEAD = large_template(VARIANTS[name])
        built[name] = (Timed(wrap(codegen.build_kernel(lanes, large=large))), workspace, lanes, large)
    kernel_template._TEMPLATE = TODAY
    kernel_template._LARGE_TEMPLATE, kernel_template.PREFETCH_AHEAD = LARGE_STEPS, PREFETCH_AHEAD

    def run(name, steps):
        kernel, workspace, lanes, large = built[name]
        codegen._KERNELS[codegen.kernel_key(lanes, False, large)], kernel.seconds = kernel, 0.0
        consensus.Workspace = workspace
        pad_lanes(lanes)
        mse = consensus.simulate_runs(panel(n_agents, args.degree, steps), classes, edges,
                                      [run_generator(1, "scale", 0, "data")], np.float32, large=large)
        return kernel.seconds, mse

    original = (consensus.Workspace, consensus.lane_groups, dict(codegen._KERNELS))
    try:
        reference = run("today", args.check_steps)[1]
        for name in names:
            assert np.array_equal(run(name, args.check_steps)[1], reference), f"{name} is not bit-identical"
        times = timed_rounds(lambda name: run(name, args.steps)[0], names, args.repeat)
    finally:
        consensus.Workspace, consensus.lane_groups = original[:2]
        codegen._KERNELS.clear()
        codegen._KERNELS.update(original[2])
    print(cpu_description())
    print(f"M={n_agents} r={args.degree} steps={args.steps} repeat={args.repeat} "
          f"(bit-identical to today over {args.check_steps} steps: {', '.join(names)})")
    updates = n_agents * args.degree * LANES * args.steps
    best = {name: min(seconds) for name, seconds in times.items()}
    for name in names:
        paired = [today / mine for today, mine in zip(times["today"], times[name], strict=True)]
        print(f"M={n_agents} r={args.degree} layout={name}: {updates / best[name]:.3e} config-edge-updates/s/core "
              f"(x{best['today'] / best[name]:.2f} today; per round median x{statistics.median(paired):.2f}, "
              f"x{min(paired):.2f}-x{max(paired):.2f})", flush=True)


if __name__ == "__main__":
    main()
