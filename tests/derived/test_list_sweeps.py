"""Sweeps over list entries (a mix's share, a class probability, a class mean) and their
axes' scales (``colme.derived.sweeps``, ``colme.plotting.axis_positions``)."""

import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from colme.derived.sweeps import curve_label, point_name, sweep_figures
from colme.errors import ConfigError
from colme.expansion import expand_config
from colme.explore import figure_tables
from colme.plotting import axis_positions


def config_with(sweep: dict, **base) -> dict:
    config = yaml.safe_load(Path("config.yaml").read_text())
    config.pop("targets", None)
    config["figures"] = {
        "base": {"engine": "ccolme", "n_agents": 60, "degree": 6, "t_max": 200, "runs": 2, "rules": ["oracle"],
                 "eps": [1], "theta_k": [6],
                 "privacy_mixes": [{"eps": [1, math.inf], "shares": [0.3, 0.7], "theta_k": 6}], **base},
        "sweep": {"engine": "sweep", "base": "base", **sweep},
    }
    return config


SHARE_SWEEP = {"axes": [{"key": "privacy_mixes.0.shares.0", "values": [0, 0.1, 0.5]}]}


def test_a_share_sweep_point_equals_the_figure_written_by_hand():
    """The point with 10% private agents (its complement rescaled to 90%) has the numbers of
    the same figure written by hand with shares [0.1, 0.9] on the base's streams, bit for bit."""
    config = config_with(SHARE_SWEEP)
    name = point_name("sweep", {"privacy_mixes.0.shares.0": 0.1})
    assert name == "sweep__privacy_mixes_0_shares_0_0p1"
    settings = expand_config(config).sweep_figures[name]
    assert settings["privacy_mixes"][0]["shares"] == pytest.approx([0.1, 0.9], abs=1e-15)
    point = figure_tables(config, name).table
    by_hand = config_with(SHARE_SWEEP)
    by_hand["figures"]["hand"] = {**by_hand["figures"]["base"], "stream": "base",
                                  "privacy_mixes": [{"eps": [1, math.inf], "shares": [0.1, 0.9], "theta_k": 6}]}
    hand = figure_tables(by_hand, "hand").table
    simulated = point[point["kind"] == "simulated"]
    assert set(simulated["curve"]) == {"oracle eps=1", "oracle eps=1:10%,inf:90%"}
    for curve, rows in simulated.groupby("curve"):
        assert np.array_equal(rows["mse"].to_numpy(), hand.loc[hand["curve"] == curve, "mse"].to_numpy()), curve


def test_a_class_probability_sweep_rescales_the_others_and_says_so():
    config = config_with({"axes": [{"key": "population.probabilities.0", "values": [0.1, 0.6]}]})
    expansion = expand_config(config)
    probabilities = [expansion.sweep_figures[point_name("sweep", {"population.probabilities.0": v})]
                     ["population"]["probabilities"] for v in (0.1, 0.6)]
    assert probabilities[0] == pytest.approx([0.1, 0.45, 0.45], abs=1e-15)  # from equally likely classes
    assert probabilities[1] == pytest.approx([0.6, 0.2, 0.2], abs=1e-15)
    from colme.derived.sweeps import rescaled_simplices, simplex_note

    notes = [simplex_note(s) for s in rescaled_simplices(expansion.config["figures"]["sweep"])]
    assert notes == [simplex_note("population.probabilities")] and "rescaled in proportion" in notes[0]


def test_a_class_mean_and_a_with_companion_are_list_entries_too():
    config = config_with({"axes": [{"key": "population.means.1", "values": [0.5, 0.9]},
                                   {"key": "privacy_mixes.0.shares.0", "values": [0.2],
                                    "with": {"privacy_mixes.0.shares.1": [0.8]}}]})
    expansion = expand_config(config)
    point = expansion.sweep_figures[point_name("sweep", {"population.means.1": 0.9, "privacy_mixes.0.shares.0": 0.2})]
    assert point["population"]["means"][1] == 0.9
    assert point["privacy_mixes"][0]["shares"] == [0.2, 0.8]
    assert len(sweep_figures(expansion.config["figures"]["sweep"], "sweep")) == 2


@pytest.mark.parametrize(("key", "named"), [
    ("privacy_mixes.3.shares.0", "privacy_mixes.3.shares.0"),
    ("population.means.7", "population.means.7"),
    ("privacy_mixes.0.theta_k.0", "privacy_mixes.0.theta_k.0"),  # a number has no entries
])
def test_a_bad_list_path_is_named_with_the_entries_allowed(key, named):
    config = config_with({"axes": [{"key": key, "values": [0.2]}]})
    with pytest.raises(ConfigError, match=r"privacy_mixes\.0\.shares\.0") as error:
        expand_config(config)
    assert f"key={named!r}" in str(error.value) and "population.means.1" in str(error.value)


def test_shares_that_cannot_sum_to_one_are_refused_naming_the_mix():
    config = config_with({"axes": [{"key": "privacy_mixes.0.shares.0", "values": [1.5]}]})
    with pytest.raises(ConfigError, match="shares"):
        expand_config(config)


def test_a_log_scale_refuses_negative_values():
    config = config_with({"axes": [{"key": "population.means.1", "values": [-1, 1], "scale": "log"}]})
    with pytest.raises(ConfigError, match=r"scale='log'.*allowed scales: auto, linear, log"):
        expand_config(config)


def test_the_scale_is_drawing_only():
    from colme.registry import stage_params

    plain, scaled = (expand_config(config_with({"axes": [{"key": "population.means.1", "values": [0, 1],
                                                         **extra}]})).figures["sweep"]
                     for extra in ({}, {"scale": "log"}))
    assert stage_params(plain, "table") == stage_params(scaled, "table")
    assert stage_params(scaled, "figure")["scales"] == ["log"] and "scales" not in stage_params(plain, "figure")


def test_axis_positions_put_zero_and_inf_a_step_beyond_on_a_log_axis():
    x, labels, log = axis_positions([0, 0.01, 0.1, 1, math.inf])
    assert log and labels == ["0", "0.01", "0.1", "1", "∞"]
    assert x == pytest.approx([0.001, 0.01, 0.1, 1, 10])
    assert axis_positions([1, 2, 3])[2]  # all positive: log, as before
    assert not axis_positions([0, 1, 2])[2]  # positives within a decade: linear
    assert not axis_positions([0, 0.01, 1], "linear")[2]
    assert axis_positions([0, 1, 2], "log")[0][0] == pytest.approx(0.5)


def test_curve_labels_of_a_swept_mix():
    assert curve_label("bernstein eps=1:30%,inf:70% [eps=1]", ["privacy_mixes.0.shares.0"]) == \
        "bernstein eps=1,inf [eps=1]"
    assert curve_label("bernstein eps=1:30%,inf:70%", ["privacy_mixes.0.eps.0"]) == "bernstein eps=mix"
    assert curve_label("oracle eps=0.5 [class 1]", ["eps"]) == "oracle [class 1]"
