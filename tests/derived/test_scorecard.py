"""The scorecard (colme.derived.scorecard): its statistics on hand-made cards, its cells
equal to the same figure built alone, adding an algorithm plans only its cells, and a
suite naming what does not exist is refused before any job."""

import math

import numpy as np
import pandas as pd
import pytest
import yaml
from workflow_helpers import ROOT, planned_jobs, snakemake

from colme.config import ConfigError, load_config
from colme.derived.scorecard import (
    card_rows,
    first_below,
    frontier,
    frontier_by_privacy,
    holm,
    log_ratio_area,
    ratio_and_se,
)
from colme.expansion import expand_config

SUITE = """
seed: 5
targets: [card]
figures:
  world_a:
    engine: ccolme
    n_agents: 40
    degree: 4
    eps: [1, .inf]
    theta_k: [5, 5]
    rules: [oracle, bernstein]
    t_max: 60
    runs: 6
    chunk_runs: 3
    grid: {linear: 10, log: 5}
  world_p:
    engine: private_colme
    n_agents: 9
    t_max: 60
    runs: 4
    chunk_runs: 2
    grid: {linear: 10, log: 5}
  card:
    engine: scorecard
    worlds:
      regular: {base: world_a}
      sparse: {base: world_a, set: {n_agents: 30, degree: 3}}
      all_to_all: {base: world_p}
    eps: [1, .inf]
    theta_k: [5, 5]
    algorithms:
      oracle: {engine: ccolme, set: {rules: [oracle]}}
      c_colme: {engine: scalable, set: {algorithms: [c_colme], rules: [optimistic]}, baseline: true}
      b_colme: {engine: scalable, set: {algorithms: [b_colme], depths: [2], rules: [optimistic]}, baseline: true}
      pm2:
        engine: private_colme
        set: {schedules: [rrr], mechanisms: [pm2], weights: [wmom], noises: [laplace]}
        knows: ["the class means' smallest gap"]
"""


def suite_config() -> dict:
    config = load_config(ROOT / "config.yaml")
    config.update(yaml.safe_load(SUITE))
    return config


def test_holm_rejects_step_down_and_skips_missing_tests():
    # m = 4 tests (NaN is none): thresholds 0.05/4, 0.05/3, 0.05/2, 0.05/1 in p order
    p = np.array([0.012, np.nan, 0.5, 0.001, 0.02])
    assert holm(p).tolist() == [True, False, False, True, True]
    # the step-down stops at the first failure even if a later p would pass its own threshold
    assert holm(np.array([0.0125, 0.03, 0.04])).tolist() == [True, False, False]
    assert holm(np.array([0.016, 0.024, 0.04])).tolist() == [True, True, True]
    assert not holm(np.array([np.nan, np.nan])).any()


def test_first_below_and_the_log_ratio_area():
    t = np.array([1, 10, 100, 1000])
    local = 1.0 / t
    assert first_below(t, np.array([2, 0.5, 2, 0.5]) * local, local) == 1000.0
    assert first_below(t, np.array([0.5, 0.5, 0.5, 0.5]) * local, local) == 1.0
    assert math.isnan(first_below(t, np.array([0.5, 0.5, 0.5, 1.0]) * local, local))  # equal is not below
    # a constant ratio r: the area is log10 r; a ratio t^(-1/3) over t in [1, 1000]: the mean of
    # -log10(t)/3 over ln t is -log10(1000)/6 = -0.5 (linear in ln t, so the trapezoids are exact)
    assert log_ratio_area(t, 0.1 * local, local) == pytest.approx(-1.0)
    assert log_ratio_area(t, t ** (-1 / 3) * local, local) == pytest.approx(-0.5)


def test_ratio_se_exact_local_and_the_delta_method():
    rng = np.random.default_rng(1)
    runs = rng.gamma(4.0, 0.25, size=50)
    ratio, ratio_se, diff_se = ratio_and_se(runs, None, 2.0)
    assert ratio == pytest.approx(runs.mean() / 2.0)
    assert diff_se == pytest.approx(runs.std(ddof=1) / math.sqrt(50))
    assert ratio_se == pytest.approx(diff_se / 2.0)
    # Local simulated run by run and identical to the curve: ratio 1 exactly, no spread
    ratio, ratio_se, diff_se = ratio_and_se(runs, runs.copy(), runs.mean())
    assert ratio == pytest.approx(1.0) and ratio_se == pytest.approx(0.0, abs=1e-12) and diff_se == 0.0
    # the delta method against the spread of the ratio of means over many replications
    def draw(generator):
        local = generator.gamma(4.0, 0.25, size=200)
        return local * 0.5 + generator.gamma(2.0, 0.1, size=200), local

    ratios = [a.mean() / b.mean() for a, b in (draw(np.random.default_rng(seed)) for seed in range(400))]
    a, b = draw(np.random.default_rng(1000))
    _, ratio_se, _ = ratio_and_se(a, b, b.mean())
    # the se of an se estimated from 400 replications is ~ se / sqrt(800): 2 of those plus the
    # delta method's own spread at n = 200 (a few %) allow 12 %
    assert ratio_se == pytest.approx(np.std(ratios, ddof=1), rel=0.12)


def cell(world, eps, curve, mse_runs, local=1.0, knows="", baseline=False):
    t = np.array([1, 10])
    mse_runs = np.asarray(mse_runs, dtype=float)
    return {"world": world, "privacy": f"eps={eps:g}", "eps": eps, "curve": curve,
            "figure": f"card__{world}__{curve}", "knows": knows,
            "baseline": baseline, "cpu_seconds_per_run": 1.0, "t": t, "mse": np.array([2.0, mse_runs.mean()]),
            "local": np.array([1.0, local]), "run_ids": np.arange(len(mse_runs)), "runs_mse": mse_runs,
            "runs_local": None}


def test_a_hand_made_card_ranks_tests_and_corrects():
    shared = np.array([0.0, 0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01])  # the runs' common part
    cells = [
        cell("w", 1.0, "good", 0.5 + shared),  # far below Local and below the baselines
        cell("w", 1.0, "oracle", 0.3 + shared, knows="the true classes"),  # privileged: ranked apart
        cell("w", 1.0, "base_a", 0.9 + shared + 0.001 * np.arange(8), baseline=True),
        cell("w", 1.0, "base_b", 1.2 + shared, baseline=True),
        cell("w", 1.0, "meh", 0.95 + shared + 0.1 * np.array([1, -1] * 4)),  # not resolved against Local
    ]
    card = card_rows(cells).set_index("curve")
    assert card.loc["good", "rank"] == 1 and card.loc["oracle", "rank"] == 1
    assert card.loc["base_a", "rank"] == 2 and card.loc["meh", "rank"] == 3 and card.loc["base_b", "rank"] == 4
    assert (card["ranked_among"] == "deployable").sum() == 4 and card.loc["oracle", "ranked_among"] == "privileged"
    # the best baseline is the other baseline of lowest MSE; a baseline is compared with the other one
    assert card.loc["good", "best_baseline"] == "base_a" and card.loc["base_a", "best_baseline"] == "base_b"
    assert card.loc["base_b", "best_baseline"] == "base_a"
    assert card.loc["good", "beats_local"] and card.loc["good", "beats_baseline"]
    # paired: the shared part cancels, base_a - good = 0.4 + 0.001 i exactly, so p is ~0
    assert card.loc["good", "p_baseline"] < 1e-12
    assert not card.loc["meh", "beats_local"] and not card.loc["base_b", "beats_local"]
    assert card.loc["meh", "p_local"] == pytest.approx(
        1 - 0.5 * math.erfc(-(1 - 0.95) / (np.std(0.95 + shared + 0.1 * np.array([1, -1] * 4), ddof=1)
                                         / math.sqrt(8)) / math.sqrt(2)), rel=1e-9)
    # Holm over the whole card (10 tests, 6 of them with p ~ 0): a p that passes alone at 0.05
    # comes 7th, against 0.05 / 4, and fails
    assert card[["p_local", "p_baseline"]].notna().sum().sum() == 10
    close = card_rows([*cells[:4], cell("w", 1.0, "meh", 0.97 + shared + 0.04 * np.array([1, -1] * 4))])
    close = close.set_index("curve")
    assert 0.0125 < close.loc["meh", "p_local"] < 0.05 and not close.loc["meh", "beats_local"]
    assert holm(np.array([close.loc["meh", "p_local"]]))[0]  # alone, it passes


def test_suite_cells_draw_their_worlds_streams():
    config = suite_config()
    expansion = expand_config(config)
    cells = {name: s for name, s in expansion.sweep_figures.items() if name.startswith("card__")}
    assert sorted(cells) == sorted([
        "card__regular__oracle", "card__sparse__oracle", "card__regular__c_colme", "card__sparse__c_colme",
        "card__regular__b_colme", "card__sparse__b_colme", "card__all_to_all__pm2__eps1",
        "card__all_to_all__pm2__epsinf"])
    assert cells["card__regular__oracle"]["stream"] == "world_a"  # a world without `set`: its base's streams
    assert cells["card__sparse__c_colme"]["stream"] == "card__sparse"  # with `set`: its own
    assert cells["card__sparse__oracle"]["n_agents"] == 30 and cells["card__all_to_all__pm2__eps1"]["eps"] == 1


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c["worlds"].update(nowhere={"base": "fig_missing"}),
     r"figures\.card\.worlds\.nowhere\.base='fig_missing': must name a simulated figure"),
    (lambda c: c["algorithms"].update(mystery={"engine": "sweep"}),
     r"figures\.card\.algorithms\.mystery\.engine='sweep': not a simulated engine; allowed: \['ccolme'"),
    (lambda c: c["algorithms"].update(mystery={"engine": "ccolme", "set": {"rules": ["no_such_rule"]}}),
     r"no_such_rule"),
    (lambda c: c["algorithms"]["oracle"].update(worlds=["atlantis"]),
     r"figures\.card\.algorithms\.oracle\.worlds: unknown world\(s\) \['atlantis'\]"),
    (lambda c: c["algorithms"]["oracle"].update(worlds=["all_to_all"]),
     r"figures\.card\.algorithms\.oracle\.worlds: cannot run on world 'all_to_all'"),
    (lambda c: c["algorithms"]["oracle"].update(set={"rules": ["oracle", "bernstein"]}),
     r"figures\.card\.algorithms\.oracle: makes 4 curves for 2 privacy levels \(eps and mixes\) on world"),
    (lambda c: c.update(theta_k=[5]), r"figures\.card\.theta_k: 1 values for 2 eps"),
])
def test_a_suite_naming_what_does_not_exist_is_refused(change, message):
    config = suite_config()
    change(config["figures"]["card"])
    with pytest.raises(ConfigError, match=message):
        expand_config(config)


def test_a_cell_equals_its_figure_built_alone_and_adding_an_algorithm_plans_only_its_cells(tmp_path):
    snakemake(tmp_path, "--cores", "2", config=SUITE)
    card = pd.read_csv(tmp_path / "results/tables/card.csv")
    assert len(card) == 2 * (3 * 2 + 1) and set(card["world"]) == {"regular", "sparse", "all_to_all"}
    assert (tmp_path / "results/figures/card.png").stat().st_size > 1000
    # what each knows that a deployed agent would not: the engine's word, and the suite's own
    knows = card.groupby("curve")["knows"].first().fillna("")
    assert "oracle rule" in knows["oracle"] and "restarts stop" in knows["c_colme"]
    assert knows["b_colme"] == "" and knows["pm2"] == "the class means' smallest gap"
    ranked = card.groupby("curve")["ranked_among"].first()
    assert ranked.to_dict() == {"oracle": "privileged", "c_colme": "privileged", "b_colme": "deployable",
                                "pm2": "privileged"}
    # the card's cell is the base figure's curve, bit for bit: build the base alone
    snakemake(tmp_path, "--cores", "2", "results/tables/world_a.csv", config=SUITE)
    alone = pd.read_csv(tmp_path / "results/tables/world_a.csv")
    for eps in (1.0, math.inf):
        row = card[(card["world"] == "regular") & (card["curve"] == "oracle") & (card["eps"] == eps)].iloc[0]
        curve = alone[(alone["curve"] == f"oracle eps={eps:g}") & (alone["t"] == alone["t"].max())].iloc[0]
        assert (row["mse"], row["runs"]) == (curve["mse"], curve["runs"])
        assert row["se"] == pytest.approx(curve["se"], rel=1e-12)
        local = alone[(alone["curve"] == "Local") & (alone["t"] == alone["t"].max())]["mse"].iloc[0]
        assert row["ratio"] == curve["mse"] / local
    # one more algorithm: only its cells (two worlds of its kind), the card's table and figure
    more = SUITE.replace("      pm2:", "      bernstein: {engine: ccolme, set: {rules: [bernstein]}}\n      pm2:")
    jobs = planned_jobs(tmp_path, more)
    assert jobs == {"simulate": 4, "table": 3, "figure": 1, "instances": 0, "all": 1} or jobs == {
        "simulate": 4, "table": 3, "figure": 1, "all": 1}, jobs


def test_the_frontier_in_words_names_where_collaboration_pays():
    shared = np.array([0.0, 0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01])
    card = card_rows([
        cell("grid", 1.0, "good", 0.5 + shared),
        cell("grid", 1.0, "oracle", 0.2 + shared, knows="the true classes"),  # privileged: not counted
        cell("tree", 1.0, "good", 1.5 + shared),
        cell("tree", 1.0, "oracle", 0.2 + shared, knows="the true classes"),
    ])
    assert frontier_by_privacy(card) == ["eps=1: pays on grid (good 0.5 x Local); not on tree"]
    assert frontier_by_privacy(card[card["world"] == "tree"]) == ["eps=1: pays on no world (tree)"]
    assert frontier_by_privacy(card[card["world"] == "grid"]) == ["eps=1: pays on every world: grid (good 0.5 x Local)"]
    assert frontier(card) == ["grid, eps=1: good 0.5 x Local beat Local",
                              "tree, eps=1: no deployable algorithm beats Local (best deployable: good at 1.5 x Local)"]
