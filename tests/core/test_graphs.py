"""The compiled random r-regular generator is networkx's pairing algorithm, draw for draw."""

import re

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


# --- Graph families (issue 19) ---------------------------------------------------------------

import copy  # noqa: E402
import hashlib  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402

import yaml  # noqa: E402

from colme import graphs  # noqa: E402
from colme.config import ConfigError, resolve_figure  # noqa: E402
from colme.expansion import validate_config  # noqa: E402
from colme.integrity import digest  # noqa: E402
from colme.registry import ENGINES, stage_params  # noqa: E402
from colme.stages import makers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def rngs(seed, count):
    return [np.random.default_rng([seed, i]) for i in range(count)]


def assert_canonical(edges, n_agents):
    assert edges.dtype == np.int32 and edges.ndim == 2 and edges.shape[1] == 2
    assert (edges[:, 0] < edges[:, 1]).all() and edges.min(initial=0) >= 0 and edges.max(initial=0) < n_agents
    keys = edges[:, 0].astype(np.int64) * n_agents + edges[:, 1]
    assert (np.diff(keys) > 0).all()  # sorted, no duplicate


def degrees(edges, n_agents):
    return np.bincount(edges.ravel(), minlength=n_agents)


def test_default_figure_makers_and_instances_unchanged():
    """Regression anchor of 'unchanged': the digests below were computed at the base commit
    2a05126 (before graph families) from the shipped config; a default (random regular)
    figure must keep its instance and chunk makers and its instance arrays bit for bit."""
    config = validate_config(yaml.safe_load((ROOT / "config.yaml").read_text()))
    settings = resolve_figure(config, "fig1_r5")
    made = makers("fig1_r5", settings, 0, 100)
    assert digest(made["instances"]) == "16d0435ba06f6b70"
    assert digest(made["chunks"]) == "113d1b75936f3fd6"
    arrays = ENGINES["ccolme"].instances(stage_params(settings, "instances", 0, 3), "fig1_r5", 0, 3)
    content = hashlib.sha256()
    for key in sorted(arrays):
        content.update(key.encode())
        content.update(np.ascontiguousarray(arrays[key]).tobytes())
        content.update(str(arrays[key].dtype).encode())
    assert sorted(arrays) == ["classes", "component_sizes", "edges", "runs"]
    assert content.hexdigest()[:16] == "f4cb6e6d26e8af88"


def test_pair_indices_invert_the_upper_triangle():
    for n in (2, 3, 7, 30):
        u, v = np.triu_indices(n, k=1)
        pairs = graphs._pairs_from_indices(np.arange(n * (n - 1) // 2), n)
        np.testing.assert_array_equal(pairs, np.stack([u, v], axis=1))
    n = 10**6  # large: float rounding corrected (start of row u = u (2n - u - 1)/2)
    u = np.array([0, 1, 499_999, 999_997, 999_998, 123_456])
    v = np.array([1, 999_999, 500_000, 999_998, 999_999, 777_777])
    index = u * (2 * n - u - 1) // 2 + (v - u - 1)
    np.testing.assert_array_equal(graphs._pairs_from_indices(index, n), np.stack([u, v], axis=1))


@pytest.mark.parametrize("n_agents, p", [(200, 0.05), (60, 0.5), (7000, 2e-3)])
def test_erdos_renyi_edge_count_is_binomial(n_agents, p):
    """E ~ Binomial(M(M-1)/2, p): the mean of E over graphs within 4 of its standard errors
    (M = 7000: 2.4e7 pairs, the sampling path); each pair equally likely (degrees' mean)."""
    pairs = n_agents * (n_agents - 1) // 2
    count = 40 if n_agents > 1000 else 300
    sizes = []
    degree_sum = np.zeros(n_agents)
    for rng in rngs(1, count):
        edges = graphs.erdos_renyi_edges(n_agents, p, rng)
        assert_canonical(edges, n_agents)
        sizes.append(len(edges))
        degree_sum += degrees(edges, n_agents)
    se = math.sqrt(pairs * p * (1 - p) / count)
    assert abs(np.mean(sizes) - pairs * p) < 4 * se
    # every pair equally likely: the agents' summed degrees spread as Binomial((M-1) R, p)
    # (less the covariance R p (1 - p) of two agents sharing a pair); relative se sqrt(2/(M-1))
    ratio = degree_sum.var(ddof=1) / ((n_agents - 2) * count * p * (1 - p))
    assert abs(ratio - 1) < 4 * math.sqrt(2 / (n_agents - 1))
    assert graphs.erdos_renyi_edges(50, 0.0, np.random.default_rng(0)).shape == (0, 2)
    assert len(graphs.erdos_renyi_edges(50, 1.0, np.random.default_rng(0))) == 50 * 49 // 2


def test_exact_degree_sequences_of_the_fixed_families():
    ring = graphs.ring_lattice_edges(30, 6)
    assert_canonical(ring, 30)
    assert (degrees(ring, 30) == 6).all() and len(ring) == 90
    assert {(0, 1), (0, 3), (27, 0)} <= {(int(a), int(b)) for a, b in ring} | {(27, 0)}
    assert all(min((b - a) % 30, (a - b) % 30) <= 3 for a, b in ring)
    torus = graphs.torus_edges(4, 5)
    assert_canonical(torus, 20)
    assert (degrees(torus, 20) == 4).all() and len(torus) == 40
    theirs = nx.convert_node_labels_to_integers(nx.grid_2d_graph(4, 5, periodic=True), ordering="sorted")
    np.testing.assert_array_equal(torus, graphs.canonical_edges(np.array(theirs.edges())))
    complete = graphs.complete_edges(12)
    assert_canonical(complete, 12)
    assert (degrees(complete, 12) == 11).all() and len(complete) == 66
    assert graphs.torus_shape(200, None, None) == (10, 20) and graphs.torus_shape(36, None, None) == (6, 6)
    assert graphs.torus_shape(36, 4, None) == (4, 9) and graphs.torus_shape(36, 5, None) is None
    assert graphs.torus_shape(22, None, None) is None  # 2 x 11: no side >= 3 on both


def test_watts_strogatz_law():
    """p = 0 is the ring lattice; E = M k/2 always; the share of edges off the lattice is p
    up to coincidences of order k/M (within 4 se); the degree variance agrees with
    networkx's generator within the Monte Carlo error of both."""
    assert np.array_equal(graphs.watts_strogatz_edges(40, 4, 0.0, np.random.default_rng(0)),
                          graphs.ring_lattice_edges(40, 4))
    n_agents, k, p = 2000, 6, 0.2
    lattice = {tuple(e) for e in graphs.ring_lattice_edges(n_agents, k).tolist()}
    off = []
    for rng in rngs(2, 10):
        edges = graphs.watts_strogatz_edges(n_agents, k, p, rng)
        assert_canonical(edges, n_agents)
        assert len(edges) == n_agents * k // 2
        off.append(sum(tuple(e) not in lattice for e in edges.tolist()) / len(edges))
    assert abs(np.mean(off) - p) < 4 * math.sqrt(p * (1 - p) / (10 * n_agents * k / 2)) + k / n_agents
    ours = [degrees(graphs.watts_strogatz_edges(300, 4, 0.3, rng), 300).var() for rng in rngs(3, 60)]
    theirs = [np.array([d for _, d in nx.watts_strogatz_graph(300, 4, 0.3, seed=s).degree()]).var()
              for s in range(60)]
    se = math.sqrt(np.var(ours, ddof=1) / 60 + np.var(theirs, ddof=1) / 60)
    assert abs(np.mean(ours) - np.mean(theirs)) < 4 * se


def test_barabasi_albert_law():
    """E = m (M - m), the star on m + 1 nodes first, simple; the sum of squared degrees
    (the preferential attachment's heavy tail) agrees with networkx's within 4 se."""
    n_agents, m = 300, 3
    ours, theirs = [], []
    for seed, rng in enumerate(rngs(4, 60)):
        edges = graphs.barabasi_albert_edges(n_agents, m, rng)
        assert_canonical(edges, n_agents)
        assert len(edges) == m * (n_agents - m)
        assert {(0, leaf) for leaf in range(1, m + 1)} <= {tuple(e) for e in edges.tolist()}
        ours.append(np.sum(degrees(edges, n_agents).astype(float) ** 2))
        graph = nx.barabasi_albert_graph(n_agents, m, seed=seed)
        theirs.append(np.sum(np.array([d for _, d in graph.degree()], dtype=float) ** 2))
    se = math.sqrt(np.var(ours, ddof=1) / 60 + np.var(theirs, ddof=1) / 60)
    assert abs(np.mean(ours) - np.mean(theirs)) < 4 * se


def test_random_geometric_edges_are_exactly_the_pairs_within_the_radius():
    n_agents, radius = 300, 0.08
    rng = np.random.default_rng(5)
    points = copy.deepcopy(rng).random((n_agents, 2))  # the generator's own draws
    edges = graphs.random_geometric_edges(n_agents, radius, rng)
    assert_canonical(edges, n_agents)
    distance = np.linalg.norm(points[:, None] - points[None], axis=2)
    u, v = np.triu_indices(n_agents, k=1)
    within = distance[u, v] <= radius
    np.testing.assert_array_equal(edges, np.stack([u[within], v[within]], axis=1).astype(np.int32))


def test_random_geometric_mean_degree():
    """With mean_degree the radius solves (M - 1)(pi r^2 - 8 r^3/3 + r^4/2) = mean_degree;
    the mean degree over graphs is within 4 of its standard errors."""
    n_agents, target = 500, 8.0
    radius = graphs.geometric_radius(target, n_agents)
    assert math.isclose((n_agents - 1) * graphs.geometric_pair_probability(radius), target, rel_tol=1e-12)
    means = [2 * len(graphs.random_geometric_edges(n_agents, radius, rng)) / n_agents for rng in rngs(6, 200)]
    assert abs(np.mean(means) - target) < 4 * np.std(means, ddof=1) / math.sqrt(len(means))


def test_edge_list_round_trip(tmp_path):
    """Edges written in any order and orientation, with comments and separators, read back
    as the canonical edges; the same from a .npy; a changed file is refused by the job."""
    found = graphs.erdos_renyi_edges(40, 0.1, np.random.default_rng(7))
    edges = graphs.canonical_edges(np.concatenate([found, [[0, 39]]]) if [0, 39] not in found.tolist() else found)
    order = np.random.default_rng(8).permutation(len(edges))
    lines = ["# my graph", "# nodes: 40"]
    for i, (a, b) in enumerate(edges[order]):
        lines.append(f"{b}, {a}  # reversed" if i % 3 == 0 else f"  {a}\t{b}")
    path = tmp_path / "g.txt"
    path.write_text("\n".join(lines) + "\n")
    rows, declared = graphs.read_edge_list(path)
    assert declared == 40 and graphs.edge_list_problem(rows, declared, 40) is None
    params = {"family": "edge_list", "path": str(path), "sha256": graphs.file_sha256(path)}
    np.testing.assert_array_equal(graphs.family_edges(params, 40, np.random.default_rng(0)), edges)
    npy = tmp_path / "g.npy"
    np.save(npy, edges[order][:, ::-1].astype(np.int64))
    params = {"family": "edge_list", "path": str(npy), "sha256": graphs.file_sha256(npy)}
    np.testing.assert_array_equal(graphs.family_edges(params, 40, None), edges)
    with pytest.raises(ValueError, match="content changed"):
        graphs.family_edges({**params, "sha256": "0" * 64}, 40, None)


def ccolme_config(graph, n_agents=36, **keys):
    return {"figures": {"g": {"n_agents": n_agents, "graph": graph, "eps": [1], "theta_k": [6], **keys}}}


BAD_GRAPHS = [
    ({"family": "erdos_renyi", "p": 1.5}, "graph.p"),
    ({"family": "erdos_renyi", "p": -0.1}, "graph.p"),
    ({"family": "erdos_renyi"}, "graph.p"),
    ({"family": "erdos_renyi", "p": 0.1, "mean_degree": 3}, "graph.mean_degree"),
    ({"family": "erdos_renyi", "mean_degree": 40}, "graph.mean_degree"),
    ({"family": "erdos_renyi", "mean_degre": 4}, "graph: unknown key"),
    ({"family": "small_world"}, "graph.family"),
    ({"family": "watts_strogatz", "k": 5}, "graph.k"),
    ({"family": "watts_strogatz", "k": 36}, "graph.k"),
    ({"family": "watts_strogatz", "k": 4, "p": 2}, "graph.p"),
    ({"family": "random_geometric", "radius": 1.5}, "graph.radius"),
    ({"family": "random_geometric", "mean_degree": 35}, "graph.mean_degree"),
    ({"family": "random_geometric"}, "graph.radius"),
    ({"family": "barabasi_albert", "m": 36}, "graph.m"),
    ({"family": "barabasi_albert", "m": 0}, "graph.m"),
    ({"family": "ring_lattice", "k": 7}, "graph.k"),
    ({"family": "torus", "rows": 5}, "graph.rows"),
    ({"family": "torus", "rows": 4, "cols": 8}, "graph.rows"),
    ({"family": "torus", "cols": 7}, "graph.cols"),
    ({"family": "torus", "rows": 2, "cols": 18}, "graph.rows"),
    ({"family": "complete", "k": 3}, "graph: unknown key"),
    ({"family": "edge_list"}, "graph.path"),
    ({"family": "edge_list", "path": "no/such/file.txt"}, "graph.path"),
    ({"family": "random_regular", "degree": 4}, "graph: unknown key"),
]
#: Settings a family could make but not within colme.graphs.MAX_EDGES (M = 1e6).
TOO_LARGE = [
    ({"family": "complete"}, "graph.family"),
    ({"family": "erdos_renyi", "p": 0.01}, "graph.p"),
    ({"family": "random_geometric", "radius": 0.5}, "graph.radius"),
    ({"family": "barabasi_albert", "m": 5000}, "graph.m"),
    ({"family": "ring_lattice", "k": 4000}, "graph.k"),
]


@pytest.mark.parametrize("graph, key", TOO_LARGE, ids=[g["family"] for g, _ in TOO_LARGE])
def test_graphs_beyond_the_edge_limit_are_rejected_naming_the_key(graph, key):
    with pytest.raises(ConfigError, match=rf"figures\.g\.{re.escape(key)}=.*more than {graphs.MAX_EDGES}"):
        validate_config(ccolme_config(graph, n_agents=10**6))
    validate_config(ccolme_config({"family": "erdos_renyi", "mean_degree": 10}, n_agents=10**6))


@pytest.mark.parametrize("graph, key", BAD_GRAPHS, ids=[f"{g['family']}-{k}" for g, k in BAD_GRAPHS])
def test_bad_graph_settings_are_rejected_naming_the_key(graph, key):
    with pytest.raises(ConfigError, match=rf"figures\.g\.{re.escape(key)}"):
        validate_config(ccolme_config(graph))


EDGE_FILES = [
    ("0 1\n1 2\n2 2\n", "self-loop"),
    ("0 1\n1 2\n2 1\n", "duplicate edge 1 2"),
    ("0 1\n0 1\n", "duplicate edge 0 1"),
    ("0 1\n1 36\n", "out of range"),
    ("0 -1\n", "out of range"),
    ("0 1\n1 2\n", "names .largest node \\+ 1. 3 nodes but n_agents = 36"),
    ("# nodes: 30\n0 1\n", "declares .# nodes:. 30 nodes but n_agents = 36"),
    ("0 1 2\n", "not an edge"),
    ("0 x\n", "not an edge"),
    ("# nothing\n", "no edge"),
]


@pytest.mark.parametrize("text, why", EDGE_FILES)
def test_bad_edge_lists_are_rejected_naming_the_key(text, why, tmp_path):
    path = tmp_path / "edges.txt"
    path.write_text(text)
    with pytest.raises(ConfigError, match=rf"figures\.g\.graph\.path=.*{why}"):
        validate_config(ccolme_config({"family": "edge_list", "path": str(path)}))


def test_degree_checks_apply_to_the_random_regular_family_only():
    with pytest.raises(ConfigError, match=r"figures\.g\.degree"):
        validate_config(ccolme_config({"family": "random_regular"}, n_agents=35, degree=5))
    validate_config(ccolme_config({"family": "ring_lattice", "k": 4}, n_agents=35, degree=5))


def test_graph_family_is_recorded_in_the_figure_metadata():
    engine = ENGINES["ccolme"]
    settings = resolve_figure(validate_config(ccolme_config({"family": "erdos_renyi", "mean_degree": 5})), "g")
    params = stage_params(settings, "table")
    assert params["graph"] == {"family": "erdos_renyi", "mean_degree": 5.0} and "degree" not in params
    choices = engine.figure_interpretations(params)
    assert any("mean degree 2E/M" in c for c in choices)  # the per-node degree choice (CHOICES)
    assert choices[-1].startswith("graph: Erdos-Renyi") and "mean_degree=5.0" in choices[-1]
    assert "graph erdos_renyi (mean_degree 5)" in engine.details(params)
    default = resolve_figure(validate_config(ccolme_config({"family": "random_regular"}, degree=4)), "g")
    assert "graph" not in stage_params(default, "table")
    assert engine.figure_interpretations(default) == engine.interpretations


def test_family_instances_pad_unequal_edge_counts_and_do_not_depend_on_the_chunking():
    """Each run's graph comes from its own instance stream: runs 0-5 at once equal runs 0-2
    and 2-5 (up to the padding); n_a is the class-induced component size of the run's own
    graph (networkx, isolated agents included), which Theorem 1, Corollary 1 and Ideal read."""
    from colme.instances import make_family_instances

    graph = {"family": "erdos_renyi", "mean_degree": 2.0}
    whole = make_family_instances(50, 3, graph, "chunking", range(0, 5), 9)
    parts = [make_family_instances(50, 3, graph, "chunking", r, 9) for r in (range(0, 2), range(2, 5))]
    assert len(set(whole["n_edges"].tolist())) > 1
    for key in ("classes", "component_sizes", "n_edges", "runs"):
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))
    runs = [graphs.valid_edges(e) for p in parts for e in p["edges"]]
    for run, edges in enumerate(runs):
        np.testing.assert_array_equal(graphs.valid_edges(whole["edges"][run]), edges)
        assert len(edges) == whole["n_edges"][run]
        assert (whole["edges"][run][len(edges):] == -1).all()
        classes = whole["classes"][run]
        inner = nx.Graph()
        inner.add_nodes_from(range(50))
        inner.add_edges_from(e for e in edges.tolist() if classes[e[0]] == classes[e[1]])
        sizes = np.empty(50, dtype=int)
        for component in nx.connected_components(inner):
            sizes[list(component)] = len(component)
        np.testing.assert_array_equal(whole["component_sizes"][run], sizes)
    assert (whole["component_sizes"] == 1).any()  # isolated agents: n_a = 1, the local branch


@pytest.mark.parametrize("edges", [
    random_regular_edges(3, 10, np.random.default_rng(1)),
    random_regular_edges(10, 500, np.random.default_rng(2)),
    graphs.erdos_renyi_edges(60, 0.05, np.random.default_rng(3)),  # isolated agents too
    graphs.barabasi_albert_edges(80, 2, np.random.default_rng(4)),
    np.zeros((0, 2), dtype=np.int32),
], ids=["regular-10", "regular-500", "erdos-renyi", "barabasi-albert", "no-edge"])
def test_each_directed_link_knows_its_reverse(edges):
    """``csr_links``' reverse of link a -> b is the CSR position of b -> a, as a search over
    the sorted (head, tail) keys finds it; ``csr_edge_ids`` numbers its edge as ``np.unique``
    numbers the (lower end, upper end) keys."""
    n_agents = int(edges.max()) + 1 if len(edges) else 4
    indptr, neighbours, reverse = graphs.csr_links(edges, n_agents)
    np.testing.assert_array_equal(indptr, graphs.csr_neighbours(edges, n_agents)[0])
    np.testing.assert_array_equal(neighbours, graphs.csr_neighbours(edges, n_agents)[1])
    heads = np.repeat(np.arange(n_agents), np.diff(indptr))
    keys = heads * n_agents + neighbours  # sorted: CSR lists each agent's neighbours in order
    expected = np.searchsorted(keys, neighbours * n_agents + heads)
    assert reverse.dtype == np.int64 and len(reverse) == 2 * len(edges)
    np.testing.assert_array_equal(reverse, expected)
    np.testing.assert_array_equal(reverse[reverse], np.arange(len(reverse)))
    # Each link's undirected edge, numbered as np.unique numbers the (lower, upper) keys
    # (the Private-C-ColME kernel's accepted-edge rows, read in that order).
    _, _, edge_id = graphs.csr_edge_ids(edges, n_agents)
    _, expected_id = np.unique(np.minimum(heads, neighbours) * n_agents + np.maximum(heads, neighbours),
                               return_inverse=True)
    assert edge_id.dtype == np.int64
    np.testing.assert_array_equal(edge_id, expected_id.ravel())
