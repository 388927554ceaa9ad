"""The workflow through a real SLURM (one node on localhost): same bytes as a local run.

Needs root and Debian's slurm-wlm + munge (installed by .ci/run).  Skipped when they are
missing, unless COLME_REQUIRE_SLURM=1 (as in CI), where a missing SLURM is a failure.  Also
skipped (a failure under COLME_REQUIRE_SLURM=1) when a SLURM it did not start is running,
with cluster.sh's message naming it; a cluster left over by an earlier run of this test is
stopped (through cluster.sh's pidfiles) and started afresh.
"""

import os
import shutil
import subprocess

import pytest
from workflow_helpers import ROOT, snakemake

CLUSTER = ROOT / "tests" / "slurm" / "cluster.sh"
BUSY, LEFTOVER = 3, 4  # cluster.sh start: a SLURM it must not touch / its own earlier cluster
REQUIRED = os.environ.get("COLME_REQUIRE_SLURM") == "1"
AVAILABLE = all(shutil.which(tool) for tool in ("slurmctld", "slurmd", "munged", "sbatch")) and (
    os.geteuid() == 0
)
if not AVAILABLE and REQUIRED:
    raise RuntimeError("COLME_REQUIRE_SLURM=1 but slurm-wlm/munge are not installed or not root")
pytestmark = pytest.mark.skipif(not AVAILABLE, reason="needs root and slurm-wlm + munge")


def _cluster(*args: str, timeout: int) -> subprocess.CompletedProcess:
    """cluster.sh ARGS, on behalf of this pytest process (the cluster's recorded owner)."""
    env = {**os.environ, "COLME_SLURM_OWNER": str(os.getpid())}
    return subprocess.run(["bash", str(CLUSTER), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _stop() -> None:
    """Stop the cluster cluster.sh started (found by its pidfiles); bounded, never kills others."""
    stopped = _cluster("stop", timeout=120)
    assert stopped.returncode == 0, f"cluster.sh stop failed:\n{stopped.stdout}{stopped.stderr}"


def _start(state) -> subprocess.CompletedProcess:
    try:
        return _cluster("start", str(state), timeout=240)
    except subprocess.TimeoutExpired:
        _stop()  # the killed start left its daemons' pidfiles behind
        raise


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    state = tmp_path_factory.mktemp("slurm")
    started = _start(state)
    if started.returncode == LEFTOVER:
        # A cluster this helper started for an earlier run that has exited: stop it, retry.
        _stop()
        started = _start(state)
    if started.returncode == BUSY:
        # A SLURM the test did not start (or another live run's): not ours to stop.
        reason = "SLURM test not run: " + started.stderr.strip()
        if REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    if started.returncode != 0:
        _stop()  # a failed start stops what it started; this is only a safety net
        pytest.fail(f"cluster.sh start failed:\n{started.stdout}{started.stderr}")
    try:
        yield state
    finally:
        _stop()


def test_slurm_profile_run_is_bit_identical_to_local(cluster, built, tmp_path):
    # Without slurmdbd there is no sacct: poll with squeue (the cluster keeps finished
    # jobs visible for MinJobAge=600 s) and submit without an account.
    result = snakemake(
        tmp_path,
        "--profile", str(ROOT / "profiles" / "slurm"),
        "--slurm-status-command", "squeue",
        "--slurm-init-seconds-before-status-checks", "5",
        "--slurm-no-account",
        "--latency-wait", "5",
        # Bounded: on timeout SIGINT (snakemake cancels its jobs), SIGKILL 30 s later, and
        # the subprocess itself is abandoned 60 s after that.  The executor's squeue polls
        # time out after 60 s each.
        timeout=900,
    )
    assert "submitted with SLURM jobid" in result.stdout + result.stderr
    for name in ("tiny_a.csv", "tiny_a_supplement.csv", "tiny_b.csv", "tiny_b_supplement.csv"):
        assert (tmp_path / "results/tables" / name).read_bytes() == (
            built / "results/tables" / name
        ).read_bytes()
    assert (tmp_path / "results/figures/tiny_a.pdf").exists()
