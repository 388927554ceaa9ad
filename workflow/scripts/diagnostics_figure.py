"""Snakemake script: a figure's diagnostics table drawn against t."""

import json
import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.provenance import figure_provenance, read_params  # noqa: E402
from colme.registry import ENGINES  # noqa: E402

params = read_params(snakemake.params.spec)  # noqa: F821
meta = json.loads(Path(snakemake.input.meta).read_text())  # noqa: F821
title = f"Diagnostics: {params['title'] or snakemake.wildcards.figure}\n{meta['runs']} runs"  # noqa: F821
ENGINES[params["engine"]].draw_diagnostics(
    pd.read_csv(snakemake.input.diagnostics),  # noqa: F821
    figure_provenance(meta, params["title"]),
    title,
    Path(snakemake.output.pdf),  # noqa: F821
    Path(snakemake.output.png),  # noqa: F821
)
