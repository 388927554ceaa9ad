"""The product names the papers it reproduces by their names, never by an internal shorthand.

The project's working notes call the papers "seed" and a three-digit number, after files
outside the product; none of that shorthand, and no path into that folder, may appear in a
file the product ships: the configuration, the experiments, the workflow, the package's
sources and schemas, the documentation pages, the published builds' provenance, the README
and CITATION.cff.
(The word "seed" meaning a random seed is fine: only "seed" followed by a three-digit
number from 000 is refused.)
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SHORTHAND = re.compile(r"(?i)\bseeds? ?0\d\d\b")
SHARED_PATH = "../shared"


def product_files() -> list[Path]:
    """Every shipped file the check covers (tests/ excluded): the sources, and the published
    builds' pages and provenance (docs/default, docs/paper, docs/experiments/*/), which
    hold the figures' titles and choices as they were built."""
    files = [ROOT / "config.yaml", ROOT / "README.md", ROOT / "CITATION.cff"]
    files += sorted((ROOT / "docs").glob("**/provenance/*.json"))
    files += sorted((ROOT / "docs").glob("**/*.md"))
    files += sorted((ROOT / "experiments").glob("*.yaml"))
    files += sorted((ROOT / "suites").glob("*.yaml"))
    files += sorted(path for path in (ROOT / "workflow").rglob("*") if path.is_file())
    for pattern in ("*.py", "*.yaml"):
        files += sorted((ROOT / "src").rglob(pattern))
    return sorted({path for path in files if "__pycache__" not in path.parts})


def test_the_scan_sees_the_product():
    names = {path.relative_to(ROOT).as_posix() for path in product_files()}
    assert {"config.yaml", "README.md", "CITATION.cff", "workflow/claims.yaml"} <= names
    assert any(name.startswith("src/colme/") and name.endswith(".py") for name in names)
    assert any(name.startswith("experiments/") for name in names)
    assert any(name.startswith("docs/") for name in names)
    for build in ("default", "paper", "experiments/who_pays"):
        assert any(name.startswith(f"docs/{build}/provenance/") for name in names), build


def test_the_pattern_tells_the_shorthand_from_a_random_seed():
    # Built from parts, so that this file does not hold the shorthand it refuses.
    for number, other in (("002", "000"), ("004", "001")):
        for text in (f"seed {number}", f"Seed {number}'s", f"seeds {other} and {number}", f"seed{number}",
                     f"(SEED {other})"):
            assert SHORTHAND.search(text), text
    for text in ("seed: 12345", "seed 20250519", "seeding.py", "seed 1", "seeds and streams", "seed 12"):
        assert not SHORTHAND.search(text), text


def test_no_internal_paper_shorthand():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in product_files()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
        if SHORTHAND.search(line) or SHARED_PATH in line
    ]
    assert not found, "name the paper instead (see docs/papers.md):\n" + "\n".join(found)
