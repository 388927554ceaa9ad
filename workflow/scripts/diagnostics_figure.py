"""Snakemake script: a figure's diagnostics table drawn against t."""

import json
from pathlib import Path

import pandas as pd

from colme.progress import log_to
from colme.provenance import figure_provenance, read_params
from colme.registry import ENGINES

log_to(snakemake.log[0])
params = read_params(snakemake.params.spec)
meta = json.loads(Path(snakemake.input.meta).read_text())
title = f"Diagnostics: {params['title'] or snakemake.wildcards.figure}\n{meta['runs']} runs"
ENGINES[params["engine"]].draw_diagnostics(
    pd.read_csv(snakemake.input.diagnostics),
    figure_provenance(meta, params["title"]),
    title,
    Path(snakemake.output.pdf),
    Path(snakemake.output.png),
)
