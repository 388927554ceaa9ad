"""Worlds from files: each agent's data stream, its class and its true mean read from a
CSV or Parquet file, bounded for privacy and replayed up to the horizon.

The papers reproduced here are synthetic; real data differ from their laws in ways that
matter to collaboration (classmates whose means are not equal, heavy tails, bursts).  A
figure reads real data through ``population: {data: {kind: file, ...}}``
(``colme.world``); this module reads and checks the file and replays its streams.

Layouts (``read_streams``):

* ``long``: one row per sample, columns ``agent``, ``t`` and ``value`` (names
  configurable), optionally ``class`` (the agent's class, constant over its rows) and
  ``mean`` (its true mean, constant over its rows).  Each agent's samples are taken in the
  order of ``t``.
* ``wide``: one row per agent: the ``agent`` column, optionally ``class`` and ``mean``,
  then one column per sample, in order; an agent with fewer samples leaves its last cells
  empty.

Agents are ordered by name (numerically when every name is an integer), so that agent
``i`` of a run is the same whatever the file's row order, and an edge list names them
(``match_edge_list``).

Bounded values (``DataRange``): a mechanism calibrated to a range must never see a value
outside it.  The range is declared (``low``, ``high``: a value outside is refused, or
clipped with ``clip: true``), or derived from the data's quantiles (``quantiles``:
values beyond them clipped).  The number of clipped samples is kept (``AgentStreams.clipped``)
for the provenance and the figure.  A range derived from the data is itself computed from
private values: say so when it is used (``colme.world`` records it in the choices).

Replay (``colme.replay``): how an agent's n samples serve its steps t = 1, 2, ...:
``bootstrap`` draws each step's sample uniformly with replacement (from the step's own
uniform draw of the run's stream, the draw a law would use); ``in_order`` replays the
stream as recorded by passes of n steps (the file's own bursts and trends, repeated);
``permutation`` draws a fresh uniformly random order for each pass (every sample used once
per pass, every order equally likely: a keyed Fisher-Yates shuffle at each pass's start,
one scratch slot per sample).  The default is ``bootstrap``: the
papers estimate the mean of a law from an i.i.d. stream, and bootstrap draws make each
agent's stream i.i.d. from its file's empirical law, whose mean is the agent's true mean
(its file's mean): the papers' problem on real laws (discrete, skewed, classmates' means
unequal).  By passes, an agent knows its true mean exactly at the end of each pass, so
past its stream's length Local is (nearly) exact and collaboration can only add bias: the
problem of a finite data set, which ``in_order`` and ``permutation`` model.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .errors import ConfigError
from .graphs import canonical_edges, edge_list_problem, edge_list_tokens, file_sha256

if TYPE_CHECKING:
    import pandas as pd

#: The file layouts.
LAYOUTS = ("long", "wide")

#: The replay policies and their kernel codes (``colme.replay.replay_index``); -1 is data drawn from a law.
REPLAYS = {"in_order": 0, "permutation": 1, "bootstrap": 2}

#: The default column names.
COLUMNS = {"agent": "agent", "t": "t", "value": "value", "class": "class", "mean": "mean"}


class DataFileError(ConfigError):
    """A data file that cannot be a world: the message names the file, the column and the rows."""


@dataclass(frozen=True)
class DataRange:
    """The bounded range [low, high] every value enters a mechanism in: declared (``low``,
    ``high``; ``clip``: clip a value outside instead of refusing the file), or derived
    from the data's ``quantiles`` (lower, upper), values beyond them clipped."""

    low: float | None = None
    high: float | None = None
    clip: bool = False
    quantiles: tuple[float, float] | None = None

    def __post_init__(self):
        declared = self.low is not None or self.high is not None
        if declared == (self.quantiles is not None):
            raise ValueError("a range is declared (low and high) or derived from quantiles, exactly one of them")
        if declared and not (self.low is not None and self.high is not None and self.low < self.high):
            raise ValueError(f"a declared range needs low < high, got low={self.low}, high={self.high}")
        if self.quantiles is not None and not 0.0 <= self.quantiles[0] < self.quantiles[1] <= 1.0:
            raise ValueError(f"quantiles must satisfy 0 <= lower < upper <= 1, got {self.quantiles}")

    @classmethod
    def from_settings(cls, spec: dict | None) -> DataRange:
        """The range of a ``data.range`` mapping; None: the data's own minimum and maximum."""
        spec = spec or {"quantiles": [0.0, 1.0]}
        quantiles = spec.get("quantiles")
        return cls(spec.get("low"), spec.get("high"), bool(spec.get("clip", False)),
                   None if quantiles is None else (float(quantiles[0]), float(quantiles[1])))


@dataclass(frozen=True)
class AgentStreams:
    """Every agent's data stream, as a world reads it.

    ``names`` (M,) the agents' names, in the world's order; ``values`` their samples,
    concatenated agent after agent (agent a's are ``values[start[a]:start[a] + count[a]]``),
    each within [``low``, ``high``]; ``means`` (M,) their true means; ``classes`` (M,) their
    classes (codes into ``class_names``) or None when the file gives none; ``clipped`` how
    many samples were clipped into the range; ``sha256`` the file's digest."""

    path: str
    sha256: str
    names: tuple[str, ...]
    values: np.ndarray = field(repr=False)
    start: np.ndarray = field(repr=False)
    count: np.ndarray = field(repr=False)
    means: np.ndarray = field(repr=False)
    classes: np.ndarray | None = field(repr=False)
    class_names: tuple[str, ...]
    low: float
    high: float
    clipped: int
    #: How the streams are replayed past their ends (``REPLAYS``); a figure's choice.
    replay: str = "bootstrap"
    #: How the range was set: ``declared`` or ``quantiles [q, q']``; and the true means'.
    range_origin: str = "data minimum and maximum"
    true_mean: str = "file"
    #: The class map's path and SHA-256 where the classes come from one (``with_class_map``).
    class_map: str | None = None
    class_map_sha256: str | None = None
    #: The sigma the rules are told: each class's pooled one, or each agent's own
    #: (``Population.agent_sigmas``); a figure's choice.
    sigma: str = "class"

    @property
    def n_agents(self) -> int:
        return len(self.names)

    @property
    def n_samples(self) -> int:
        return int(self.count.sum())

    @property
    def half_width(self) -> float:
        """L: half the range's width, the Laplace mechanism's sensitivity 2L / t."""
        return (self.high - self.low) / 2.0

    @property
    def agent_of_sample(self) -> np.ndarray:
        """Each sample's agent (the ``values`` order)."""
        return np.repeat(np.arange(self.n_agents), self.count)

    def centred(self) -> np.ndarray:
        """Each sample minus its agent's true mean (``values`` order)."""
        return self.values - self.means[self.agent_of_sample]

    def sigmas(self) -> np.ndarray:
        """Each agent's standard deviation about its true mean, over its file's samples."""
        squares = np.bincount(self.agent_of_sample, self.centred() ** 2, minlength=self.n_agents)
        return np.sqrt(squares / self.count)

    def agent_sigmas(self, fallback: np.ndarray) -> np.ndarray:
        """``sigmas``, with ``fallback`` (per agent: its class's) for an agent whose samples
        do not vary (one sample, or all equal): a rule told sigma = 0 would trust one draw
        as the truth."""
        own = self.sigmas()
        first = self.start
        spread = np.maximum.reduceat(self.values, first) - np.minimum.reduceat(self.values, first)
        return np.where(spread > 0, own, fallback)


def _read_table(path: Path, what: str = "data file") -> pd.DataFrame:
    """The file's table, every cell as written (strings), so nothing is converted silently
    (``what``: the kind of file, for the errors)."""
    import pandas as pd  # lazy: reading a data file; a job without one starts pandas-free (colme.registry)

    if not path.is_file():
        raise DataFileError(f"{what} {str(path)!r} is not a file (relative paths are from the workflow's folder)")
    if path.stat().st_size == 0:
        raise DataFileError(f"{what} {path}: the file is empty")
    if path.suffix.lower() == ".parquet":
        try:
            table = pd.read_parquet(path)
        except ImportError as error:
            raise DataFileError(f"{what} {path}: reading Parquet needs pyarrow ({error}); "
                                "pip install pyarrow, or write the file as CSV") from None
        return table.astype(object).where(table.notna(), None).map(lambda x: None if x is None else str(x))
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[], skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise DataFileError(f"{what} {path}: the file is empty") from None
    except pd.errors.ParserError as error:
        raise DataFileError(f"{what} {path}: not a CSV table: {error}") from None


def _rows(mask: np.ndarray, limit: int = 5) -> str:
    """The first file rows (1-based, header excluded: the CSV's line number - 1) of ``mask``."""
    rows = np.flatnonzero(mask) + 1
    shown = ", ".join(str(r) for r in rows[:limit])
    return f"row{'s' if len(rows) > 1 else ''} {shown}{' ...' if len(rows) > limit else ''} ({len(rows)} in all)"


def _numbers(table: pd.DataFrame, column: str, path: Path, kind: str = "number",
             allow_empty: bool = False) -> np.ndarray:
    """A column's cells as float64; refuses non-numeric, NaN and infinite cells (and empty
    ones unless ``allow_empty``: they read NaN), naming the file, the column and the rows."""
    import pandas as pd  # lazy: as _read_table

    cells = table[column].fillna("").astype(str).str.strip()
    empty = cells.eq("").to_numpy()
    values = pd.to_numeric(cells.where(~empty, None), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(values) & ~empty
    if bad.any():
        example = cells[bad].iloc[0]
        raise DataFileError(f"data file {path}, column {column!r}: {_rows(bad)} not a {kind} (e.g. {example!r})")
    infinite = np.isinf(values)
    if infinite.any():
        raise DataFileError(f"data file {path}, column {column!r}: {_rows(infinite)} infinite")
    if empty.any() and not allow_empty:
        raise DataFileError(f"data file {path}, column {column!r}: {_rows(empty)} empty")
    if kind == "integer" and not np.all(values[~empty] == np.round(values[~empty])):
        bad = ~empty & (values != np.round(values))
        raise DataFileError(f"data file {path}, column {column!r}: {_rows(bad)} not an integer")
    return values


def agent_order(names) -> list[str]:
    """Agent names in the world's order: numerically when every name is an integer, else
    as strings."""
    names = [str(n) for n in names]
    if all(re.fullmatch(r"[+-]?\d+", n) for n in names):
        return sorted(names, key=int)
    return sorted(names)


def _check_columns(table: pd.DataFrame, path: Path, required: list[str], optional: list[str],
                   exact: bool) -> None:
    missing = [c for c in required if c not in table.columns]
    if missing:
        raise DataFileError(f"data file {path}: missing column(s) {missing}; its columns: {list(table.columns)}")
    if exact:
        extra = [c for c in table.columns if c not in required + optional]
        if extra:
            raise DataFileError(f"data file {path}: unexpected column(s) {extra}; a long file has the columns "
                                f"{required} and optionally {optional}")


def _per_agent(table: pd.DataFrame, agents: np.ndarray, column: str, path: Path, order: list[str],
               kind: str) -> np.ndarray:
    """One value per agent of a column that must be constant over each agent's rows."""
    import pandas as pd  # lazy: as _read_table

    if kind == "class":
        cells = table[column].fillna("").astype(str).str.strip()
        empty = cells.eq("").to_numpy()
        if empty.any():
            raise DataFileError(f"data file {path}, column {column!r}: {_rows(empty)} empty")
        values = cells.to_numpy()
    else:
        values = _numbers(table, column, path)
    frame = pd.DataFrame({"agent": agents, "value": values})
    distinct = frame.groupby("agent", sort=False)["value"].nunique()
    varying = distinct[distinct > 1]
    if len(varying):
        name = varying.index[0]
        raise DataFileError(f"data file {path}, column {column!r}: agent {name!r} has {int(varying.iloc[0])} "
                            f"different values ({_rows(agents == name)}); it must be one per agent")
    first = frame.groupby("agent", sort=False)["value"].first()
    return first.loc[order].to_numpy()


def read_streams(path: str | Path, layout: str = "long", columns: dict | None = None,
                 data_range: DataRange | None = None, true_mean: str = "file") -> AgentStreams:
    """The agents' streams of a data file (module docstring), checked.

    ``columns`` renames the columns (keys of ``COLUMNS``); ``true_mean``: ``file`` (each
    agent's mean over its whole file, after clipping: the MSE's ground truth) or
    ``column`` (the ``mean`` column).  Refuses, naming the file, the column and the rows:
    an empty file, missing or (long layout) extra columns, non-numeric, NaN or infinite
    values, a duplicate (agent, t), an agent without data, a class or mean that changes
    within an agent, classes without agents (integer classes 0..K-1 with one missing), and
    values outside a declared range (unless ``clip``).
    """
    import pandas as pd  # lazy: as _read_table

    path = Path(path)
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if true_mean not in ("file", "column"):
        raise ValueError(f"true_mean must be 'file' or 'column', got {true_mean!r}")
    names = COLUMNS | (columns or {})
    data_range = data_range or DataRange.from_settings(None)
    table = _read_table(path)
    if table.empty:
        raise DataFileError(f"data file {path}: the file has a header but no rows")
    optional = [names[k] for k in ("class", "mean") if names[k] in table.columns]
    if true_mean == "column" and names["mean"] not in table.columns:
        raise DataFileError(f"data file {path}: true_mean 'column' needs the column {names['mean']!r}; "
                            f"its columns: {list(table.columns)}")
    if layout == "long":
        _check_columns(table, path, [names["agent"], names["t"], names["value"]], optional, exact=True)
        agents = table[names["agent"]].astype(str).str.strip().to_numpy()
        if (agents == "").any():
            raise DataFileError(f"data file {path}, column {names['agent']!r}: {_rows(agents == '')} empty")
        times = _numbers(table, names["t"], path, "integer")
        values = _numbers(table, names["value"], path)
        keys = pd.DataFrame({"agent": agents, "t": times})
        duplicate = keys.duplicated(keep=False).to_numpy()
        if duplicate.any():
            first = keys[duplicate].iloc[0]
            raise DataFileError(f"data file {path}: duplicate (agent, t) = ({first['agent']}, {int(first['t'])}) at "
                                f"{_rows(duplicate)}")
        order = agent_order(pd.unique(agents))
        rank = {name: i for i, name in enumerate(order)}
        index = np.array([rank[a] for a in agents], dtype=np.int64)
        sort = np.lexsort((times, index))
        values, index = values[sort], index[sort]
        count = np.bincount(index, minlength=len(order)).astype(np.int64)
        row_agents = agents
    else:
        agent_column = names["agent"]
        _check_columns(table, path, [agent_column], optional, exact=False)
        sample_columns = [c for c in table.columns if c not in [agent_column, *optional]]
        if not sample_columns:
            raise DataFileError(f"data file {path}: a wide file needs sample columns after {[agent_column, *optional]}")
        row_agents = table[agent_column].astype(str).str.strip().to_numpy()
        duplicate = pd.Series(row_agents).duplicated(keep=False).to_numpy()
        if duplicate.any():
            raise DataFileError(f"data file {path}, column {agent_column!r}: agent {row_agents[duplicate][0]!r} "
                                f"has several rows ({_rows(duplicate)}); a wide file has one row per agent")
        grid = np.column_stack([_numbers(table, c, path, allow_empty=True) for c in sample_columns])
        present = ~np.isnan(grid)
        count_row = present.sum(axis=1)
        gaps = present[:, 1:] & ~present[:, :-1]
        if gaps.any(axis=1).any():
            raise DataFileError(f"data file {path}: {_rows(gaps.any(axis=1))} have an empty cell before a value; "
                                "only a row's last cells may be empty (a shorter stream)")
        empty = count_row == 0
        if empty.any():
            raise DataFileError(f"data file {path}: agent {row_agents[empty][0]!r} has no data ({_rows(empty)})")
        order = agent_order(row_agents)
        by_name = {name: row for row, name in enumerate(row_agents)}
        rows = np.array([by_name[name] for name in order])
        values = np.concatenate([grid[r, : count_row[r]] for r in rows])
        count = count_row[rows].astype(np.int64)
        agents = row_agents
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    values, low, high, clipped = _bounded(values, data_range, path, names["value"])
    agent_of_sample = np.repeat(np.arange(len(order)), count)
    if true_mean == "column":
        means = _per_agent(table, agents, names["mean"], path, order, "number")
    else:
        means = np.bincount(agent_of_sample, values, minlength=len(order)) / count
    classes, class_names = None, ()
    if names["class"] in table.columns:
        labels = _per_agent(table, agents, names["class"], path, order, "class")
        classes, class_names = _class_codes(labels, path, names["class"])
    return AgentStreams(str(path), file_sha256(path), tuple(order), values, start, count, means, classes,
                        class_names, low, high, clipped)


def _bounded(values: np.ndarray, data_range: DataRange, path: Path, column: str):
    """(values within the range, low, high, how many were clipped)."""
    if data_range.quantiles is not None:
        low, high = (float(q) for q in np.quantile(values, data_range.quantiles))
        if not low < high:
            raise DataFileError(f"data file {path}, column {column!r}: the range derived from the quantiles "
                                f"{list(data_range.quantiles)} is [{low}, {high}], of zero width")
        clip = True
    else:
        low, high, clip = float(data_range.low), float(data_range.high), data_range.clip
    outside = (values < low) | (values > high)
    if outside.any() and not clip:
        raise DataFileError(f"data file {path}, column {column!r}: {int(outside.sum())} value(s) outside the declared "
                            f"range [{low}, {high}] (e.g. {values[outside][0]!r}); declare a wider range, or "
                            "clip: true")
    return np.clip(values, low, high), low, high, int(outside.sum())


#: The most classes a world has (the kernels hold a class in an int8; the schema's means).
MAX_CLASSES = 127


def _class_codes(labels: np.ndarray, path: Path, column: str,
                 what: str = "data file") -> tuple[np.ndarray, tuple[str, ...]]:
    """Class codes 0..K-1 of the agents' labels: integer labels are the codes themselves
    (0..K-1, each with an agent), other labels are coded in sorted order; at most
    ``MAX_CLASSES`` classes."""
    labels = np.array([str(label) for label in labels])
    if all(re.fullmatch(r"\d+", label) for label in labels):
        codes = labels.astype(np.int64)
        missing = sorted(set(range(int(codes.max()) + 1)) - set(codes.tolist()))
        if missing:
            raise DataFileError(f"{what} {path}, column {column!r}: classes {missing} have no agent (integer "
                                f"classes are 0 .. {int(codes.max())}, each with an agent)")
        names = tuple(str(c) for c in range(int(codes.max()) + 1))
    else:
        names = tuple(sorted(set(labels.tolist())))
        codes = np.searchsorted(np.array(names), labels).astype(np.int64)
    if len(names) > MAX_CLASSES:
        raise DataFileError(f"{what} {path}, column {column!r}: {len(names)} classes; a world has at most "
                            f"{MAX_CLASSES}")
    return codes, names


#: A class map's columns (``read_class_map``), renamed by its ``columns`` mapping.
CLASS_MAP_COLUMNS = {"agent": "agent", "class": "class"}


@dataclass(frozen=True)
class ClassMap:
    """Each agent's class from a file (one row per agent: agent, class): ``names`` the
    agents in the world's order (``agent_order``), ``classes`` their codes into
    ``class_names`` (``_class_codes``: integer labels are the codes themselves)."""

    path: str
    sha256: str
    names: tuple[str, ...]
    classes: np.ndarray = field(repr=False)
    class_names: tuple[str, ...]

    @property
    def n_agents(self) -> int:
        return len(self.names)


def read_class_map(path: str | Path, columns: dict | None = None) -> ClassMap:
    """A class map (module docstring), checked: refuses, naming the file, the column and
    the rows, an empty file, missing or extra columns, an empty agent or class, an agent
    on several rows, and integer classes 0..K-1 with one missing."""
    import pandas as pd  # lazy: as _read_table

    path = Path(path)
    names = CLASS_MAP_COLUMNS | (columns or {})
    table = _read_table(path, "class map")
    if table.empty:
        raise DataFileError(f"class map {path}: the file has a header but no rows")
    required = [names["agent"], names["class"]]
    missing = [c for c in required if c not in table.columns]
    extra = [c for c in table.columns if c not in required]
    if missing or extra:
        raise DataFileError(f"class map {path}: {'missing' if missing else 'unexpected'} column(s) "
                            f"{missing or extra}; a class map has exactly the columns {required}")
    cells = {key: table[names[key]].fillna("").astype(str).str.strip().to_numpy() for key in ("agent", "class")}
    for key, values in cells.items():
        if (values == "").any():
            raise DataFileError(f"class map {path}, column {names[key]!r}: {_rows(values == '')} empty")
    duplicate = pd.Series(cells["agent"]).duplicated(keep=False).to_numpy()
    if duplicate.any():
        raise DataFileError(f"class map {path}, column {names['agent']!r}: agent {cells['agent'][duplicate][0]!r} "
                            f"has several rows ({_rows(duplicate)}); a class map has one row per agent")
    order = agent_order(cells["agent"])
    row_of = {name: row for row, name in enumerate(cells["agent"])}
    codes, class_names = _class_codes(cells["class"][[row_of[name] for name in order]], path, names["class"],
                                      "class map")
    return ClassMap(str(path), file_sha256(path), tuple(order), codes, class_names)


def canonical_class_map(class_map: dict) -> dict:
    """A ``population.class_map`` mapping as it enters a figure's params: the path, the
    renamed columns only, and the file's SHA-256 (kept if already there)."""
    canonical = {"path": str(class_map["path"])}
    renamed = {key: name for key, name in (class_map.get("columns") or {}).items()
               if CLASS_MAP_COLUMNS.get(key) != name}
    if renamed:
        canonical["columns"] = dict(sorted(renamed.items()))
    path = Path(class_map["path"])
    canonical["sha256"] = class_map.get("sha256") or (file_sha256(path) if path.is_file() else None)
    return canonical


def class_map_from_settings(class_map: dict) -> ClassMap:
    """The checked class map of a ``population.class_map`` mapping (read once per process
    and content); the file must still have the params' SHA-256."""
    return _class_map(json.dumps(canonical_class_map(class_map), sort_keys=True))


@lru_cache(maxsize=8)
def _class_map(key: str) -> ClassMap:
    spec = json.loads(key)
    return read_class_map(planned_file(spec, "class map"), spec.get("columns"))


def planned_file(spec: dict, what: str) -> Path:
    """The file of a canonical mapping (``path``, ``sha256``), refused if it was no file
    when the params were made or its content changed since."""
    path = Path(spec["path"])
    if spec["sha256"] is None:
        raise DataFileError(f"{what} {str(path)!r} is not a file (relative paths are from the workflow's folder)")
    if path.is_file() and file_sha256(path) != spec["sha256"]:
        raise DataFileError(f"{what} {path}: its content changed since this job was planned (SHA-256 differs): "
                            "run snakemake again")
    return path


def with_class_map(streams: AgentStreams, class_map: ClassMap, class_column: str) -> AgentStreams:
    """``streams`` with the classes of ``class_map``; refuses a file that has its own class
    column, and agents that are in one file only, naming them."""
    if streams.classes is not None:
        raise DataFileError(f"data file {streams.path} has a class column ({class_column!r}) and a class map "
                            f"{class_map.path} is given: keep one")
    for mine, theirs, file, other in ((streams.names, set(class_map.names), class_map.path, streams.path),
                                      (class_map.names, set(streams.names), streams.path, class_map.path)):
        absent = [name for name in mine if name not in theirs]
        if absent:
            raise DataFileError(f"{file} has no row for agent(s) {absent[:10]}{' ...' if len(absent) > 10 else ''} "
                                f"({len(absent)} in all) of {other}")
    row_of = {name: row for row, name in enumerate(class_map.names)}
    rows = [row_of[name] for name in streams.names]
    return replace(streams, classes=class_map.classes[rows], class_names=class_map.class_names,
                   class_map=class_map.path, class_map_sha256=class_map.sha256)


def file_classes(streams: AgentStreams) -> np.ndarray:
    """Each agent's class in a file world (int8, as drawn classes are): the file's, or all
    in class 0 when it gives none."""
    if streams.classes is None:
        return np.zeros(streams.n_agents, dtype=np.int8)
    return streams.classes.astype(np.int8)


def fixed_classes(params: dict) -> np.ndarray | None:
    """The classes every run of an instance rule's ``params`` has: a data file's
    (``file_classes``) or a class map's (``params["class_map"]``, a law world's); None
    where each run draws its own."""
    world = named_world(params)
    if isinstance(world, AgentStreams):
        return file_classes(world)
    return None if world is None else world.classes.astype(np.int8)


def named_world(params: dict) -> AgentStreams | ClassMap | None:
    """Where a world's agents get names (an edge list's nodes are matched to them): its
    data file's, or its class map's; None where agents are numbered 0..M-1."""
    if params.get("data"):
        return streams_from_settings(params["data"])
    if params.get("class_map"):
        return class_map_from_settings(params["class_map"])
    return None


def named_edges(path: str | Path, streams: AgentStreams | ClassMap) -> np.ndarray:
    """The canonical edges (``graphs.canonical_edges``) of an edge-list file whose nodes are
    the agents' names (``match_edge_list``); refuses a self-loop or a duplicate edge."""
    try:
        tokens, _ = edge_list_tokens(path)
    except (ValueError, UnicodeDecodeError) as error:
        raise DataFileError(f"edge list {path}: {error}") from None
    rows = match_edge_list(streams, tokens, str(path))
    why = edge_list_problem(rows, streams.n_agents, streams.n_agents)
    if why:
        raise DataFileError(f"edge list {path}: {why}")
    return canonical_edges(rows)


def match_edge_list(streams: AgentStreams | ClassMap, rows: list[tuple[str, str]], path: str) -> np.ndarray:
    """An edge list whose nodes are agents' names (``rows``: (u, v) as written), as agent
    indices (E, 2); refuses, naming them, nodes that are no agent of the data file (or
    class map)."""
    index = {name: i for i, name in enumerate(streams.names)}
    unknown = sorted({n for edge in rows for n in edge if n not in index}, key=str)
    if unknown:
        shown = unknown[:10]
        raise DataFileError(f"edge list {path}: node(s) {shown}{' ...' if len(unknown) > 10 else ''} "
                            f"({len(unknown)} in all) are no agent of {streams.path}")
    return np.array([(index[u], index[v]) for u, v in rows], dtype=np.int64).reshape(-1, 2)


class DataArrays(NamedTuple):
    """A kernel's argument group (inside its world's) for data from a file: every agent's
    samples concatenated (``data_values``, agent a's from ``data_start[a]``,
    ``data_count[a]`` of them), replayed by the policy code ``replay`` (``REPLAYS``; -1: no
    file, the data drawn from the classes' laws, and the arrays empty).  ``data_order``:
    the permutation policy's scratch, one slot per sample (``replay.replay_index``), the
    kernel's to write."""

    data_values: np.ndarray
    data_start: np.ndarray
    data_count: np.ndarray
    data_order: np.ndarray
    replay: int

    @classmethod
    def of(cls, streams: AgentStreams | None, centred: bool = False) -> DataArrays:
        """The arrays of ``streams`` (None: a world drawn from laws); ``centred``: each
        sample minus its agent's true mean (a kernel that holds errors from the means)."""
        if streams is None:
            return cls(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                       np.zeros(0, dtype=np.int64), -1)
        values = streams.centred() if centred else streams.values
        order = np.zeros(len(values) if streams.replay == "permutation" else 0, dtype=np.int64)
        return cls(np.ascontiguousarray(values, dtype=np.float64), streams.start.astype(np.int64),
                   streams.count.astype(np.int64), order, REPLAYS[streams.replay])


def clipped_share(streams: AgentStreams) -> float:
    """The share of the file's samples clipped into the range."""
    return streams.clipped / streams.n_samples if streams.n_samples else math.nan


# --- a figure's data: settings, population, choices ----------------------------------------

#: The defaults of a ``data`` mapping beyond its path (the schema's).
DATA_DEFAULTS = {"layout": "long", "replay": "bootstrap", "true_mean": "file", "sigma": "class"}


def canonical_data(data: dict) -> dict:
    """A ``population.data`` mapping as it enters a figure's params: its keys at their
    defaults dropped, the renamed columns only, and the file's SHA-256 (kept if already
    there), so an edit of the file reruns exactly the figures reading it."""
    canonical = {"kind": "file", "path": str(data["path"])}
    for key, default in DATA_DEFAULTS.items():
        if data.get(key, default) != default:
            canonical[key] = data[key]
    renamed = {key: name for key, name in (data.get("columns") or {}).items() if COLUMNS.get(key) != name}
    if renamed:
        canonical["columns"] = dict(sorted(renamed.items()))
    if data.get("range"):
        canonical["range"] = {key: data["range"][key] for key in sorted(data["range"])}
    if data.get("class_map"):
        canonical["class_map"] = canonical_class_map(data["class_map"])
    path = Path(data["path"])
    canonical["sha256"] = data.get("sha256") or (file_sha256(path) if path.is_file() else None)
    return canonical


def streams_from_settings(data: dict) -> AgentStreams:
    """The checked streams of a ``population.data`` mapping (read once per process and
    content); the file must still have the params' SHA-256."""
    return _streams(json.dumps(canonical_data(data), sort_keys=True))


@lru_cache(maxsize=8)
def _streams(key: str) -> AgentStreams:
    data = json.loads(key)
    path = planned_file(data, "data file")
    try:
        data_range = DataRange.from_settings(data.get("range"))
    except ValueError as error:
        raise DataFileError(f"range {data.get('range')}: {error}") from None
    true_mean = data.get("true_mean", DATA_DEFAULTS["true_mean"])
    streams = read_streams(path, data.get("layout", DATA_DEFAULTS["layout"]), data.get("columns"), data_range,
                           true_mean)
    origin = (f"quantiles {list(data_range.quantiles)} of the data" if data_range.quantiles is not None
              else f"declared{', values outside clipped' if data_range.clip else ''}")
    if data.get("class_map"):
        class_column = (data.get("columns") or {}).get("class", COLUMNS["class"])
        streams = with_class_map(streams, class_map_from_settings(data["class_map"]), class_column)
    return replace(streams, replay=data.get("replay", DATA_DEFAULTS["replay"]), range_origin=origin,
                   true_mean=true_mean, sigma=data.get("sigma", DATA_DEFAULTS["sigma"]))


def file_record(streams: AgentStreams) -> dict:
    """What a figure's provenance records of its data file."""
    return {
        "path": streams.path, "sha256": streams.sha256, "agents": streams.n_agents, "samples": streams.n_samples,
        "classes": list(streams.class_names) if streams.classes is not None else None,
        "class_map": {"path": streams.class_map, "sha256": streams.class_map_sha256} if streams.class_map else None,
        "range": [streams.low, streams.high], "range_origin": streams.range_origin,
        "clipped_samples": streams.clipped, "clipped_share": clipped_share(streams),
        "replay": streams.replay, "true_mean": streams.true_mean, "sigma": streams.sigma,
    }


def file_choices(streams: AgentStreams) -> tuple[str, ...]:
    """What a file world chooses where a paper is silent, for the figure's choices."""
    source = f"the class map {streams.class_map}" if streams.class_map else "its class column"
    told = ("each agent's own standard deviation about its true mean, over its file (its class's pooled one where "
            "its samples do not vary), treated as public: no privacy noise covers it" if streams.sigma == "agent"
            else "each class's pooled standard deviation about its agents' true means")
    share = clipped_share(streams)
    classes = (f"{len(streams.class_names)} classes from {source}" if streams.classes is not None
               else "no class column or class map: one class (an oracle curve is refused)")
    bounded = (f"values bounded in [{streams.low:g}, {streams.high:g}] ({streams.range_origin}); "
               f"{streams.clipped} of {streams.n_samples} samples clipped ({100 * share:.3g} %); the Laplace noise "
               f"is calibrated to this range (L = {streams.half_width:g})")
    if "quantiles" in streams.range_origin:
        bounded += "; a range derived from the data is itself computed from private values"
    truth = ("each agent's mean over its whole file (after clipping)" if streams.true_mean == "file"
             else "the file's mean column")
    return (
        (f"data from the file {streams.path} (SHA-256 {streams.sha256[:12]}): {streams.n_agents} agents, "
         f"{streams.n_samples} samples, {classes}; every run sees the same agents, classes and samples"),
        (f"each agent's samples replayed: {streams.replay} (bootstrap: uniform draws with replacement, an i.i.d. "
         "stream from the file's empirical law; in_order: as recorded, by passes; permutation: a fresh random "
         "order per pass, each sample once per pass)"),
        bounded,
        f"true means: {truth}",
        (f"sigma told to the rules: {told}; the Bernstein parameter from the class's empirical moments"),
        ("Local is simulated, run by run: the agents' own running means of the samples they replay (not "
         "sigma^2/t: a replayed stream gives its agent the true mean at the end of each pass); Ideal and the "
         "closed forms are left out: they assume classmates that share a mean and draw i.i.d. samples"),
    )
