"""Which claims change verdict when an interpretation option flips (``results/sensitivity.md``).

The *variant* figures (each claim-bearing figure with one interpretation option flipped,
and its *baseline*: the figure at the variants' run count, on the same instances and data
streams) are made by the expansion stage (``colme.expansion``), so that a verdict that
changes does so because of the option, not because of other random numbers.

The claims of ``workflow/claims.yaml`` are then evaluated on the baseline and on each
variant with their own criteria (diagnoses left out); cross-figure claims read the other
figure's full table.  Nothing here changes a claim's criterion or its reported verdict.
"""

from __future__ import annotations

import pandas as pd

from .claims import evaluate
from .expansion import BASELINE, Variant

COLUMNS = ["figure", "option", "value", "default", "id", "baseline verdict", "variant verdict",
           "changed", "baseline measured", "variant measured"]


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
