"""Snakemake script: a figure's tidy table, supplementary table and provenance."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.integrity import MADE_BY, maker  # noqa: E402
from colme.provenance import atomic_write_text, read_params, write_json  # noqa: E402
from colme.registry import ENGINES  # noqa: E402

figure = snakemake.wildcards.figure  # noqa: F821
params = read_params(snakemake.params.spec)  # noqa: F821
engine = ENGINES[params["engine"]]
tables = engine.tables(figure, params, dict(snakemake.input.items()))  # noqa: F821
meta = engine.provenance(figure, params, tables.provenance)
print(f"{figure}: {len(tables.table)} rows, {meta['runs']} runs, {meta['compute_seconds']:.1f} core-s")
for name in ("table", "supplement", "covariance", "diagnostics"):
    atomic_write_text(snakemake.output[name], getattr(tables, name).to_csv(index=False))  # noqa: F821
write_json(snakemake.output.meta, {**meta, MADE_BY: maker(figure, "table", params)})  # noqa: F821
