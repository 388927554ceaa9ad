"""Numba compilation with LLVM ``noalias`` on every array argument.

LLVM only keeps a row of per-curve state in vector registers across a loop over
neighbours when it knows the arrays written and read do not overlap.  Numba has the
machinery (the ``noalias`` compiler flag, used for its own parallel gufuncs) but no public
switch, so this module adds a dispatcher whose target options set it.  The promise is
the caller's: a function compiled here must never receive overlapping arrays.  If a
future Numba moves these internals, compilation falls back to plain ``numba.njit``
(correct, about 2x slower) with a warning.
"""

from __future__ import annotations

import warnings

import numba

try:
    from numba.core import cpu, registry

    class _NoAliasOptions(cpu.CPUTargetOptions):
        def finalize(self, flags, options):
            super().finalize(flags, options)
            flags.noalias = True

    class _NoAliasCPUTarget:
        """The CPU target with the no-alias options; everything else is the CPU target's."""

        options = _NoAliasOptions

        def __getattr__(self, name):
            return getattr(registry.cpu_target, name)

    class _NoAliasDispatcher(registry.CPUDispatcher):
        targetdescr = _NoAliasCPUTarget()

    _AVAILABLE = True
except (ImportError, AttributeError):  # pragma: no cover - depends on Numba internals
    _AVAILABLE = False


def jit_noalias(function):
    """``numba.njit(cache=True, error_model="numpy")`` plus noalias array arguments."""
    options = {"nopython": True, "error_model": "numpy"}
    if _AVAILABLE:
        try:
            dispatcher = _NoAliasDispatcher(function, targetoptions=options)
            dispatcher.enable_caching()
            return dispatcher
        except Exception as error:  # pragma: no cover - depends on Numba internals
            warnings.warn(f"no-alias compilation unavailable ({error}); using numba.njit")
    return numba.njit(cache=True, error_model="numpy")(function)
