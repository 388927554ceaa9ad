"""Sweeps: figures whose x axis is a parameter (privacy-utility curves, phase diagrams).

A sweep figure names a simulated ``base`` figure, settings ``set`` on every point, and one
or two ``axes``: a key of the base figure (or a global key such as ``population.sigma``)
and its values, with optional companion keys zipped along the axis (``with``, e.g. the
Bernstein exponent that goes with each eps).  Each combination of axis values is a *point*:
an ordinary simulated figure named ``<sweep>__<key><value>[__<key><value>]``, with its own
instances, chunks and table, built by the same rules as any figure.  So adding a value
plans only that value's jobs, progressive fidelity and byte-identical reruns hold point by
point, and every point can run on a cluster.

Every point draws the base figure's random streams (``stream``): points share the base's
instance files wherever their instance settings agree (eps values on one graph), and all
draw the same data and noise (common random numbers: a curve's lanes replay the same draws
in any kernel call), so a point's curves equal, bit for bit, the base figure's curves with
that value, and differences between points are paired.

The sweep's table summarises each point's curves at one time (``summary``): the MSE at t,
averaged over a window of t, its ratio to Local at t, or the first t it reaches a target
MSE; one row per curve and point.  The point tables' analytic curves (Local, Ideal, seed
002's Theorem 1 asymptote) are summarised the same way and drawn as overlays; the engine of
the base adds its own predicted boundaries (``Engine.sweep_margins``, e.g. Corollary 1).
One axis draws one line per curve with +-2 se bands; two axes draw a heatmap per curve of
log10(MSE / Local), with the cells whose sign the Monte Carlo error cannot resolve marked
and the predicted boundaries drawn over it.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..aggregation import groups_as_curves
from ..engines import FigureTables, check_names_figure, no_diagnostics, no_pairs, table_path
from ..errors import ConfigError
from ..provenance import table_provenance
from .base import DerivedEngine

#: The closed-form curve every summary is compared with (``colme.baselines``).
LOCAL = "Local"
#: Standard errors of the +-bands and of "resolved" (the claims' k).
K = 2.0
#: Columns of a sweep's table (the axis keys come after ``point``).
TABLE_COLUMNS = ["curve", "kind", "point", "t", "mse", "se", "runs", "local", "ratio", "ratio_se",
                 "log10_ratio", "resolved", "y", "y_lo", "y_hi"]



def value_token(value) -> str:
    """A value as it appears in a point's name: 0.25 -> 0p25, 1e-06 -> 1em06, inf -> inf."""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "minf"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return str(value).replace(".", "p").replace("-", "m").replace("+", "")


def point_name(sweep: str, coordinates: dict) -> str:
    """``<sweep>__<key><value>...``, one part per axis (dots of a key become underscores; a
    key ending in a list index is followed by one more: privacy_mixes_0_shares_0_0p3)."""
    parts = [f"{key.replace('.', '_')}{'_' if key[-1].isdigit() else ''}{value_token(value)}"
             for key, value in coordinates.items()]
    return "__".join([sweep, *parts])


#: Lists whose entries sum to 1 (dotted keys, list indices as ``N``): a point that sets some
#: of a list's entries (an axis and its ``with``) gets the others rescaled in proportion, so
#: the list still sums to 1 (``rescale_simplices``; said in the sweep's choices).
SIMPLEX_LISTS = ("population.probabilities", "privacy_mixes.N.shares")


def key_parts(key: str) -> list:
    """A dotted key's parts, list indices as ints: privacy_mixes.0.shares.1 -> [..., 0, ..., 1]."""
    return [int(part) if part.isdigit() else part for part in key.split(".")]


def lookup(settings, key: str):
    """The value at a dotted ``key`` (list indices allowed), None where there is none."""
    target = settings
    for part in key_parts(key):
        if isinstance(part, int):
            if not isinstance(target, list) or not 0 <= part < len(target):
                return None
        elif not isinstance(target, dict) or part not in target:
            return None
        target = target[part]
    return target


def simplex_of(key: str) -> str | None:
    """The list of ``SIMPLEX_LISTS`` whose entry ``key`` is (its dotted key), if any."""
    parent, _, index = key.rpartition(".")
    pattern = re.sub(r"\.\d+(?=\.|$)", ".N", parent)
    return parent if index.isdigit() and pattern in SIMPLEX_LISTS else None


def simplex_note(simplex: str) -> str:
    """The choice a sweep states when it rescales a list's entries (``rescale_simplices``)."""
    return (f"{simplex}: the entries a point does not set are rescaled in proportion so that the list "
            "still sums to 1")


def touched_simplices(keys) -> dict[str, set[int]]:
    """The lists of ``SIMPLEX_LISTS`` that ``keys`` set entries of, with those entries' indices."""
    touched: dict[str, set[int]] = {}
    for key in keys:
        simplex = simplex_of(key)
        if simplex is not None:
            touched.setdefault(simplex, set()).add(int(key.rpartition(".")[2]))
    return touched


def rescaled_simplices(settings: dict) -> list[str]:
    """The lists of ``SIMPLEX_LISTS`` whose entries the sweep's axes set (the others
    rescaled, ``rescale_simplices``)."""
    return sorted(touched_simplices(key for axis in settings["axes"] for key in [axis["key"], *axis.get("with", {})]))


def list_value(settings: dict, key: str):
    """The list at ``key`` in resolved ``settings``: population.probabilities, None when the
    classes are equally likely, is read as the uniform probabilities of the class means."""
    value = lookup(settings, key)
    if value is None and key == "population.probabilities":
        means = settings["population"]["means"]
        value = [1.0 / len(means)] * len(means)
    return value


def axis_assignments(axis: dict) -> list[dict]:
    """The settings each value of one axis sets: its key and the companions (``with``)."""
    companions = axis.get("with", {})
    return [
        {axis["key"]: value, **{key: values[index] for key, values in companions.items()}}
        for index, value in enumerate(axis["values"])
    ]


def points(settings: dict, name: str) -> list[dict]:
    """Every point of a sweep: ``{"name", "coordinates" (axis key -> value), "set" (every
    key it sets, companions included)}``, the first axis varying slowest."""
    axes = settings["axes"]
    out = []
    for combination in itertools.product(*(axis_assignments(axis) for axis in axes)):
        coordinates = {axis["key"]: assigned[axis["key"]] for axis, assigned in zip(axes, combination, strict=True)}
        assigned = {key: value for part in combination for key, value in part.items()}
        out.append({"name": point_name(name, coordinates), "coordinates": coordinates, "set": assigned})
    return out


#: The name part of a lanes axis in the name of the figure that runs its values
#: (``<sweep>__eps_lanes``): no value token starts with an underscore.
LANES = "_lanes"


def lane_axis(settings: dict) -> dict | None:
    """The sweep's axis whose values run as lanes of one figure (``lanes: true``), if any."""
    return next((axis for axis in settings["axes"] if axis.get("lanes")), None)


def sweep_figures(settings: dict, name: str) -> list[dict]:
    """The simulated figures a sweep builds, each ``{"name", "set", "points"}``: one per
    point; with a lanes axis, one per combination of the other axes, whose curve key holds
    every value of that axis (and its companions their lists), so the values run as lanes
    of one kernel call on the same draws (``Engine.lane_keys``).  Its curves equal the
    points' own, bit for bit; adding a value reruns that figure's chunks."""
    swept = points(settings, name)
    lanes = lane_axis(settings)
    if lanes is None:
        return [{"name": point["name"], "set": point["set"], "points": [point]} for point in swept]
    listed = [lanes["key"], *lanes.get("with", {})]
    grouped: dict[str, dict] = {}
    for point in swept:
        coordinates = {key: LANES if key == lanes["key"] else value for key, value in point["coordinates"].items()}
        figure = grouped.setdefault(point_name(name, coordinates), {
            "name": point_name(name, coordinates),
            "set": {key: value for key, value in point["set"].items() if key not in listed},
            "points": [],
        })
        figure["points"].append(point)
    for figure in grouped.values():
        figure["set"].update({key: [point["set"][key] for point in figure["points"]] for key in listed})
    return list(grouped.values())


def lane_rows(frame: pd.DataFrame, key: str | None, value) -> pd.DataFrame:
    """The rows of a lanes figure's table (or supplement) that belong to the point with
    ``key`` = ``value``: its own and those shared by every value (NaN in the key's column);
    all rows without a lanes axis (``key`` None) or for a frame without that column."""
    if key is None or key not in frame.columns:
        return frame
    column = frame[key]
    return frame[column.isna() | (column == float(value))]


def _assign(target: dict, key: str, value) -> None:
    """Set a dotted ``key`` in ``target`` (a list entry by its index: privacy_mixes.0.shares.1);
    a scalar given for a list-valued key (a figure's ``eps`` list, one curve per value)
    becomes a one-element list."""
    *parents, leaf = key_parts(key)
    for part in parents:
        target = target[part] if isinstance(part, int) else target.setdefault(part, {})
    if isinstance(leaf, int):
        target[leaf] = copy.deepcopy(value)
        return
    if isinstance(target.get(leaf), list) and not isinstance(value, list):
        value = [value]
    target[leaf] = copy.deepcopy(value)


def rescale_simplices(settings: dict, assigned) -> None:
    """In the lists of ``SIMPLEX_LISTS`` that a point sets only part of (``assigned``: the
    keys it sets), rescale the other entries in proportion so that the list sums to 1 (a
    list whose set entries exceed 1 is left for validation to refuse, naming it)."""
    for simplex, indices in touched_simplices(assigned).items():
        values = lookup(settings, simplex)
        others = [i for i in range(len(values)) if i not in indices]
        rest = sum(values[i] for i in others)
        left = 1.0 - sum(values[i] for i in indices)
        if not others or left < 0:
            continue
        if rest <= 0:
            raise ConfigError(f"{simplex}: the entries {others} the sweep does not set sum to 0, so they cannot be "
                              f"rescaled to {left:g}; set them along the axis with `with`")
        for i in others:
            values[i] = values[i] * left / rest


def _materialize_list(target: dict, key: str, base: dict) -> None:
    """Before a point sets a list entry, the list itself where the written configuration
    leaves it to a default (the resolved base's: its class means; equally likely classes
    for population.probabilities)."""
    parent = key.rpartition(".")[0]
    if not key.rpartition(".")[2].isdigit() or isinstance(lookup(target, parent), list):
        return
    value = list_value(base, parent) if base else None
    if value is not None:
        _assign(target, parent, list(value))


def global_settings(config: dict) -> dict:
    """A copy of ``config`` without its figures and targets: the context of one figure
    written on its own (a sweep's point, a sensitivity variant)."""
    return {key: copy.deepcopy(setting) for key, setting in config.items() if key not in ("figures", "targets")}


def point_config(config: dict, sweep: dict, point: dict, global_keys, base: dict | None = None) -> dict:
    """A configuration holding one point as its only figure: the base's entry with the
    sweep's ``set`` and the point's values applied (keys the figure does not have, such as
    ``population.sigma``, at the top level; a list entry's list taken from the resolved
    ``base`` settings where the configuration leaves it to a default), the other entries
    of a list that sums to 1 rescaled (``rescale_simplices``)."""
    trial = global_settings(config)
    entry = copy.deepcopy(config["figures"][sweep["base"]])
    for key, value in [*sweep["set"].items(), *point["set"].items()]:
        head = key.split(".")[0]
        target = trial if head in global_keys and head not in entry else entry
        _materialize_list(target, key, base or {})
        _assign(target, key, value)
    for target in (entry, trial):
        rescale_simplices(target, [key for key in point["set"] if lookup(target, key) is not None])
    trial["figures"] = {point["name"]: entry}
    return trial


def summary_time(summary: dict, t_max: int) -> int:
    """The time a summary reads (its ``t``, or a window's end; default the horizon)."""
    if summary["kind"] == "mse_window":
        return int(summary["window"][1])
    return int(summary["t"]) if summary.get("t") is not None else int(t_max)


def curve_label(curve: str, keys) -> str:
    """A point curve's name in the sweep: without the ``<key>=<value>`` of any swept key
    (``oracle eps=0.5`` on an eps axis is the sweep's ``oracle``); a swept mix share drops
    the mix's percentages (``eps=1:30%,inf:70%`` -> ``eps=1,inf``), another swept mix entry
    the whole mix (``eps=mix``); a group's label (``[...]``, ``groups_as_curves``) is kept."""
    curve, bracket, group = curve.partition(" [")
    for key in keys:
        if key.startswith("privacy_mixes."):
            curve = (re.sub(r":[^,\s]+%", "", curve) if ".shares." in key
                     else re.sub(r"\beps=\S*%\S*", "eps=mix", curve))
            continue
        leaf = re.escape(next(part for part in reversed(key_parts(key)) if isinstance(part, str)))
        curve = re.sub(rf"\s*\b{leaf}=\S+", "", curve)
    return curve.strip() + bracket + group


def summarise(table: pd.DataFrame, summary: dict, t_max: int) -> pd.DataFrame:
    """One point's curves summarised: one row per curve with mse, se and runs at the summary
    time (or averaged over the window), its ratio to Local and the plotted y with its band.

    A window's se is the mean of the per-t se: an upper bound on the se of the average (the
    runs are shared across t), stated in the figure's metadata.  ``time_to_mse``: the first
    recorded t with mse <= target (its band: the same for mse -+ 2 se); NaN if never.
    """
    end = summary_time(summary, t_max)
    recorded = np.sort(table["t"].unique())
    if summary["kind"] == "mse_window":
        start = int(summary["window"][0])
        times = recorded[(recorded >= start) & (recorded <= end)]
    else:
        times = recorded[recorded <= end][-1:]
    window = table[table["t"].isin(times)]
    grouped = window.groupby("curve", sort=False)
    rows = pd.DataFrame({
        "kind": grouped["kind"].first(),
        "t": int(times[-1]),
        "mse": grouped["mse"].mean(),
        "se": grouped["se"].mean(),
        "runs": grouped["runs"].max(),
    })
    local = float(rows.loc[LOCAL, "mse"])
    rows["local"] = local
    rows["ratio"] = rows["mse"] / local
    rows["ratio_se"] = rows["se"] / local
    with np.errstate(divide="ignore", invalid="ignore"):
        rows["log10_ratio"] = np.log10(rows["ratio"])
    rows["resolved"] = (rows["ratio"] - 1).abs() > K * rows["ratio_se"]
    se = rows["se"].fillna(0.0)
    if summary["kind"] in ("mse_at", "mse_window"):
        rows["y"], rows["y_lo"], rows["y_hi"] = rows["mse"], rows["mse"] - K * se, rows["mse"] + K * se
    elif summary["kind"] == "ratio_to_local":
        ratio_se = rows["ratio_se"].fillna(0.0)
        rows["y"], rows["y_lo"], rows["y_hi"] = (rows["ratio"], rows["ratio"] - K * ratio_se,
                                                 rows["ratio"] + K * ratio_se)
    else:
        target = float(summary["target"])

        def first_time(frame: pd.DataFrame, shift: float) -> float:
            below = frame["t"][frame["mse"] + shift * frame["se"].fillna(0.0) <= target]
            return float(below.iloc[0]) if len(below) else math.nan

        by_curve = table[table["t"] <= end].groupby("curve", sort=False)
        rows["y"] = [first_time(by_curve.get_group(c), 0.0) for c in rows.index]
        rows["y_lo"] = [first_time(by_curve.get_group(c), -K) for c in rows.index]
        rows["y_hi"] = [first_time(by_curve.get_group(c), K) for c in rows.index]
    return rows.rename_axis("curve").reset_index()


def crossing(x: np.ndarray, log_ratio: np.ndarray) -> tuple[float, str]:
    """Where a log ratio to Local (or a margin) changes sign along x: interpolated linearly
    in log x (in x if some x <= 0) between the first two consecutive points of opposite
    signs, with "at"; the bracket's finite end with "above" when the other end is +inf; NaN
    with "none" if the sign never changes (an infinite value counts with its sign)."""
    for i in range(len(x) - 1):
        a, b = log_ratio[i], log_ratio[i + 1]
        if np.isnan(a) or np.isnan(b) or a * b >= 0:
            continue
        if not np.isfinite(x[i + 1]):
            return float(x[i]), "above"
        if not (np.isfinite(a) and np.isfinite(b)):
            return float(x[i] if np.isfinite(a) else x[i + 1]), "near"
        w = a / (a - b)
        if x[i] > 0:
            return float(np.exp((1 - w) * np.log(x[i]) + w * np.log(x[i + 1]))), "at"
        return float((1 - w) * x[i] + w * x[i + 1]), "at"
    return math.nan, "none"


class SweepEngine(DerivedEngine):
    """A figure over a parameter: one or two axes of points, each a simulated figure."""

    name = "sweep"
    figure_schema = "sweep_figure"
    time_axis = False
    drawing_keys = ("title", "draws_as")

    def complete(self, settings, config):
        base = config["figures"].get(settings["base"])  # an unknown base: ``check`` names it
        settings["draws_as"] = base["engine"] if isinstance(base, dict) else ""

    def standalone_config(self, entry):
        base = next(engine.name for engine in self.engines.values() if engine.simulated)
        return {"figures": {"base": {"engine": base}, "figure": {"base": "base", **entry}}}

    def check(self, settings, where, config):
        """What the sweep's entry says, against its base's engine; its axes against the
        base's settings and its points are checked where they are made
        (``check_axes``, ``check_point``: ``colme.expansion``)."""
        figures = config["figures"]
        base = settings["base"]
        check_names_figure(f"{where}.base", base, figures, lambda f: self.engines[figures[f]["engine"]].simulated,
                           "a simulated figure")
        keys = [axis["key"] for axis in settings["axes"]]
        if len(set(keys)) != len(keys):
            raise ConfigError(f"{where}.axes: each axis needs its own key; got {keys}")
        summary = settings["summary"]
        if summary["kind"] == "time_to_mse" and summary.get("target") is None:
            raise ConfigError(f"{where}.summary.target: time_to_mse needs a target MSE")
        if summary["kind"] == "mse_window" and summary.get("window") is None:
            raise ConfigError(f"{where}.summary.window: mse_window needs a window [t_start, t_end]")

    def base_figure(self, settings):
        return settings["base"]

    def numeric_params(self, settings):
        """The settings but the axes' ``scale`` (drawing only: ``drawing_options``)."""
        params = super().numeric_params(settings)
        params["axes"] = [{key: value for key, value in axis.items() if key != "scale"} for axis in params["axes"]]
        return params

    def drawing_options(self, settings):
        scales = [axis.get("scale", "auto") for axis in settings["axes"]]
        return {"scales": scales} if any(scale != "auto" for scale in scales) else {}

    def generated_figures(self, settings, name, config, base):
        """The simulated figures the sweep builds (``sweep_figures``: its points, or its
        lanes figures), after its axes are checked against the base figure's settings."""
        where = f"figures.{name}"
        for index, axis in enumerate(settings["axes"]):
            self._check_axis(axis, f"{where}.axes[{index}]", base)
        self._check_lanes(settings["axes"], where, self.engines[base["engine"]])
        global_keys = set(config) - {"figures", "targets"}
        return [
            {**built, "config": point_config(config, settings, built, global_keys, base)}
            for built in sweep_figures(settings, name)
        ]

    def check_generated(self, settings, where, generated, resolved):
        """The summary's time within the figure's horizon, for each of its points; the
        figure draws the base's random streams."""
        summary = settings["summary"]
        t_max = resolved["t_max"]
        end = summary_time(summary, t_max)
        for point in generated["points"]:
            if summary["kind"] == "mse_window" and not 1 <= summary["window"][0] <= end:
                raise ConfigError(f"{where}.summary.window={summary['window']}: needs 1 <= t_start <= t_end")
            if not 1 <= end <= t_max:
                key = "window" if summary["kind"] == "mse_window" else "t"
                raise ConfigError(
                    f"{where}.summary.{key}: the summary time {end} is beyond the point's t_max = {t_max} "
                    f"(point {point['set']})"
                )
        resolved["stream"] = settings["base"]

    @staticmethod
    def _check_lanes(axes, where, engine):
        """At most one lanes axis, over one of the base engine's curve keys, with exactly
        that key's zipped list keys as companions."""
        flagged = [index for index, axis in enumerate(axes) if axis.get("lanes")]
        if len(flagged) > 1:
            raise ConfigError(f"{where}.axes[{flagged[1]}].lanes: at most one axis runs as lanes; "
                              f"axes {flagged} ask for it")
        if not flagged:
            return
        axis, key = axes[flagged[0]], f"{where}.axes[{flagged[0]}]"
        if axis["key"] not in engine.lane_keys:
            raise ConfigError(
                f"{key}.lanes: {axis['key']!r} is not a curve key of engine {engine.name!r}, whose values "
                f"could run as lanes of one kernel call; curve keys: {sorted(engine.lane_keys) or 'none'}"
            )
        companions = sorted(engine.lane_keys[axis["key"]])
        if sorted(axis.get("with", {})) != companions:
            raise ConfigError(
                f"{key}.with: lanes over {axis['key']!r} need exactly its zipped list keys {companions} "
                f"along the axis, one value each; got {sorted(axis.get('with', {}))}"
            )
        listed = {axis["key"], *companions}
        for index, other in enumerate(axes):
            clash = sorted(listed & {other["key"], *other.get("with", {})}) if other is not axis else []
            if clash:
                raise ConfigError(
                    f"{where}.axes[{index}]: sets {clash}, which the lanes axis axes[{flagged[0]}] holds as "
                    "lists; only the lanes axis may set them"
                )

    @staticmethod
    def _check_axis(axis, where, base_settings):
        population = base_settings["population"]
        if population.get("probabilities") is None:  # equally likely classes: an entry can still be swept
            base_settings = {**base_settings, "population": {
                **population, "probabilities": list_value(base_settings, "population.probabilities")}}
        for key in [axis["key"], *axis.get("with", {})]:
            value = lookup(base_settings, key)
            if value is None or not _numeric(value):
                allowed = sorted(
                    k for k, v in base_settings.items()
                    if k not in ("engine", "title", "stream") and _numeric(v)
                ) + sorted(f"population.{k}" for k, v in base_settings["population"].items() if _numeric(v))
                entries = [path for path in _entry_paths(base_settings) if path.split(".")[0] not in ("groups",)]
                raise ConfigError(
                    f"{where}.key={key!r}: not a numeric key of the base figure; numeric keys: {allowed}; "
                    f"list entries: {entries}"
                )
        if axis.get("scale") == "log" and min(axis["values"]) < 0:
            raise ConfigError(f"{where}.scale='log': the values {axis['values']} include negatives; "
                              "allowed scales: auto, linear, log (values >= 0; 0 drawn a step below the smallest)")
        for key, values in axis.get("with", {}).items():
            if len(values) != len(axis["values"]):
                raise ConfigError(
                    f"{where}.with.{key}: {len(values)} values for {len(axis['values'])} axis values; "
                    "give one per axis value"
                )

    def table_inputs(self, figure, settings, chunk_paths, results="results"):
        names = [f["name"] for f in sweep_figures(settings, figure)]
        return {
            "tables": [table_path(results, name) for name in names],
            "metas": [table_path(results, name, ".json") for name in names],
            "supplements": [table_path(results, name, "_supplement.csv") for name in names],
        }

    def tables(self, figure, params, inputs):
        keys = [axis["key"] for axis in params["axes"]]
        lanes = lane_axis(params)
        lane_key = None if lanes is None else lanes["key"]
        figures = sweep_figures(params, figure)
        metas = [json.loads(Path(path).read_text()) for path in inputs["metas"]]
        read = {}  # point name -> (its figure's table, supplement and meta, the point's settings)
        for built, path, meta, supplement in zip(figures, inputs["tables"], metas, inputs["supplements"],
                                                 strict=True):
            # exact floats: a lanes figure's rows are split by their eps, compared with ==
            table = groups_as_curves(pd.read_csv(path, float_precision="round_trip"))
            supplement = pd.read_csv(supplement, float_precision="round_trip")
            for point in built["points"]:
                settings = copy.deepcopy(meta["settings"])
                for key in () if lanes is None else (lane_key, *lanes.get("with", {})):
                    _assign(settings, key, point["set"][key])
                read[point["name"]] = (table, supplement, meta, settings)
        frames, margins, swept = [], [], points(params, figure)
        for point in swept:
            name = point["name"]
            table, supplement, meta, _ = read[name]
            lane_value = point["coordinates"].get(lane_key)
            rows = summarise(lane_rows(table, lane_key, lane_value), params["summary"], int(meta["settings"]["t_max"]))
            rows["curve"] = [curve_label(c, keys) for c in rows["curve"]]
            rows["point"] = name
            for key, value in point["coordinates"].items():
                rows[key] = float(value)
            frames.append(rows)
            engine = self.engines[meta["settings"]["engine"]]
            for quantity, margin in engine.sweep_margins(lane_rows(supplement, lane_key, lane_value)).items():
                margins.append({"quantity": quantity, "curve": "", "point": name, **point["coordinates"],
                                "value": margin})
        table = pd.concat(frames, ignore_index=True)[TABLE_COLUMNS[:3] + keys + TABLE_COLUMNS[3:]]
        supplement = pd.DataFrame(margins, columns=["quantity", "curve", "point", *keys, "value", "where"])
        if len(keys) == 1:
            supplement = pd.concat([supplement, self._crossings(table, supplement, keys[0])], ignore_index=True)
        provenance = {
            "runs": int(max(m["runs"] for m in metas)),
            "compute_seconds": float(sum(m["compute_seconds"] for m in metas)),
            "points": {p["name"]: {"coordinates": p["coordinates"], "settings": read[p["name"]][3],
                                   "runs": read[p["name"]][2]["runs"]} for p in swept},
            "simulated_figures": [f["name"] for f in figures],
            "summary": params["summary"],
            "base": params["base"],
            "interpretations": sorted({i for m in metas for i in m.get("interpretations", [])})
            + [simplex_note(simplex) for simplex in rescaled_simplices(params)],
            "margins": supplement.astype(object).where(supplement.notna(), None).to_dict(orient="records"),
        }
        return FigureTables(table, supplement, no_pairs(), no_diagnostics(), provenance)

    @staticmethod
    def _crossings(table: pd.DataFrame, margins: pd.DataFrame, key: str) -> pd.DataFrame:
        """Per curve, the axis value at which its ratio to Local crosses 1 (a measurement
        for simulated curves, a prediction for closed-form ones), and per engine margin the
        value at which it changes sign (``boundary: <margin>``)."""
        rows = []
        for curve, frame in table.groupby("curve", sort=False):
            if curve == LOCAL:
                continue
            frame = frame.sort_values(key)
            value, where = crossing(frame[key].to_numpy(float), frame["log10_ratio"].to_numpy(float))
            rows.append({"quantity": "crosses Local", "curve": curve, "point": "", key: math.nan, "value": value,
                         "where": where})
        for quantity, frame in margins.groupby("quantity", sort=False):
            frame = frame.sort_values(key)
            value, where = crossing(frame[key].to_numpy(float), frame["value"].to_numpy(float))
            rows.append({"quantity": f"boundary: {quantity}", "curve": "", "point": "", key: math.nan,
                         "value": value, "where": where})
        return pd.DataFrame(rows)

    def subtitle(self, meta):
        summary = meta["summary"]
        what = {
            "mse_at": "MSE at t = {t}", "mse_window": "mean MSE over t in {window}",
            "ratio_to_local": "MSE / Local at t = {t}", "time_to_mse": "first t with MSE <= {target:g}",
        }[summary["kind"]].format(t=summary.get("t") or "t_max", window=summary.get("window"),
                                  target=summary.get("target") or 0)
        runs = sorted({p["runs"] for p in meta["points"].values()})
        return (f"{what}; {len(meta['points'])} points of {meta['base']}, {'/'.join(map(str, runs))} runs each, "
                f"seed {next(iter(meta['points'].values()))['settings']['seed']}; bands +-{K:g} se")

    def draw(self, table, meta, title, pdf, png):
        from ..plotting import draw_heatmaps, draw_sweep_lines  # lazy: matplotlib, only where a figure is drawn

        keys = [axis["key"] for axis in meta["settings"]["axes"]]
        scales = meta.get("drawing", {}).get("scales", ["auto"] * len(keys))
        supplement = meta["margins"]
        if len(keys) == 1:
            draw_sweep_lines(table, keys[0], meta, supplement, title, pdf, png, scales[0])
        else:
            draw_heatmaps(table, keys, meta, supplement, title, pdf, png)

    def provenance(self, figure, params, extras):
        extras = dict(extras)
        interpretations = extras.pop("interpretations")
        return table_provenance(figure, params, interpretations, **extras)

    def figure_interpretations(self, settings):
        return self.engines[settings["draws_as"]].interpretations


def _entry_paths(settings, prefix: str = "", inside_list: bool = False) -> list[str]:
    """The dotted keys of the numeric entries of lists (and of mappings in lists) in
    ``settings``: eps.0, population.means.1, privacy_mixes.0.shares.0, ..."""
    if isinstance(settings, dict):
        return [path for key, value in settings.items()
                for path in _entry_paths(value, f"{prefix}{key}.", inside_list)]
    if isinstance(settings, list):
        return [path for index, value in enumerate(settings)
                for path in _entry_paths(value, f"{prefix}{index}.", True)]
    return [prefix[:-1]] if inside_list and _numeric(settings) else []


def _numeric(value) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_numeric(v) for v in value)
    return isinstance(value, int | float) and not isinstance(value, bool)
