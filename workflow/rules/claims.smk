from colme.claims import DIAGNOSTICS_SUFFIX, bound_figures, table_figures

# Tidy tables of the claims' figures (own and cross-figure) that the config builds, and
# the supplementary tables where a bound_value claim reads one (Corollary 1, Theorem 1).
CLAIM_FIGURES = sorted(table_figures(CLAIM_LIST) & set(FIGURES))
# Diagnostics tables a diagnosis reads (figure "<figure>_diagnostics").
DIAGNOSTICS_FIGURES = sorted(
    {
        f.removesuffix(DIAGNOSTICS_SUFFIX)
        for f in table_figures(CLAIM_LIST)
        if f.endswith(DIAGNOSTICS_SUFFIX)
    }
    & set(DIAGNOSED)
)
BOUND_FIGURES = sorted(bound_figures(CLAIM_LIST) & set(FIGURES))


localrules:
    claims,


rule claims:
    """The papers' claims (workflow/claims.yaml) checked on the tables, one verdict each."""
    input:
        claims=CLAIMS,
        tables=expand(TABLE_OUTPUTS["table"], figure=CLAIM_FIGURES),
        bounds=expand(TABLE_OUTPUTS["supplement"], figure=BOUND_FIGURES),
        covariances=expand(TABLE_OUTPUTS["covariance"], figure=CLAIM_FIGURES),
        diagnostics=expand(TABLE_OUTPUTS["diagnostics"], figure=DIAGNOSTICS_FIGURES),
    output:
        csv=report(
            f"{RESULTS}/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
            labels={"file": "table (CSV)"},
        ),
        md=f"{RESULTS}/claims.md",
    log:
        f"{RESULTS}/logs/claims.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims.tsv"
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims.py"
