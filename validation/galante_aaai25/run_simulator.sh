#!/usr/bin/env bash
# Fetch, build and run the public C++ simulator of Galante, Neglia & Leonardi (AAAI 2025,
# arXiv 2402.12812) to obtain reference numbers for colme.  Re-runnable by hand; NOT used by CI.
#
# Nothing of the simulator is copied into this repository.  The simulator is exported to
# $WORK (default /tmp/galante-sim), a few lines are patched there *at build time* (see
# patch step below: MSE output hook + environment switches for the simulator's own
# hard-coded booleans), and a small driver written by us (sim_driver.cpp, generated below)
# replaces the simulator's main(), which takes no command-line arguments.
#
# Usage:  run_simulator.sh [build|mse|timing|parse|all]
#   env:  SEEDS                 override the per-config seed count of CONFIG_TABLE; seeds are
#                               1..SEEDS, one process per seed (the simulator's RNG is
#                               a function-local static mt19937 seeded on first use, so a
#                               process honours only the first seed it sees)
#         MIRROR                bare git dir of the repository (else it is cloned from GitHub)
#         WORK, RAW             build dir and raw-output dir (default /tmp/galante-sim, /tmp/galante-raw)
#         CONFIGS               space-separated config names (default: those of CONFIG_TABLE
#                               with a seed count; the "-" rows are defined but were not run)
set -euo pipefail

REPO_URL=https://github.com/Franco-Galante/scalable-decentralized-algorithms-AAAI25
COMMIT=c782c297d3df29be8d75484d88a8b49867372fd3
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/galante-sim}
RAW=${RAW:-/tmp/galante-raw}
MODE=${1:-all}
SRC=$WORK/colme_scalable_algorithms
BIN=$SRC/build/sim_driver

# ---------------------------------------------------------------------------------------
fetch_and_build() {
  rm -rf "$WORK"; mkdir -p "$WORK"
  if [[ -n "${MIRROR:-}" && -d "${MIRROR}" ]]; then
    git --git-dir="$MIRROR" archive "$COMMIT" | tar -x -C "$WORK"
  else
    git clone -q "$REPO_URL" "$WORK/.clone"
    git -C "$WORK/.clone" archive "$COMMIT" | tar -x -C "$WORK"
    rm -rf "$WORK/.clone"
  fi

  # --- patch (build-time only, in $WORK): all edits are insertions/replacements of a
  # single line; they do not change any computation of the simulator.
  python3 - "$SRC" <<'PYEOF'
import pathlib, sys
src = pathlib.Path(sys.argv[1])

def edit(fname, old, new, count=1):
    p = src / fname
    s = p.read_text()
    assert s.count(old) == count, (fname, old, s.count(old))
    p.write_text(s.replace(old, new))

# 1) globals: an output FILE* for per-step MSE rows, and an env-var reader
edit("Graph.hpp", '#include "Eigen.hpp"\n',
     '#include "Eigen.hpp"\n#include <cstdio>\n#include <cstdlib>\n'
     'inline std::FILE* sim_mse_out = nullptr;\n'
     'inline bool sim_env_flag(const char* n, bool d) { const char* v = std::getenv(n); return v ? (std::atoi(v) != 0) : d; }\n')
# 2) the simulator's hard-coded switches become environment switches (defaults unchanged)
edit("Graph.hpp", "bool irrevocable_decision = true;",
     'bool irrevocable_decision = sim_env_flag("SIM_IRREVOCABLE", true);')
edit("Graph.hpp", "bool symmetric_matrix = true;",
     'bool symmetric_matrix = sim_env_flag("SIM_SYMMETRIC", true);')
edit("Graph.hpp", "bool static_alpha = false;",
     'bool static_alpha = sim_env_flag("SIM_STATIC_ALPHA", false);')
# 3) MSE hook at the end of the simulator's per-step evaluation (after its own estimates
#    have been computed for the step): mean over agents of squared error vs the true class mean
hook = r'''
		if (sim_mse_out) {
			double s_alg = 0.0, s_loc = 0.0, s_orc = 0.0;
			for (int i = 0; i < static_cast<int>(g.size()); i++) {
				double mu = mu_values[g[i]->node_true_class()];
				if (!std::isnan(g[i]->noise())) mu += g[i]->noise();
				double ea = g[i]->read_estimate() - mu, el = g[i]->local_mean() - mu, eo = g[i]->read_oracle() - mu;
				s_alg += ea * ea; s_loc += el * el; s_orc += eo * eo;
			}
			std::fprintf(sim_mse_out, "%d,%.9g,%.9g,%.9g,%d,%d,%d\n", iter, s_alg / n_nodes, s_loc / n_nodes,
			             s_orc / n_nodes, all_lost, all_wrong, graph_learnt ? 1 : 0);
		}
'''
edit("Graph.hpp", "\t\treturn std::make_pair(emp, oracle_emp);", hook + "\t\treturn std::make_pair(emp, oracle_emp);")
# 4) optional: skip the simulator's text logs (log.txt etc.; write-only side files whose
#    last-line de-duplication re-reads the whole file at every step)
edit("Helpers.cpp", "void write_log(std::string filename, std::string line_to_add) {\n",
     'void write_log(std::string filename, std::string line_to_add) {\n        if (std::getenv("SIM_NO_LOG")) return;\n')
edit("Helpers.cpp", "#include <filesystem>\n", "#include <filesystem>\n#include <cstdlib>\n")
# 5) build our driver next to the simulator's own executable
p = src / "CMakeLists.txt"
p.write_text(p.read_text() + "\nadd_executable(sim_driver sim_driver.cpp Helpers.cpp Rand.cpp)\n"
             "if (UNIX)\n    target_link_libraries(sim_driver PRIVATE stdc++fs)\nendif()\n")
PYEOF

  # --- our driver (replaces the simulator's argument-less main for the runs)
  cat > "$SRC/sim_driver.cpp" <<'CPPEOF'
// Driver written for colme's validation (not part of the upstream simulator).
// usage: sim_driver ALG SEED N R T SIGMA DELTA UP_TO ALPHA MSE_CSV
//   ALG in {consensus, belief_propagation_v1, colme, colme_recompute}
#include "Graph.hpp"
#include <chrono>
#include <cstdio>
#include <string>
int main(int argc, char** argv) {
    if (argc != 11) { std::fprintf(stderr, "bad args\n"); return 2; }
    std::string alg = argv[1];
    int seed = std::atoi(argv[2]), n = std::atoi(argv[3]), r = std::atoi(argv[4]), T = std::atoi(argv[5]);
    float sigma = std::atof(argv[6]), delta = std::atof(argv[7]);
    int up_to = std::atoi(argv[8]);
    float alpha = std::atof(argv[9]);
    sim_mse_out = std::fopen(argv[10], "w");
    if (!sim_mse_out) return 3;
    std::fprintf(sim_mse_out, "iter,mse_alg,mse_local,mse_oracle,lost_links,wrong_links,graph_learnt\n");
    const float epsilon = 0.1f;                       // only used by the simulator's own pe metric
    const float p = static_cast<float>(r) / static_cast<float>(n); // only used by its G(n,p) generator
    auto t0 = std::chrono::steady_clock::now();
    Graph net(alg, "none", epsilon, delta, n, r, p, seed, 10, {0.0f, 1.0f}, sigma, alpha, up_to);
    if (alg == "colme" || alg == "colme_recompute") net.gnp_generator();   // full mesh for ColME
    else net.gnr_generator2(r);
    auto t1 = std::chrono::steady_clock::now();
    // graph facts
    long self_loops = 0, deg_sum = 0; int deg_min = 1 << 30, deg_max = 0, n_class1 = 0;
    for (int i = 0; i < n; i++) {
        const auto& nb = net.g[i]->neighbors_list();
        int d = static_cast<int>(nb.size());
        deg_sum += d; deg_min = std::min(deg_min, d); deg_max = std::max(deg_max, d);
        for (int j : nb) if (j == i) self_loops++;
        n_class1 += net.g[i]->node_true_class();
    }
    net.run_estimation_agorithm(T, {0.0f, 1.0f}, sigma, true, seed, r);
    auto t2 = std::chrono::steady_clock::now();
    std::fclose(sim_mse_out);
    double init_s = std::chrono::duration<double>(t1 - t0).count();
    double alg_s = std::chrono::duration<double>(t2 - t1).count();
    std::printf("SIMINFO alg=%s seed=%d n=%d r=%d T=%d init_s=%.6f alg_s=%.6f self_loops=%ld deg_mean=%.4f "
                "deg_min=%d deg_max=%d n_class1=%d\n", alg.c_str(), seed, n, r, T, init_s, alg_s, self_loops,
                static_cast<double>(deg_sum) / n, deg_min, deg_max, n_class1);
    return 0;
}
CPPEOF

  ( cd "$SRC" && cmake -B build -DCMAKE_BUILD_TYPE=Release > "$WORK/cmake_configure.log" \
      && cmake --build build --config Release -j 2 > "$WORK/cmake_build.log" )
  echo "built $BIN"
}

# ---------------------------------------------------------------------------------------
# name | ALG | UP_TO | ENV | SEEDS used for the reference numbers ("-" = defined but not run)
# N=1000 r=10 T=2000 sigma=2 delta=0.1, classes {0,1}; UP_TO only matters for B-ColME
# (hops = UP_TO - 1); C-ColME and ColME ignore it (main.cpp passes 10 to them).
CONFIG_TABLE='
ccolme_default|consensus|10||200
ccolme_retest|consensus|10|SIM_IRREVOCABLE=0|200
ccolme_static_alpha|consensus|10|SIM_STATIC_ALPHA=1|200
ccolme_uniform_w|consensus|10|SIM_SYMMETRIC=0|200
bcolme_d1|belief_propagation_v1|2||100
bcolme_d2|belief_propagation_v1|3||100
bcolme_d3|belief_propagation_v1|4||100
bcolme_d4|belief_propagation_v1|5||-
bcolme_d2_retest|belief_propagation_v1|3|SIM_IRREVOCABLE=0|-
colme|colme|10||-
colme_recompute|colme_recompute|10||-
'

run_one() {  # name alg up_to env seed N r T out
  local name=$1 alg=$2 upto=$3 envs=$4 seed=$5 N=$6 R=$7 T=$8 out=$9
  local rd; rd=$(mktemp -d "$RAW/run.XXXXXX")
  ( cd "$rd" && env SIM_NO_LOG=1 $envs nice -n 10 "$BIN" "$alg" "$seed" "$N" "$R" "$T" 2 0.1 "$upto" 0.5 \
        "$out.csv" > "$out.stdout" 2>&1 )
  rm -rf "$rd"
}

run_mse() {
  mkdir -p "$RAW/mse"
  local names=${CONFIGS:-$(echo "$CONFIG_TABLE" | awk -F'|' 'NF>1 && $5!="-"{print $1}')}
  for name in $names; do
    local line; line=$(echo "$CONFIG_TABLE" | awk -F'|' -v n="$name" '$1==n')
    local alg upto envs nseeds
    IFS='|' read -r _ alg upto envs nseeds <<< "$line"
    nseeds=${SEEDS:-$nseeds}; [[ $nseeds == "-" ]] && nseeds=100
    local t0; t0=$(date +%s.%N)
    for seed in $(seq 1 "$nseeds"); do
      run_one "$name" "$alg" "$upto" "$envs" "$seed" 1000 10 2000 "$RAW/mse/${name}_s${seed}"
    done
    local t1; t1=$(date +%s.%N)
    echo "WALL $name seeds=$nseeds seconds=$(echo "$t1 - $t0" | bc)" | tee -a "$RAW/wall_times.txt"
  done
}

run_timing() {  # N=1e4, r=10, T=200, 3 seeds
  mkdir -p "$RAW/timing"
  for name in ccolme_default bcolme_d1 bcolme_d2 bcolme_d3; do
    local line; line=$(echo "$CONFIG_TABLE" | awk -F'|' -v n="$name" '$1==n')
    local alg upto envs nseeds
    IFS='|' read -r _ alg upto envs nseeds <<< "$line"
    for seed in 1 2 3; do
      run_one "$name" "$alg" "$upto" "$envs" "$seed" 10000 10 200 "$RAW/timing/${name}_s${seed}"
    done
  done
}

write_static_provenance() {
  python3 - "$RAW/static_provenance.json" "$COMMIT" "$REPO_URL" "$BIN" <<'PYEOF'
import json, subprocess, sys, platform
out, commit, url, binpath = sys.argv[1:5]
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception as e: return str(e)
cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
flags = sh("grep -m1 '^flags' /proc/cpuinfo").split()
json.dump({
  "repository": url, "commit": commit,
  "subdirectory": "colme_scalable_algorithms",
  "build_commands": [
     "git archive <commit> | tar -x -C $WORK   (or git clone + archive)",
     "python3 patch step in run_simulator.sh (MSE hook, env switches, SIM_NO_LOG, extra CMake target)",
     "cmake -B build -DCMAKE_BUILD_TYPE=Release",
     "cmake --build build --config Release -j 2"],
  "cmake_build_type": "Release (CMake GCC default flags: -O3 -DNDEBUG; no -march flags)",
  "compiler": sh("c++ --version | head -1"), "cmake": sh("cmake --version | head -1"),
  "command_template": "cd <fresh tmp dir> && env SIM_NO_LOG=1 [SIM_IRREVOCABLE=0|SIM_STATIC_ALPHA=1|SIM_SYMMETRIC=0] nice -n 10 sim_driver ALG SEED N R T 2 0.1 UP_TO 0.5 OUT.csv",
  "driver_call": "Graph(ALG, 'none', epsilon=0.1, delta, N, r, p=r/N, seed, 10, {0,1}, sigma, alpha, up_to); gnr_generator2(r) (gnp_generator -> full mesh for ColME); run_estimation_agorithm(T, {0,1}, sigma, all_collab=true, seed, c_p=r)",
  "cpu_model": cpu, "nproc": sh("nproc"),
  "vector_isa": {"avx2": "avx2" in flags, "avx512f": "avx512f" in flags,
                 "avx512_flags": sorted(f for f in flags if f.startswith("avx512"))},
  "kernel": platform.release(), "os": sh(". /etc/os-release; echo $PRETTY_NAME"),
}, open(out, "w"), indent=2)
PYEOF
}

mkdir -p "$RAW"
case "$MODE" in
  build)  fetch_and_build; write_static_provenance ;;
  mse)    run_mse ;;
  timing) run_timing ;;
  parse)  python3 "$HERE/parse_simulator.py" --raw "$RAW" --out "$HERE" --static-provenance "$RAW/static_provenance.json" ;;
  all)    fetch_and_build; write_static_provenance; run_mse; run_timing
          python3 "$HERE/parse_simulator.py" --raw "$RAW" --out "$HERE" --static-provenance "$RAW/static_provenance.json" ;;
  *) echo "unknown mode $MODE"; exit 2 ;;
esac
