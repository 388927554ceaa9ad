"""Communication graphs: random r-regular graphs as edge lists (seed 002, Sec. V)."""

from __future__ import annotations

import networkx as nx
import numpy as np


def random_regular_edges(degree: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
    """Edges (E, 2) of a uniformly drawn simple r-regular graph on ``n_agents`` nodes.

    No self-loops or multi-edges (networkx's pairing model with rejection).
    Rows are sorted (u < v) and lexicographically ordered so the edge order, and hence
    every floating-point sum the kernel makes over edges, is a function of the graph only.
    """
    if degree < 1 or degree >= n_agents or (degree * n_agents) % 2:
        raise ValueError(
            f"degree={degree} with M={n_agents}: need 1 <= r < M and r*M even for an r-regular graph"
        )
    graph = nx.random_regular_graph(degree, n_agents, seed=rng)
    edges = np.sort(np.array(graph.edges(), dtype=np.int32), axis=1)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))]


def adjacency(edges: np.ndarray, n_agents: int) -> np.ndarray:
    """Boolean symmetric adjacency matrix of an edge list."""
    adj = np.zeros((n_agents, n_agents), dtype=bool)
    adj[edges[:, 0], edges[:, 1]] = True
    adj[edges[:, 1], edges[:, 0]] = True
    return adj


def csr_neighbours(edges: np.ndarray, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists in CSR form (indptr (M+1,), neighbours (2E,)), sorted per agent."""
    heads = np.concatenate([edges[:, 0], edges[:, 1]]).astype(np.int64)
    tails = np.concatenate([edges[:, 1], edges[:, 0]]).astype(np.int64)
    order = np.lexsort((tails, heads))
    indptr = np.zeros(n_agents + 1, dtype=np.int64)
    np.cumsum(np.bincount(heads, minlength=n_agents), out=indptr[1:])
    return indptr, tails[order]
