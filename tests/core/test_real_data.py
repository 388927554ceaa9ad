"""The public data sets of experiments/real_data.yaml, as committed: they read as worlds,
and what docs/real_data.md and experiments/real_data/README.md say of them holds."""

import re
from pathlib import Path

import numpy as np

from colme.datafiles import DataRange, read_streams
from colme.graphs import edge_list_problem, read_edge_list

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "experiments" / "real_data"


def test_lecture_evaluations_read_as_the_pages_describe_them():
    streams = read_streams(FOLDER / "insteval.csv.gz", data_range=DataRange(1.0, 5.0))
    assert (streams.n_agents, streams.n_samples, len(streams.class_names)) == (1128, 73421, 14)
    assert streams.clipped == 0 and set(np.unique(streams.values)) == {1.0, 2.0, 3.0, 4.0, 5.0}
    assert (int(streams.count.min()), int(streams.count.max())) == (10, 792)
    # "their mean ratings differ far more within a department than the departments' averages do"
    departments = np.array([streams.means[streams.classes == c].mean() for c in range(14)])
    within = np.sqrt(np.mean([streams.means[streams.classes == c].var() for c in range(14)]))
    assert within > 4 * departments.std()
    page = (ROOT / "docs" / "real_data.md").read_text()
    for number in ("73421", "1128", "14 departments", "10 to 792"):
        assert number in page, number


def test_the_power_grid_is_the_published_network():
    rows, declared = read_edge_list(FOLDER / "us_power_grid.txt")
    assert (declared, len(rows)) == (4941, 6594)
    assert edge_list_problem(rows, declared, 4941) is None
    readme = (FOLDER / "README.md").read_text()
    assert re.search(r"4941 nodes, 6594 edges", readme)


def test_on_lecture_evaluations_no_algorithm_is_below_local_at_the_horizon():
    """What docs/experiments/README.md says of the published build: at its last t every
    simulated curve's MSE is above Local's by more than two standard errors of both."""
    import pandas as pd

    table = pd.read_csv(ROOT / "docs" / "experiments" / "real_data" / "tables" / "insteval.csv")
    last = table[table["t"] == table["t"].max()]
    local = last[last["curve"] == "Local"].iloc[0]
    simulated = last[last["kind"] == "simulated"]
    assert len(simulated) == 12 and int(last["t"].iloc[0]) == 3000
    margin = 2 * np.sqrt(simulated["se"] ** 2 + local["se"] ** 2)
    assert (simulated["mse"] - local["mse"] > margin).all(), simulated[["curve", "mse", "se"]]
    assert "no algorithm is below Local at t = 3000" in (ROOT / "docs" / "experiments" / "README.md").read_text()
