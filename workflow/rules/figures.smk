#: A figure's outputs: the PDF (provenance in its metadata), the PNG and the JSON sidecar.
FIGURE_OUTPUTS = {
    name: report(
        f"{RESULTS}/figures/{{figure}}.{ext}",
        caption=rst,
        category="Figures",
        subcategory="{figure}",
        labels=report_labels(label),
    )
    for name, ext, rst, label in (
        ("pdf", "pdf", "../report/figure.rst", "PDF"),
        ("png", "png", "../report/figure.rst", "PNG"),
        ("sidecar", "json", "../report/provenance.rst", "provenance"),
    )
}

#: A diagnosed figure's diagnostics drawn against t, beside it.
DIAGNOSTICS_OUTPUTS = {
    "diagnostics_pdf": report(
        f"{RESULTS}/figures/{{figure}}_diagnostics.pdf",
        caption="../report/diagnostics.rst",
        category="Diagnostics",
        subcategory="{figure}",
        labels=report_labels("PDF"),
    ),
    "diagnostics_png": f"{RESULTS}/figures/{{figure}}_diagnostics.png",
}


rule figure:
    """Paper-style figure with provenance in the PDF metadata and a JSON sidecar (rule
    figure_with_diagnostics: its diagnostics figure too, in the same job)."""
    input:
        table=TABLE_OUTPUTS["table"],
        meta=TABLE_OUTPUTS["meta"],
    output:
        **FIGURE_OUTPUTS,
    log:
        f"{RESULTS}/logs/figures/{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure/{{figure}}.tsv"
    wildcard_constraints:
        figure="|".join(UNDIAGNOSED) or "(?!)",
    conda:
        "../../environment.yml"
    params:
        spec=params_of("figure"),
        caption=caption,
    script:
        "../scripts/figure.py"


# The same job draws an engine's diagnostics against t (e.g. Private-ColME: who is in C_a,
# releases): its figure's params and table job, one process start instead of two.
use rule figure as figure_with_diagnostics with:
    input:
        table=TABLE_OUTPUTS["table"],
        meta=TABLE_OUTPUTS["meta"],
        diagnostics=TABLE_OUTPUTS["diagnostics"],
    output:
        **FIGURE_OUTPUTS,
        **DIAGNOSTICS_OUTPUTS,
    wildcard_constraints:
        figure="|".join(DIAGNOSED) or "(?!)",
