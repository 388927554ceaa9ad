"""Every compiled kernel takes its arguments in groups (named tuples) and unpacks each by
position: the names it unpacks must be the group's fields, in order, or two arrays of one
type (say ``law_a0`` and ``law_a1``) would silently trade places."""

import ast
import inspect
import textwrap

import pytest

from colme.ccolme import kernel as consensus
from colme.ccolme.template import kernel_source
from colme.datafiles import DataArrays
from colme.populations import KernelLaws
from colme.private_colme import kernel as private_colme
from colme.private_colme.mechanisms import PairState
from colme.scalable import kernel as scalable

KERNELS = {
    "ccolme": (kernel_source(3), {"world": consensus.RunWorld, "algorithm": consensus.LaneCurves,
                                  "outputs": consensus.Records, "workspace": consensus.Workspace}),
    "scalable": (inspect.getsource(scalable._simulate_scalable_run.py_func),
                 {"world": scalable.RunWorld, "algorithm": scalable.CurveArrays, "outputs": scalable.Records,
                  "workspace": scalable.Workspace}),
    "private_colme": (inspect.getsource(private_colme._simulate_colme_run.py_func),
                      {"world": private_colme.RunWorld, "algorithm": private_colme.CurveArrays,
                       "outputs": private_colme.Records, "workspace": private_colme.Workspace, "pairs": PairState}),
}


def unpacked(source: str, function: str) -> dict[str, list[str]]:
    """The names each ``a, b, ... = group`` statement of ``function`` unpacks, by group."""
    tree = ast.parse(textwrap.dedent(source))
    body = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function)
    found = {}
    for node in body.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and isinstance(node.targets[0], ast.Tuple):
            found[node.value.id] = [element.id for element in node.targets[0].elts]
    return found


@pytest.mark.parametrize("engine", sorted(KERNELS))
def test_each_group_is_unpacked_by_its_fields(engine):
    source, groups = KERNELS[engine]
    function = "kernel" if engine == "ccolme" else ("_simulate_scalable_run" if engine == "scalable"
                                                    else "_simulate_colme_run")
    found = unpacked(source, function)
    expected = groups | {"laws": KernelLaws, "data": DataArrays}
    assert set(found) == set(expected), f"{engine}: unpacks {sorted(found)}"
    for group, fields in found.items():
        assert fields == list(expected[group]._fields), f"{engine}: {group}"


def test_a_misordered_unpack_is_caught():
    """The check can fail: the scalable kernel with two laws swapped in its unpacking."""
    source = inspect.getsource(scalable._simulate_scalable_run.py_func).replace(
        "law_code, law_a0, law_a1, law_a2, quantiles = laws", "law_code, law_a1, law_a0, law_a2, quantiles = laws")
    assert unpacked(source, "_simulate_scalable_run")["laws"] != list(KernelLaws._fields)


def test_a_driver_refuses_an_output_array_its_kernel_would_overrun():
    """A compiled kernel writes without bounds checks: an output array of the wrong shape,
    handed to a driver, is refused before the kernel could write past its end."""
    import numpy as np

    from colme.graphs import random_regular_edges
    from colme.scalable.spec import DIAGNOSTICS, ScalableCurve, ScalableSpec

    rng = np.random.default_rng(0)
    spec = ScalableSpec(n_agents=10, curves=(ScalableCurve("c_colme"),), t_record=np.array([1, 2]))
    classes, edges = rng.integers(0, 3, size=(1, 10)), random_regular_edges(4, 10, rng)[None]
    expected = rf"diagnostics has shape \(1, 1, 3, 2\), the kernel writes \(1, 1, {len(DIAGNOSTICS)}, 2\)"
    with pytest.raises(ValueError, match=expected):
        scalable.simulate_scalable_runs(spec, classes, edges, [rng], np.empty((1, 1, 3, 2)))
