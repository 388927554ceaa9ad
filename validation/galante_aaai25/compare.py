"""colme's C-ColME and B-ColME (engine ``scalable``) against the authors' public simulator on
the shared setting of docs/validation.md: N = 1000, r = 10, T = 2000, Gaussian data with
sigma = 2 (a normal truncated at 10 sigma here), class means {0, 1} with each agent's class
drawn uniformly, delta = 0.1.

Runs colme (``--runs`` runs, one process), writes ``colme_mse.csv`` (algorithm, variant, t,
mse, se, runs) with its provenance, and the z-table against ``simulator_mse.csv``
(``z_table.csv``: z = (colme - simulator) / sqrt(se_colme^2 + se_simulator^2) at the
compared t).  Run by hand from the repository's root, never in CI:

    python validation/galante_aaai25/compare.py --runs 200
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

from colme.expansion import expand_config
from colme.registry import ENGINES, stage_params

HERE = Path(__file__).resolve().parent
#: colme's settings for each simulator variant (its names in simulator_mse.csv).
VARIANTS = {
    "c_colme/default": {"algorithms": ["c_colme"]},
    "c_colme/retest": {"algorithms": ["c_colme"], "exclusions": "revocable"},
    "c_colme/static_alpha": {"algorithms": ["c_colme"], "alpha_reset": "constant"},
    "c_colme/uniform_w": {"algorithms": ["c_colme"], "weights": "uniform"},
    "b_colme/default": {"algorithms": ["b_colme"], "depths": [1, 2, 3]},
}
SETTING = {
    "engine": "scalable", "n_agents": 1000, "degree": 10, "t_max": 2000, "eps": [float("inf")],
    "rules": ["optimistic", "oracle"], "delta": 0.1, "chunk_runs": 1000, "grid": {"linear": 200, "log": 60},
    "population": {"means": [0.0, 1.0], "sigma": 2.0, "probabilities": [0.5, 0.5],
                   "law": {"kind": "truncated_normal", "truncation": 10.0}},
}
COMPARED_T = (2, 3, 5, 10, 20, 50, 100, 200, 300, 500, 700, 1000, 1500, 2000)


def simulate(runs: int, variants: tuple[str, ...] = tuple(VARIANTS)) -> pd.DataFrame:
    """colme's MSE by t for ``variants`` (keys of ``VARIANTS``), ``runs`` runs each."""
    rows = []
    for variant in variants:
        overrides = VARIANTS[variant]
        entry = {**SETTING, **overrides, "runs": runs}
        figure = expand_config({"seed": 1, "figures": {variant.replace("/", "_"): entry}}).figures
        name, settings = next(iter(figure.items()))
        engine = ENGINES["scalable"]
        instances = engine.instances(stage_params(settings, "instances", 0, runs), name, 0, runs)
        start = time.process_time()
        out = engine.simulate(stage_params(settings, "simulate", 0, runs), instances, name)
        seconds = time.process_time() - start
        for index, curve in enumerate(out["curves"]):
            mse = out["mse"][:, index]
            algorithm, label = variant.split("/")
            if " oracle " in curve:
                label = f"oracle_{label}"
            if algorithm == "b_colme":
                label = f"{label}_d{curve.split('d=')[1].split()[0]}"
            for t, column in zip(out["t"], mse.T, strict=True):
                rows.append({"algorithm": algorithm, "variant": label, "t": int(t), "mse": column.mean(),
                             "se": column.std(ddof=1) / np.sqrt(runs), "runs": runs, "cpu_seconds": seconds})
    return pd.DataFrame(rows)


#: The simulator's name (simulator_mse.csv: algorithm, variant) of each colme curve; the
#: simulator writes an oracle curve once when several configurations share it.
SIMULATOR_NAMES = {
    ("c_colme", "default"): ("C-ColME", "default"),
    ("c_colme", "retest"): ("C-ColME", "retest_excluded"),
    ("c_colme", "static_alpha"): ("C-ColME", "static_alpha_0.5"),
    ("c_colme", "uniform_w"): ("C-ColME", "uniform_weights"),
    ("c_colme", "oracle_default"): ("oracle", "C-ColME_default"),
    ("c_colme", "oracle_retest"): ("oracle", "C-ColME_default"),
    ("c_colme", "oracle_static_alpha"): ("oracle", "C-ColME_static_alpha_0.5"),
    ("c_colme", "oracle_uniform_w"): ("oracle", "C-ColME_uniform_weights"),
    **{("b_colme", f"default_d{d}"): ("B-ColME", f"d{d}_upto{d + 1}") for d in (1, 2, 3)},
    **{("b_colme", f"oracle_default_d{d}"): ("oracle", f"B-ColME_d{d}_upto{d + 1}") for d in (1, 2, 3)},
}


def z_table(colme: pd.DataFrame, simulator: pd.DataFrame) -> pd.DataFrame:
    """Per colme curve and compared t: both means and se, their ratio and z; Local is
    colme's exact sigma^2 / t (se 0) against the simulator's running means."""
    names = pd.DataFrame([(*ours, *theirs) for ours, theirs in SIMULATOR_NAMES.items()],
                         columns=["algorithm", "variant", "sim_algorithm", "sim_variant"])
    local = pd.DataFrame({"algorithm": "local", "variant": "exact", "t": list(COMPARED_T),
                          "mse": [SETTING["population"]["sigma"] ** 2 / t for t in COMPARED_T], "se": 0.0})
    ours = pd.concat([colme.merge(names, on=["algorithm", "variant"]),
                      local.assign(sim_algorithm="local", sim_variant="running_mean")], ignore_index=True)
    merged = ours.merge(simulator.rename(columns={"algorithm": "sim_algorithm", "variant": "sim_variant"}),
                        on=["sim_algorithm", "sim_variant", "t"], suffixes=("_colme", "_simulator"))
    merged = merged[merged["t"].isin(COMPARED_T)].copy()
    merged["ratio"] = merged["mse_colme"] / merged["mse_simulator"]
    merged["z"] = (merged["mse_colme"] - merged["mse_simulator"]) / np.hypot(merged["se_colme"], merged["se_simulator"])
    return merged[["algorithm", "variant", "sim_algorithm", "sim_variant", "t", "mse_colme", "se_colme",
                   "mse_simulator", "se_simulator", "ratio", "z"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--table-only", action="store_true", help="the z-table from the stored colme_mse.csv")
    args = parser.parse_args()
    if not args.table_only:
        start = time.time()
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        colme = simulate(args.runs)
        colme.to_csv(HERE / "colme_mse.csv", index=False)
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), platform.machine())
        (HERE / "colme_provenance.json").write_text(json.dumps({
            "setting": SETTING, "variants": VARIANTS, "runs": args.runs, "seed": 1, "commit": commit,
            "wall_seconds": time.time() - start, "cpu": cpu,
        }, indent=1, default=str))
    colme = pd.read_csv(HERE / "colme_mse.csv")
    simulator_csv = HERE / "simulator_mse.csv"
    if simulator_csv.exists():
        table = z_table(colme, pd.read_csv(simulator_csv))
        table.to_csv(HERE / "z_table.csv", index=False)
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
