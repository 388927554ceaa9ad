"""The package stands on its own: no import cycle, lazy imports only where they defer a
heavy module (with their reason), importing the configuration loads no kernel, the
engine contract is enforced when an engine is registered, and the docs' engine lists
are the registry's."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

import colme
from colme.engines import Engine, PanelDrawn
from colme.registry import ENGINES, EngineContractError, Registry

PACKAGE = Path(colme.__file__).resolve().parent
ROOT = Path(__file__).resolve().parents[2]

#: What a function-local import may defer: compiled kernels (and the compiled replay of data
#: files with the stream it reads, ``colme.replay``, ``colme.ccolme.randoms``), plotting,
#: SciPy's optimiser, the privacy audit (``colme.audit``: Numba and dp-accounting), and
#: pandas with the table stage's modules (``colme.aggregation``, an engine's ``tables``),
#: which an instance or simulate job never needs.
HEAVY = re.compile(
    r"^(matplotlib|seaborn|scipy|numba|llvmlite|pandas|colme\.plotting|colme\.replay|colme\.ccolme\.randoms"
    r"|colme\.audit|colme\.aggregation|colme\.(\w+\.)?(kernel|plots|figures|tables))\b"
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> list[tuple[str, str, int, bool, str]]:
    """Every import of the package's modules: (importer, imported module, line, whether it
    is at module level, the source line and the one above it)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    found = []
    for name, path in modules.items():
        source = path.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        in_function = {
            id(inner)
            for outer in ast.walk(tree) if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef)
            for inner in ast.walk(outer)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                module = node.module if not node.level else ".".join(p for p in (base, node.module) if p)
                submodules = [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in modules]
                # ``from . import tables`` imports the submodule (its package is loaded already)
                targets = submodules if len(submodules) == len(node.names) else [module, *submodules]
            else:
                continue
            first = node.lineno - 1  # the import's line and the imports and comment above it
            while first > 0 and lines[first - 1].strip().startswith(("import ", "from ", "#", ")")):
                first -= 1
            context = "\n".join(lines[first:node.lineno])
            found += [(name, target, node.lineno, id(node) not in in_function, context) for target in targets]
    return found


def test_no_import_cycle_even_through_function_local_imports():
    graph = nx.DiGraph()
    for importer, target, *_ in imports():
        if target.startswith("colme") and target != importer and not target.startswith(importer + "."):
            graph.add_edge(importer, target)
            # importing a.b.c runs a/__init__ and a/b/__init__ first
            parts = target.split(".")
            for depth in range(1, len(parts)):
                parent = ".".join(parts[:depth])
                if parent != importer and not importer.startswith(parent + "."):
                    graph.add_edge(importer, parent)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_function_local_imports_defer_a_heavy_module_and_say_so():
    local = [(i, t, line, context) for i, t, line, top, context in imports() if not top]
    assert local, "the count below would pass vacuously"
    for importer, target, line, context in local:
        where = f"{importer}:{line} imports {target} inside a function"
        assert HEAVY.match(target), f"{where}: only heavy modules may be imported lazily"
        assert "# lazy:" in context, f"{where}: say why on its line or the one above (# lazy: ...)"
    print(f"{len(local)} function-local imports, all of heavy modules with their reason")


def test_importing_the_configuration_loads_no_kernel():
    code = (
        "import sys, colme.config, colme.expansion, colme.registry\n"
        "print(' '.join(m for m in sys.modules if m.startswith('colme')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    kernels = [m for m in loaded if re.search(r"\b(kernel|codegen|randoms|replay|template|plots|plotting)$", m)]
    assert not kernels, f"importing colme.config loads {kernels}"
    assert "colme.config" in loaded


def test_an_instance_or_simulate_job_starts_without_pandas(tmp_path):
    """The workflow's instances and simulate scripts import ``colme.stages`` and look up
    one engine (``colme.registry`` makes it then): over 100 such jobs a default build,
    pandas' import (about 0.4 s of each job's start-up) is left to the table stage."""
    from colme.config import load_schema, resolve_figure
    from colme.expansion import validate_config
    from colme.stages import makers, result_path

    small = {"n_agents": 12, "t_max": 30, "runs": 2, "chunk_runs": 2, "grid": {"linear": 5, "log": 3}}
    figures = {
        "ccolme": {"engine": "ccolme", "degree": 3, "eps": [1], "theta_k": [6], **small},
        "scalable": {"engine": "scalable", "degree": 3, "depths": [2], **small},
        "private_colme": {"engine": "private_colme", "schedules": ["rr"], "mechanisms": ["pm1"], **small},
    }
    config = validate_config({"seed": 1, "figures": figures}, load_schema())
    jobs = []
    for figure in figures:
        made_by = makers(figure, resolve_figure(config, figure), 0, 2)
        jobs.append([made_by["instances"], made_by["chunks"],
                     *(result_path(kind, figure, 0, 2, made_by[kind], root=tmp_path) for kind in made_by)])
    code = (
        "import json, sys\n"
        "from colme.stages import write_chunk, write_instances\n"
        "for instances, chunk, instance_path, chunk_path in json.loads(sys.argv[1]):\n"
        "    write_instances(instances, instance_path)\n"
        "    write_chunk(chunk, instance_path, chunk_path)\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code, json.dumps(jobs)], capture_output=True, text=True,
                            check=True).stdout.split()
    assert "colme.ccolme.kernel" in loaded and "colme.scalable.kernel" in loaded  # the jobs ran their kernels
    assert all(Path(path).is_file() for job in jobs for path in job[2:])
    heavy = [m for m in loaded if m.split(".")[0] in ("pandas", "matplotlib", "seaborn", "networkx")
             or m in ("scipy.stats", "colme.aggregation")]
    assert not heavy, f"an instance or simulate job imports {heavy}"


class Incomplete(PanelDrawn, Engine):
    """Tables and a subtitle, but no panel style for its panel."""

    name = "incomplete"
    figure_schema = "incomplete_figure"

    def tables(self, figure, params, inputs):
        raise AssertionError("never called")

    def subtitle(self, meta):
        return ""


class Drawn(Incomplete):
    name = "drawn"

    def panel_style(self, table):
        raise AssertionError("never called")


class Undrawn(Engine):
    """Tables and a subtitle, but no drawing at all."""

    name = "undrawn"
    figure_schema = "undrawn_figure"
    tables = Incomplete.tables
    subtitle = Incomplete.subtitle


def test_an_engine_without_a_required_hook_cannot_be_made_naming_it():
    with pytest.raises(TypeError, match=r"abstract class Incomplete .*panel_style"):
        Incomplete()
    with pytest.raises(TypeError, match=r"abstract class Undrawn .*draw"):
        Undrawn()
    registry = Registry()
    registry.register(Drawn())
    assert list(registry) == ["drawn"]
    with pytest.raises(EngineContractError, match=r"engine 'drawn' registered under another name, 'other'"):
        registry["other"] = Drawn()


def test_every_registered_engine_meets_the_contract():
    for name, engine in ENGINES.items():
        assert engine.name == name and isinstance(engine, Engine)
        assert not type(engine).__abstractmethods__


def test_an_old_engine_name_is_accepted_with_a_warning():
    from colme.config import validate_written

    with pytest.warns(FutureWarning, match=r"figures\.old\.engine: engine 'colme' is the old name of 'private_colme'"):
        config = validate_written({"figures": {"old": {"engine": "colme"}}})
    assert config["figures"]["old"]["engine"] == "private_colme"


def test_the_docs_name_every_registered_engine():
    """The engine lists kept in prose (architecture, adding an engine) name each engine."""
    for page in ("docs/architecture.md", "docs/adding_an_engine.md"):
        text = (ROOT / page).read_text()
        missing = [name for name in ENGINES if f"`{name}`" not in text]
        assert not missing, f"{page} does not name the registered engine(s) {missing}"
