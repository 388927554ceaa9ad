"""The expansion stage: every figure a configuration asks for, each validated once.

A configuration names some figures in full and generates others:

* ``derived_from``: a figure written as another figure's entry with overrides (an
  ablation, a variant), written out in full before anything is validated;
* sweep points: the simulated figures a sweep (``colme.derived.sweeps``) is made of;
* sensitivity variants: each claim-bearing figure with one interpretation option flipped
  (``results/sensitivity.md``, ``colme.sensitivity``).

``expand_config`` does all three, in this order, and returns every figure's resolved settings;
the workflow calls it once (``workflow/rules/common.smk``).  Each generated figure is
validated exactly once, by the same schema and checks as a written one, and an error names
the key of the figure that generated it.  ``validate_config`` is the same check for a
config alone (the written figures and the sweep points, not the variants).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from .config import (
    ConfigError,
    load_schema,
    option_values,
    per_preset,
    resolve_figure,
    update_config,
    validate_written,
)
from .derived.sweeps import global_settings
from .registry import ENGINES

__all__ = ["BASELINE", "Expansion", "Variant", "expand_config", "expand_derived", "validate_config", "variant_name"]

#: The option name of the baseline variant (the figure itself at the sensitivity run count).
BASELINE = "baseline"


@dataclass(frozen=True)
class Variant:
    """One variant figure: ``figure`` with ``option`` set to ``value`` (or the baseline)."""

    name: str
    figure: str
    option: str
    value: object
    default: object = None


@dataclass
class Expansion:
    """What ``expand_config`` makes of a configuration.

    ``config``: validated, defaults filled, derived figures written out; ``figures``: the
    configured figures' resolved settings; ``sweep_figures``: those of the simulated
    figures the sweeps build; ``variants`` (``variant_settings``, and ``skipped`` the flips
    the configuration rejects, as (figure, option, value, why)): the sensitivity variants.
    """

    config: dict
    figures: dict[str, dict]
    sweep_figures: dict[str, dict]
    variant_settings: dict[str, dict] = field(default_factory=dict)
    variants: list[Variant] = field(default_factory=list)
    skipped: list[tuple[str, str, object, str]] = field(default_factory=list)

    @property
    def settings(self) -> dict[str, dict]:
        """Every figure the workflow can build, by name."""
        return {**self.figures, **self.variant_settings, **self.sweep_figures}


def expand_derived(figures: dict) -> dict:
    """Figures declared as ``derived_from: <figure>`` plus overrides, written out in full.

    A derived figure (an ablation, a variant) is its base figure's entry as written in the
    config, with the derived entry's keys merged over it (nested mappings key by key);
    chains are allowed, cycles and unknown bases are errors naming the key.
    """

    def resolve(name: str, chain: tuple[str, ...]) -> dict:
        entry = figures[name]
        if not isinstance(entry, dict) or "derived_from" not in entry:
            return copy.deepcopy(entry)
        base = entry["derived_from"]
        if base not in figures:
            raise ConfigError(
                f"config key figures.{name}.derived_from: {base!r} is not a configured figure; "
                f"configured: {sorted(figures)}"
            )
        if base in chain:
            raise ConfigError(f"config key figures.{chain[0]}.derived_from: cycle {' -> '.join((*chain, base))}")
        overrides = {key: value for key, value in entry.items() if key != "derived_from"}
        return update_config(resolve(base, (*chain, base)), overrides)

    return {name: resolve(name, (name,)) for name in figures}


def derived_names(config: dict) -> set[str]:
    """The figures of a (raw) configuration declared with ``derived_from``."""
    figures = config.get("figures")
    return {n for n, e in figures.items() if isinstance(e, dict) and "derived_from" in e} if figures else set()


def expand_config(
    config: dict,
    schema: dict | None = None,
    claimed: frozenset[str] | set[str] = frozenset(),
) -> Expansion:
    """Every figure of ``config`` (as written: ``derived_from`` allowed), validated once.

    ``claimed``: the figures some claim is about, whose sensitivity variants are made
    (none by default).  Raises ``ConfigError`` naming the key at the first problem.
    """
    schema = load_schema() if schema is None else schema
    written = copy.deepcopy(dict(config))
    if isinstance(written.get("figures"), dict):
        written["figures"] = expand_derived(written["figures"])
    validated = validate_written(written, schema)
    figures = {name: resolve_figure(validated, name) for name in validated["figures"]}
    _check_streams(figures)
    expansion = Expansion(validated, figures, _generated_figures(validated, figures, schema))
    if claimed:
        _add_variants(expansion, schema, set(claimed), derived_names(config))
    return expansion


def _check_streams(figures: dict[str, dict]) -> None:
    """A figure's ``stream`` names another simulated figure whose instances it can draw:
    the same instance settings (agents, seed, classes, graph), whatever the engine."""
    simulated = sorted(name for name, s in figures.items() if ENGINES[s["engine"]].simulated)
    for name, settings in figures.items():
        other = settings.get("stream")
        if other is None:
            continue
        where = f"figures.{name}.stream={other!r}"
        if other not in simulated:
            raise ConfigError(f"{where} names no simulated figure of this configuration; they are {simulated}")
        _check_same_instances(where, settings, figures[other])


def _check_same_instances(where: str, mine: dict, theirs: dict) -> None:
    """``ConfigError`` naming the keys where two figures' instance settings differ."""
    mine, theirs = (ENGINES[s["engine"]].instance_params(s) for s in (mine, theirs))
    differ = sorted(key for key in set(mine) | set(theirs) if key != "engine" and mine.get(key) != theirs.get(key))
    if differ:
        raise ConfigError(f"{where}: the two figures' instances differ in {differ} "
                          f"({', '.join(f'{k} {mine.get(k)!r} vs {theirs.get(k)!r}' for k in differ)}); "
                          "a figure can only draw the streams of a figure with the same instances")


def validate_config(config: dict, schema: dict | None = None) -> dict:
    """Validated copy of ``config`` (defaults filled in, derived figures written out), its
    sweeps' points included; raises ``ConfigError`` naming the key."""
    return expand_config(config, schema).config


def _generated_figures(config: dict, figures: dict[str, dict], schema: dict) -> dict[str, dict]:
    """The resolved settings of every figure the configured ones generate (a sweep's points
    or lanes figures: ``Engine.generated_figures``), each validated once; an error names
    the generating figure's key."""
    out, drawing = {}, {}
    for name, entry in config["figures"].items():
        engine = ENGINES[entry["engine"]]
        base = engine.base_figure(entry)
        where = f"figures.{name}"
        for generated in engine.generated_figures(entry, name, config, None if base is None else figures[base]):
            try:
                resolved = resolve_figure(validate_written(generated["config"], schema), generated["name"])
            except ConfigError as error:
                detail = str(error).splitlines()[-1].strip()
                raise ConfigError(f"{where}: the point {generated['set']} is not a valid figure: {detail}") from None
            engine.check_generated(entry, where, generated, resolved)
            if engine.cells_share_instances:  # the first figure drawing a stream sets its instances
                stream = resolved["stream"]
                first = figures.get(stream) or drawing.setdefault(stream, resolved)
                _check_same_instances(f"{where}: {generated['name']} (stream {stream!r})", resolved, first)
            out[generated["name"]] = resolved
    return out


def variant_name(figure: str, option: str, value=None) -> str:
    """``<figure>__baseline`` or ``<figure>__<option>__<value>`` (a valid figure name)."""
    if option == BASELINE:
        return f"{figure}__{BASELINE}"
    text = "inf" if value == float("inf") else str(value).lower()
    return f"{figure}__{option}__{re.sub(r'[^A-Za-z0-9_]', '', text)}"


def _add_variants(expansion: Expansion, schema: dict, claimed: set[str], derived: set[str]) -> None:
    """The sensitivity variants of the claim-bearing figures (``colme.sensitivity``).

    Every configured figure that carries claims (and is not itself derived: ablations carry
    none) has its engine's interpretation options (``Engine.interpretation_options``).  For
    each option and each other value the schema allows, a variant is the figure with that
    one option flipped.  A simulated variant runs ``sensitivity.runs`` runs (at most the
    figure's own) and draws the figure's own instances and data streams (``stream``), so
    that it and the baseline (the figure at the same run count, also a variant when that
    count is below the figure's) are paired run by run.  A view's variants (a zoom
    figure's) view its source's variants.
    """
    config = expansion.config
    figures = config["figures"]
    runs = per_preset(config["sensitivity"]["runs"], config["preset"])
    views = {
        name: source
        for name, entry in figures.items()
        if (source := ENGINES[entry["engine"]].source(entry)) is not None
    }
    varied = sorted(
        name
        for name in figures
        if name not in derived
        and name not in views
        and (name in claimed or any(v in claimed and src == name for v, src in views.items()))
    )
    for figure in varied:
        entry = figures[figure]
        base = expansion.figures[figure]
        engine = ENGINES[entry["engine"]]
        count = min(runs, base["runs"]) if engine.simulated else None
        own: list[Variant] = []
        if engine.simulated and count < base["runs"]:
            own.append(Variant(variant_name(figure, BASELINE), figure, BASELINE, None))
            expansion.variant_settings[own[-1].name] = {**base, "runs": count, "stream": figure}
        for option in engine.interpretation_options(base):
            for value in option_values(schema, entry, option):
                if value == entry[option]:
                    continue
                name = variant_name(figure, option, value)
                trial = {**global_settings(config), "figures": {name: {**copy.deepcopy(entry), option: value}}}
                try:
                    checked = validate_written(trial, schema)
                except ConfigError as error:
                    expansion.skipped.append((figure, option, value, str(error).splitlines()[-1].strip()))
                    continue
                resolved = resolve_figure(checked, name)
                resolved["stream"] = figure
                if engine.simulated:
                    resolved["runs"] = count
                expansion.variant_settings[name] = resolved
                own.append(Variant(name, figure, option, value, entry[option]))
        expansion.variants += own
        for view, source in sorted(views.items()):
            if source != figure or view not in claimed:
                continue
            resolved = expansion.figures[view]
            for variant in own:
                name = f"{view}__{variant.name.removeprefix(figure + '__')}"
                expansion.variant_settings[name] = ENGINES[resolved["engine"]].with_source(resolved, variant.name)
                expansion.variants.append(Variant(name, view, variant.option, variant.value, variant.default))
