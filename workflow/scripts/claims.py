"""Snakemake script: check the papers' claims on the aggregated tables."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.claims import (  # noqa: E402
    diagnostics_as_curves,
    evaluate,
    load_claims,
    tables_by_figure,
    to_markdown,
)
from colme.provenance import atomic_write_text  # noqa: E402

tables = tables_by_figure(snakemake.input.tables)  # noqa: F821
for path in snakemake.input.diagnostics:  # noqa: F821
    tables[Path(path).stem] = diagnostics_as_curves(pd.read_csv(path))
results = evaluate(
    load_claims(snakemake.input.claims),  # noqa: F821
    tables,
    tables_by_figure(snakemake.input.bounds, "_supplement"),  # noqa: F821
    tables_by_figure(snakemake.input.covariances, "_covariance"),  # noqa: F821
)
print(results.to_string())
atomic_write_text(snakemake.output.csv, results.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.md, to_markdown(results))  # noqa: F821
