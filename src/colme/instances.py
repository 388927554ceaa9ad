"""Instances of a simulated figure: class assignments, communication graphs and n_a.

Shared by the simulated engines; each run's instance comes from its own generator (root
seed, figure, run), so it does not depend on the chunking.
"""

from __future__ import annotations

import numpy as np

from .graphs import family_edges, random_regular_edges
from .populations import assign_classes, component_sizes
from .seeding import run_generator


def run_classes(n_agents, n_classes, rng, probabilities, sizes, fixed_classes):
    """A run's classes: ``fixed_classes`` (a world from a data file: the same every run, no
    draw), else drawn from the run's instance stream (``assign_classes``)."""
    if fixed_classes is not None:
        return np.asarray(fixed_classes, dtype=np.int8)
    return assign_classes(n_agents, n_classes, rng, probabilities, sizes)


def make_instances(
    n_agents: int, n_classes: int, degree: int | None, figure: str, runs: range, root_seed: int,
    probabilities=None, sizes=None, fixed_classes=None,
) -> dict[str, np.ndarray]:
    """Class assignments, graphs and n_a for a range of runs.

    Classes: ``colme.populations.assign_classes`` (uniform, ``probabilities`` or exact
    ``sizes``), or ``fixed_classes`` (``run_classes``).  With a ``degree``: random
    r-regular graphs, n_a = class-induced component size.  Without: all-to-all (no edge list stored), n_a = |C_a|.
    """
    runs = np.arange(runs.start, runs.stop)
    classes, edges = [], []
    for run in runs:
        rng = run_generator(root_seed, figure, int(run), "instance")
        classes.append(run_classes(n_agents, n_classes, rng, probabilities, sizes, fixed_classes))
        if degree is not None:
            edges.append(random_regular_edges(degree, n_agents, rng))
    classes = np.stack(classes)
    if degree is not None:
        edges = np.stack(edges)
        sizes = np.stack([component_sizes(e, c) for e, c in zip(edges, classes, strict=True)])
    else:
        edges = np.zeros((len(runs), 0, 2), dtype=np.int32)
        sizes = np.stack([np.bincount(c)[c] for c in classes]).astype(np.int32)
    return {"runs": runs, "classes": classes, "edges": edges, "component_sizes": sizes}


def make_family_instances(
    n_agents: int, n_classes: int, graph: dict, figure: str, runs: range, root_seed: int,
    probabilities=None, sizes=None, fixed_classes=None, fixed_edges=None,
) -> dict[str, np.ndarray]:
    """Class assignments, graphs of the family ``graph`` (``colme.graphs.graph_params``,
    not random_regular) and n_a for a range of runs.

    Each run draws its classes, then its graph, from its instance stream (the order of
    ``make_instances``).  Runs whose graphs have fewer edges than the range's largest are
    padded with rows (-1, -1) (``colme.graphs.valid_edges`` drops them), so ``edges`` stays
    one (R, E_max, 2) array; ``n_edges`` (R,) holds each run's count.  ``fixed_classes``:
    ``run_classes``; ``fixed_edges``: every run's graph (an edge list of agents' names in a
    world from a data file, ``colme.datafiles.named_edges``).
    """
    runs = np.arange(runs.start, runs.stop)
    classes, edges = [], []
    for run in runs:
        rng = run_generator(root_seed, figure, int(run), "instance")
        classes.append(run_classes(n_agents, n_classes, rng, probabilities, sizes, fixed_classes))
        edges.append(family_edges(graph, n_agents, rng) if fixed_edges is None else fixed_edges)
    counts = np.array([len(e) for e in edges], dtype=np.int64)
    padded = np.full((len(runs), int(counts.max(initial=0)), 2), -1, dtype=np.int32)
    for row, e in enumerate(edges):
        padded[row, : len(e)] = e
    sizes = np.stack([component_sizes(e, c) for e, c in zip(edges, classes, strict=True)])
    return {
        "runs": runs, "classes": np.stack(classes), "edges": padded, "n_edges": counts,
        "component_sizes": sizes,
    }


def run_agent_means(population, classes: np.ndarray, figure: str, runs, root_seed: int) -> np.ndarray | None:
    """Each run's true means (R, M) for a population with jitter, each from the run's
    population stream; None without jitter (the class means)."""
    if population.jitter == 0:
        return None
    return np.stack([
        population.agent_means(c, run_generator(root_seed, figure, int(run), "population"))
        for c, run in zip(classes, runs, strict=True)
    ])


def privacy_ranks(n_agents: int, figure: str, runs, root_seed: int) -> np.ndarray:
    """Each run's uniformly random permutation of the agents (R, M), from the run's
    privacy stream: rank r_a assigns agent a its privacy level in every mix of the figure
    (``colme.ccolme.spec.Curve.agent_levels``)."""
    return np.stack([
        run_generator(root_seed, figure, int(run), "privacy").permutation(n_agents) for run in runs
    ])
