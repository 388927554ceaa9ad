rule aggregate:
    """Private-C-ColME chunks -> tidy table (simulated, analytic curves) and Corollary 1 bounds."""
    input:
        sims=chunk_files("results/chunks/{figure}/chunk{chunk}.npz"),
        instances=chunk_files("results/instances/{figure}/chunk{chunk}.npz"),
    output:
        table="results/tables/{figure}.csv",
        extra="results/tables/{figure}_bound.csv",
        meta="results/tables/{figure}.json",
    log:
        "results/logs/aggregate/{figure}.log",
    wildcard_constraints:
        figure=engine_figures("ccolme"),
    conda:
        "../../environment.yml"
    params:
        settings=settings,
    script:
        "../scripts/aggregate.py"


rule aggregate_colme:
    """Private-ColME chunks -> tidy table and the privacy accounting of its mechanisms."""
    input:
        sims=chunk_files("results/chunks/{figure}/chunk{chunk}.npz"),
        instances=chunk_files("results/instances/{figure}/chunk{chunk}.npz"),
    output:
        table="results/tables/{figure}.csv",
        extra="results/tables/{figure}_privacy.csv",
        meta="results/tables/{figure}.json",
    log:
        "results/logs/aggregate/{figure}.log",
    wildcard_constraints:
        figure=engine_figures("colme"),
    conda:
        "../../environment.yml"
    params:
        settings=settings,
    script:
        "../scripts/aggregate.py"
