rule instances:
    """Class assignments, random r-regular graphs and n_a for one run range of a figure."""
    output:
        f"{RESULTS}/instances/{{figure}}/runs{{start}}-{{stop}}-{{digest}}.npz",
    log:
        f"{RESULTS}/logs/instances/{{figure}}/runs{{start}}-{{stop}}-{{digest}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/instances/{{figure}}/runs{{start}}-{{stop}}-{{digest}}.tsv"
    wildcard_constraints:
        figure=engine_figures(simulated=True, owners=True),
    conda:
        "../../environment.yml"
    params:
        made_by=made_by_of("instances"),
    script:
        "../scripts/instances.py"
