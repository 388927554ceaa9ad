"""Worlds from data files (``population: {data: ...}``) in the kernels of Private-C-ColME
(engine ``ccolme``) and of C-ColME and B-ColME (engine ``scalable``): a file of a law's own
draws gives the law's curves, the replay policies reach the kernels as written, and a
figure reading a file is checked before any job."""

import math

import numpy as np
import pytest
from reference import law_draws

from colme.ccolme.kernel import simulate_runs
from colme.ccolme.randoms import run_key
from colme.ccolme.spec import Curve, PanelSpec
from colme.config import ConfigError
from colme.datafiles import REPLAYS
from colme.expansion import expand_config
from colme.graphs import random_regular_edges
from colme.populations import DataLaw, Population
from colme.registry import ENGINES, stage_params
from colme.replay import replay_index
from colme.scalable.kernel import simulate_scalable_runs
from colme.scalable.spec import ScalableCurve, ScalableSpec

LAWS = Population(means=(0.0, 1.0), laws=(DataLaw("beta", 0.5, a=2.0, b=5.0), DataLaw(sigma=0.3)))
M, T = 24, 40


def law_world(seed=4):
    rng = np.random.default_rng(seed)
    classes = np.repeat([0, 1], M // 2)[rng.permutation(M)].astype(np.int8)
    edges = random_regular_edges(4, M, rng)
    return classes, edges, np.random.default_rng(seed + 1)


def write_draws(path, population, classes, key, steps):
    """A long file of the law's own draws (the kernels' stream), each agent's class and
    class mean as its true mean; values written exactly (repr round-trips a double)."""
    samples, _ = law_draws(population, classes, key, steps)
    means = population.agent_means(classes)
    lines = ["agent,t,value,class,mean"]
    lines += [f"{a},{t + 1},{float(samples[t, a])!r},{classes[a]},{float(means[a])!r}"
              for t in range(steps) for a in range(M)]
    path.write_text("\n".join(lines) + "\n")
    return samples


def file_population(path, **data):
    return Population.from_settings({"data": {"kind": "file", "path": str(path), **data}})


def test_a_file_of_the_laws_draws_gives_the_laws_curves(tmp_path):
    """Replayed in order, a file holding the draws of a law gives that law's curves: bit
    for bit for C-ColME and B-ColME (raw values in both), to rounding for Private-C-ColME
    (which holds each sample less its mean); the oracle rule without noise, so that the
    rules' estimated sigma does not enter."""
    classes, edges, generator = law_world()
    path = tmp_path / "draws.csv"
    write_draws(path, LAWS, classes, run_key(generator), T)
    data = file_population(path, replay="in_order", true_mean="column")
    np.testing.assert_array_equal(data.streams.classes, classes)
    t_record = np.array([1, 2, 7, 20, T])
    curves = (ScalableCurve("c_colme", rule="oracle"), ScalableCurve("b_colme", 2, rule="oracle"))
    found = [simulate_scalable_runs(ScalableSpec(n_agents=M, curves=curves, t_record=t_record, population=world),
                                    classes[None], edges[None], [generator]) for world in (LAWS, data)]
    np.testing.assert_array_equal(found[0], found[1])
    spec = {"n_agents": M, "degree": 4, "curves": (Curve("oracle", math.inf),), "t_record": t_record}
    found = [simulate_runs(PanelSpec(**spec, population=world), classes[None], edges[None], [generator], np.float64)
             for world in (LAWS, data)]
    np.testing.assert_allclose(found[0], found[1], rtol=1e-12)
    assert found[0][0, 0, -1] > 0


@pytest.mark.parametrize("replay", sorted(REPLAYS))
def test_each_replay_policy_reaches_the_kernel(tmp_path, replay):
    """On a graph without edges B-ColME's estimate is the agent's own running mean, so the
    kernel's MSE is that of the samples it replayed: equal to the running means of the
    replay as ``replay_index`` writes it, with the run's key and data uniforms, past the
    end of the streams (5 or 7 samples, 40 steps)."""
    classes, _, generator = law_world()
    lines = ["agent,t,value,class"] + [f"{a},{t + 1},{math.sin(3 * a + t) + 0.1 * a},{classes[a]}"
                                       for a in range(M) for t in range(5 + 2 * (a % 2))]
    path = tmp_path / "short.csv"
    path.write_text("\n".join(lines) + "\n")
    world = file_population(path, replay=replay)
    streams = world.streams
    key = run_key(generator)
    spec = ScalableSpec(n_agents=M, curves=(ScalableCurve("b_colme", 1, rule="oracle"),),
                        t_record=np.arange(1, T + 1), population=world)
    mse = simulate_scalable_runs(spec, classes[None], np.zeros((1, 0, 2), dtype=np.int64), [generator])[0, 0]
    with np.errstate(over="ignore"):  # the stream's counter wraps around mod 2^64
        from colme.ccolme.randoms import _GOLDEN, _mix_uniform

        uniforms = np.array([[_mix_uniform(np.uint64(key) + np.uint64(2 * (t * M + a) + 1) * _GOLDEN)
                              for a in range(M)] for t in range(T)])
    order = np.zeros(streams.n_samples, dtype=np.int64)
    seen = np.array([[streams.values[streams.start[a] + replay_index(t, streams.count[a], REPLAYS[replay],
                                                                     np.uint64(key), a, uniforms[t, a], order,
                                                                     streams.start[a])]
                      for a in range(M)] for t in range(T)])
    running = np.cumsum(seen, axis=0) / np.arange(1, T + 1)[:, None]
    np.testing.assert_allclose(mse, np.mean((running - streams.means) ** 2, axis=1), rtol=1e-12)
    if replay == "permutation":  # every pass uses each sample once: the mean over a pass is the file's
        np.testing.assert_allclose(running[4, ::2], streams.means[::2], rtol=1e-12)


def figures(tmp_path, data=None, classes=True, **figure):
    lines = ["agent,t,value" + ",class" * classes]
    lines += [f"a{a:02d},{t + 1},{(a % 3) + 0.5 * math.cos(a + 2 * t)}" + f",{a % 3}" * classes
              for a in range(12) for t in range(6)]
    path = tmp_path / "world.csv"
    path.write_text("\n".join(lines) + "\n")
    population = {"data": {"kind": "file", "path": str(path), **(data or {})}}
    entry = {"n_agents": 12, "degree": 4, "population": population, "t_max": 20, "runs": 2, "chunk_runs": 2,
             "grid": {"linear": 5, "log": 3}}
    return expand_config({"seed": 1, "figures": {
        "c": {"engine": "ccolme", **entry, "eps": [1, math.inf], "theta_k": [5, 5], **figure},
        "s": {"engine": "scalable", **entry, "eps": [1], "depths": [1], "stream": "c", **figure},
    }}).figures


def test_two_engines_on_one_file_world_share_its_instances_and_record_its_choices(tmp_path):
    resolved = figures(tmp_path)
    drawn = {}
    for name in ("c", "s"):
        engine = ENGINES[resolved[name]["engine"]]
        params = stage_params(resolved[name], "instances", 0, 2)
        drawn[name] = engine.instances(params, "c", 0, 2)
        choices = engine.figure_interpretations(resolved[name])
        assert any("data from the file" in line and "12 agents, 72 samples, 3 classes" in line for line in choices)
        assert any("samples replayed: bootstrap" in line for line in choices)
    for key in ("classes", "edges"):
        np.testing.assert_array_equal(drawn["c"][key], drawn["s"][key])
    np.testing.assert_array_equal(drawn["c"]["classes"][0], drawn["c"]["classes"][1])  # the file's, every run
    np.testing.assert_array_equal(drawn["c"]["classes"][0], np.arange(12) % 3)


@pytest.mark.parametrize(("data", "figure", "message"), [
    ({}, {"n_agents": 10}, r"figures\.c\.n_agents=10, but the data file .* has 12 agents: set n_agents: 12"),
    ({}, {"rules": ["oracle"], "classes": False},
     r"figures\.c\.population\.data: the oracle rule keeps an agent's classmates, but .* gives no class column"),
    ({"range": {"low": 0.0, "high": 1.0}}, {},
     r"figures\.c\.population\.data: data file .*world\.csv, column 'value': \d+ value\(s\) outside the declared"),
    ({"path": "missing.csv"}, {}, r"figures\.c\.population\.data: data file 'missing\.csv' is not a file"),
    ({"columns": {"class": "group"}}, {}, r"figures\.c\.population\.data: .*unexpected column\(s\) \['class'\]"),
])
def test_a_bad_file_world_is_refused_before_any_job(tmp_path, data, figure, message):
    with pytest.raises(ConfigError, match=message):
        figures(tmp_path, data, **figure)


def test_a_file_world_builds_with_every_algorithm_paired_and_its_clipping_recorded(tmp_path, monkeypatch):
    """Private-C-ColME's rules, C-ColME and B-ColME on a file world (an edge list naming the
    agents), paired by stream and overlaid, and Private-ColME (all-to-all) on the same
    file: the tables, the figures, and the provenance recording the file and its clipped
    samples; the exact oracle engine, which knows no file, is refused by name."""
    import json

    import pandas as pd
    import yaml
    from workflow_helpers import snakemake

    rows = [f"n{a},{t + 1},{(a % 3) + math.cos(a + 2 * t)},{a % 3}" for a in range(12) for t in range(9)]
    (tmp_path / "world.csv").write_text("agent,t,value,class\n" + "\n".join(rows) + "\n")
    (tmp_path / "grid.txt").write_text("\n".join(f"n{a} n{(a + 1) % 12}" for a in range(12)) + "\nn0 n6\n")
    population = {"data": {"kind": "file", "path": "world.csv", "range": {"low": 0.0, "high": 2.5, "clip": True}}}
    world = {"n_agents": 12, "graph": {"family": "edge_list", "path": "grid.txt"}, "population": population,
             "t_max": 30, "runs": 2, "chunk_runs": 2, "grid": {"linear": 5, "log": 3}}
    figures = {
        "rules": {"engine": "ccolme", **world, "eps": [1], "theta_k": [5], "rules": ["oracle", "optimistic"]},
        "baselines": {"engine": "scalable", **world, "eps": [1], "depths": [1], "stream": "rules"},
        "both": {"engine": "overlay", "sources": ["rules", "baselines"]},
        "private": {"engine": "private_colme", "n_agents": 12, "population": population, "eps": 1.0,
                    "schedules": ["rr"], "mechanisms": ["pm1"], "weights": ["last"], "noises": ["laplace"],
                    "t_max": 30, "runs": 2, "chunk_runs": 2, "grid": {"linear": 5, "log": 3}},
    }
    config = yaml.safe_dump({"seed": 2, "targets": ["both", "private"], "figures": figures})
    snakemake(tmp_path, "--cores", "2", config=config, timeout=900)
    private = pd.read_csv(tmp_path / "results/tables/private.csv")
    assert private.loc[private["kind"] == "simulated", "mse"].notna().all()
    assert json.loads((tmp_path / "results/tables/private.json").read_text())["population"]["data"]["agents"] == 12
    table = pd.read_csv(tmp_path / "results/tables/both.csv")
    simulated = set(table.loc[table["kind"] == "simulated", "curve"])
    assert {"oracle eps=1", "optimistic eps=1", "C-ColME eps=1", "B-ColME d=1 eps=1"} <= simulated
    assert table["mse"].notna().all()
    provenance = json.loads((tmp_path / "results/tables/rules.json").read_text())
    data = provenance["population"]["data"]
    clipped = sum(not 0.0 <= (a % 3) + math.cos(a + 2 * t) <= 2.5 for a in range(12) for t in range(9))
    assert (data["agents"], data["samples"], data["clipped_samples"]) == (12, 108, clipped) and clipped > 0
    assert any("clipped" in line for line in provenance["interpretations"])
    # what a sample enjoys over the horizon, per curve: one Laplace release at the curve's eps (Private-C-ColME),
    # the p-sums it enters with one querying agent (Private-ColME's PM-I: one)
    assert {(p["curve"], p["eps"], p["delta"]) for p in provenance["sample_privacy"]} == {
        ("oracle eps=1", 1.0, 0.0), ("optimistic eps=1", 1.0, 0.0)}
    private_privacy = json.loads((tmp_path / "results/tables/private.json").read_text())["sample_privacy"]
    assert [(p["class"], p["eps"], p["delta"]) for p in private_privacy] == [(c, 1.0, 0.0) for c in range(3)]
    assert (tmp_path / "results/figures/both.png").stat().st_size > 1000
    monkeypatch.chdir(tmp_path)
    refused = (r"^population\.data: engine 'oracle' does not run on a world from a data file \(yet\); the engines "
               r"that do: \['ccolme', 'private_colme', 'scalable'\]")
    with pytest.raises(ConfigError, match=refused):
        expand_config({"seed": 2, "population": population,
                       "figures": {"exact": {"engine": "oracle", "n_agents": 12}}})


def test_private_colme_on_a_file_of_its_laws_draws(tmp_path):
    """Private-ColME draws from its run's generator (sample, then four noise draws per
    agent and step): a file of those very samples, replayed in order, gives the law's
    curves, to rounding (the oracle class estimator without noise: the weights' common
    sigma cancels)."""
    import copy

    from colme.private_colme.kernel import simulate_colme_runs
    from colme.private_colme.spec import ColmeCurve, ColmeSpec

    classes, _, generator = law_world()
    rng, laws = copy.deepcopy(generator), LAWS.kernel_laws()
    means = LAWS.agent_means(classes)
    lines = ["agent,t,value,class,mean"]
    for t in range(T):
        for a in range(M):
            c = classes[a]
            x = means[a] + LAWS.laws[c].sample(np.array([rng.random()]))[0]
            rng.standard_normal(), rng.random(), rng.standard_normal(), rng.random()
            lines.append(f"{a},{t + 1},{float(x)!r},{c},{float(means[a])!r}")
    assert laws.law_code.tolist() == [2, 0]
    path = tmp_path / "draws.csv"
    path.write_text("\n".join(lines) + "\n")
    data = file_population(path, replay="in_order", true_mean="column")
    curves = (ColmeCurve(noise="laplace", oracle=True), ColmeCurve("rrr", "pm2", "mom", "laplace", oracle=True))
    found = [simulate_colme_runs(ColmeSpec(n_agents=M, curves=curves, t_record=np.array([1, 5, T]), eps=math.inf,
                                           population=world), classes[None], [generator])
             for world in (LAWS, data)]
    np.testing.assert_allclose(found[0], found[1], rtol=1e-12)
    assert found[0][0, 0, -1] > 0


@pytest.mark.parametrize("replay", ["bootstrap", "permutation"])
def test_a_large_file_of_law_draws_replayed_gives_the_laws_curves_within_monte_carlo_error(tmp_path, replay):
    """Replayed by bootstrap or by permutation (other samples than the law's run by run), a
    file of 2000 draws of the law per agent, each agent's shifted to its class mean exactly
    (else classmates' file means differ by ~sigma/sqrt(2000), a bias of the order of the
    MSE at t = 200: a finite data set's, measured at z = -4.4 over 240 runs), gives the
    law's C-ColME and B-ColME curves within 4 standard errors of the difference of two
    independent means over the runs (the rules are told the file's pooled sigma)."""
    rng = np.random.default_rng(11)
    classes = np.repeat([0, 1], M // 2)[rng.permutation(M)].astype(np.int8)
    edges = random_regular_edges(4, M, rng)
    means = LAWS.agent_means(classes)
    lines = ["agent,t,value,class"]
    for a in range(M):
        values = LAWS.laws[classes[a]].sample(rng.random(2000))
        values += means[a] - values.mean()  # classmates share a mean exactly, as in the law's world
        lines += [f"{a},{t + 1},{float(v)!r},{classes[a]}" for t, v in enumerate(values)]
    path = tmp_path / "large.csv"
    path.write_text("\n".join(lines) + "\n")
    data = file_population(path, replay=replay)
    runs = 240
    curves = (ScalableCurve("c_colme"), ScalableCurve("b_colme", 2))
    found = []
    for world, seed in ((LAWS, 1), (data, 2)):
        spec = ScalableSpec(n_agents=M, curves=curves, t_record=np.array([20, 200]), population=world)
        generators = [np.random.default_rng([seed, run]) for run in range(runs)]
        found.append(simulate_scalable_runs(spec, np.repeat(classes[None], runs, axis=0),
                                            np.repeat(edges[None], runs, axis=0), generators))
    law, file = found
    gap = law.mean(axis=0) - file.mean(axis=0)
    se = np.sqrt(law.var(axis=0, ddof=1) / runs + file.var(axis=0, ddof=1) / runs)
    assert (np.abs(gap) < 4 * se).all(), (gap / se)


def test_each_agent_can_be_told_its_own_sigma(tmp_path):
    """``sigma: agent``: each agent's standard deviation about its mean over its file (its
    class's pooled one where its samples do not vary) reaches C-ColME's radii and
    Private-ColME's variances; Private-C-ColME refuses it, naming why."""
    from colme.private_colme.kernel import simulate_colme_runs
    from colme.private_colme.spec import ColmeCurve, ColmeSpec

    rows = [(a, t, (a % 2) + (0.1 + 0.2 * a) * (-1) ** t) for a in range(5) for t in range(4)]
    rows += [(5, t, 1.0) for t in range(4)]  # agent 5: constant
    text = "agent,t,value,class\n" + "".join(f"{a},{t + 1},{v!r},{a % 2}\n" for a, t, v in rows)
    path = tmp_path / "spread.csv"
    path.write_text(text)
    pooled, own = (file_population(path, sigma=sigma) for sigma in ("class", "agent"))
    classes = np.arange(6) % 2
    expected = np.array([0.1 + 0.2 * a for a in range(5)] + [pooled.class_sigmas()[1]])
    np.testing.assert_allclose(own.agent_sigmas(classes), expected, rtol=1e-12)
    np.testing.assert_array_equal(pooled.agent_sigmas(classes), pooled.class_sigmas()[classes])
    spreads = [ScalableSpec(n_agents=6, curves=(), t_record=np.array([5]), population=world).curve_arguments(
        ScalableCurve("c_colme", eps=math.inf), classes)["spread"] for world in (pooled, own)]
    np.testing.assert_allclose(spreads[1], expected, rtol=1e-12)
    assert not np.allclose(spreads[0], spreads[1])
    curves = (ColmeCurve(noise="laplace"),)
    found = [simulate_colme_runs(ColmeSpec(n_agents=6, curves=curves, t_record=np.array([2, 8]), eps=math.inf,
                                           population=world), classes[None], [np.random.default_rng(3)])
             for world in (pooled, own)]
    assert np.isfinite(found[1]).all() and not np.array_equal(found[0], found[1])
    with pytest.raises(ConfigError, match=r"population\.data\.sigma='agent': Private-C-ColME's rules get one "
                                          r"threshold per step and pair of profiles"):
        figures(tmp_path, {"sigma": "agent"})


def test_a_file_worlds_simulate_job_asks_for_its_samples_memory(tmp_path, monkeypatch):
    """A file world's simulate job asks for ``FILE_SAMPLE_BYTES`` per sample of its file
    over the law world's request, on every engine that reads files, and that covers what reading 1e6 samples
    (a long CSV file: named agents, classes and true means) grows a fresh process's max RSS
    by, without more than twice it to spare."""
    import subprocess
    import sys

    import pandas as pd

    from colme.engines import FILE_SAMPLE_BYTES

    resolved = figures(tmp_path)  # 72 samples
    population = {"data": {"kind": "file", "path": str(tmp_path / "world.csv")}}
    resolved.update(expand_config({"seed": 1, "figures": {"p": {
        "engine": "private_colme", "n_agents": 12, "population": population, "t_max": 20, "runs": 2}}}).figures)
    for name in ("c", "s", "p"):
        engine = ENGINES[resolved[name]["engine"]]
        params = stage_params(resolved[name], "simulate", 0, 2)
        request = engine.memory_mb(params, 2)
        monkeypatch.setattr("colme.engines.FILE_SAMPLE_BYTES", FILE_SAMPLE_BYTES + 2**20)
        assert engine.memory_mb(params, 2) - request == 72, name
        monkeypatch.undo()

    agents, steps = 1000, 1000
    rng = np.random.default_rng(0)
    path = tmp_path / "big.csv"
    pd.DataFrame({"agent": np.tile([f"agent{a}" for a in range(agents)], steps),
                  "t": np.repeat(np.arange(1, steps + 1), agents), "value": rng.random(agents * steps),
                  "class": np.tile(np.arange(agents) % 2, steps), "mean": 0.5}).to_csv(path, index=False)
    # VmHWM, the peak RSS of this process's memory: getrusage's max RSS would start at the
    # parent's (a fork keeps it across exec)
    script = f"""
import re
from pathlib import Path
from colme.datafiles import DataArrays
from colme.populations import Population
def peak():
    return int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024
before = peak()
population = Population.from_settings({{"data": {{"kind": "file", "path": {str(path)!r},
                                                 "range": {{"low": 0.0, "high": 1.0}}}}}})
arrays = DataArrays.of(population.streams, centred=True)
print(peak() - before)
"""
    grown = int(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                               text=True).stdout.split()[-1])
    assert grown <= FILE_SAMPLE_BYTES * agents * steps <= 2 * grown, grown
