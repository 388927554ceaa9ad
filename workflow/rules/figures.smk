rule figure:
    """Paper-style figure with provenance in the PDF metadata and a JSON sidecar."""
    input:
        table=TABLE_OUTPUTS["table"],
        meta=TABLE_OUTPUTS["meta"],
    output:
        pdf=report(
            f"{RESULTS}/figures/{{figure}}.pdf",
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{figure}",
            labels=report_labels("PDF"),
        ),
        png=report(
            f"{RESULTS}/figures/{{figure}}.png",
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{figure}",
            labels=report_labels("PNG"),
        ),
        sidecar=report(
            f"{RESULTS}/figures/{{figure}}.json",
            caption="../report/provenance.rst",
            category="Figures",
            subcategory="{figure}",
            labels=report_labels("provenance"),
        ),
    log:
        f"{RESULTS}/logs/figures/{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure/{{figure}}.tsv"
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
        diagnostics=TABLE_OUTPUTS["diagnostics"],
        meta=TABLE_OUTPUTS["meta"],
    output:
        pdf=report(
            f"{RESULTS}/figures/{{figure}}_diagnostics.pdf",
            caption="../report/diagnostics.rst",
            category="Diagnostics",
            subcategory="{figure}",
            labels=report_labels("PDF"),
        ),
        png=f"{RESULTS}/figures/{{figure}}_diagnostics.png",
    log:
        f"{RESULTS}/logs/figures/{{figure}}_diagnostics.log",
    benchmark:
        f"{RESULTS}/benchmarks/diagnostics_figure/{{figure}}.tsv"
    wildcard_constraints:
        figure="|".join(DIAGNOSED) or "(?!)",
    conda:
        "../../environment.yml"
    params:
        spec=params_of("figure"),
    script:
        "../scripts/diagnostics_figure.py"
