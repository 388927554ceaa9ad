rule figure:
    """Paper-style figure with provenance in the PDF metadata and a JSON sidecar."""
    input:
        table="results/tables/{figure}.csv",
        meta="results/tables/{figure}.json",
    output:
        pdf=report(
            "results/figures/{figure}.pdf",
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{figure}",
            labels=report_labels("PDF"),
        ),
        png=report(
            "results/figures/{figure}.png",
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{figure}",
            labels=report_labels("PNG"),
        ),
        sidecar=report(
            "results/figures/{figure}.json",
            caption="../report/provenance.rst",
            category="Figures",
            subcategory="{figure}",
            labels=report_labels("provenance"),
        ),
    log:
        "results/logs/figures/{figure}.log",
    conda:
        "../../environment.yml"
    params:
        caption=lambda wildcards: report_caption(config, wildcards.figure),
    script:
        "../scripts/figure.py"
