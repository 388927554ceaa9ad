"""The Private-C-ColME kernel runs on its fast compilation path, not a silent fallback.

``jit_noalias`` falls back to plain ``numba.njit`` (correct, ~2x slower) when Numba's
internals move; the SLP vectorizer is off in Numba unless the dispatcher turns it on for
the kernel's compilation.  Either loss only shows as a slower benchmark, so test both here.
The kernel in use may come from Numba's disk cache, whose code cannot be inspected: the
test checks its dispatcher, then compiles a fresh in-memory copy for its signatures.
"""

import math
import re

import numba
import numpy as np
import pytest

from colme._jit import _NoAliasDispatcher, call_kernel, jit_noalias, kernel_parameters, uses_noalias
from colme.ccolme.codegen import build_kernel, compiled_kernel
from colme.ccolme.kernel import Workspace, lane_groups, simulate_runs
from colme.ccolme.spec import Curve, PanelSpec
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.seeding import run_generator

CURVES = tuple(Curve(rule, eps, 6.0 if rule == "bernstein" else math.nan)
               for rule in ("oracle", "bernstein", "optimistic") for eps in (1.0, 2.0, 4.0, math.inf))


def _compiled(dtype):
    rng = run_generator(1, "fast-path", 0, "instance")
    classes = Population().assign(20, rng)
    edges = random_regular_edges(4, 20, rng)
    spec = PanelSpec(n_agents=20, degree=4, curves=CURVES, t_record=np.array([3]))
    simulate_runs(spec, classes[None], edges[None], [run_generator(1, "fast-path", 0, "data")], dtype)
    _, lanes = lane_groups(len(CURVES))
    return compiled_kernel(lanes)


def test_kernel_compiled_with_noalias_and_vectorized():
    for dtype in (np.float32, np.float64):
        in_use = _compiled(dtype)
        assert isinstance(in_use, _NoAliasDispatcher), "the kernel fell back to numba.njit"
        assert in_use.slp_vectorize
    # Called by keyword, the dispatcher folds the arguments into its parameter order: one
    # specialization per precision, not one per call site or argument order.
    assert len(in_use.signatures) == 2, in_use.signatures
    fresh = build_kernel(lane_groups(len(CURVES))[1], cache=False)
    for signature in in_use.signatures:
        fresh.compile(signature)
    assert uses_noalias(fresh), "the kernel compiles without noalias array arguments"
    # The unrolled lanes were packed into vector registers by the SLP vectorizer: the
    # per-lane accumulators of the neighbour loops became vector phis (<N x float> in the
    # float32 kernel, <N x double> in the float64 one).  Without SLP there are none (the
    # loop vectorizer only vectorizes a few loops over agents, without vector phis).
    found = set()
    for signature in in_use.signatures:
        ir = fresh.inspect_llvm(signature)
        found.update(re.findall(r"= phi (?:\w+ )*<\d+ x (float|double)>", ir))
    assert found == {"float", "double"}, f"lanes not vectorized (vector phis: {found})"


def test_noalias_detector_tells_the_fallback_apart():
    def copy(out, source):
        for i in range(out.shape[0]):
            out[i] = source[i]

    fast = jit_noalias(copy, cache=False)
    plain = numba.njit(cache=False)(copy)
    assert not uses_noalias(fast)  # nothing compiled yet
    for function in (fast, plain):
        function(np.zeros(3), np.ones(3))
    assert uses_noalias(fast)
    assert not uses_noalias(plain)


def test_kernel_arguments_by_name():
    """The kernel is called by name with its argument groups; a missing or unknown name
    fails with the names, and two arrays that share memory, in any group, are refused
    before the noalias kernel could read one through the other."""
    kernel = compiled_kernel(lane_groups(len(CURVES))[1])
    assert kernel_parameters(kernel) == ("world", "algorithm", "outputs", "workspace", "t_first", "t_last")
    workspace = Workspace.allocate(n_agents=5, n_edges=7, lanes=3, dtype=np.float32)
    arrays = workspace._asdict()
    assert not any(np.may_share_memory(a, b) for i, a in enumerate(arrays.values())
                   for b in list(arrays.values())[i + 1:])
    with pytest.raises(ValueError, match=r"distinct.*workspace\.error and workspace\.error_next"):
        call_kernel(kernel, {"world": None, "algorithm": None, "outputs": None, "t_first": 1, "t_last": 1,
                             "workspace": workspace._replace(error_next=workspace.error)})
    with pytest.raises(TypeError, match=r"missing \['outputs'\].*unknown \['bogus'\]"):
        call_kernel(kernel, {"world": None, "algorithm": None, "workspace": workspace, "t_first": 1, "t_last": 1,
                             "bogus": 0})


@pytest.mark.parametrize("mixed", [False, True])
def test_large_graph_layout_gives_the_same_numbers(mixed):
    """The large graphs' layout (one fused pass per step, uint8 accepted-edge state,
    prefetch; ``kernel_source``) changes the speed only: forced on a small graph, its MSE and diagnostics equal the
    small layout's bit for bit, in both precisions, for shared and mixed panels."""
    from colme.populations import DataLaw

    laws = tuple(DataLaw("beta", s, a=2.0, b=5.0) for s in (0.3, 0.5, 0.4)) if mixed else (DataLaw(),) * 3
    population = Population(laws=laws)
    rng = run_generator(1, "large-layout", 0, "instance")
    classes, edges = population.assign(40, rng), random_regular_edges(6, 40, rng)
    spec = PanelSpec(n_agents=40, degree=6, curves=CURVES[::2], t_record=np.array([1, 7, 60, 400]),
                     population=population)
    assert spec.mixed == mixed
    for dtype in (np.float32, np.float64):
        found = []
        for large in (False, True):
            diagnostics = np.empty((1, len(spec.curves), 3, 4))
            mse = simulate_runs(spec, classes[None], edges[None], [run_generator(1, "large-layout", 0, "data")],
                                dtype, diagnostics, large=large)
            found.append((mse, diagnostics))
        np.testing.assert_array_equal(found[0][0], found[1][0])
        np.testing.assert_array_equal(found[0][1], found[1][1])
    workspace = Workspace.allocate(40, 120, 6, np.float32, large=True)
    assert workspace.accepted.dtype == np.uint8 and workspace.accepted.size == 2 * 120 * 6
    assert workspace.rows.ctypes.data % 64 == 0 and workspace.rows.size == 8 * 40 * 6


@pytest.mark.parametrize("segment", [None, 3])
def test_large_graph_layout_resumes_groups_and_resets_like_the_small_one(segment):
    """The large layout's passes (``fused_pass``: step t's consensus and step t + 1's
    decision in one sweep, state in rows of alternating parity) give the small layout's
    numbers bit for bit also with the global alpha reset (each step's count of changes
    carried to the next pass), the MSE per class, and a run cut in segments of 3 steps
    (odd and even starts, records inside a segment and at its last step)."""
    from colme.progress import Progress

    rng = run_generator(1, "large-resume", 0, "instance")
    classes, edges = Population().assign(30, rng), random_regular_edges(4, 30, rng)
    spec = PanelSpec(n_agents=30, degree=4, curves=CURVES[1::3], t_record=np.array([1, 2, 5, 6, 9, 40]),
                     alpha_reset="global", groups=("class",))
    found = []
    for large in (False, True):
        progress = None
        if segment:
            progress = Progress(interval=0.0, write=lambda *args, **kwargs: None)
            progress.steps = lambda remaining: min(remaining, segment)
        shape = (1, len(spec.curves), spec.n_groups)
        sums, counts = np.empty((*shape, len(spec.t_record))), np.empty(shape, np.int64)
        diagnostics = np.empty((1, len(spec.curves), 3, len(spec.t_record)))
        mse = simulate_runs(spec, classes[None], edges[None], [run_generator(1, "large-resume", 0, "data")],
                            np.float32, diagnostics, progress=progress, large=large, group_sums=sums,
                            group_counts=counts)
        found.append((mse, diagnostics, sums))
    for small, large in zip(*found, strict=True):
        np.testing.assert_array_equal(small, large)


def test_large_graph_layout_prefetches():
    """The large layout's kernel asks for the neighbour rows ahead (llvm.prefetch in its
    code); the small one does not."""
    lanes = lane_groups(len(CURVES))[1]
    _compiled(np.float32)
    signature = compiled_kernel(lanes).signatures[0]
    for large in (False, True):
        fresh = build_kernel(lanes, cache=False, large=large)
        workspace = signature[kernel_parameters(fresh).index("workspace")]
        fields = list(workspace.types)
        if large:
            fields[Workspace._fields.index("accepted")] = numba.types.Array(numba.types.uint8, 1, "C")
        layout_signature = tuple(
            numba.types.NamedTuple(fields, Workspace) if name == "workspace" else arg
            for name, arg in zip(kernel_parameters(fresh), signature, strict=True)
        )
        fresh.compile(layout_signature)
        assert ("llvm.prefetch" in fresh.inspect_llvm(layout_signature)) == large, f"large={large}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_memory_estimate_holds_either_layouts_workspace(dtype):
    """``engine.run_state_bytes`` (a simulate job's memory request) covers the workspace of
    both layouts and one run's world, with at most 10 % to spare over the larger: a new
    workspace array fails it until the estimate counts it."""
    from colme.ccolme.engine import run_state_bytes

    n_agents, n_edges, curves, itemsize = 1000, 5000, 12, np.dtype(dtype).itemsize
    lanes = lane_groups(curves)[1]
    world = 2 * n_edges * (16 + 2 * itemsize) + 32 * n_agents  # CSR rows, offsets, classmates; per agent
    held = max(sum(array.nbytes for array in Workspace.allocate(n_agents, n_edges, lanes, dtype, large=large))
               for large in (False, True)) + world
    estimate = run_state_bytes(n_agents, n_edges, curves, itemsize, runs=0)
    assert held <= estimate <= 1.1 * held
