"""The C-ColME / B-ColME engine through the workflow's stages: config, curves, chunking."""

import numpy as np
import pytest

from colme.config import ConfigError
from colme.expansion import expand_config
from colme.registry import ENGINES, stage_params
from colme.stages import owner

BASE = {"engine": "scalable", "n_agents": 30, "degree": 4, "t_max": 60, "runs": 4, "chunk_runs": 2,
        "eps": [float("inf"), 2.0], "depths": [1, 3], "grid": {"linear": 10, "log": 5}}


def settings(**entry):
    return expand_config({"seed": 7, "figures": {"f": {**BASE, **entry}}}).figures["f"]


def simulate(figure, start, stop):
    engine = ENGINES["scalable"]
    instances = engine.instances(stage_params(figure, "instances", start, stop), "f", start, stop)
    return engine.simulate(stage_params(figure, "simulate", start, stop), instances, "f")


def test_curves_are_eps_by_rule_by_algorithm_and_depth():
    spec = ENGINES["scalable"].spec(stage_params(settings(), "simulate", 0, 2))
    assert [c.name for c in spec.curves][:4] == ["C-ColME eps=inf", "B-ColME d=1 eps=inf", "B-ColME d=3 eps=inf",
                                                 "C-ColME oracle eps=inf"]
    assert len(spec.curves) == 2 * 2 * 3
    assert "depths" not in stage_params(settings(algorithms=["c_colme"]), "simulate", 0, 2)


def test_numbers_do_not_depend_on_the_chunking():
    figure = settings()
    whole = simulate(figure, 0, 4)
    halves = [simulate(figure, 0, 2), simulate(figure, 2, 4)]
    assert np.array_equal(whole["mse"], np.concatenate([h["mse"] for h in halves]))
    assert np.array_equal(whole["diagnostics"], np.concatenate([h["diagnostics"] for h in halves]), equal_nan=True)


@pytest.mark.parametrize(("entry", "message"), [
    ({"degree": 3, "n_agents": 31}, r"figures\.f\.degree=3 with n_agents=31: an r-regular graph needs"),
    ({"test": "fresh"}, r"test"),
    ({"depths": [0]}, r"depths"),
])
def test_bad_settings_are_refused_naming_the_key(entry, message):
    with pytest.raises(ConfigError, match=message):
        settings(**entry)


def test_sensitivity_variants_flip_the_definitions():
    expansion = expand_config({"seed": 7, "figures": {"f": BASE}}, claimed={"f"})
    flipped = {v.option for v in expansion.variants if v.figure == "f"}
    assert {"test", "exclusions", "alpha_reset", "start", "weights"} <= flipped


def test_a_scalable_figure_draws_a_ccolme_figures_streams():
    """``stream``: the same classes and graphs as the Private-C-ColME figure it names, and
    the same data, so its Local-like start (every estimate the first sample) is paired."""
    ccolme = {"engine": "ccolme", "n_agents": 30, "degree": 4, "t_max": 60, "runs": 2, "chunk_runs": 2,
              "eps": [float("inf")], "theta_k": [5], "grid": {"linear": 10, "log": 5}}
    figures = expand_config({"seed": 7, "figures": {"c": ccolme, "s": {**BASE, "stream": "c"}}}).figures
    engines = {name: ENGINES[figures[name]["engine"]] for name in ("c", "s")}
    drawn = {name: engines[name].instances(stage_params(figures[name], "instances", 0, 2),
                                           owner("instances", name, figures[name]), 0, 2)
             for name in ("c", "s")}
    assert np.array_equal(drawn["c"]["classes"], drawn["s"]["classes"])
    assert np.array_equal(drawn["c"]["edges"], drawn["s"]["edges"])
    own = ENGINES["scalable"].instances(stage_params(settings(), "instances", 0, 2), "s", 0, 2)
    assert not np.array_equal(own["classes"], drawn["s"]["classes"])


@pytest.mark.parametrize(("stream", "message"), [
    ("nowhere", r"figures\.s\.stream='nowhere' names no simulated figure of this configuration; they are \['c', 's'\]"),
    ("c", r"figures\.s\.stream='c': the two figures' instances differ in \['degree'\]"),
])
def test_a_bad_stream_is_refused_naming_the_key(stream, message):
    ccolme = {"engine": "ccolme", "n_agents": 30, "degree": 6}
    with pytest.raises(ConfigError, match=message):
        expand_config({"seed": 7, "figures": {"c": ccolme, "s": {**BASE, "stream": stream}}})
