#!/usr/bin/env python3
"""Turn the raw per-seed outputs of run_simulator.sh into tidy CSVs + provenance.

Re-runnable by hand; NOT used by CI.  Reads RAW/mse/<config>_s<seed>.csv (one row per
simulator step: iter, mse_alg, mse_local, mse_oracle, lost_links, wrong_links, graph_learnt),
RAW/mse/<config>_s<seed>.stdout (SIMINFO line), RAW/timing/*, RAW/wall_times.txt.

Writes (into --out):
  simulator_mse.csv     algorithm, variant, t, mse, se, runs
                        t = number of samples per agent = simulator iter + 1;
                        mse = mean over seeds of (1/N) sum_i (estimate_i - mu_{class(i)})^2;
                        se  = std over seeds (ddof=1) / sqrt(runs)
  simulator_links.csv   algorithm, variant, t, wrong_links, lost_links, graph_learnt_frac, runs
  simulator_timing.csv  algorithm, variant, N, r, T, seconds, agent_steps_per_second
  simulator_provenance.json (merged with the static part in --static-provenance, if given)
"""
from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import re
from collections import defaultdict

import numpy as np

# config name -> (algorithm label, variant label)
CONFIGS = {
    "ccolme_default": ("C-ColME", "default"),
    "ccolme_retest": ("C-ColME", "retest_excluded"),
    "ccolme_static_alpha": ("C-ColME", "static_alpha_0.5"),
    "ccolme_uniform_w": ("C-ColME", "uniform_weights"),
    "bcolme_d1": ("B-ColME", "d1_upto2"),
    "bcolme_d2": ("B-ColME", "d2_upto3"),
    "bcolme_d3": ("B-ColME", "d3_upto4"),
    "bcolme_d4": ("B-ColME", "d4_upto5"),
    "bcolme_d2_retest": ("B-ColME", "d2_upto3_retest_excluded"),
    "colme": ("ColME", "round_robin_c10"),
    "colme_recompute": ("ColME", "recompute_c10"),
}

T_REQUIRED = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1500, 2000}


def load_config(raw: str, name: str):
    files = sorted(glob.glob(os.path.join(raw, "mse", f"{name}_s*.csv")),
                   key=lambda f: int(re.search(r"_s(\d+)\.csv$", f).group(1)))
    seeds, arrs = [], []
    for f in files:
        a = np.genfromtxt(f, delimiter=",", names=True)
        if a.size == 0:
            continue
        seeds.append(int(re.search(r"_s(\d+)\.csv$", f).group(1)))
        arrs.append(a)
    if not arrs:
        return None
    n = min(len(a) for a in arrs)
    arrs = [a[:n] for a in arrs]
    stack = {k: np.stack([a[k] for a in arrs]) for k in arrs[0].dtype.names}
    info = []
    for s in seeds:
        fo = os.path.join(raw, "mse", f"{name}_s{s}.stdout")
        if os.path.exists(fo):
            txt = open(fo).read()
            m = re.search(r"SIMINFO (.*)", txt)
            d = dict(kv.split("=", 1) for kv in m.group(1).split()) if m else {}
            m2 = re.search(r"gnr generated with (\d+) excluded edges", txt)
            if m2:
                d["rejected_pairs"] = m2.group(1)
            info.append(d)
    return seeds, stack, info


def summarize(vals: np.ndarray):
    runs = vals.shape[0]
    mean = vals.mean(axis=0)
    se = vals.std(axis=0, ddof=1) / np.sqrt(runs) if runs > 1 else np.full(vals.shape[1], np.nan)
    return mean, se, runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", default="/tmp/galante-raw")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--static-provenance", default=None,
                    help="JSON with build/commit/CPU facts to merge into the provenance")
    args = ap.parse_args()

    mse_rows, link_rows = [], []
    oracle_seen = []  # (algorithm-family, curve) to drop exact duplicates
    prov_runs = {}
    local_done = False
    for name, (alg, var) in CONFIGS.items():
        got = load_config(args.raw, name)
        if got is None:
            continue
        seeds, st, info = got
        iters = st["iter"][0].astype(int)
        t = iters + 1
        keep = np.array([(tt in T_REQUIRED) or (tt % 10 == 0) for tt in t])

        def emit(a, v, vals):
            mean, se, runs = summarize(vals)
            for tt, m, s in zip(t[keep], mean[keep], se[keep]):
                mse_rows.append((a, v, int(tt), f"{m:.9g}", f"{s:.9g}", runs))

        emit(alg, var, st["mse_alg"])
        if not local_done and alg in ("C-ColME", "B-ColME"):
            emit("local", "running_mean", st["mse_local"])
            local_done = True
            local_ref = st["mse_local"]
        elif alg in ("C-ColME", "B-ColME"):
            # the local estimator sees the same data stream for every graph-based config
            n = min(local_ref.shape[0], st["mse_local"].shape[0])
            assert np.array_equal(local_ref[:n], st["mse_local"][:n]), name
        if alg == "ColME":
            emit("local", "running_mean_colme_stream", st["mse_local"])
        dup = any(fam == alg and o.shape == st["mse_oracle"].shape and np.array_equal(o, st["mse_oracle"])
                  for fam, o in oracle_seen)
        if not dup:
            emit("oracle", f"{alg}_{var}", st["mse_oracle"])
            oracle_seen.append((alg, st["mse_oracle"]))

        wl, _, runs = summarize(st["wrong_links"])
        ll, _, _ = summarize(st["lost_links"])
        gl = st["graph_learnt"].mean(axis=0)
        for tt, a, b, c in zip(t[keep], wl[keep], ll[keep], gl[keep]):
            link_rows.append((alg, var, int(tt), f"{a:.6g}", f"{b:.6g}", f"{c:.4g}", runs))

        alg_s = [float(d["alg_s"]) for d in info if "alg_s" in d]
        rec = {"algorithm": alg, "variant": var, "config": name, "runs": len(seeds),
               "seeds": f"{min(seeds)}..{max(seeds)}" if seeds == list(range(min(seeds), max(seeds) + 1)) else seeds,
               "alg_seconds_per_seed_mean": float(np.mean(alg_s)) if alg_s else None}
        if info and "self_loops" in info[0] and alg != "ColME":
            rec["graph"] = {
                "self_loop_entries_mean": float(np.mean([int(d["self_loops"]) for d in info])),
                "rejected_pairs_mean": float(np.mean([int(d.get("rejected_pairs", 0)) for d in info])),
                "degree_mean_mean": float(np.mean([float(d["deg_mean"]) for d in info])),
                "degree_min_min": int(min(int(d["deg_min"]) for d in info)),
                "degree_max_max": int(max(int(d["deg_max"]) for d in info)),
            }
        if info and "n_class1" in info[0]:
            rec["class1_fraction_mean"] = float(np.mean([int(d["n_class1"]) / int(d["n"]) for d in info]))
        prov_runs[name] = rec

    with open(os.path.join(args.out, "simulator_mse.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["algorithm", "variant", "t", "mse", "se", "runs"])
        w.writerows(mse_rows)
    with open(os.path.join(args.out, "simulator_links.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["algorithm", "variant", "t", "wrong_links", "lost_links", "graph_learnt_frac", "runs"])
        w.writerows(link_rows)

    # timing
    trows, tprov = [], {}
    per = defaultdict(list)
    for fo in glob.glob(os.path.join(args.raw, "timing", "*.stdout")):
        name = re.sub(r"_s\d+\.stdout$", "", os.path.basename(fo))
        m = re.search(r"SIMINFO (.*)", open(fo).read())
        if m:
            per[name].append(dict(kv.split("=", 1) for kv in m.group(1).split()))
    for name in CONFIGS:
        if name not in per:
            continue
        alg, var = CONFIGS[name]
        ds = per[name]
        secs = sorted(float(d["alg_s"]) for d in ds)
        N, r, T = int(ds[0]["n"]), int(ds[0]["r"]), int(ds[0]["T"])
        med = float(np.median(secs))
        trows.append((alg, var, N, r, T, f"{med:.4f}", f"{N * T / med:.6g}"))
        tprov[name] = {"seeds": sorted(int(d["seed"]) for d in ds), "alg_seconds": secs,
                       "init_seconds": sorted(float(d["init_s"]) for d in ds)}
    with open(os.path.join(args.out, "simulator_timing.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["algorithm", "variant", "N", "r", "T", "seconds", "agent_steps_per_second"])
        w.writerows(trows)

    # wall times of the batch loops
    walls = {}
    wt = os.path.join(args.raw, "wall_times.txt")
    if os.path.exists(wt):
        for line in open(wt):
            m = re.match(r"WALL (\S+) seeds=(\d+) seconds=([\d.]+)", line)
            if m:
                walls[m.group(1)] = {"seeds": int(m.group(2)), "wall_seconds": float(m.group(3))}

    prov = {}
    if args.static_provenance and os.path.exists(args.static_provenance):
        prov = json.load(open(args.static_provenance))
    prov["mse_runs"] = prov_runs
    prov["wall_time_per_config"] = walls
    prov["wall_time_total_seconds"] = sum(v["wall_seconds"] for v in walls.values())
    prov["timing_runs"] = tprov
    with open(os.path.join(args.out, "simulator_provenance.json"), "w") as fh:
        json.dump(prov, fh, indent=2)
    print(f"wrote {len(mse_rows)} mse rows, {len(trows)} timing rows")


if __name__ == "__main__":
    main()
