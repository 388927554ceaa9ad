"""The kernel's compilation: the generated module (``template.py``) compiled once per
process and variant, and kept with Numba's machine code in an on-disk cache.
"""

from __future__ import annotations

from pathlib import Path

from .._jit import generated_module
from .decision_rules import builtin_rules
from .template import kernel_module_source
from .weight_rules import builtin_weights

_KERNELS: dict[tuple, object] = {}


def build_kernel(lanes: int, mixed: bool = False, cache: bool = True, large: bool = False, rules=None,
                 weights=None, grouped: bool = False, file: bool = False):
    """Compile-on-call dispatcher of the kernel for ``lanes`` curves (``mixed``: agents
    that differ; ``large``: the layout for large graphs; ``grouped``: the MSE per group
    too; ``file``: data from a file; ``kernel_source``), the panel's
    decision ``rules`` (``PanelSpec.decision_rules``) and mixing ``weights``
    (``PanelSpec.mixing_weights``; a researcher's rule or weights enter the generated
    source by their file's digest, so an edited file compiles a new kernel).

    With ``cache``, the generated module is written once to ``colme._jit.kernel_folder()`` under a
    name hashing its source and the modules it calls, and Numba caches its machine code
    there like any module's: later processes skip the compilation (~4 s per precision).
    Without it, or if the folder is not writable, the source is compiled in memory.
    """
    source = kernel_module_source(lanes, mixed, large, rules, weights, grouped, file)
    flags = {"mixed": mixed, "large": large, "grouped": grouped, "file": file}
    variant = str(lanes) + "".join(f"_{flag}" for flag, on in flags.items() if on)
    here = Path(__file__).resolve().parent
    calls = (here / "randoms.py", here / "rules.py", here / "decision_rules.py", here / "weight_rules.py",
             here.parent / "user_code.py", here.parent / "privacy.py", here.parent / "_jit.py",
             here.parent / "populations.py", here.parent / "replay.py")
    module = generated_module(f"consensus_kernel_{variant}", source, calls,
                              label=f"colme.ccolme kernel, {variant} lanes", cache=cache)
    return module.kernel


def kernel_key(lanes: int, mixed: bool = False, large: bool = False, rules=None, weights=None,
               grouped: bool = False, file: bool = False) -> tuple:
    """The variant of ``compiled_kernel``'s arguments: the functions and parameter counts of
    the decision ``rules`` and the mixing ``weights`` (default: the built-in ones) make it,
    not their values (eq. (2) and Metropolis share one kernel)."""
    rules = tuple(builtin_rules().values()) if rules is None else tuple(rules)
    weights = builtin_weights()["eq2"] if weights is None else weights
    return (lanes, mixed, large, grouped, file,
            *((f.kernel_import("f"), len(f.params)) for f in (*rules, weights)))


def compiled_kernel(lanes: int, mixed: bool = False, large: bool = False, rules=None, weights=None,
                    grouped: bool = False, file: bool = False):
    """The kernel for ``lanes`` curves (``mixed``: agents that differ; ``large``: the
    layout for large graphs; ``grouped``: the MSE per group too; ``file``: data from a
    file), decision ``rules`` and
    mixing ``weights`` (default: the built-in ones), built once per process and variant
    (``kernel_key``)."""
    rules = None if rules is None else tuple(rules)
    key = kernel_key(lanes, mixed, large, rules, weights, grouped, file)
    if key not in _KERNELS:
        _KERNELS[key] = build_kernel(lanes, mixed, large=large, rules=rules, weights=weights, grouped=grouped,
                                     file=file)
    return _KERNELS[key]
