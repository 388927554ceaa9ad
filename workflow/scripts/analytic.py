"""Snakemake script: an analytic figure's table, privacy accounting and provenance."""

import json
import sys
import time
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.experiments import interpretations, panel_spec  # noqa: E402
from colme.plotting import package_versions  # noqa: E402
from colme.results import atomic_write_text, oracle_table, privacy_table  # noqa: E402

settings = snakemake.params.settings  # noqa: F821
spec = panel_spec(snakemake.config, snakemake.wildcards.figure)  # noqa: F821
start = time.perf_counter()
table = oracle_table(spec)
privacy = privacy_table(spec)
meta = {
    "figure": snakemake.wildcards.figure,  # noqa: F821
    "settings": json.loads(json.dumps(settings, default=str)),
    "curves": [c.name for c in spec.curves],
    "runs": 0,
    "analytic_seconds": time.perf_counter() - start,
    "interpretations": list(interpretations(settings)),
    "privacy": privacy.to_dict(orient="records"),
    "versions": package_versions(),
}
atomic_write_text(snakemake.output.table, table.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.extra, privacy.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.meta, json.dumps(meta, indent=2, default=str))  # noqa: F821
