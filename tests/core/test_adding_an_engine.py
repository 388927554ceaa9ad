"""Adding an engine is one subpackage plus one registry line (docs/adding_an_engine.md).

``tests/toy_engine`` is such a subpackage, outside ``colme``; registering it (the one line
``ENGINES["toy"] = ToyEngine()``) must be enough for the core to validate its figures
against its own schema, apply the overrides and cross-key checks it declares, build its
stage params, instances, chunks, tables and drawing, with no other change anywhere.
"""

import json
import math

import numpy as np
import pytest
from toy_engine.engine import ToyEngine

from colme.aggregation import COVARIANCE_COLUMNS, DIAGNOSTICS_COLUMNS
from colme.config import ConfigError, load_schema, resolve_figure
from colme.expansion import validate_config
from colme.registry import ENGINES, figure_caption, stage_params
from colme.stages import makers, result_path, write_chunk, write_instances


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(ENGINES, "toy", ToyEngine())  # the registry line
    return load_schema()


def config(**toy):
    return {"preset": "default", "figures": {"toy_fig": {"engine": "toy", **toy}}}


def test_schema_validation_and_defaults_come_from_the_engine(registered):
    validated = validate_config(config(), registered)
    assert validated["figures"]["toy_fig"]["t_max"] == 200  # the engine's default
    with pytest.raises(ConfigError, match=r"figures\.toy_fig: unknown key\(s\) \['degree'\]"):
        validate_config(config(degree=3), registered)
    with pytest.raises(ConfigError, match=r"figures\.toy_fig\.t_max=5: below grid\.log=10"):
        validate_config(config(t_max=5), registered)  # the engine's own cross-key check


def test_unregistered_engine_is_rejected_by_name():
    with pytest.raises(ConfigError, match=r"figures\.toy_fig\.engine"):
        validate_config(config(), load_schema())


def test_overrides_and_stage_params_follow_the_engine_declarations(registered):
    validated = validate_config({**config(), "runs": 7, "t_max": 50, "seed": 3}, registered)
    settings = resolve_figure(validated, "toy_fig")
    assert settings["runs"] == 7 and settings["t_max"] == 50  # simulated: runs and t_max override
    assert stage_params(settings, "instances", 0, 4) == {
        "engine": "toy", "n_agents": 30, "seed": 3, "n_classes": 3, "run_range": [0, 4],
    }
    assert "title" not in stage_params(settings, "table") and "runs" in stage_params(settings, "table")
    assert "local mean" in figure_caption("toy_fig", settings)


def test_the_engine_runs_through_every_stage_and_matches_its_closed_form(registered, tmp_path):
    """Instances -> chunks -> table -> figure, as the workflow's scripts call them; the
    simulated local mean agrees with Proposition 1 (sigma^2 / t) within 4 standard errors."""
    validated = validate_config({**config(), "runs": 200, "seed": 11}, registered)
    settings = resolve_figure(validated, "toy_fig")
    engine = ENGINES["toy"]
    paths = {"chunks": [], "instances": []}
    for start, stop in ((0, 64), (64, 128), (128, 200)):
        made_by = makers("toy_fig", settings, start, stop)
        for kind in ("instances", "chunks"):
            paths[kind].append(result_path(kind, "toy_fig", start, stop, made_by[kind], root=tmp_path))
        write_instances(made_by["instances"], paths["instances"][-1])
        write_chunk(made_by["chunks"], paths["instances"][-1], paths["chunks"][-1])
    inputs = engine.table_inputs("toy_fig", settings, lambda kind: paths[kind])
    tables = engine.tables("toy_fig", stage_params(settings, "table"), inputs)
    table = tables.table
    simulated = table[table["curve"] == "local mean"].set_index("t")
    local = table[table["curve"] == "Local"].set_index("t")
    assert (simulated["runs"] == 200).all() and len(simulated) == len(local) > 10
    z = (simulated["mse"] - local["mse"]) / simulated["se"]
    assert np.all(np.abs(z) < 4), z.abs().max()
    assert math.isclose(local["mse"].iloc[-1], 0.25 / 200)
    meta = engine.provenance("toy_fig", stage_params(settings, "table"), tables.provenance)
    assert meta["runs"] == 200 and meta["interpretations"] == list(engine.interpretations)
    sidecar = json.loads(json.dumps(meta, default=str))
    engine.draw(table, sidecar, "toy", tmp_path / "toy.pdf", tmp_path / "toy.png")
    assert (tmp_path / "toy.pdf").stat().st_size > 0 and (tmp_path / "toy.png").stat().st_size > 0
    # One curve and no diagnostics: both tables empty, with their columns.
    assert tables.covariance.empty and list(tables.covariance.columns) == COVARIANCE_COLUMNS
    assert tables.diagnostics.empty and list(tables.diagnostics.columns) == DIAGNOSTICS_COLUMNS
