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
            labels={"figure": "{figure}", "file": "PDF"},
        ),
        png=report(
            "results/figures/{figure}.png",
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{figure}",
            labels={"figure": "{figure}", "file": "PNG"},
        ),
        sidecar=report(
            "results/figures/{figure}.json",
            caption="../report/provenance.rst",
            category="Figures",
            subcategory="{figure}",
            labels={"figure": "{figure}", "file": "provenance"},
        ),
    log:
        "results/logs/figures/{figure}.log",
    conda:
        "../../environment.yml"
    params:
        caption=lambda wildcards: report_caption(config, wildcards.figure),
    script:
        "../scripts/figure.py"
