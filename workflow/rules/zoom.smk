rule zoom:
    """A figure that redraws another figure's table over a shorter time range."""
    input:
        table=lambda wildcards: f"results/tables/{settings(wildcards)['source']}.csv",
        meta=lambda wildcards: f"results/tables/{settings(wildcards)['source']}.json",
    output:
        table="results/tables/{figure}.csv",
        meta="results/tables/{figure}.json",
    log:
        "results/logs/zoom/{figure}.log",
    wildcard_constraints:
        figure=engine_figures("zoom"),
    conda:
        "../../environment.yml"
    params:
        settings=settings,
    script:
        "../scripts/zoom.py"
