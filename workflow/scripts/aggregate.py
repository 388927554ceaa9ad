"""Snakemake script: chunks -> tidy tables and provenance."""

import json
import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.consensus import PanelSpec  # noqa: E402
from colme.experiments import interpretations, panel_spec  # noqa: E402
from colme.plotting import package_versions  # noqa: E402
from colme.results import (  # noqa: E402
    aggregate_table,
    atomic_write_text,
    bound_table,
    load_npz,
    privacy_table,
    sidecar,
)

figure = snakemake.wildcards.figure  # noqa: F821
spec = panel_spec(snakemake.config, figure)  # noqa: F821
sims = [load_npz(path) for path in snakemake.input.sims]  # noqa: F821
instances = [load_npz(path) for path in snakemake.input.instances]  # noqa: F821
table = aggregate_table(spec, sims, instances)
# Private-C-ColME: Corollary 1 and Theorem 1 numbers; Private-ColME: privacy accounting.
extra = bound_table(spec, instances) if isinstance(spec, PanelSpec) else privacy_table(spec)
meta = sidecar(
    snakemake.params.settings,  # noqa: F821
    spec,
    sims,
    {
        "figure": figure,
        "interpretations": list(interpretations(snakemake.params.settings)),  # noqa: F821
        "corollary1" if isinstance(spec, PanelSpec) else "privacy": extra.to_dict(orient="records"),
        "versions": package_versions(),
    },
)
atomic_write_text(snakemake.output.table, table.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.extra, extra.to_csv(index=False))  # noqa: F821
atomic_write_text(snakemake.output.meta, json.dumps(meta, indent=2, default=str))  # noqa: F821
