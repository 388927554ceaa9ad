"""Every algorithm on every world (``colme.world``): C-ColME and B-ColME on the graphs,
privacy mixes and groups of Private-C-ColME's figures, drawn from one stream, so that the
two engines' figures see the same graphs, classes, true means, privacy levels, samples and
noise, run by run; and a config mixing engines over every graph family plans and builds."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from workflow_helpers import snakemake

from colme.config import ConfigError
from colme.expansion import expand_config
from colme.graphs import FAMILY_KEYS
from colme.registry import ENGINES, stage_params
from colme.stages import owner

ROOT = Path(__file__).resolve().parents[2]

#: A tiny graph of each family for 16 agents (the edge list is written by the tests).
FAMILIES = {
    "random_regular": {"family": "random_regular"},
    "erdos_renyi": {"family": "erdos_renyi", "mean_degree": 4},
    "watts_strogatz": {"family": "watts_strogatz", "k": 4, "p": 0.2},
    "random_geometric": {"family": "random_geometric", "mean_degree": 4},
    "barabasi_albert": {"family": "barabasi_albert", "m": 2},
    "ring_lattice": {"family": "ring_lattice", "k": 4},
    "torus": {"family": "torus", "rows": 4},
    "complete": {"family": "complete"},
    "edge_list": {"family": "edge_list"},
}
MIX = {"eps": [1, math.inf], "shares": [0.25, 0.75]}
WORLD = {"n_agents": 16, "degree": 4, "population": {"jitter": 0.05}, "privacy_mixes": [MIX],
         "groups": {"by": ["privacy"]}, "t_max": 30, "runs": 2, "chunk_runs": 2, "grid": {"linear": 6, "log": 4}}


def test_every_family_is_listed():
    assert set(FAMILIES) == set(FAMILY_KEYS)


def edge_list(tmp_path) -> str:
    path = tmp_path / "ring_and_chords.txt"
    path.write_text("\n".join(f"{a} {(a + 1) % 16}" for a in range(16)) + "\n0 8\n3 11\n")
    return str(path)


def world_figures(graph: dict) -> dict:
    """A Private-C-ColME figure ``c`` and a C-ColME/B-ColME figure ``s`` drawing its streams."""
    figures = {
        "c": {"engine": "ccolme", **WORLD, "graph": graph, "eps": [2], "theta_k": [5]},
        "s": {"engine": "scalable", **WORLD, "graph": graph, "eps": [2], "depths": [2], "stream": "c"},
    }
    return expand_config({"seed": 3, "figures": figures}).figures


@pytest.mark.parametrize("family", FAMILIES)
def test_both_engines_draw_the_same_world(family, tmp_path):
    """The same classes, graphs, jittered true means and privacy permutations, and each
    agent of a mix curve at the same privacy level with the same sigma_DP, on every
    family; the two engines' draws of samples and noise are each tested against the
    documented counter layout (``test_kernel``, ``tests/ccolme``)."""
    graph = {**FAMILIES[family], **({"path": edge_list(tmp_path)} if family == "edge_list" else {})}
    figures = world_figures(graph)
    drawn = {}
    for name in ("c", "s"):
        engine = ENGINES[figures[name]["engine"]]
        params = stage_params(figures[name], "instances", 0, 2)
        instances = engine.instances(params, owner("instances", name, figures[name]), 0, 2)
        drawn[name] = {**instances, **engine.run_streams(stage_params(figures[name], "simulate", 0, 2), instances,
                                                         name)}
    for key in ("classes", "edges", "agent_means", "privacy_ranks"):
        np.testing.assert_array_equal(drawn["c"][key], drawn["s"][key], err_msg=key)
    assert len(np.unique(drawn["c"]["agent_means"][0])) > 3  # jittered: not the class means
    specs = {name: ENGINES[figures[name]["engine"]].spec(stage_params(figures[name], "simulate", 0, 2))
             for name in ("c", "s")}
    mixes = {name: [c for c in spec.curves if c.mix] for name, spec in specs.items()}
    classes, ranks = drawn["c"]["classes"][0], drawn["c"]["privacy_ranks"][0]
    noise = specs["c"].profile_noise(mixes["c"][:1])
    ccolme = specs["c"].agent_profiles(mixes["c"][:1], noise, classes, ranks)["agent_noise"]
    for curve in mixes["s"]:
        scalable = specs["s"].curve_arguments(curve, classes, ranks)["sigma_dp"]
        np.testing.assert_array_equal(scalable, ccolme)
        assert (scalable > 0).sum() == 4  # a quarter of the agents at eps = 1
        assert curve.agent_levels(ranks).tolist() == mixes["c"][0].agent_levels(ranks).tolist()


def test_the_union_bound_counts_each_runs_directed_links():
    """On an Erdos-Renyi graph the radius's 4 |links| is 4 x the run's 2E (the authors'
    simulator's count), which differs from run to run."""
    from colme.scalable import kernel

    figures = world_figures(FAMILIES["erdos_renyi"])
    engine = ENGINES["scalable"]
    instances = engine.instances(stage_params(figures["s"], "instances", 0, 2), "c", 0, 2)
    counts = instances["n_edges"]
    assert counts[0] != counts[1]
    seen = []
    original = kernel.call_kernel

    def spy(function, arguments):
        seen.append(arguments["world"].log_links)
        original(function, arguments)

    kernel.call_kernel = spy
    try:
        engine.simulate(stage_params(figures["s"], "simulate", 0, 2), instances, "c")
    finally:
        kernel.call_kernel = original
    assert sorted(set(seen)) == sorted({math.log(4.0 * 2 * count) for count in counts})


@pytest.mark.parametrize(("entry", "message"), [
    ({"graph": {"family": "erdos_renyi", "mean_degree": 40}}, r"figures\.s\.graph\.mean_degree"),
    ({"privacy_mixes": [{"eps": [1, 2], "shares": [0.5]}]}, r"figures\.s\.privacy_mixes\[0\]\.shares has 1"),
    ({"groups": {"by": ["class"], "degree_bands": [2]}}, r"figures\.s\.groups\.degree_bands=\[2\]: bands need"),
    ({"n_agents": 1_000_000, "degree": 400, "depths": [4]},
     r"figures\.s: a simulate job of this figure needs about \d+ GiB .*B-ColME's tables to depths=4"),
])
def test_a_world_the_algorithms_cannot_run_is_refused_before_any_job(entry, message):
    with pytest.raises(ConfigError, match=message):
        expand_config({"figures": {"s": {"engine": "scalable", "n_agents": 30, **entry}}})


def test_b_colme_at_a_million_agents_and_depth_4_fits():
    """The memory check refuses only what does not fit: the scale figures' M = 1e6, r = 10."""
    expand_config({"figures": {"s": {"engine": "scalable", "n_agents": 1_000_000, "degree": 10, "depths": [4]}}})


def mixed_config(tmp_path) -> str:
    """Per graph family, a Private-C-ColME figure, a C-ColME/B-ColME figure drawing its
    streams and their overlay; and an overlay of two Private-ColME figures whose curves
    share their names (the paper's test and a rule of one's own)."""
    figures, targets = {}, []
    for family, graph in FAMILIES.items():
        graph = {**graph, **({"path": edge_list(tmp_path)} if family == "edge_list" else {})}
        base = {**WORLD, "graph": graph, "eps": [2]}
        figures[f"rules_{family}"] = {"engine": "ccolme", **base, "theta_k": [5], "rules": ["oracle", "bernstein"]}
        figures[f"baselines_{family}"] = {"engine": "scalable", **base, "depths": [1, 2],
                                          "stream": f"rules_{family}"}
        figures[f"overlay_{family}"] = {"engine": "overlay", "sources": [f"rules_{family}", f"baselines_{family}"]}
        targets.append(f"overlay_{family}")
    paper = {"engine": "private_colme", "n_agents": 10, "eps": 1.0, "schedules": ["rr"], "mechanisms": ["pm1"],
             "weights": ["last"], "noises": ["laplace"], "t_max": 40, "runs": 2, "chunk_runs": 2,
             "grid": {"linear": 5, "log": 3}}
    figures["paper_test"] = paper
    rule = tmp_path / "own_rule.py"
    rule.write_text((ROOT / "experiments/rules/private_colme.py").read_text())
    figures["own_test"] = {**paper, "stream": "paper_test", "decision_rule": {
        "file": rule.name, "function": "union_bound", "params": {"scale": 1.0}}}
    figures["tests_overlay"] = {"engine": "overlay", "sources": ["paper_test", "own_test"]}
    targets.append("tests_overlay")
    return yaml.safe_dump({"seed": 5, "targets": targets, "figures": figures})


def test_a_config_mixing_engines_over_every_family_builds(tmp_path):
    """Every family, both engines paired by stream with a mix and groups, drawn in one
    overlay each; two Private-ColME figures whose curves share a name overlay with each
    curve named after its figure."""
    snakemake(tmp_path, "--cores", "2", config=mixed_config(tmp_path), timeout=900)
    tables = tmp_path / "results/tables"
    for family in FAMILIES:
        overlay = pd.read_csv(tables / f"overlay_{family}.csv")
        simulated = overlay[overlay["kind"] == "simulated"]
        assert {"oracle eps=1:25%,inf:75%", "C-ColME eps=1:25%,inf:75%",
                "B-ColME d=2 eps=1:25%,inf:75%"} <= set(simulated["curve"]), family
        grouped = simulated[simulated["group_share"] < 1]  # the mix curves' groups
        assert set(grouped["group"]) == {"eps=1", "eps=inf"}, family
        assert set(grouped["figure"]) == {f"rules_{family}", f"baselines_{family}"}, family
        assert (tmp_path / f"results/figures/overlay_{family}.png").stat().st_size > 1000
    # the two instances files are the Private-C-ColME figures' (the baselines draw their streams)
    assert {p.name for p in (tmp_path / "results/instances").iterdir()} >= {f"rules_{f}" for f in FAMILIES}
    assert not any(p.name.startswith("baselines_") for p in (tmp_path / "results/instances").iterdir())
    tests = pd.read_csv(tables / "tests_overlay.csv")
    curves = set(tests.loc[tests["kind"] == "simulated", "curve"])
    own = {c for c in curves if c.endswith(" (own_test)")}
    assert own and {c.replace(" (own_test)", " (paper_test)") for c in own} <= curves
    assert (tmp_path / "results/figures/tests_overlay.png").stat().st_size > 1000


def test_both_engines_see_the_same_samples():
    """Every agent in a class of its own (16 classes, 16 agents): Private-C-ColME's oracle
    and C-ColME's oracle both keep each agent's own running mean, so the two engines' MSE at
    every t is (1/M) sum_a (mean of a's samples - mu_a)^2 over the same samples: equal to
    rounding (the kernels add the means in another order), where one differing sample
    would move it by O(sigma^2 / (M t^2))."""
    population = {"means": [0.05 * k for k in range(16)], "sigma": 0.5, "sizes": [1] * 16}
    world = {"n_agents": 16, "degree": 4, "population": population,
             "eps": [math.inf], "t_max": 60, "runs": 2, "chunk_runs": 2, "grid": {"linear": 60, "log": 1},
             "rules": ["oracle"], "graph": {"family": "erdos_renyi", "mean_degree": 4}}
    figures = expand_config({"seed": 3, "precision": "float64", "figures": {
        "c": {"engine": "ccolme", **world, "theta_k": [5]},
        "s": {"engine": "scalable", **world, "algorithms": ["c_colme"], "stream": "c"}}}).figures
    mse = {}
    for name in ("c", "s"):
        engine = ENGINES[figures[name]["engine"]]
        instances = engine.instances(stage_params(figures[name], "instances", 0, 2), "c", 0, 2)
        assert all(len(set(run)) == 16 for run in instances["classes"])  # every agent alone in its class
        mse[name] = engine.simulate(stage_params(figures[name], "simulate", 0, 2), instances, name)["mse"][:, 0]
    np.testing.assert_allclose(mse["c"], mse["s"], rtol=1e-12)  # measured: 2e-15; unpaired: O(1)
    assert np.all(np.abs(np.diff(mse["s"], axis=1)) > 1e-6 * mse["s"][:, 1:])  # a new sample moves it every t
