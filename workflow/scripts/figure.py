"""Snakemake script: render a figure from its table, with provenance."""

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
title = f"{params['title'] or snakemake.wildcards.figure}\n{engine.subtitle(meta)}"
sidecar = figure_provenance(meta, params["title"], engine.drawing_options(params))
engine.draw(table, sidecar, title, Path(snakemake.output.pdf), Path(snakemake.output.png))
write_json(snakemake.output.sidecar, sidecar)
