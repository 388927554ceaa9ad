"""The kernel's compilation: the generated module (``template.py``) compiled once per
process and variant, and kept with Numba's machine code in an on-disk cache.
"""

from __future__ import annotations

import hashlib
import importlib.util
import linecache
import os
import sys
import warnings
from pathlib import Path

from .decision_rules import builtin_rules
from .template import kernel_module_source

_KERNELS: dict[tuple, object] = {}


def _kernel_folder() -> Path:
    """Where generated kernel modules (and, unless NUMBA_CACHE_DIR says otherwise, their
    compiled code) are kept: $COLME_KERNEL_DIR, else $XDG_CACHE_HOME/colme/kernels."""
    if os.environ.get("COLME_KERNEL_DIR"):
        return Path(os.environ["COLME_KERNEL_DIR"])
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "colme" / "kernels"


def build_kernel(lanes: int, mixed: bool = False, cache: bool = True, large: bool = False, rules=None):
    """Compile-on-call dispatcher of the kernel for ``lanes`` curves (``mixed``: agents
    that differ; ``large``: the layout for large graphs; ``kernel_source``) and the panel's
    decision ``rules`` (``PanelSpec.decision_rules``; a researcher's rule enters the
    generated source by its file's digest, so an edited file compiles a new kernel).

    With ``cache``, the generated module is written once to ``_kernel_folder()`` under a
    name hashing its source and the modules it calls, and Numba caches its machine code
    there like any module's: later processes skip the compilation (~4 s per precision).
    Without it, or if the folder is not writable, the source is compiled in memory.
    """
    source = kernel_module_source(lanes, mixed, large, rules)
    variant = f"{lanes}{'_mixed' if mixed else ''}{'_large' if large else ''}"
    namespace = {"__name__": f"colme_consensus_kernel_{variant}"}
    if cache:
        here = Path(__file__).resolve().parent
        digest = hashlib.sha256(source.encode())
        for path in (here / "randoms.py", here / "rules.py", here / "decision_rules.py", here.parent / "privacy.py",
                     here.parent / "_jit.py", here.parent / "populations.py"):
            digest.update(path.read_bytes())
        name = f"consensus_kernel_{variant}_{digest.hexdigest()[:16]}"
        try:
            path = _kernel_folder() / f"{name}.py"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(source.replace("cache=CACHE", "cache=True"))
                os.replace(partial, path)  # atomic: concurrent jobs see all or nothing
            module_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module  # Numba's cached code refers to it by name
            module_spec.loader.exec_module(module)
            return module.kernel
        except (OSError, RuntimeError) as error:  # read-only or no home folder
            warnings.warn(f"kernel cache unavailable ({error}); compiling in memory", stacklevel=2)
    filename = f"<colme.ccolme kernel, {variant} lanes>"
    source = source.replace("cache=CACHE", "cache=False")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace["kernel"]


def compiled_kernel(lanes: int, mixed: bool = False, large: bool = False, rules=None):
    """The kernel for ``lanes`` curves (``mixed``: agents that differ; ``large``: the
    layout for large graphs) and decision ``rules``, built once per process and variant
    (the rules' functions and parameter counts make the variant, not their values)."""
    rules = tuple(builtin_rules().values()) if rules is None else tuple(rules)
    key = (lanes, mixed, large, tuple((rule.kernel_import("rule"), len(rule.params)) for rule in rules))
    if key not in _KERNELS:
        _KERNELS[key] = build_kernel(lanes, mixed, large=large, rules=rules)
    return _KERNELS[key]
