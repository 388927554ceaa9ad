"""benchmarks/compare_builds.py: two builds' tables and claims compared (the cross-machine
check of docs/reproducibility.md)."""

import gzip
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = pd.DataFrame({"id": ["a", "b"], "verdict": ["reproduced", "inconclusive"], "measured": ["1.0", "2.0"],
                       "diagnosis": ["", "why"]})


def build(folder: Path, mse: float, curve: str, verdict_b: str) -> Path:
    (folder / "tables").mkdir(parents=True)
    pd.DataFrame({"curve": ["x", "y"], "t": [1, 2], "mse": [0.5, 0.25]}).to_csv(folder / "tables/same.csv", index=False)
    pd.DataFrame({"curve": ["x", curve], "t": [1, 2], "mse": [0.5, mse]}).to_csv(folder / "tables/moved.csv",
                                                                                  index=False)
    CLAIMS.assign(verdict=["reproduced", verdict_b]).to_csv(folder / "claims.csv", index=False)
    return folder


def test_differences_are_found_and_sized(tmp_path):
    first = build(tmp_path / "one", 0.25, "y", "inconclusive")
    second = build(tmp_path / "two", 0.25 * (1 + 3e-12), "z", "reproduced")
    out = subprocess.run([sys.executable, "benchmarks/compare_builds.py", str(first), str(second)], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "tables in both: 2; byte-identical: 1; differing: 1" in out
    assert "moved.csv: largest relative difference 3.00e-12 (mse); other columns differing: ['curve']" in out
    assert "claims differing: 1 field(s), of which verdicts: 1" in out
    assert "b: verdict differs (VERDICT)" in out
    same = subprocess.run([sys.executable, "benchmarks/compare_builds.py", str(first), str(first)], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
    assert "byte-identical: 2; differing: 0" in same and "claims differing: 0 field(s)" in same


def test_builds_without_claims_compare_their_tables_and_one_missing_claims_file_fails(tmp_path):
    first = build(tmp_path / "one", 0.25, "y", "inconclusive")
    second = build(tmp_path / "two", 0.25, "y", "inconclusive")
    (second / "claims.csv").unlink()
    lopsided = subprocess.run([sys.executable, "benchmarks/compare_builds.py", str(first), str(second)], cwd=ROOT,
                              capture_output=True, text=True)
    assert lopsided.returncode != 0 and f"{second / 'claims.csv'}: no claims file" in lopsided.stderr
    (first / "claims.csv").unlink()
    out = subprocess.run([sys.executable, "benchmarks/compare_builds.py", str(first), str(second)], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "tables in both: 2; byte-identical: 2; differing: 0" in out
    assert "claims: none in either build" in out


def test_a_gzipped_table_is_compared_with_its_csv_and_a_build_without_tables_fails(tmp_path):
    first = build(tmp_path / "one", 0.25, "y", "inconclusive")
    second = build(tmp_path / "two", 0.25 * (1 + 5e-11), "y", "inconclusive")
    moved = second / "tables/moved.csv"
    moved.with_name("moved.csv.gz").write_bytes(gzip.compress(moved.read_bytes()))
    moved.unlink()
    out = subprocess.run([sys.executable, "benchmarks/compare_builds.py", str(first), str(second)], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "tables in both: 2; byte-identical: 1; differing: 1" in out
    assert "moved.csv: largest relative difference 5.00e-11 (mse)" in out
    (first / "tables/extra.csv").write_text("curve,t,mse\nx,1,0.5\n")
    assert f"only in {first}: 1 (extra.csv)" in subprocess.run(
        [sys.executable, "benchmarks/compare_builds.py", str(first), str(second)], cwd=ROOT,
        capture_output=True, text=True, check=True).stdout
    (tmp_path / "empty/tables").mkdir(parents=True)
    for other, message in ((tmp_path / "missing", "no tables folder"), (tmp_path / "empty", "no table in both")):
        failed = subprocess.run([sys.executable, "benchmarks/compare_builds.py", str(first), str(other)], cwd=ROOT,
                                capture_output=True, text=True)
        assert failed.returncode != 0 and message in failed.stderr
