"""What the benchmarks share: the CPU description line and another revision's kernel module
(and the spec module beside it).

Imported as a plain module by the benchmark scripts, which run from the repository root as
``python benchmarks/<script>.py`` (so ``benchmarks/`` is on ``sys.path``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from colme.provenance import host_cpu, vector_isa

REPO = Path(__file__).resolve().parents[1]


def cpu_description() -> str:
    """CPU model, host vector ISA, and the CPU name/ISA Numba compiles for."""
    model, flags = host_cpu()
    name = os.environ.get("NUMBA_CPU_NAME")
    features = os.environ.get("NUMBA_CPU_FEATURES")
    if name is None:
        import llvmlite.binding as llvm

        name = f"host ({llvm.get_host_cpu_name()})"
    target = flags if features is None else {f[1:] for f in features.split(",") if f.startswith("+")}
    return (f"CPU: {model}, {os.cpu_count()} cores, host ISA {vector_isa(flags)}; "
            f"Numba compiles for {name}, ISA {vector_isa(target)}")


#: Where the Private-C-ColME kernel module lives, newest layout first (``load_baseline``):
#: ``colme.ccolme.kernel`` since the one-home-per-paper restructure (666d3f3),
#: ``colme.consensus`` up to d3a38a9.
CCOLME_KERNEL_MODULES = ("ccolme.kernel", "consensus")


def extract_revision(revision: str, folder: Path, *paths: str) -> Path:
    """The tracked files of git revision ``revision`` (those under ``paths``, or all) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, *paths],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def load_baseline(revision: str, modules: tuple[str, ...]):
    """The first of ``colme_baseline.<name>`` for ``name`` in ``modules`` that git revision
    ``revision`` has, with ``src/colme`` of that revision extracted as package ``colme_baseline``.

    ``modules`` lists where the kernel module lived, newest layout first (dotted, relative
    to ``colme``).  Each call extracts into its own temporary folder; as the package name is
    fixed, one process loads one baseline revision.  Modules importing their siblings
    relatively (or deriving the root package from ``__package__``) import the baseline's
    own copies, and Numba's cache keys on the source file's path, so the two revisions never
    share a cached kernel.
    """
    folder = extract_revision(revision, Path(tempfile.mkdtemp(prefix="colme-baseline-")), "src/colme")
    package = folder / "src" / "colme_baseline"
    (folder / "src" / "colme").rename(package)
    sys.path.insert(0, str(folder / "src"))
    for name in modules:
        if (package / (name.replace(".", "/") + ".py")).exists():
            return importlib.import_module(f"colme_baseline.{name}")
    raise SystemExit(f"revision {revision} has none of the kernel modules {modules}")


def spec_module(kernel):
    """The module holding the panel spec (``PanelSpec``, ``ColmeSpec``...) of the kernel module
    ``kernel``, of this revision or a baseline: its sibling ``spec`` since the spec left the
    kernel module, the kernel module itself before."""
    sibling = kernel.__name__.rpartition(".")[0] + ".spec"
    return importlib.import_module(sibling) if importlib.util.find_spec(sibling) else kernel
