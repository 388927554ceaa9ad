"""Snakemake script: render a figure from its table, with provenance."""

import json
import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.plotting import figure_title, plot_mse_panel  # noqa: E402
from colme.results import atomic_write_text  # noqa: E402

table = pd.read_csv(snakemake.input.table)  # noqa: F821
meta = json.loads(Path(snakemake.input.meta).read_text())  # noqa: F821
title = figure_title(snakemake.wildcards.figure, meta)  # noqa: F821
plot_mse_panel(table, title, meta, Path(snakemake.output.pdf), Path(snakemake.output.png))  # noqa: F821
atomic_write_text(snakemake.output.sidecar, json.dumps(meta, indent=2))  # noqa: F821
