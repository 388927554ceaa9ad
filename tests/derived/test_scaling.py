"""The scaling engine (scale_m): its sources' tables side by side and their time per step."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from colme.config import ConfigError, resolve_figure
from colme.derived.scaling import TIMING_COLUMNS, timing_row
from colme.expansion import validate_config
from colme.registry import ENGINES

ROOT = Path(__file__).resolve().parents[2]


def source_files(tmp_path, name, n_agents, runs, t_max, seconds, curves=("oracle eps=1", "oracle eps=inf")):
    """A Private-C-ColME figure's table (two simulated curves, Local, Ideal) and metadata."""
    rows = [(c, "simulated", "oracle", float(c.split("=")[1]), se) for c, se in zip(curves, (0.1, 0.1), strict=True)]
    rows += [("Local", "analytic", "local", np.nan, 0.0), ("Ideal", "analytic", "ideal", np.nan, 0.0)]
    table = pd.DataFrame([{"curve": c, "kind": k, "rule": r, "eps": e, "t": t, "mse": 1.0 / t, "se": se,
                           "runs": runs if k == "simulated" else 0}
                          for c, k, r, e, se in rows for t in (1, t_max)])
    meta = {"settings": {"engine": "ccolme", "n_agents": n_agents, "degree": 10, "t_max": t_max},
            "runs": runs, "curves": list(curves), "compute_seconds": seconds}
    (tmp_path / f"{name}.csv").write_text(table.to_csv(index=False))
    (tmp_path / f"{name}.json").write_text(json.dumps(meta))
    return tmp_path / f"{name}.csv", tmp_path / f"{name}.json"


def test_timing_is_kernel_seconds_per_step_and_throughput_per_core(tmp_path):
    small = source_files(tmp_path, "small", 1000, runs=4, t_max=3000, seconds=6.0)
    large = source_files(tmp_path, "large", 100000, runs=2, t_max=300, seconds=60.0)
    tables = ENGINES["scaling"].tables(
        "scale", {"sources": ["small", "large"]},
        {"tables": [str(small[0]), str(large[0])], "metas": [str(small[1]), str(large[1])]},
    )
    timing = tables.supplement
    assert list(timing.columns) == TIMING_COLUMNS and list(timing["figure"]) == ["small", "large"]
    np.testing.assert_allclose(timing["seconds_per_step"], [6.0 / (4 * 3000), 60.0 / (2 * 300)])
    # M r curves config-edge-updates per step: 1000 x 10 x 2 x 12000 steps / 6 s; 1e5 x 10 x 2 x 600 / 60 s
    np.testing.assert_allclose(timing["config_edge_updates_per_second"], [4e7, 2e7])
    assert set(tables.table["figure"]) == {"small", "large"}
    assert set(tables.table.loc[tables.table["figure"] == "large", "n_agents"]) == {100000}
    assert tables.provenance["runs"] == 6 and tables.provenance["compute_seconds"] == 66.0


def test_a_source_without_a_degree_reports_no_edge_rate():
    row = timing_row("f", {"settings": {"n_agents": 10, "t_max": 5}, "runs": 2, "curves": ["a"],
                           "compute_seconds": 1.0})
    assert row["agent_curve_steps_per_second"] == 100.0 and np.isnan(row["config_edge_updates_per_second"])


def test_sources_must_be_simulated_figures():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["figures"]["scale_m"]["sources"] = ["scale_m1e3", "fig2_oracle_m200"]
    with pytest.raises(ConfigError, match=r"figures.scale_m.sources\[1\]='fig2_oracle_m200': must name a "
                                          r"simulated figure; configured: \[[^]]*'fig1_r20'"):
        validate_config(config)
    config["figures"]["scale_m"]["sources"] = ["nowhere"]
    with pytest.raises(ConfigError, match=r"sources\[0\]='nowhere'"):
        validate_config(config)


def test_the_shipped_scale_figure_spans_four_decades_of_m():
    config = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text()))
    sources = resolve_figure(config, "scale_m")["sources"]
    settings = [resolve_figure(config, source) for source in sources]
    assert [s["n_agents"] for s in settings] == [10**3, 10**4, 10**5, 10**6]
    assert {s["degree"] for s in settings} == {10} and all(len(s["eps"]) == 2 for s in settings)


def test_the_figure_draws_every_source_and_the_timing_panel(tmp_path):
    paths = [source_files(tmp_path, f"m{m}", m, runs=2, t_max=100, seconds=m / 1e4) for m in (10, 100, 1000)]
    tables = ENGINES["scaling"].tables("scale", {"sources": ["m10", "m100", "m1000"]},
                                       {"tables": [str(p[0]) for p in paths], "metas": [str(p[1]) for p in paths]})
    meta = {**tables.provenance, "settings": {"engine": "scaling"}}
    pdf, png = tmp_path / "scale.pdf", tmp_path / "scale.png"
    ENGINES["scaling"].draw(tables.table, meta, "scale", pdf, png)
    assert pdf.stat().st_size > 0 and png.stat().st_size > 0
