rule simulate:
    """All curves of a figure on one chunk's instances (common random numbers)."""
    input:
        "results/instances/{figure}/chunk{chunk}.npz",
    output:
        "results/chunks/{figure}/chunk{chunk}.npz",
    params:
        settings=settings,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=120,
    log:
        "results/logs/simulate/{figure}/chunk{chunk}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/simulate.py"
