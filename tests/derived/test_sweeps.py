"""Sweeps (colme.derived.sweeps): points, validation, summaries, overlays, claims and the DAG.

The end-to-end test builds a tiny sweep with Snakemake, checks a point against its base
figure bit for bit, and plans the addition of one value with a real `snakemake -n`.
"""

from __future__ import annotations

import copy
import glob
import json
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from workflow_helpers import ROOT, snakemake

from colme.ccolme.closed_forms import ALPHA_FACTOR, corollary1_terms, theorem1_coefficient
from colme.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, sweep_agreement, sweep_sign
from colme.config import ConfigError, load_schema, resolve_figure
from colme.derived.sweeps import (
    crossing,
    curve_label,
    point_name,
    points,
    summarise,
    sweep_figures,
    value_token,
)
from colme.expansion import expand_config, validate_config
from colme.privacy import laplace_sigma_dp
from colme.registry import ENGINES, stage_params
from colme.stages import makers

SCHEMA = load_schema()


def sweep_figures_of(config, schema):
    """The simulated figures the sweeps of ``config`` build, by name (the expansion stage)."""
    return expand_config(config, schema).sweep_figures
SHIPPED = yaml.safe_load((ROOT / "config.yaml").read_text())

BASE = {
    "engine": "ccolme", "n_agents": 24, "degree": 4, "eps": [1, math.inf], "theta_k": [8, 7],
    "rules": ["oracle", "bernstein", "optimistic"], "t_max": 200, "runs": 6, "chunk_runs": 3,
    "grid": {"linear": 20, "log": 10},
}
SWEEP = {"engine": "sweep", "base": "base_fig",
         "axes": [{"key": "eps", "values": [1, 4, math.inf], "with": {"theta_k": [8, 7, 7]}}]}


def config_with(**sweep) -> dict:
    return {"seed": 3, "figures": {"base_fig": copy.deepcopy(BASE), "sw": {**copy.deepcopy(SWEEP), **sweep}}}


def test_point_names_are_file_and_regex_safe():
    assert value_token(0.25) == "0p25" and value_token(math.inf) == "inf" and value_token(4.0) == "4"
    assert value_token(1e-6) == "1em06" and value_token(-2) == "m2"
    assert point_name("s", {"eps": 0.5, "population.sigma": 2}) == "s__eps0p5__population_sigma2"
    assert curve_label("oracle eps=0.5", ["eps"]) == "oracle"
    assert curve_label("theorem1 eps=inf", ["eps", "degree"]) == "theorem1"
    assert curve_label("RR PM-I non-MoM", ["n_agents"]) == "RR PM-I non-MoM"


def test_points_are_the_product_of_the_axes_with_their_companions():
    settings = {"axes": [{"key": "eps", "values": [1, 2], "with": {"theta_k": [8, 7]}},
                         {"key": "degree", "values": [3, 5, 7]}]}
    found = points(settings, "s")
    assert len(found) == 6
    assert found[0] == {"name": "s__eps1__degree3", "coordinates": {"eps": 1, "degree": 3},
                        "set": {"eps": 1, "theta_k": 8, "degree": 3}}
    assert found[-1]["set"] == {"eps": 2, "theta_k": 7, "degree": 7}


def test_point_settings_are_the_base_with_the_values_and_its_streams():
    config = validate_config(config_with(set={"runs": 4}), SCHEMA)
    settings = sweep_figures_of(config, SCHEMA)
    assert sorted(settings) == ["sw__eps1", "sw__eps4", "sw__epsinf"]
    point = settings["sw__eps4"]
    base = resolve_figure(config, "base_fig")
    assert point["eps"] == [4] and point["theta_k"] == [7] and point["runs"] == 4
    assert point["stream"] == "base_fig"
    assert {k: v for k, v in point.items() if k not in ("eps", "theta_k", "runs", "stream", "title")} == \
        {k: v for k, v in base.items() if k not in ("eps", "theta_k", "runs", "title")}
    # eps points on the base's graph share its instance files (same maker, same path)
    assert makers("sw__eps4", point, 0, 3)["instances"] == makers("base_fig", base, 0, 3)["instances"]
    # a global key reaches the points through the top level
    sigma = sweep_figures_of(validate_config(config_with(
        axes=[{"key": "population.sigma", "values": [0.3, 0.6]}]), SCHEMA), SCHEMA)
    assert [s["population"]["sigma"] for s in sigma.values()] == [0.3, 0.6]


@pytest.mark.parametrize("sweep, named", [
    ({"axes": [{"key": "rules", "values": [1]}]}, "figures.sw.axes[0].key='rules'"),
    ({"axes": [{"key": "no_such_key", "values": [1]}]}, "figures.sw.axes[0].key='no_such_key'"),
    ({"axes": [{"key": "eps", "values": ["a"]}]}, "figures.sw.axes[0].values[0]"),
    ({"axes": [{"key": "eps", "values": []}]}, "figures.sw.axes[0].values"),
    ({"axes": [{"key": "eps", "values": [-1]}]}, "figures.sw: the point {'eps': -1"),
    ({"axes": [{"key": "degree", "values": [3]}]}, "figures.sw: the point {'degree': 3}"),  # 24 x 3 odd? no: r < M
    ({"axes": [{"key": "eps", "values": [1, 2], "with": {"theta_k": [8]}}]}, "figures.sw.axes[0].with.theta_k"),
    ({"axes": []}, "figures.sw.axes"),
    ({"summary": {"t": 500}}, "figures.sw.summary.t"),
    ({"summary": {"kind": "time_to_mse"}}, "figures.sw.summary.target"),
    ({"summary": {"kind": "mse_window", "window": [300, 100]}}, "figures.sw.summary.window"),
    ({"base": "nothing"}, "figures.sw.base='nothing'"),
    ({"axes": [{"key": "eps", "values": [1]}, {"key": "eps", "values": [2]}]}, "figures.sw.axes"),
])
def test_bad_sweeps_are_rejected_before_any_job_naming_the_key(sweep, named):
    config = config_with(**sweep)
    if sweep.get("axes") and sweep["axes"][0]["key"] == "degree":
        config["figures"]["base_fig"]["n_agents"] = 25  # 25 x 3 is odd: no 3-regular graph
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA)
    assert named in str(error.value)


def synthetic_point(t, mse, se, local):
    frames = [pd.DataFrame({"curve": "oracle", "kind": "simulated", "t": t, "mse": mse, "se": se, "runs": 10}),
              pd.DataFrame({"curve": "Local", "kind": "analytic", "t": t, "mse": local, "se": 0.0, "runs": 0})]
    return pd.concat(frames, ignore_index=True)


def test_summaries_read_the_recorded_times_they_say():
    t = np.array([1, 10, 100, 1000])
    table = synthetic_point(t, 1.0 / t, 0.01 / t, 2.0 / t)
    at = summarise(table, {"kind": "mse_at", "t": 500}, 1000).set_index("curve")
    assert at.loc["oracle", "t"] == 100 and at.loc["oracle", "y"] == pytest.approx(0.01)
    assert at.loc["oracle", "ratio"] == pytest.approx(0.5) and at.loc["oracle", "resolved"]
    ratio = summarise(table, {"kind": "ratio_to_local"}, 1000).set_index("curve")
    assert ratio.loc["oracle", "t"] == 1000 and ratio.loc["oracle", "y"] == pytest.approx(0.5)
    assert ratio.loc["oracle", "y_hi"] == pytest.approx(0.5 + 2 * 0.01 / 1000 / (2.0 / 1000))
    window = summarise(table, {"kind": "mse_window", "window": [10, 1000]}, 1000).set_index("curve")
    assert window.loc["oracle", "mse"] == pytest.approx(np.mean([0.1, 0.01, 0.001]))
    reach = summarise(table, {"kind": "time_to_mse", "target": 0.05}, 1000).set_index("curve")
    assert reach.loc["oracle", "y"] == 100 and reach.loc["Local", "y"] == 100


def test_crossing_interpolates_in_log_x():
    x = np.array([0.5, 1.0, 2.0, 4.0, math.inf])
    margin = np.log(x / 1.5)  # changes sign at 1.5, linear in log x: exact
    assert crossing(x, margin) == (pytest.approx(1.5), "at")
    assert crossing(x, np.array([1, 1, 1, 1, -1.0])) == (4.0, "above")
    assert crossing(x, np.ones(5))[1] == "none"


def sweep_table(rows):
    """A sweep table from (point, eps, curve, kind, mse, se) with Local = 1 at every point."""
    frame = pd.DataFrame(rows, columns=["point", "eps", "curve", "kind", "mse", "se"])
    local = pd.DataFrame({"point": frame["point"].unique(), "curve": "Local", "kind": "analytic", "mse": 1.0,
                          "se": 0.0})
    local["eps"] = frame.groupby("point", sort=False)["eps"].first().to_numpy()
    frame = pd.concat([frame, local], ignore_index=True)
    frame["t"], frame["runs"] = 100, 50
    frame["ratio"], frame["ratio_se"] = frame["mse"], frame["se"]
    return frame[["curve", "kind", "point", "eps", "t", "mse", "se", "runs", "ratio", "ratio_se"]]


def test_sweep_sign_reads_the_three_verdicts():
    def table(oracle_mse, se=0.01):
        rows = []
        for i, (eps, pred, mse) in enumerate(zip([0.5, 1, 2, 4], [3.0, 1.5, 0.8, 0.5], oracle_mse, strict=True)):
            rows += [(f"p{i}", eps, "oracle", "simulated", mse, se), (f"p{i}", eps, "theorem1", "analytic", pred, 0.0)]
        return sweep_table(rows)

    assert sweep_sign(table([2.9, 1.6, 0.85, 0.52])).verdict == REPRODUCED
    wrong = sweep_sign(table([2.9, 1.6, 1.2, 0.52]))  # eps = 2: above Local, predicted below
    assert wrong.verdict == NOT_REPRODUCED and "eps=2" in wrong.measured
    assert sweep_sign(table([2.9, 1.6, 0.85, 0.52], se=1.0)).verdict == INCONCLUSIVE  # nothing resolves
    assert sweep_sign(table([2.9, 1.6, 1.01, 1.005], se=0.01)).verdict == INCONCLUSIVE  # no flip resolved


def test_sweep_agreement_reads_the_three_verdicts():
    def table(excess, se):
        rows = []
        for i, eps in enumerate([1, 2]):
            rows += [(f"p{i}", eps, "oracle", "simulated", 1.0 + excess, se),
                     (f"p{i}", eps, "theorem1", "analytic", 1.0, 0.0)]
        return sweep_table(rows)

    assert sweep_agreement(table(0.02, 0.01), tol=0.1).verdict == REPRODUCED
    assert sweep_agreement(table(0.3, 0.01), tol=0.1).verdict == NOT_REPRODUCED
    assert sweep_agreement(table(0.02, 0.1), tol=0.1).verdict == INCONCLUSIVE


def test_shipped_sweeps_are_points_of_their_base():
    config = validate_config(SHIPPED, SCHEMA)
    settings = sweep_figures_of(config, SCHEMA)
    pu = settings["privacy_utility_r5__eps_lanes"]  # the eps axis as lanes of one figure
    assert pu["eps"] == [0.25, 0.5, 1, 2, 4, 8, 16, math.inf] and pu["theta_k"] == [8, 8, 8, 7, 7, 7, 7, 7]
    assert pu["stream"] == "fig1_r5" and pu["degree"] == 5 and pu["t_max"] == 30000
    phase = [s for name, s in settings.items() if name.startswith("phase_eps_degree__")]
    assert len(phase) == 5 and {s["degree"] for s in phase} == {3, 5, 10, 20, 40}
    assert all(s["eps"] == [0.25, 0.5, 1, 2, 4, math.inf] for s in phase)
    private = [s for name, s in settings.items() if name.startswith("mse_vs_m_private_colme__")]
    assert [s["n_agents"] for s in private] == [15, 30, 60, 120, 200]


def test_eps_point_simulates_the_base_lanes_bit_for_bit():
    """A point draws its base's streams, and every lane replays the same draws: the point's
    curves are the base figure's curves at that eps, bit for bit."""
    config = validate_config(config_with(set={"runs": 3}), SCHEMA)
    base = resolve_figure(config, "base_fig")
    point = sweep_figures_of(config, SCHEMA)["sw__epsinf"]
    engine = ENGINES["ccolme"]
    instances = engine.instances(stage_params(base, "instances", 0, 3), "base_fig", 0, 3)
    assert stage_params(point, "instances", 0, 3) == stage_params(base, "instances", 0, 3)
    whole = engine.simulate(stage_params(base, "simulate", 0, 3), instances, "base_fig")
    alone = engine.simulate(stage_params(point, "simulate", 0, 3), instances, "sw__epsinf")
    lanes = [i for i, name in enumerate(whole["curves"]) if name.endswith("eps=inf")]
    assert list(alone["curves"]) == [whole["curves"][i] for i in lanes]
    np.testing.assert_array_equal(alone["mse"], whole["mse"][:, lanes])


@pytest.fixture(scope="module")
def built_sweep(tmp_path_factory):
    """The tiny sweep (one figure per point) and its base, built by Snakemake."""
    tmp_path = tmp_path_factory.mktemp("sweep")
    tiny = yaml.safe_dump(config_with(set={"runs": 4}), sort_keys=False)
    snakemake(tmp_path, "--cores", "2", "results/figures/sw.pdf", "results/tables/base_fig.csv", config=tiny)
    return tmp_path


def job_stats(plan: str) -> dict[str, int]:
    stats = plan[plan.index("Job stats:"):].split("total")[0]
    return {line.split()[0]: int(line.split()[1]) for line in stats.splitlines()
            if len(line.split()) == 2 and line.split()[1].isdigit()}


def test_end_to_end_sweep_builds_plans_one_added_value_and_matches_formulas(built_sweep):
    tmp_path = built_sweep
    table = pd.read_csv(tmp_path / "results/tables/sw.csv")
    assert set(table["curve"]) == {"oracle", "bernstein", "optimistic", "Local", "Ideal", "theorem1"}
    assert np.isfinite(table.loc[table["kind"] == "simulated", ["mse", "se", "ratio"]].to_numpy()).all()
    # the eps = inf point equals the base figure's eps = inf curves: the chunks of the
    # first 3 runs, shared by the base (6 runs) and the point (4 runs)

    base_chunk = np.load(sorted(glob.glob(str(tmp_path / "results/chunks/base_fig/runs0-3-*.npz")))[0])
    point_chunk = np.load(sorted(glob.glob(str(tmp_path / "results/chunks/sw__epsinf/runs0-3-*.npz")))[0])
    lanes = [i for i, c in enumerate(base_chunk["curves"]) if c.endswith("eps=inf")]
    np.testing.assert_array_equal(point_chunk["mse"], base_chunk["mse"][:, lanes])
    # instance files: only the base's (the points share them)
    assert sorted(p.name for p in (tmp_path / "results/instances").iterdir()) == ["base_fig"]
    # overlays against their formulas, on the point's own instances
    instances = [np.load(p) for p in sorted(glob.glob(str(tmp_path / "results/instances/base_fig/*.npz")))]
    sizes = [s for data in instances for s in data["component_sizes"]][:4]
    sigma, half_width = 0.5, 0.5 * math.sqrt(3)
    sigma_dp = laplace_sigma_dp(4.0, half_width)
    coefficient = np.mean([theorem1_coefficient(n, sigma, sigma_dp, ALPHA_FACTOR["floor10"]) for n in sizes])
    row = table[(table["curve"] == "theorem1") & (table["eps"] == 4)].iloc[0]
    assert row["mse"] == pytest.approx(coefficient / row["t"], rel=1e-12)
    assert table[(table["curve"] == "Local")]["mse"].iloc[0] == pytest.approx(sigma**2 / row["t"], rel=1e-12)
    terms = np.array([corollary1_terms(n, sigma) for n in sizes])
    bound = terms[:, 0].mean() / terms[:, 1].mean()
    margins = pd.read_csv(tmp_path / "results/tables/sw_supplement.csv")
    margin = margins[(margins["quantity"] == "Corollary 1 (bound (3))") & (margins["eps"] == 4)]["value"].iloc[0]
    assert margin == pytest.approx(math.log(bound / sigma_dp**2), rel=1e-9)
    # adding a value plans only that value: its chunks, its table, the sweep's table and figure
    more = config_with(set={"runs": 4})
    more["figures"]["sw"]["axes"][0]["values"].insert(1, 2)
    more["figures"]["sw"]["axes"][0]["with"]["theta_k"].insert(1, 7)
    plan = snakemake(tmp_path, "-n", "--cores", "2", "results/figures/sw.pdf",
                     config=yaml.safe_dump(more, sort_keys=False)).stdout
    assert job_stats(plan) == {"simulate": 2, "table": 2, "figure": 1}, plan[-1500:]
    simulated = [line for line in plan.splitlines() if "results/chunks/" in line and "output" in line]
    assert simulated and all("sw__eps2/" in line for line in simulated)


def test_lanes_run_an_axis_as_one_figure_with_the_same_sweep_table(tmp_path):
    """``lanes: true``: the eps values run as lanes of one figure per degree (one kernel
    call per chunk on the same draws); the sweep's table and margins are the same bytes as
    with one figure per point, and adding a value reruns the lanes figures' chunks."""
    two_axes = config_with(set={"runs": 3}, axes=[copy.deepcopy(SWEEP["axes"][0]), {"key": "degree", "values": [4, 6]}])
    lanes = copy.deepcopy(two_axes)
    lanes["figures"]["sw"]["axes"][0]["lanes"] = True
    for name, config in (("points", two_axes), ("lanes", lanes)):
        (tmp_path / name).mkdir()
        snakemake(tmp_path / name, "--cores", "2", "results/figures/sw.pdf",
                  config=yaml.safe_dump(config, sort_keys=False))
    points_dir, lanes_dir = tmp_path / "points" / "results", tmp_path / "lanes" / "results"
    for name in ("sw.csv", "sw_supplement.csv"):
        assert (lanes_dir / "tables" / name).read_bytes() == (points_dir / "tables" / name).read_bytes()
    margins = pd.read_csv(lanes_dir / "tables/sw_supplement.csv")
    assert (margins["quantity"] == "Corollary 1 (bound (3))").sum() == 6  # one per point
    built = ["sw__eps_lanes__degree4", "sw__eps_lanes__degree6"]
    assert sorted(p.name for p in (lanes_dir / "chunks").iterdir()) == built
    assert json.loads((lanes_dir / "tables/sw.json").read_text())["simulated_figures"] == built
    meta = json.loads((lanes_dir / "tables/sw.json").read_text())
    point = meta["points"]["sw__eps4__degree6"]["settings"]  # the point's own settings, as without lanes
    assert point["eps"] == [4] and point["theta_k"] == [7] and point["degree"] == 6
    lanes["figures"]["sw"]["axes"][0]["values"].insert(1, 2)
    lanes["figures"]["sw"]["axes"][0]["with"]["theta_k"].insert(1, 7)
    plan = snakemake(tmp_path / "lanes", "-n", "--cores", "2", "results/figures/sw.pdf",
                     config=yaml.safe_dump(lanes, sort_keys=False)).stdout
    assert job_stats(plan) == {"simulate": 2, "table": 3, "figure": 1}, plan[-1500:]


def test_lanes_are_checked_before_any_job():
    schema_checked = [
        ({"key": "degree", "values": [4, 6], "lanes": True}, "figures.sw.axes[0].lanes: 'degree' is not a curve key"),
        ({"key": "eps", "values": [1, 2], "lanes": True}, "figures.sw.axes[0].with: lanes over 'eps' need exactly"),
        ({"key": "eps", "values": [1, 2], "lanes": "yes"}, "figures.sw.axes[0].lanes"),
    ]
    for axis, named in schema_checked:
        with pytest.raises(ConfigError) as error:
            validate_config(config_with(axes=[axis]), SCHEMA)
        assert named in str(error.value)
    clash = [{**SWEEP["axes"][0], "lanes": True}, {"key": "degree", "values": [4, 6], "with": {"eps": [8, 8]}}]
    with pytest.raises(ConfigError, match=r"figures\.sw\.axes\[1\]: sets \['eps'\], which the lanes axis"):
        validate_config(config_with(axes=clash), SCHEMA)
    two = [{**SWEEP["axes"][0], "lanes": True}, {"key": "optimistic_delta", "values": [1, 2], "lanes": True}]
    with pytest.raises(ConfigError, match=r"figures\.sw\.axes\[1\]\.lanes: at most one axis"):
        validate_config(config_with(axes=two), SCHEMA)


def test_lanes_figures_hold_every_value_of_their_axis():
    settings = {"axes": [{"key": "eps", "values": [1, 2], "with": {"theta_k": [8, 7]}, "lanes": True},
                         {"key": "degree", "values": [3, 5, 7]}]}
    found = sweep_figures(settings, "s")
    assert [f["name"] for f in found] == ["s__eps_lanes__degree3", "s__eps_lanes__degree5", "s__eps_lanes__degree7"]
    assert found[1]["set"] == {"eps": [1, 2], "theta_k": [8, 7], "degree": 5}
    assert [p["name"] for p in found[1]["points"]] == ["s__eps1__degree5", "s__eps2__degree5"]
    assert sorted(p["name"] for f in found for p in f["points"]) == sorted(p["name"] for p in points(settings, "s"))


def test_documented_experiment_examples_are_valid_configs():
    """The README's and the tutorial's experiment snippets validate (and sweeps expand)."""
    import re

    blocks = []
    for page in (ROOT / "README.md", ROOT / "docs" / "tutorial.md"):
        found = re.findall(r"```yaml\n(?:targets:[^\n]*\n)?(figures:.*?)```", page.read_text(), re.S)
        assert found, f"{page.name} has no experiment snippet"
        blocks += found
    assert len(blocks) >= 3
    for block in blocks:
        config = copy.deepcopy(SHIPPED)
        config["figures"].update(yaml.safe_load(block)["figures"])
        validated = validate_config(config, SCHEMA)
        assert set(yaml.safe_load(block)["figures"]) <= set(validated["figures"])
        sweep_figures_of(validated, SCHEMA)
