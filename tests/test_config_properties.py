"""Every config builds or fails before any job (property-based, Hypothesis).

Configs are generated from the schema: a tiny valid figure of each simulated or analytic
engine, then one of its keys (or a global key) set to a value drawn for that key's schema:
values it allows (enum members, numbers in range, lists of the right items) and mutations
(boundary numbers, NaN, +-inf, huge numbers, wrong types, empty, long and mismatched
lists).  The property: validation raises ``ConfigError`` naming the key, or the figure
builds in-process (instances -> chunks -> table, as the workflow's scripts run them) with
finite tables.  "Finite": every simulated and analytic ``mse`` and every ``t``; ``se`` is
finite where runs > 1 (a single run has none, NaN by design); the diagnostics may be NaN
where no agent qualifies (documented by the engines).

The CI profile (default) runs a bounded, derandomized number of examples; a deeper run:

    HYPOTHESIS_PROFILE=deep python -m pytest tests/test_config_properties.py
"""

import copy
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from colme.config import ConfigError, _branch, _resolve_ref, load_schema, resolve_figure, validate_config
from colme.registry import ENGINES, stage_params
from colme.stages import makers, result_path, write_chunk, write_instances

settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=2000, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SCHEMA = load_schema()
GRID = {"linear": 4, "log": 3}
#: A tiny valid figure per engine that the property builds.
BASES = {
    "ccolme": {"n_agents": 10, "degree": 3, "eps": [1, math.inf], "theta_k": [6, 5], "t_max": 25,
               "runs": 2, "chunk_runs": 2, "grid": GRID},
    "colme": {"engine": "colme", "n_agents": 6, "t_max": 25, "runs": 2, "chunk_runs": 2, "grid": GRID,
              "schedules": ["rr"], "mechanisms": ["pm1"], "weights": ["last"], "noises": ["laplace"]},
    "oracle": {"engine": "oracle", "n_agents": 6, "t_max": 25, "grid": GRID},
}
#: Beyond these a valid config is not built here (cost, not validity: M^2 state for
#: Private-ColME, t_max steps); the property then checks validation only.
BUILD_LIMITS = {"n_agents": 40, "t_max": 400, "runs": 6, "degree": 12}

#: Values that no key should take silently, whatever its type.
BAD = [math.nan, -math.inf, math.inf, None, True, "1", [], {}, -1, 0, 0.5, 1e12, -1e12]


def definition_of(engine: str, key: str) -> dict:
    branch = _branch({"engine": BASES[engine].get("engine", engine)}, SCHEMA["$defs"]["figure"], SCHEMA)
    return _resolve_ref(branch["properties"][key], SCHEMA)


def values_for(definition: dict) -> st.SearchStrategy:
    """Values the schema allows for a key (three times as likely) and mutations of them."""
    valid = []
    mutations = [st.sampled_from(BAD)]
    if "enum" in definition:
        valid.append(st.sampled_from(definition["enum"]))
        mutations.append(st.text(min_size=1, max_size=8))
    kinds = definition.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if "integer" in kinds:
        low = definition.get("minimum", 0)
        valid.append(st.integers(low, low + 40))
        mutations.append(st.sampled_from([low - 1, low - 2]))
    if "number" in kinds:
        low = definition.get("minimum", definition.get("exclusiveMinimum", 0.0))
        high = definition.get("maximum", low + 20.0)
        exclusive = "exclusiveMinimum" in definition
        valid.append(st.floats(low, min(high, low + 20.0), allow_nan=False, exclude_min=exclusive))
        mutations.append(st.sampled_from([low, math.nextafter(low, math.inf), high, high * 1.5 + 1]))
    if "array" in kinds:
        item = _resolve_ref(definition.get("items", {}), SCHEMA)
        valid.append(st.lists(values_for(item) if item else st.integers(), min_size=1, max_size=4))
        mutations.append(st.just([]))
        mutations.append(st.lists(st.just(1), min_size=60, max_size=60))  # huge
    if "object" in kinds and definition.get("properties"):
        inner = {k: values_for(_resolve_ref(v, SCHEMA)) for k, v in definition["properties"].items()}
        valid.append(st.fixed_dictionaries({}, optional=inner))
    return st.one_of(*valid, *valid, *valid, *mutations)


def figure_keys(engine: str) -> list[str]:
    branch = _branch({"engine": BASES[engine].get("engine", engine)}, SCHEMA["$defs"]["figure"], SCHEMA)
    return sorted(set(branch["properties"]) - {"engine", "title"})


#: Global keys the figures read, by dotted path, and their definitions.
GLOBAL_KEYS = {
    "seed": SCHEMA["properties"]["seed"],
    "precision": SCHEMA["properties"]["precision"],
    "population.sigma": _resolve_ref(SCHEMA["properties"]["population"], SCHEMA)["properties"]["sigma"],
    "population.means": _resolve_ref(SCHEMA["properties"]["population"], SCHEMA)["properties"]["means"],
}


@st.composite
def mutated(draw):
    """(engine, mutated key, value, config): one key of a tiny valid figure, or a global key."""
    engine = draw(st.sampled_from(sorted(BASES)))
    config = {"seed": 3, "figures": {"f": copy.deepcopy(BASES[engine])}}
    if draw(st.integers(0, 4)) == 0:
        path = draw(st.sampled_from(sorted(GLOBAL_KEYS)))
        value = draw(values_for(_resolve_ref(GLOBAL_KEYS[path], SCHEMA)))
        first, _, second = path.partition(".")
        if second:
            config[first] = {second: value}
        else:
            config[first] = value
        return engine, second or first, value, config
    key = draw(st.sampled_from(figure_keys(engine)))
    value = draw(values_for(definition_of(engine, key)))
    config["figures"]["f"][key] = value
    return engine, key, value, config


def build(settings_: dict) -> list:
    """The figure's tables, in-process: instances, chunks and table stage."""
    engine = ENGINES[settings_["engine"]]
    if not engine.simulated:
        return [engine.tables("f", stage_params(settings_, "table"), {}).table]
    paths = {"instances": [], "chunks": []}
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        from colme.aggregation import run_chunks

        for start, stop in run_chunks(settings_["runs"], settings_["chunk_runs"]):
            made_by = makers("f", settings_, start, stop)
            for kind in paths:
                paths[kind].append(result_path(kind, "f", start, stop, made_by[kind], root=root))
            write_instances(made_by["instances"], paths["instances"][-1])
            write_chunk(made_by["chunks"], paths["instances"][-1], paths["chunks"][-1])
        inputs = engine.table_inputs("f", settings_, lambda kind: paths[kind])
        tables = engine.tables("f", stage_params(settings_, "table"), inputs)
    return [tables.table]


def small(settings_: dict) -> bool:
    eps = settings_.get("eps", [1])
    return all(not isinstance(settings_.get(k), (int, float)) or settings_[k] <= limit
               for k, limit in BUILD_LIMITS.items()) and (not isinstance(eps, list) or len(eps) <= 8)


def check(engine, key, value, config):
    try:
        validated = validate_config(config, SCHEMA)
        settings_ = resolve_figure(validated, "f")
    except ConfigError as error:
        assert key in str(error), f"{key}={value!r}: the error does not name the key: {error}"
        event(f"{engine}: rejected")
        return
    if not small(settings_):
        event(f"{engine}: valid, too large to build here")
        return
    event(f"{engine}: built")
    for table in build(settings_):
        assert np.isfinite(table["t"]).all() and (table["t"] >= 1).all()
        assert np.isfinite(table["mse"]).all(), f"{key}={value!r}: non-finite MSE"
        several = table["runs"] > 1
        assert np.isfinite(table.loc[several, "se"]).all(), f"{key}={value!r}: non-finite se"


@given(mutated())
@settings(max_examples=settings.default.max_examples)
@example(("ccolme", "eps", [math.nan], {"seed": 3, "figures": {"f": {**BASES["ccolme"], "eps": [math.nan],
                                                                    "theta_k": [6]}}}))
@example(("ccolme", "t_max", 12, {"seed": 3, "figures": {"f": {**BASES["ccolme"], "t_max": 12,
                                                                 "grid": {"linear": 300, "log": 80}}}}))
def test_every_config_is_rejected_naming_its_key_or_builds_finite_tables(case):
    check(*case)


@pytest.mark.parametrize("value", [math.nan, -math.inf])
def test_non_finite_numbers_are_rejected_where_no_key_takes_them(value):
    """NaN passes JSON-schema bounds (every comparison is False): the validator refuses it."""
    for key, entry in (("sigma", {"population": {"sigma": value}}), ("delta", None)):
        config = {"figures": {"f": dict(BASES["colme"])}}
        if entry:
            config.update(entry)
        else:
            config["figures"]["f"][key] = value
        with pytest.raises(ConfigError, match=rf"{key}.*(not a number|allowed: a finite number)"):
            validate_config(config, SCHEMA)


def test_infinity_only_where_the_schema_allows_it():
    validate_config({"figures": {"f": {**BASES["ccolme"], "eps": [math.inf], "theta_k": [5]}}}, SCHEMA)
    with pytest.raises(ConfigError, match=r"theta_k.*allowed: a finite number\b"):
        validate_config({"figures": {"f": {**BASES["ccolme"], "theta_k": [6, math.inf]}}}, SCHEMA)


def test_more_grid_points_than_times_record_every_time():
    """fig1_r5 with t_max 50 and the default grid once recorded t = 0 and failed in its job."""
    config = validate_config({"figures": {"fig1_r5": {"t_max": 50}}}, SCHEMA)
    from colme.timegrid import figure_grid

    grid = figure_grid(resolve_figure(config, "fig1_r5"))
    np.testing.assert_array_equal(grid, np.arange(1, 51))


def test_snakemake_refuses_before_any_job_naming_the_key(tmp_path):
    """A real `snakemake -n` on the first defect above: no job planned, the key named."""
    import subprocess

    from workflow_helpers import snakemake_command

    config = "figures:\n  fig1_r5:\n    eps: [.nan]\n    theta_k: [6]\n"
    result = subprocess.run(snakemake_command(tmp_path, "-n", config=config), capture_output=True, text=True,
                            timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Job stats" not in output
    assert "config key figures.fig1_r5.eps[0]: nan is not a number: no key accepts NaN" in output
