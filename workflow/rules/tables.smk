rule table:
    """A figure's tidy table, supplementary table and provenance, whatever its engine.

    Simulated engines aggregate their chunks, a zoom figure filters its source's table,
    analytic engines (Proposition 3, PriCER) compute theirs here.
    """
    input:
        unpack(table_inputs),
    output:
        **TABLE_OUTPUTS,
    log:
        f"{RESULTS}/logs/table/{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/table/{{figure}}.tsv"
    conda:
        "../../environment.yml"
    params:
        spec=params_of("table"),
    script:
        "../scripts/table.py"
