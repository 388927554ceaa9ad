"""Instances of a simulated figure: class assignments, communication graphs and n_a.

Shared by the simulated engines; each run's instance comes from its own generator (root
seed, figure, run), so it does not depend on the chunking.
"""

from __future__ import annotations

import numpy as np

from .graphs import random_regular_edges
from .populations import assign_classes, component_sizes
from .seeding import run_generator


def make_instances(
    n_agents: int, n_classes: int, degree: int | None, figure: str, runs: range, root_seed: int
) -> dict[str, np.ndarray]:
    """Class assignments, graphs and n_a for a range of runs.

    With a ``degree``: random r-regular graphs, n_a = class-induced component size.
    Without: all-to-all (no edge list stored), n_a = |C_a|.
    """
    runs = np.arange(runs.start, runs.stop)
    classes, edges = [], []
    for run in runs:
        rng = run_generator(root_seed, figure, int(run), "instance")
        classes.append(assign_classes(n_agents, n_classes, rng))
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
