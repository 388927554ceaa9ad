"""Reproducibility workflow: DP collaborative online personalized mean estimation.

config.yaml -> instances -> chunked Monte Carlo -> tables -> figures -> claims.
`snakemake --cores all` builds every figure; `snakemake results/figures/<name>.pdf` one.
"""

from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/instances.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/sensitivity.smk"


rule all:
    default_target: True
    input:
        figure_targets(),
        claim_targets(),
