"""Snakemake script: a figure's tidy table, supplementary table and provenance."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.engines import ENGINES, figure_interpretations  # noqa: E402
from colme.provenance import atomic_write_text, read_params, table_provenance, write_json  # noqa: E402

figure = snakemake.wildcards.figure  # noqa: F821
params = read_params(snakemake.params.spec)  # noqa: F821
tables = ENGINES[params["engine"]].tables(figure, params, dict(snakemake.input.items()))  # noqa: F821
if params["engine"] == "zoom":  # the source's provenance, with the zoom recorded
    meta = {**tables.provenance, "figure": figure}
else:
    meta = table_provenance(figure, params, figure_interpretations(params), **tables.provenance)
print(f"{figure}: {len(tables.table)} rows, {meta['runs']} runs, {meta['compute_seconds']:.1f} core-s")
atomic_write_text(snakemake.output.table, tables.table.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.supplement, tables.supplement.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.covariance, tables.covariance.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.diagnostics, tables.diagnostics.to_csv(index=False))  # noqa: F821
write_json(snakemake.output.meta, meta)  # noqa: F821
