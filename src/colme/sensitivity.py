"""Which claims change verdict when an interpretation option flips (``results/sensitivity.md``).

Every configured figure that carries claims (and is not itself derived: ablations carry
none) has its engine's interpretation options (``Engine.interpretation_options``: the
choices where its paper is silent or inconsistent).  For each option and each other value
the schema allows, a *variant* figure is the figure with that one option flipped.  A
simulated variant runs ``sensitivity.runs`` runs (at most the figure's own) and draws the
figure's own instances and data streams (``stream``), so that it and the *baseline* (the
figure at the same run count, also a variant when that count is below the figure's) are
paired run by run: a verdict that changes does so because of the option, not because of
other random numbers.  A view's variants (a zoom figure's) view its source's variants.

The claims of ``workflow/claims.yaml`` are then evaluated on the baseline and on each
variant with their own criteria (diagnoses left out); cross-figure claims read the other
figure's full table.  Nothing here changes a claim's criterion or its reported verdict.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

import pandas as pd

from .claims import evaluate
from .config import ConfigError, option_values, per_preset, resolve_figure, validate_config
from .registry import ENGINES

#: The option name of the baseline variant (the figure itself at the sensitivity run count).
BASELINE = "baseline"
COLUMNS = ["figure", "option", "value", "default", "id", "baseline verdict", "variant verdict",
           "changed", "baseline measured", "variant measured"]


@dataclass(frozen=True)
class Variant:
    """One variant figure: ``figure`` with ``option`` set to ``value`` (or the baseline)."""

    name: str
    figure: str
    option: str
    value: object
    default: object = None


def _token(value) -> str:
    text = "inf" if value == float("inf") else str(value).lower()
    return re.sub(r"[^A-Za-z0-9_]", "", text)


def variant_name(figure: str, option: str, value=None) -> str:
    """``<figure>__baseline`` or ``<figure>__<option>__<value>`` (a valid figure name)."""
    return f"{figure}__{BASELINE}" if option == BASELINE else f"{figure}__{option}__{_token(value)}"


def sensitivity_variants(
    config: dict, schema: dict, claimed: set[str], derived: set[str]
) -> tuple[dict[str, dict], list[Variant], list[tuple[str, str, object, str]]]:
    """(settings per variant name, the variants, the skipped (figure, option, value, why)).

    ``config``: the validated configuration; ``claimed``: figures some claim is about;
    ``derived``: figures declared with ``derived_from`` (never varied).
    """
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
    settings: dict[str, dict] = {}
    variants: list[Variant] = []
    skipped: list[tuple[str, str, object, str]] = []
    for figure in varied:
        entry = figures[figure]
        base = resolve_figure(config, figure)
        engine = ENGINES[entry["engine"]]
        count = min(runs, base["runs"]) if engine.simulated else None
        own: list[Variant] = []
        if engine.simulated and count < base["runs"]:
            own.append(Variant(variant_name(figure, BASELINE), figure, BASELINE, None))
            settings[own[-1].name] = {**base, "runs": count, "stream": figure}
        for option in engine.interpretation_options(base):
            for value in option_values(schema, entry, option):
                if value == entry[option]:
                    continue
                name = variant_name(figure, option, value)
                trial = copy.deepcopy(config)
                trial["figures"][name] = {**copy.deepcopy(entry), option: value}
                try:
                    checked = validate_config(trial, schema)
                except ConfigError as error:
                    skipped.append((figure, option, value, str(error).splitlines()[-1].strip()))
                    continue
                resolved = resolve_figure(checked, name)
                resolved["stream"] = figure
                if engine.simulated:
                    resolved["runs"] = count
                settings[name] = resolved
                own.append(Variant(name, figure, option, value, entry[option]))
        variants += own
        for view, source in sorted(views.items()):
            if source != figure or view not in claimed:
                continue
            resolved = resolve_figure(config, view)
            for variant in own:
                name = f"{view}__{variant.name.removeprefix(figure + '__')}"
                settings[name] = ENGINES[resolved["engine"]].with_source(resolved, variant.name)
                variants.append(Variant(name, view, variant.option, variant.value, variant.default))
    return settings, variants, skipped


def _own_claims(claims: list[dict], figure: str) -> list[dict]:
    return [{k: v for k, v in c.items() if k != "diagnosis"} for c in claims if c["figure"] == figure]


def verdict_changes(
    claims: list[dict],
    variants: list[Variant],
    tables: dict[str, pd.DataFrame],
    bounds: dict[str, pd.DataFrame],
    covariances: dict[str, pd.DataFrame],
) -> pd.DataFrame:
    """One row per variant and claim of its figure: the verdict on the baseline (the figure
    at the variant's run count) and on the variant, with their measured values."""

    def judged(figure: str, source: str) -> pd.DataFrame:
        def swap(frames: dict) -> dict:
            return {**frames, figure: frames[source]} if source in frames else frames

        return evaluate(_own_claims(claims, figure), swap(tables), swap(bounds), swap(covariances))

    baselines = {v.figure: v.name for v in variants if v.option == BASELINE}
    rows = []
    for variant in variants:
        if variant.option == BASELINE:
            continue
        base = judged(variant.figure, baselines.get(variant.figure, variant.figure)).set_index("id")
        flipped = judged(variant.figure, variant.name).set_index("id")
        for claim_id in base.index:
            before, after = base.loc[claim_id], flipped.loc[claim_id]
            rows.append(
                {
                    "figure": variant.figure,
                    "option": variant.option,
                    "value": variant.value,
                    "default": variant.default,
                    "id": claim_id,
                    "baseline verdict": before["verdict"],
                    "variant verdict": after["verdict"],
                    "changed": before["verdict"] != after["verdict"],
                    "baseline measured": before["measured"],
                    "variant measured": after["measured"],
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def to_markdown(changes: pd.DataFrame, skipped: list, runs: int, preset: str) -> str:
    """The report: per option flip, how many claims change verdict and which."""
    lines = [
        "# Sensitivity of the claims' verdicts to the interpretation options",
        "",
        (
            f"Each row flips one option of one figure (preset {preset}; simulated variants run "
            f"{runs} runs, or the figure's own count if smaller, on the figure's own instances "
            "and data streams) and re-checks that figure's claims with their own criteria "
            "(workflow/claims.yaml) against the baseline: the figure as configured at the same "
            "run count.  Claims of another figure that read this one (other_figure) are not "
            "re-checked.  The claims report (results/claims.md) is unaffected."
        ),
        "",
        "| figure | option: configured -> flipped | claims | verdicts changed | changes |",
        "|---|---|---|---|---|",
    ]
    for (figure, option, value), group in changes.groupby(["figure", "option", "value"], sort=False):
        changed = group[group["changed"]]
        detail = "; ".join(
            f"{row['id']}: {row['baseline verdict']} -> {row['variant verdict']}" for _, row in changed.iterrows()
        )
        default = group["default"].iloc[0]
        lines.append(f"| {figure} | {option}: {default} -> {value} | {len(group)} | {len(changed)} | {detail} |")
    if skipped:
        lines += ["", "Not applicable (the configuration rejects the flip):", ""]
        lines += [f"* {figure} {option} = {value}: {why}" for figure, option, value, why in skipped]
    lines += [
        "",
        "Measured values of the claims whose verdict changes:",
        "",
        "| figure | option = value | id | baseline | variant |",
        "|---|---|---|---|---|",
    ]
    for _, row in changes[changes["changed"]].iterrows():
        cells = [
            row["figure"], f"{row['option']} = {row['value']}", row["id"],
            f"{row['baseline verdict']}: {row['baseline measured']}",
            f"{row['variant verdict']}: {row['variant measured']}",
        ]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
