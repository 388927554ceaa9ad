"""PriCER (seed 003 Figs. 2-4): tables from colme.pricer, then figures with provenance.

Figures live under the top-level config key `pricer_figures` (not `figures`), so the
engine machinery of the other figures never sees them.
"""

from colme.pricer import pricer_caption

PRICER_FIGURES = sorted(config.get("pricer_figures") or {})
PRICER_REGEX = "|".join(PRICER_FIGURES) or "(?!)"
PRICER_TARGETS = expand(
    "results/figures/{figure}.{ext}", figure=PRICER_FIGURES, ext=("pdf", "png")
)


localrules:
    pricer_figure,


rule pricer_table:
    """Algorithm 3, the joint optimum and the Monte Carlo of Algorithms 1-2 for one figure."""
    output:
        table="results/tables/{figure}.csv",
        meta="results/tables/{figure}.json",
    log:
        "results/logs/pricer/{figure}.log",
    wildcard_constraints:
        figure=PRICER_REGEX,
    conda:
        "../../environment.yml"
    resources:
        runtime=15,
    params:
        settings=lambda wildcards: config["pricer_figures"][wildcards.figure],
        seed=config["seed"],
    script:
        "../scripts/pricer_table.py"


rule pricer_figure:
    """PDF (provenance in the Subject field), PNG and JSON sidecar of a PriCER figure."""
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
    wildcard_constraints:
        figure=PRICER_REGEX,
    conda:
        "../../environment.yml"
    params:
        caption=lambda wildcards: pricer_caption(
            wildcards.figure,
            config["pricer_figures"][wildcards.figure],
            config["seed"],
        ),
    script:
        "../scripts/pricer_figure.py"
