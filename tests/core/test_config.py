"""Bad configuration stops early with a message naming the key and the allowed values."""

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from colme.aggregation import run_chunks
from colme.config import ConfigError, resolve_figure, validate_written
from colme.expansion import validate_config
from colme.timegrid import time_grid

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def broken(edit):
    config = copy.deepcopy(CONFIG)
    edit(config)
    return config


def test_shipped_config_is_valid_and_gets_defaults():
    config = validate_config(CONFIG)
    assert config["figures"]["fig1_r5"]["weights"] == "eq2"
    assert resolve_figure(config, "fig1_r5")["runs"] == CONFIG["figures"]["fig1_r5"]["runs"]["default"]
    paper = validate_config({**CONFIG, "preset": "paper"})
    assert resolve_figure(paper, "fig1_r20")["runs"] == 4000


def test_the_paper_preset_reuses_every_chunk_of_a_default_build():
    """Chunks are fixed run ranges: a chunk size that does not divide the default run count
    leaves a short last chunk that the paper preset's longer range does not reuse."""
    from colme.expansion import expand_config

    default, paper = validate_config(CONFIG), validate_config({**CONFIG, "preset": "paper"})
    figures = {name: (resolve_figure(default, name), resolve_figure(paper, name)) for name in default["figures"]}
    # a sweep's points are figures of their own (their chunks too), with the base's chunk size unless set
    points = expand_config(default).sweep_figures, expand_config(paper).sweep_figures
    figures |= {name: (settings, points[1][name]) for name, settings in points[0].items()}
    sizes = {}
    for name, (small, large) in figures.items():
        if small.get("chunk_runs") is None:
            continue
        assert small["chunk_runs"] == large["chunk_runs"], name
        assert small["runs"] % small["chunk_runs"] == 0 or small["runs"] == large["runs"], name
        sizes[name] = small["chunk_runs"]
    assert sizes["fig1_r20"] == 100 and sizes["privacy_utility_r5__eps_lanes"] == sizes["fig1_r5"] == 100
    assert len(sizes) > len(default["figures"]) // 2


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (lambda c: c.update(presett="paper"), ["presett", "allowed keys", "preset"]),
        (lambda c: c.update(preset="fast"), ["preset", "'fast'", "default", "paper"]),
        (lambda c: c["figures"]["fig1_r5"].update(rules=["oracle", "bernsteinn"]),
         ["figures.fig1_r5.rules[1]", "bernsteinn", "optimistic"]),
        (lambda c: c["figures"]["fig1_r5"].update(alpha_schedule="sqrt"),
         ["figures.fig1_r5.alpha_schedule", "floor10", "theory"]),
        (lambda c: c["figures"]["fig1_r5"].update(eps=[0, 1]), ["figures.fig1_r5.eps[0]"]),
        (lambda c: c["figures"]["fig1_r20"].update(runs={"default": 3}), ["figures.fig1_r20.runs"]),
        (
            lambda c: c["figures"]["fig1_r20"].update(theta_k=[7, 6]),
            ["figures.fig1_r20.theta_k", "one Bernstein exponent"],
        ),
        (lambda c: c["figures"]["fig1_r20"].update(n_agents=21, degree=5), ["figures.fig1_r20.degree", "even"]),
        (lambda c: c["figures"]["fig1_r20"].update(weigths="eq2"), ["figures.fig1_r20", "weigths", "weights"]),
        (lambda c: c.update(precision="float16"), ["precision", "float32"]),
        (lambda c: c["figures"]["fig2_sim"].update(eps=2.0), ["figures.fig2_sim.eps", "0 < eps <= 1", "laplace"]),
        (
            lambda c: c["figures"]["fig2_sim"].update(mechanisms=["pm3"]),
            ["figures.fig2_sim.mechanisms[0]", "pm1", "pm2"],
        ),
        (lambda c: c["figures"]["fig2_oracle_m200"].update(pm2_variance="as_printed"),
         ["figures.fig2_oracle_m200.pm2_variance", "RR"]),
        (lambda c: c["figures"]["fig4_laplace_oracle"].update(runs=5), ["fig4_laplace_oracle", "runs"]),
        # one recorded time draws no curve: refused for every engine and the global override
        (lambda c: c["figures"]["fig1_r5"].update(t_max=1), ["figures.fig1_r5.t_max", "minimum of 2"]),
        (lambda c: c["figures"]["fig2_sim"].update(t_max=1), ["figures.fig2_sim.t_max", "minimum of 2"]),
        (lambda c: c["figures"]["galante_fig1"].update(t_max=1), ["figures.galante_fig1.t_max", "minimum of 2"]),
        (lambda c: c.update(t_max=1), ["t_max", "minimum of 2"]),
        (lambda c: c["figures"]["fig1_r5"].update(eps=[1, "inf"]),
         ["figures.fig1_r5.eps[1]", "YAML writes infinity as .inf"]),
        (lambda c: c["figures"]["fig1_r5"].update(runs="eight"),
         ["figures.fig1_r5.runs", "allowed: integer >= 1 or object with keys default, paper"]),
        (lambda c: c.update(results="../elsewhere"), ["config key results: '../elsewhere'", "relative path"]),
    ],
)
def test_bad_values_name_the_key_and_the_allowed_values(edit, fragments):
    with pytest.raises(ConfigError) as error:
        validate_config(broken(edit))
    for fragment in fragments:
        assert fragment in str(error.value)


def test_snakemake_refuses_bad_config_before_any_job(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
         "--configfile", str(ROOT / "config.yaml"), "--cores", "1", "--config", "preset=fast"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "preset" in result.stderr + result.stdout and "allowed values" in result.stderr + result.stdout
    assert not (tmp_path / "results").exists()


def test_chunks_cover_runs_and_grid_ends_at_t_max():
    parts = run_chunks(103, 25)
    assert parts[-1] == (100, 103)
    assert sum(stop - start for start, stop in parts) == 103
    assert run_chunks(125, 25)[:4] == parts[:4]  # more runs only add chunks
    grid = time_grid(30000, 300, 80)
    assert grid[0] == 1 and grid[-1] == 30000 and (grid[1:] > grid[:-1]).all()


def test_every_schema_key_has_description_and_default():
    from colme.config import load_schema

    def walk(schema, path):
        for key, sub in schema.get("properties", {}).items():
            assert "description" in sub or "$ref" in sub, f"{path}.{key} lacks a description"
            # `figures` is the one mapping without a default: its entries are figure
            # definitions, whose keys all have defaults ($defs below).  A key its object
            # requires (a weight_rule's file) is given whenever the object is.
            required = key in schema.get("required", ())
            assert "default" in sub or key == "figures" or required, f"{path}.{key} lacks a default"
            walk(sub, f"{path}.{key}")

    schema = load_schema()
    walk(schema, "config")
    for name, definition in schema["$defs"].items():
        assert "description" in definition, name
        walk(definition, name)


def test_figure_defaults_are_fig1_left():
    config = validate_config({"figures": {"mine": {"degree": 5, "eps": [1], "theta_k": [8]}}})
    settings = resolve_figure(config, "mine")
    assert settings["n_agents"] == 200 and settings["rules"] == ["oracle", "bernstein", "optimistic"]


def test_derived_figure_is_its_base_with_overrides():
    config = validate_config(CONFIG)
    base, derived = config["figures"]["fig1_r5"], config["figures"]["fig1_r5_no_reset"]
    assert derived["alpha_reset"] == "none" and derived["t_max"] == 10000
    overridden = ("alpha_reset", "t_max", "runs", "title")
    assert {k: v for k, v in derived.items() if k not in overridden} == {
        k: v for k, v in base.items() if k not in overridden
    }
    nested = validate_config(broken(lambda c: c["figures"].update(
        mine={"derived_from": "fig1_r5_no_reset", "grid": {"log": 7}})))
    assert nested["figures"]["mine"]["grid"] == {"linear": 300, "log": 7}  # merged key by key
    assert nested["figures"]["mine"]["alpha_reset"] == "none"  # through the chain


@pytest.mark.parametrize(
    "figures, fragments",
    [
        ({"a": {"derived_from": "nope"}}, ["figures.a.derived_from", "'nope'", "configured"]),
        ({"a": {"derived_from": "b"}, "b": {"derived_from": "a"}}, ["figures.a.derived_from", "cycle a -> b -> a"]),
        ({"a": {"derived_from": "fig1_r5", "alpha_rest": False}}, ["figures.a", "alpha_rest", "alpha_reset"]),
    ],
)
def test_bad_derived_figures_name_the_key(figures, fragments):
    with pytest.raises(ConfigError) as error:
        validate_config(broken(lambda c: c["figures"].update(figures)))
    for fragment in fragments:
        assert fragment in str(error.value)


def test_a_figure_without_engine_whose_keys_are_another_engines_is_told_so():
    """Without `engine:` a figure is the default engine's; keys of another engine get an
    error naming that engine (a plain typo keeps the schema's unknown-key error)."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config.pop("targets", None)
    config["figures"] = {"x": {"n_agents": 30, "mechanisms": ["pm1"], "schedules": ["rr"]}}
    with pytest.raises(ConfigError, match=r"figures\.x has no `engine:`.*'mechanisms', 'schedules'.*"
                                          r"add `engine: oracle` or `engine: private_colme`"):
        validate_written(config)
    config["figures"] = {"x": {"kind": "trust", "p_c": [0.5]}}
    with pytest.raises(ConfigError, match=r"add `engine: pricer`"):
        validate_written(config)
    config["figures"] = {"x": {"n_agents": 30, "bogus": 1}}
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['bogus'\]"):
        validate_written(config)


def test_an_unknown_graph_family_is_the_error_read_not_the_keys_it_would_allow():
    edit = lambda c: c["figures"]["fig1_r5"].update(graph={"family": "erdos_reny", "mean_degree": 5})  # noqa: E731
    with pytest.raises(ConfigError) as error:
        validate_config(broken(edit))
    assert "figures.fig1_r5.graph.family: 'erdos_reny' is not allowed" in str(error.value)
    assert "unknown key(s) ['mean_degree']" not in str(error.value)


def test_every_simulated_engine_records_the_same_default_times():
    """One default time grid for every engine (the schema's ``grid`` definition), so that
    figures of two engines drawing one stream overlay without a grid set by hand."""
    from colme.config import load_schema
    from colme.registry import ENGINES

    schema = load_schema()
    grid = {key: sub["default"] for key, sub in schema["$defs"]["grid"]["properties"].items()}
    defaults = {}
    for engine in ENGINES.values():
        if not engine.simulated:
            continue
        figure = schema["$defs"][engine.figure_schema]
        defaults[engine.name] = figure["properties"]["grid"]["default"]
    assert len(defaults) >= 3 and all(default == grid for default in defaults.values()), defaults
