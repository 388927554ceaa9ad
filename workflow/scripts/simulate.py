"""Snakemake script: all curves of a figure on one chunk of runs."""

import sys
from pathlib import Path

sys.stderr = sys.stdout = open(snakemake.log[0], "w")  # noqa: F821
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from colme.experiments import panel_spec  # noqa: E402
from colme.results import atomic_savez, load_npz, simulate_chunk  # noqa: E402

config, figure = snakemake.config, snakemake.wildcards.figure  # noqa: F821
result = simulate_chunk(
    panel_spec(config, figure), load_npz(snakemake.input[0]), figure, config["seed"], config["precision"]  # noqa: F821
)
print(f"{len(result['runs'])} runs in {float(result['seconds']):.1f} s")
atomic_savez(snakemake.output[0], **result)  # noqa: F821
