"""A researcher's own mixing weights (colme.ccolme.weight_rules): a per-agent cap q,
W_ab = min(q_a, q_b); eq. (2) and Metropolis through the same interface; the Laplacian
example doubly stochastic and non-negative; caps that would make W negative, and bad
files, refused before any job naming the key, the file and the function; an edited file
reruns exactly its figures."""

import math
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from reference import reference_run

from colme.ccolme.kernel import simulate_runs
from colme.ccolme.rules import WEIGHT_OFFSETS
from colme.ccolme.spec import Curve, PanelSpec
from colme.ccolme.weight_rules import WeightRule, builtin_weights, inverse_size, user_weights
from colme.config import ConfigError
from colme.expansion import expand_config
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.registry import ENGINES, stage_params
from colme.seeding import run_generator

ROOT = Path(__file__).resolve().parents[2]
BASE = {
    "engine": "ccolme", "n_agents": 24, "degree": 4, "t_max": 150, "runs": 2, "chunk_runs": 2,
    "grid": {"linear": 15, "log": 10}, "rules": ["oracle", "bernstein"], "eps": [1, math.inf], "theta_k": [8, 7],
}
COPIES = textwrap.dedent('''
    def eq2_copy(size, degree, n_agents):
        """eq. (2) of Private-C-ColME as a cap: q = 1/(|C_a| + 1)."""
        return 1.0 / (size + 1.0)


    def metropolis_copy(size, degree, n_agents):
        """Metropolis weights as a cap: q = 1/|C_a|."""
        return 1.0 / size
''')
LAPLACIAN = {"file": "weights/laplacian.py", "function": "laplacian"}


def workflow_folder(tmp_path, monkeypatch) -> Path:
    """``tmp_path`` as the workflow's folder (weight files are relative to it), with the
    shipped examples under weights/ and the copies of the built-in weights in copies.py."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "experiments" / "weights", tmp_path / "weights", dirs_exist_ok=True)
    (tmp_path / "copies.py").write_text(COPIES)
    return tmp_path


def figure(**settings) -> dict:
    """Figure ``f``'s resolved settings (so that two configs draw the same instances and data)."""
    return expand_config({"seed": 5, "figures": {"f": {**BASE, **settings}}}).figures["f"]


def simulate(settings):
    """MSE by curve name and the diagnostics of a figure's two runs, through the engine."""
    engine = ENGINES["ccolme"]
    instances = engine.instances(stage_params(settings, "instances", 0, 2), "f", 0, 2)
    out = engine.simulate(stage_params(settings, "simulate", 0, 2), instances, "f")
    return {name: out["mse"][:, i] for i, name in enumerate(out["curves"])}, out["diagnostics"]


def test_builtin_caps_divide_in_the_lanes_precision_and_equal_the_rounded_float64_quotient():
    """A built-in rule's offset reaches the kernel in the lanes' dtype, so its cap divides in
    float32 in the float32 kernel: the float64 quotient rounded to float32 (the kernel's
    numbers before) bit for bit, at every set size up to 2^20.  A researcher's parameters
    stay float64."""
    sizes = np.arange(1, 2**20, dtype=np.float64)
    for name, rule in builtin_weights().items():
        for dtype in (np.float32, np.float64):
            (offset,) = rule.param_array(dtype)
            assert offset.dtype == dtype and offset == WEIGHT_OFFSETS[name]
            caps = inverse_size(sizes.astype(dtype), 0.0, 0, offset)
            assert caps.dtype == dtype
            assert np.array_equal(caps, (1.0 / (sizes + WEIGHT_OFFSETS[name])).astype(dtype))
    own = WeightRule("own", "inverse_size", (("offset", 1.0),), file="own.py", sha256="0" * 64)
    assert own.param_array(np.float32).dtype == np.float64


@pytest.mark.parametrize(("weights", "function", "population"), [
    ("eq2", "eq2_copy", {}),
    ("eq2", "eq2_copy", {"population": {"sigma": [0.3, 0.5, 0.9]}}),
    ("metropolis", "metropolis_copy", {}),
], ids=["eq2-shared", "eq2-mixed", "metropolis-shared"])
def test_a_user_copy_of_the_builtin_weights_gives_their_numbers_bit_for_bit(tmp_path, monkeypatch, weights,
                                                                            function, population):
    workflow_folder(tmp_path, monkeypatch)
    builtin = simulate(figure(weights=weights, **population))
    copy = simulate(figure(weight_rule={"file": "copies.py", "function": function}, **population))
    assert builtin[0].keys() == copy[0].keys()
    for name in builtin[0]:
        assert np.array_equal(builtin[0][name], copy[0][name]), name
    assert np.array_equal(builtin[1], copy[1], equal_nan=True)


def laplacian_spec(tmp_path, monkeypatch, step: float) -> PanelSpec:
    """A 16-agent, 4-regular panel of the three rules mixing with the Laplacian example's
    W = I - step L (experiments/weights/laplacian.py), probed up to set size 5."""
    workflow_folder(tmp_path, monkeypatch)
    curves = (Curve("oracle", 1.0), Curve("bernstein", 1.0, 6.0), Curve("optimistic", math.inf))
    rule = user_weights({**LAPLACIAN, "params": {"step": step}}, "test", probe=(5, 4.0, 16))
    return PanelSpec(n_agents=16, degree=4, curves=curves, t_record=np.array([1, 2, 5, 17, 40, 90, 150]),
                     weight_rule=rule)


def test_laplacian_weights_are_doubly_stochastic_and_non_negative_and_the_kernel_follows_them(tmp_path,
                                                                                               monkeypatch):
    """W = I - step L of the accepted graph at step = 1/r, the largest step allowed: the
    dense transcription's W at every step, and the kernel's numbers against it."""
    spec = laplacian_spec(tmp_path, monkeypatch, 0.25)
    rng = run_generator(3, "laplacian", 0, "instance")
    classes = Population().assign(16, rng)
    edges = random_regular_edges(4, 16, rng)
    seen = {"full_rows": 0}

    def check(t, curve, chi, weights):
        np.testing.assert_allclose(weights.sum(axis=0), 1.0, atol=1e-12)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
        assert weights.min() >= 0.0
        assert np.array_equal(weights[chi], np.full(chi.sum(), 0.25))  # W_ab = step, accepted b
        seen["full_rows"] += int((chi.sum(axis=1) == 4).sum())  # W_aa = 0 there

    expected = reference_run(spec, classes, edges, run_generator(5, "laplacian", 0, "data"), on_step=check)
    assert seen["full_rows"] > 0
    kernel = simulate_runs(spec, classes[None], edges[None], [run_generator(5, "laplacian", 0, "data")],
                           np.float64)[0]
    np.testing.assert_allclose(kernel, expected, rtol=1e-9, atol=1e-12)


def test_the_laplacian_example_runs_in_a_figure(tmp_path, monkeypatch):
    workflow_folder(tmp_path, monkeypatch)
    settings = figure(weight_rule={**LAPLACIAN, "params": {"step": 0.2}})
    mse, _ = simulate(settings)
    eq2, _ = simulate(figure())
    assert all(np.isfinite(values).all() for values in mse.values())
    assert not np.array_equal(mse["bernstein eps=1"], eq2["bernstein eps=1"])
    assert "weights weights/laplacian.py:laplacian, step 0.2" in ENGINES["ccolme"].details(settings)


@pytest.mark.parametrize(("graph", "step", "size", "largest"), [
    ({}, 0.26, 5, 1 / 4),  # r = 4: sets up to 5 agents, step <= 1/4
    ({"graph": {"family": "ring_lattice", "k": 2}}, 0.6, 3, 1 / 2),  # k = 2: step <= 1/2
    ({"graph": {"family": "erdos_renyi", "mean_degree": 4}}, 0.1, 12, 1 / 23),  # degrees drawn: sets up to M = 24
], ids=["random_regular", "ring_lattice", "erdos_renyi"])
def test_a_step_above_one_over_the_degree_is_refused_before_any_job(tmp_path, monkeypatch, graph, step, size,
                                                                    largest):
    workflow_folder(tmp_path, monkeypatch)
    with pytest.raises(ConfigError, match=(
        rf"figures\.f\.weight_rule: weights/laplacian\.py:laplacian returns q = {step} at set size s = {size} "
        rf".*above 1/\(s - 1\) = {1 / (size - 1)!r}")):
        figure(weight_rule={**LAPLACIAN, "params": {"step": step}}, **graph)
    figure(weight_rule={**LAPLACIAN, "params": {"step": largest}}, **graph)  # the largest step allowed


HEADER = "def cap(size, degree, n_agents):\n"
BAD_FILES = {
    "no_function": ("def other(size):\n    return 0.1\n",
                    r"weight_rule\.function: bad\.py defines no function 'cap'; its functions: \['other'\]"),
    "wrong_arguments": ("def cap(size, step):\n    return step\n",
                        r"weight_rule: bad\.py:cap must take the arguments \['size', 'degree', 'n_agents'\] first"),
    "not_compiled": ("import fractions\n\n\n" + HEADER + "    return float(fractions.Fraction(1, 8))\n",
                     r"weight_rule: Numba cannot compile bad\.py:cap"),
    "raises": (HEADER + "    return 1.0 / (size - 3.0) if size == 3.0 else 0.1\n",
               r"weight_rule: bad\.py:cap raises ZeroDivisionError.* at \{'size': 3\.0"),
    "negative": (HEADER + "    return -0.1\n", r"weight_rule: bad\.py:cap returns q = -0\.1 at set size s = 1 .*>= 0"),
    "nan": ("import math\n\n\n" + HEADER + "    return math.sqrt(-size)\n",
            r"weight_rule: bad\.py:cap returns q = nan at set size s = 1"),
    "import_error": ("import not_a_module\n", r"weight_rule\.file: bad\.py cannot be imported: ModuleNotFoundError"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_weight_file_is_refused_before_any_job_naming_file_and_function(tmp_path, monkeypatch, case):
    source, message = BAD_FILES[case]
    workflow_folder(tmp_path, monkeypatch)
    (tmp_path / "bad.py").write_text(source)
    with pytest.raises(ConfigError, match=r"figures\.f\." + message):
        figure(weight_rule={"file": "bad.py", "function": "cap"})


@pytest.mark.parametrize(("entry", "message"), [
    ({"file": "missing.py", "function": "cap"}, r"weight_rule\.file: 'missing\.py' is not a file"),
    ({**LAPLACIAN, "params": {"step": 0.1, "k": 1}}, r"weight_rule\.params: \['k'\] are not parameters"),
    (LAPLACIAN, r"weight_rule\.params: weights/laplacian\.py:laplacian needs a value for \['step'\]"),
])
def test_bad_weight_entries_name_the_key(tmp_path, monkeypatch, entry, message):
    workflow_folder(tmp_path, monkeypatch)
    with pytest.raises(ConfigError, match=r"figures\.f\." + message):
        figure(weight_rule=entry)


def test_editing_a_weight_file_changes_the_params_of_exactly_the_figures_using_it(tmp_path, monkeypatch):
    """A job reruns when its params change: the file's digest is in the params of the
    figures that use it (in place of the weights they do not read), and figures without a
    weight_rule have no such key."""
    workflow_folder(tmp_path, monkeypatch)
    uses = {**BASE, "weight_rule": {**LAPLACIAN, "params": {"step": 0.2}}}
    config = {"figures": {"uses": uses, "plain": BASE, "metropolis": {**BASE, "weights": "metropolis"}}}

    def params():
        settings = expand_config(config).figures
        return {name: (stage_params(s, "instances", 0, 2), stage_params(s, "simulate", 0, 2))
                for name, s in settings.items()}

    before = params()
    assert "weight_rule" not in before["plain"][1] and before["plain"][1]["weights"] == "eq2"
    assert "weights" not in before["uses"][1] and before["uses"][1]["weight_rule"]["params"] == {"step": 0.2}
    path = tmp_path / "weights" / "laplacian.py"
    path.write_text(path.read_text() + "\n# an edit\n")
    after = params()
    assert after["uses"][1] != before["uses"][1] and after["uses"][0] == before["uses"][0]
    unchanged = ("plain", "metropolis")
    assert {name: after[name] for name in unchanged} == {name: before[name] for name in unchanged}


def test_a_job_refuses_a_weight_file_edited_after_planning(tmp_path, monkeypatch):
    workflow_folder(tmp_path, monkeypatch)
    params = stage_params(figure(weight_rule={**LAPLACIAN, "params": {"step": 0.2}}), "simulate", 0, 2)
    (tmp_path / "weights" / "laplacian.py").write_text("def laplacian(size, degree, n_agents, step):\n    return 0.0\n")
    with pytest.raises(ConfigError, match=r"weight_rule\.file: .*changed since this job was planned"):
        ENGINES["ccolme"].spec(params)


def test_a_weight_rule_replaces_the_weights_option_of_the_sensitivity_analysis(tmp_path, monkeypatch):
    workflow_folder(tmp_path, monkeypatch)
    engine = ENGINES["ccolme"]
    assert "weights" in engine.interpretation_options(figure())
    assert "weights" not in engine.interpretation_options(figure(weight_rule={**LAPLACIAN, "params": {"step": 0.2}}))
