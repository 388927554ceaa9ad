"""Snakemake script: class assignments, graphs and n_a of one run range."""

from colme.progress import log_to
from colme.stages import write_instances

log_to(snakemake.log[0])
write_instances(snakemake.params.made_by, snakemake.output[0])
