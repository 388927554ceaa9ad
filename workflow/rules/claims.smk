from pathlib import Path

from colme.claims import load_claims

CLAIMS = Path(workflow.basedir) / "workflow/claims.yaml"
CLAIM_FIGURES = sorted({c["figure"] for c in load_claims(CLAIMS)} & set(FIGURES))


localrules:
    claims,


rule claims:
    """The papers' claims (workflow/claims.yaml) checked on the tables, one verdict each."""
    input:
        claims=CLAIMS,
        tables=expand("results/tables/{figure}.csv", figure=CLAIM_FIGURES),
        bounds=expand("results/tables/{figure}_bound.csv", figure=CLAIM_FIGURES),
    output:
        csv="results/claims.csv",
        md="results/claims.md",
    log:
        "results/logs/claims.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims.py"
