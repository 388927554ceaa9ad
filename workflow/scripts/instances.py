"""Snakemake script: class assignments, graphs and n_a of one chunk of runs."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.experiments import chunks, panel_spec  # noqa: E402
from colme.results import atomic_savez, make_instances  # noqa: E402

figure = snakemake.wildcards.figure  # noqa: F821
chunk = chunks(snakemake.params.settings)[int(snakemake.wildcards.chunk)]  # noqa: F821
spec = panel_spec(snakemake.config, figure)  # noqa: F821
instances = make_instances(spec, figure, chunk, snakemake.config["seed"])  # noqa: F821
atomic_savez(snakemake.output[0], **instances)  # noqa: F821
