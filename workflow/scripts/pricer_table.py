"""Snakemake script: a PriCER figure's tidy table (seed 003 Figs. 2-4) and its provenance."""

import json
import sys
import time
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # noqa: F821

from colme import pricer  # noqa: E402
from colme.plotting import package_versions  # noqa: E402
from colme.seeding import figure_generator  # noqa: E402
from colme.results import atomic_write_text  # noqa: E402

figure = snakemake.wildcards.figure  # noqa: F821
seed = snakemake.params.seed  # noqa: F821
settings = pricer.resolve_settings(dict(snakemake.params.settings))  # noqa: F821
start = time.perf_counter()
table = pricer.table_for(settings, figure_generator(seed, figure))
seconds = time.perf_counter() - start
checks = {}
if "max_violation" in table.columns:
    checks = {
        "max_constraint_violation": float(table["max_violation"].max()),
        "all_links_private": bool(table["privacy_ok"].dropna().astype(bool).all()),
    }
meta = {
    "figure": figure,
    "paper": "seed 003 (Saha et al., PriCER)",
    "settings": json.loads(json.dumps(settings, default=str)),
    "seed": seed,
    "curves": list(dict.fromkeys(table["curve"])),
    "runs": int(table["runs"].max()) if "runs" in table.columns else 0,
    "table_seconds": seconds,
    "checks": checks,
    "interpretations": list(pricer.PRICER_INTERPRETATIONS),
    "versions": package_versions(),
}
print(f"{figure}: {len(table)} rows in {seconds:.1f} s; checks {checks}")
atomic_write_text(snakemake.output.table, table.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.meta, json.dumps(meta, indent=2, default=str))  # noqa: F821
