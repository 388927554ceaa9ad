"""The compiled random r-regular generator is networkx's pairing algorithm, draw for draw."""

import networkx as nx
import numpy as np
import pytest

from colme.graphs import random_regular_edges

#: (M, r): tiny and dense graphs (many rejected pairings and restarts, r = M - 1 included),
#: the papers' sizes, and an odd M.
SIZES = [(4, 3), (5, 2), (6, 5), (10, 3), (12, 11), (20, 4), (30, 29), (50, 7), (200, 5), (200, 20), (201, 10)]


def networkx_edges(degree, n_agents, rng):
    graph = nx.random_regular_graph(degree, n_agents, seed=rng)
    edges = np.sort(np.array(graph.edges(), dtype=np.int32), axis=1)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))]


@pytest.mark.parametrize("n_agents, degree", SIZES)
def test_same_graph_and_same_generator_state_as_networkx(n_agents, degree):
    for seed in range(8):
        ours, theirs = (np.random.default_rng([seed, n_agents, degree]) for _ in range(2))
        for rng in (ours, theirs):  # a stream already in use (the classes are drawn first)
            rng.random(3)
        edges = random_regular_edges(degree, n_agents, ours)
        np.testing.assert_array_equal(edges, networkx_edges(degree, n_agents, theirs))
        assert ours.integers(0, 2**63) == theirs.integers(0, 2**63)  # the stream goes on alike


def test_simple_regular_graph():
    edges = random_regular_edges(10, 2000, np.random.default_rng(7))
    assert edges.shape == (10_000, 2) and (edges[:, 0] < edges[:, 1]).all()
    assert len(np.unique(edges, axis=0)) == len(edges)  # no multi-edge
    assert (np.bincount(edges.ravel(), minlength=2000) == 10).all()


@pytest.mark.parametrize("n_agents, degree", [(5, 3), (5, 5), (5, 0), (2**16, 2**15)])
def test_impossible_degrees_are_refused(n_agents, degree):
    with pytest.raises(ValueError, match="degree="):
        random_regular_edges(degree, n_agents, np.random.default_rng(0))
