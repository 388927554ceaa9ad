"""results/sensitivity.md: the variant figures and the verdict comparison."""

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from colme.claims import load_claims
from colme.config import load_schema, option_values, resolve_figure
from colme.expansion import BASELINE, Variant, expand_config, validate_config
from colme.registry import ENGINES, stage_params
from colme.sensitivity import to_markdown, verdict_changes
from colme.stages import owner

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = yaml.safe_load((ROOT / "config.yaml").read_text())
SCHEMA = load_schema()
CONFIG = validate_config(SHIPPED, SCHEMA)
CLAIMED = {claim["figure"] for claim in load_claims(ROOT / "workflow/claims.yaml")}
DERIVED = {name for name, entry in SHIPPED["figures"].items() if "derived_from" in entry}
EXPANDED = expand_config(SHIPPED, SCHEMA, claimed=CLAIMED)
SETTINGS, VARIANTS, SKIPPED = EXPANDED.variant_settings, EXPANDED.variants, EXPANDED.skipped


def test_every_option_is_an_enum_of_its_engine_schema():
    for name, entry in CONFIG["figures"].items():
        settings = resolve_figure(CONFIG, name)
        for option in ENGINES[entry["engine"]].interpretation_options(settings):
            values = option_values(SCHEMA, entry, option)
            assert entry[option] in values and len(values) >= 2, (name, option)


def test_each_variant_is_its_figure_with_one_option_flipped():
    varied = {v.figure for v in VARIANTS}
    assert varied and not varied & DERIVED  # ablations are never varied
    assert varied <= CLAIMED
    for variant in VARIANTS:
        settings = SETTINGS[variant.name]
        base = resolve_figure(CONFIG, variant.figure)
        if base["engine"] == "zoom":
            assert settings["source"].startswith(base["source"] + "__")
            continue
        differ = {k for k in set(base) | set(settings) if base.get(k) != settings.get(k)}
        flipped = set() if variant.option == BASELINE else {variant.option}
        expected_runs = {"runs"} if ENGINES[base["engine"]].simulated and base["runs"] > 100 else set()
        assert differ == flipped | expected_runs | {"stream"}, variant
        assert settings["stream"] == variant.figure
        if variant.option != BASELINE:
            assert settings[variant.option] == variant.value != base[variant.option]
    # every flip either yields a variant or is skipped with the validation error naming it
    for figure, option, _value, why in SKIPPED:
        assert option in why and figure in why


def test_baseline_exists_exactly_where_the_run_count_is_cut():
    baselines = {v.figure for v in VARIANTS if v.option == BASELINE}
    for figure in {v.figure for v in VARIANTS}:
        settings = resolve_figure(CONFIG, figure)
        if settings["engine"] == "zoom":
            settings = resolve_figure(CONFIG, settings["source"])
        cut = ENGINES[settings["engine"]].simulated and settings["runs"] > CONFIG["sensitivity"]["runs"]["default"]
        assert (figure in baselines) == cut, figure


def test_variant_draws_its_figures_instances_and_data():
    """A variant is paired with its figure: at the figure's own options it reproduces the
    figure's chunk bit for bit (the stream, not the variant's name, keys the draws)."""
    base = {**resolve_figure(CONFIG, "fig1_r5"), "t_max": 200, "grid": {"linear": 5, "log": 5}}
    paired = {**base, "stream": "fig1_r5"}
    engine = ENGINES["ccolme"]
    results = []
    for settings, name in ((base, "fig1_r5"), (paired, "fig1_r5__baseline")):
        # the workflow makes an instance file once per stream (colme.stages.owner)
        stream = owner("instances", name, settings)
        instances = engine.instances(stage_params(settings, "instances", 0, 2), stream, 0, 2)
        results.append(engine.simulate(stage_params(settings, "simulate", 0, 2), instances, name))
    np.testing.assert_array_equal(results[0]["mse"], results[1]["mse"])
    unpaired = engine.instances(stage_params(base, "instances", 0, 2), "fig1_r5__baseline", 0, 2)
    own = engine.instances(stage_params(base, "instances", 0, 2), "fig1_r5", 0, 2)
    assert not np.array_equal(unpaired["classes"], own["classes"])


def _table(values: dict[str, list[float]], se: float) -> pd.DataFrame:
    t = np.arange(1, 11) * 100
    return pd.DataFrame(
        [
            {"curve": curve, "t": ti, "mse": m, "se": se, "runs": 50}
            for curve, ms in values.items()
            for ti, m in zip(t, ms, strict=True)
        ]
    )


CLAIM = {"id": "toy.order", "figure": "toy", "claim": "A beats B", "check": "ordering",
         "below": "A", "above": "B", "t_range": [0.1, 1.0], "k": 2,
         "diagnosis": {"cause": "never run here", "figure": "nowhere", "check": "ordering"}}


def test_verdict_changes_report_a_flip_and_only_a_flip():
    """Synthetic tables: B - A = 1 (20 se) in the baseline; the first variant swaps the
    curves (a change to not reproduced), the second leaves them (no change)."""
    tables = {
        "toy": _table({"A": [1.0] * 10, "B": [2.0] * 10}, 0.05),  # full figure (unused: baseline given)
        "toy__baseline": _table({"A": [1.0] * 10, "B": [2.0] * 10}, 0.05),
        "toy__opt__x": _table({"A": [2.0] * 10, "B": [1.0] * 10}, 0.05),
        "toy__opt__y": _table({"A": [1.0] * 10, "B": [2.0] * 10}, 0.05),
    }
    variants = [
        Variant("toy__baseline", "toy", BASELINE, None),
        Variant("toy__opt__x", "toy", "opt", "x", "w"),
        Variant("toy__opt__y", "toy", "opt", "y", "w"),
    ]
    changes = verdict_changes([CLAIM], variants, tables, {}, {})
    assert list(changes["value"]) == ["x", "y"]
    assert list(changes["changed"]) == [True, False]
    assert list(changes["baseline verdict"]) == ["reproduced", "reproduced"]
    assert list(changes["variant verdict"]) == ["not reproduced", "reproduced"]
    report = to_markdown(changes, [("toy", "opt", "z", "config key figures.toy__opt__z.opt: bad")], 50, "default")
    assert "| toy | opt: w -> x | 1 | 1 | toy.order: reproduced -> not reproduced |" in report
    assert "| toy | opt: w -> y | 1 | 0 |  |" in report
    assert "toy opt = z" in report


def test_variant_noise_within_the_monte_carlo_error_gives_no_change():
    """A variant whose curves move by less than their se keeps the verdict."""
    rng = np.random.default_rng(3)
    base = _table({"A": [1.0] * 10, "B": [1.5] * 10}, 0.05)
    moved = base.copy()
    moved["mse"] += rng.normal(0, 0.01, len(moved))  # 0.2 se
    changes = verdict_changes(
        [CLAIM], [Variant("toy__opt__x", "toy", "opt", "x", "w")], {"toy": base, "toy__opt__x": moved}, {}, {}
    )
    assert not changes["changed"].any() and math.isclose(len(changes), 1)


def test_sensitivity_runs_shape_the_variants_only():
    smaller = copy.deepcopy(SHIPPED)
    smaller["sensitivity"] = {"runs": {"default": 20, "paper": 40}}
    smaller_expansion = expand_config(smaller, SCHEMA, claimed=CLAIMED)
    settings, variants = smaller_expansion.variant_settings, smaller_expansion.variants
    flips = {v.name for v in variants if v.option != BASELINE}
    assert flips == {v.name for v in VARIANTS if v.option != BASELINE}
    assert "fig4_laplace__baseline" in {v.name for v in variants} - {v.name for v in VARIANTS}  # 100 > 20 runs
    assert settings["fig1_r20__alpha_reset__none"]["runs"] == 20
    assert SETTINGS["fig1_r20__alpha_reset__none"]["runs"] == 100


@pytest.mark.parametrize("bad", [{"runs": 0}, {"rums": 5}])
def test_bad_sensitivity_config_names_the_key(bad):
    from colme.config import ConfigError

    with pytest.raises(ConfigError, match="sensitivity"):
        validate_config({**SHIPPED, "sensitivity": bad}, SCHEMA)


def test_sensitivity_is_a_separate_target(tmp_path):
    """`all` builds no variant; results/sensitivity.md builds every variant's table and the
    tables of the claims' figures (a real `snakemake -n` plan on the shipped config)."""
    from workflow_helpers import planned_jobs

    shipped = (ROOT / "config.yaml").read_text()
    everything = planned_jobs(tmp_path, shipped)
    assert "sensitivity" not in everything
    points = EXPANDED.sweep_figures  # each sweep point has its table (colme.derived.sweeps)
    assert everything["table"] == len(CONFIG["figures"]) + len(points)
    report = planned_jobs(tmp_path, shipped, "results/sensitivity.md")
    claim_figures = {f for f in CLAIMED if f in CONFIG["figures"]}
    claim_figures |= {c["other_figure"] for c in load_claims(ROOT / "workflow/claims.yaml") if "other_figure" in c}
    assert report["sensitivity"] == 1
    claimed_points = {p for p in points if p.split("__")[0] in claim_figures}
    assert report["table"] == len(claim_figures | set(SETTINGS) | claimed_points)
    assert "figure" not in report
