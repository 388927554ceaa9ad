"""Agent populations: classes, their data laws, class assignments and the class-induced
component sizes n_a.

Private-C-ColME (Yakimenka et al. 2025, arXiv:2511.04702, Sec. II-III) only asks of an
agent's law D_a that it have a bounded support, a publicly known variance sigma_a^2 and a
Bernstein parameter beta_a (Definition 2); its experiments (Sec. V, as Sec. VII of
Private-ColME, Yakimenka et al. 2024, arXiv:2411.07094) use three classes, means 1/5, 2/5,
4/5, and data uniform on [mu - L, mu + L], L = sigma sqrt 3, sigma = 1/2 for all.
``Population`` is that set-up by default and, from the configuration, any number of
classes with their own sigma, class probabilities or exact sizes, one of four bounded laws
and a per-agent jitter of the mean.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

import numba
import numpy as np

from .datafiles import (
    canonical_class_map,
    canonical_data,
    class_map_from_settings,
    file_choices,
    streams_from_settings,
)

#: The data laws, each on a bounded support, with the shape keys each reads.
LAW_SHAPES = {"uniform": (), "truncated_normal": ("truncation",), "beta": ("a", "b"), "two_point": ("p",)}

#: Kernel codes of the laws' samplers (``centred_sample``).
LAW_CODES = {"uniform": 0, "two_point": 1, "truncated_normal": 2, "beta": 2}

#: Points of the quantile table that samples the truncated normal and Beta laws (linear
#: interpolation between them; the table is then centred and scaled, ``quantile_table``).
QUANTILE_POINTS = 4097



class KernelLaws(NamedTuple):
    """Each class's data law as every kernel's ``centred_sample`` reads it, indexed by
    class: ``law_code`` (``LAW_CODES``), ``law_a0..2`` (``DataLaw.kernel_parameters``) and
    ``quantiles`` (QUANTILE_POINTS per class; zeros for the laws drawn without a table).
    One argument group of the kernels, shared by all of them."""

    law_code: np.ndarray
    law_a0: np.ndarray
    law_a1: np.ndarray
    law_a2: np.ndarray
    quantiles: np.ndarray


#: Moments k = 3..MAX_MOMENT searched for the Bernstein parameter (``bernstein_beta``).
MAX_MOMENT = 64


def uniform_bernstein_beta(half_width: float) -> float:
    """Bernstein parameter of the uniform law on [mu - L, mu + L]: L / (2 sqrt 5)
    (Private-C-ColME Lemma 2)."""
    return half_width / (2.0 * math.sqrt(5.0))


@dataclass(frozen=True)
class DataLaw:
    """One class's data law, X = mu + sigma * Y with Y standardised (mean 0, variance 1).

    ``uniform``: Y uniform on [-sqrt 3, sqrt 3] (Private-C-ColME Sec. V).
    ``truncated_normal``: a normal truncated at +-``truncation`` of its own standard
    deviation, rescaled to variance 1.  ``beta``: Beta(``a``, ``b``) shifted to mean 0 and
    scaled to variance 1.  ``two_point``: 1 - p with probability p and -p otherwise, scaled
    to variance 1 (a Bernoulli(p) sample, centred).
    """

    kind: str = "uniform"
    sigma: float = 0.5
    truncation: float = 2.0
    a: float = 2.0
    b: float = 2.0
    p: float = 0.5

    def __post_init__(self):
        if self.kind not in LAW_SHAPES:
            raise ValueError(f"law kind must be one of {tuple(LAW_SHAPES)}, got {self.kind!r}")
        if not self.sigma > 0:
            raise ValueError(f"sigma must be > 0, got {self.sigma!r}")

    @cached_property
    def _standard(self):
        """(scipy law of the unscaled variable, its mean, its standard deviation)."""
        from scipy import stats  # lazy: scipy.stats costs every job ~0.3 s of start-up

        if self.kind == "truncated_normal":
            law = stats.truncnorm(-self.truncation, self.truncation)
        elif self.kind == "beta":
            law = stats.beta(self.a, self.b)
        elif self.kind == "uniform":
            law = stats.uniform(-1.0, 2.0)
        else:
            law = stats.bernoulli(self.p)
        return law, float(law.mean()), float(law.std())

    @property
    def support(self) -> tuple[float, float]:
        """(low, high) of X - mu: the law's bounded support around its mean; for the laws
        drawn by table, the table's end points (``quantile_table``: within 1e-6 relative of
        the exact law's), so that the noise calibrated to it covers every draw."""
        if self.kind == "uniform":
            return -self.half_width, self.half_width
        if LAW_CODES[self.kind] == 2:
            return float(self.quantile_table[0]), float(self.quantile_table[-1])
        law, mean, std = self._standard
        low, high = law.support()  # two-point: Bernoulli's {0, 1}
        return self.sigma * (low - mean) / std, self.sigma * (high - mean) / std

    @property
    def half_width(self) -> float:
        """Half the support's width: the L of the Laplace mechanism's sensitivity 2L (seed
        002 Lemma 1).  Uniform: L = sigma sqrt 3, as in Sec. V."""
        if self.kind == "uniform":
            return self.sigma * math.sqrt(3.0)
        low, high = self.support
        return (high - low) / 2.0

    def centred_moment(self, k: int) -> float:
        """E[(X - mu)^k], exactly: closed forms (uniform, two-point) or adaptive quadrature
        of the density (truncated normal, Beta)."""
        if self.kind == "uniform":
            return 0.0 if k % 2 else self.half_width**k / (k + 1)
        law, mean, std = self._standard
        if self.kind == "two_point":
            p = self.p
            standard = p * (1 - p) ** k + (1 - p) * (-p) ** k
        else:
            from scipy import integrate  # lazy: as scipy.stats, only laws other than uniform

            low, high = law.support()
            with warnings.catch_warnings():
                # high k: quad may warn that it cannot reach 1e-12; those terms are orders of
                # magnitude below the Bernstein maximum (attained at k <= 20, tested)
                warnings.simplefilter("ignore", integrate.IntegrationWarning)
                standard = integrate.quad(lambda x: (x - mean) ** k * law.pdf(x), low, high, limit=200,
                                          epsabs=0.0, epsrel=1e-12)[0]
        return (self.sigma / std) ** k * standard

    @cached_property
    def bernstein_beta(self) -> float:
        """The Bernstein parameter beta of Definition 2: the least beta with |E[(X-mu)^k]|
        <= k!/2 sigma^2 beta^(k-2) for all k >= 2, i.e. max over k >= 3 of
        (2 |E[(X-mu)^k]| / (k! sigma^2))^(1/(k-2)).

        Uniform: Lemma 2's L/(2 sqrt 5) (the k = 4 term), as the paper uses.  Other laws:
        the maximum over k = 3..MAX_MOMENT of the exact moments; with |X - mu| <= D the
        terms beyond are below D (2/k!)^(1/(k-2)), under D/10 for k > 30, and every law
        here attains its maximum at small k (tested).
        """
        if self.kind == "uniform":
            return uniform_bernstein_beta(self.half_width)
        return max(self.bernstein_terms())

    def bernstein_terms(self) -> np.ndarray:
        """(2 |E[(X-mu)^k]| / (k! sigma^2))^(1/(k-2)) for k = 3..MAX_MOMENT."""
        ks = np.arange(3, MAX_MOMENT + 1)
        moments = np.array([abs(self.centred_moment(int(k))) for k in ks])
        from scipy import special  # lazy: only laws other than uniform

        with np.errstate(divide="ignore"):
            logs = np.log(2.0 * moments) - special.gammaln(ks + 1.0) - 2.0 * math.log(self.sigma)
        return np.exp(logs / (ks - 2.0))

    @cached_property
    def quantile_table(self) -> np.ndarray:
        """QUANTILE_POINTS values of the quantile function of X - mu at u = i/(points - 1),
        for the laws sampled by table (truncated normal, Beta).

        The sampler interpolates linearly between them, i.e. draws from a mixture of
        uniforms on the cells; the table is then shifted and scaled so that this mixture
        has mean 0 and variance sigma^2 exactly (a change of order 1e-7 relative), so the
        simulated law keeps the class's mean and the variance the rules are told.
        """
        law, mean, _ = self._standard
        u = np.linspace(0.0, 1.0, QUANTILE_POINTS)
        values = law.ppf(u) - mean
        values[0], values[-1] = law.support()[0] - mean, law.support()[1] - mean
        left, right = values[:-1], values[1:]
        table_mean = np.mean((left + right) / 2.0)
        table_second = np.mean((left * left + left * right + right * right) / 3.0)
        return (values - table_mean) * (self.sigma / math.sqrt(table_second - table_mean**2))

    def kernel_parameters(self) -> tuple[int, float, float, float]:
        """(code, a0, a1, a2) of ``centred_sample``: uniform (half-width), two-point
        (p, the high value, the low value); table laws read ``quantile_table``."""
        code = LAW_CODES[self.kind]
        if self.kind == "uniform":
            return code, self.half_width, 0.0, 0.0
        if self.kind == "two_point":
            low, high = self.support
            return code, self.p, high, low
        return code, 0.0, 0.0, 0.0

    def sample(self, u: np.ndarray) -> np.ndarray:
        """X - mu for uniforms ``u`` in [0, 1): the kernels' sampler (``centred_sample``)."""
        code, a0, a1, a2 = self.kernel_parameters()
        table = self.quantile_table if code == 2 else np.zeros(2)
        return np.array([centred_sample(float(x), code, a0, a1, a2, table) for x in np.ravel(u)])


@dataclass(frozen=True)
class EmpiricalLaw:
    """One class's law as a data file gives it (``colme.datafiles``): its samples' spread
    about their agents' true means, which the rules and the privacy calibration read as
    they read a ``DataLaw``'s.

    ``sigma``: the class's pooled standard deviation about each agent's true mean (what
    the rules are told; said in the figure's choices); ``support``: the least and greatest
    centred sample; ``half_width``: L, half the width of the range every value is bounded
    in (``datafiles.DataRange``: the Laplace mechanism's sensitivity 2L / t);
    ``bernstein_beta``: Definition 2's parameter of the class's centred samples (their
    empirical moments, k = 3..MAX_MOMENT).  ``quantile_table``: their quantiles, so that a
    kernel drawing from this law (none does: file worlds replay the samples) would draw
    the empirical law.  ``digest`` identifies the samples (file, class, range)."""

    sigma: float
    low: float
    high: float
    half_width: float
    bernstein_beta: float
    digest: str
    table: tuple[float, ...] = field(repr=False, compare=False, hash=False)

    kind = "file"

    @classmethod
    def from_samples(cls, centred: np.ndarray, half_width: float, digest: str) -> EmpiricalLaw:
        """The law of a class's centred samples (each minus its agent's true mean)."""
        sigma = float(np.sqrt(np.mean(centred**2)))
        if not sigma > 0:
            raise ValueError(f"the class's samples do not vary (digest {digest[:12]}): no spread to estimate")
        ks = np.arange(3, MAX_MOMENT + 1)
        scaled = centred / sigma  # moments of the standardised samples: no overflow at high k
        moments = np.array([abs(np.mean(scaled ** int(k))) for k in ks])
        from scipy import special  # lazy: only worlds from data files

        with np.errstate(divide="ignore"):
            logs = np.log(2.0 * moments) - special.gammaln(ks + 1.0) + (ks - 2.0) * math.log(sigma)
        beta = float(np.max(np.exp(logs / (ks - 2.0))))
        table = np.quantile(centred, np.linspace(0.0, 1.0, QUANTILE_POINTS))
        return cls(sigma, float(centred.min()), float(centred.max()), float(half_width), beta, digest,
                   tuple(float(x) for x in table))

    @property
    def support(self) -> tuple[float, float]:
        return self.low, self.high

    @property
    def quantile_table(self) -> np.ndarray:
        return np.array(self.table)

    def kernel_parameters(self) -> tuple[int, float, float, float]:
        return LAW_CODES["beta"], 0.0, 0.0, 0.0  # the table sampler


@numba.njit(cache=True)
def centred_sample(u, code, a0, a1, a2, table):
    """One draw of X - mu from a uniform u in [0, 1) (``DataLaw.kernel_parameters``).

    Code 0 (uniform): a0 (2u - 1), the expression of the paper's kernel, bit for bit;
    1 (two-point): a1 (the high value) if u < a0 (= p), else a2; 2: the quantile table
    interpolated linearly at u.
    """
    if code == 0:
        return a0 * (2.0 * u - 1.0)
    if code == 1:
        return a1 if u < a0 else a2
    position = u * (table.shape[0] - 1)
    cell = min(int(position), table.shape[0] - 2)
    weight = position - cell
    return table[cell] + weight * (table[cell + 1] - table[cell])


#: What a population beyond the papers' adds to a figure's recorded choices.
POPULATION_CHOICES = {
    "law": (
        "data law {kind}: the Laplace (or Gaussian) noise calibrated to the width 2L of the law's "
        "support (L = half the width); the Bernstein parameter of Private-C-ColME's Definition 2 "
        "(arXiv:2511.04702) computed exactly as max over k = 3..64 of "
        "(2 |E(X - mu)^k| / (k! sigma^2))^(1/(k-2)) "
        "(Lemma 2's L/(2 sqrt 5) for the uniform law)"
    ),
    "table": (
        "truncated normal and Beta data drawn by a {points}-point quantile table of the law, "
        "interpolated linearly, shifted and scaled so the drawn law has the class's mean and "
        "variance exactly (its end points are the support the noise is calibrated to)"
    ),
    "assignment": "classes: {assignment}, drawn per run from its instance stream (before the graph)",
    "class_map": "classes: from the class map {path}, the same in every run (agents in its agents' order)",
    "jitter": (
        "per-agent mean jitter: mu_a = class mean + U[-{jitter:g}, {jitter:g}], drawn per run from its "
        "population stream; Ideal stays sigma^2/(n_a t), the variance of a class average without the "
        "jitter's bias"
    ),
}


def population_choices(population: Population) -> tuple[str, ...]:
    """The lines of POPULATION_CHOICES that apply to ``population`` (none for the papers');
    a file world's are its data's (``colme.datafiles.file_choices``)."""
    if population.streams is not None:
        return file_choices(population.streams)
    lines = []
    kinds = {law.kind for law in population.laws}
    if kinds != {"uniform"}:
        lines.append(POPULATION_CHOICES["law"].format(kind="/".join(sorted(kinds))))
    if kinds & {"truncated_normal", "beta"}:
        lines.append(POPULATION_CHOICES["table"].format(points=QUANTILE_POINTS))
    if population.probabilities is not None:
        lines.append(POPULATION_CHOICES["assignment"].format(
            assignment=f"i.i.d. with probabilities {list(population.probabilities)}"))
    if population.sizes is not None:
        lines.append(POPULATION_CHOICES["assignment"].format(
            assignment=f"exact sizes {list(population.sizes)} in a uniformly random arrangement"))
    if population.class_map is not None:
        lines.append(POPULATION_CHOICES["class_map"].format(path=population.class_map.path))
    if population.jitter > 0:
        lines.append(POPULATION_CHOICES["jitter"].format(jitter=population.jitter))
    return tuple(lines)


def canonical_population(spec: dict) -> dict:
    """A ``population`` mapping (schema defaults filled) with every key at its default
    dropped: means and sigma always; the law and its shape keys unless uniform; the
    assignment and the jitter when set.  The papers' population keeps the params it had
    before laws existed, so adding these keys reruns nothing.  A file world is its ``data``
    alone (``colme.datafiles.canonical_data``: with the file's SHA-256)."""
    if spec.get("data"):  # a class map is the data's: its classes replace the file's own
        class_map = {"class_map": spec["class_map"]} if spec.get("class_map") else {}
        return {"data": canonical_data({**spec["data"], **class_map})}
    canonical = {"means": list(spec["means"]), "sigma": spec["sigma"]}
    law = spec.get("law") or {"kind": "uniform"}
    if law["kind"] != "uniform":
        canonical["law"] = {"kind": law["kind"], **{key: law[key] for key in LAW_SHAPES[law["kind"]] if key in law}}
    for key in ("probabilities", "sizes"):
        if spec.get(key) is not None:
            canonical[key] = list(spec[key])
    if spec.get("jitter"):
        canonical["jitter"] = spec["jitter"]
    if spec.get("class_map"):
        canonical["class_map"] = canonical_class_map(spec["class_map"])
    return canonical


@dataclass(frozen=True)
class Population:
    """Classes with means ``means``, one data law each (``laws``), and how agents get them.

    Assignment: i.i.d. uniform over the classes (the papers; ``probabilities`` None),
    i.i.d. with ``probabilities``, exact ``sizes`` (a uniformly random arrangement), or
    a ``class_map`` (``colme.datafiles.ClassMap``: every agent's class from a file, the
    same in every run; its classes are indices into ``means``).
    ``jitter`` > 0 moves each agent's mean by an offset uniform on [-jitter, jitter] (a
    class then gathers agents with nearby, not equal, means).
    """

    means: tuple[float, ...] = (0.2, 0.4, 0.8)
    laws: tuple[DataLaw, ...] = (DataLaw(), DataLaw(), DataLaw())
    probabilities: tuple[float, ...] | None = None
    sizes: tuple[int, ...] | None = None
    jitter: float = 0.0
    class_map: object = field(default=None, repr=False, compare=False, hash=False)
    #: A world from a data file (``colme.datafiles.AgentStreams``): the agents' samples,
    #: classes and true means come from it; ``means`` and ``laws`` are its classes'.
    streams: object = field(default=None, repr=False, compare=False, hash=False)

    def __post_init__(self):
        if len(self.laws) != len(self.means):
            raise ValueError(f"{len(self.means)} class means but {len(self.laws)} laws")

    @classmethod
    def from_settings(cls, spec: dict) -> Population:
        """The population of a configuration's ``population`` mapping (schema-valid); one
        with ``data`` is the data file's (``colme.datafiles.file_population``)."""
        if spec.get("data"):
            return file_population(spec["data"])
        means = tuple(float(m) for m in spec["means"])
        sigma = spec["sigma"]
        sigmas = [float(s) for s in sigma] if isinstance(sigma, list) else [float(sigma)] * len(means)
        law = spec.get("law") or {"kind": "uniform"}
        shape = {key: float(law[key]) for key in LAW_SHAPES[law["kind"]] if key in law}
        probabilities, sizes = spec.get("probabilities"), spec.get("sizes")
        return cls(
            means=means,
            laws=tuple(DataLaw(law["kind"], s, **shape) for s in sigmas),
            probabilities=None if probabilities is None else tuple(float(p) for p in probabilities),
            sizes=None if sizes is None else tuple(int(n) for n in sizes),
            jitter=float(spec.get("jitter", 0.0)),
            class_map=class_map_from_settings(spec["class_map"]) if spec.get("class_map") else None,
        )

    @property
    def n_classes(self) -> int:
        return len(self.means)

    @property
    def one_law(self) -> bool:
        """Whether every class has the same law (kind, shape and sigma)."""
        return len(set(self.laws)) == 1

    @property
    def sigmas_differ(self) -> bool:
        """Whether the classes have different sigma (so different supports and sigma_DP)."""
        return len({law.sigma for law in self.laws}) > 1

    @property
    def uniform_law(self) -> bool:
        """One uniform law and one sigma for every class: the papers' set-up, simulated by
        their kernels unchanged."""
        return self.one_law and self.laws[0].kind == "uniform"

    @property
    def shared_law(self) -> DataLaw:
        """The law every class shares; ValueError if the classes differ."""
        if not self.one_law:
            raise ValueError("the classes have different laws (per-class sigma): no shared law")
        return self.laws[0]

    @property
    def sigma(self) -> float:
        """The data standard deviation every class shares (ValueError otherwise)."""
        return self.shared_law.sigma

    @property
    def half_width(self) -> float:
        """The support half-width L every class shares (ValueError otherwise)."""
        return self.shared_law.half_width

    def class_sigmas(self) -> np.ndarray:
        return np.array([law.sigma for law in self.laws])

    def agent_sigmas(self, classes: np.ndarray) -> np.ndarray:
        """The sigma each agent's rules are told: its class's (``class_sigmas``), or in a
        file world with ``sigma: agent`` its own standard deviation about its true mean
        (``AgentStreams.agent_sigmas``, with the class's where the agent's samples do not
        vary)."""
        pooled = self.class_sigmas()[classes]
        if self.streams is None or self.streams.sigma != "agent":
            return pooled
        return self.streams.agent_sigmas(pooled)

    def kernel_laws(self) -> KernelLaws:
        """Each class's law as the kernels' ``centred_sample`` reads it (``KernelLaws``)."""
        parameters = [law.kernel_parameters() for law in self.laws]
        return KernelLaws(
            law_code=np.array([p[0] for p in parameters], dtype=np.int64),
            **{name: np.array([p[i] for p in parameters]) for i, name in enumerate(("law_a0", "law_a1", "law_a2"), 1)},
            quantiles=np.stack([
                law.quantile_table if p[0] == 2 else np.zeros(QUANTILE_POINTS)
                for law, p in zip(self.laws, parameters, strict=True)
            ]),
        )

    def assign(self, n_agents: int, rng: np.random.Generator) -> np.ndarray:
        """Each agent's class: the class map's, else drawn (``assign_classes``)."""
        if self.class_map is not None:
            return self.class_map.classes.astype(np.int8)
        return assign_classes(n_agents, self.n_classes, rng, self.probabilities, self.sizes)

    def agent_means(self, classes: np.ndarray, jitter_rng: np.random.Generator | None = None) -> np.ndarray:
        """True mean mu_a of every agent: its class mean, plus its jitter offset (drawn from
        ``jitter_rng``, the run's population stream) when ``jitter`` > 0; in a file world,
        its mean in the file (``AgentStreams.means``)."""
        if self.streams is not None:
            return np.array(self.streams.means, dtype=np.float64)
        means = np.asarray(self.means, dtype=np.float64)[classes]
        if self.jitter > 0:
            if jitter_rng is None:
                raise ValueError("a population with jitter needs the run's population generator")
            means = means + self.jitter * (2.0 * jitter_rng.random(len(classes)) - 1.0)
        return means


def file_population(data: dict):
    """The ``Population`` of a file world: one class per class of the file (a single class
    if it gives none), each with its agents' average true mean and its ``EmpiricalLaw``
    (made once per process and content: a suite's expansion asks for it per figure)."""
    return _file_population(json.dumps(canonical_data(data), sort_keys=True))


@lru_cache(maxsize=8)
def _file_population(key: str):
    streams = streams_from_settings(json.loads(key))
    classes = streams.classes if streams.classes is not None else np.zeros(streams.n_agents, dtype=np.int64)
    n_classes = int(classes.max()) + 1
    centred, agent = streams.centred(), streams.agent_of_sample
    laws, means = [], []
    for c in range(n_classes):
        members = classes == c
        laws.append(EmpiricalLaw.from_samples(centred[members[agent]], streams.half_width,
                                              f"{streams.sha256}:{c}:{streams.low}:{streams.high}"))
        means.append(float(streams.means[members].mean()))
    return Population(means=tuple(means), laws=tuple(laws), streams=streams)


def assign_classes(
    n_agents: int, n_classes: int, rng: np.random.Generator, probabilities=None, sizes=None
) -> np.ndarray:
    """Each agent's class (int8 array) from ``rng``: i.i.d. uniform over the classes (one
    ``rng.integers`` call, the papers' assignment, unchanged), i.i.d. with
    ``probabilities``, or exactly ``sizes[c]`` agents in class c, arranged by a uniformly
    random permutation."""
    if sizes is not None:
        return np.repeat(np.arange(n_classes, dtype=np.int8), sizes)[rng.permutation(n_agents)]
    if probabilities is not None:
        cumulative = np.cumsum(probabilities)
        draws = rng.random(n_agents) * cumulative[-1]
        return np.minimum(np.searchsorted(cumulative, draws, side="right"), n_classes - 1).astype(np.int8)
    return rng.integers(0, n_classes, size=n_agents).astype(np.int8)


def same_class_edges(edges: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The edges of the class-induced subgraph (both ends in the same class)."""
    return edges[classes[edges[:, 0]] == classes[edges[:, 1]]]


def component_labels(edges: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Each agent's connected component (0, 1, ...) in the class-induced subgraph.

    Private-C-ColME Sec. III-A: G_a is the component of a in the subgraph induced by C_a.  Any
    graph (isolated agents are components of size 1); padding rows (-1, -1) are dropped.
    """
    from scipy.sparse import coo_matrix  # lazy: scipy.sparse costs every job ~0.15 s of start-up
    from scipy.sparse.csgraph import connected_components

    n_agents = classes.shape[0]
    inner = same_class_edges(edges[edges[:, 0] >= 0], classes)
    graph = coo_matrix(
        (np.ones(len(inner)), (inner[:, 0], inner[:, 1])), shape=(n_agents, n_agents)
    )
    return connected_components(graph, directed=False)[1]


def component_sizes(edges: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """n_a: size of the connected component containing a in the class-induced subgraph
    (``component_labels``)."""
    labels = component_labels(edges, classes)
    return np.bincount(labels)[labels].astype(np.int32)
