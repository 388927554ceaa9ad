"""Numbers in prose that cannot go stale (``colme.prose``): every marker holds its
published value, and no number of the kinds a build produces is typed by hand outside one."""

import json
from pathlib import Path

import pandas as pd
import pytest

from colme import docpages
from colme.prose import (
    prose_files,
    published_values,
    query,
    record_problems,
    refresh,
    stale_prose,
    unmarked_numbers,
    with_error,
)

ROOT = Path(__file__).resolve().parents[2]


def hand_written() -> list[Path]:
    return prose_files(ROOT, set(docpages.TOP_PAGES))


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_experiments_overview_is_hand_written_prose():
    assert ROOT / "docs" / "experiments" / "README.md" in hand_written()
    assert ROOT / "docs" / "experiments" / "README.md" not in prose_files(ROOT, {"experiments/README.md"})


def test_the_top_pages_are_the_generated_ones():
    assert {name for name in docpages.generated_pages(ROOT) if "/" not in name} == set(docpages.TOP_PAGES)


def test_every_marker_holds_its_published_value():
    stale = stale_prose(ROOT, hand_written())
    assert not stale, f"run `python -m colme.docpages`: {sorted(str(p) for p in stale)}"


@pytest.mark.parametrize("path", hand_written(), ids=relative)
def test_no_build_number_is_typed_by_hand(path):
    """A time, a job or claim count, verdict counts, a measured rate, an estimate with its
    error, a z or a CPU name in prose comes from a marker or a query, stands in a record of
    the benchmark that measured it, or carries a ``<!--typed: why-->`` note (history, a
    setting)."""
    found = unmarked_numbers(path.read_text())
    assert not found, f"{path.name}: typed build numbers (line, text): {found[:10]}"


@pytest.mark.parametrize("path", hand_written(), ids=relative)
def test_every_record_names_its_script_and_cpu(path):
    assert not record_problems(path.read_text(), ROOT)


def test_records_are_checked():
    good = "<!--record: benchmarks/bench_scale.py; 2-core AMD EPYC (Zen 5, AVX-512)-->1.5e9 on 1 core<!--/record-->"
    assert record_problems(good, ROOT) == [] and unmarked_numbers(good) == []
    no_script = good.replace("benchmarks/bench_scale.py", "a benchmark")
    gone = good.replace("bench_scale.py", "bench_gone.py")
    no_isa = good.replace(", AVX-512", "")
    assert ["script" in problem for problem in record_problems(no_script, ROOT)] == [True]
    assert ["script" in problem for problem in record_problems(gone, ROOT)] == [True]
    assert ["vector ISA" in problem for problem in record_problems(no_isa, ROOT)] == [True]
    assert record_problems(good.replace("<!--/record-->", ""), ROOT) == ["a record is not closed with <!--/record-->"]


def test_queries_read_one_published_cell(tmp_path):
    (tmp_path / "b").mkdir()
    pd.DataFrame({"curve": ["oracle eps=1", "Local", "oracle eps=1"], "t": [10, 10, 20],
                  "mse": [0.5, 2.0, 0.25], "se": [0.01, 0.0, 0.02]}).to_csv(tmp_path / "b" / "t.csv", index=False)
    pd.DataFrame({"id": ["a.x", "a.y", "b.z"], "verdict": ["reproduced", "inconclusive", "reproduced"],
                  "measured": ["ratio 1.078 ± 0.054 at t = 2000", "z = 2.5", "-"],
                  "measured (independent se)": ["ratio 1.078 ± 0.169 at t = 2000", "z = 2.1", "-"]}).to_csv(
        tmp_path / "b" / "c.csv", index=False)
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t=20 mse') == "0.25"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t=10 mse/curve=Local %.2f') == "0.25"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t=10 mse+-2*se/curve=Local') == "0.250 +- 0.010"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t=20 100*mse+-2*se') == "25 +- 4"
    assert query(tmp_path, 'b/c.csv id^=a. verdict=reproduced count') == "1"
    assert query(tmp_path, 'b/c.csv id!=a.y verdict=reproduced count') == "2"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t>=10 t<=20 max:mse "%.2f of it"') == "0.50 of it"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t>=10 min:100*mse %.0f%%') == "25%"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" argmin:mse %d') == "20"
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t<=10 max:mse/curve=Local %.2fx') == "0.25x"
    # the share of t where the value is above the divisor's by more than its errors
    assert query(tmp_path, 'b/t.csv curve="oracle eps=1" t<=10 above:mse+-2*se/curve=Local %.2f') == "0.00"
    with pytest.raises(KeyError, match="no single row to divide by at every t"):
        query(tmp_path, 'b/t.csv curve="oracle eps=1" max:mse/curve=Local')  # Local has no t = 20
    assert query(tmp_path, 'b/t.csv curve=Local above:40*mse+-se/curve=Local %.2f') == "1.00"
    # several curves over one divisor row per t
    assert query(tmp_path, 'b/t.csv curve!=Local t=10 max:mse/curve=Local %.2f') == "0.25"
    # readings that would silently mean something else are refused
    no_t = {"rule": ["x", "x", "y", "y"], "figure": ["m3", "m4", "m5", "m6"], "mse": [1.0, 2.0, 4.0, 8.0]}
    pd.DataFrame(no_t).to_csv(tmp_path / "b" / "nt.csv", index=False)
    for spec, message in [('b/t.csv curve="oracle eps=1" max:mse+-2*se', "without its error"),
                          ('b/t.csv curve="oracle eps=1" t<=10 above:mse/curve=Local', "with its error"),
                          ('b/t.csv curve="oracle eps=1" t=10 mse+-2*se %.1f', "without a format"),
                          ("b/nt.csv rule=x argmax:mse", "no t column"),
                          ("b/nt.csv rule=x min:mse/rule=y", "divide by one row only")]:
        with pytest.raises(KeyError, match=message):
            query(tmp_path, spec)
    assert query(tmp_path, "b/nt.csv figure=m3 mse/figure=m4 %.2f") == "0.50"
    # groups: a divisor that differs in several keys, a mean weighted by a column, a dotted key
    groups = {"curve": ["mix", "mix", "mix", "Local"], "group": ["a", "b", "c", "all"], "t": [5, 5, 5, 5],
              "share": [0.5, 0.3, 0.2, 1.0], "shares.0": [0.1, 0.1, 0.1, 0.1], "mse": [2.0, 4.0, 8.0, 4.0],
              "se": [0.1, 0.2, 0.4, 0.0]}
    pd.DataFrame(groups).to_csv(tmp_path / "b" / "g.csv", index=False)
    assert query(tmp_path, "b/g.csv curve=mix group=b mse+-2*se/curve=Local/group=all") == "1.00 +- 0.10"
    assert query(tmp_path, "b/g.csv curve=mix group!=a mean:mse/curve=Local/group=all %.2f") == "1.50"
    assert query(tmp_path, "b/g.csv curve=mix mean@share:mse/curve=Local/group=all %.2f") == "0.95"
    assert query(tmp_path, "b/g.csv curve=mix group=c shares.0=0.1 mse %.1f") == "8.0"
    with pytest.raises(KeyError, match="only mean@"):
        query(tmp_path, "b/g.csv curve=mix max@share:mse")
    with pytest.raises(KeyError, match="no single row to divide by"):
        query(tmp_path, "b/g.csv curve=mix group=b mse/curve=Local")  # Local has no group b
    assert query(tmp_path, r'b/c.csv id=a.x "measured~ratio ([\d.]+ ± [\d.]+) at"') == "1.078 ± 0.054"
    assert query(tmp_path, r'b/c.csv id=a.x "measured (independent se)~± ([\d.]+) at"') == "0.169"
    with pytest.raises(KeyError, match="2 rows match"):
        query(tmp_path, 'b/t.csv curve="oracle eps=1" mse')
    with pytest.raises(KeyError, match="no column 'rule'"):
        query(tmp_path, 'b/t.csv rule=oracle t=10 mse')
    with pytest.raises(KeyError, match="is not in"):
        query(tmp_path, r'b/c.csv id=a.y "measured~ratio ([\d.]+)"')
    text = '<!--q:b/t.csv curve=Local t=10 mse %.1f-->9<!--/q-->'
    assert refresh(text, {}, "page.md", tmp_path) == '<!--q:b/t.csv curve=Local t=10 mse %.1f-->2.0<!--/q-->'
    example = "`<!--q:nowhere.csv t=1 mse-->x<!--/q-->` and `<!--record: a script-->`"
    assert refresh(example, {}, "page.md", tmp_path) == example and record_problems(example, ROOT) == []
    with pytest.raises(KeyError, match=r"page\.md: .*0 rows match"):
        refresh('<!--q:b/t.csv curve=Ideal t=10 mse-->1<!--/q-->', {}, "page.md", tmp_path)


@pytest.mark.parametrize(("value", "error", "shown"), [
    (0.9668, 0.0731, "0.97 +- 0.07"), (108.2, 6.1, "108 +- 6"), (272.4, 31.8, "270 +- 30"),
    (0.04701, 0.00512, "0.047 +- 0.005"), (1.0, 0.0157, "1.000 +- 0.016"), (3.2, 0.0, "3.2 +- 0")])
def test_estimates_are_rounded_at_their_error(value, error, shown):
    assert with_error(value, error) == shown


def test_an_estimate_rounds_at_its_rounded_error_and_needs_one():
    assert with_error(0.5, 0.0995) == "0.50 +- 0.10" and with_error(-0.004, 0.05) == "0.00 +- 0.05"
    for error in (float("nan"), -0.1):
        with pytest.raises(ValueError, match="no standard error"):
            with_error(1.0, error)


def test_a_marker_mentioned_in_code_hides_nothing():
    text = "syntax: `<!--n:key-->` and `<!--typed: x-->`\nit took 26 min\nnow <!--n:k-->5<!--/n--> min"
    assert [hit for _, hit in unmarked_numbers(text)] == ["26 min"]


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
    for name, wall, cpu in (("a", 61.2, "AMD EPYC"), ("b", 119.6, "AMD EPYC"), ("c", 80.0, "Intel(R) Xeon(R)")):
        (docs / "experiments" / name).mkdir(parents=True)
        (docs / "experiments" / name / "build.json").write_text(json.dumps(
            {"wall_seconds": wall, "compute_seconds": 2 * wall, "cores": 2,
             "machine": {"cpu": cpu, "vector_isa": "AVX2"}}))
    values = published_values(tmp_path)
    assert values["experiments.b.wall_seconds"] == "120" and values["experiments.count"] == "3"
    assert values["experiments.b.compute_seconds"] == "239"
    assert values["experiments.max_wall_minutes"] == "2" and values["experiments.c.cpu"] == "2-core Intel Xeon (AVX2)"
    assert values["experiments.cpus"] == "2-core AMD EPYC (AVX2) and 2-core Intel Xeon (AVX2)"


def test_typed_build_numbers_are_found():
    text = "\n".join([
        "make figures took 26 min for 271 jobs on a 2-core AMD EPYC",  # 3
        "at 1.5e9 updates/s; 108 reproduced, 103 / 17 / 21",  # 3
        "C-ColME's MSE 1.078 +- 0.054 times, min z = 2.99, 276 +- 72",  # 3
        "4.7x better, x0.97 of it, keeps 96.4% (13.6 % lost); 2 se, 0.1 tolerance",  # 4
        "ends 1.8 times above, a share of 0.74; eps = 0.25 and sigma=0.25",  # 2
        "took 1 minute, 3.2 ms, z=2.99, max |z| 2.9, 108 +/- 6; the z-test",  # 5
        "took <!--n:default.wall_minutes-->28<!--/n--> min",  # in a marker: none
        "about 5 hours after <!--typed: history-->",  # noted: none
        "`--runtime 8 min` and [link](x/26 min)",  # code and a link's target: none
        "```", "60 s", "```",  # a code block: none
        "Fig. 1 claims, t = 3e4, M = 1e6",  # settings: none
    ])
    assert [hit for _, hit in unmarked_numbers(text)] == [
        "26 min", "271 jobs", "EPYC", "1.5e9", "108 reproduced", "103 / 17 / 21", "1.078 +- 0.054", "z = 2.99",
        "276 +- 72", "4.7x", "x0.97", "96.4%", "13.6 %", "1.8 times", "0.74",
        "1 minute", "3.2 ms", "z=2.99", "|z| 2.9", "108 +/- 6"]
