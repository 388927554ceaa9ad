"""Reruns match exactly what changed: every leaf key of the schema, table-driven.

For each leaf key of every engine's schema (and of the top level), a valid edit of the
shipped config is applied and the params of every job of every figure are recomputed
as the workflow computes them (``colme.registry.stage_params``, canonical JSON).  The
earliest stage whose params change must be the one the table below expects:

* ``instances``: the key changes the instances (graph and class model, seed), so the
  chunks, tables, figures and claims all rerun;
* ``simulate``: the key changes every chunk's numbers but not the instances;
* ``table``: analytic figures (and zoom views) recompute their tables;
* ``figure``: cosmetic keys (the title) redraw the figure only;
* ``None``: the figure's jobs are untouched.

Keys that change which chunks exist (``runs``, ``chunk_runs``, ``preset``) are checked
on the set of run ranges.  The end-to-end tests in test_workflow.py check the same on
real `snakemake -n` plans.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
import yaml

from colme.aggregation import run_chunks
from colme.ccolme.decision_rules import BUILTIN as BUILTIN_RULES
from colme.config import _branch, load_schema, resolve_figure, update_config
from colme.expansion import expand_config, validate_config
from colme.provenance import canonical_json
from colme.registry import ENGINES, figure_caption, stage_params

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = yaml.safe_load((ROOT / "config.yaml").read_text())
SCHEMA = load_schema()
STAGES = ("instances", "simulate", "table", "figure")

#: Per engine: the earliest stage each of its figure keys reruns (written from the papers'
#: algorithms, not from the code: what each parameter feeds).
FIGURE_KEYS = {
    "ccolme": {
        "n_agents": "instances", "degree": "instances", "graph.family": "instances",
        "eps": "simulate", "theta_k": "simulate", "rules": "simulate",
        "optimistic_delta": "simulate", "alpha_schedule": "simulate", "alpha_reset": "simulate",
        "optimistic_radius": "simulate", "bernstein_beta": "simulate",
        "weights": "simulate", "t_max": "simulate", "grid.linear": "simulate", "grid.log": "simulate",
        "privacy_mixes": "simulate", "population": "simulate",  # a law: see POPULATION_EDITS
        "decision_rules": None, "weight_rule": "simulate",  # a rule declared but not drawn: no number
        "stream": "simulate",  # another figure's draws: its (existing) instance file, new chunks
        "groups": "simulate",  # the grouped kernel records per group (the panel rows stay as they are)
        "draw_groups": "simulate",  # with its companion groups (alone: the figure only, tests/ccolme/test_groups.py)
        "title": "figure",
    },
    "private_colme": {
        "n_agents": "instances", "population": "instances",  # class probabilities
        "eps": "simulate", "delta": "simulate", "pm2_split": "simulate", "theta0": "simulate",
        "retest": "simulate", "oracle": "simulate", "bayes_prior": "simulate", "t_max": "simulate",
        "welch_dof": "simulate", "schvar2_first_interval": "simulate",
        "grid.linear": "simulate", "grid.log": "simulate", "curves": "simulate",
        # replaced by the explicit curve list when `curves` is set (fig3_varest), else numeric
        "schedules": "simulate|None", "mechanisms": "simulate|None", "weights": "simulate|None",
        "noises": "simulate|None",
        "decision_rule": "simulate", "stream": "simulate",
        "title": "figure",
    },
    "oracle": {
        "n_agents": "table", "eps": "table", "delta": "table", "pm2_split": "table",
        "pm2_variance": "table", "schedules": "table", "mechanisms": "table", "weights": "table",
        "noises": "table", "t_max": "table", "grid.linear": "table", "grid.log": "table",
        "title": "figure",
    },
    "scalable": {
        "n_agents": "instances", "degree": "instances", "population": "simulate",  # a law: see POPULATION_EDITS
        "eps": "simulate", "algorithms": "simulate", "depths": "simulate", "rules": "simulate",
        "delta": "simulate", "test": "simulate", "exclusions": "simulate", "weights": "simulate",
        "alpha_reset": "simulate", "start": "simulate", "tolerance": "simulate",  # a diagnostic's level
        "t_max": "simulate", "grid.linear": "simulate", "grid.log": "simulate", "stream": "simulate",
        "graph.family": "instances", "privacy_mixes": "simulate", "groups": "simulate",
        "title": "figure",
    },
    "overlay": {"title": "figure", "sources": "table", "draw_groups": "figure"},
    "zoom": {"t_max": "table", "title": "figure", "source": "table"},
    "scaling": {"title": "figure", "sources": "table"},
    # A sweep's own table reads its points' tables; its points' jobs: tests/derived/test_sweeps.py.
    "sweep": {"title": "figure", "base": "table", "set": "table", "axes": "table", "summary": "table"},
    "pricer": {"title": "figure"},  # every other PriCER key: "table"
}

#: Top-level keys: the earliest stage per engine ("pricer_random": trust/connectivity kinds).
TOP_KEYS = {
    "seed": {"ccolme": "instances", "private_colme": "instances", "oracle": None, "zoom": None,
             "scaling": None, "pricer": "table", "pricer_feasible_set": None},
    "precision": {"ccolme": "simulate", "private_colme": None, "oracle": None, "zoom": None,
                  "scaling": None, "pricer": None},
    "population.sigma": {"ccolme": "simulate", "private_colme": "simulate", "oracle": "table", "zoom": None,
                         "scaling": None, "pricer": None},
    "population.means": {"ccolme": "simulate", "private_colme": "simulate", "oracle": "table", "zoom": None,
                         "scaling": None, "pricer": None},
    "population.means+": {"ccolme": "instances", "private_colme": "instances", "oracle": "table", "zoom": None,
                          "scaling": None, "pricer": None},
    "t_max": {"ccolme": "simulate", "private_colme": "simulate", "oracle": "table", "zoom": None,
              "scaling": None, "pricer": None},
    "grid_linear": {"ccolme": "simulate", "private_colme": "simulate", "oracle": "table", "zoom": None,
                    "scaling": None, "pricer": None},
    "grid_log": {"ccolme": "simulate", "private_colme": "simulate", "oracle": "table", "zoom": None,
                 "scaling": None, "pricer": None},
    # which figures the default target builds: no job's params
    "targets": {"ccolme": None, "private_colme": None, "oracle": None, "zoom": None, "scaling": None,
                "pricer": None},
    # where the outputs go: no job's params (a new folder holds none of them: all are made there)
    "results": {"ccolme": None, "private_colme": None, "oracle": None, "zoom": None, "scaling": None,
                "pricer": None},
}


def job_params(config: dict) -> dict:
    """(figure, stage, run range) -> canonical params, for every job of the config."""
    config = validate_config(config)
    jobs = {}
    for figure in config["figures"]:
        settings = resolve_figure(config, figure)
        engine = ENGINES[settings["engine"]]
        if engine.simulated:
            for start, stop in run_chunks(settings["runs"], settings["chunk_runs"]):
                for stage in ("instances", "simulate"):
                    jobs[figure, stage, (start, stop)] = canonical_json(
                        stage_params(settings, stage, start, stop)
                    )
        for stage in ("table", "figure"):
            jobs[figure, stage, None] = canonical_json(stage_params(settings, stage))
        jobs[figure, "figure", "caption"] = figure_caption(figure, settings)
    return jobs


BASE = job_params(SHIPPED)
#: The shipped figures as validated (derived figures written out in full).
VALIDATED = validate_config(SHIPPED)["figures"]


def earliest_changes(config: dict) -> dict:
    """Per figure, the earliest stage whose jobs' params (or set of chunks) changed."""
    jobs = job_params(config)
    changed = {key for key in set(BASE) | set(jobs) if BASE.get(key) != jobs.get(key)}
    earliest = {}
    for figure in SHIPPED["figures"]:
        stages = {stage for f, stage, _ in changed if f == figure}
        earliest[figure] = next((s for s in STAGES if s in stages), None)
    return earliest


def other_value(schema: dict, value):
    """A valid value different from ``value``, from the key's schema."""
    schema = _branch({}, schema, SCHEMA) if "$ref" in schema else schema
    if "enum" in schema:
        return next(v for v in schema["enum"] if v != value)
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if isinstance(value, bool):
        return not value
    if value is None:
        if "integer" in kinds:
            return 3
        if "array" in kinds:
            return [0, 1] if schema["items"].get("type") == "integer" else [{"variance": "known"}]
    if isinstance(value, int) and "integer" in kinds:
        return value + 2 if schema.get("maximum") is None else value - 1
    if isinstance(value, float) and math.isinf(value):  # eps = .inf (no privacy constraint)
        return 1000.0
    if isinstance(value, (int, float)) and ("number" in kinds or not kinds[0]):
        return value / 2 if value > 0 else 0.5
    if isinstance(value, str):
        return value + " (edited)"
    if isinstance(value, list):
        items = schema.get("items", {})
        items = _branch({}, items, SCHEMA) if "$ref" in items else items
        if "enum" in items:  # add a value the list lacks, else drop the last one
            missing = [v for v in items["enum"] if v not in value]
            return value + missing[:1] if missing else value[:-1]
        if items.get("type") == "object":
            return value[:-1]
        return [other_value(items, value[0]), *value[1:]]  # same length (eps / theta_k pairs)
    raise AssertionError(f"no edit for {schema} / {value!r}")


#: Edits that need a companion edit to stay valid (eq. (21) as printed is drawn for RR only).
COMPANIONS = {"pm2_variance": {"schedules": ["rr"]}, "draw_groups": {"groups": {"by": ["class"]}}}
#: The same, for a figure shipped with a value that constrains the edited key: adding rRR to
#: a figure drawn with eq. (21) as printed needs pm2_variance: mechanism (both are "table" keys).
FIGURE_COMPANIONS = {("schedules", "pm2_variance", "as_printed"): {"pm2_variance": "mechanism"}}


def same_instances(figure: str, validated: dict) -> str | None:
    """Another configured figure of ``figure``'s engine with the same instance settings."""
    def instances(name):
        settings = resolve_figure(validated, name)
        return ENGINES[settings["engine"]].instance_params(settings)

    engine = validated["figures"][figure]["engine"]
    mine = instances(figure)
    return next((name for name, entry in validated["figures"].items()
                 if name != figure and entry["engine"] == engine and instances(name) == mine), None)


def leaf_cases():
    """(figure, dotted key, edited config) for every leaf key of every configured figure."""
    validated = validate_config(SHIPPED)
    for figure, settings in validated["figures"].items():
        schema = _branch(settings, {"$ref": "#/$defs/figure"}, SCHEMA)
        for key, sub in schema["properties"].items():
            if key in ("engine", "kind", "runs", "chunk_runs"):
                continue  # the engine and PriCER kind select the schema; runs: see below
            if key == "graph":  # the shipped figures' graphs -> a ring lattice
                assert settings["graph"]["family"] != "ring_lattice", figure
                yield figure, "graph.family", ("figures", figure, "graph"), {"family": "ring_lattice", "k": 4}
                continue
            if key == "privacy_mixes":
                yield figure, key, ("figures", figure, key), [{"eps": [1, math.inf], "shares": [0.2, 0.8]}]
                continue
            if key == "groups":
                yield figure, key, ("figures", figure, key), {"by": ["class"]}
                continue
            if key == "draw_groups" and settings["engine"] == "overlay":  # drawing only
                yield figure, key, ("figures", figure, key), not settings[key]
                continue
            if key == "draw_groups":  # with groups (COMPANIONS); a rule its derived figures draw too
                rules = settings["rules"]
                yield figure, key, ("figures", figure, key), ["bernstein"] if "bernstein" in rules else rules[:1]
                continue
            if key == "rules" and settings["engine"] == "ccolme":  # a built-in rule it lacks, else one fewer
                missing = [rule for rule in BUILTIN_RULES if rule not in settings["rules"]]
                yield figure, key, ("figures", figure, key), settings["rules"] + missing[:1] if missing \
                    else settings["rules"][:-1]
                continue
            if key == "decision_rules":  # a rule declared, not drawn (drawn: tests/ccolme/test_decision_rules.py)
                rule = {"file": str(ROOT / "experiments/rules/bernstein.py"), "function": "bernstein_copy"}
                yield figure, key, ("figures", figure, key), {"mine": rule}
                continue
            if key == "decision_rule":
                rule = {"file": str(ROOT / "experiments/rules/private_colme.py"), "function": "z_test_copy"}
                yield figure, key, ("figures", figure, key), rule
                continue
            if key == "stream":  # another figure's draws, where one has the same instances; or its own
                sibling = None if settings.get("stream") else same_instances(figure, validated)
                if settings.get("stream"):
                    yield figure, key, ("figures", figure, key), None
                elif sibling is not None:
                    yield figure, key, ("figures", figure, key), sibling
                continue
            if key == "weight_rule":
                regular = settings["graph"]["family"] == "random_regular"  # else a step every set size allows
                rule = {"file": str(ROOT / "experiments/weights/laplacian.py"), "function": "laplacian",
                        "params": {"step": 0.01 if regular else 0.001}}
                yield figure, key, ("figures", figure, key), rule
                continue
            if key == "population":  # the figure's own population over the global one
                own = SHIPPED["figures"][figure].get("population", {})  # another law, the same classes
                override = {**own, "law": {"kind": "beta", "a": 2, "b": 5}} \
                    if settings["engine"] in ("ccolme", "scalable") else {"probabilities": [0.5, 0.25, 0.25]}
                yield figure, key, ("figures", figure, key), override
                continue
            if key == "depths":  # B-ColME's depths: one more
                yield figure, key, ("figures", figure, key), [*settings["depths"], max(settings["depths"]) + 1]
                continue
            if key == "grid":
                for part in ("linear", "log"):
                    yield figure, f"grid.{part}", ("figures", figure, "grid", part), \
                        other_value({"type": "integer"}, settings["grid"][part])
                continue
            sub = _branch({}, sub, SCHEMA) if "$ref" in sub else sub
            if settings["engine"] == "sweep" and key != "title":
                yield figure, key, ("figures", figure, key), None  # SWEEP_EDITS
                continue
            yield figure, key, ("figures", figure, key), other_value(sub, settings[key])


#: Figure keys that make a figure's instances (a figure drawing its `stream` shares them).
INSTANCE_KEYS = ("n_agents", "degree", "graph")


def edited(path, value):
    config = copy.deepcopy(SHIPPED)
    if path[0] == "figures":
        if config["figures"][path[1]].get("engine") != "overlay":  # an overlay's draw_groups needs none
            config["figures"][path[1]].update(copy.deepcopy(COMPANIONS.get(path[2], {})))
        for (key, shipped_key, shipped), companion in FIGURE_COMPANIONS.items():
            if path[2] == key and config["figures"][path[1]].get(shipped_key) == shipped:
                config["figures"][path[1]].update(companion)
        entry = config["figures"][path[1]]
        unread = path[2] == "degree" and entry.get("graph", {}).get("family", "random_regular") != "random_regular"
        if path[2] in (*INSTANCE_KEYS, "population") and entry.get("stream") and not unread:
            config["figures"][path[1]]["stream"] = None  # its own instances now: its own draws
        if path[2] in INSTANCE_KEYS:  # figures paired by `stream` keep the same instances
            for entry in config["figures"].values():
                if entry.get("stream") == path[1]:  # every engine that pairs by stream runs every world
                    entry[path[2]] = copy.deepcopy(value)
        if path[2] in (*INSTANCE_KEYS, "population", "t_max", "grid", "stream"):  # an overlay stays paired: drop it
            config["figures"] = {name: entry for name, entry in config["figures"].items()
                                 if entry.get("engine") != "overlay" or path[1] not in entry["sources"]}
            config.pop("targets", None)
    target = config
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value
    return config


def expected_for(figure: str, key: str):
    engine = VALIDATED[figure]["engine"]
    expected = FIGURE_KEYS[engine].get(key, "table" if engine == "pricer" else "missing")
    if expected == "simulate|None":
        expected = None if VALIDATED[figure].get("curves") else "simulate"
    if key == "degree" and VALIDATED[figure].get("graph", {}).get("family", "random_regular") != "random_regular":
        expected = None  # another family's graph does not read the degree
    return expected


CASES = list(leaf_cases())


@pytest.mark.parametrize("figure, key, path, value", CASES, ids=[f"{c[0]}.{c[1]}" for c in CASES])
def test_figure_key_reruns_exactly_its_stage(figure, key, path, value):
    if key == "source":
        value = "fig2_sim"
    if key == "sources":  # a valid edit: draw one source fewer (an overlay: its sources in reverse)
        sources = VALIDATED[figure]["sources"]
        value = sources[::-1] if VALIDATED[figure]["engine"] == "overlay" else sources[:-1]
    if VALIDATED[figure]["engine"] == "sweep" and key in SWEEP_EDITS:
        value = SWEEP_EDITS[key](VALIDATED[figure])
    expected = expected_for(figure, key)
    assert expected != "missing", f"{figure}.{key}: add it to FIGURE_KEYS"
    changes = earliest_changes(edited(path, value))
    assert changes[figure] == expected, f"{figure}.{key} -> {value!r}"
    others = {f: s for f, s in changes.items() if f != figure and f not in dependents(figure)}
    assert set(others.values()) == {None}, f"{figure}.{key} also reran {others}"


# A sweep's own jobs (its table) read its points' tables, an overlay's its sources': no
# global key changes them.  C-ColME / B-ColME figures (scalable) read what ccolme's read,
# but not the precision (their state is float64).
for _key, _stages in TOP_KEYS.items():
    _stages["sweep"] = _stages["overlay"] = None
    _stages["scalable"] = None if _key == "precision" else _stages["ccolme"]

#: Valid edits of a sweep's keys: another base of the same engine, one more run per point,
#: the first axis without its last value (and companions), another summary.
SWEEP_EDITS = {
    "base": lambda entry: {"fig1_r5": "fig1_r20", "fig1_r20": "fig1_r5", "fig2_sim": "fig4_laplace"}.get(
        entry["base"], entry["base"]),
    "set": lambda entry: {**entry["set"], "optimistic_delta": 0.5} if VALIDATED[entry["base"]]["engine"] == "ccolme"
    else {**entry["set"], "retest": "every_step"},
    "axes": lambda entry: [
        {**entry["axes"][0], "values": entry["axes"][0]["values"][:-1],
         "with": {k: v[:-1] for k, v in entry["axes"][0]["with"].items()}},
        *entry["axes"][1:],
    ],
    "summary": lambda entry: {"kind": "mse_window", "window": [100, 1000]},
}


def dependents(figure: str) -> set[str]:
    """The figures that read ``figure``: derived from it or zooms of it, transitively."""
    found, frontier = set(), {figure}
    while frontier:
        frontier = {
            name for name, entry in SHIPPED["figures"].items()
            if name not in found and (entry.get("derived_from") in frontier or entry.get("source") in frontier
                                      or entry.get("stream") in frontier or frontier & set(entry.get("sources", ())))
        }
        found |= frontier
    return found


def engine_kind(figure: str) -> str:
    settings = VALIDATED[figure]
    engine = settings["engine"]
    if engine == "pricer" and settings["kind"] == "feasible_set":
        return "pricer_feasible_set"
    return engine


TOP_EDITS = {
    "seed": ("seed",), "precision": ("precision",), "population.sigma": ("population", "sigma"),
    "population.means": ("population", "means"), "population.means+": ("population", "means"),
    "t_max": ("t_max",), "grid_linear": ("grid_linear",), "grid_log": ("grid_log",), "targets": ("targets",),
    "results": ("results",),
}
TOP_VALUES = {
    "seed": 7, "precision": "float64", "population.sigma": 0.3, "population.means": [0.1, 0.4, 0.8],
    "population.means+": [0.2, 0.4, 0.6, 0.8], "t_max": 1000, "grid_linear": 11, "grid_log": 7,
    "targets": ["fig1_r5"], "results": "results/experiments/mine",
}


@pytest.mark.parametrize("key", sorted(TOP_KEYS))
def test_top_level_key_reruns_exactly_its_stages(key):
    changes = earliest_changes(edited(TOP_EDITS[key], TOP_VALUES[key]))
    for figure, stage in changes.items():
        expected = TOP_KEYS[key]
        kind = engine_kind(figure)
        expected = expected.get(kind, expected.get(kind.split("_")[0]))
        own = SHIPPED["figures"][figure].get("population", {})
        if key.startswith("population.") and key.split(".")[1].rstrip("+") in own:
            expected = None  # the figure's own population sets the key: the global one is not read
        if key == "t_max" and VALIDATED[figure].get("t_max") == TOP_VALUES["t_max"]:
            expected = None  # the override equals the figure's own horizon
        assert stage == expected, f"{key}: {figure}"


def test_every_schema_leaf_key_is_covered():
    """A new key in the schema must be added to the expectations above."""
    covered = {(VALIDATED[f]["engine"], k) for f, k, _, _ in CASES}
    for engine, definition in (("ccolme", "ccolme_figure"), ("private_colme", "private_colme_figure"),
                               ("oracle", "oracle_figure"), ("zoom", "zoom_figure"),
                               ("scaling", "scaling_figure"), ("sweep", "sweep_figure"),
                               ("scalable", "scalable_figure"), ("overlay", "overlay_figure")):
        keys = set(SCHEMA["$defs"][definition]["properties"]) - {"engine", "runs", "chunk_runs", "grid"}
        keys |= {"grid.linear", "grid.log"} if "grid" in SCHEMA["$defs"][definition]["properties"] else set()
        keys = {"graph.family" if k == "graph" else k for k in keys}  # graph keys: test_graph_keys_rerun_...
        assert keys == set(FIGURE_KEYS[engine]), engine
        assert {(engine, k) for k in keys} <= covered, engine
    # sensitivity.runs: test_sensitivity_runs_rerun_no_figure
    top = set(SCHEMA["properties"]) - {"figures", "runs", "chunk_runs", "preset", "population", "sensitivity"}
    assert top | {"population.sigma", "population.means", "population.means+"} == set(TOP_KEYS)


def test_sensitivity_runs_rerun_no_figure():
    """sensitivity.runs sizes only results/sensitivity.md's variants, never a figure."""
    assert job_params({**SHIPPED, "sensitivity": {"runs": 7}}) == BASE


def test_reordered_config_changes_no_params():
    def reorder(value):
        if isinstance(value, dict):
            return {k: reorder(value[k]) for k in sorted(value, reverse=True)}
        if isinstance(value, list):
            return [reorder(v) for v in value]
        return value

    assert job_params(reorder(SHIPPED)) == BASE


def paper_counts_edited(value, found: list):
    """``value`` with every run count given per preset counting one more run at the paper
    preset (each such count's mapping appended to ``found``)."""
    if isinstance(value, list):
        return [paper_counts_edited(item, found) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key == "runs" and isinstance(item, dict):
            found.append(item)
            out[key] = {**item, "paper": item["paper"] + 1}
        else:
            out[key] = paper_counts_edited(item, found)
    return out


@pytest.mark.parametrize("extra", [None, "suites/default.yaml", "experiments/who_pays.yaml"])
def test_paper_counts_are_no_params_of_default_jobs(extra):
    """Every paper-preset run count (a figure's own, a sweep's or a scorecard world's
    ``set``) edited at once: no default job's params change, so nothing reruns."""
    config = SHIPPED if extra is None else update_config(SHIPPED, yaml.safe_load((ROOT / extra).read_text()))
    found = []
    edited = paper_counts_edited(config, found)
    nested = [count for count in found if count not in [f.get("runs") for f in config["figures"].values()]]
    assert nested, "the config holds no count per preset inside a derived figure"
    before = BASE if extra is None else job_params(config)
    assert job_params(edited) == before


@pytest.mark.parametrize("sweep", ["phase_eps_degree", "mse_vs_m_private_colme"])
def test_rechunking_a_sweeps_points_reruns_no_table(sweep):
    """A sweep's ``set: {chunk_runs}`` chunks its points' runs differently and changes no
    table or figure params; its ``set: {runs}`` does change them."""
    config = copy.deepcopy(SHIPPED)
    assert "chunk_runs" in config["figures"][sweep]["set"]
    config["figures"][sweep]["set"]["chunk_runs"] = 1
    rechunked = job_params(config)
    assert all(rechunked[key] == BASE[key] for key in BASE if key[1] in ("table", "figure"))
    points = expand_config(config).sweep_figures
    assert {settings["chunk_runs"] for name, settings in points.items() if name.startswith(f"{sweep}__")} == {1}
    config["figures"][sweep]["set"]["runs"] = 3
    assert job_params(config)[sweep, "table", None] != BASE[sweep, "table", None]


def test_rechunking_a_scorecard_world_reruns_no_table():
    """The same for a world's ``set: {chunk_runs}`` (the suite's ``paper_r5``): the card's
    cells on that world take it, no table or figure params change."""
    config = copy.deepcopy(update_config(SHIPPED, yaml.safe_load((ROOT / "suites/default.yaml").read_text())))
    before = job_params(config)
    world = config["figures"]["scorecard"]["worlds"]["paper_r5"]
    assert "chunk_runs" in world["set"]
    world["set"]["chunk_runs"] = 1
    after = job_params(config)
    assert all(after[key] == before[key] for key in before if key[1] in ("table", "figure"))
    cells = expand_config(config).sweep_figures
    assert {settings["chunk_runs"] for name, settings in cells.items() if "__paper_r5" in name} == {1}


def test_more_runs_only_add_chunks_and_change_no_chunk_params():
    """runs 500 -> 4000 (paper preset): every default chunk keeps its params."""
    paper = job_params({**SHIPPED, "preset": "paper"})
    simulated = {k: v for k, v in BASE.items() if k[1] in ("instances", "simulate")}
    assert all(paper[k] == v for k, v in simulated.items())
    assert len([k for k in paper if k[1] == "simulate"]) > len([k for k in simulated if k[1] == "simulate"])
    runs = {**SHIPPED, "runs": 7, "chunk_runs": 2}
    more = job_params({**SHIPPED, "runs": 9, "chunk_runs": 2})
    fewer = job_params(runs)
    new = {k for k in more if k[1] == "simulate" and fewer.get(k) != more[k]}
    n_simulated = sum(1 for s in VALIDATED.values() if s["engine"] in ("ccolme", "private_colme", "scalable"))
    # [6, 7) becomes [6, 8) and [8, 9) is new: two chunks per simulated figure
    assert len(new) == 2 * n_simulated


#: PriCER variants (issue 11): an edit of pricer_fig3 reruns the table of every derived figure
#: that inherits the key and leaves alone those that override it (their own value wins).
PRICER_BASE_EDITS = {
    "eps_self": (500.0, {"pricer_fig3_authors_code": "table", "pricer_fig3_no_self_privacy": None,
                         "pricer_fig3_solver": "table"}),
    "d": (20, {"pricer_fig3_authors_code": None, "pricer_fig3_no_self_privacy": "table",
               "pricer_fig3_solver": "table"}),
    "p_c": ([0.3], {"pricer_fig3_authors_code": None, "pricer_fig3_no_self_privacy": "table",
                    "pricer_fig3_solver": "table"}),
    "trust_pattern": ("ring_forward", {"pricer_fig3_authors_code": None,
                                       "pricer_fig3_no_self_privacy": "table", "pricer_fig3_solver": "table"}),
    "reciprocity": ("full", {"pricer_fig3_authors_code": None, "pricer_fig3_no_self_privacy": "table",
                             "pricer_fig3_solver": "table"}),
    "eps_low": (0.2, {"pricer_fig3_authors_code": "table", "pricer_fig3_no_self_privacy": "table",
                      "pricer_fig3_solver": "table"}),
    # the solver ablation overrides draws and joint_optimum: an edit of them leaves it alone
    "draws": (100, {"pricer_fig3_authors_code": "table", "pricer_fig3_no_self_privacy": "table",
                    "pricer_fig3_solver": None}),
    "title": ("edited", {"pricer_fig3_authors_code": None, "pricer_fig3_no_self_privacy": None,
                         "pricer_fig3_solver": None}),
}


@pytest.mark.parametrize("key", sorted(PRICER_BASE_EDITS))
def test_pricer_base_edit_reruns_inheriting_variants_only(key):
    value, variants = PRICER_BASE_EDITS[key]
    changes = earliest_changes(edited(("figures", "pricer_fig3", key), value))
    assert changes["pricer_fig3"] == ("figure" if key == "title" else "table")
    assert {f: changes[f] for f in variants} == variants
    assert {s for f, s in changes.items() if f != "pricer_fig3" and f not in variants} == {None}


@pytest.mark.parametrize("figure, key, value", [
    ("pricer_fig3_no_self_privacy", "eps_self", 1000.0),  # back to the paper's eps_ii
    ("pricer_fig3_authors_code", "trust_pattern", "ring_nearest"),
    ("pricer_fig3_authors_code", "reciprocity", "independent"),
])
def test_pricer_variant_key_reruns_its_table_only(figure, key, value):
    changes = earliest_changes(edited(("figures", figure, key), value))
    assert changes[figure] == "table"
    assert {s for f, s in changes.items() if f != figure} == {None}


# --- Graph families (issue 19): every key of every family reruns the instances -------------

#: A small figure per graph family (one chunk's worth of keys) and, per key of its graph,
#: an edit that keeps it valid.  ``path``: written by the test (an edge list of 36 agents).
GRAPH_FIGURES = {
    "erdos_renyi_p": ({"family": "erdos_renyi", "p": 0.2}, {"p": 0.3}),
    "erdos_renyi_mean": ({"family": "erdos_renyi", "mean_degree": 5}, {"mean_degree": 6}),
    "watts_strogatz": ({"family": "watts_strogatz", "k": 4, "p": 0.1}, {"k": 6, "p": 0.2}),
    "random_geometric_radius": ({"family": "random_geometric", "radius": 0.3}, {"radius": 0.25}),
    "random_geometric_mean": ({"family": "random_geometric", "mean_degree": 6}, {"mean_degree": 7}),
    "barabasi_albert": ({"family": "barabasi_albert", "m": 2}, {"m": 3}),
    "ring_lattice": ({"family": "ring_lattice", "k": 4}, {"k": 6}),
    "torus": ({"family": "torus"}, {"rows": 4, "cols": 9}),
    "complete": ({"family": "complete"}, {}),
    "edge_list": ({"family": "edge_list", "path": "EDGES"}, {}),
}


def graph_config(edge_file) -> dict:
    figures = {}
    for name, (graph, _) in GRAPH_FIGURES.items():
        graph = {k: (str(edge_file) if v == "EDGES" else v) for k, v in graph.items()}
        figures[name] = {"n_agents": 36, "graph": graph, "eps": [1], "theta_k": [6], "t_max": 50, "runs": 4,
                         "chunk_runs": 2, "grid": {"linear": 5, "log": 3}}
    return {"figures": figures}


def changed_stages(before: dict, after: dict) -> dict:
    """Per figure of ``before``: the earliest stage whose jobs' params changed in ``after``."""
    old, new = job_params(before), job_params(after)
    changed = {key for key in set(old) | set(new) if old.get(key) != new.get(key)}
    return {figure: next((s for s in STAGES if (figure, s) in {(f, st) for f, st, _ in changed}), None)
            for figure in before["figures"]}


@pytest.fixture
def edge_file(tmp_path):
    path = tmp_path / "edges.txt"
    path.write_text("# a ring of 36 agents\n" + "".join(f"{a} {(a + 1) % 36}\n" for a in range(36)))
    return path


@pytest.mark.parametrize("name", sorted(GRAPH_FIGURES))
def test_graph_keys_rerun_exactly_the_instances_of_their_figure(name, edge_file):
    base = graph_config(edge_file)
    graph, edits = GRAPH_FIGURES[name]
    for key, value in [("family", "ring_lattice" if graph["family"] != "ring_lattice" else "torus"), *edits.items()]:
        config = copy.deepcopy(base)
        config["figures"][name]["graph"] = {**config["figures"][name]["graph"], key: value}
        if key == "family":  # another family: only its own keys
            config["figures"][name]["graph"] = {"family": value}
        changes = changed_stages(base, config)
        assert changes[name] == "instances", f"{name}: graph.{key} -> {value!r}"
        assert set(changes.values()) - {changes[name]} <= {None}
        assert sum(stage is not None for stage in changes.values()) == 1, f"{name}.graph.{key} reran {changes}"
    # the degree key is the random regular family's: another family ignores it
    config = copy.deepcopy(base)
    config["figures"][name]["degree"] = 7
    assert changed_stages(base, config)[name] is None
    # a simulation key still reruns the chunks only
    config["figures"][name]["eps"] = [2]
    assert changed_stages(base, config)[name] == "simulate"


def test_editing_an_edge_list_file_reruns_its_figure(edge_file):
    base = graph_config(edge_file)
    before = job_params(base)
    edge_file.write_text(edge_file.read_text() + "0 18\n")  # one more edge: new content
    after = job_params(base)  # the same config: the params read the file's content
    changed = {(f, s) for (f, s, _) in {k for k in before if before[k] != after.get(k)}}
    assert ("edge_list", "instances") in changed
    assert {f for f, _ in changed} == {"edge_list"}
    edge_file.write_text(edge_file.read_text())  # the same content again: nothing changes
    assert job_params(base) == after


# --- Populations (issue 19): every population key reruns exactly what it feeds ------------

#: Per key of a population (global or a figure's own), a valid edit and the earliest stage
#: it reruns for a simulated figure of either engine (the class assignment feeds the
#: instances; the laws, sigma and jitter only the data, so the chunks).
POPULATION_EDITS = {
    "law": ({"kind": "truncated_normal", "truncation": 2.0}, "simulate"),
    "law.shape": ({"kind": "beta", "a": 2.0, "b": 3.0}, "simulate"),  # from Beta(2, 5)
    "sigma": ([0.4, 0.5, 0.6], "simulate"),
    "probabilities": ([0.5, 0.3, 0.2], "instances"),
    "sizes": ([10, 10, 16], "instances"),
    "jitter": (0.01, "simulate"),
    "means": ([0.1, 0.4, 0.8], "simulate"),
}


#: A small simulated figure per engine whose figures take a population of their own.
POPULATION_FIGURES = {
    "ccolme": {"n_agents": 36, "degree": 4, "eps": [1], "theta_k": [6], "t_max": 50, "runs": 4, "chunk_runs": 2,
               "grid": {"linear": 5, "log": 3}},
    "private_colme": {"engine": "private_colme", "n_agents": 36, "t_max": 50, "runs": 4, "chunk_runs": 2,
              "grid": {"linear": 5, "log": 3}},
    "scalable": {"engine": "scalable", "n_agents": 36, "degree": 4, "t_max": 50, "runs": 4, "chunk_runs": 2,
                 "grid": {"linear": 5, "log": 3}},
}


def population_config(engine: str) -> dict:
    figure = POPULATION_FIGURES[engine]
    return {"seed": 3, "figures": {
        "plain": dict(figure),
        "own": {**figure, "population": {"law": {"kind": "beta", "a": 2.0, "b": 5.0}}},
    }}


def population_jobs(config):
    validated = validate_config(config)
    jobs = {}
    for figure in validated["figures"]:
        settings = resolve_figure(validated, figure)
        for stage in ("instances", "simulate"):
            jobs[figure, stage] = canonical_json(stage_params(settings, stage, 0, 2))
    return jobs


@pytest.mark.parametrize("engine", sorted(POPULATION_FIGURES))
@pytest.mark.parametrize("key", sorted(POPULATION_EDITS))
def test_population_keys_rerun_exactly_their_stage(key, engine):
    """An edit of the figure ``own``'s population reruns its earliest stage and nothing of
    the figure ``plain``, which keeps the global population."""
    value, expected = POPULATION_EDITS[key]
    base = population_config(engine)
    config = copy.deepcopy(base)
    config["figures"]["own"]["population"][key.split(".")[0]] = value
    before, after = population_jobs(base), population_jobs(config)
    changed = [stage for stage in ("instances", "simulate") if before["own", stage] != after["own", stage]]
    assert changed and changed[0] == expected, (key, changed)
    assert all(before["plain", stage] == after["plain", stage] for stage in ("instances", "simulate"))


def test_papers_population_keeps_its_params():
    """The defaults of the new population keys enter no params: the shipped figures' population
    is {means, sigma} as before laws existed, so adding the keys reran nothing."""
    for figure in VALIDATED:
        settings = resolve_figure(validate_config(SHIPPED), figure)
        own = SHIPPED["figures"][figure].get("population")  # Galante et al.'s: their own population
        assert settings["population"] == own or {"means": [0.2, 0.4, 0.8], "sigma": 0.5}, figure
