"""Snakemake script: class assignments, graphs and n_a of one run range."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.stages import write_instances  # noqa: E402

write_instances(snakemake.params.made_by, snakemake.output[0])  # noqa: F821
