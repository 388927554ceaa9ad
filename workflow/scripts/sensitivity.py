"""Snakemake script: the claims re-checked on every interpretation-option variant."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821, SIM115 - open for the whole script
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.claims import load_claims, tables_by_figure  # noqa: E402
from colme.config import per_preset  # noqa: E402
from colme.provenance import atomic_write_text, read_params  # noqa: E402
from colme.sensitivity import Variant, to_markdown, verdict_changes  # noqa: E402

params = read_params(snakemake.params.variants)  # noqa: F821
runs = per_preset(params["runs"], params["preset"])
changes = verdict_changes(
    load_claims(snakemake.input.claims),  # noqa: F821
    [Variant(**variant) for variant in params["variants"]],
    tables_by_figure(snakemake.input.tables),  # noqa: F821
    tables_by_figure(snakemake.input.bounds, "_supplement"),  # noqa: F821
    tables_by_figure(snakemake.input.covariances, "_covariance"),  # noqa: F821
)
print(changes.to_string())
atomic_write_text(snakemake.output.csv, changes.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.md, to_markdown(changes, params["skipped"], runs, params["preset"]))  # noqa: F821
