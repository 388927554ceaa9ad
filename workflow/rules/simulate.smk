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
    # Memory and runtime from the engine's estimates for the chunk (colme.engines), doubled
    # at each retry; results/benchmarks/simulate records what each job used.
    resources:
        mem_mb=simulate_resource("memory_mb"),
        runtime=simulate_resource("runtime_minutes"),
    params:
        made_by=made_by_of("chunks"),
    script:
        "../scripts/simulate.py"
