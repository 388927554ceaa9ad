"""The interface every engine answers, in small roles; the registry (``colme.registry``)
lists the engines.

An engine turns one figure's settings into its tables and its drawing.  It is made of
roles, each with a few abstract methods (Python refuses to make an engine that leaves
one undefined, naming it) or none, and defaults for the rest:

* ``Configured``, its configuration: the schema definitions of its figures (``schema``, a
  YAML file of ``$defs`` merged into the workflow's schema, and ``figure_schema``), the
  top-level overrides that apply to its figures (``overridable``), its cross-key checks
  (``check``), what it adds when a figure is resolved (``complete``), the settings that
  determine its numbers (``numeric_params``: the workflow's rule params are built from
  these alone, so a job reruns exactly when what determines its output changed), the
  choices made where its paper is silent (``interpretations``, ``interpretation_options``)
  and a runtime estimate for cluster jobs;
* ``Views``, for the figures made of other figures: which figure one views (``source``)
  and the figures one is made of (``generated_figures``: a sweep's points);
* ``Tabulated``, the table stage: its inputs (``table_inputs``) and its tables
  (``tables``, abstract);
* ``Drawn``, the drawing: ``subtitle`` and ``draw`` (abstract), the diagnostics figure and
  the drawing options; ``PanelDrawn`` draws an MSE-vs-t panel from its ``panel_style``
  (abstract);
* for simulated engines (``SimulatedEngine``: chunked Monte Carlo), ``World``, the runs'
  instances and streams (``instance_params``, ``instances``, ``run_streams``), and
  ``Algorithm``, what runs on them: the panel (``spec``), the compiled kernel
  (``run_kernel``) and the table's columns per curve (``curve_fields``), all three
  abstract.  ``WorldEngine`` is the world of ``colme.world`` (any graph, privacy mixes,
  groups), shared by every algorithm that runs on it.

``Engine`` is ``Configured``, ``Views``, ``Tabulated`` and ``Drawn`` together.  Nothing
here knows Snakemake or any paper: the rules pass plain dictionaries in and get tables
out.  ``docs/adding_an_engine.md`` walks through adding one.
"""

from __future__ import annotations

import importlib
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .datafiles import clipped_share, file_record, fixed_classes, streams_from_settings
from .errors import ConfigError
from .instances import make_instances, privacy_ranks, run_agent_means
from .integrity import load_simulation
from .populations import LAW_SHAPES, Population, population_choices
from .progress import Progress, kernel_seconds
from .provenance import table_provenance
from .seeding import run_generator, stream_name
from .world import check_world, graph_choice, world_graph, world_instance_params, world_instances, world_numeric_params

if TYPE_CHECKING:
    import pandas as pd

#: Settings that never enter an engine's numbers: drawing-only keys and the run bookkeeping
#: (``runs`` enters the tables, through the chunk files it selects, not the simulation).
NOT_NUMERIC = frozenset({"title", "runs", "chunk_runs"})

#: Top-level keys that override every simulated figure's value when set.
RUN_OVERRIDES = ("runs", "t_max", "chunk_runs")


def table_path(results: str, figure: str, suffix: str = ".csv") -> str:
    """Where the table stage writes ``figure``'s table (``suffix``: ``.csv``, ``.json``,
    ``_supplement.csv``, ...) in the results folder ``results``."""
    return f"{results}/tables/{figure}{suffix}"


class FigureTables(NamedTuple):
    """What a figure's table stage writes: the tidy table, the supplementary table, the
    covariance of its simulated curves' means (pairs), the engine's diagnostics and the
    provenance extras."""

    table: pd.DataFrame
    supplement: pd.DataFrame
    covariance: pd.DataFrame
    diagnostics: pd.DataFrame
    provenance: dict


def no_pairs() -> pd.DataFrame:
    """The covariance table of a figure without pairs of simulated curves: no rows."""
    import pandas as pd  # lazy: a simulate job's start-up stays pandas-free (colme.registry)

    from .aggregation import COVARIANCE_COLUMNS  # lazy: as pandas (colme.aggregation is the table stage's)

    return pd.DataFrame(columns=COVARIANCE_COLUMNS)


def no_diagnostics() -> pd.DataFrame:
    """The diagnostics table of a figure without diagnostics: no rows."""
    import pandas as pd  # lazy: as no_pairs

    from .aggregation import DIAGNOSTICS_COLUMNS  # lazy: as no_pairs

    return pd.DataFrame(columns=DIAGNOSTICS_COLUMNS)


def table_module(package: str):
    """``<package>.tables``, an engine subpackage's table-stage module, imported when a table
    is made: it imports pandas, which an instance or simulate job never loads
    (``colme.registry``)."""
    return importlib.import_module(".tables", package)


def population(settings: dict) -> Population:
    """The ``Population`` of a figure's settings."""
    return Population.from_settings(settings["population"])


def population_record(population: Population) -> dict:
    """What a figure's provenance says of its population: means, sigma and L for the
    papers' uniform set-up (as ever); per class law, sigma, L, support and Bernstein
    parameter, the assignment and the jitter otherwise; a file world's data
    (``colme.datafiles.file_record``: the file, its range and how many samples were clipped)."""
    if population.streams is not None:
        return {
            "means": list(population.means),
            "laws": [{"kind": law.kind, "sigma": law.sigma, "half_width_L": law.half_width,
                      "support": [law.low, law.high], "bernstein_beta": law.bernstein_beta}
                     for law in population.laws],
            "data": file_record(population.streams),
        }
    if population.uniform_law and population.probabilities is None and population.sizes is None \
            and population.jitter == 0 and population.class_map is None:
        return {"means": list(population.means), "sigma": population.sigma, "half_width_L": population.half_width}
    return {
        "means": list(population.means),
        "laws": [
            {"kind": law.kind, "sigma": law.sigma, "half_width_L": law.half_width,
             "support": [float(x) for x in law.support], "bernstein_beta": law.bernstein_beta,
             **{key: getattr(law, key) for key in LAW_SHAPES[law.kind]}}
            for law in population.laws
        ],
        "probabilities": None if population.probabilities is None else list(population.probabilities),
        "sizes": None if population.sizes is None else list(population.sizes),
        "jitter": population.jitter,
        **({"class_map": {"path": population.class_map.path, "sha256": population.class_map.sha256}}
           if population.class_map is not None else {}),
    }


def population_summary(spec: dict) -> str:
    """One line for a subtitle naming what a (canonical) population changes from the
    papers' (empty for theirs): law, per-class sigma, assignment, jitter; for a world from
    a data file, the file, its replay and the share of its samples clipped."""
    if spec.get("data"):
        streams = streams_from_settings(spec["data"])
        return (f"data from {Path(streams.path).name}: {streams.n_agents} agents, replay {streams.replay}, "
                f"range [{streams.low:g}, {streams.high:g}], {100 * clipped_share(streams):.3g} % of samples clipped")
    parts = []
    if "law" in spec:
        shape = ", ".join(f"{k} {v:g}" for k, v in spec["law"].items() if k != "kind")
        parts.append(f"{spec['law']['kind']} data" + (f" ({shape})" if shape else ""))
    if isinstance(spec["sigma"], list):
        parts.append("sigma " + "/".join(f"{s:g}" for s in spec["sigma"]))
    if "probabilities" in spec:
        parts.append("class probabilities " + "/".join(f"{p:g}" for p in spec["probabilities"]))
    if "sizes" in spec:
        parts.append("class sizes " + "/".join(str(n) for n in spec["sizes"]))
    if spec.get("jitter"):
        parts.append(f"mean jitter {spec['jitter']:g}")
    return ", ".join(parts)


def check_names_figure(key: str, name: str, figures: dict, accepts, what: str) -> None:
    """A view's key (``key``, a dotted path) must name a configured figure that ``accepts``
    (a predicate on figure names); else ``ConfigError`` naming the key, ``what`` it must
    name and the figures that qualify."""
    if name not in figures or not accepts(name):
        raise ConfigError(
            f"{key}={name!r}: must name {what}; configured: {sorted(f for f in figures if accepts(f))}"
        )


def wall_minutes(seconds: float) -> int:
    """Wall-time request: twice the conservative estimate plus 2 minutes."""
    return math.ceil(2 * seconds / 60) + 2


#: Memory a simulate job asks for besides its state: Python, NumPy, Numba, a compiled
#: kernel and the temporaries of its set-up (the small figures' jobs of a default build
#: peak at 215-560 MB max RSS).
JOB_MEMORY_MB = 1000


def job_memory_mb(state_bytes: float) -> int:
    """Memory request of a simulate job that holds ``state_bytes`` of arrays while it
    simulates: those on top of ``JOB_MEMORY_MB``."""
    return JOB_MEMORY_MB + math.ceil(state_bytes / 2**20)


#: Peak bytes per sample of a file world in a simulate job: the file parsed into a table,
#: its streams, their centred copy, the classes' empirical laws and the kernel's
#: ``DataArrays`` (a long CSV file of 1e6 samples with named agents, classes and true means
#: grows a fresh process's peak RSS by about 500 bytes per sample: tests/core/test_data_worlds.py).
FILE_SAMPLE_BYTES = 768


def data_bytes(params: dict) -> float:
    """The bytes a file world's samples take in a simulate job of figure ``params``
    (``FILE_SAMPLE_BYTES`` per sample of its file); 0 for a world drawn from laws."""
    data = (params.get("population") or {}).get("data")
    # read once per process (``streams_from_settings`` caches it): the config's check read it
    return FILE_SAMPLE_BYTES * streams_from_settings(data).n_samples if data else 0.0


class Configured:
    """The configuration role: how a figure of this engine is written and what of it
    determines its numbers."""

    name = ""
    simulated = False
    #: Whether the engine's tables have a time axis (``t``) another figure can zoom into.
    time_axis = True
    interpretations: tuple[str, ...] = ()
    #: YAML file of schema ``$defs`` (merged into the workflow's schema) and the definition
    #: this engine's figure entries validate against.
    schema: Path | None = None
    figure_schema = ""
    #: Top-level config keys (``runs``, ``t_max``, ...) that override this engine's figures.
    overridable: tuple[str, ...] = ()
    #: Global keys copied into every figure's settings that this engine does not read.
    unused_globals: frozenset = frozenset({"precision"})
    #: Figure-level keys that change only the drawing.
    drawing_keys: tuple[str, ...] = ("title",)
    #: Whether its figures can run on a world from a data file (``population.data``).
    reads_data_files = False
    #: Curve keys: list-valued figure keys each of whose values is a set of curves of one
    #: kernel call (the table and supplement carry the key as a column, NaN on rows shared
    #: by every value), with the list keys zipped with them.  A sweep axis over one may run
    #: all its values as lanes of one figure (``colme.derived.sweeps``, ``lanes: true``).
    lane_keys: Mapping[str, tuple[str, ...]] = MappingProxyType({})

    def standalone_config(self, entry: dict) -> dict:
        """A whole configuration holding ``entry`` as figure ``figure`` (defaults filled by
        ``colme.config.figure_defaults``)."""
        return {"figures": {"figure": entry}}

    def complete(self, settings: dict, config: dict) -> None:
        """Add to a resolved figure's ``settings`` what the engine needs from ``config``."""

    def check(self, settings: dict, where: str, config: dict) -> None:
        """Checks across keys that the schema cannot express; raise ``ConfigError`` naming
        the key (``where`` is the figure's dotted path)."""

    def numeric_params(self, settings: dict) -> dict:
        """The settings that determine this figure's numbers (tables and chunk files)."""
        drop = NOT_NUMERIC | self.unused_globals | set(self.drawing_keys)
        return {key: value for key, value in settings.items() if key not in drop}

    def instance_params(self, settings: dict) -> dict:
        raise NotImplementedError(f"engine {self.name!r} has no instances")

    def spec(self, params: dict):
        """The engine's own description of a figure's panel (a simulated engine's curves,
        times and population, passed to ``run_kernel`` and ``curve_fields``)."""
        return None

    def figure_interpretations(self, settings: dict) -> tuple[str, ...]:
        """The choices behind a figure with these settings: the engine's, and those of its
        population where it reads one that is not the papers' (``population_choices``)."""
        if "population" in self.unused_globals or "population" not in settings:
            return self.interpretations
        return self.interpretations + population_choices(population(settings))

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        """Keys of the options behind this figure's choices where the paper is silent or
        inconsistent, restricted to those that can change this figure's numbers;
        ``colme.sensitivity`` flips each to every other value its schema allows."""
        return ()

    def runtime_minutes(self, params: dict, runs: int) -> int:
        return 5

    def memory_mb(self, params: dict, runs: int) -> int:
        """Memory request of a simulate job of ``runs`` runs (doubled at each retry by the
        workflow): ``JOB_MEMORY_MB`` and a file world's samples (``data_bytes``) where the
        engine's state is small."""
        return job_memory_mb(data_bytes(params))


class Views:
    """The role of figures made of other figures (``colme.derived``); by default a figure
    views none and is made of none."""

    #: Whether each figure it generates draws a configured figure's streams (its ``stream``)
    #: with the same instances, which the expansion checks (a scorecard's cells).
    cells_share_instances = False

    def generated_figures(self, settings: dict, name: str, config: dict, base: dict | None) -> list[dict]:
        """The figures this one is made of that the configuration does not name (a sweep's
        points), each ``{"name", "config"}`` (a whole configuration holding it as its only
        figure, validated by the expansion stage, ``colme.expansion``) plus what
        ``check_generated`` reads; ``config`` is the validated configuration and ``base``
        the resolved settings of the figure named by ``base_figure`` (None without one)."""
        return []

    def base_figure(self, settings: dict) -> str | None:
        """The configured figure whose settings ``generated_figures`` starts from, if any."""
        return None

    def check_generated(self, settings: dict, where: str, generated: dict, resolved: dict) -> None:
        """Checks of one generated figure's resolved (validated) ``resolved`` settings that
        concern this figure's keys; may add to ``resolved`` (e.g. whose streams it draws)."""

    def source(self, settings: dict) -> str | None:
        """The figure this one views (its tables are made from that figure's), if any."""
        return None

    def with_source(self, settings: dict, source: str) -> dict:
        """A view's settings viewing figure ``source`` instead (for sensitivity variants)."""
        raise NotImplementedError(f"engine {self.name!r} views no other figure")


class Tabulated(ABC):
    """The table stage's role: what it reads and the tables it writes."""

    def table_inputs(self, figure: str, settings: dict, chunk_paths, results: str = "results") -> dict:
        """The table stage's inputs by name (paths); ``chunk_paths(kind)`` lists a simulated
        figure's chunk files of ``kind`` (``chunks`` or ``instances``), ``chunk_paths(kind,
        other)`` those of figure ``other``; other figures' tables are read from ``results``
        (the build's results folder, ``table_path``)."""
        return {}

    @abstractmethod
    def tables(self, figure: str, params: dict, inputs: dict) -> FigureTables:
        """The tables of one figure (``FigureTables``)."""

    def provenance(self, figure: str, params: dict, extras: dict) -> dict:
        """What the table stage records next to the table (``<figure>.json``)."""
        return table_provenance(figure, params, self.figure_interpretations(params), **extras)


class Drawn(ABC):
    """The drawing's role: a figure from its table and metadata."""

    @abstractmethod
    def subtitle(self, meta: dict) -> str:
        """Second line of the figure's title: runs, seed and the settings that matter most."""

    @abstractmethod
    def draw(self, table: pd.DataFrame, meta: dict, title: str, pdf, png) -> None:
        """The figure of ``table`` (and its ``meta``, the sidecar) with ``title``, written
        to ``pdf`` and ``png``."""

    def draw_diagnostics(self, diagnostics: pd.DataFrame, meta: dict, title: str, pdf, png) -> None:
        """The diagnostics table against t (engines with ``diagnostics``)."""
        from .plotting import plot_diagnostics  # lazy: matplotlib, only where a figure is drawn

        plot_diagnostics(diagnostics, title, meta, pdf, png, self.diagnostics_line_styles(diagnostics),
                         self.log_diagnostics)

    #: Quantities of the engine's diagnostics table (none: no diagnostics figure).
    diagnostics: tuple[str, ...] = ()
    #: Diagnostic quantities drawn on a log y axis (shares that fall over decades).
    log_diagnostics: frozenset = frozenset()

    def drawing_options(self, settings: dict) -> dict:
        """Drawing options beyond the title (keys outside ``numeric_params``) that the
        figure stage's params carry and ``draw`` reads from the sidecar's ``drawing``;
        none by default, so a figure that sets none keeps the params it had."""
        return {}

    def diagnostics_line_styles(self, diagnostics: pd.DataFrame) -> dict:
        """Line style per curve of the diagnostics figure (solid unless given)."""
        return {}


class PanelDrawn(Drawn):
    """A drawing that is an MSE-vs-t panel, styled by ``panel_style``."""

    @abstractmethod
    def panel_style(self, table: pd.DataFrame):
        """``colme.plotting.PanelStyle`` of an MSE-vs-t table: which rows are the curves,
        their colours and line styles, the legend handles and any faint bands."""

    def draw(self, table: pd.DataFrame, meta: dict, title: str, pdf, png) -> None:
        from .plotting import plot_mse_panel  # lazy: matplotlib, only where a figure is drawn

        plot_mse_panel(table, self.panel_style(table), title, meta, pdf, png)


class Engine(Configured, Views, Tabulated, Drawn):
    """An engine: its configuration, its views, its tables and its drawing (the roles
    above); an engine that draws an MSE-vs-t panel derives from ``PanelDrawn`` too."""


class World(ABC):
    """A simulated engine's world role: each run range's instances and each run's streams."""

    #: Settings of the communication graph, beyond the number of agents.
    graph_keys: tuple[str, ...] = ()
    #: The kind of world the engine's algorithms live in; a scorecard runs an algorithm on
    #: the worlds of its kind (``colme.derived.scorecard``).
    world_kind = ""

    @abstractmethod
    def instance_params(self, settings: dict) -> dict:
        """The settings that determine a run range's instances."""

    @abstractmethod
    def instances(self, params: dict, figure: str, start: int, stop: int) -> dict:
        """The instances of runs start..stop - 1 (classes, graph, ...), from their streams."""

    def run_streams(self, params: dict, instances: dict, figure: str) -> dict:
        """Each run's draws beyond its instance and data: true means (``agent_means``, a
        population with jitter) and privacy ranks (``privacy_ranks``, a figure with privacy
        mixes; ``has_mixes``), each from the run's own stream; absent when not needed."""
        stream = stream_name(params, figure)
        streams = {}
        means = run_agent_means(population(params), instances["classes"], stream, instances["runs"], params["seed"])
        if means is not None:
            streams["agent_means"] = means
        if self.has_mixes(params):
            streams["privacy_ranks"] = privacy_ranks(params["n_agents"], stream, instances["runs"], params["seed"])
        return streams

    def has_mixes(self, params: dict) -> bool:
        """Whether a figure's curves include privacy mixes (engines that have them)."""
        return False


class Algorithm(ABC):
    """A simulated engine's algorithm role: the panel of curves and the kernel that runs
    them on the world's instances, and the table columns of its curves."""

    @abstractmethod
    def spec(self, params: dict):
        """The figure's panel: its curves (``.curves``, each with a ``.name``), recorded times
        (``.t_record``) and population (``.population``), as ``run_kernel`` takes it."""

    @abstractmethod
    def run_kernel(self, spec, params, instances, generators, diagnostics, progress) -> np.ndarray:
        """The engine's compiled simulation: MSE (runs, curves, t), ``diagnostics`` filled;
        a long one reports to ``progress`` (``colme.progress``: t, percent, ETA in the log).
        A panel recording groups (``aggregation.group_frames``) returns a dict instead: the
        ``mse`` and its ``group_sums`` (runs, curves, groups, t) and ``group_counts`` (runs,
        curves, groups), which the chunk stores beside it."""

    @abstractmethod
    def curve_fields(self, spec, curve) -> dict:
        """The table columns describing a simulated curve beyond its name (rule, eps, ...)."""

    def privileged_knowledge(self, settings: dict) -> tuple[str, ...]:
        """What a figure's algorithm knows that a deployed agent would not (the true
        classes, ...): a scorecard ranks such algorithms apart.  None by default."""
        return ()

    def analytic_frames(self, spec, t: np.ndarray, instances: list[dict]) -> list[pd.DataFrame]:
        """Closed-form curves the engine adds to its table after Local and Ideal, from the
        panel's ``instances`` (one dict per chunk: classes, component_sizes...)."""
        return []

    def supplement(self, spec, instances: list[dict]) -> tuple[pd.DataFrame, dict]:
        """The supplementary table and what of it goes into the provenance."""
        import pandas as pd  # lazy: as no_pairs

        return pd.DataFrame(), {}

    def sample_privacy(self, spec) -> list[dict]:
        """What one sample of an agent enjoys over the whole horizon, per curve (and privacy
        level): its eps and delta after composition over every release it enters, for the
        provenance (``sample_privacy``); none for an engine without privacy."""
        return []

    def sweep_margins(self, supplement: pd.DataFrame) -> dict[str, float]:
        """Named predictions read off one sweep point's supplementary table, each a margin
        whose sign says whether collaboration is predicted to beat Local (> 0: it does);
        a sweep (``colme.derived.sweeps``) draws where each changes sign as a predicted boundary."""
        return {}


class SimulatedEngine(World, Algorithm, PanelDrawn, Engine):
    """Chunked Monte Carlo: instances -> one chunk's simulation -> aggregation.  Its world
    is the random regular graph of ``degree`` (``graph_keys``; ``WorldEngine``: any graph)
    and the population's classes; an engine adds the algorithm (``spec``, ``run_kernel``,
    ``curve_fields``) and the panel's style (``panel_style``)."""

    simulated = True
    overridable = RUN_OVERRIDES

    def instance_params(self, settings: dict) -> dict:
        """The settings that determine a run range's instances.  Not the stream: an instance
        file belongs to the figure whose streams it draws (``stream_name``), so every figure
        drawing those streams (a sensitivity variant, a sweep's points) reads the same file."""
        keys = ("engine", "n_agents", "seed", *self.graph_keys)
        if settings["population"].get("data"):  # the file's classes (and agents' names, for an edge list)
            data = settings["population"]["data"]
            return {**{key: settings[key] for key in keys}, "n_classes": population(settings).n_classes,
                    "data": {key: data[key] for key in ("path", "layout", "columns", "sha256", "class_map")
                             if key in data}}
        assignment = {f"class_{key}": settings["population"][key] for key in ("probabilities", "sizes")
                      if settings["population"].get(key) is not None}
        if settings["population"].get("class_map"):  # the same classes every run, named for an edge list
            assignment["class_map"] = settings["population"]["class_map"]
        return {
            **{key: settings[key] for key in keys},
            "n_classes": len(settings["population"]["means"]),
            **assignment,
        }

    def instances(self, params: dict, figure: str, start: int, stop: int) -> dict:
        degree = params["degree"] if "degree" in self.graph_keys else None
        stream = stream_name(params, figure)
        fixed = fixed_classes(params)
        return make_instances(
            params["n_agents"], params["n_classes"], degree, stream, range(start, stop), params["seed"],
            params.get("class_probabilities"), params.get("class_sizes"), fixed,
        )

    def simulate(self, params: dict, instances: dict, figure: str) -> dict:
        """Every curve on one run range's instances: per-run MSE curves and diagnostics.

        Each run's data stream comes from (seed, figure, run), never from the chunking.
        """
        spec = self.spec(params)
        stream = stream_name(params, figure)
        generators = [run_generator(params["seed"], stream, int(run), "data") for run in instances["runs"]]
        diagnostics = np.empty((len(generators), len(spec.curves), len(self.diagnostics), len(spec.t_record)))
        progress = Progress()
        instances = {**instances, **self.run_streams(params, instances, figure)}
        simulated = self.run_kernel(spec, params, instances, generators, diagnostics, progress)
        if not isinstance(simulated, dict):
            simulated = {"mse": simulated}
        if spec.population.streams is not None:  # Local of a world from a file: simulated, run by run
            # lazy: the compiled replay and its stream, only for file worlds
            from .ccolme.randoms import run_key
            from .replay import local_mse

            keys = [run_key(generator) for generator in generators]
            simulated["local_mse"] = np.stack([local_mse(spec.population.streams, key, spec.t_record) for key in keys])
        return {
            "runs": instances["runs"],
            "t": np.asarray(spec.t_record),
            "curves": np.array([c.name for c in spec.curves]),
            **simulated,
            "diagnostics": diagnostics,
            "seconds": np.array(kernel_seconds(progress)),
        }

    def table_inputs(self, figure, settings, chunk_paths, results="results"):
        return {"sims": chunk_paths("chunks"), "instances": chunk_paths("instances")}

    def tables(self, figure, params, inputs):
        from .aggregation import aggregate_table, covariance_table, diagnostics_table  # lazy: as no_pairs

        spec = self.spec(params)
        sims, instances = load_simulation(figure, params, inputs["sims"], inputs["instances"])
        if self.has_mixes(params) or "group_sums" in sims[0]:  # closed forms per privacy level and group
            instances = [{**part, **self.run_streams(params, part, figure)} for part in instances]
        table = aggregate_table(spec, sims, instances, self.curve_fields, self.analytic_frames)
        supplement, extras = self.supplement(spec, instances)
        extras = {
            "curves": [c.name for c in spec.curves],
            "population": population_record(spec.population),
            **extras,
        }
        sample_privacy = self.sample_privacy(spec)
        if sample_privacy:
            extras["sample_privacy"] = sample_privacy
        seconds = sum(float(s["seconds"]) for s in sims)
        runs = sum(len(s["runs"]) for s in sims)
        provenance = {"runs": runs, "compute_seconds": seconds, **extras}
        return FigureTables(
            table, supplement, covariance_table(spec, sims), diagnostics_table(spec, sims, self.diagnostics),
            provenance,
        )

    def subtitle(self, meta: dict) -> str:
        return f"{meta['runs']} runs, seed {meta['settings']['seed']}, {self.details(meta['settings'])}"

    def details(self, settings: dict) -> str:
        """The settings that matter most, for the subtitle."""
        return ""


class WorldEngine(SimulatedEngine):
    """A simulated engine whose algorithms run on a world (``colme.world``): a graph of any
    family (``degree``, or ``graph``), the classes and data of its ``population``, privacy
    levels and mixes (``privacy_mixes``) and groups of agents (``groups``), all read
    through the same functions whatever the algorithm, so that figures of two such engines
    drawing one ``stream`` pair run by run."""

    graph_keys = ("degree",)
    reads_data_files = True
    world_kind = "graph"

    def sample_privacy(self, spec) -> list[dict]:
        """Each sample enters one release, its noisy value x + sigma_DP Z (Laplace,
        Private-C-ColME's Lemma 1, calibrated to its class's support at its agent's level);
        every noisy mean after it is post-processing, so the sample keeps its level's eps
        over the whole horizon (delta 0); a mix's levels each with its share of agents.  At
        eps = inf sigma_DP is 0: the sample itself is released."""
        return [
            {"curve": curve.name, "eps": eps, "delta": 0.0, "share": share,
             "releases": "one noisy value per sample (Laplace); later releases are post-processing"
             if math.isfinite(eps) else "each sample's exact value (no noise at eps = inf)"}
            for curve in spec.curves
            for eps, share in (curve.mix or ((curve.eps, 1.0),))
        ]

    @staticmethod
    def graph(settings: dict) -> dict | None:
        """The params of the figure's graph family, or None for the random regular graph."""
        return world_graph(settings)

    def check(self, settings, where, config):
        check_world(settings, where)

    def numeric_params(self, settings: dict) -> dict:
        return world_numeric_params(super().numeric_params(settings), settings)

    def instance_params(self, settings: dict) -> dict:
        return world_instance_params(super().instance_params(settings), settings)

    def instances(self, params: dict, figure: str, start: int, stop: int) -> dict:
        return world_instances(params, figure, start, stop)

    def has_mixes(self, params: dict) -> bool:
        return bool(params.get("privacy_mixes"))

    def graph_choices(self, settings: dict) -> tuple[str, ...]:
        """The choice a figure on another graph family than random regular adds (none on it)."""
        graph = self.graph(settings)
        return (graph_choice(graph),) if graph is not None else ()

    def group_outputs(self, spec, n_runs: int) -> dict:
        """The arrays a grouped panel's kernel fills (``run_kernel``'s dict; none without
        groups): ``group_sums`` (runs, curves, groups, t) and ``group_counts``."""
        if not spec.groups:
            return {}
        shape = (n_runs, len(spec.curves), spec.n_groups)
        return {"group_sums": np.empty((*shape, len(spec.t_record))), "group_counts": np.empty(shape, dtype=np.int64)}

