"""Numba compilation with LLVM ``noalias`` on every array argument.

LLVM only keeps a row of per-curve state in vector registers across a loop over
neighbours when it knows the arrays written and read do not overlap.  Numba has the
machinery (the ``noalias`` compiler flag, used for its own parallel gufuncs) but no public
switch, so this module adds a dispatcher whose target options set it.  The promise is
the caller's: a function compiled here must never receive overlapping arrays.  If a
future Numba moves these internals, compilation falls back to plain ``numba.njit``
(correct, about 2x slower) with a warning; ``uses_noalias(dispatcher)`` tells which path
a compiled function took, so a test can catch the silent fallback.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import inspect
import itertools
import linecache
import os
import re
import sys
import time
import warnings
from collections.abc import Iterable
from pathlib import Path

import numba
import numba.extending
import numpy as np
from numba.core.caching import FunctionCache
from numpy.lib.array_utils import byte_bounds

try:
    from numba.core import config, cpu, registry

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
        slp_vectorize = False

        def compile(self, sig):
            """Compile ``sig``; with LLVM's SLP vectorizer on if ``slp_vectorize`` is set."""
            if not self.slp_vectorize:
                return super().compile(sig)
            saved = config.SLP_VECTORIZE
            config.SLP_VECTORIZE = 1  # read by Numba's pass builders during this compilation
            try:
                return super().compile(sig)
            finally:
                config.SLP_VECTORIZE = saved

    _AVAILABLE = True
except (ImportError, AttributeError):  # pragma: no cover - depends on Numba internals
    _AVAILABLE = False


def jit_noalias(function=None, *, cache: bool = True, slp_vectorize: bool = False):
    """``numba.njit(cache=cache, error_model="numpy")`` plus noalias array arguments.

    Functions built from generated source (no file behind them) must pass ``cache=False``.
    ``slp_vectorize`` turns on LLVM's SLP vectorizer (off in Numba by default) for this
    function: straight-line code over unrolled lanes then packs into vector registers.
    """
    if function is None:
        return lambda f: jit_noalias(f, cache=cache, slp_vectorize=slp_vectorize)
    options = {"nopython": True, "error_model": "numpy"}
    if _AVAILABLE:
        try:
            dispatcher = _NoAliasDispatcher(function, targetoptions=options)
            dispatcher.slp_vectorize = slp_vectorize
            if cache:
                dispatcher.enable_caching()
            return dispatcher
        except Exception as error:  # pragma: no cover - depends on Numba internals
            warnings.warn(f"no-alias compilation unavailable ({error}); using numba.njit", stacklevel=2)
    return numba.njit(cache=cache, error_model="numpy")(function)


def uses_noalias(dispatcher) -> bool:
    """Whether ``dispatcher`` took the fast path: every array argument ``noalias`` in LLVM.

    True only for the no-alias dispatcher, once compiled, when the LLVM definition of each
    compiled overload marks every pointer argument ``noalias``: an array's data pointer
    (``%arg.<name>.4``), and those of the arrays inside an argument group (a named tuple,
    flattened by Numba into ``%arg.<name>.<field>.4``); a fallback to plain ``numba.njit``
    (or a Numba that ignores the flag) reads False.
    """
    if not (_AVAILABLE and isinstance(dispatcher, _NoAliasDispatcher)) or not dispatcher.overloads:
        return False
    for result in dispatcher.overloads.values():
        name = "@" + result.fndesc.mangled_name + "("
        definition = next(
            (line for line in result.library.get_llvm_str().splitlines()
             if line.startswith("define") and name in line),
            "",
        )
        pointers = re.findall(r"ptr ([^%,]*)%arg\.[\w.]+\.4\b", definition)
        if not pointers or not all("noalias" in attributes for attributes in pointers):
            return False
    return True


def prefetch_intrinsic(locality: int = 3):
    """An intrinsic ``prefetch(array, index)``: ``llvm.prefetch`` (read) of ``array[index]``
    with the cache ``locality`` hint (3, keep in all levels: x86 ``prefetcht0``; 2, 1, 0:
    ``prefetcht1``, ``prefetcht2``, ``prefetchnta``); no load, no fault, so an index past
    the array's end is harmless."""

    @numba.extending.intrinsic
    def prefetch(typingctx, array, index):
        # lazy: Numba's code generators, only when the intrinsic is compiled
        from llvmlite import ir
        from numba.core import cgutils

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            pointer = builder.bitcast(builder.gep(data, [args[1]]), cgutils.voidptr_t)
            i32 = ir.IntType(32)
            # declare_intrinsic names it for this LLVM (llvm.prefetch.p0, or .p0i8 before opaque pointers)
            function = builder.module.declare_intrinsic(
                "llvm.prefetch", [cgutils.voidptr_t],
                ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32]))
            builder.call(function, [pointer, i32(0), i32(locality), i32(1)])
            return context.get_dummy_value()

        return numba.types.void(array, index), codegen

    return prefetch


#: The kernels' prefetch: keep the line in all cache levels.
prefetch = prefetch_intrinsic(3)


def as_state(value, one):
    """``value`` in the precision of ``one``: itself if it is already a float, converted
    otherwise (a uint8 0/1 of the large-graph kernel).  Compiled kernels only."""
    return one * value


@numba.extending.overload(as_state, inline="always")
def _as_state(value, one):
    # A float stays as it is, an integer is converted: no multiplication by a runtime 1.0
    # that LLVM could not fold (one per lane and edge; docs/kernel.md, "Fewer instructions
    # per edge").
    if isinstance(value, numba.types.Float):
        return lambda value, one: value
    precision = one
    return lambda value, one: precision(value)


def argument_arrays(arguments: dict) -> dict[str, np.ndarray]:
    """The arrays of a kernel's ``arguments`` by dotted name, those inside argument groups
    (named tuples, nested or not) included: what Numba passes as separate pointers."""
    found = {}
    for name, value in arguments.items():
        if isinstance(value, np.ndarray):
            found[name] = value
        elif isinstance(value, tuple) and hasattr(value, "_fields"):
            fields = zip(value._fields, value, strict=True)
            found |= argument_arrays({f"{name}.{field}": item for field, item in fields})
    return found


def check_distinct(arrays: dict[str, np.ndarray], owner: str) -> None:
    """Raise unless no two of ``arrays`` share memory: the promise ``jit_noalias`` relies on.
    (Byte ranges sorted by their start: n log n, so a kernel call checks all its arrays.)"""
    spans = sorted((*byte_bounds(array), name) for name, array in arrays.items() if array.size)
    for (_, end, name), (start, _, other) in itertools.pairwise(spans):
        if start < end:
            raise ValueError(f"{owner} arrays must be distinct allocations (noalias kernel): "
                             f"{name} and {other} overlap")


def check_shapes(arrays: dict[str, tuple[np.ndarray | None, tuple]]) -> None:
    """Raise unless each output array a caller hands a kernel driver, ``name: (array,
    expected shape)``, has its shape (None: not given): a compiled kernel writes without
    bounds checks, so a smaller array would be written past its end."""
    for name, (array, shape) in arrays.items():
        if array is not None and array.shape != tuple(shape):
            raise ValueError(f"{name} has shape {array.shape}, the kernel writes {tuple(shape)}")


def kernel_parameters(kernel) -> tuple[str, ...]:
    """The parameter names of a compiled dispatcher (its Python function's)."""
    return tuple(inspect.signature(kernel.py_func).parameters)


def call_kernel(kernel, arguments: dict) -> None:
    """``kernel(**arguments)``, after checking that the names are exactly its parameters
    and that no two of the arrays it is given, inside argument groups too, share memory
    (``check_distinct``: every array is ``noalias`` in a ``jit_noalias`` kernel).

    The kernel is called by name, never by position, so the order of its parameter list
    binds nobody; a missing or unknown name fails here with the names, rather than with
    Numba's bare argument count.  An argument group is a ``typing.NamedTuple`` of arrays
    and numbers whose fields the kernel unpacks by name.
    """
    expected = kernel_parameters(kernel)
    if set(arguments) != set(expected):
        missing = sorted(set(expected) - set(arguments))
        unknown = sorted(set(arguments) - set(expected))
        raise TypeError(f"kernel arguments: missing {missing}, unknown {unknown}")
    check_distinct(argument_arrays(arguments), getattr(kernel, "__name__", "kernel"))
    compile_once(kernel, tuple(arguments[name] for name in expected))
    kernel(**arguments)


def compile_once(kernel, values: tuple) -> None:
    """Compile a cached kernel for the types of ``values`` (its arguments, in order) under an
    exclusive lock per kernel in ``kernel_folder()``, before it runs: of several jobs that
    meet a variant at once, the first compiles it and writes Numba's cache while the others
    wait, then load it from the cache instead of compiling it again.  Only the compilation
    is locked, never the run; an uncached kernel, one already compiled for these types in
    this process, or a folder that cannot hold locks, compiles as Numba would."""
    if not isinstance(getattr(kernel, "_cache", None), FunctionCache):
        return
    types = tuple(kernel.typeof_pyval(value) for value in values)
    if types in kernel.overloads:
        return
    try:
        folder = kernel_folder() / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / f"{kernel.py_func.__module__}.{kernel.__name__}.lock", "a")  # noqa: SIM115
    except OSError:
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        start, misses = time.perf_counter(), sum(kernel.stats.cache_misses.values())
        try:
            kernel.compile(types)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    done = "compiled" if sum(kernel.stats.cache_misses.values()) > misses else "loaded from the cache"
    # the job's log: benchmarks/build_profile.py sums these lines into a build's compile time
    print(f"kernel {kernel.__name__}: {done} in {time.perf_counter() - start:.2f} s", flush=True)


def kernel_folder() -> Path:
    """Where generated kernel modules (and, unless NUMBA_CACHE_DIR says otherwise, their
    compiled code) are kept: $COLME_KERNEL_DIR, else $XDG_CACHE_HOME/colme/kernels."""
    if os.environ.get("COLME_KERNEL_DIR"):
        return Path(os.environ["COLME_KERNEL_DIR"])
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "colme" / "kernels"


def generated_module(name: str, source: str, calls: Iterable[Path] = (), package: str | None = None,
                     label: str = "generated kernel", cache: bool = True):
    """The module of generated ``source`` (its compiled functions written ``cache=CACHE``).

    With a writable ``kernel_folder()``, the source is written there once (atomically:
    concurrent jobs see all or nothing) under ``name`` and a digest of the source and of
    the modules it ``calls`` (an edit of either makes another file), with ``cache=True``,
    and imported: Numba caches its machine code like any module's, so later processes
    skip the compilation.  Otherwise it is compiled in memory with ``cache=False``.
    ``package``: the package its relative imports resolve against (the module is then
    named ``package.name_digest``).  Without ``cache``, it is compiled in memory, afresh
    (never the module an earlier cached call loaded).
    """
    digest = hashlib.sha256(source.encode())
    for path in calls:
        digest.update(Path(path).read_bytes())
    stem = f"{name}_{digest.hexdigest()[:16]}"
    qualified = f"{package}.{stem}" if package else stem
    if cache:
        if qualified in sys.modules:
            return sys.modules[qualified]
        try:
            path = kernel_folder() / f"{stem}.py"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(source.replace("cache=CACHE", "cache=True"))
                os.replace(partial, path)
            module_spec = importlib.util.spec_from_file_location(qualified, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[qualified] = module  # Numba's cached code refers to it by name
            module_spec.loader.exec_module(module)
            return module
        except (OSError, RuntimeError) as error:  # read-only or no home folder
            sys.modules.pop(qualified, None)
            warnings.warn(f"kernel cache unavailable ({error}); compiling in memory", stacklevel=2)
    filename = f"<colme {label}>"
    source = source.replace("cache=CACHE", "cache=False")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = type(sys)(qualified)
    module.__package__ = package or ""
    exec(compile(source, filename, "exec"), module.__dict__)
    return module
