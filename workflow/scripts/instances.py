"""Snakemake script: class assignments, graphs and n_a of one run range."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.provenance import atomic_savez, read_params  # noqa: E402
from colme.registry import ENGINES  # noqa: E402

params = read_params(snakemake.params.spec)  # noqa: F821
start, stop = params["run_range"]
instances = ENGINES[params["engine"]].instances(params, snakemake.wildcards.figure, start, stop)  # noqa: F821
atomic_savez(snakemake.output[0], **instances)  # noqa: F821
