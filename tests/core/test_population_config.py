"""Population, privacy-mix and targets keys in the configuration: defaults, inheritance and
bad values refused before any job, naming the key (issue 19, part 5)."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from colme.config import ConfigError, load_schema, resolve_figure
from colme.expansion import validate_config
from colme.registry import ENGINES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = load_schema()
FIGURE = {"engine": "ccolme", "n_agents": 30, "degree": 4, "eps": [1, math.inf], "theta_k": [7, 6],
          "t_max": 50, "runs": 4, "chunk_runs": 2, "grid": {"linear": 5, "log": 3}}
PRIVATE = {"engine": "private_colme", "n_agents": 30, "t_max": 50, "runs": 2, "chunk_runs": 2}


def config(population=None, figure_population=None, mixes=None, **top):
    figure = copy.deepcopy(FIGURE)
    if figure_population is not None:
        figure["population"] = figure_population
    if mixes is not None:
        figure["privacy_mixes"] = mixes
    out = {"seed": 1, "figures": {"fig": figure}, **top}
    if population is not None:
        out["population"] = population
    return out


def test_figure_population_inherits_the_global_keys_it_does_not_set():
    validated = validate_config(config(population={"means": [0.1, 0.5, 0.9], "sigma": 0.3},
                                       figure_population={"law": {"kind": "beta", "a": 2, "b": 5}}), SCHEMA)
    assert resolve_figure(validated, "fig")["population"] == {
        "means": [0.1, 0.5, 0.9], "sigma": 0.3, "law": {"kind": "beta", "a": 2, "b": 5}}


def test_every_population_key_has_a_description_and_a_default():
    for key, sub in SCHEMA["$defs"]["population"]["properties"].items():
        assert sub.get("description") and "default" in sub, key
    for key, sub in SCHEMA["$defs"]["population"]["properties"]["law"]["properties"].items():
        assert sub.get("description") and "default" in sub, key
    mix = SCHEMA["$defs"]["privacy_mix"]["properties"]
    assert all(sub.get("description") and "default" in sub for sub in mix.values())


@pytest.mark.parametrize("case, named", [
    (config(population={"probabilities": [0.5, 1.5, -1.0]}), "population.probabilities[1]"),
    (config(population={"probabilities": [0.5, 0.3, 0.1]}), "population.probabilities"),
    (config(population={"probabilities": [0.5, 0.5]}), "population.probabilities has 2 entries"),
    (config(population={"sizes": [10, 10, 5]}), "population.sizes=[10, 10, 5] sums to 25"),
    (config(population={"sizes": [10, 10, 10], "probabilities": [0.2, 0.3, 0.5]}),
     "at most one of population.probabilities"),
    (config(population={"sigma": [0.5, 0.5]}), "population.sigma has 2 entries"),
    (config(population={"sigma": -1}), "population.sigma"),
    (config(population={"law": {"kind": "normal"}}),
     "allowed values: ['uniform', 'truncated_normal', 'beta', 'two_point']"),
    (config(population={"law": {"kind": "two_point", "p": 1.0}}), "population.law.p"),
    (config(population={"law": {"kind": "beta", "a": 0}}), "population.law.a"),
    (config(population={"jitter": -0.1}), "population.jitter"),
    (config(population={"means": [0.2, 0.2, 0.8]}),
     "population.means=[0.2, 0.2, 0.8]: class means must be distinct"),
    (config(figure_population={"sizes": [10, 10, 11]}), "figures.fig.population.sizes=[10, 10, 11] sums to 31"),
    (config(figure_population={"colour": 1}), "figures.fig.population: unknown key(s) ['colour']"),
    (config(mixes=[{"eps": [1, math.inf], "shares": [0.2, 0.7]}]),
     "figures.fig.privacy_mixes[0].shares=[0.2, 0.7] sums to"),
    (config(mixes=[{"eps": [1, math.inf], "shares": [1.0]}]), "figures.fig.privacy_mixes[0].shares has 1 entries but"),
    (config(mixes=[{"eps": [1, math.inf], "shares": [1.2, -0.2]}]), "figures.fig.privacy_mixes[0].shares[0]"),
    (config(mixes=[{"eps": [1, 1], "shares": [0.5, 0.5]}]), "figures.fig.privacy_mixes[0].eps"),
    (config(mixes=[{"shares": [1.0]}]), "'eps' is a required property"),
    (config(targets=["nope"]), "targets[0]: 'nope' is not a configured figure"),
])
def test_bad_population_mix_and_target_values_are_refused_naming_the_key(case, named):
    with pytest.raises(ConfigError) as error:
        validate_config(case, SCHEMA)
    assert named in str(error.value)


@pytest.mark.parametrize("population, named", [
    ({"jitter": 0.01}, "['jitter']"),
    ({"sigma": [0.4, 0.5, 0.6]}, "['sigma']"),
    ({"probabilities": [0.5, 0.3, 0.2]}, "['probabilities']"),
    ({"sizes": [10, 10, 10]}, "['sizes']"),
])
def test_exact_oracle_figure_refuses_the_population_keys_outside_proposition3(population, named):
    entry = {"seed": 1, "population": population, "figures": {"p": {"engine": "oracle", "n_agents": 30, "t_max": 50}}}
    with pytest.raises(ConfigError) as error:
        validate_config(entry, SCHEMA)
    assert "figures.p: population key(s) " + named in str(error.value)


def test_private_colme_simulates_per_class_sigma_and_jitter_and_records_them():
    """The simulated Private-ColME panel takes per-class sigma and jitter: it runs (jitter
    from the run's population stream: the chunking does not matter), and its provenance
    records the population and the per-sender noise."""
    validated = validate_config({"seed": 1, "figures": {"p": {**PRIVATE, "t_max": 30, "runs": 3, "population": {
        "sigma": [0.3, 0.5, 0.4], "jitter": 0.02}}}}, SCHEMA)
    settings = resolve_figure(validated, "p")
    engine = ENGINES["private_colme"]
    params = engine.numeric_params(settings)
    instance_params = engine.instance_params(settings)
    whole = engine.simulate(params, engine.instances(instance_params, "p", 0, 3), "p")["mse"]
    parts = [engine.simulate(params, engine.instances(instance_params, "p", start, stop), "p")["mse"]
             for start, stop in ((0, 1), (1, 3))]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    assert np.isfinite(whole).all() and (whole > 0).all()
    choices = engine.figure_interpretations(settings)
    assert any(line.startswith("per-agent mean jitter") for line in choices)
    assert any(line.startswith("per-class sigma") for line in choices)


def test_private_colme_simulates_a_shared_law_and_records_it():
    """Private-ColME's engine with Beta data for every class: runs, and its provenance says how
    the data were drawn and the noise calibrated."""
    validated = validate_config({"seed": 1, "figures": {"p": {**PRIVATE, "t_max": 30, "population": {
        "law": {"kind": "beta", "a": 2, "b": 5}}}}}, SCHEMA)
    settings = resolve_figure(validated, "p")
    engine = ENGINES["private_colme"]
    params = {**settings}
    made = engine.instances(engine.instance_params(settings), "p", 0, 2)
    result = engine.simulate(engine.numeric_params(params), made, "p")
    assert np.isfinite(result["mse"]).all() and (result["mse"] > 0).all()
    choices = engine.figure_interpretations(settings)
    assert any(line.startswith("data law beta") for line in choices)
    assert any("4097-point quantile table" in line for line in choices)


def test_private_colme_runs_with_class_probabilities():
    validated = validate_config({"seed": 1, "figures": {"p": {**PRIVATE, "population": {
        "probabilities": [0.6, 0.2, 0.2]}}}}, SCHEMA)
    settings = resolve_figure(validated, "p")
    params = ENGINES["private_colme"].instance_params(settings)
    assert params["class_probabilities"] == [0.6, 0.2, 0.2]
    made = ENGINES["private_colme"].instances({**params, "engine": "private_colme"}, "p", 0, 2)
    assert made["classes"].shape == (2, 30)


def test_shipped_suites_validate_and_target_their_scorecards():
    shipped = yaml.safe_load((ROOT / "config.yaml").read_text())
    files = sorted((ROOT / "suites").glob("*.yaml"))
    assert files
    for path in files:
        suite = yaml.safe_load(path.read_text())
        merged = {**shipped, **{k: v for k, v in suite.items() if k != "figures"},
                  "figures": {**shipped["figures"], **suite["figures"]}}
        validated = validate_config(merged, SCHEMA)
        cards = {name for name, entry in suite["figures"].items() if entry.get("engine") == "scorecard"}
        assert cards and set(validated["targets"]) == cards, path.name
        assert validated["results"] == f"results/suites/{path.stem}", path.name


def test_shipped_experiments_validate_and_target_only_their_figures():
    shipped = yaml.safe_load((ROOT / "config.yaml").read_text())
    files = sorted((ROOT / "experiments").glob("*.yaml"))
    assert len(files) >= 5
    for path in files:
        experiment = yaml.safe_load(path.read_text())
        merged = {**shipped, **{k: v for k, v in experiment.items() if k != "figures"},
                  "figures": {**shipped["figures"], **experiment["figures"]}}
        validated = validate_config(merged, SCHEMA)
        assert set(validated["targets"]) == set(experiment["figures"]), path.name
    # each its own results folder, none inside another's: no two experiments share a file
    folders = [yaml.safe_load(path.read_text()).get("results", "results") for path in files]
    for index, folder in enumerate(folders):
        assert folder != "results", f"{files[index].name} writes to the default results/"
        others = folders[:index] + folders[index + 1:]
        assert not any(f"{other}/".startswith(f"{folder}/") for other in others), files[index].name
