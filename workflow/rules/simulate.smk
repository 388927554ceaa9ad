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
    # Measured: ~215 MB peak RSS per job (Numba runtime + state), independent of chunk size.
    resources:
        mem_mb=1000,
        runtime=lambda wildcards: chunk_runtime_minutes(settings(wildcards)),
    params:
        settings=settings,
    script:
        "../scripts/simulate.py"
