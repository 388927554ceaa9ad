"""Snakemake script: render a figure from its table, with provenance, and for a diagnosed
figure its diagnostics table drawn against t."""

import json
from pathlib import Path

import pandas as pd

from colme.progress import log_to
from colme.provenance import figure_provenance, read_params, write_json
from colme.registry import ENGINES

log_to(snakemake.log[0])
params = read_params(snakemake.params.spec)
table = pd.read_csv(snakemake.input.table)
meta = json.loads(Path(snakemake.input.meta).read_text())
engine = ENGINES[params["engine"]]
name = params["title"] or snakemake.wildcards.figure
sidecar = figure_provenance(meta, params["title"], engine.drawing_options(params))
engine.draw(table, sidecar, f"{name}\n{engine.subtitle(meta)}", Path(snakemake.output.pdf), Path(snakemake.output.png))
write_json(snakemake.output.sidecar, sidecar)
if hasattr(snakemake.input, "diagnostics"):  # rule figure_with_diagnostics
    engine.draw_diagnostics(
        pd.read_csv(snakemake.input.diagnostics),
        figure_provenance(meta, params["title"]),
        f"Diagnostics: {name}\n{meta['runs']} runs",
        Path(snakemake.output.diagnostics_pdf),
        Path(snakemake.output.diagnostics_png),
    )
