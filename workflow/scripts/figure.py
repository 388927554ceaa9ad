"""Snakemake script: render a figure from its table, with provenance."""

import json
import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.provenance import figure_provenance, read_params, write_json  # noqa: E402
from colme.registry import ENGINES  # noqa: E402

params = read_params(snakemake.params.spec)  # noqa: F821
table = pd.read_csv(snakemake.input.table)  # noqa: F821
meta = json.loads(Path(snakemake.input.meta).read_text())  # noqa: F821
engine = ENGINES[params["engine"]]
title = f"{params['title'] or snakemake.wildcards.figure}\n{engine.subtitle(meta)}"  # noqa: F821
sidecar = figure_provenance(meta, params["title"])
engine.draw(table, sidecar, title, Path(snakemake.output.pdf), Path(snakemake.output.png))  # noqa: F821
write_json(snakemake.output.sidecar, sidecar)  # noqa: F821
