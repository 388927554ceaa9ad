"""Snakemake script: all curves of a figure on one run range."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.stages import write_chunk  # noqa: E402

result = write_chunk(snakemake.params.made_by, snakemake.input[0], snakemake.output[0])  # noqa: F821
print(f"{len(result['runs'])} runs in {float(result['seconds']):.1f} s")
