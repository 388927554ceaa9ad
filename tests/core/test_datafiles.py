"""Worlds from files (colme.datafiles): reading, checking, bounding and replaying agents'
data streams."""

import math

import numpy as np
import pytest
from scipy import stats
from workflow_helpers import write_file

from colme.datafiles import DataFileError, DataRange, match_edge_list, read_streams
from colme.replay import replay_index, replayed, shuffle_pass

LONG = """agent,t,value,class
b,1,2.0,1
a,2,5.0,0
a,1,-1.0,0
b,2,4.0,1
b,3,9.0,1
"""


def write(tmp_path, text, name="data.csv"):
    return write_file(tmp_path, text, name)


def test_ground_truth_and_clipping_by_hand(tmp_path):
    path = write(tmp_path, LONG)
    streams = read_streams(path)
    assert streams.names == ("a", "b")
    np.testing.assert_array_equal(streams.values, [-1.0, 5.0, 2.0, 4.0, 9.0])  # each agent's samples by t
    np.testing.assert_array_equal(streams.count, [2, 3])
    np.testing.assert_allclose(streams.means, [2.0, 5.0])
    np.testing.assert_array_equal(streams.classes, [0, 1])
    assert (streams.low, streams.high, streams.clipped) == (-1.0, 9.0, 0)  # default: the data's min and max
    clipped = read_streams(path, data_range=DataRange(0.0, 6.0, clip=True))
    np.testing.assert_array_equal(clipped.values, [0.0, 5.0, 2.0, 4.0, 6.0])
    assert clipped.clipped == 2 and clipped.half_width == 3.0
    np.testing.assert_allclose(clipped.means, [2.5, 4.0])  # the truth is the mean of what the agents see
    np.testing.assert_allclose(clipped.sigmas(), [2.5, math.sqrt(8.0 / 3.0)])
    derived = read_streams(path, data_range=DataRange(quantiles=(0.25, 0.75)))
    assert (derived.low, derived.high, derived.clipped) == (2.0, 5.0, 2)


def test_wide_layout_reads_the_same_streams(tmp_path):
    long = read_streams(write(tmp_path, LONG))
    wide = read_streams(write(tmp_path, "agent,class,x1,x2,x3\nb,1,2.0,4.0,9.0\na,0,-1.0,5.0,\n", "wide.csv"),
                        layout="wide")
    for field in ("values", "count", "start", "means", "classes"):
        np.testing.assert_array_equal(getattr(wide, field), getattr(long, field), err_msg=field)
    assert wide.names == long.names


def test_parquet_files_read_as_their_csv(tmp_path):
    """Parquet's typed columns (an integer t, a float value, NaN for a wide row's missing samples)
    read as the same streams as the CSV; a missing value is refused as in CSV."""
    import pandas as pd

    long = read_streams(write(tmp_path, LONG))
    table = pd.read_csv(tmp_path / "data.csv")
    table.to_parquet(tmp_path / "long.parquet")
    wide = pd.DataFrame({"agent": ["b", "a"], "class": [1, 0], "x1": [2.0, -1.0], "x2": [4.0, 5.0],
                         "x3": [9.0, np.nan]})
    wide.to_parquet(tmp_path / "wide.parquet")
    for streams in (read_streams(tmp_path / "long.parquet"), read_streams(tmp_path / "wide.parquet", layout="wide")):
        for field in ("values", "count", "start", "means", "classes"):
            np.testing.assert_array_equal(getattr(streams, field), getattr(long, field), err_msg=field)
        assert streams.names == long.names
    table.loc[1, "value"] = np.nan
    table.to_parquet(tmp_path / "gap.parquet")
    with pytest.raises(DataFileError, match=r"gap\.parquet, column 'value': row 2 \(1 in all\) empty"):
        read_streams(tmp_path / "gap.parquet")


def test_true_means_from_a_column_and_numeric_agent_order(tmp_path):
    path = write(tmp_path, "agent,t,value,mean\n10,1,1.0,0.5\n9,1,3.0,2.5\n10,2,2.0,0.5\n")
    streams = read_streams(path, true_mean="column")
    assert streams.names == ("9", "10")  # numeric names in numeric order
    np.testing.assert_array_equal(streams.means, [2.5, 0.5])
    assert streams.classes is None


@pytest.mark.parametrize(("text", "message"), [
    ("", r"the file is empty"),
    ("agent,t,value\n", r"a header but no rows"),
    ("agent,value\na,1\n", r"missing column\(s\) \['t'\]"),
    ("agent,t,value,colour\na,1,1.0,red\n", r"unexpected column\(s\) \['colour'\]"),
    ("agent,t,value\na,1,1.0\na,2,x\n", r"column 'value': row 2 \(1 in all\) not a number \(e\.g\. 'x'\)"),
    ("agent,t,value\na,1,nan\n", r"column 'value': row 1 \(1 in all\) not a number"),
    ("agent,t,value\na,1,inf\n", r"column 'value': row 1 \(1 in all\) infinite"),
    ("agent,t,value\na,1,1.0\na,1,2.0\n", r"duplicate \(agent, t\) = \(a, 1\) at rows 1, 2"),
    ("agent,t,value\na,1.5,1.0\n", r"column 't': row 1 \(1 in all\) not an integer"),
    ("agent,t,value,class\na,1,1.0,0\na,2,2.0,1\n", r"column 'class': agent 'a' has 2 different values"),
    ("agent,t,value,class\na,1,1.0,0\nb,1,2.0,2\n", r"column 'class': classes \[1\] have no agent"),
    ("agent,t,value\na,1,1.0\n,2,1.0\n", r"column 'agent': row 2 \(1 in all\) empty"),
])
def test_bad_long_files_are_refused_naming_file_column_and_rows(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(DataFileError, match=message) as caught:
        read_streams(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(("text", "message"), [
    ("agent,x1,x2\na,1.0,2.0\nb,,\n", r"agent 'b' has no data"),
    ("agent,x1,x2\na,1.0,2.0\na,1.0,\n", r"agent 'a' has several rows"),
    ("agent,x1,x2,x3\na,1.0,,2.0\n", r"row 1 \(1 in all\) have an empty cell before a value"),
    ("agent\na\n", r"needs sample columns"),
])
def test_bad_wide_files_are_refused(tmp_path, text, message):
    with pytest.raises(DataFileError, match=message):
        read_streams(write(tmp_path, text), layout="wide")


def test_values_outside_a_declared_range_are_refused_unless_clipped(tmp_path):
    path = write(tmp_path, LONG)
    with pytest.raises(DataFileError, match=r"column 'value': 2 value\(s\) outside the declared range \[0\.0, 6\.0\]"):
        read_streams(path, data_range=DataRange(0.0, 6.0))
    with pytest.raises(DataFileError, match="not a file"):
        read_streams(tmp_path / "missing.csv")
    with pytest.raises(DataFileError, match=r"the range derived from the quantiles \[0\.0, 1\.0\] is \[1\.0, 1\.0\]"):
        read_streams(write(tmp_path, "agent,t,value\na,1,1.0\nb,1,1.0\n"))


def test_edge_list_nodes_are_matched_to_agents_by_name(tmp_path):
    streams = read_streams(write(tmp_path, LONG))
    np.testing.assert_array_equal(match_edge_list(streams, [("b", "a")], "g.txt"), [[1, 0]])
    with pytest.raises(DataFileError, match=r"edge list g\.txt: node\(s\) \['c', 'd'\] \(2 in all\) are no agent"):
        match_edge_list(streams, [("a", "c"), ("d", "b")], "g.txt")


def pass_orders(n, policy, key, agent, passes):
    """The positions an agent's steps read over ``passes`` passes of ``n`` steps."""
    order = np.full(n + 3, -1, dtype=np.int64)  # the agent's slots start at 3: others' lie before
    return [replay_index(step, n, policy, np.uint64(key), agent, 0.0, order, 3) for step in range(passes * n)]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 17, 100, 1000])
def test_a_permutation_uses_each_sample_once_per_pass(n):
    for key in (0, 1, 2**63 + 12345):
        for agent in (0, 5):
            chosen = pass_orders(n, 1, key, agent, 3)
            for first in (0, n, 2 * n):  # passes 0, 1, 2
                assert sorted(chosen[first:first + n]) == list(range(n))


def test_a_pass_order_is_a_function_of_its_key_only():
    clean, dirty = np.zeros(9, dtype=np.int64), np.arange(9, dtype=np.int64)[::-1].copy()
    shuffle_pass(clean, 2, 7, np.uint64(11))
    shuffle_pass(dirty, 2, 7, np.uint64(11))
    np.testing.assert_array_equal(clean[2:], dirty[2:])
    np.testing.assert_array_equal(dirty[:2], [8, 7])  # slots of other agents untouched


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_order_is_equally_likely(n):
    """The n! orders of a pass, over 200 n! pass keys, pass a chi-square test of
    uniformity at level 1e-3 (a keyed Feistel network, the earlier design, failed it at
    p < 1e-9: its permutations are even ones, cycle-walked)."""
    keys = 200 * math.factorial(n)
    counts = {}
    order = np.zeros(n, dtype=np.int64)
    for key in range(keys):
        shuffle_pass(order, 0, n, np.uint64(key * 0x9E3779B97F4A7C15 % 2**64))
        counts[tuple(order)] = counts.get(tuple(order), 0) + 1
    assert len(counts) == math.factorial(n)
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_each_sample_is_equally_likely_at_each_position():
    """Sample i at position j: all 37^2 cells pass a chi-square test at level 1e-3 over
    the passes of 3 agents (the agents' and passes' keys, as a run draws them)."""
    n, passes = 37, 2000
    cells = np.zeros((n, n))
    for agent in range(3):
        chosen = np.array(pass_orders(n, 1, 12345, agent, passes)).reshape(passes, n)
        np.add.at(cells, (chosen, np.broadcast_to(np.arange(n), chosen.shape)), 1)
    assert stats.chisquare(cells.ravel()).pvalue > 1e-3


def test_passes_and_agents_draw_different_orders():
    orders = {tuple(pass_orders(50, 1, 7, agent, 2)[first:first + 50]) for agent in range(3) for first in (0, 50)}
    assert len(orders) == 6
    assert pass_orders(5, 0, 7, 0, 3)[:12] == [0, 1, 2, 3, 4] * 2 + [0, 1]


def test_bootstrap_draws_are_uniform_so_their_mean_is_the_files():
    """Bootstrap: index floor(u n) of the step's uniform; over many steps the replayed mean
    is the file's mean within 4 standard errors of a draw with replacement."""
    rng = np.random.default_rng(3)
    values = rng.exponential(2.0, size=37)  # skewed, as real data are
    steps = 40_000
    uniforms = rng.random(steps)
    none = np.zeros(0, dtype=np.int64)
    chosen = values[[replay_index(s, len(values), 2, np.uint64(0), 0, u, none, 0) for s, u in enumerate(uniforms)]]
    standard_error = values.std() / math.sqrt(steps)
    assert abs(chosen.mean() - values.mean()) < 4 * standard_error
    assert replay_index(0, 37, 2, np.uint64(0), 0, 0.9999999999999999, none, 0) == 36


def test_replayed_reference_follows_the_policies(tmp_path):
    streams = read_streams(write(tmp_path, LONG))
    in_order = replayed(streams, 7, "in_order", 5)
    np.testing.assert_array_equal(in_order[:, 0], [-1.0, 5.0] * 3 + [-1.0])
    np.testing.assert_array_equal(in_order[:, 1], [2.0, 4.0, 9.0, 2.0, 4.0, 9.0, 2.0])
    shuffled = replayed(streams, 6, "permutation", 5)
    assert sorted(shuffled[:3, 1]) == [2.0, 4.0, 9.0] and sorted(shuffled[3:, 1]) == [2.0, 4.0, 9.0]
