"""The overlay engine: curves of figures drawing the same streams, even of two engines, in
one panel; Local and Ideal once; sources that are not paired refused naming the key."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
from workflow_helpers import snakemake

from colme.config import ConfigError, load_config
from colme.docpages import build_page
from colme.expansion import expand_config, validate_config
from colme.publish import publish

ROOT = Path(__file__).resolve().parents[2]

PAIRED = """
seed: 5
targets: [tiny_overlay]
figures:
  tiny_rules:
    engine: ccolme
    n_agents: 40
    degree: 4
    eps: [.inf]
    theta_k: [5]
    t_max: 60
    runs: 4
    chunk_runs: 2
    grid: {linear: 10, log: 5}
  tiny_scalable:
    engine: scalable
    stream: tiny_rules
    n_agents: 40
    degree: 4
    eps: [.inf]
    depths: [2]
    rules: [oracle]
    t_max: 60
    runs: 4
    chunk_runs: 2
    grid: {linear: 10, log: 5}
  tiny_overlay:
    engine: overlay
    sources: [tiny_rules, tiny_scalable]
"""


def test_an_overlay_draws_both_engines_curves_on_the_same_instances(tmp_path):
    snakemake(tmp_path, "--cores", "2", config=PAIRED)
    table = pd.read_csv(tmp_path / "results/tables/tiny_overlay.csv")
    rules = pd.read_csv(tmp_path / "results/tables/tiny_rules.csv")
    scalable = pd.read_csv(tmp_path / "results/tables/tiny_scalable.csv")
    simulated = table[table["kind"] == "simulated"]
    assert set(simulated["curve"]) == set(rules.loc[rules["kind"] == "simulated", "curve"]) | set(
        scalable.loc[scalable["kind"] == "simulated", "curve"])
    assert (table["curve"] == "Local").sum() == len(rules[rules["curve"] == "Local"])
    # the same instances: both figures' Ideal (from the instances' class sizes) coincide
    ideal = [t.loc[t["curve"] == "Ideal", "mse"].to_numpy() for t in (rules, scalable)]
    assert (ideal[0] == ideal[1]).all()
    assert (tmp_path / "results/figures/tiny_overlay.png").stat().st_size > 1000
    instance_files = sorted((tmp_path / "results/instances").iterdir())
    assert [p.name for p in instance_files] == ["tiny_rules"]  # both draw tiny_rules's streams
    # published like any build (the overlay's supplement is an empty table)
    config = validate_config({**load_config(ROOT / "config.yaml", tmp_path / "tiny.yaml"), "preset": "default"})
    build = publish(tmp_path / "results", tmp_path / "published", config, 1.0, 2, ROOT)
    assert build["figures"] == ["tiny_overlay"]
    assert (tmp_path / "published/tables/tiny_overlay.csv").read_bytes() == (
        tmp_path / "results/tables/tiny_overlay.csv").read_bytes()
    assert not (tmp_path / "published/tables/tiny_overlay_supplement.csv").exists()
    page = (tmp_path / "published/index.md").read_text()  # its page comes with it
    assert page.startswith("# Experiment published") and "## tiny_overlay" in page
    assert page == build_page(tmp_path / "published", "Experiment published")
    # a build that lacks a file is refused and leaves the published folder as it was
    def files():
        return {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "published").rglob("*") if p.is_file()}

    before = files()
    (tmp_path / "results/tables/tiny_overlay.json").unlink()
    with pytest.raises(FileNotFoundError):
        publish(tmp_path / "results", tmp_path / "published", config, 1.0, 2, ROOT)
    assert files() == before
    assert sorted(p.name for p in tmp_path.iterdir() if "published" in p.name) == ["published"]
    shutil.rmtree(tmp_path / "results")


@pytest.mark.parametrize(("change", "message"), [
    ({"stream": None}, r"figures\.tiny_overlay\.sources: the figures draw different random streams"),
    ({"t_max": 50}, r"figures\.tiny_overlay\.sources: the figures record different times"),
])
def test_unpaired_sources_are_refused(change, message):
    import yaml

    config = yaml.safe_load(PAIRED)
    entry = config["figures"]["tiny_scalable"]
    for key, value in change.items():
        if value is None:
            entry.pop(key)
        else:
            entry[key] = value
    with pytest.raises(ConfigError, match=message):
        expand_config(config)
