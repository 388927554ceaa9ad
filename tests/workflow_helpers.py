"""Shared by the tests: a tiny two-figure config, a Snakemake runner, a file writer."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TINY = """
seed: 5
figures:
  tiny_a:
    title: tiny panel
    n_agents: 20
    degree: 4
    eps: [1, .inf]
    theta_k: [6, 5]
    t_max: 200
    runs: 6
    chunk_runs: 2
    grid: {linear: 20, log: 10}
  tiny_b:
    n_agents: 24
    degree: 3
    eps: [2]
    theta_k: [7]
    rules: [oracle, optimistic]
    alpha_schedule: theory
    weights: metropolis
    t_max: 150
    runs: 5
    chunk_runs: 5
    grid: {linear: 15, log: 5}
  tiny_c:
    engine: private_colme
    n_agents: 9
    schedules: [rr, rrr]
    mechanisms: [pm1, pm2]
    weights: [last, wmom]
    noises: [gaussian, laplace]
    t_max: 120
    runs: 4
    chunk_runs: 3
    grid: {linear: 12, log: 6}
  tiny_e:
    engine: private_colme
    n_agents: 10
    curves:
      - {variance: known}
      - {variance: schvar1}
      - {variance: schvar2}
      - {variance: schvar2_bayes, noise: laplace}
    t_max: 150
    runs: 3
    chunk_runs: 2
    grid: {linear: 10, log: 5}
  tiny_f:
    engine: zoom
    source: tiny_e
    t_max: 40
  tiny_d:
    engine: oracle
    n_agents: 9
    schedules: [rr, rrr]
    weights: [last, mom, wmom]
    t_max: 120
    grid: {linear: 12, log: 6}
"""


def snakemake_command(workdir: Path, *args: str, config: str = TINY) -> list[str]:
    """Snakemake on the repository's workflow, in ``workdir``, with the tiny config."""
    (workdir / "tiny.yaml").write_text(config)
    return [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
            "--configfile", str(workdir / "tiny.yaml"), *args]


def snakemake(workdir: Path, *args: str, timeout: int = 600, config: str = TINY) -> subprocess.CompletedProcess:
    """Run Snakemake to completion; SIGINT (which it honours, unlike SIGTERM) on timeout."""
    command = ["timeout", "-s", "INT", "-k", "30", str(timeout),
               *snakemake_command(workdir, *args, config=config)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 60)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result


def planned_jobs(workdir: Path, config: str = TINY, *args: str) -> dict[str, int]:
    """Jobs per rule that `snakemake -n` plans in ``workdir`` with ``config`` (empty: none)."""
    output = snakemake(workdir, "-n", "--cores", "1", *args, config=config).stdout
    if "Job stats:" not in output:
        assert "Nothing to be done" in output, output[-2000:]
        return {}
    lines = output.split("Job stats:", 1)[1].splitlines()[3:]
    jobs = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        jobs[parts[0]] = int(parts[1])
    return jobs


def write_file(folder: Path, text: str, name: str) -> Path:
    """``text`` written to ``folder/name`` (a data file, a class map, a graph)."""
    path = Path(folder) / name
    path.write_text(text)
    return path
