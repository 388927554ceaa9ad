"""Two builds of the same configuration compared, table by table and claim by claim: whether
the numbers depend on the machine that made them (its CPU, vector ISA, libm, BLAS).

Each build is a folder holding ``tables/*.csv`` and ``claims.csv``: a build's ``results/``
or a published one (``docs/paper``, whose large tables are gzipped: ``X.csv.gz`` is compared
with ``X.csv``); an experiment's build has no claims, and then neither may have a
``claims.csv``.  For every table both builds have: byte-identical (its CSV text), or
the largest relative difference over its floating-point columns (the column named) and
whether any other column differs; then every claim whose verdict (any error model) or
measured value differs.  Timing supplements (seconds per step) differ by nature; they are
listed like the rest.  Usage:

    python benchmarks/compare_builds.py results docs/paper
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import numpy as np
import pandas as pd

VERDICTS = ("verdict", "verdict (independent se)", "verdict (Holm)")


def tables(build: Path) -> dict[str, Path]:
    """The CSV tables of ``build`` by name (``X.csv`` for ``tables/X.csv`` or ``tables/X.csv.gz``)."""
    folder = build / "tables"
    if not folder.is_dir():
        raise SystemExit(f"{folder}: no tables folder (a build is a results/ folder or a published one)")
    return {path.name.removesuffix(".gz"): path for pattern in ("*.csv", "*.csv.gz") for path in folder.glob(pattern)}


def csv_text(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def table_difference(first: Path, second: Path) -> dict:
    """How the table ``second`` differs from ``first``: ``identical`` (its CSV text byte for
    byte), else the largest relative difference of a float column (``rel``, ``column``) and
    the other columns that differ (``other``: a shape or row-order change is reported there)."""
    if csv_text(first) == csv_text(second):
        return {"identical": True}
    a, b = pd.read_csv(first), pd.read_csv(second)
    if a.shape != b.shape or list(a.columns) != list(b.columns):
        return {"identical": False, "rel": np.nan, "column": "", "other": [f"shape {a.shape} vs {b.shape}"]}
    floats = [c for c in a.columns if a[c].dtype.kind == "f" and b[c].dtype.kind == "f"]
    x, y = a[floats].to_numpy(), b[floats].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(x - y) / np.maximum(np.abs(x), np.abs(y))
    rel[(x == y) | (np.isnan(x) & np.isnan(y))] = 0.0
    rel[np.isnan(rel)] = np.inf  # NaN on one side only
    worst = int(np.argmax(rel.max(axis=0))) if floats else 0
    return {"identical": False, "rel": float(rel.max()) if floats else 0.0, "column": floats[worst] if floats else "",
            "other": [c for c in a.columns if c not in floats and not a[c].equals(b[c])]}


def claim_differences(first: Path, second: Path) -> list[str]:
    """One line per claim whose verdict or measured value differs between the two claims.csv."""
    a = pd.read_csv(first).set_index("id")
    b = pd.read_csv(second).set_index("id")
    lines = [f"{claim}: only in {first}" for claim in a.index.difference(b.index)]
    lines += [f"{claim}: only in {second}" for claim in b.index.difference(a.index)]
    for claim in a.index.intersection(b.index):
        for column in (*VERDICTS, "measured", "diagnosis verdict", "diagnosis"):
            if column in a and column in b and str(a.at[claim, column]) != str(b.at[claim, column]):
                kind = "VERDICT" if column in VERDICTS or column == "diagnosis verdict" else "text"
                lines.append(f"{claim}: {column} differs ({kind})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="a build folder (tables/, and claims.csv unless it has no claims)")
    parser.add_argument("second", type=Path)
    args = parser.parse_args()
    first, second = tables(args.first), tables(args.second)
    names = sorted(first.keys() & second.keys())
    if not names:
        raise SystemExit(f"{args.first} and {args.second}: no table in both")
    differing = {}
    for name in names:
        found = table_difference(first[name], second[name])
        if not found["identical"]:
            differing[name] = found
    print(f"tables in both: {len(names)}; byte-identical: {len(names) - len(differing)}; differing: {len(differing)}")
    for build, own, other in ((args.first, first, second), (args.second, second, first)):
        alone = sorted(own.keys() - other.keys())
        if alone:
            print(f"  only in {build}: {len(alone)} ({', '.join(alone[:6])}{', ...' if len(alone) > 6 else ''})")
    for name, found in sorted(differing.items(), key=lambda item: -item[1]["rel"]):
        other = f"; other columns differing: {found['other']}" if found["other"] else ""
        print(f"  {name}: largest relative difference {found['rel']:.2e} ({found['column']}){other}")
    claims = [args.first / "claims.csv", args.second / "claims.csv"]
    present = [path.exists() for path in claims]
    if not any(present):
        print("claims: none in either build (an experiment's, or a build of some tables only)")
        return
    if not all(present):
        raise SystemExit(f"{claims[present.index(False)]}: no claims file, where the other build has one")
    lines = claim_differences(*claims)
    verdicts = sum("(VERDICT)" in line for line in lines)
    print(f"claims differing: {len(lines)} field(s), of which verdicts: {verdicts}")
    for line in lines:
        print("  " + line)


if __name__ == "__main__":
    main()
