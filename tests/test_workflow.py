"""End to end: the Snakemake workflow on a tiny config, determinism, killed jobs."""

import json
import os
import signal
import subprocess
import time

import numpy as np
import pandas as pd
from workflow_helpers import snakemake, snakemake_command


def test_tables_and_figures_exist_with_required_columns(built):
    assert (built / "results/claims.md").exists()  # empty report: no paper figure here
    for figure in ("tiny_a", "tiny_b"):
        table = pd.read_csv(built / f"results/tables/{figure}.csv")
        assert {"curve", "rule", "eps", "t", "mse", "se", "runs"} <= set(table.columns)
        simulated = table[table["kind"] == "simulated"]
        assert not simulated.duplicated(["curve", "t"]).any()
        assert (simulated["se"] > 0).all() and (simulated["mse"] > 0).all()
        assert {"Local", "Ideal"} <= set(table["curve"])
        assert table["curve"].str.startswith("theorem1").any()
        bound = pd.read_csv(built / f"results/tables/{figure}_bound.csv")
        assert {"corollary1_mean_of_ratios", "corollary1_ratio_of_means"} <= set(bound["quantity"])
        for ext in ("pdf", "png"):
            assert (built / f"results/figures/{figure}.{ext}").stat().st_size > 1000
        meta = json.loads((built / f"results/figures/{figure}.json").read_text())
        assert meta["settings"]["seed"] == 5 and meta["runs"] == table["runs"].max()
        assert meta["versions"]["numpy"] == np.__version__ and meta["interpretations"]
    assert set(pd.read_csv(built / "results/tables/tiny_a.csv")["runs"].unique()) >= {6}
    pdf = (built / "results/figures/tiny_a.pdf").read_bytes()
    assert b"seed" in pdf and b"interpretations" in pdf  # provenance in the PDF metadata


def test_private_colme_and_analytic_figures(built):
    simulated = pd.read_csv(built / "results/tables/tiny_c.csv")
    assert simulated.loc[simulated["kind"] == "simulated", "curve"].nunique() == 16
    assert {"schedule", "mechanism", "weights", "noise"} <= set(simulated.columns)
    privacy = pd.read_csv(built / "results/tables/tiny_c_privacy.csv")
    assert np.allclose(privacy["sample_eps"], 1.0)
    analytic = pd.read_csv(built / "results/tables/tiny_d.csv")
    assert set(analytic["kind"]) == {"analytic"} and analytic["curve"].nunique() == 2 * 2 * 3 + 2
    for figure in ("tiny_c", "tiny_d", "tiny_e", "tiny_f"):
        assert (built / f"results/figures/{figure}.pdf").stat().st_size > 1000
    unknown = pd.read_csv(built / "results/tables/tiny_e.csv")
    assert unknown["curve"].str.contains("Sch-Var-2 Bayes").any()
    zoomed = pd.read_csv(built / "results/tables/tiny_f.csv")
    assert zoomed["t"].max() <= 40 and set(zoomed["curve"]) == set(unknown["curve"])
    privacy = pd.read_csv(built / "results/tables/tiny_e_privacy.csv")
    assert np.allclose(privacy["sample_eps"], 1.0)


def test_results_identical_whatever_cores_and_chunking(built, tmp_path):
    snakemake(tmp_path, "--cores", "1", "--config", "chunk_runs=3")
    for name in ("tiny_a.csv", "tiny_a_bound.csv", "tiny_b.csv", "tiny_c.csv", "tiny_d.csv", "tiny_e.csv"):
        assert (tmp_path / "results/tables" / name).read_bytes() == (built / "results/tables" / name).read_bytes()


def test_single_figure_target_builds_alone(built, tmp_path):
    snakemake(tmp_path, "--cores", "1", "results/figures/tiny_b.pdf")
    assert (tmp_path / "results/figures/tiny_b.pdf").exists()
    assert not (tmp_path / "results/figures/tiny_a.pdf").exists()
    assert (tmp_path / "results/tables/tiny_b.csv").read_bytes() == (built / "results/tables/tiny_b.csv").read_bytes()


def test_killed_run_leaves_no_trusted_partial_output(built, tmp_path):
    """SIGKILL the workflow mid-run: every file left is complete, and a rerun finishes identically."""
    command = snakemake_command(tmp_path, "--cores", "1")
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    chunks_dir = tmp_path / "results/chunks"
    while time.monotonic() < deadline and not list(chunks_dir.glob("*/chunk*.npz")):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    for path in (tmp_path / "results").rglob("*.npz"):
        with np.load(path) as data:  # complete, readable archives only
            assert data.files
    assert not list((tmp_path / "results").rglob("*.tmp"))
    snakemake(tmp_path, "--unlock")  # a SIGKILLed Snakemake leaves its lock behind
    snakemake(tmp_path, "--cores", "2", "--rerun-incomplete")
    for name in ("tiny_a.csv", "tiny_b.csv"):
        assert (tmp_path / "results/tables" / name).read_bytes() == (built / "results/tables" / name).read_bytes()


def test_html_report_has_every_figure_with_its_caption(built):
    snakemake(built, "--report", str(built / "report.html"))
    html = (built / "report.html").read_text()
    for figure in ("tiny_a", "tiny_b", "tiny_c", "tiny_d"):
        assert figure in html
    assert "Choices where the paper is silent" in html and "Package versions" in html
    assert "wall time (core-s)" in html
    assert "Claims checked" in html
