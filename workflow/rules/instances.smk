rule instances:
    """Class assignments, random r-regular graphs and n_a for one chunk of runs."""
    output:
        "results/instances/{figure}/chunk{chunk}.npz",
    log:
        "results/logs/instances/{figure}/chunk{chunk}.log",
    conda:
        "../../environment.yml"
    params:
        settings=settings,
    script:
        "../scripts/instances.py"
