"""Snakemake script: all curves of a figure on one run range."""

from colme.progress import log_to
from colme.stages import write_chunk

log_to(snakemake.log[0])
result = write_chunk(snakemake.params.made_by, snakemake.input[0], snakemake.output[0])
print(f"{len(result['runs'])} runs in {float(result['seconds']):.1f} s")
