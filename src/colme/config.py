"""Configuration: validation (JSON schema with defaults, then cross-key checks) and resolution.

The schema (``colme/schema.yaml``, the global keys, composed with each registered
engine's own definitions by ``load_schema``; the package carries every file of it)
checks every key's type and allowed values and supplies every default; ``check_config``
adds only what a schema cannot express (checks across keys, each engine's ``check``).
Errors name the offending key (as a dotted path) and the allowed values or keys, so a
typo stops the workflow before any job runs.  ``validate_written`` checks figures written
out in full; ``colme.expansion`` writes out the figures a configuration generates
(``derived_from``, sweep points, sensitivity variants) and validates each through it.

``resolve_figure`` turns a validated config into one figure's flat settings: the preset
resolved, command-line overrides applied and the global keys the engines read (seed,
precision, population) copied in.  The engines (``colme.registry``) take it from there.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import jsonschema
import yaml

from .errors import ConfigError
from .populations import canonical_population
from .registry import ENGINES, canonical_engine

__all__ = [
    "ConfigError", "figure_defaults", "load_config", "load_schema", "per_preset", "resolve_figure", "resolve_runs",
    "update_config", "validate_written",
]

SCHEMA_PATH = Path(__file__).with_name("schema.yaml")


def _finite_type(validator, types, instance, schema):
    """JSON schema's ``type``, plus: a number is finite, unless its schema says
    ``infinite: true`` (then +inf, ``.inf`` in YAML, is allowed too); NaN never is.  JSON
    has neither, and bounds such as ``exclusiveMinimum: 0`` let both through."""
    yield from jsonschema.Draft202012Validator.VALIDATORS["type"](validator, types, instance, schema)
    if isinstance(instance, float) and not math.isfinite(instance):
        if math.isnan(instance):
            yield jsonschema.ValidationError(f"{instance!r} is not a number: no key accepts NaN")
        elif instance < 0 or not schema.get("infinite"):
            allowed = "a finite number or .inf" if schema.get("infinite") else "a finite number"
            yield jsonschema.ValidationError(f"{instance!r} is not allowed here; allowed: {allowed}")


#: Draft 2020-12 with finite numbers (``_finite_type``) and integers that are Python ints
#: (JSON schema counts 1e12 or 10.0 as integers; seeds, counts and sizes must be ints).
Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {"type": _finite_type},
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, instance: isinstance(instance, int) and not isinstance(instance, bool)
    ),
)


def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    """The workflow's schema: the global keys (``path``) with every registered engine's
    figure definitions merged into ``$defs`` and ``$defs.figure`` choosing among them by
    ``engine`` (the first registered engine for an entry that names none)."""
    schema = yaml.safe_load(Path(path).read_text())
    defs = schema["$defs"]
    for source in dict.fromkeys(engine.schema for engine in ENGINES.values() if engine.schema):
        defs.update(yaml.safe_load(Path(source).read_text())["$defs"])
    default, *others = ENGINES.values()
    choice: dict = {"$ref": f"#/$defs/{default.figure_schema}"}
    for engine in reversed(others):
        choice = {
            "if": {"type": "object", "properties": {"engine": {"const": engine.name}}, "required": ["engine"]},
            "then": {"$ref": f"#/$defs/{engine.figure_schema}"},
            "else": choice,
        }
    defs["figure"] = {**defs.get("figure", {}), **choice}
    return schema


def per_preset(value, preset: str):
    """A count given per fidelity preset (a mapping) or once for all (a number)."""
    return value[preset] if isinstance(value, dict) else value


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = []
    for part in error.absolute_path:
        parts.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    return "".join(parts).lstrip(".") or "<top level>"


def _describe(error: jsonschema.ValidationError) -> str:
    """One line naming the key, the bad value and what is allowed."""
    key = _key_path(error)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        return f"config key {key}: unknown key(s) {extra}; allowed keys: {allowed}"
    if error.validator == "enum":
        return f"config key {key}: {error.instance!r} is not allowed; allowed values: {error.validator_value}"
    if error.validator == "pattern" and "x-allowed" in error.schema:
        return f"config key {key}: {error.instance!r} is not allowed; allowed: {error.schema['x-allowed']}"
    if error.validator == "oneOf" and error.context:
        best = min(error.context, key=lambda e: len(list(e.schema_path)))
        forms = " or ".join(_form(branch) for branch in error.validator_value)
        return f"config key {key}: {error.instance!r} is invalid ({best.message}); allowed: {forms}"
    if error.validator == "type" and str(error.instance).lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return f"config key {key}: {error.message} (YAML writes infinity as .inf, e.g. eps: [1, .inf])"
    return f"config key {key}: {error.message}"


def _form(branch: dict) -> str:
    """One alternative of a ``oneOf``, in words: its type, bounds and keys (or its definition's name)."""
    if "$ref" in branch:
        return f"a {branch['$ref'].rsplit('/', 1)[-1]} entry"
    words = str(branch.get("type", "a value"))
    if "minimum" in branch:
        words += f" >= {branch['minimum']}"
    if branch.get("type") == "object" and branch.get("properties"):
        words += " with keys " + ", ".join(branch["properties"])
    return words


def _relevant(errors: list) -> list:
    """The errors worth reading: an object's unknown-key error is dropped when a key below
    it has a bad value (an unknown graph family allows no other key: the family is the
    error to read)."""
    bad_values = [list(e.absolute_path) for e in errors if e.validator in ("enum", "const")]
    return [
        e for e in errors
        if not (e.validator == "additionalProperties"
                and any(path[:-1] == list(e.absolute_path) for path in bad_values))
    ]


def _resolve_ref(schema: dict, root: dict) -> dict:
    if "$ref" not in schema:
        return schema
    target = root
    for part in schema["$ref"].lstrip("#/").split("/"):
        target = target[part]
    return {**_resolve_ref(target, root), **{k: v for k, v in schema.items() if k != "$ref"}}


def _branch(instance: dict, schema: dict, root: dict) -> dict:
    """The schema that applies to ``instance`` after following $ref and if/then/else."""
    schema = _resolve_ref(schema, root)
    while "if" in schema:
        matches = jsonschema.Draft202012Validator(schema["if"]).is_valid(instance)
        schema = _resolve_ref(schema["then"] if matches else schema["else"], root)
    return schema


def _fill_defaults(instance, schema: dict, root: dict) -> None:
    """Insert schema defaults for missing keys, following $ref, if/else and additionalProperties.

    Not inside a key whose schema says ``x-inherits: <global key>`` (a figure's override
    of a global mapping, e.g. ``population``): its absent keys come from the global one
    (``resolve_figure``), not from the defaults."""
    if not isinstance(instance, dict):
        return
    schema = _branch(instance, schema, root)
    for key, sub in schema.get("properties", {}).items():
        sub = _resolve_ref(sub, root)
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance and not sub.get("x-inherits"):  # an override: absent keys inherit
            if isinstance(instance[key], list) and isinstance(sub.get("items"), dict):
                for item in instance[key]:
                    _fill_defaults(item, sub["items"], root)
            else:
                _fill_defaults(instance[key], sub, root)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for key in set(instance) - set(schema.get("properties", {})):
            _fill_defaults(instance[key], extra, root)


def _deep_merge(base: dict, overrides: dict) -> dict:
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def load_config(path: str | Path, configfile: str | Path | None = None) -> dict:
    """The config file ``path`` (``config.yaml``) with ``configfile`` (an experiment's)
    merged over it as ``snakemake --configfile`` does; not validated yet."""
    config = yaml.safe_load(Path(path).read_text()) or {}
    if configfile is not None:
        config = update_config(config, yaml.safe_load(Path(configfile).read_text()) or {})
    return config


def update_config(config: dict, overrides: dict) -> dict:
    """``config`` with ``overrides`` merged in as ``snakemake --configfile`` does (nested
    mappings key by key, anything else replaced)."""
    return _deep_merge(config, overrides)


def validate_written(config: dict, schema: dict | None = None) -> dict:
    """Validated copy of ``config``, whose figures are written out in full (no
    ``derived_from``: ``colme.expansion.validate_config`` takes a config as written), with
    defaults filled in; raises ``ConfigError``.  An old engine name is replaced by its
    current one (``colme.registry.ALIASES``), with a warning."""
    schema = load_schema() if schema is None else schema
    config = copy.deepcopy(dict(config))
    for name, entry in (config.get("figures") or {}).items():
        if isinstance(entry, dict) and isinstance(entry.get("engine"), str):
            entry["engine"] = canonical_engine(entry["engine"], f"figures.{name}.engine")
        elif isinstance(entry, dict) and "engine" not in entry:
            _check_engine_implied(name, entry, schema)
    validator = Validator(schema)
    errors = _relevant(sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path)))
    if errors:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(_describe(e) for e in errors))
    _fill_defaults(config, schema, schema)
    check_config(config)
    return config


def schema_cases(definition: dict) -> list[str]:
    """The ``$defs`` a definition chooses between (``if``/``then``/``else`` chains and
    ``oneOf`` of ``$ref``s, e.g. PriCER's ``kind``), in order."""
    names = []
    for branch in (definition.get("then"), definition.get("else"), *definition.get("oneOf", ())):
        if not isinstance(branch, dict):
            continue
        ref = branch.get("$ref", "")
        names += [ref.rsplit("/", 1)[-1]] if ref.startswith("#/$defs/") else schema_cases(branch)
    return names


def engine_keys(schema: dict) -> dict[str, set[str]]:
    """Each engine's figure keys (its figure definition's, or its cases' together, e.g.
    PriCER's kinds)."""
    defs = schema["$defs"]
    return {
        name: set(defs[engine.figure_schema].get("properties", {})).union(
            *(defs[case].get("properties", {}) for case in schema_cases(defs[engine.figure_schema])))
        for name, engine in ENGINES.items() if engine.figure_schema
    }


def _check_engine_implied(name: str, entry: dict, schema: dict) -> None:
    """A figure written without ``engine:`` is the default engine's (the first registered);
    if its keys are another engine's, say so (rather than list the default's unknown keys)."""
    known = engine_keys(schema)
    default = next(iter(known))
    foreign = sorted(set(entry) - known[default])
    if not foreign:
        return
    owners = sorted(engine for engine, keys in known.items() if set(entry) <= keys)
    if not owners:  # a typo, not another engine's figure: the schema's error names it
        return
    raise ConfigError(
        f"figures.{name} has no `engine:`, so it is read as a {default!r} figure (the default), which has no "
        f"key(s) {foreign}; they are keys of engine {' or '.join(owners)}: add "
        + " or ".join(f"`engine: {owner}`" for owner in owners)
    )


def figure_defaults(engine: str, schema: dict | None = None, **settings) -> dict:
    """One figure's settings completed with the schema's defaults (for tests and notebooks)."""
    schema = load_schema() if schema is None else schema
    config = ENGINES[engine].standalone_config({"engine": engine, **copy.deepcopy(settings)})
    return validate_written(config, schema)["figures"]["figure"]


def option_values(schema: dict, entry: dict, option: str) -> tuple:
    """Every value the schema allows for ``option`` in a figure entry like ``entry`` (its
    enum, in the branch of the schema that applies to that entry's engine)."""
    figure_schema = _branch(entry, schema["$defs"]["figure"], schema)
    definition = _resolve_ref(figure_schema["properties"][option], schema)
    if "enum" not in definition:
        raise ValueError(f"option {option!r} has no enum in the schema; it cannot be flipped")
    return tuple(definition["enum"])


def resolve_runs(settings: dict, preset: str) -> None:
    """Every ``runs`` of ``settings`` given per preset, at any depth (a figure's own, a
    sweep's ``set``, a scorecard world's ``set``), replaced in place by the preset's count:
    the other preset's count determines none of this build's outputs, so it is no parameter
    of its jobs (an edit of it reruns nothing here)."""
    for key, value in settings.items():
        if key == "runs":
            settings[key] = per_preset(value, preset)
        elif isinstance(value, dict):
            resolve_runs(value, preset)


def resolve_figure(config: dict, figure: str) -> dict:
    """A figure's flat settings: preset resolved, overrides applied, global keys copied in.

    ``runs`` (per preset, at any depth: ``resolve_runs``) and the command-line overrides its
    engine lists in ``overridable`` (``runs``, ``t_max``, ``chunk_runs`` for simulated
    figures) apply;
    ``grid_linear`` and ``grid_log`` apply to every figure with a ``grid``.  ``seed``,
    ``precision`` and ``population`` are copied from the top level: each engine picks the
    ones its numbers depend on, and adds what it needs (``Engine.complete``).
    """
    if figure not in config["figures"]:
        raise ConfigError(f"unknown figure {figure!r}; configured figures: {sorted(config['figures'])}")
    settings = copy.deepcopy(config["figures"][figure])
    engine = ENGINES[settings["engine"]]
    resolve_runs(settings, config["preset"])
    for key in engine.overridable:
        if config.get(key) is not None:
            settings[key] = config[key]
    if "grid" in settings:
        settings["grid"] = {
            part: config.get(f"grid_{part}") or settings["grid"][part] for part in ("linear", "log")
        }
    if settings.get("stream", "") is None:  # its own streams: no key, so params stay as they were
        del settings["stream"]
    engine.complete(settings, config)
    settings["seed"] = config["seed"]
    settings["precision"] = config["precision"]
    settings["population"] = canonical_population({**config["population"], **settings.get("population", {})})
    return settings


def check_config(config: dict) -> None:
    """Checks across keys, which the JSON schema cannot express; raises ``ConfigError``."""
    check_population(config["population"], "population")
    for index, target in enumerate(config.get("targets") or ()):
        if target not in config["figures"]:
            raise ConfigError(
                f"config key targets[{index}]: {target!r} is not a configured figure; "
                f"configured: {sorted(config['figures'])}"
            )
    for name in config["figures"]:
        settings = resolve_figure(config, name)
        where = f"figures.{name}.population" if config["figures"][name].get("population") else "population"
        if where != "population":
            check_population(settings["population"], where)
        sizes = settings["population"].get("sizes")
        if sizes is not None and "n_agents" in settings and sum(sizes) != settings["n_agents"]:
            raise ConfigError(
                f"{where}.sizes={sizes} sums to {sum(sizes)}, but figures.{name}.n_agents={settings['n_agents']}: "
                "the class sizes must add up to the number of agents"
            )
        engine = ENGINES[settings["engine"]]
        for key, what in (("data", "a world from a data file"), ("class_map", "classes from a class map")):
            if settings.get("population", {}).get(key) and not engine.reads_data_files \
                    and "population" not in engine.unused_globals:
                readers = [e for e, found in ENGINES.items() if found.reads_data_files]
                raise ConfigError(f"{where}.{key}: engine {settings['engine']!r} does not run on {what} (yet); "
                                  f"the engines that do: {readers}")
        engine.check(settings, f"figures.{name}", config)


def check_population(population: dict, where: str) -> None:
    """A population's keys against each other (``where``: its dotted path); the class
    sizes against n_agents are each figure's (``Engine.check``).  A world from a data file
    has the file's classes: no assignment or jitter of its own (its file is checked with
    the figure, ``colme.world.check_data``)."""
    if population.get("data"):
        given = [key for key in ("probabilities", "sizes") if population.get(key) is not None]
        given += ["jitter"] if population.get("jitter") else []
        if given:
            raise ConfigError(f"{where}: {given} do not apply to a world from a data file ({where}.data): its "
                              "agents' classes and means are the file's")
        return
    means = population["means"]
    if len(set(means)) != len(means):
        raise ConfigError(f"{where}.means={means}: class means must be distinct")
    for key in ("sigma", "probabilities", "sizes"):
        value = population.get(key)
        if isinstance(value, list) and len(value) != len(means):
            raise ConfigError(
                f"{where}.{key} has {len(value)} entries but {where}.means has {len(means)}: give one per class"
            )
    assignments = [key for key in ("probabilities", "sizes", "class_map") if population.get(key) is not None]
    if len(assignments) > 1:
        raise ConfigError(f"{where}: give at most one of {where}.probabilities, {where}.sizes and "
                          f"{where}.class_map (given: {assignments})")
    probabilities = population.get("probabilities")
    if probabilities is not None and not math.isclose(sum(probabilities), 1.0, rel_tol=0, abs_tol=1e-9):
        raise ConfigError(f"{where}.probabilities={probabilities} sums to {sum(probabilities)!r}, not 1")
