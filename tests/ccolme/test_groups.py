"""Who pays: the MSE per group (class, privacy level of a mix, degree band), Theorem 1 per
group and per mix, and the in-process entry point that builds them (``colme.explore``)."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from colme.aggregation import ALL_AGENTS, groups_as_curves, panel_rows, pooled_mean_se
from colme.ccolme.closed_forms import oracle_expected_mse
from colme.ccolme.kernel import simulate_runs
from colme.ccolme.spec import Curve, PanelSpec, band_labels, default_degree_bands
from colme.ccolme.tables import theorem1_agent_terms
from colme.errors import ConfigError
from colme.explore import figure_tables
from colme.graphs import random_regular_edges
from colme.instances import privacy_ranks
from colme.populations import Population, component_sizes
from colme.privacy import laplace_sigma_dp
from colme.seeding import run_generator

POPULATION = Population()
MIX = ((1.0, 0.3), (math.inf, 0.7))


def base_config(**figure) -> dict:
    config = yaml.safe_load(Path("config.yaml").read_text())
    config.pop("targets", None)
    entry = {"engine": "ccolme", "n_agents": 60, "degree": 6, "t_max": 300, "runs": 3, "chunk_runs": 2,
             "rules": ["oracle", "bernstein"], "eps": [1, math.inf], "theta_k": [6, 6],
             "privacy_mixes": [{"eps": [1, math.inf], "shares": [0.3, 0.7], "theta_k": 6}], **figure}
    config["figures"] = {"f": entry}
    return config


@pytest.fixture(scope="module")
def grouped():
    return figure_tables(base_config(groups={"by": ["privacy", "class"]}), "f").table


def test_groups_weighted_by_their_shares_give_the_panel_mse(grouped):
    """sum_g group_share_g * mse_g = the panel's mse, per simulated curve and t (the pooled
    group MSE makes it an identity, up to the order of the float sums)."""
    simulated = grouped[grouped["kind"] == "simulated"]
    panel = simulated[simulated["group"] == ALL_AGENTS].set_index(["curve", "t"])["mse"]
    groups = simulated[simulated["group"] != ALL_AGENTS]
    weighted = (groups["group_share"] * groups["mse"]).groupby([groups["curve"], groups["t"]]).sum()
    np.testing.assert_allclose(weighted.loc[panel.index], panel, rtol=1e-12)
    shares = groups[groups["t"] == 1].groupby("curve")["group_share"].sum()
    np.testing.assert_allclose(shares, 1.0, rtol=1e-12)
    mix = groups[groups["curve"] == "bernstein eps=1:30%,inf:70%"]
    assert set(mix["group"]) == {f"eps={e}, class {c}" for e in ("1", "inf") for c in range(3)}
    np.testing.assert_allclose(mix[mix["t"] == 1].groupby(mix["group"].str[:5])["group_share"].sum(),
                               [0.3, 0.7], rtol=1e-12)  # the mix's counts: 18 and 42 of 60 agents


def test_groups_leave_the_panel_rows_as_they_were(grouped):
    """The panel rows of a grouped figure are those of the same figure without groups, bit
    for bit (the grouped kernel variant only adds the per-group sums)."""
    plain = figure_tables(base_config(), "f").table
    assert "group" not in plain.columns
    panel = panel_rows(grouped)
    common = plain[plain["curve"].isin(set(panel["curve"]))]
    for curve, rows in common.groupby("curve"):
        mine = panel[panel["curve"] == curve]
        assert np.array_equal(mine["mse"].to_numpy(), rows["mse"].to_numpy()), curve
        assert np.array_equal(mine["se"].to_numpy(), rows["se"].to_numpy(), equal_nan=True), curve


def test_groups_as_curves_names_each_group(grouped):
    flat = groups_as_curves(grouped)
    assert "group" not in flat.columns
    assert "oracle eps=1:30%,inf:70% [eps=1, class 0]" in set(flat["curve"])
    assert len(flat) == len(grouped) and len(set(flat["curve"])) > len(set(grouped["curve"]))
    whole = groups_as_curves(figure_tables(base_config(groups={"by": ["privacy"]}), "f").table)
    assert "oracle eps=1 [eps=1]" not in set(whole["curve"])  # the panel again: left out
    assert "oracle eps=1:30%,inf:70% [eps=1]" in set(whole["curve"])


def test_pooled_mean_se_is_the_plain_se_with_equal_counts():
    rng = np.random.default_rng(3)
    sums = rng.normal(size=(50, 4))
    mean, se = pooled_mean_se(sums * 7, np.full(50, 7))
    np.testing.assert_allclose(mean, sums.mean(axis=0) * 1.0, rtol=1e-12)
    np.testing.assert_allclose(se, sums.std(axis=0, ddof=1) / math.sqrt(50), rtol=1e-12)


def fixed_instance(n_agents=30, degree=4, seed=7):
    rng = run_generator(seed, "groups", 0, "instance")
    classes = POPULATION.assign(n_agents, rng)
    return classes, random_regular_edges(degree, n_agents, rng)


def exact_group_means(edges, classes, curve, ranks, t_record, groups):
    """The exact oracle E[MSE] of each agent, averaged over each group's agents."""
    levels = curve.agent_levels(ranks)
    noise = np.array([laplace_sigma_dp(curve.levels(2)[level], POPULATION.half_width) for level in levels])
    per_agent = oracle_expected_mse(edges, classes, POPULATION.agent_means(classes), POPULATION.sigma, noise,
                                    "floor10", t_record, component_sizes(edges, classes), per_agent=True)
    return np.stack([per_agent[:, groups == g].mean(axis=1) for g in range(groups.max() + 1)]), noise


def test_group_mse_of_the_oracle_matches_the_exact_expectation_per_group():
    """On one instance (the privacy ranks fixed), each privacy level's simulated MSE under the
    oracle matches the exact expectation averaged over that level's agents, within 4 se."""
    classes, edges = fixed_instance()
    ranks = privacy_ranks(30, "groups", [0], 5)[0]
    curve = Curve("oracle", math.nan, math.nan, MIX)
    record = np.array([1, 10, 30, 100, 300])
    spec = PanelSpec(n_agents=30, degree=4, curves=(curve,), t_record=record, groups=("privacy",))
    runs = 1200
    sums = np.empty((runs, 1, 2, len(record)))
    counts = np.empty((runs, 1, 2), dtype=np.int64)
    simulate_runs(spec, np.repeat(classes[None], runs, 0), np.repeat(edges[None], runs, 0),
                  [run_generator(9, "groups", r, "data") for r in range(runs)],
                  privacy_ranks=np.repeat(ranks[None], runs, 0), group_sums=sums, group_counts=counts)
    groups = curve.agent_levels(ranks)
    exact, noise = exact_group_means(edges, classes, curve, ranks, record, groups)
    for level in range(2):
        mean, se = pooled_mean_se(sums[:, 0, level], counts[:, 0, level])
        assert np.all(np.abs(mean - exact[level]) < 4 * se), (level, (mean - exact[level]) / se)
    assert noise.min() == 0 < noise.max()  # two privacy levels indeed
    assert abs(exact[0, 0] / exact[1, 0] - 1) > 0.1  # and at t = 1 they pay differently


def test_theorem1_per_group_of_a_mix_is_the_exact_oracle_asymptote():
    """t * the exact oracle E[MSE] of each privacy level of a mix -> Theorem 1's per-group
    term with each component's average noise (within 1% at t = 20000, approaching); the
    reading "each agent with its own sigma_DP" misses it by far more."""
    classes, edges = fixed_instance(24, 6, seed=2)
    sizes = component_sizes(edges, classes)
    assert sizes.max() >= 3
    ranks = privacy_ranks(24, "groups", [0], 4)[0]
    curve = Curve("oracle", math.nan, math.nan, MIX)
    spec = PanelSpec(n_agents=24, degree=6, curves=(curve,), t_record=np.array([20000]), groups=("privacy",))
    record = np.array([10000, 20000])
    groups = curve.agent_levels(ranks)
    exact, noise = exact_group_means(edges, classes, curve, ranks, record, groups)
    terms = theorem1_agent_terms(spec, curve, classes, edges, sizes, ranks)
    for level in range(2):
        theory = terms[groups == level].mean()
        ratio = exact[level] * record / theory
        assert abs(ratio[1] - 1) < 0.01, (level, ratio)
        assert abs(ratio[1] - 1) <= abs(ratio[0] - 1) + 1e-4
        own = np.where(sizes <= 2, POPULATION.sigma**2,
                       20 / 19 * (POPULATION.sigma**2 + noise**2) / sizes)[groups == level].mean()
        assert abs(exact[level, 1] * record[1] / own - 1) > 0.05, level


def test_degree_bands():
    assert default_degree_bands(20) == (2, 4, 8, 16)
    assert band_labels((4, 8)) == ["degree < 4", "degree 4-7", "degree >= 8"]
    assert band_labels((2, 3)) == ["degree < 2", "degree 2", "degree >= 3"]
    spec = PanelSpec(n_agents=6, degree=None, curves=(Curve("oracle", 1.0),), t_record=np.array([1]),
                     groups=("degree", "class"), degree_bands=(2, 4))
    degrees = np.array([0, 1, 2, 3, 4, 9])
    indptr = np.concatenate([[0], np.cumsum(degrees)])
    groups = spec.agent_groups(spec.curves[0], np.array([0, 1, 2, 0, 1, 2]), None, indptr,
                               np.zeros(degrees.sum(), dtype=np.int64))
    labels = spec.group_labels(spec.curves[0])
    assert [labels[g] for g in groups] == ["degree < 2, class 0", "degree < 2, class 1", "degree 2-3, class 2",
                                           "degree 2-3, class 0", "degree >= 4, class 1", "degree >= 4, class 2"]


def test_degree_groups_on_an_irregular_graph():
    config = base_config(graph={"family": "erdos_renyi", "mean_degree": 4}, groups={"by": ["degree"]},
                         privacy_mixes=[], rules=["oracle"])
    table = figure_tables(config, "f").table
    bands = table[(table["group"] != ALL_AGENTS) & (table["kind"] == "simulated") & (table["t"] == 300)]
    assert len(set(bands["group"])) >= 3  # an irregular graph fills several bands
    for _, rows in bands.groupby("curve"):
        assert math.isclose(rows["group_share"].sum(), 1.0, rel_tol=1e-12)
    theory = table[(table["rule"] == "theorem1") & (table["group"] != ALL_AGENTS) & (table["t"] == 300)]
    assert set(theory["group"]) == set(bands["group"])


@pytest.mark.parametrize(("figure", "named"), [
    ({"draw_groups": ["oracle"]}, "draw_groups"),
    ({"groups": {"by": ["privacy"]}, "draw_groups": ["optimistic"]}, "draw_groups[0]"),
    ({"groups": {"by": ["class"], "degree_bands": [4]}}, "groups.degree_bands"),
    ({"groups": {"by": ["degree"], "degree_bands": [4, 4]}}, "groups.degree_bands"),
    ({"groups": {"by": ["age"]}}, "groups.by"),
])
def test_bad_groups_are_named_before_any_job(figure, named):
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        figure_tables(base_config(**figure), "f")


def test_a_figure_without_groups_keeps_its_params():
    """Groups, when not asked for, leave a figure's params (so its files) as they were."""
    from colme.config import resolve_figure
    from colme.expansion import validate_config
    from colme.registry import stage_params

    settings = resolve_figure(validate_config(base_config()), "f")
    assert "groups" not in stage_params(settings, "simulate")
    assert "draw_groups" not in stage_params(settings, "figure")
    drawn = resolve_figure(validate_config(base_config(groups={"by": ["privacy"]}, draw_groups=["oracle"])), "f")
    assert stage_params(drawn, "figure")["draw_groups"] == ["oracle"]
    assert "draw_groups" not in stage_params(drawn, "simulate")


def test_a_mix_gets_theorem1_for_the_whole_panel():
    table = figure_tables(base_config(rules=["oracle"], eps=[1], theta_k=[6]), "f").table
    mix = table[table["curve"] == "theorem1 eps=1:30%,inf:70%"]
    assert len(mix) == len(table["t"].unique())
    one, none = (table.loc[table["curve"] == f"theorem1 eps={e}", "mse"].to_numpy() for e in ("1", "inf"))
    assert np.all((mix["mse"].to_numpy() < one) & (mix["mse"].to_numpy() > 0)) and none.size == 0
    assert isinstance(pd.unique(mix["eps_mix"])[0], str)


def test_private_neighbour_bands_count_the_neighbours_at_a_smaller_eps():
    """Agents 0 and 1 private (eps = 1), the rest not; edges 0-2, 1-2, 2-3, 3-4: agent 2 has
    two more-private neighbours, the others none (a private agent's non-private
    neighbours are not more private)."""
    curve = Curve("oracle", math.nan, math.nan, ((1.0, 0.4), (math.inf, 0.6)))
    spec = PanelSpec(n_agents=5, degree=None, curves=(curve,), t_record=np.array([1]),
                     groups=("privacy", "private_neighbours"), neighbour_bands=(1, 2))
    from colme.graphs import csr_neighbours

    indptr, neighbours = csr_neighbours(np.array([[0, 2], [1, 2], [2, 3], [3, 4]]), 5)
    groups = spec.agent_groups(curve, np.zeros(5, dtype=np.int64), np.arange(5), indptr, neighbours)
    labels = spec.group_labels(curve)
    assert [labels[g] for g in groups] == [
        "eps=1, more-private neighbours 0", "eps=1, more-private neighbours 0",
        "eps=inf, more-private neighbours >= 2", "eps=inf, more-private neighbours 0",
        "eps=inf, more-private neighbours 0"]


def test_corollary1_per_group_is_the_bound_over_the_groups_agents():
    """One group holding every agent (privacy, single eps) gives the panel's bound exactly;
    class groups give bounds whose mediant is the panel's, so they bracket it."""
    config = base_config(eps=[1], theta_k=[6], privacy_mixes=[], rules=["oracle"], runs=4)
    whole, by_class = (figure_tables(config | {"figures": {"f": {**config["figures"]["f"], "groups": {"by": [by]}}}},
                                     "f").supplement for by in ("privacy", "class"))
    def bound(supplement, group):
        rows = supplement[(supplement["quantity"] == "corollary1_ratio_of_means") & (supplement["group"] == group)]
        return float(rows["value"].iloc[0])

    panel = bound(whole, ALL_AGENTS)
    assert bound(whole, "eps=1") == pytest.approx(panel, rel=1e-12)
    classes = [bound(by_class, f"class {c}") for c in range(3)]
    assert min(classes) <= panel <= max(classes) and max(classes) > min(classes)
    gains = by_class[(by_class["quantity"] == "sigma_dp2") & (by_class["group"] != ALL_AGENTS)]
    predicted = [row["value"] < b for (_, row), b in zip(gains.iterrows(), classes, strict=True)]
    assert list(gains["gain_predicted"]) == predicted
