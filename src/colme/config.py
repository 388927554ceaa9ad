"""Configuration validation: JSON schema, defaults, then semantic checks.

Errors name the offending key (as a dotted path) and, where the schema lists them, the
allowed values or keys, so a typo stops the workflow before any job runs.
"""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import yaml

from .experiments import ConfigError, check_config

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"


def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    return yaml.safe_load(Path(path).read_text())


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
    if error.validator == "oneOf" and error.context:
        best = min(error.context, key=lambda e: len(list(e.schema_path)))
        return f"config key {key}: {error.instance!r} is invalid ({best.message})"
    return f"config key {key}: {error.message}"


def _fill_defaults(instance, schema: dict, root: dict) -> None:
    """Insert schema defaults for missing keys, following $ref and additionalProperties."""
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    if not isinstance(instance, dict):
        return
    if "if" in schema:
        matches = jsonschema.Draft202012Validator(schema["if"]).is_valid(instance)
        _fill_defaults(instance, schema["then"] if matches else schema["else"], root)
        return
    for key, sub in schema.get("properties", {}).items():
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance:
            _fill_defaults(instance[key], sub, root)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for key in set(instance) - set(schema.get("properties", {})):
            _fill_defaults(instance[key], extra, root)


def validate_config(config: dict, schema: dict | None = None) -> dict:
    """Validated copy of ``config`` with defaults filled in; raises ``ConfigError``."""
    schema = load_schema() if schema is None else schema
    config = copy.deepcopy(dict(config))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(_describe(e) for e in errors))
    _fill_defaults(config, schema, schema)
    check_config(config)
    return config
