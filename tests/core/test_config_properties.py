"""Every config builds or fails before any job (property-based, Hypothesis).

Configs are generated from the schema: a tiny valid figure of each simulated or analytic
engine, then one of its keys (or a global key) set to a value drawn for that key's schema:
values it allows (enum members, numbers in range, lists of the right items) and mutations
(boundary numbers, NaN, +-inf, huge numbers, wrong types, empty, long and mismatched
lists).  The property: validation raises ``ConfigError`` naming the key, or the figure
builds in-process (instances -> chunks -> table, as the workflow's scripts run them) with
finite tables.  "Finite": every simulated and analytic ``mse`` and every ``t``; ``se`` is
finite where runs > 1 (a single run has none, NaN by design); the diagnostics may be NaN
where no agent qualifies (documented by the engines).

Beyond the built engines: validation-only bases for the PriCER (each kind), zoom and
scaling engines (rejected naming the key, or accepted and planned in-process: every
figure's stage params, chunk paths, table inputs and caption, as the workflow's rules
compute them); a two-key strategy that reaches the cross-key checks (Private-ColME's
Gaussian noise with eps > 1, eq. (21) as printed with rRR), where naming either
conflicting key is enough; and a small derandomized sample of accepted configs that a real
`snakemake -n` must plan, beside rejected ones it must refuse before any job.

The CI profile (default) runs a bounded, derandomized number of examples; a deeper run:

    HYPOTHESIS_PROFILE=deep python -m pytest tests/core/test_config_properties.py
"""

import copy
import math
import os
import re

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from colme.aggregation import run_chunks
from colme.config import ConfigError, _branch, _resolve_ref, load_schema, resolve_figure
from colme.expansion import validate_config
from colme.explore import settings_tables
from colme.provenance import canonical_json
from colme.registry import ENGINES, figure_caption, stage_params
from colme.stages import makers, result_path

settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=2000, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SCHEMA = load_schema()
GRID = {"linear": 4, "log": 3}
#: A tiny valid figure per engine that the property builds.
BASES = {
    "ccolme": {"n_agents": 10, "degree": 3, "eps": [1, math.inf], "theta_k": [6, 5], "t_max": 25,
               "runs": 2, "chunk_runs": 2, "grid": GRID},
    "private_colme": {"engine": "private_colme", "n_agents": 6, "t_max": 25, "runs": 2, "chunk_runs": 2, "grid": GRID,
              "schedules": ["rr"], "mechanisms": ["pm1"], "weights": ["last"], "noises": ["laplace"]},
    "oracle": {"engine": "oracle", "n_agents": 6, "t_max": 25, "grid": GRID},
}
#: Validation-only bases: rejected naming the key, or accepted and planned in-process
#: (``plan``), never built here (PriCER's optimisations and draws, a view's source build).
VALIDATED = {
    "pricer_trust": {"engine": "pricer", "kind": "trust", "p_server": [0.5, 0.9, 0.2], "p_c": [0.5],
                     "draws": 0},
    "pricer_connectivity": {"engine": "pricer", "kind": "connectivity", "n_nodes": 4, "d": 5, "trusted": 2,
                            "realisations": 2, "draws": 1},
    "pricer_feasible_set": {"engine": "pricer", "kind": "feasible_set"},
    "zoom": {"engine": "zoom", "source": "src", "t_max": 10},
    "scaling": {"engine": "scaling", "sources": ["src"]},
}
BASES.update(VALIDATED)
#: Other figures a base needs (a view's source).
SOURCES = {"zoom": {"src": BASES["ccolme"]}, "scaling": {"src": BASES["ccolme"]}}
#: Pairs of keys that a cross-key check relates (engine -> pairs): drawn together often.
CROSS_KEYS = {
    "ccolme": [("eps", "theta_k"), ("degree", "n_agents")],
    "private_colme": [("eps", "noises"), ("eps", "curves"), ("pm2_variance", "schedules")],
    "oracle": [("eps", "noises"), ("pm2_variance", "schedules")],
    "pricer_trust": [("p_server", "trusted")],
    "pricer_connectivity": [("n_nodes", "trusted")],
}


def conflicting(engine: str, key: str) -> tuple[str, ...]:
    """``key`` and the keys a cross-key check relates it to: one key set alone can conflict
    with a base's value of its partner (n_nodes = 2 with the base's trusted = 2), and the
    error may then name either."""
    return (key, *{other for pair in CROSS_KEYS.get(engine, []) if key in pair for other in pair if other != key})


#: Beyond these a valid config is not built here (cost, not validity: M^2 state for
#: Private-ColME, t_max steps); the property then checks validation only.
BUILD_LIMITS = {"n_agents": 40, "t_max": 400, "runs": 6, "degree": 12}

#: Values that no key should take silently, whatever its type.
BAD = [math.nan, -math.inf, math.inf, None, True, "1", [], {}, -1, 0, 0.5, 1e12, -1e12]


def branch_of(engine: str) -> dict:
    """The schema branch of a base (its engine and, for PriCER, its kind)."""
    return _branch(BASES[engine], SCHEMA["$defs"]["figure"], SCHEMA)


def definition_of(engine: str, key: str) -> dict:
    return _resolve_ref(branch_of(engine)["properties"][key], SCHEMA)


def values_for(definition: dict, mutate: bool = True) -> st.SearchStrategy:
    """Values the schema allows for a key (three times as likely) and mutations of them
    (``mutate=False``: allowed values only, lists' items included)."""
    valid = []
    mutations = [st.sampled_from(BAD)]
    if "enum" in definition:
        valid.append(st.sampled_from(definition["enum"]))
        mutations.append(st.text(min_size=1, max_size=8))
    kinds = definition.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if "integer" in kinds:
        low = definition.get("minimum", 0)
        valid.append(st.integers(low, low + 40))
        mutations.append(st.sampled_from([low - 1, low - 2]))
    if "number" in kinds:
        low = definition.get("minimum", definition.get("exclusiveMinimum", 0.0))
        high = definition.get("maximum", low + 20.0)
        exclusive = "exclusiveMinimum" in definition
        valid.append(st.floats(low, min(high, low + 20.0), allow_nan=False, exclude_min=exclusive))
        mutations.append(st.sampled_from([low, math.nextafter(low, math.inf), high, high * 1.5 + 1]))
    if "array" in kinds:
        item = _resolve_ref(definition.get("items", {}), SCHEMA)
        valid.append(st.lists(values_for(item, mutate) if item else st.integers(), min_size=1, max_size=4))
        mutations.append(st.just([]))
        mutations.append(st.lists(st.just(1), min_size=60, max_size=60))  # huge
    if "object" in kinds and definition.get("properties"):
        inner = {k: values_for(_resolve_ref(v, SCHEMA), mutate) for k, v in definition["properties"].items()}
        valid.append(st.fixed_dictionaries({}, optional=inner))
    if not mutate and valid:
        return st.one_of(*valid)
    return st.one_of(*valid, *valid, *valid, *mutations)


def figure_keys(engine: str) -> list[str]:
    return sorted(set(branch_of(engine)["properties"]) - {"engine", "title"})


#: Global keys the figures read, by dotted path, and their definitions.
GLOBAL_KEYS = {
    "seed": SCHEMA["properties"]["seed"],
    "precision": SCHEMA["properties"]["precision"],
    "population.sigma": _resolve_ref(SCHEMA["properties"]["population"], SCHEMA)["properties"]["sigma"],
    "population.means": _resolve_ref(SCHEMA["properties"]["population"], SCHEMA)["properties"]["means"],
}


def base_config(engine: str) -> dict:
    return {"seed": 3, "figures": {"f": copy.deepcopy(BASES[engine]), **copy.deepcopy(SOURCES.get(engine, {}))}}


BUILT = sorted(set(BASES) - set(VALIDATED))


@st.composite
def mutated(draw, engines=tuple(BUILT)):
    """(engine, mutated key, value, config): one key of a tiny valid figure, or a global key."""
    engine = draw(st.sampled_from(sorted(engines)))
    config = base_config(engine)
    if draw(st.integers(0, 4)) == 0:
        path = draw(st.sampled_from(sorted(GLOBAL_KEYS)))
        value = draw(values_for(_resolve_ref(GLOBAL_KEYS[path], SCHEMA)))
        first, _, second = path.partition(".")
        if second:
            config[first] = {second: value}
        else:
            config[first] = value
        return engine, second or first, value, config
    key = draw(st.sampled_from(figure_keys(engine)))
    value = draw(values_for(definition_of(engine, key)))
    config["figures"]["f"][key] = value
    return engine, key, value, config


@st.composite
def two_keys(draw, engines=None):
    """(engine, (key, key), (value, value), config): two keys of one tiny valid figure,
    a pair a cross-key check relates (two times in three) or any two keys; bases with such
    pairs drawn more often (``engines``: these bases only)."""
    if engines is None:
        engine = draw(st.one_of(st.sampled_from(sorted(CROSS_KEYS)), st.sampled_from(sorted(BASES))))
    else:
        engine = draw(st.sampled_from(sorted(engines)))
    config = base_config(engine)
    keys = figure_keys(engine)
    pairs = [pair for pair in CROSS_KEYS.get(engine, []) if set(pair) <= set(keys)]
    if pairs and draw(st.integers(0, 2)) < 2:
        pair = draw(st.sampled_from(pairs))
    else:  # a view with one key (scaling: sources) gets that key alone
        pair = tuple(draw(st.lists(st.sampled_from(keys), min_size=min(2, len(keys)), max_size=2, unique=True)))
    mutate = draw(st.booleans())  # half the time both values allowed: a conflict needs both
    values = tuple(draw(values_for(definition_of(engine, key), mutate)) for key in pair)
    for key, value in zip(pair, values, strict=True):
        config["figures"]["f"][key] = value
    return engine, pair, values, config


def build(settings_: dict) -> list:
    """The figure's tables, in-process: instances, chunks and table stage (``colme.explore``)."""
    return [settings_tables("f", settings_).table]


def small(settings_: dict) -> bool:
    eps = settings_.get("eps", [1])
    return all(not isinstance(settings_.get(k), (int, float)) or settings_[k] <= limit
               for k, limit in BUILD_LIMITS.items()) and (not isinstance(eps, list) or len(eps) <= 8)


def names(error: Exception, keys) -> bool:
    """Whether the error names one of ``keys`` as a word (``figures.f.eps``, ``config key
    seed``, ``with n_agents=2``), not as part of another word (``d`` in "degree")."""
    keys = (keys,) if isinstance(keys, str) else keys
    return any(re.search(rf"(?<!\w){re.escape(key)}(?!\w)", str(error)) for key in keys)


def plan(validated: dict) -> None:
    """What the workflow's rules compute at DAG time for every figure: resolved settings,
    the stage params of each rule, the chunk paths, the table inputs and the caption."""
    for figure in validated["figures"]:
        settings_ = resolve_figure(validated, figure)
        engine = ENGINES[settings_["engine"]]
        for stage in ("table", "figure"):
            assert canonical_json(stage_params(settings_, stage))
        chunks = {"instances": [], "chunks": []}
        if engine.simulated:
            for start, stop in run_chunks(settings_["runs"], settings_["chunk_runs"]):
                made_by = makers(figure, settings_, start, stop)
                for kind in chunks:
                    chunks[kind].append(result_path(kind, figure, start, stop, made_by[kind]))
        engine.table_inputs(figure, settings_, lambda kind, chunks=chunks: chunks[kind])
        assert figure_caption(figure, settings_)


def check(engine, key, value, config):
    """Rejected naming the key (``key``: one, or a tuple of which either may be named), or
    planned and, for the built engines, built with finite tables."""
    try:
        validated = validate_config(config, SCHEMA)
        settings_ = resolve_figure(validated, "f")
    except ConfigError as error:
        keys = [related for one in ((key,) if isinstance(key, str) else key) for related in conflicting(engine, one)]
        assert names(error, keys), f"{key}={value!r}: the error does not name the key: {error}"
        by = "the schema" if str(error).startswith("invalid configuration") else "a cross-key check"
        event(f"{engine}: rejected by {by}")
        return
    plan(validated)
    if engine in VALIDATED:
        event(f"{engine}: valid, planned")
        return
    if not small(settings_):
        event(f"{engine}: valid, too large to build here")
        return
    event(f"{engine}: built")
    for table in build(settings_):
        assert np.isfinite(table["t"]).all() and (table["t"] >= 1).all()
        assert np.isfinite(table["mse"]).all(), f"{key}={value!r}: non-finite MSE"
        several = table["runs"] > 1
        assert np.isfinite(table.loc[several, "se"]).all(), f"{key}={value!r}: non-finite se"


@given(mutated())
@settings(max_examples=settings.default.max_examples)
@example(("ccolme", "eps", [math.nan], {"seed": 3, "figures": {"f": {**BASES["ccolme"], "eps": [math.nan],
                                                                    "theta_k": [6]}}}))
@example(("ccolme", "t_max", 12, {"seed": 3, "figures": {"f": {**BASES["ccolme"], "t_max": 12,
                                                                 "grid": {"linear": 300, "log": 80}}}}))
def test_every_config_is_rejected_naming_its_key_or_builds_finite_tables(case):
    check(*case)


@given(mutated(tuple(VALIDATED)))
@settings(max_examples=settings.default.max_examples)
# A zoom of a figure that is not configured raised KeyError while validating (its source's
# engine was read before the check that names the key ran).
@example(("zoom", "source", "nope", {"seed": 3, "figures": {"f": {**BASES["zoom"], "source": "nope"},
                                                           **SOURCES["zoom"]}}))
@example(("scaling", "sources", ["src", "nope"],
          {"seed": 3, "figures": {"f": {**BASES["scaling"], "sources": ["src", "nope"]}, **SOURCES["scaling"]}}))
def test_pricer_zoom_and_scaling_configs_are_rejected_naming_their_key_or_planned(case):
    check(*case)


@given(two_keys())
@settings(max_examples=max(settings.default.max_examples // 3, 1))
@example(("private_colme", ("eps", "noises"), (2.0, ["gaussian"]),
          {"seed": 3, "figures": {"f": {**BASES["private_colme"], "eps": 2.0, "noises": ["gaussian"]}}}))
@example(("oracle", ("pm2_variance", "schedules"), ("as_printed", ["rr", "rrr"]),
          {"seed": 3, "figures": {"f": {**BASES["oracle"], "pm2_variance": "as_printed",
                                        "schedules": ["rr", "rrr"]}}}))
def test_two_conflicting_keys_are_rejected_naming_one_of_them_or_build(case):
    check(*case)


@pytest.mark.parametrize("value", [math.nan, -math.inf])
def test_non_finite_numbers_are_rejected_where_no_key_takes_them(value):
    """NaN passes JSON-schema bounds (every comparison is False): the validator refuses it."""
    for key, entry in (("sigma", {"population": {"sigma": value}}), ("delta", None)):
        config = {"figures": {"f": dict(BASES["private_colme"])}}
        if entry:
            config.update(entry)
        else:
            config["figures"]["f"][key] = value
        with pytest.raises(ConfigError, match=rf"{key}.*(not a number|allowed: a finite number)"):
            validate_config(config, SCHEMA)


def test_infinity_only_where_the_schema_allows_it():
    validate_config({"figures": {"f": {**BASES["ccolme"], "eps": [math.inf], "theta_k": [5]}}}, SCHEMA)
    with pytest.raises(ConfigError, match=r"theta_k.*allowed: a finite number\b"):
        validate_config({"figures": {"f": {**BASES["ccolme"], "theta_k": [6, math.inf]}}}, SCHEMA)


def test_more_grid_points_than_times_record_every_time():
    """fig1_r5 with t_max 50 and the default grid once recorded t = 0 and failed in its job."""
    config = validate_config({"figures": {"fig1_r5": {"t_max": 50}}}, SCHEMA)
    from colme.timegrid import figure_grid

    grid = figure_grid(resolve_figure(config, "fig1_r5"))
    np.testing.assert_array_equal(grid, np.arange(1, 51))


def test_cross_key_conflicts_are_refused_naming_a_key():
    """The two-key strategy's explicit examples reach Private-ColME's cross-key checks."""
    with pytest.raises(ConfigError, match=r"figures\.f\.eps=2\.0: the Gaussian mechanism .* needs 0 < eps <= 1"):
        validate_config({"figures": {"f": {**BASES["private_colme"], "eps": 2.0, "noises": ["gaussian"]}}}, SCHEMA)
    with pytest.raises(ConfigError, match=r"figures\.f\.pm2_variance=as_printed: .* remove 'rrr' from schedules"):
        validate_config({"figures": {"f": {**BASES["oracle"], "pm2_variance": "as_printed",
                                           "schedules": ["rr", "rrr"]}}}, SCHEMA)


@pytest.mark.parametrize(
    "config, message",
    [
        ("figures:\n  fig1_r5:\n    eps: [.nan]\n    theta_k: [6]\n",
         "config key figures.fig1_r5.eps[0]: nan is not a number: no key accepts NaN"),
        ("figures:\n  f:\n    engine: private_colme\n    eps: 2\n    noises: [gaussian]\n",
         "figures.f.eps=2: the Gaussian mechanism (Private-ColME Lemma 1) needs 0 < eps <= 1"),
    ],
    ids=["schema", "cross-key"],
)
def test_snakemake_refuses_before_any_job_naming_the_key(tmp_path, config, message):
    """A real `snakemake -n` on the first defect above and on a cross-key conflict: no job
    planned, the key named."""
    import subprocess

    from workflow_helpers import snakemake_command

    result = subprocess.run(snakemake_command(tmp_path, "-n", config=config), capture_output=True, text=True,
                            timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Job stats" not in output
    assert message in output


#: Accepted configs that a real `snakemake -n` plans per base (about 4.5 s each on 2 cores).
SNAKEMAKE_EXAMPLES = 1 if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci" else 5


@pytest.mark.parametrize("base", ["ccolme", "private_colme", "pricer_trust", "zoom", "scaling"])
def test_accepted_configs_plan_with_a_real_snakemake_dry_run(tmp_path_factory, base):
    """A derandomized sample of the configs the properties above accept (one per base in
    CI: five engines, one or two keys set): `snakemake -n` plans them without error, with
    the jobs the in-process plan expects (a table and a drawing job per figure, an instance
    and a chunk job per run range of each simulated figure)."""

    @given(st.one_of(mutated((base,)), two_keys((base,))))
    @settings(max_examples=SNAKEMAKE_EXAMPLES, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    def plans(case):
        dry_run(tmp_path_factory, *case)

    plans()


def dry_run(tmp_path_factory, engine, key, value, config):
    from workflow_helpers import planned_jobs

    try:
        validated = validate_config(config, SCHEMA)
    except ConfigError:
        assume(False)
    event(f"{engine}: planned by snakemake -n")
    print(f"snakemake -n plans {engine} with {key}={value!r}")
    figures = [resolve_figure(validated, figure) for figure in validated["figures"]]
    chunks = sum(len(run_chunks(f["runs"], f["chunk_runs"])) for f in figures if ENGINES[f["engine"]].simulated)
    jobs = planned_jobs(tmp_path_factory.mktemp("plan"), yaml.safe_dump(config))
    drawings = jobs.get("figure", 0) + jobs.get("figure_with_diagnostics", 0)  # the latter: diagnostics too
    assert jobs.get("table") == drawings == len(figures), (key, value, jobs)
    assert jobs.get("instances", 0) == jobs.get("simulate", 0) == chunks, (key, value, jobs)
