"""Snakemake script: a zoom figure's table and provenance from its source figure."""

import json
import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.experiments import zoom_table  # noqa: E402
from colme.results import atomic_write_text  # noqa: E402

table, meta = zoom_table(
    pd.read_csv(snakemake.input.table),  # noqa: F821
    json.loads(Path(snakemake.input.meta).read_text()),  # noqa: F821
    snakemake.params.settings,  # noqa: F821
)
atomic_write_text(snakemake.output.table, table.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.meta, json.dumps(meta, indent=2))  # noqa: F821
