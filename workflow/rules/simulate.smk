rule simulate:
    """All curves of a figure on one run range's instances (common random numbers)."""
    input:
        instances_of_chunk,
    output:
        f"{RESULTS}/chunks/{{figure}}/runs{{start}}-{{stop}}-{{digest}}.npz",
    log:
        f"{RESULTS}/logs/simulate/{{figure}}/runs{{start}}-{{stop}}-{{digest}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/simulate/{{figure}}/runs{{start}}-{{stop}}-{{digest}}.tsv"
    wildcard_constraints:
        figure=engine_figures(simulated=True),
    conda:
        "../../environment.yml"
    threads: 1
    # Measured (results/benchmarks/simulate): at most ~250 MB max RSS per job (Numba
    # runtime + state), whatever the chunk size; runtime from the engine's estimate.
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=simulate_runtime,
    params:
        made_by=made_by_of("chunks"),
    script:
        "../scripts/simulate.py"
