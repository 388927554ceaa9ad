"""Snakemake script: check the papers' claims on the aggregated tables."""

from colme.claims import evaluate, load_claims, read_inputs, to_markdown
from colme.progress import log_to
from colme.provenance import atomic_write_text

log_to(snakemake.log[0])
inputs = snakemake.input
results = evaluate(
    load_claims(inputs.claims),
    **read_inputs(inputs.tables, inputs.bounds, inputs.covariances, inputs.diagnostics),
)
print(results.to_string())
atomic_write_text(snakemake.output.csv, results.to_csv(index=False))
atomic_write_text(snakemake.output.md, to_markdown(results))
