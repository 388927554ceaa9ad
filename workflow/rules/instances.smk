rule instances:
    """Class assignments, random r-regular graphs and n_a for one chunk of runs."""
    output:
        "results/instances/{figure}/chunk{chunk}.npz",
    params:
        settings=settings,
    log:
        "results/logs/instances/{figure}/chunk{chunk}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/instances.py"
