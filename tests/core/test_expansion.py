"""The expansion stage (colme.expansion): every figure a configuration asks for or
generates (derived_from, a sweep's points, sensitivity variants), each validated once."""

from pathlib import Path

import pytest
import yaml

import colme.expansion as expansion
from colme.claims import load_claims
from colme.config import ConfigError, load_schema, validate_written

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = yaml.safe_load((ROOT / "config.yaml").read_text())
CLAIMED = {claim["figure"] for claim in load_claims(ROOT / "workflow/claims.yaml")}


def test_each_generated_figure_is_validated_exactly_once(monkeypatch):
    validated = []

    def counting(config, schema=None):
        validated.append(sorted(config["figures"]))
        return validate_written(config, schema)

    monkeypatch.setattr(expansion, "validate_written", counting)
    result = expansion.expand_config(SHIPPED, load_schema(), claimed=CLAIMED)
    written, *generated = validated
    assert written == sorted(SHIPPED["figures"])  # the configured figures, once, together
    assert all(len(figures) == 1 for figures in generated)  # then each generated figure alone
    names = [figures[0] for figures in generated]
    assert len(names) == len(set(names)), "a generated figure was validated twice"
    skipped = {expansion.variant_name(f, o, v) for f, o, v, _ in result.skipped}
    assert set(names) == set(result.sweep_figures) | {
        v.name for v in result.variants if v.option != expansion.BASELINE and v.figure not in _views(result)
    } | skipped
    assert result.sweep_figures and result.variants


def _views(result):
    return {v.figure for v in result.variants if v.figure in result.figures and "source" in result.figures[v.figure]}


def test_derived_figures_are_written_out_before_validation():
    figures = {"a": {"engine": "ccolme", "runs": 3}, "b": {"derived_from": "a", "runs": 5}}
    expanded = expansion.expand_derived(figures)
    assert expanded["b"] == {"engine": "ccolme", "runs": 5} and expanded["a"] == figures["a"]
    with pytest.raises(ConfigError, match=r"figures\.c\.derived_from: 'nope' is not a configured figure"):
        expansion.expand_derived({"c": {"derived_from": "nope"}})
    with pytest.raises(ConfigError, match=r"figures\.d\.derived_from: cycle d -> e -> d"):
        expansion.expand_derived({"d": {"derived_from": "e"}, "e": {"derived_from": "d"}})


def test_written_validation_refuses_an_unexpanded_derived_from_naming_it():
    with pytest.raises(ConfigError, match=r"figures\.b: unknown key\(s\) \[.derived_from.\]"):
        validate_written({"figures": {"a": {"engine": "ccolme"}, "b": {"derived_from": "a"}}})
