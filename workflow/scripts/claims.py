"""Snakemake script: check the papers' claims on the aggregated tables."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

import pandas as pd  # noqa: E402

from colme.claims import evaluate, load_claims, to_markdown  # noqa: E402
from colme.provenance import atomic_write_text  # noqa: E402

tables = {Path(t).stem: pd.read_csv(t) for t in snakemake.input.tables}  # noqa: F821
bounds = {
    Path(b).stem.removesuffix("_supplement"): pd.read_csv(b)
    for b in snakemake.input.bounds  # noqa: F821
}
results = evaluate(load_claims(snakemake.input.claims), tables, bounds)  # noqa: F821
print(results.to_string())
atomic_write_text(snakemake.output.csv, results.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.md, to_markdown(results))  # noqa: F821
