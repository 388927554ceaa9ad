"""Snakemake script: a figure's tidy table, supplementary table and provenance."""

from colme.integrity import MADE_BY, maker
from colme.progress import log_to
from colme.provenance import atomic_write_text, read_params, write_json
from colme.registry import ENGINES

log_to(snakemake.log[0])
figure = snakemake.wildcards.figure
params = read_params(snakemake.params.spec)
engine = ENGINES[params["engine"]]
tables = engine.tables(figure, params, dict(snakemake.input.items()))
meta = engine.provenance(figure, params, tables.provenance)
print(f"{figure}: {len(tables.table)} rows, {meta['runs']} runs, {meta['compute_seconds']:.1f} core-s")
for name in ("table", "supplement", "covariance", "diagnostics"):
    atomic_write_text(snakemake.output[name], getattr(tables, name).to_csv(index=False))
write_json(snakemake.output.meta, {**meta, MADE_BY: maker(figure, "table", params)})
