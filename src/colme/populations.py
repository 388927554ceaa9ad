"""Agent populations: class assignments, data laws and class-induced component sizes n_a."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components


@dataclass(frozen=True)
class UniformClasses:
    """Classes with means ``means`` and data uniform on [mu - L, mu + L], L = sigma sqrt 3.

    The paper's set-up (seed 002 Sec. V, seed 004 Sec. VII): means 1/5, 2/5, 4/5 and
    sigma = 1/2 shared by all classes.
    """

    means: tuple[float, ...] = (0.2, 0.4, 0.8)
    sigma: float = 0.5

    @property
    def half_width(self) -> float:
        """L = sigma sqrt 3, so that the uniform law has standard deviation sigma."""
        return self.sigma * math.sqrt(3.0)

    def assign(self, n_agents: int, rng: np.random.Generator) -> np.ndarray:
        """Each agent's class, i.i.d. uniform over the classes (int8 array)."""
        return assign_classes(n_agents, len(self.means), rng)

    def agent_means(self, classes: np.ndarray) -> np.ndarray:
        """True mean mu_a of every agent."""
        return np.asarray(self.means, dtype=np.float64)[classes]


def assign_classes(n_agents: int, n_classes: int, rng: np.random.Generator) -> np.ndarray:
    """Each agent's class, i.i.d. uniform over ``n_classes`` classes (int8 array)."""
    return rng.integers(0, n_classes, size=n_agents).astype(np.int8)


def same_class_edges(edges: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The edges of the class-induced subgraph (both ends in the same class)."""
    return edges[classes[edges[:, 0]] == classes[edges[:, 1]]]


def component_sizes(edges: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """n_a: size of the connected component containing a in the class-induced subgraph.

    Seed 002 Sec. III-A: G_a is the component of a in the subgraph induced by C_a.  Any
    graph (isolated agents are components of size 1); padding rows (-1, -1) are dropped.
    """
    n_agents = classes.shape[0]
    inner = same_class_edges(edges[edges[:, 0] >= 0], classes)
    graph = coo_matrix(
        (np.ones(len(inner)), (inner[:, 0], inner[:, 1])), shape=(n_agents, n_agents)
    )
    _, labels = connected_components(graph, directed=False)
    return np.bincount(labels)[labels].astype(np.int32)
