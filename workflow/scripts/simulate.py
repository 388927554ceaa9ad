"""Snakemake script: all curves of a figure on one run range."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.aggregation import load_npz  # noqa: E402
from colme.provenance import atomic_savez, read_params  # noqa: E402
from colme.registry import ENGINES  # noqa: E402

params = read_params(snakemake.params.spec)  # noqa: F821
engine = ENGINES[params["engine"]]
result = engine.simulate(params, load_npz(snakemake.input[0]), snakemake.wildcards.figure)  # noqa: F821
print(f"{len(result['runs'])} runs in {float(result['seconds']):.1f} s")
atomic_savez(snakemake.output[0], **result)  # noqa: F821
