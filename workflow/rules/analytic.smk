rule analytic:
    """Analytic Private-ColME figures (Proposition 3, Remark 3): no Monte Carlo."""
    output:
        table="results/tables/{figure}.csv",
        extra="results/tables/{figure}_privacy.csv",
        meta="results/tables/{figure}.json",
    log:
        "results/logs/analytic/{figure}.log",
    wildcard_constraints:
        figure=engine_figures("oracle"),
    conda:
        "../../environment.yml"
    params:
        settings=settings,
    script:
        "../scripts/analytic.py"
