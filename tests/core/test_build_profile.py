"""benchmarks/build_profile.py reads every benchmark file of a build, a build-wide job's
(claims.tsv, directly under benchmarks/) included."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmark_jobs_reads_chunk_and_build_wide_files(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("build_profile", ROOT / "benchmarks" / "build_profile.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_profile"] = module
    spec.loader.exec_module(module)
    header = "s\th:m:s\tmax_rss\tcpu_time\n"
    (tmp_path / "benchmarks" / "simulate" / "fig").mkdir(parents=True)
    (tmp_path / "benchmarks" / "simulate" / "fig" / "runs0-2-ab.tsv").write_text(header + "12.5\t0:00:12\t100\t11.0\n")
    (tmp_path / "benchmarks" / "claims.tsv").write_text(header + "8.4\t0:00:08\t90\t8.1\n")
    jobs = module.benchmark_jobs(tmp_path).set_index("stage")
    assert jobs.loc["simulate", ["figure", "job", "s"]].tolist() == ["fig", "runs0-2-ab", 12.5]
    assert jobs.loc["claims", ["figure", "job", "cpu_time"]].tolist() == ["claims", "", 8.1]
