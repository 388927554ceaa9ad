"""Snakemake script: render a PriCER figure (seed 003) with provenance in the PDF and a sidecar."""

import json
import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.pricer import plot_pricer  # noqa: E402
from colme.results import atomic_write_text  # noqa: E402

table = pd.read_csv(snakemake.input.table)  # noqa: F821
meta = json.loads(Path(snakemake.input.meta).read_text())  # noqa: F821
settings = meta["settings"]
title = f"{settings.get('title') or meta['figure']}\nseed {meta['seed']}"
if settings["kind"] == "connectivity":
    title += f", d={settings['d']}, {settings['realisations']} realisations x {settings['draws']} draws"
elif settings["kind"] == "trust":
    title += f", d={settings['d']}, R={settings['R']:g}, eps {settings['eps_high']:g}/{settings['eps_low']:g}"
plot_pricer(table, settings["kind"], title, meta, Path(snakemake.output.pdf), Path(snakemake.output.png))  # noqa: F821
atomic_write_text(snakemake.output.sidecar, json.dumps(meta, indent=2))  # noqa: F821
