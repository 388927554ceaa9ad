"""Communication graphs: random r-regular graphs as edge lists (seed 002, Sec. V)."""

from __future__ import annotations

import copy

import numba
import numpy as np


def random_regular_edges(degree: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
    """Edges (E, 2) of a random simple r-regular graph on ``n_agents`` nodes.

    The pairing model with networkx's rejection rules (Steger and Wormald; networkx
    ``random_regular_graph``), compiled, draw for draw: it reads the same words of ``rng``
    as networkx reading it through its ``PythonRandomViaNumpyBits`` wrapper (Python's
    ``shuffle`` and ``getrandbits`` on ``Generator.bytes``), so it returns the same graph
    and leaves ``rng`` in the same state (``tests/test_graphs.py`` checks both), 100-1000x
    faster.  Rows are sorted (u < v) and lexicographically ordered so the edge order, and
    hence every floating-point sum the kernel makes over edges, is a function of the graph.
    """
    if degree < 1 or degree >= n_agents or (degree * n_agents) % 2:
        raise ValueError(
            f"degree={degree} with M={n_agents}: need 1 <= r < M and r*M even for an r-regular graph"
        )
    if degree * n_agents >= 2**31:
        raise ValueError(f"degree={degree} with M={n_agents}: r*M must be below 2^31")
    start = copy.deepcopy(rng.bit_generator.state)
    words = 2 * degree * n_agents + 1024  # a shuffle of L stubs reads < 2L words on average
    while True:
        # Generator.bytes(k <= 4) reads one 32-bit word: the same stream, read ahead
        stream = rng.integers(0, 2**32, size=words, dtype=np.uint32)
        neighbours = np.empty((n_agents, degree), dtype=np.int32)
        used = _pairing(n_agents, degree, stream, neighbours)
        rng.bit_generator.state = copy.deepcopy(start)
        if used >= 0:
            break
        words *= 2
    rng.integers(0, 2**32, size=used, dtype=np.uint32)  # leave rng where networkx would
    heads = np.repeat(np.arange(n_agents, dtype=np.int32), degree)
    edges = np.stack([heads, neighbours.ravel()], axis=1)
    edges = edges[edges[:, 0] < edges[:, 1]]
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))]


@numba.njit(cache=True)
def _below(bound, stream, position):
    """Python's ``_randbelow_with_getrandbits(bound)`` on networkx's ``getrandbits``:
    k = bit_length(bound) bits from the first ceil(k/8) bytes of a little-endian word, read
    big-endian; retried while >= bound.  Returns (value, next position); -1 when out of words."""
    bits = 0
    while (bound >> bits) > 0:
        bits += 1
    width = (bits + 7) // 8
    while position < stream.shape[0]:
        word = stream[position]
        position += 1
        value = 0
        for byte in range(width):
            value = (value << 8) | ((word >> (8 * byte)) & 0xFF)
        value >>= 8 * width - bits
        if value < bound:
            return value, position
    return -1, position


@numba.njit(cache=True)
def _pairing(n, degree, stream, neighbours):
    """networkx's ``_try_creation`` loop: fills ``neighbours`` (n, degree); returns the
    number of words of ``stream`` read, or -1 if it ran out of them."""
    count = np.zeros(n, dtype=np.int64)
    potential = np.zeros(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)  # potential's keys in insertion order
    stubs = np.empty(n * degree, dtype=np.int64)
    position = 0
    while True:  # one _try_creation
        count[:] = 0
        for i in range(n * degree):
            stubs[i] = i % n  # list(range(n)) * d
        length = n * degree
        failed = False
        while length > 0:
            for i in range(length - 1, 0, -1):  # random.shuffle
                j, position = _below(i + 1, stream, position)
                if j < 0:
                    return -1
                stubs[i], stubs[j] = stubs[j], stubs[i]
            keys = 0
            for i in range(0, length - 1, 2):
                s1, s2 = stubs[i], stubs[i + 1]
                if s1 > s2:
                    s1, s2 = s2, s1
                if s1 != s2 and not _adjacent(neighbours, count, s1, s2):
                    neighbours[s1, count[s1]] = s2
                    count[s1] += 1
                    neighbours[s2, count[s2]] = s1
                    count[s2] += 1
                else:
                    for node in (s1, s2):
                        if potential[node] == 0:
                            order[keys] = node
                            keys += 1
                        potential[node] += 1
            if not _suitable(neighbours, count, order, keys):
                failed = True
            length = 0
            for k in range(keys):
                node = order[k]
                for _ in range(potential[node]):
                    stubs[length] = node
                    length += 1
                potential[node] = 0
            if failed:
                break
        if not failed:
            return position


@numba.njit(cache=True)
def _adjacent(neighbours, count, s1, s2):
    """Whether s1 - s2 is an edge already: at most r comparisons, no hash set."""
    for k in range(count[s1]):  # noqa: SIM110 - any() over a generator does not compile in Numba
        if neighbours[s1, k] == s2:
            return True
    return False


@numba.njit(cache=True)
def _suitable(neighbours, count, order, keys):
    """networkx's ``_suitable``, literally (its inner swap rebinds s1 for the rest of the
    inner loop, which this keeps)."""
    if keys == 0:
        return True
    for a in range(keys):
        s1 = order[a]
        for b in range(keys):
            s2 = order[b]
            if s1 == s2:
                break
            if s1 > s2:
                s1, s2 = s2, s1
            if not _adjacent(neighbours, count, s1, s2):
                return True
    return False


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
