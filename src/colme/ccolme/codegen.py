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
from .weight_rules import builtin_weights

_KERNELS: dict[tuple, object] = {}


def _kernel_folder() -> Path:
    """Where generated kernel modules (and, unless NUMBA_CACHE_DIR says otherwise, their
    compiled code) are kept: $COLME_KERNEL_DIR, else $XDG_CACHE_HOME/colme/kernels."""
    if os.environ.get("COLME_KERNEL_DIR"):
        return Path(os.environ["COLME_KERNEL_DIR"])
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "colme" / "kernels"


def build_kernel(lanes: int, mixed: bool = False, cache: bool = True, large: bool = False, rules=None,
                 weights=None):
    """Compile-on-call dispatcher of the kernel for ``lanes`` curves (``mixed``: agents
    that differ; ``large``: the layout for large graphs; ``kernel_source``), the panel's
    decision ``rules`` (``PanelSpec.decision_rules``) and mixing ``weights``
    (``PanelSpec.mixing_weights``; a researcher's rule or weights enter the generated
    source by their file's digest, so an edited file compiles a new kernel).

    With ``cache``, the generated module is written once to ``_kernel_folder()`` under a
    name hashing its source and the modules it calls, and Numba caches its machine code
    there like any module's: later processes skip the compilation (~4 s per precision).
    Without it, or if the folder is not writable, the source is compiled in memory.
    """
    source = kernel_module_source(lanes, mixed, large, rules, weights)
    variant = f"{lanes}{'_mixed' if mixed else ''}{'_large' if large else ''}"
    namespace = {"__name__": f"colme_consensus_kernel_{variant}"}
    if cache:
        here = Path(__file__).resolve().parent
        digest = hashlib.sha256(source.encode())
        for path in (here / "randoms.py", here / "rules.py", here / "decision_rules.py", here / "weight_rules.py",
                     here / "user_code.py", here.parent / "privacy.py", here.parent / "_jit.py",
                     here.parent / "populations.py"):
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


def kernel_key(lanes: int, mixed: bool = False, large: bool = False, rules=None, weights=None) -> tuple:
    """The variant of ``compiled_kernel``'s arguments: the functions and parameter counts of
    the decision ``rules`` and the mixing ``weights`` (default: the built-in ones) make it,
    not their values (eq. (2) and Metropolis share one kernel)."""
    rules = tuple(builtin_rules().values()) if rules is None else tuple(rules)
    weights = builtin_weights()["eq2"] if weights is None else weights
    return (lanes, mixed, large, *((f.kernel_import("f"), len(f.params)) for f in (*rules, weights)))


def compiled_kernel(lanes: int, mixed: bool = False, large: bool = False, rules=None, weights=None):
    """The kernel for ``lanes`` curves (``mixed``: agents that differ; ``large``: the
    layout for large graphs), decision ``rules`` and mixing ``weights`` (default: the
    built-in ones), built once per process and variant (``kernel_key``)."""
    rules = None if rules is None else tuple(rules)
    key = kernel_key(lanes, mixed, large, rules, weights)
    if key not in _KERNELS:
        _KERNELS[key] = build_kernel(lanes, mixed, large=large, rules=rules, weights=weights)
    return _KERNELS[key]
