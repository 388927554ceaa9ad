"""The workflow stays `snakemake --lint`, `snakefmt` and `ruff` clean."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_snakemake_lint_clean():
    result = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "good condition" in result.stdout + result.stderr


def test_snakefmt_clean():
    snakefmt = shutil.which("snakefmt", path=str(Path(sys.executable).parent)) or "snakefmt"
    result = subprocess.run([snakefmt, "--check", "Snakefile", "workflow/rules"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    paths = ["src", "tests", "benchmarks", "workflow/scripts", "docs/hooks.py"]
    result = subprocess.run([ruff, "check", *paths], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
