"""End to end: the Snakemake workflow on a tiny config, determinism, killed jobs."""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from workflow_helpers import TINY, planned_jobs, snakemake, snakemake_command


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
        bound = pd.read_csv(built / f"results/tables/{figure}_supplement.csv")
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
    privacy = pd.read_csv(built / "results/tables/tiny_c_supplement.csv")
    assert np.allclose(privacy["sample_eps"], 1.0)
    analytic = pd.read_csv(built / "results/tables/tiny_d.csv")
    assert set(analytic["kind"]) == {"analytic"} and analytic["curve"].nunique() == 2 * 2 * 3 + 2
    for figure in ("tiny_c", "tiny_d", "tiny_e", "tiny_f"):
        assert (built / f"results/figures/{figure}.pdf").stat().st_size > 1000
    unknown = pd.read_csv(built / "results/tables/tiny_e.csv")
    assert unknown["curve"].str.contains("Sch-Var-2 Bayes").any()
    zoomed = pd.read_csv(built / "results/tables/tiny_f.csv")
    assert zoomed["t"].max() <= 40 and set(zoomed["curve"]) == set(unknown["curve"])
    privacy = pd.read_csv(built / "results/tables/tiny_e_supplement.csv")
    assert np.allclose(privacy["sample_eps"], 1.0)
    diagnostics = pd.read_csv(built / "results/tables/tiny_c_diagnostics.csv")
    assert set(diagnostics["quantity"]) == {"classmates in C_a", "non-classmates in C_a",
                                            "releases per accepted pair"}
    assert diagnostics["curve"].nunique() == 16 and (diagnostics["runs"] == 4).all()
    rates = pd.read_csv(built / "results/tables/tiny_a_diagnostics.csv")
    assert rates["value"].between(0, 1).all() and rates["curve"].nunique() == 6
    shares = diagnostics[diagnostics["quantity"] != "releases per accepted pair"]["value"]
    assert shares.between(0, 1).all()
    assert (built / "results/figures/tiny_c_diagnostics.pdf").stat().st_size > 1000
    pairs = pd.read_csv(built / "results/tables/tiny_c_covariance.csv")
    assert len(pairs) == 16 * 15 // 2 * simulated["t"].nunique()


def test_results_identical_whatever_cores_and_chunking(built, tmp_path):
    snakemake(tmp_path, "--cores", "1", "--config", "chunk_runs=3")
    for name in ("tiny_a.csv", "tiny_a_supplement.csv", "tiny_b.csv", "tiny_c.csv", "tiny_d.csv", "tiny_e.csv"):
        assert (tmp_path / "results/tables" / name).read_bytes() == (built / "results/tables" / name).read_bytes()


def test_single_figure_target_builds_alone(built, tmp_path):
    snakemake(tmp_path, "--cores", "1", "results/figures/tiny_b.pdf")
    assert (tmp_path / "results/figures/tiny_b.pdf").exists()
    assert not (tmp_path / "results/figures/tiny_a.pdf").exists()
    assert (tmp_path / "results/tables/tiny_b.csv").read_bytes() == (built / "results/tables/tiny_b.csv").read_bytes()
    # the report of a partial build, as `make report` asks for it: what exists
    snakemake(tmp_path, "--report", str(tmp_path / "report.html"))
    html = (tmp_path / "report.html").read_text()
    assert "tiny_b" in html and "tiny_a.pdf" not in html


def test_a_report_moves_nothing_and_reports_a_figure_made_under_overrides(tmp_path):
    """`snakemake --report` after a build with `--config runs=...`: the figure (its
    provenance names its runs) is reported as it is, nothing is moved to quarantine."""
    snakemake(tmp_path, "--cores", "1", "results/figures/tiny_b.pdf", "--config", "runs=3")
    reported = snakemake(tmp_path, "--report", str(tmp_path / "report.html"))
    assert "Missing metadata" not in reported.stdout + reported.stderr  # no chunk of the default runs is asked for
    assert (tmp_path / "results/figures/tiny_b.pdf").exists() and not (tmp_path / "results/quarantine").exists()
    assert "tiny_b" in (tmp_path / "report.html").read_text()


def test_a_results_folder_of_its_own(built, tmp_path):
    """``results: <folder>`` puts every output there (an experiment's own folder): the same
    bytes as in results/, nothing written to results/, and its report needs no other build."""
    snakemake(tmp_path, "--cores", "1", "out/b/figures/tiny_b.pdf", "--config", "results=out/b")
    assert (tmp_path / "out/b/figures/tiny_b.pdf").exists() and not (tmp_path / "results").exists()
    for name in ("tiny_b.csv", "tiny_b_supplement.csv", "tiny_b_covariance.csv"):
        assert (tmp_path / "out/b/tables" / name).read_bytes() == (built / "results/tables" / name).read_bytes()
    assert list((tmp_path / "out/b/chunks/tiny_b").glob("runs*.npz"))
    assert list((tmp_path / "out/b/logs/simulate/tiny_b").glob("*.log"))
    snakemake(tmp_path, "--report", str(tmp_path / "report.html"), "--config", "results=out/b")
    assert "tiny_b" in (tmp_path / "report.html").read_text()
    refused = subprocess.run(snakemake_command(tmp_path, "-n", "--config", "results=../b"),
                             capture_output=True, text=True)
    assert refused.returncode != 0
    assert "config key results: '../b' is not allowed" in refused.stdout + refused.stderr


def test_killed_runs_leave_no_trusted_partial_output(built, tmp_path):
    """SIGKILL the whole build (Snakemake and its jobs) at random points, three times, resuming
    each time: every file left is complete, and the final tables equal an uninterrupted build's."""
    extra_delays = np.random.default_rng(2024).uniform(0.0, 1.5, size=3)
    chunks_dir = tmp_path / "results/chunks"
    for chunks_before_kill, extra_delay in zip((1, 3, 6), extra_delays, strict=True):
        process = subprocess.Popen(snakemake_command(tmp_path, "--cores", "2", "--rerun-incomplete"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 120
        while (process.poll() is None and time.monotonic() < deadline
               and len(list(chunks_dir.glob("*/runs*.npz"))) < chunks_before_kill):
            time.sleep(0.05)
        time.sleep(extra_delay)  # a random point after that many chunks: mid-job, mid-write or between
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        for path in (tmp_path / "results").rglob("*.npz"):
            with np.load(path) as data:  # complete, readable archives only
                assert data.files
        assert not list((tmp_path / "results").rglob("*.tmp"))
        snakemake(tmp_path, "--unlock")  # a SIGKILLed Snakemake leaves its lock behind
    snakemake(tmp_path, "--cores", "2", "--rerun-incomplete")
    for name in TABLES:
        assert (tmp_path / "results/tables" / name).read_bytes() == (built / "results/tables" / name).read_bytes()


#: Every table of the tiny build that comes from chunks.
TABLES = [f"tiny_{f}{suffix}.csv" for f in "abce" for suffix in ("", "_supplement", "_covariance", "_diagnostics")]


def test_stale_chunks_are_never_aggregated_without_snakemakes_metadata(built, tmp_path):
    """The results/ of a build, without .snakemake/ (copied to another machine or restored from
    an archive), then population.sigma changes: every chunk is simulated again, no instance."""
    workdir = copy_of(built, tmp_path)
    shutil.rmtree(workdir / ".snakemake")
    chunks = len(list((built / "results/chunks").rglob("runs*.npz")))
    sigma = tiny_with(lambda c: c.update(population={"sigma": 0.3}))
    dry = snakemake(workdir, "-n", config=sigma)
    assert "results/tables/tiny_a.json: made under other params (differing keys: params.population.sigma)" in (
        dry.stdout + dry.stderr)
    assert list((workdir / "results/tables").glob("tiny_a*")), "a dry run moved files"
    result = snakemake(workdir, "--cores", "2", config=sigma)
    log = result.stdout + result.stderr
    assert log.count("rule simulate:") == chunks and "rule instances:" not in log
    table = pd.read_csv(workdir / "results/tables/tiny_a.csv")
    assert not table.equals(pd.read_csv(built / "results/tables/tiny_a.csv"))
    assert '"sigma":0.3' in json.loads((workdir / "results/tables/tiny_a.json").read_text())["made_by"]


def test_damaged_or_foreign_files_are_made_again_never_aggregated(built, tmp_path):
    """A chunk cut short, an instance file with a flipped byte and another figure's chunk
    copied over one of tiny_a's: Snakemake's first step moves each to results/quarantine/, and
    the tables made again (forced here; after a config change they would be) simulate them
    again and equal the reference build's."""
    workdir = copy_of(built, tmp_path)
    chunk_a, chunk_b = sorted((workdir / "results/chunks/tiny_a").glob("runs*.npz"))[:2]
    chunk_a.write_bytes(chunk_a.read_bytes()[:-200])
    instance = sorted((workdir / "results/instances/tiny_c").glob("runs*.npz"))[0]
    with zipfile.ZipFile(instance) as archive:  # a byte in the middle of the largest member's data
        member = max(archive.infolist(), key=lambda info: info.file_size)
    data = bytearray(instance.read_bytes())
    data[member.header_offset + 30 + len(member.filename) + len(member.extra) + member.file_size // 2] ^= 0xFF
    instance.write_bytes(bytes(data))
    shutil.copy(sorted((workdir / "results/chunks/tiny_b").glob("runs*.npz"))[0], chunk_b)
    dry = snakemake(workdir, "-n", "--forcerun", "table")
    assert (dry.stdout + dry.stderr).count("a real run moves") == 3
    result = snakemake(workdir, "--cores", "2", "--forcerun", "table")
    log = result.stdout + result.stderr
    assert log.count("rule simulate:") == 3 and log.count("rule instances:") == 1  # tiny_c's chunk too
    quarantined = {path.name for path in (workdir / "results/quarantine").rglob("*.npz")}
    assert quarantined == {chunk_a.name, chunk_b.name, instance.name}
    for name in TABLES:
        assert (workdir / "results/tables" / name).read_bytes() == (built / "results/tables" / name).read_bytes()


def test_html_report_has_every_figure_with_its_caption(built):
    snakemake(built, "--report", str(built / "report.html"))
    html = (built / "report.html").read_text()
    for figure in ("tiny_a", "tiny_b", "tiny_c", "tiny_d"):
        assert figure in html
    assert "Choices where the paper is silent" in html and "Package versions" in html
    assert "wall time (core-s)" in html
    assert "Claims checked" in html
    # docutils renders every caption clean: no error or warning box (the choices' |C_b^(t)|
    # once read as an undefined substitution), and the escaped text printed as written.
    assert "System Message" not in html and "Docutils System Messages" not in html
    assert "|C_b^(t)|" in html


def copy_of(built, tmp_path):
    """A copy of the built workflow directory, mtimes and Snakemake's metadata included."""
    target = tmp_path / "copy"
    shutil.copytree(built, target, copy_function=shutil.copy2, symlinks=True)
    return target


def tiny_with(edit) -> str:
    config = yaml.safe_load(TINY)
    edit(config)
    return yaml.safe_dump(config, sort_keys=False)


def test_edits_plan_exactly_what_they_change(built, tmp_path):
    """The issue's table, on a completed build: numbers rerun, cosmetics redraw, order is nothing."""
    workdir = copy_of(built, tmp_path)
    assert planned_jobs(workdir) == {}
    # population.sigma changes every number: every chunk and everything downstream, no instance
    sigma = tiny_with(lambda c: c.update(population={"sigma": 0.3}))
    chunks = len(list((built / "results/chunks").rglob("runs*.npz")))
    assert planned_jobs(workdir, sigma) == {
        "simulate": chunks, "table": 6, "figure": 2, "figure_with_diagnostics": 4, "all": 1
    }
    # a title: that figure and its diagnostics figure (titled after it, drawn by the same job) only
    title = tiny_with(lambda c: c["figures"]["tiny_a"].update(title="another title"))
    assert planned_jobs(workdir, title) == {"figure_with_diagnostics": 1, "all": 1}
    # the same config with its keys sorted (as a YAML tool may write it): nothing
    assert planned_jobs(workdir, yaml.safe_dump(yaml.safe_load(TINY), sort_keys=True)) == {}
    # runs 6 -> 8 with chunk_runs 2: the one new chunk, its instances, and what reads them
    more = tiny_with(lambda c: c["figures"]["tiny_a"].update(runs=8))
    assert planned_jobs(workdir, more) == {
        "instances": 1, "simulate": 1, "table": 1, "figure_with_diagnostics": 1, "all": 1
    }


def test_more_runs_compute_only_the_new_chunks_with_identical_tables(built, tmp_path):
    """Progressive fidelity: runs=4 first, then the config's runs; same bytes as from scratch."""
    snakemake(tmp_path, "--cores", "2", "--config", "runs=4")
    # tiny_a adds [4, 6); tiny_b's [0, 4) becomes [0, 5) and tiny_e's [2, 4) becomes [2, 3);
    # tiny_c (4 runs) is complete
    assert planned_jobs(tmp_path, TINY)["simulate"] == 3
    result = snakemake(tmp_path, "--cores", "2")
    assert (result.stdout + result.stderr).count("rule simulate:") == 3
    for path in sorted((built / "results/tables").glob("*.csv")):
        assert (tmp_path / "results/tables" / path.name).read_bytes() == path.read_bytes(), path.name


OWN_RULE = """
seed: 5
figures:
  with_rule:
    engine: ccolme
    n_agents: 24
    degree: 4
    eps: [2]
    theta_k: [7]
    rules: [bernstein, mine]
    decision_rules:
      mine: {file: rules/bernstein.py, function: bernstein_copy}
    t_max: 60
    runs: 4
    chunk_runs: 2
    grid: {linear: 10, log: 5}
  without_rule:
    engine: ccolme
    n_agents: 24
    degree: 4
    eps: [2]
    theta_k: [7]
    rules: [bernstein]
    t_max: 60
    runs: 4
    chunk_runs: 2
    grid: {linear: 10, log: 5}
"""


def test_a_researchers_rule_runs_end_to_end_and_an_edit_reruns_exactly_its_figure(tmp_path):
    """A figure naming a rule file: its table (the copy's curve equals the built-in's),
    figure and diagnostics figure; editing the file plans that figure's chunks, table and
    drawings again, and nothing of the figure that does not use it."""
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "experiments" / "rules", tmp_path / "rules")
    snakemake(tmp_path, "--cores", "2", config=OWN_RULE)
    table = pd.read_csv(tmp_path / "results/tables/with_rule.csv")
    curves = {name: rows["mse"].to_numpy() for name, rows in table[table["kind"] == "simulated"].groupby("curve")}
    assert np.array_equal(curves["bernstein eps=2"], curves["mine eps=2"])
    for name in ("with_rule", "with_rule_diagnostics"):
        assert (tmp_path / f"results/figures/{name}.png").stat().st_size > 1000
    assert planned_jobs(tmp_path, OWN_RULE) == {}
    rule = tmp_path / "rules" / "bernstein.py"
    rule.write_text(rule.read_text() + "\n# edited\n")
    planned = planned_jobs(tmp_path, OWN_RULE)
    assert planned.get("simulate") == 2 and planned.get("table") == 1 and "instances" not in planned
    output = snakemake(tmp_path, "-n", "--cores", "1", config=OWN_RULE).stdout
    assert "figure=with_rule" in output and "figure=without_rule" not in output


def test_simulate_jobs_ask_for_their_engines_memory_estimate(tmp_path):
    """A simulate job's mem_mb is its engine's estimate for its chunk (``memory_mb``): a
    million-agent panel asks for 1000 MB plus the arrays a run holds
    (``ccolme.engine.run_state_bytes``), a tiny one for about 1000 MB."""
    from colme.ccolme.engine import run_state_bytes

    config = TINY.split("  tiny_b:")[0] + "  big:\n    n_agents: 1000000\n    degree: 10\n    t_max: 3\n    runs: 1\n"
    output = snakemake(tmp_path, "-n", "--cores", "1", config=config).stdout
    asked = {figure: int(mem) for figure, mem in re.findall(
        r"output: \S*/chunks/(\w+)/runs\S+\n(?:.*\n)*?\s+resources: .*?\bmem_mb=(\d+)", output)}
    assert asked["big"] == 1000 + math.ceil(run_state_bytes(10**6, 5 * 10**6, 12, 4, 1) / 2**20) > 1900
    assert 1000 < asked["tiny_a"] < 1010
