rule aggregate:
    """Chunks -> tidy table (simulated and analytic curves) and Corollary 1 bound table."""
    input:
        sims=chunk_files("results/chunks/{figure}/chunk{chunk}.npz"),
        instances=chunk_files("results/instances/{figure}/chunk{chunk}.npz"),
    output:
        table="results/tables/{figure}.csv",
        bound="results/tables/{figure}_bound.csv",
        meta="results/tables/{figure}.json",
    log:
        "results/logs/aggregate/{figure}.log",
    conda:
        "../../environment.yml"
    params:
        settings=settings,
    script:
        "../scripts/aggregate.py"
