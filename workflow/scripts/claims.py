"""Snakemake script: check the papers' claims on the aggregated tables."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.claims import evaluate, load_claims, read_inputs, to_markdown  # noqa: E402
from colme.provenance import atomic_write_text  # noqa: E402

inputs = snakemake.input  # noqa: F821
results = evaluate(
    load_claims(inputs.claims),
    **read_inputs(inputs.tables, inputs.bounds, inputs.covariances, inputs.diagnostics),
)
print(results.to_string())
atomic_write_text(snakemake.output.csv, results.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.md, to_markdown(results))  # noqa: F821
