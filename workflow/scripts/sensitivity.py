"""Snakemake script: the claims re-checked on every interpretation-option variant."""

from colme.claims import load_claims, tables_by_figure
from colme.config import per_preset
from colme.expansion import Variant
from colme.progress import log_to
from colme.provenance import atomic_write_text, read_params
from colme.sensitivity import to_markdown, verdict_changes

log_to(snakemake.log[0])
params = read_params(snakemake.params.variants)
runs = per_preset(params["runs"], params["preset"])
changes = verdict_changes(
    load_claims(snakemake.input.claims),
    [Variant(**variant) for variant in params["variants"]],
    tables_by_figure(snakemake.input.tables),
    tables_by_figure(snakemake.input.bounds, "_supplement"),
    tables_by_figure(snakemake.input.covariances, "_covariance"),
)
print(changes.to_string())
atomic_write_text(snakemake.output.csv, changes.to_csv(index=False))
atomic_write_text(snakemake.output.md, to_markdown(changes, params["skipped"], runs, params["preset"]))
