# Two entry points (see README): `make figures` and `make test`.  Both create the
# virtual environment .venv on first use and install the tested set of packages
# (requirements.lock, exact versions), then the package itself without dependencies.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
CORES ?= all

.PHONY: figures report test docs lint bench clean

$(BIN)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check
	touch $@

figures: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES) $(SNAKEMAKE_ARGS)

# The report of what is built: every figure of the config in its results folder (all of
# them after `make figures`; a partial build's too: `snakemake --report` asks only for those).
REPORT ?= results/report.html
report: $(BIN)/.installed
	$(BIN)/snakemake --report $(REPORT) $(SNAKEMAKE_ARGS)

# One -q (pytest's summary line stays); CI adds -ra through PYTEST_ARGS.
test: $(BIN)/.installed
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

# The documentation site (mkdocs.yml) into build/site, its generated pages written first
# (colme.docpages, committed under docs/); --strict: any warning fails it.
docs: $(BIN)/.installed
	$(BIN)/python -m colme.docpages
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lint: $(BIN)/.installed
	$(BIN)/snakemake --lint
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(BIN)/ruff check src tests benchmarks workflow/scripts docs/hooks.py

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_consensus.py
	$(BIN)/python benchmarks/bench_queries.py

clean:
	rm -rf results .snakemake build/site
