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
    benchmark:
        "results/benchmarks/figure/{figure}.tsv"
    conda:
        "../../environment.yml"
    params:
        spec=params_of("figure"),
        caption=caption,
    script:
        "../scripts/figure.py"


rule diagnostics_figure:
    """The engine's diagnostics against t (e.g. Private-ColME: who is in C_a, releases)."""
    input:
        diagnostics="results/tables/{figure}_diagnostics.csv",
        meta="results/tables/{figure}.json",
    output:
        pdf=report(
            "results/figures/{figure}_diagnostics.pdf",
            caption="../report/diagnostics.rst",
            category="Diagnostics",
            subcategory="{figure}",
            labels=report_labels("PDF"),
        ),
        png="results/figures/{figure}_diagnostics.png",
    log:
        "results/logs/figures/{figure}_diagnostics.log",
    benchmark:
        "results/benchmarks/diagnostics_figure/{figure}.tsv"
    wildcard_constraints:
        figure="|".join(DIAGNOSED) or "(?!)",
    conda:
        "../../environment.yml"
    params:
        spec=params_of("figure"),
    script:
        "../scripts/diagnostics_figure.py"
