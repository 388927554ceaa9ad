rule simulate:
    """All curves of a figure on one chunk's instances (common random numbers)."""
    input:
        "results/instances/{figure}/chunk{chunk}.npz",
    output:
        "results/chunks/{figure}/chunk{chunk}.npz",
    log:
        "results/logs/simulate/{figure}/chunk{chunk}.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=lambda wildcards: chunk_runtime_minutes(settings(wildcards)),
    params:
        settings=settings,
    script:
        "../scripts/simulate.py"
