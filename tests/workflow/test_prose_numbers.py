"""Numbers in prose that cannot go stale (``colme.prose``): every marker holds its
published value, and no number of the kinds a build produces is typed by hand outside one."""

import json
from pathlib import Path

import pytest

from colme import docpages
from colme.prose import prose_files, published_values, refresh, stale_prose, unmarked_numbers

ROOT = Path(__file__).resolve().parents[2]

#: Pages that are records of benchmark and validation runs (each paragraph names its CPU
#: and command), not of a published build: not converted to markers yet.
MEASUREMENT_RECORDS = {"kernel.md", "performance.md", "validation.md", "baselines.md", "cluster.md"}


def hand_written() -> list[Path]:
    return prose_files(ROOT, set(docpages.TOP_PAGES))


def converted() -> list[Path]:
    """The hand-written pages whose build numbers must be markers (all but the records)."""
    return [path for path in hand_written() if path.name not in MEASUREMENT_RECORDS]


def test_the_top_pages_are_the_generated_ones():
    assert {name for name in docpages.generated_pages(ROOT) if "/" not in name} == set(docpages.TOP_PAGES)


def test_every_marker_holds_its_published_value():
    stale = stale_prose(ROOT, hand_written())
    assert not stale, f"run `python -m colme.docpages`: {sorted(str(p) for p in stale)}"


def test_the_unconverted_records_are_the_known_ones():
    """The exempt pages exist and still hold typed numbers (a record converted, or a new
    page, must leave or stay out of MEASUREMENT_RECORDS: this fails until it does)."""
    records = {path.name: path for path in hand_written() if path.name in MEASUREMENT_RECORDS}
    assert set(records) == MEASUREMENT_RECORDS
    assert all(unmarked_numbers(path.read_text()) for path in records.values())


@pytest.mark.parametrize("path", converted(), ids=lambda p: p.name)
def test_no_build_number_is_typed_by_hand(path):
    """A time, a job or claim count, verdict counts, a measured rate or a CPU name in prose
    comes from a marker (or carries a ``<!--typed: why-->`` note: history, a setting)."""
    found = unmarked_numbers(path.read_text())
    assert not found, f"{path.name}: typed build numbers (line, text): {found[:10]}"


def test_markers_are_rewritten_from_the_files(tmp_path):
    docs = tmp_path / "docs"
    (docs / "default").mkdir(parents=True)
    build = {"wall_seconds": 1671.0, "compute_seconds": 3772.3, "cores": 2, "claims": 3,
             "machine": {"cpu": "Intel(R) Xeon(R) Processor", "vector_isa": "AVX-512"},
             "verdicts": {"reproduced": 2, "inconclusive": 1}, "verdicts_holm": {"reproduced": 1, "inconclusive": 2}}
    (docs / "default" / "build.json").write_text(json.dumps(build))
    values = published_values(tmp_path)
    assert values["default.wall_minutes"] == "28" and values["default.cpu"] == "2-core Intel Xeon (AVX-512)"
    assert values["default.paired"] == "2 / 0 / 1" and values["default.holm"] == "1 / 0 / 2"
    text = "took <!--n:default.wall_minutes-->26<!--/n--> min on a <!--n:default.cpu-->AMD EPYC<!--/n-->"
    assert refresh(text, values) == ("took <!--n:default.wall_minutes-->28<!--/n--> min on a "
                                     "<!--n:default.cpu-->2-core Intel Xeon (AVX-512)<!--/n-->")
    with pytest.raises(KeyError, match=r"no published value 'default\.jobs'"):
        refresh("<!--n:default.jobs-->271<!--/n-->", values, "README.md")


def test_typed_build_numbers_are_found():
    text = "\n".join([
        "make figures took 26 min for 271 jobs on a 2-core AMD EPYC",  # 3
        "at 1.5e9 updates/s; 108 reproduced, 103 / 17 / 21",  # 3
        "took <!--n:default.wall_minutes-->28<!--/n--> min",  # in a marker: none
        "about 5 hours after <!--typed: history-->",  # noted: none
        "`--runtime 8 min` and [link](x/26 min)",  # code and a link's target: none
        "```", "60 s", "```",  # a code block: none
        "Fig. 1 claims, t = 3e4, M = 1e6",  # settings: none
    ])
    assert [hit for _, hit in unmarked_numbers(text)] == [
        "26 min", "271 jobs", "EPYC", "1.5e9", "108 reproduced", "103 / 17 / 21"]
