"""Communication graphs as edge lists: random r-regular graphs (Private-C-ColME,
arXiv:2511.04702, Sec. V) and the other families a figure's ``graph`` key selects
(Erdos-Renyi, Watts-Strogatz, random geometric, Barabasi-Albert, ring lattice, torus,
complete, a user's edge list)."""

from __future__ import annotations

import copy
import functools
import hashlib
import io
import math
import re
from pathlib import Path

import numba
import numpy as np


def random_regular_edges(degree: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
    """Edges (E, 2) of a random simple r-regular graph on ``n_agents`` nodes.

    The pairing model with networkx's rejection rules (Steger and Wormald; networkx
    ``random_regular_graph``), compiled, draw for draw: it reads the same words of ``rng``
    as networkx reading it through its ``PythonRandomViaNumpyBits`` wrapper (Python's
    ``shuffle`` and ``getrandbits`` on ``Generator.bytes``), so it returns the same graph
    and leaves ``rng`` in the same state (``tests/core/test_graphs.py`` checks both), 100-1000x
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
    """Boolean symmetric adjacency matrix of an edge list (padding rows (-1, -1) dropped)."""
    edges = valid_edges(edges)
    adj = np.zeros((n_agents, n_agents), dtype=bool)
    adj[edges[:, 0], edges[:, 1]] = True
    adj[edges[:, 1], edges[:, 0]] = True
    return adj


def _csr_order(edges: np.ndarray, n_agents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR ``indptr``, the sorted neighbours and the sorting permutation of the directed
    links (edge i's two directions are links i and i + E before sorting)."""
    heads = np.concatenate([edges[:, 0], edges[:, 1]]).astype(np.int64)
    tails = np.concatenate([edges[:, 1], edges[:, 0]]).astype(np.int64)
    # One int64 key per link (M^2 < 2^62 with int32 node ids): a third of a lexsort's time at
    # 2E = 2e7, and lexsort's order wherever (head, tail) pairs are unique (a duplicate edge
    # can only swap two equal entries of the neighbour lists)
    order = np.argsort(heads * n_agents + tails)
    indptr = np.zeros(n_agents + 1, dtype=np.int64)
    np.cumsum(np.bincount(heads, minlength=n_agents), out=indptr[1:])
    return indptr, tails[order], order


def csr_neighbours(edges: np.ndarray, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists in CSR form (indptr (M+1,), neighbours (2E,)), sorted per agent."""
    indptr, neighbours, _ = _csr_order(edges, n_agents)
    return indptr, neighbours


def csr_links(edges: np.ndarray, n_agents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``csr_neighbours`` and, per directed link a -> b (a CSR position), the position of
    its reverse b -> a (``reverse``, (2E,) int64), for an edge list without duplicates or
    self-loops (``canonical_edges``): read off the sorting permutation in O(E)."""
    indptr, neighbours, order = _csr_order(edges, n_agents)
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    reverse = position[(order + len(edges)) % max(order.size, 1)]
    return indptr, neighbours, reverse


def csr_edge_ids(edges: np.ndarray, n_agents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``csr_neighbours`` and, per directed link (a CSR position), its undirected edge's
    number (``edge_id``, (2E,) int64): edges numbered by their (lower end, upper end) in
    lexicographic order, as ``np.unique`` of those keys numbers them, for an edge list
    without duplicates or self-loops.  The links a -> b with a < b appear in CSR order in
    exactly that order, and each other link takes its reverse's number: O(E), no sort of
    the 2E keys."""
    indptr, neighbours, reverse = csr_links(edges, n_agents)
    # CSR rows are ordered by head, so a link precedes its reverse iff its head is the lower end
    forward = np.arange(reverse.size) < reverse
    edge_id = np.empty(neighbours.size, dtype=np.int64)
    edge_id[forward] = np.arange(np.count_nonzero(forward))
    edge_id[~forward] = edge_id[reverse[~forward]]
    return indptr, neighbours, edge_id


# --- Graph families beyond the random regular one (issue 19) -----------------------------
#
# Every generator returns the canonical edge array of ``random_regular_edges``: int32
# (E, 2), rows u < v, lexicographically sorted, no self-loop, no duplicate.  Random ones
# draw from the run's instance ``Generator`` only (never global state): NumPy draws, or a
# 64-bit key drawn from it that seeds an inline SplitMix64 stream in compiled loops that
# need a data-dependent number of draws (Watts-Strogatz, Barabasi-Albert).

#: Families of ``graph.family``; ``random_regular`` (the default) is ``random_regular_edges``.
FAMILIES = (
    "random_regular", "erdos_renyi", "watts_strogatz", "random_geometric", "barabasi_albert",
    "ring_lattice", "torus", "complete", "edge_list",
)
#: Most undirected edges of one graph: 2E indices must fit the kernel's int32 node ids.
MAX_EDGES = 2**30

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)


@numba.njit(cache=True)
def _uniform(counter):
    """SplitMix64's output of ``counter`` as a uniform in [0, 1) (53 bits)."""
    z = (counter ^ (counter >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return np.float64(z >> _S11) * 2.0**-53


@numba.njit(cache=True)
def _below_n(counter, n):
    """A uniform integer in [0, n) from one SplitMix64 output (bias < n 2^-53)."""
    return min(np.int64(_uniform(counter) * n), n - 1)


def canonical_edges(edges: np.ndarray) -> np.ndarray:
    """int32 (E, 2) with u < v per row, rows lexicographically sorted (one sort of the
    int64 keys u * n + v)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(edges) == 0:
        return np.zeros((0, 2), dtype=np.int32)
    n = int(edges.max()) + 1
    keys = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
    keys.sort()
    return np.stack([keys // n, keys % n], axis=1).astype(np.int32)


def _pairs_from_indices(index: np.ndarray, n: int) -> np.ndarray:
    """Pairs (u, v), u < v, of row-major upper-triangle indices (vectorised inverse)."""
    index = index.astype(np.int64)
    start = lambda u: u * (2 * n - u - 1) // 2  # noqa: E731 - first index of row u
    root = np.sqrt(np.maximum((2.0 * n - 1.0) ** 2 - 8.0 * index, 0.0))
    u = np.floor((2.0 * n - 1.0 - root) / 2.0).astype(np.int64)
    u = np.clip(u, 0, n - 2)
    for _ in range(2):  # float rounding: at most one row off either way
        u = np.where(start(u + 1) <= index, u + 1, u)
        u = np.where(start(u) > index, u - 1, u)
    v = index - start(u) + u + 1
    return np.stack([u, v], axis=1)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (a sort and a comparison: faster than ``np.unique``)."""
    values = np.sort(values)
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if len(values) else values


def erdos_renyi_edges(n_agents: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """G(M, p): each of the M(M-1)/2 pairs an edge independently with probability ``p``.

    Up to 2e7 pairs, one uniform per pair; beyond, the edge count K ~ Binomial(M(M-1)/2, p)
    and a uniform K-subset of the pairs (uniform draws, duplicates redrawn), the same law
    at O(K) cost.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p={p}: need 0 <= p <= 1")
    pairs = n_agents * (n_agents - 1) // 2
    if pairs <= 20_000_000:
        chosen = np.flatnonzero(rng.random(pairs) < p)
    else:
        count = int(rng.binomial(pairs, p))
        if count > MAX_EDGES:
            raise ValueError(f"p={p} with M={n_agents}: about {count} edges, more than {MAX_EDGES}")
        chosen = _distinct(rng.integers(0, pairs, size=count))
        while len(chosen) < count:
            chosen = _distinct(np.concatenate([chosen, rng.integers(0, pairs, size=count - len(chosen))]))
    return _pairs_from_indices(chosen, n_agents).astype(np.int32)  # sorted indices: canonical order


def ring_lattice_edges(n_agents: int, k: int) -> np.ndarray:
    """Each node joined to its k/2 nearest nodes on either side of a ring (k even, k < M)."""
    if k % 2 or not 2 <= k < n_agents:
        raise ValueError(f"k={k} with M={n_agents}: need an even k with 2 <= k < M")
    nodes = np.arange(n_agents, dtype=np.int64)
    edges = np.concatenate([np.stack([nodes, (nodes + j) % n_agents], axis=1) for j in range(1, k // 2 + 1)])
    return canonical_edges(edges)


def torus_edges(rows: int, cols: int) -> np.ndarray:
    """The rows x cols grid with wrap-around (4-regular for rows, cols >= 3); node i*cols + j."""
    if rows < 3 or cols < 3:
        raise ValueError(f"rows={rows}, cols={cols}: a simple 4-regular torus needs both >= 3")
    node = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    right = np.stack([node.ravel(), np.roll(node, -1, axis=1).ravel()], axis=1)
    down = np.stack([node.ravel(), np.roll(node, -1, axis=0).ravel()], axis=1)
    return canonical_edges(np.concatenate([right, down]))


def complete_edges(n_agents: int) -> np.ndarray:
    """Every pair."""
    u, v = np.triu_indices(n_agents, k=1)
    return np.stack([u, v], axis=1).astype(np.int32)


def random_geometric_edges(n_agents: int, radius: float, rng: np.random.Generator) -> np.ndarray:
    """M points uniform in the unit square (``rng.random((M, 2))``), joined when at
    Euclidean distance <= ``radius`` (no wrap-around; a k-d tree's pair query)."""
    points = rng.random((n_agents, 2))
    from scipy.spatial import cKDTree  # lazy: scipy.spatial costs every job ~0.3 s of start-up

    pairs = cKDTree(points).query_pairs(float(radius), output_type="ndarray")
    return canonical_edges(pairs)


def geometric_pair_probability(radius: float) -> float:
    """P(|X - Y| <= r) for X, Y uniform in the unit square, r <= 1: pi r^2 - 8 r^3/3 + r^4/2."""
    return math.pi * radius**2 - 8.0 * radius**3 / 3.0 + radius**4 / 2.0


#: Largest mean degree over M - 1 that ``geometric_radius`` can reach (radius 1).
GEOMETRIC_MAX_SHARE = math.pi - 8.0 / 3.0 + 0.5


def geometric_radius(mean_degree: float, n_agents: int) -> float:
    """The radius whose expected degree (M - 1) P(|X - Y| <= r) is ``mean_degree`` (bisection)."""
    target = mean_degree / (n_agents - 1)
    if not 0.0 <= target <= GEOMETRIC_MAX_SHARE:
        raise ValueError(
            f"mean_degree={mean_degree} with M={n_agents}: need 0 <= it <= {GEOMETRIC_MAX_SHARE:.4f} (M - 1)"
        )
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if geometric_pair_probability(middle) < target:
            low = middle
        else:
            high = middle
    return high


@numba.njit(cache=True)
def _hash_slot(table, key):
    """Slot of ``key`` in an open-addressing table (-1 empty, -2 deleted), or of the first
    free slot on its probe path when absent (returned negated - 1)."""
    mask = table.shape[0] - 1
    slot = np.int64((np.uint64(key) * _MIX1) >> np.uint64(20)) & mask
    free = -1
    while True:
        value = table[slot]
        if value == key:
            return slot
        if value == -1:
            return -(free if free >= 0 else slot) - 1
        if value == -2 and free < 0:
            free = slot
        slot = (slot + 1) & mask


@numba.njit(cache=True)
def _watts_strogatz(n, k, p, key, heads, tails):
    """networkx's ``watts_strogatz_graph`` loop on the ring lattice (heads, tails): for
    j = 1..k/2 and each node u, with probability p the edge (u, u + j) becomes (u, w), w
    uniform and redrawn while w = u or (u, w) is an edge (skipped when u is full)."""
    capacity = 1
    while capacity < 4 * heads.shape[0] + 16:
        capacity *= 2
    table = np.full(capacity, -1, dtype=np.int64)
    degree = np.full(n, k, dtype=np.int64)
    for e in range(heads.shape[0]):
        a, b = min(heads[e], tails[e]), max(heads[e], tails[e])
        table[-_hash_slot(table, a * n + b) - 1] = a * n + b
    counter = key
    e = 0
    for _ in range(k // 2):
        for u in range(n):
            counter += _GOLDEN
            if _uniform(counter) < p:
                v = tails[e]
                counter += _GOLDEN
                w = _below_n(counter, n)
                skip = False
                while w == u or _hash_slot(table, min(u, w) * n + max(u, w)) >= 0:
                    counter += _GOLDEN
                    w = _below_n(counter, n)
                    if degree[u] >= n - 1:
                        skip = True
                        break
                if not skip:
                    table[_hash_slot(table, min(u, v) * n + max(u, v))] = -2
                    table[-_hash_slot(table, min(u, w) * n + max(u, w)) - 1] = min(u, w) * n + max(u, w)
                    degree[v] -= 1
                    degree[w] += 1
                    tails[e] = w
            e += 1


def watts_strogatz_edges(n_agents: int, k: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Small world (Watts and Strogatz; networkx's rewiring rule): the ring lattice of
    degree k, each lattice edge (u, u + j) rewired with probability ``p`` to (u, w), w
    uniform among the nodes that keep the graph simple.  E = M k / 2."""
    if k % 2 or not 2 <= k < n_agents:
        raise ValueError(f"k={k} with M={n_agents}: need an even k with 2 <= k < M")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p={p}: need 0 <= p <= 1")
    nodes = np.arange(n_agents, dtype=np.int64)
    heads = np.tile(nodes, k // 2)
    tails = np.concatenate([(nodes + j) % n_agents for j in range(1, k // 2 + 1)])
    key = np.uint64(rng.integers(0, 2**63, dtype=np.int64))
    _watts_strogatz(n_agents, k, float(p), key, heads, tails)
    return canonical_edges(np.stack([heads, tails], axis=1))


@numba.njit(cache=True)
def _barabasi_albert(n, m, key, heads, tails):
    """networkx's ``barabasi_albert_graph`` (star on m + 1 nodes, then each new node joined
    to m distinct targets drawn from the list of edge ends, i.e. by degree)."""
    repeated = np.empty(2 * heads.shape[0], dtype=np.int64)
    length = 0
    for leaf in range(1, m + 1):  # the star: 0 - leaf
        heads[leaf - 1] = 0
        tails[leaf - 1] = leaf
        repeated[length] = 0
        repeated[length + 1] = leaf
        length += 2
    mark = np.full(n, -1, dtype=np.int64)
    targets = np.empty(m, dtype=np.int64)
    e = m
    counter = key
    for source in range(m + 1, n):
        found = 0
        while found < m:
            counter += _GOLDEN
            x = repeated[_below_n(counter, length)]
            if mark[x] != source:
                mark[x] = source
                targets[found] = x
                found += 1
        for i in range(m):
            heads[e] = targets[i]
            tails[e] = source
            e += 1
            repeated[length] = targets[i]
            repeated[length + 1] = source
            length += 2


def barabasi_albert_edges(n_agents: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Preferential attachment (Barabasi and Albert; networkx's variant, from a star on
    m + 1 nodes): E = m (M - 1 - m) + m, mean degree ~ 2m."""
    if not 1 <= m < n_agents:
        raise ValueError(f"m={m} with M={n_agents}: need 1 <= m < M")
    n_edges = m + m * (n_agents - m - 1)
    heads = np.empty(n_edges, dtype=np.int64)
    tails = np.empty(n_edges, dtype=np.int64)
    key = np.uint64(rng.integers(0, 2**63, dtype=np.int64))
    _barabasi_albert(n_agents, m, key, heads, tails)
    return canonical_edges(np.stack([heads, tails], axis=1))


# --- A user's edge list --------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _read_file(path: str, mtime_ns: int, size: int) -> tuple[bytes, str]:
    data = Path(path).read_bytes()
    return data, hashlib.sha256(data).hexdigest()


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's content (cached while its size and mtime stay the same)."""
    stat = Path(path).stat()
    return _read_file(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)[1]


def edge_list_tokens(path: str | Path) -> tuple[list[tuple[str, str]], int | None]:
    """The edges of an edge-list text file as written (node names, (u, v) per edge) and its
    declared node count: one edge ``u v`` per line (whitespace or a comma between), ``#``
    starts a comment, an optional line ``# nodes: N`` declares the node count.  Raises
    ``ValueError`` for a line that is not two names."""
    stat = Path(path).stat()
    data, _ = _read_file(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)
    declared = None
    edges = []
    for number, line in enumerate(data.decode().splitlines(), start=1):
        body, _, comment = line.partition("#")
        match = re.fullmatch(r"\s*nodes\s*[:=]\s*(\d+)\s*", comment)
        if match:
            declared = int(match.group(1))
        fields = body.replace(",", " ").split()
        if not fields:
            continue
        if len(fields) != 2:
            raise ValueError(f"line {number}: {line.strip()!r} is not an edge 'u v' of two nodes")
        edges.append((fields[0], fields[1]))
    return edges, declared


def read_edge_list(path: str | Path) -> tuple[np.ndarray, int | None]:
    """The rows of an edge-list file as written (int64 (E, 2)) and its declared node count.

    Text (``edge_list_tokens``), nodes numbered from 0; ``.npy``: an integer (E, 2) array.
    Raises ``ValueError`` for a file that is not such a list.  (In a world from a data file
    the nodes are the agents' names instead: ``colme.datafiles.named_edges``.)
    """
    if str(path).endswith(".npy"):
        stat = Path(path).stat()
        data, _ = _read_file(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)
        array = np.load(io.BytesIO(data), allow_pickle=False)
        if array.ndim != 2 or array.shape[1] != 2 or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"an integer (E, 2) array is needed, found {array.dtype} {array.shape}")
        return array.astype(np.int64), None
    edges, declared = edge_list_tokens(path)
    for number, (u, v) in enumerate(edges, start=1):
        if not (re.fullmatch(r"[+-]?\d+", u) and re.fullmatch(r"[+-]?\d+", v)):
            raise ValueError(f"edge {number}: '{u} {v}' is not an edge 'u v' of two integers")
    return np.array([(int(u), int(v)) for u, v in edges], dtype=np.int64).reshape(-1, 2), declared


def edge_list_problem(rows: np.ndarray, declared: int | None, n_agents: int) -> str | None:
    """Why the edge list ``rows`` cannot be the graph of ``n_agents`` agents; None if it can."""
    if len(rows) == 0:
        return "the file lists no edge"
    low, high = int(rows.min()), int(rows.max())
    if low < 0 or high >= n_agents:
        bad = rows[(rows < 0).any(axis=1) | (rows >= n_agents).any(axis=1)][0]
        return f"node out of range in edge {bad[0]} {bad[1]}: nodes are 0 .. n_agents-1 = {n_agents - 1}"
    loops = rows[rows[:, 0] == rows[:, 1]]
    if len(loops):
        return f"self-loop {loops[0][0]} {loops[0][1]}: an agent is not its own neighbour"
    pairs = np.sort(rows, axis=1)
    keys = pairs[:, 0] * n_agents + pairs[:, 1]
    unique, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        key = int(unique[np.argmax(counts > 1)])
        return f"duplicate edge {key // n_agents} {key % n_agents} (listed {counts.max()} times, either way round)"
    nodes = declared if declared is not None else high + 1
    if nodes != n_agents:
        how = "declares (# nodes:)" if declared is not None else "names (largest node + 1)"
        return f"the file {how} {nodes} nodes but n_agents = {n_agents}"
    return None


# --- A figure's graph family: parameters, checks, generation ------------------------------

#: The keys that determine each family's graph (beyond M), with their kinds.
FAMILY_KEYS = {
    "random_regular": (),
    "erdos_renyi": ("p", "mean_degree"),
    "watts_strogatz": ("k", "p"),
    "random_geometric": ("radius", "mean_degree"),
    "barabasi_albert": ("m",),
    "ring_lattice": ("k",),
    "torus": ("rows", "cols"),
    "complete": (),
    "edge_list": ("path",),
}


def torus_shape(n_agents: int, rows: int | None, cols: int | None) -> tuple[int, int] | None:
    """(rows, cols) with rows x cols = M: as given, the other side completed, or the most
    square factorisation with both sides >= 3; None if there is none."""
    if rows is None and cols is None:
        for side in range(math.isqrt(n_agents), 2, -1):
            if n_agents % side == 0:
                return side, n_agents // side
        return None
    if rows is None:
        rows = n_agents // cols if n_agents % cols == 0 else None
    elif cols is None:
        cols = n_agents // rows if n_agents % rows == 0 else None
    if rows is None or cols is None or rows * cols != n_agents:
        return None
    return rows, cols


def graph_problem(graph: dict, n_agents: int) -> tuple[str, str] | None:
    """(key, why) if the family ``graph`` (validated settings) cannot make a graph on
    ``n_agents`` nodes; None if it can.  ``random_regular`` is checked with ``degree``."""
    family = graph["family"]
    m_1 = n_agents - 1
    if family == "erdos_renyi":
        if graph.get("p") is not None:
            if not 0 <= graph["p"] <= 1:
                return "p", f"{graph['p']} is not a probability in [0, 1]"
        elif not 0 <= graph["mean_degree"] <= m_1:
            return "mean_degree", f"{graph['mean_degree']} is not in [0, n_agents - 1 = {m_1}]"
    elif family in ("watts_strogatz", "ring_lattice"):
        k = graph["k"]
        if k % 2 or not 2 <= k < n_agents:
            return "k", f"{k} with n_agents={n_agents}: need an even k with 2 <= k <= n_agents - 1"
        if family == "watts_strogatz" and not 0 <= graph["p"] <= 1:
            return "p", f"{graph['p']} is not a probability in [0, 1]"
    elif family == "random_geometric":
        if graph.get("radius") is not None:
            if not 0 <= graph["radius"] <= 1:
                return "radius", f"{graph['radius']} is not in [0, 1] (the points lie in the unit square)"
        elif not 0 <= graph["mean_degree"] <= GEOMETRIC_MAX_SHARE * m_1:
            return "mean_degree", (f"{graph['mean_degree']} is not in [0, {GEOMETRIC_MAX_SHARE:.4f} (n_agents - 1) = "
                                   f"{GEOMETRIC_MAX_SHARE * m_1:.4g}] (radius <= 1 in the unit square)")
    elif family == "barabasi_albert":
        if not 1 <= graph["m"] < n_agents:
            return "m", f"{graph['m']} with n_agents={n_agents}: need 1 <= m <= n_agents - 1"
    elif family == "torus":
        for key in ("rows", "cols"):
            if graph.get(key) is not None and graph[key] < 3:
                return key, f"{graph[key]}: a simple 4-regular torus needs rows, cols >= 3"
        shape = torus_shape(n_agents, graph.get("rows"), graph.get("cols"))
        if shape is None or min(shape) < 3:
            key = "rows" if graph.get("rows") is not None or graph.get("cols") is None else "cols"
            given = f"rows={graph.get('rows')}, cols={graph.get('cols')}"
            return key, f"{given}: need rows x cols = n_agents = {n_agents} with rows, cols >= 3"
    elif family == "edge_list":
        path = graph.get("path")
        if not path:
            return "path", "give the edge-list file (text 'u v' per line, or a .npy (E, 2) array)"
        if not Path(path).is_file():
            return "path", f"{path!r} is not a file (relative paths are from the working directory)"
        try:
            rows, declared = read_edge_list(path)
        except (ValueError, UnicodeDecodeError, OSError) as error:
            return "path", f"{path}: {error}"
        why = edge_list_problem(rows, declared, n_agents)
        if why:
            return "path", f"{path}: {why}"
    if family not in ("random_regular", "edge_list"):
        params = graph_params(graph, n_agents)
        edges = expected_mean_degree(params, n_agents) * n_agents / 2
        if edges > MAX_EDGES:
            key = next((k for k in FAMILY_KEYS[family] if k in params), "family")
            return key, f"{family} with these settings makes about {edges:.3g} edges, more than {MAX_EDGES}"
    return None


def graph_params(graph: dict, n_agents: int) -> dict | None:
    """What determines a family's graphs (its keys in use, numbers as float or int, an edge
    list's content as its SHA-256); None for ``random_regular``, whose degree is the
    figure's ``degree`` key (so the default figures' params are those of before families)."""
    family = graph["family"]
    if family == "random_regular":
        return None
    if family in ("erdos_renyi", "random_geometric"):
        given = "p" if family == "erdos_renyi" else "radius"
        if graph.get(given) is not None:
            return {"family": family, given: float(graph[given])}
        return {"family": family, "mean_degree": float(graph["mean_degree"])}
    if family == "watts_strogatz":
        return {"family": family, "k": int(graph["k"]), "p": float(graph["p"])}
    if family == "ring_lattice":
        return {"family": family, "k": int(graph["k"])}
    if family == "barabasi_albert":
        return {"family": family, "m": int(graph["m"])}
    if family == "torus":
        rows, cols = torus_shape(n_agents, graph.get("rows"), graph.get("cols"))
        return {"family": family, "rows": rows, "cols": cols}
    if family == "complete":
        return {"family": family}
    if family == "edge_list":
        return {"family": family, "path": str(graph["path"]), "sha256": file_sha256(graph["path"])}
    raise ValueError(f"unknown graph family {family!r}; families: {FAMILIES}")


def family_edges(params: dict, n_agents: int, rng: np.random.Generator) -> np.ndarray:
    """One graph of the family ``params`` (``graph_params``, not random_regular) on
    ``n_agents`` nodes, drawn from ``rng``; canonical edges (``canonical_edges``)."""
    family = params["family"]
    if family == "erdos_renyi":
        p = params["p"] if "p" in params else params["mean_degree"] / (n_agents - 1)
        return erdos_renyi_edges(n_agents, min(p, 1.0), rng)
    if family == "watts_strogatz":
        return watts_strogatz_edges(n_agents, params["k"], params["p"], rng)
    if family == "random_geometric":
        radius = params["radius"] if "radius" in params else geometric_radius(params["mean_degree"], n_agents)
        return random_geometric_edges(n_agents, radius, rng)
    if family == "barabasi_albert":
        return barabasi_albert_edges(n_agents, params["m"], rng)
    if family == "ring_lattice":
        return ring_lattice_edges(n_agents, params["k"])
    if family == "torus":
        return torus_edges(params["rows"], params["cols"])
    if family == "complete":
        return complete_edges(n_agents)
    if family == "edge_list":
        if file_sha256(params["path"]) != params["sha256"]:
            raise ValueError(f"{params['path']}: its content changed since the params were made (SHA-256 differs)")
        rows, declared = read_edge_list(params["path"])
        why = edge_list_problem(rows, declared, n_agents)
        if why:
            raise ValueError(f"{params['path']}: {why}")
        return canonical_edges(rows)
    raise ValueError(f"unknown graph family {family!r}; families: {FAMILIES}")


def expected_mean_degree(params: dict | None, n_agents: int, degree: int | None = None) -> float:
    """The family's expected mean degree (for sizing jobs); ``degree`` for random_regular."""
    if params is None:
        return float(degree)
    family = params["family"]
    if family in ("erdos_renyi", "random_geometric") and "mean_degree" in params:
        return params["mean_degree"]
    if family == "erdos_renyi":
        return params["p"] * (n_agents - 1)
    if family == "random_geometric":
        return geometric_pair_probability(min(params["radius"], 1.0)) * (n_agents - 1)
    if family in ("watts_strogatz", "ring_lattice"):
        return float(params["k"])
    if family == "barabasi_albert":
        return 2.0 * params["m"] * (n_agents - params["m"]) / n_agents
    if family == "torus":
        return 4.0
    if family == "complete":
        return float(n_agents - 1)
    edges = np.load(params["path"]) if str(params["path"]).endswith(".npy") else edge_list_tokens(params["path"])[0]
    return 2.0 * len(edges) / n_agents


def valid_edges(edges: np.ndarray) -> np.ndarray:
    """A run's edges without the padding rows (-1, -1) of instance files whose runs have
    different edge counts (``colme.instances``)."""
    return edges[edges[:, 0] >= 0]
