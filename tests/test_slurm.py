"""The workflow through a real SLURM (one node on localhost): same bytes as a local run.

Needs root and Debian's slurm-wlm + munge (installed by .ci/run).  Skipped when they are
missing, unless COLME_REQUIRE_SLURM=1 (as in CI), where a missing SLURM is a failure.
"""

import os
import shutil
import subprocess

import pytest
from workflow_helpers import ROOT, snakemake

CLUSTER = ROOT / "tests" / "slurm" / "cluster.sh"
AVAILABLE = all(shutil.which(tool) for tool in ("slurmctld", "slurmd", "munged", "sbatch")) and (
    os.geteuid() == 0
)
if not AVAILABLE and os.environ.get("COLME_REQUIRE_SLURM") == "1":
    raise RuntimeError("COLME_REQUIRE_SLURM=1 but slurm-wlm/munge are not installed or not root")
pytestmark = pytest.mark.skipif(not AVAILABLE, reason="needs root and slurm-wlm + munge")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    state = tmp_path_factory.mktemp("slurm")
    subprocess.run(["bash", str(CLUSTER), "start", str(state)], check=True, timeout=120)
    try:
        yield state
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(state)], timeout=60)


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
        timeout=900,
    )
    assert "submitted with SLURM jobid" in result.stdout + result.stderr
    for name in ("tiny_a.csv", "tiny_a_supplement.csv", "tiny_b.csv", "tiny_b_supplement.csv"):
        assert (tmp_path / "results/tables" / name).read_bytes() == (
            built / "results/tables" / name
        ).read_bytes()
    assert (tmp_path / "results/figures/tiny_a.pdf").exists()
