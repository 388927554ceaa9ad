rule figure:
    """Paper-style figure with provenance in the PDF metadata and a JSON sidecar."""
    input:
        table="results/tables/{figure}.csv",
        meta="results/tables/{figure}.json",
    output:
        pdf="results/figures/{figure}.pdf",
        png="results/figures/{figure}.png",
        sidecar="results/figures/{figure}.json",
    log:
        "results/logs/figures/{figure}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figure.py"
