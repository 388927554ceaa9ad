"""Numbers in hand-written prose (README.md, docs/*.md, docs/experiments/README.md:
``prose_files``) that cannot go stale: each is a
named value read from the published builds' files, written between markers

    <!--n:paper.wall_minutes-->79<!--/n-->

or one cell of a published table or claims file, queried where it stands (``query``)

    <!--q:default/tables/baselines.csv curve="oracle eps=1" t=30000 mse/curve=Local %.2f-->0.38<!--/q-->

and rewritten by ``python -m colme.docpages`` (``refresh``); a test fails when a marker's
text differs from its value (``stale_prose``) or when a number of the kinds a build
produces (times, job and claim counts, verdict counts, rates, estimates with their error,
z values, CPU names) stands outside a marker (``unmarked_numbers``).  A number that no
build produces (a paper's value, a date, a setting) is typed as it is; one of those kinds
that is not a build's (a history note) carries ``<!--typed: why-->`` on its line.  A
benchmark's or a validation run's measurements, which no build produces, stand in a record
that names the script that measured them, the CPU and its vector ISA (``RECORD``,
``record_problems``).  showyourwork's variables are the model.
"""

from __future__ import annotations

import functools
import json
import math
import re
import shlex
from pathlib import Path

import pandas as pd

#: A marker and the text it holds.
MARKER = re.compile(r"<!--n:([A-Za-z0-9_.]+)-->(.*?)<!--/n-->", re.S)

#: A query of one published cell (``query``), and the text it holds.
QUERY = re.compile(r"<!--q:(.*?)-->(.*?)<!--/q-->", re.S)

#: A measurement record: ``<!--record: script; CPU (ISA); date-->`` ... ``<!--/record-->``.
RECORD = re.compile(r"<!--record:(.*?)-->(.*?)<!--/record-->", re.S)

#: A CPU as a record names it, and vector ISAs.
CPU_NAME = r"EPYC|Xeon|Zen \d|Ryzen|Core i\d|Apple M\d|Graviton|Neoverse"
VECTOR_ISA = re.compile(r"AVX-512|AVX2|AVX|SSE4|NEON|SVE")

#: Numbers of the kinds a build produces, as they appear in prose: durations, job and claim
#: counts, verdict counts and triples, measured rates (mantissa with decimals), estimates
#: with their error (``1.078 +- 0.054``), z values, ratios (``4.7x``, ``x0.97``, ``1.8
#: times``), percentages with decimals, shares and ratios below 1 (``0.74``; not after
#: ``=``, a setting), CPU names.
BUILD_NUMBER = re.compile(
    r"(?<![\w.])(?<!Fig\. )(?<!Theorem )(?<!Corollary )(?<!Lemma )\d+(?:\.\d+)?\s?"
    r"(?:s|ms|min|minutes?|seconds?|h|hours?|jobs?|claims?)\b"
    r"|(?<![\w.])\d\.\d+e[+-]?\d+"
    r"|(?<![\w.])[-+]?\d*\.?\d+(?:e[+-]?\d+)?%?x? ?(?:\+-|\+/-|±) ?\d*\.?\d+"
    r"|(?<!\w)\|?z\|? ?(?:=|>=|<=)? ?[-+]?\d+\.\d+"
    r"|(?<![\w.])\d+(?:\.\d+)?x\b|\bx\d+\.\d+\b|(?<![\w.])\d+\.\d+ ?%"
    r"|(?<![\w.])\d+(?:\.\d+)? times\b|(?<![\w.=])(?<!= )0\.\d{2,}\b"
    r"|\b\d+ (?:reproduced|not reproduced|inconclusive)\b"
    r"|\b\d+ / \d+ / \d+\b"
    rf"|{CPU_NAME}"
)

#: The published builds whose numbers prose may name (folders under docs/).
BUILDS = ("default", "paper")


def _rate(value: float) -> str:
    """A rate as prose writes it: two significant digits, 1.5e9."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _cpu(build: dict) -> str:
    machine = build.get("machine") or {}
    name = re.sub(r"\((R|TM)\)", "", machine.get("cpu", "an unnamed CPU")).replace(" Processor", "").strip()
    name = re.sub(r"\s+", " ", name)
    isa = machine.get("vector_isa")
    return f"{build.get('cores', '?')}-core {name}" + (f" ({isa})" if isa else "")


def build_values(name: str, build: dict) -> dict[str, str]:
    """The named values of one published build's ``build.json``."""
    verdicts = build.get("verdicts", {})
    triple = " / ".join(str(verdicts.get(v, 0)) for v in ("reproduced", "not reproduced", "inconclusive"))
    values = {
        "wall_minutes": f"{build['wall_seconds'] / 60:.0f}",
        "wall_seconds": f"{build['wall_seconds']:.0f}",
        "compute_seconds": f"{build['compute_seconds']:.0f}",
        "cpu": _cpu(build),
        "claims": str(build.get("claims", 0)),
        "paired": triple,
        "reproduced": str(verdicts.get("reproduced", 0)),
        "not_reproduced": str(verdicts.get("not reproduced", 0)),
        "inconclusive": str(verdicts.get("inconclusive", 0)),
    }
    for key, column in (("independent", "verdicts_independent_se"), ("holm", "verdicts_holm")):
        counts = build.get(column, {})
        values[key] = " / ".join(str(counts.get(v, 0)) for v in ("reproduced", "not reproduced", "inconclusive"))
    for origin, count in (build.get("origins") or {}).items():
        values[f"origin.{origin.replace(' ', '_')}"] = str(count)
    evidence = build.get("diagnosis_evidence") or {}
    for kind, count in evidence.items():
        values[f"evidence.{kind.replace('-', '_')}"] = str(count)
    values["evidence"] = " / ".join(str(evidence.get(k, 0)) for k in ("ablation", "diagnostics", "power", "re-reading"))
    values["causes"] = str(sum(count for kind, count in evidence.items() if kind != "re-reading"))
    values["causes_on_unseen_tables"] = str(build.get("causes_on_unseen_tables", 0))
    values["causes_confirmed"] = str((build.get("diagnosis_verdicts") or {}).get("confirmed", 0))
    values["moved_by_holm"] = str(len(build.get("moved_by_holm") or []))
    values["error_model_dependent"] = str(len(build.get("error_model_dependent") or []))
    return {f"{name}.{key}": value for key, value in values.items()}


def published_values(root: Path) -> dict[str, str]:
    """Every named value prose may hold, from the published files under ``<root>/docs``:
    each build's ``build.json`` (``build_values``), the claims reproduced only with paired
    errors, the Fig. 1 oracle against Theorem 1 at the horizon, and each
    experiment's build (``build_values`` under ``experiments.<name>``; the whole minutes
    the longest stays under, ``experiments.max_wall_minutes``; the machines that built them,
    ``experiments.cpus``)."""
    docs = Path(root) / "docs"
    values: dict[str, str] = {}
    for name in BUILDS:
        path = docs / name / "build.json"
        if path.is_file():
            values |= build_values(name, json.loads(path.read_text()))
        claims = docs / name / "claims.csv"
        if claims.is_file():
            values |= claims_values(name, pd.read_csv(claims))
        for figure in ("fig1_r5", "fig1_r20"):
            table = docs / name / "tables" / f"{figure}.csv"
            if table.is_file():
                values |= theorem1_values(f"{name}.{figure}", pd.read_csv(table))
    walls, machines = [], set()
    for path in sorted((docs / "experiments").glob("*/build.json")):
        build = json.loads(path.read_text())
        values |= build_values(f"experiments.{path.parent.name}", build)
        walls.append(build["wall_seconds"])
        machines.add(values[f"experiments.{path.parent.name}.cpu"])
    if walls:
        values["experiments.count"] = str(len(walls))
        values["experiments.max_wall_minutes"] = str(math.floor(max(walls) / 60) + 1)  # "under N minutes"
        values["experiments.cpus"] = " and ".join(sorted(machines))
    return values


def claims_values(name: str, claims: pd.DataFrame) -> dict[str, str]:
    """Of a build's claims.csv: the claims reproduced only with paired errors (their
    count and ids, ``<name>.paired_only``), and each row of the verdict table
    (``<name>.table.<row>``: ``verdict_cells``)."""
    only = claims[(claims["verdict"] == "reproduced") & (claims["verdict (independent se)"] != "reproduced")]
    values = {f"{name}.paired_only.count": str(len(only)), f"{name}.paired_only.ids": ", ".join(only["id"])}
    return values | {f"{name}.table.{row}": cell for row, cell in verdict_cells(claims).items()}


#: The verdict table's rows: (verdict, what its diagnosis says), by key.
TABLE_ROWS = {
    f"{verdict.replace(' ', '_')}.{kind.replace('-', '_')}.{outcome.replace(' ', '_')}": (verdict, kind, outcome)
    for verdict in ("not reproduced", "inconclusive")
    for kind in ("cause", "re-reading")
    for outcome in ("confirmed", "not confirmed", "inconclusive")
}


def verdict_cells(claims: pd.DataFrame) -> dict[str, str]:
    """"paired (independent)" counts per verdict and diagnosis outcome, causes and
    re-readings apart, and the claims without a diagnosis."""
    reading = claims["diagnosis evidence"].fillna("").str.startswith("re-reading")
    cells = {}

    def cell(suffix: str, verdict: str, kind: str | None = None, outcome: str | None = None) -> int:
        rows = claims["verdict" + suffix] == verdict
        if kind is not None:
            rows &= (reading if kind == "re-reading" else ~reading)
            rows &= claims["diagnosis verdict" + suffix].fillna("") == outcome
        return int(rows.sum())

    cells["reproduced"] = f"{cell('', 'reproduced')} ({cell(' (independent se)', 'reproduced')})"
    for key, (verdict, kind, outcome) in TABLE_ROWS.items():
        cells[key] = f"{cell('', verdict, kind, outcome)} ({cell(' (independent se)', verdict, kind, outcome)})"
    diagnosed = claims["diagnosis verdict"].fillna("").isin(["confirmed", "not confirmed", "inconclusive"])
    independent = claims["diagnosis verdict (independent se)"].fillna("").isin(
        ["confirmed", "not confirmed", "inconclusive"])
    missing = ((claims["verdict"] != "reproduced") & ~diagnosed).sum(), \
        ((claims["verdict (independent se)"] != "reproduced") & ~independent).sum()
    cells["undiagnosed"] = f"{missing[0]} ({missing[1]})"
    return cells


def theorem1_values(prefix: str, table: pd.DataFrame) -> dict[str, str]:
    """The oracle's MSE over Theorem 1's asymptote at the figure's horizon, R - 1 in
    percent per eps (``<prefix>.theorem1.eps<eps>``), and the largest 2 se / R
    (``<prefix>.theorem1.two_se``)."""
    last = table[table["t"] == table["t"].max()].set_index("curve")
    values, errors = {}, []
    for curve in last.index:
        if not curve.startswith("theorem1 eps="):
            continue
        eps = curve.split("=", 1)[1]
        oracle = last.loc[f"oracle eps={eps}"]
        ratio = oracle["mse"] / last.loc[curve, "mse"]
        values[f"{prefix}.theorem1.eps{eps}"] = f"{100 * (ratio - 1):+.1f} %"
        errors.append(2 * oracle["se"] / oracle["mse"])
    if errors:
        values[f"{prefix}.theorem1.two_se"] = f"{100 * max(errors):.1f} %"
        values[f"{prefix}.runs"] = str(int(last["runs"].max()))
    return values


@functools.lru_cache(maxsize=64)
def _published_table(path: Path) -> pd.DataFrame:
    return pd.read_csv(path)


#: A query's filter: ``key=value``, ``key!=value``, ``key^=prefix``, ``key>=x``, ``key<=x``
#: (a key may hold dots: ``privacy_mixes.0.shares.0=0.3``).
_FILTER = re.compile(r"^(?P<key>[\w.]+)(?P<op>\^=|!=|>=|<=|=)(?P<value>.*)$", re.S)


def _matching_rows(table: pd.DataFrame, filters: list[tuple[str, str, str]], spec: str) -> pd.Series:
    rows = pd.Series(True, index=table.index)
    for name, op, wanted in filters:
        if name not in table.columns:
            raise KeyError(f"query {spec!r}: no column {name!r} (columns: {', '.join(table.columns)})")
        column = table[name]
        if op == "^=":
            rows &= column.astype(str).str.startswith(wanted)
        elif op in (">=", "<="):
            rows &= column >= float(wanted) if op == ">=" else column <= float(wanted)
        else:
            equal = column == float(wanted) if pd.api.types.is_numeric_dtype(column) else column.astype(str) == wanted
            rows &= ~equal if op == "!=" else equal
    return rows


def with_error(value: float, error: float) -> str:
    """``value +- error`` as a measurement is written: the error to one significant digit
    (two when it starts with 1), the value to the same decimal place; an exact value
    (error 0) keeps three significant digits.  A missing or negative error is refused."""
    if not (math.isfinite(error) and error >= 0):
        raise ValueError(f"an error of {error!r} is no standard error")
    if error == 0:
        return f"{value:.3g} +- 0"
    mantissa, exponent = f"{error:.1e}".split("e")  # the rounded error's leading digit decides
    place = int(exponent) - (1 if mantissa.startswith("1") else 0)
    decimals = max(0, -place)
    return f"{round(value, -place) + 0.0:.{decimals}f} +- {round(error, -place):.{decimals}f}"


#: A query's reading: ``[min:|max:|argmin:|argmax:|above:|mean:|mean@weight:][k*]column``
#: (argmin, argmax: the t where the minimum or maximum is; above: the share of rows whose
#: value less its errors exceeds 1, with a divisor: significantly above it; mean@weight: the
#: mean weighted by the column ``weight``), then ``+-[k*]error`` (the value with k times its
#: error column) or ``~<regex>`` (the regex's first group in a text column, whose name may
#: hold spaces: ``measured (independent se)~<regex>``), then ``/key=value[/key=value...]``
#: (divided by the rows that differ from the selected ones only in those keys, t by t).
_READING = re.compile(
    r"(?:(?P<aggregate>min|max|argmin|argmax|above|mean)(?:@(?P<weight>\w+))?:)?(?:(?P<factor>[\d.]+)\*)?"
    r"(?P<column>[^~]+?(?=~)|\w+)"
    r"(?:\+-(?:(?P<k>[\d.]+)\*)?(?P<error>\w+)|~(?P<pattern>.+))?(?:/(?P<divisor>[\w.]+=.+))?$", re.S)


def _by_t(table: pd.DataFrame, rows: pd.Series) -> pd.DataFrame:
    """The selected rows indexed by t (a divisor's rows are matched to them t by t)."""
    picked = table[rows]
    return picked.set_index("t") if "t" in picked.columns else picked.reset_index(drop=True)


def query(docs: Path, spec: str) -> str:
    """Published cells as prose shows them.  ``spec`` is ``<file> <filter>... <reading>
    [<format>]``: ``<file>`` under ``docs`` (a build's table or claims file); filters
    ``key=value``, ``key!=value``, ``key^=prefix``, ``key>=x``, ``key<=x`` that select one
    row, or several for an aggregate (``min:``, ``max:``, ``argmin:``, ``argmax:``,
    ``above:``, ``mean:``, ``mean@<weight column>:``); the
    reading (``_READING``): a column (``mse``, ``100*value``), ``mse+-2*se`` for the value
    with twice its error (``with_error``), ``measured~<regex>`` for the regex's first group,
    ``count`` for the number of rows selected, and a ``/key=value`` that divides by the rows
    differing only in that key, t by t (an MSE over Local's; several keys:
    ``/curve=Local/group=all``); and a %-format (``%.3g``
    unless given, literal text allowed, ``%.2fx``, ``%.1f%%``; ``%rate`` for a rate as prose
    writes it, 6.5e6; strings as they are)."""
    path, *tokens = shlex.split(spec)
    formatted = bool(tokens) and tokens[-1].startswith("%")
    fmt = tokens.pop() if formatted else "%.3g"
    filters = [match.groups() for token in tokens if (match := _FILTER.match(token))]
    readings = [token for token in tokens if not _FILTER.match(token)]
    if len(readings) != 1:
        raise KeyError(f"query {spec!r}: name one reading, after the filters (got {readings})")
    table = _published_table(Path(docs) / path)
    rows = _matching_rows(table, filters, spec)
    if readings[0] == "count":
        return str(int(rows.sum()))
    parts = _READING.match(readings[0])
    divisor = [tuple(pair.split("=", 1)) for pair in re.split(r"/(?=[\w.]+=)", parts["divisor"])] \
        if parts and parts["divisor"] else []
    names = [parts["column"], parts["error"], parts["weight"]] + [key for key, _ in divisor] \
        if parts else [readings[0]]
    missing = [name for name in names if name and name not in table.columns]
    if not parts or missing:
        raise KeyError(f"query {spec!r}: no column {(missing or [readings[0]])[0]!r} "
                       f"(columns: {', '.join(table.columns)})")
    if parts["weight"] and parts["aggregate"] != "mean":
        raise KeyError(f"query {spec!r}: only mean@<column>: is weighted")
    if parts["aggregate"] == "above" and not parts["error"]:
        raise KeyError(f"query {spec!r}: above: reads a value with its error (above:mse+-2*se/curve=Local)")
    if parts["aggregate"] not in (None, "above") and parts["error"]:
        raise KeyError(f"query {spec!r}: {parts['aggregate']}: reads a value without its error")
    if parts["aggregate"] in ("argmin", "argmax") and "t" not in table.columns:
        raise KeyError(f"query {spec!r}: {parts['aggregate']}: names a t, and {path} has no t column")
    if parts["error"] and formatted and parts["aggregate"] is None:
        raise KeyError(f"query {spec!r}: a value with its error is rounded at its error, without a format")
    if parts["aggregate"] is None and rows.sum() != 1:
        raise KeyError(f"query {spec!r}: {int(rows.sum())} rows match {filters}, not one")
    if not rows.any():
        raise KeyError(f"query {spec!r}: no row matches {filters}")
    picked = _by_t(table, rows)
    if parts["pattern"]:
        found = re.search(parts["pattern"], str(picked[parts["column"]].iloc[0]))
        if not found:
            raise KeyError(f"query {spec!r}: {parts['pattern']!r} is not in {picked[parts['column']].iloc[0]!r}")
        return found.group(1)
    values = picked[parts["column"]]
    if isinstance(values.iloc[0], str):
        return values.iloc[0]
    scale = 1.0
    if divisor:
        keys = {key for key, _ in divisor}
        others = [f for f in filters if f[0] not in keys] + [(key, "=", wanted) for key, wanted in divisor]
        scale = _by_t(table, _matching_rows(table, others, spec))[parts["column"]]
        if "t" not in table.columns and len(scale) != 1:
            raise KeyError(f"query {spec!r}: {path} has no t column: divide by one row only ({len(scale)} match)")
        if "t" not in table.columns:
            scale = pd.Series(scale.iloc[0], index=values.index)
        if not (scale.index.is_unique and values.index.isin(scale.index).all()):
            raise KeyError(f"query {spec!r}: no single row to divide by at every t ({len(scale)} rows)")
        scale = scale.reindex(values.index)  # several curves may share one divisor row per t
    factor = float(parts["factor"] or 1)
    values = factor * values / scale
    if parts["error"]:
        errors = factor * float(parts["k"] or 1) * picked[parts["error"]] / scale
        if parts["aggregate"] == "above":
            return fmt % float(((values - errors) > 1.0).mean())
        return with_error(values.iloc[0], errors.iloc[0])
    aggregate = {"min": "min", "max": "max", "argmin": "idxmin", "argmax": "idxmax"}.get(parts["aggregate"])
    if parts["aggregate"] == "mean":
        weights = picked[parts["weight"]] if parts["weight"] else pd.Series(1.0, index=picked.index)
        value = float((values.to_numpy(float) * weights.to_numpy(float)).sum() / weights.sum())
    else:
        value = getattr(values, aggregate)() if aggregate else values.iloc[0]
    return _rate(value) if fmt == "%rate" else fmt % value


#: Code in Markdown (fenced blocks, inline spans): markers there are examples, left alone.
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)


def _outside_code(text: str, rewrite) -> str:
    """``text`` with ``rewrite`` applied to every part outside code."""
    return "".join(part if index % 2 else rewrite(part) for index, part in enumerate(_CODE.split(text)))


def refresh(text: str, values: dict[str, str], where: str = "", docs: Path | None = None) -> str:
    """``text`` with every marker's content set to its value, and every query's to its
    published cell (read under ``docs``); a marker naming no value, or a query that selects
    no single row, is an error (naming ``where`` and the name)."""

    def value(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"{where}: no published value {name!r} (known: {', '.join(sorted(values))})")
        return f"<!--n:{name}-->{values[name]}<!--/n-->"

    def cell(match: re.Match) -> str:
        if docs is None:
            raise KeyError(f"{where}: a query needs the published files' folder")
        try:
            return f"<!--q:{match.group(1)}-->{query(docs, match.group(1))}<!--/q-->"
        except (KeyError, ValueError, FileNotFoundError) as error:
            raise KeyError(f"{where}: {error}") from error

    return _outside_code(text, lambda part: QUERY.sub(cell, MARKER.sub(value, part)))


def record_problems(text: str, root: Path) -> list[str]:
    """What each measurement record lacks: the script that measured it (a path that exists
    under ``root``), the CPU and its vector ISA; and records left open (code is skipped)."""
    text = _CODE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    problems = []
    for match in RECORD.finditer(text):
        header = match.group(1)
        line = text.count("\n", 0, match.start()) + 1
        scripts = re.findall(r"[\w./-]+\.py", header)
        if not scripts or not all((Path(root) / script).is_file() for script in scripts):
            problems.append(f"line {line}: a record names the script that measured it (got {header.strip()!r})")
        if not re.search(CPU_NAME, header) or not VECTOR_ISA.search(header):
            problems.append(f"line {line}: a record names its CPU and vector ISA (got {header.strip()!r})")
    if text.count("<!--record:") != text.count("<!--/record-->"):
        problems.append("a record is not closed with <!--/record-->")
    return problems


def prose_files(root: Path, generated: set[str]) -> list[Path]:
    """The hand-written Markdown files whose numbers are checked (``unmarked_numbers``,
    ``record_problems``) and refreshed (``stale_prose``): README.md, docs/*.md but the
    generated pages (``generated``: their paths under docs/), and the published
    experiments' overview, docs/experiments/README.md, where it exists."""
    root = Path(root)
    docs = root / "docs"
    overview = docs / "experiments" / "README.md"
    return [root / "README.md"] + [path for path in sorted(docs.glob("*.md")) if path.name not in generated] \
        + ([overview] if overview.is_file() and "experiments/README.md" not in generated else [])


def stale_prose(root: Path, files: list[Path], values: dict[str, str] | None = None) -> dict[Path, str]:
    """The files whose markers do not hold their values, with their refreshed text."""
    values = published_values(root) if values is None else values
    stale = {}
    for path in files:
        text = path.read_text()
        fresh = refresh(text, values, str(path), Path(root) / "docs")
        if fresh != text:
            stale[path] = fresh
    return stale


def unmarked_numbers(text: str) -> list[tuple[int, str]]:
    """(line, number) of each build-kind number (``BUILD_NUMBER``) outside markers,
    queries, records, code blocks, inline code and links' targets, on lines without a
    ``<!--typed: ...-->`` note."""
    for pattern in (_CODE, RECORD, MARKER, QUERY):  # code first: a marker mentioned in code is no marker
        text = pattern.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if "<!--typed:" in line:
            continue
        line = re.sub(r"\]\([^)]*\)", "]", line)
        found += [(number, match.group(0)) for match in BUILD_NUMBER.finditer(line)]
    return found
