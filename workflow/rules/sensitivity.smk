# results/sensitivity.md: which claims change verdict when an interpretation option flips.
# A separate target (not in `all`): at the default preset it runs every claim-bearing
# figure again per option, on sensitivity.runs runs.
# Tables of the claims' own and cross-figure figures (diagnoses are not re-checked).
SENSITIVITY_TABLES = sorted(
    {c[key] for c in CLAIM_LIST for key in ("figure", "other_figure") if key in c}
    & set(FIGURES)
    | set(VARIANT_SETTINGS)
)


localrules:
    sensitivity,


rule sensitivity:
    """Claims re-checked on each variant figure against its baseline (colme.sensitivity)."""
    input:
        claims=CLAIMS,
        tables=expand(TABLE_OUTPUTS["table"], figure=SENSITIVITY_TABLES),
        bounds=expand(TABLE_OUTPUTS["supplement"], figure=SENSITIVITY_TABLES),
        covariances=expand(TABLE_OUTPUTS["covariance"], figure=SENSITIVITY_TABLES),
    output:
        csv=f"{RESULTS}/sensitivity.csv",
        md=f"{RESULTS}/sensitivity.md",
    log:
        f"{RESULTS}/logs/sensitivity.log",
    benchmark:
        f"{RESULTS}/benchmarks/sensitivity.tsv"
    conda:
        "../../environment.yml"
    params:
        variants=canonical_json(
            {
                "preset": validated["preset"],
                "runs": validated["sensitivity"]["runs"],
                "variants": [vars(variant) for variant in VARIANTS],
                "skipped": SKIPPED_VARIANTS,
            }
        ),
    script:
        "../scripts/sensitivity.py"
