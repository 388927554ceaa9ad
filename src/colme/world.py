"""A world: the graph, the classes, the data and the privacy of a simulated figure, defined
once and independent of the algorithm that runs on it.

A world is what the figure keys ``n_agents``, ``degree``/``graph``, ``population``, ``eps``
and ``privacy_mixes`` say, drawn per run from the figure's ``stream``
(``colme.seeding``): the run's instance stream gives its classes then its graph
(``world_instances``), its population stream the agents' true means, its privacy stream the
permutation that gives each agent its level in every mix (``colme.instances``), and its data
stream (``colme.ccolme.randoms``) each agent's samples and unit Laplace draws.  Every engine
that runs graphs (Private-C-ColME's rules, C-ColME and B-ColME) reads the world through
these functions, so two figures of different engines drawing the same stream see the same
graph, classes, samples and noise, run by run, bit for bit.

It also holds what the algorithms report per agent: the groups of agents (class, privacy
level, degree band, band of more-private neighbours) whose MSE a figure records
(``GroupedPanel``), and the privacy level of each agent in a mix (``PrivacyLevels``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .datafiles import (
    DataFileError,
    class_map_from_settings,
    fixed_classes,
    named_edges,
    named_world,
    streams_from_settings,
)
from .errors import ConfigError
from .graphs import FAMILY_KEYS, graph_params, graph_problem
from .instances import make_family_instances, make_instances
from .seeding import stream_name

#: How each graph family other than Private-C-ColME's random regular one is drawn (``colme.graphs``).
GRAPH_FAMILY_CHOICES = {
    "erdos_renyi": "Erdos-Renyi G(M, p), a fresh graph per run (p = mean_degree/(M - 1)); may be disconnected",
    "watts_strogatz": (
        "Watts-Strogatz small world, networkx's rewiring rule (each lattice edge (u, u + j), "
        "j <= k/2, moved to (u, w) with probability p, w uniform keeping the graph simple), per run"
    ),
    "random_geometric": (
        "random geometric graph, M points uniform in the unit square without wrap-around, "
        "radius from mean_degree by (M - 1)(pi r^2 - 8 r^3/3 + r^4/2), per run; may be disconnected"
    ),
    "barabasi_albert": "Barabasi-Albert, networkx's variant (a star on m + 1 nodes first), per run",
    "ring_lattice": "ring lattice (fixed: the same graph every run; only the classes are redrawn)",
    "torus": "2-D torus grid, node i cols + j (fixed: the same graph every run)",
    "complete": "complete graph (fixed: the same graph every run)",
    "edge_list": "a user's edge list (fixed: the same graph every run; its SHA-256 in the params)",
}

#: What a figure's agents can be grouped by (``groups.by``; their product when several):
#: the class, the privacy level of a mix (one group per level; a curve with one eps has
#: one), the degree band (``degree_bands``: on irregular graphs) and the band of the count
#: of neighbours more private than the agent (smaller eps; ``neighbour_bands``).
GROUPINGS = ("class", "privacy", "degree", "private_neighbours")

#: The ``private_neighbours`` groups' name in their labels ("more-private neighbours 2-3").
MORE_PRIVATE = "more-private neighbours"


# --- the graph ------------------------------------------------------------------------------


def world_graph(settings: dict) -> dict | None:
    """The params of the figure's graph family (``colme.graphs.graph_params``), or None
    for the default random regular graph of degree ``degree``."""
    graph = settings.get("graph")
    if not graph or graph.get("family", "random_regular") == "random_regular":
        return None
    if "sha256" in graph:  # params already (an edge list's digest is never re-read)
        return dict(graph)
    return graph_params(graph, settings["n_agents"])


def check_regular_degree(n_agents: int, degree: int, where: str) -> None:
    """Refuse (naming ``where``.degree) a degree no r-regular graph on ``n_agents`` has."""
    if not 1 <= degree < n_agents or (degree * n_agents) % 2:
        raise ConfigError(
            f"{where}.degree={degree} with n_agents={n_agents}: an r-regular graph needs "
            "1 <= degree < n_agents and degree * n_agents even"
        )


def check_graph(graph: dict, n_agents: int, where: str) -> None:
    """A graph family's parameters (schema-valid) against M; ``where``: the graph key."""
    family = graph["family"]
    for first, second in (("p", "mean_degree"), ("radius", "mean_degree")):
        if first in FAMILY_KEYS[family] and second in FAMILY_KEYS[family]:
            given = [key for key in (first, second) if graph.get(key) is not None]
            if len(given) != 1:
                raise ConfigError(
                    f"{where}: family {family} needs exactly one of {where}.{first} and "
                    f"{where}.{second}, got {given or 'neither'}"
                )
    problem = graph_problem(graph, n_agents)
    if problem:
        key, why = problem
        raise ConfigError(f"{where}.{key}={graph.get(key)!r} (family {family}, n_agents={n_agents}): {why}")


def graph_choice(graph: dict) -> str:
    """The line a figure on a graph of another family than random regular adds to its choices."""
    shown = ", ".join(f"{key}={value}" for key, value in graph.items() if key != "family")
    return f"graph: {GRAPH_FAMILY_CHOICES[graph['family']]} ({shown or 'no parameter'})"


def graph_line(graph: dict) -> str:
    """The subtitle's line of a graph of another family than random regular."""
    shown = ", ".join(f"{key} {value:g}" if isinstance(value, float) else f"{key} {value}"
                      for key, value in graph.items() if key not in ("family", "sha256"))
    return f"graph {graph['family']}{' (' + shown + ')' if shown else ''}"


# --- the world's settings ---------------------------------------------------------------------


def check_world(settings: dict, where: str, rules: tuple[str, ...] = ()) -> None:
    """The world's checks across keys, naming the key (``where``: the figure's dotted path):
    the graph (a family's parameters, or a degree an r-regular graph can have), the privacy
    mixes (one share per eps, shares summing to 1) and the groups (bands only with their
    grouping, increasing; ``draw_groups`` names some of ``rules``, the figure's curves'
    rules, and needs groups)."""
    graph = settings.get("graph") or {"family": "random_regular"}
    data = settings["population"].get("data")
    if data:
        check_data(data, settings, where, rules)
    elif settings["population"].get("class_map"):
        check_class_map(settings, where)
    if (data or settings["population"].get("class_map")) and graph["family"] == "edge_list":
        pass  # its nodes are the agents' names: check_data or check_class_map matched them
    elif graph["family"] != "random_regular":
        check_graph(graph, settings["n_agents"], f"{where}.graph")
    else:
        check_regular_degree(settings["n_agents"], settings["degree"], where)
    for index, mix in enumerate(settings.get("privacy_mixes", ())):
        key = f"{where}.privacy_mixes[{index}]"
        if len(mix["shares"]) != len(mix["eps"]):
            raise ConfigError(f"{key}.shares has {len(mix['shares'])} entries but {key}.eps has "
                              f"{len(mix['eps'])}: give one share per eps")
        if not math.isclose(sum(mix["shares"]), 1.0, rel_tol=0, abs_tol=1e-9):
            raise ConfigError(f"{key}.shares={mix['shares']} sums to {sum(mix['shares'])!r}, not 1")
    groups = settings.get("groups") or {}
    for key, grouping in (("degree_bands", "degree"), ("neighbour_bands", "private_neighbours")):
        bands = groups.get(key) or []
        if bands and grouping not in groups.get("by", []):
            raise ConfigError(f"{where}.groups.{key}={bands}: bands need groups.by to include {grouping!r}")
        if any(b >= c for b, c in itertools.pairwise(bands)):
            raise ConfigError(f"{where}.groups.{key}={bands}: cut points must increase strictly")
    drawn = settings.get("draw_groups") or []
    if drawn and not groups.get("by"):
        raise ConfigError(f"{where}.draw_groups={drawn}: there are no groups to draw; set {where}.groups.by "
                          f"(allowed: {', '.join(GROUPINGS)})")
    for index, rule in enumerate(drawn):
        if rule not in rules:
            raise ConfigError(f"{where}.draw_groups[{index}]={rule!r} is not one of the figure's rules {list(rules)}")


def _agents_file(read, settings: dict, where: str, name: str):
    """A file of the agents (``population.<name>``: a data file or a class map), read by
    ``read`` (its errors name the key): it holds ``n_agents`` agents and names every node
    of an edge-list graph among them."""
    noun = {"data": "data file", "class_map": "class map"}[name]
    try:
        agents = read()
        graph = settings.get("graph") or {}
        if graph.get("family") == "edge_list":
            named_edges(graph["path"], agents)
    except DataFileError as error:
        raise ConfigError(f"{where}.population.{name}: {error}") from None
    if agents.n_agents != settings["n_agents"]:
        raise ConfigError(f"{where}.n_agents={settings['n_agents']}, but the {noun} {agents.path} has "
                          f"{agents.n_agents} agents: set n_agents: {agents.n_agents}")
    return agents


def check_data(data: dict, settings: dict, where: str, rules: tuple[str, ...]) -> None:
    """A world from a data file: the file reads (``colme.datafiles.read_streams``' checks),
    has ``n_agents`` agents, gives classes if a curve's rule is the oracle, and names every
    node of an edge-list graph among its agents."""
    key = f"{where}.population.data"
    streams = _agents_file(lambda: streams_from_settings(data), settings, where, "data")
    if "oracle" in rules and streams.classes is None:
        raise ConfigError(f"{key}: the oracle rule keeps an agent's classmates, but {streams.path} gives no class "
                          f"column ({data.get('columns', {}).get('class', 'class')!r}): add one, give a class map "
                          "(population.class_map: agent, class), or drop the oracle")


def check_class_map(settings: dict, where: str) -> None:
    """A law world's class map: it reads (``colme.datafiles.read_class_map``' checks), has
    ``n_agents`` agents, classes that index ``population.means``, and names every node of
    an edge-list graph among its agents."""
    key = f"{where}.population.class_map"
    population = settings["population"]
    class_map = _agents_file(lambda: class_map_from_settings(population["class_map"]), settings, where, "class_map")
    n_classes = len(population["means"])
    numbered = all(name == str(code) for name, code in zip(class_map.class_names, range(n_classes), strict=False))
    if len(class_map.class_names) > n_classes or not numbered:
        raise ConfigError(f"{key}: {class_map.path} names the classes {list(class_map.class_names)}; in a world "
                          f"drawn from laws they index population.means: integers 0 .. {n_classes - 1}")


def world_numeric_params(params: dict, settings: dict) -> dict:
    """``params`` (a figure's numeric settings) with the world's keys canonical: no
    ``privacy_mixes`` without mixes and no ``groups`` without groups (so that a figure
    that sets neither keeps the params it had before these keys, bit for bit), the bands
    of the groups written out, and another family's graph params in place of the ``degree``
    it does not read (none for the random regular graph)."""
    params = dict(params)
    if not params.get("privacy_mixes"):
        params.pop("privacy_mixes", None)
    params.pop("draw_groups", None)  # drawing only
    groups = params.pop("groups", None) or {}
    if groups.get("by"):
        params["groups"] = {"by": list(groups["by"])}
        for grouping, bands, default in (("degree", "degree_bands", default_degree_bands),
                                         ("private_neighbours", "neighbour_bands", default_neighbour_bands)):
            if grouping in groups["by"]:
                params["groups"][bands] = list(groups.get(bands) or default(settings["n_agents"]))
    graph = world_graph(settings)
    params.pop("graph", None)
    if graph is not None:
        params.pop("degree", None)
        params["graph"] = graph
    return params


def world_instance_params(params: dict, settings: dict) -> dict:
    """A figure's instance params (``SimulatedEngine.instance_params``) with another
    family's graph params in place of the ``degree``: equal for two figures of any engines
    on one world, so that one can draw the other's streams."""
    graph = world_graph(settings)
    if graph is None:
        return params
    params = {key: value for key, value in params.items() if key != "degree"}
    return {**params, "graph": graph}


def world_instances(params: dict, figure: str, start: int, stop: int) -> dict:
    """Runs ``start``..``stop - 1``'s classes, graphs (edge lists) and component sizes, each
    from the run's instance stream (``stream_name``): random r-regular graphs, or the
    family of ``params["graph"]``.  A world from a data file (``params["data"]``) or with a
    class map (``params["class_map"]``) has the file's classes in every run, and an edge
    list's nodes are its agents' names."""
    stream = stream_name(params, figure)
    runs = range(start, stop)
    fixed = {}
    named = named_world(params)
    if named is not None:
        fixed["fixed_classes"] = fixed_classes(params)
        if params.get("graph", {}).get("family") == "edge_list":
            fixed["fixed_edges"] = named_edges(params["graph"]["path"], named)
    assignment = (params["n_agents"], params["n_classes"])
    classes = (params.get("class_probabilities"), params.get("class_sizes"))
    if "graph" in params:
        return make_family_instances(*assignment, params["graph"], stream, runs, params["seed"], *classes, **fixed)
    return make_instances(*assignment, params["degree"], stream, runs, params["seed"], *classes, **fixed)


# --- privacy levels ----------------------------------------------------------------------------


def eps_text(eps: float) -> str:
    return "inf" if math.isinf(eps) else f"{eps:g}"


def share_counts(shares, n_agents: int) -> np.ndarray:
    """Agents per share: floor(share M), the remainder to the largest fractional parts
    (the first listed among equal ones)."""
    exact = np.asarray(shares, dtype=np.float64) * n_agents
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: n_agents - int(counts.sum())]] += 1
    return counts


class PrivacyLevels:
    """A curve's privacy: one ``eps`` for every agent, or a ``mix``: (eps, share) pairs,
    the share of the agents at each eps (``agent_levels``).  Mixed into the curves of the
    engines that run worlds (fields ``eps`` and ``mix``)."""

    eps: float
    mix: tuple[tuple[float, float], ...]

    @property
    def eps_label(self) -> str:
        """"eps=1" or, for a mix, "eps=1:20%,inf:80%" (the end of the curve's name)."""
        if self.mix:
            return "eps=" + ",".join(f"{eps_text(eps)}:{100 * share:g}%" for eps, share in self.mix)
        return f"eps={eps_text(self.eps)}"

    def levels(self, count: int) -> tuple[float, ...]:
        """The curve's eps per privacy level, padded to ``count`` levels (unused ones)."""
        levels = tuple(eps for eps, _ in self.mix) or (self.eps,)
        return levels + (levels[-1],) * (count - len(levels))

    def agent_levels(self, ranks: np.ndarray) -> np.ndarray:
        """Each agent's privacy level from its rank (a uniformly random permutation of the
        agents, ``colme.instances.privacy_ranks``): the first share_1 M ranks get the first
        eps, and so on, with counts rounded by largest remainder.  One permutation per run
        serves every curve, so mixes of one figure nest and pair run by run, whatever the
        engine."""
        if not self.mix:
            return np.zeros(len(ranks), dtype=np.int64)
        counts = share_counts([share for _, share in self.mix], len(ranks))
        return np.searchsorted(np.cumsum(counts), ranks, side="right")


def mix_curves(mixes) -> list[tuple[tuple[float, float], ...]]:
    """The (eps, share) pairs of each ``privacy_mixes`` entry, as a curve's ``mix``."""
    return [tuple((float(e), float(share)) for e, share in zip(mix["eps"], mix["shares"], strict=True))
            for mix in mixes]


# --- groups of agents ---------------------------------------------------------------------------


def default_degree_bands(n_agents: int) -> tuple[int, ...]:
    """Cut points 2, 4, 8, ... below ``n_agents``: bands of degree < 2, 2-3, 4-7, ..."""
    cuts, cut = [], 2
    while cut < n_agents:
        cuts.append(cut)
        cut *= 2
    return tuple(cuts)


def default_neighbour_bands(n_agents: int) -> tuple[int, ...]:
    """Cut points 1, 2, 4, 8, ... below ``n_agents``: none, 1, 2-3, 4-7, ... more-private
    neighbours."""
    return (1, *default_degree_bands(n_agents))


def band_labels(cuts, what: str = "degree") -> list[str]:
    """Labels of the bands the cut points make: "degree < c1" ("degree 0" for c1 = 1),
    "degree c1-c2-1" ("degree c1" for a band of one), ..., "degree >= ck" (one band, "any
    degree", without cut points)."""
    if not cuts:
        return [f"any {what}"]
    labels = [f"{what} 0" if cuts[0] == 1 else f"{what} < {cuts[0]}"]
    for low, high in itertools.pairwise(cuts):
        labels.append(f"{what} {low}" if high == low + 1 else f"{what} {low}-{high - 1}")
    return [*labels, f"{what} >= {cuts[-1]}"]


class GroupedPanel:
    """The groups of agents a panel records the MSE of: mixed into the specs of the engines
    that run worlds (fields ``population``, ``curves`` (``PrivacyLevels``), ``groups``,
    ``degree_bands``, ``neighbour_bands``)."""

    @property
    def n_levels(self) -> int:
        """Privacy levels per curve: the largest mix's (1 without mixes)."""
        return max(len(c.mix) or 1 for c in self.curves)

    def group_shape(self) -> tuple[int, ...]:
        """Groups per grouping of ``groups``, in its order (a group's index is mixed radix)."""
        counts = {"class": self.population.n_classes, "privacy": self.n_levels,
                  "degree": len(self.degree_bands) + 1, "private_neighbours": len(self.neighbour_bands) + 1}
        return tuple(counts[grouping] for grouping in self.groups)

    @property
    def n_groups(self) -> int:
        """Groups the MSE is recorded for (0 without ``groups``)."""
        return int(np.prod(self.group_shape())) if self.groups else 0

    def agent_groups(self, curve: PrivacyLevels, classes: np.ndarray, ranks: np.ndarray | None,
                     indptr: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
        """Each agent's group (M,) on ``curve`` in one run (graph in CSR, ``indptr`` and
        ``neighbours``): its class, its privacy level in the curve's mix
        (``PrivacyLevels.agent_levels`` of the run's privacy ``ranks``; level 0 on a curve
        with one eps), its degree band and its band of neighbours with a smaller eps than
        its own, combined in ``groups``' order."""
        levels = curve.agent_levels(np.zeros(len(classes), dtype=np.int64) if ranks is None else ranks)

        def more_private() -> np.ndarray:
            eps = np.asarray(curve.levels(self.n_levels))[levels]
            heads = np.repeat(np.arange(len(classes)), np.diff(indptr))
            counts = np.bincount(heads[eps[neighbours] < eps[heads]], minlength=len(classes))
            return np.searchsorted(np.asarray(self.neighbour_bands), counts, side="right")

        parts = {
            "class": lambda: classes.astype(np.int64),
            "privacy": lambda: levels,
            "degree": lambda: np.searchsorted(np.asarray(self.degree_bands), np.diff(indptr), side="right"),
            "private_neighbours": more_private,
        }
        index = np.zeros(len(classes), dtype=np.int64)
        for grouping, count in zip(self.groups, self.group_shape(), strict=True):
            index = index * count + parts[grouping]()
        return index

    def group_labels(self, curve: PrivacyLevels) -> list[str]:
        """The label of each group of ``curve`` (``agent_groups``' indices), e.g.
        "class 1, eps=1": a mix's level by its eps (a level the curve lacks is never
        anybody's, as is a class or band no agent falls in)."""
        names = {
            "class": [f"class {c}" for c in range(self.population.n_classes)],
            "privacy": [f"eps={eps_text(eps)}" for eps in curve.levels(self.n_levels)],
            "degree": band_labels(self.degree_bands),
            "private_neighbours": band_labels(self.neighbour_bands, MORE_PRIVATE),
        }
        labels = [""]
        for grouping in self.groups:
            labels = [f"{head}, {name}" if head else name for head in labels for name in names[grouping]]
        return labels


def panel_groups(params: dict) -> dict:
    """The spec fields of a figure's (canonical) groups: ``groups``, ``degree_bands``,
    ``neighbour_bands``."""
    groups = params.get("groups") or {}
    return {"groups": tuple(groups.get("by", ())), "degree_bands": tuple(groups.get("degree_bands", ())),
            "neighbour_bands": tuple(groups.get("neighbour_bands", ()))}
