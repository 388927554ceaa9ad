"""A researcher's own code in a compiled kernel: what the extension points share (the
decision rules and mixing weights of Private-C-ColME, ``colme.ccolme.decision_rules`` and
``colme.ccolme.weight_rules``; the decision rule of Private-ColME,
``colme.private_colme.decision_rules``).

Each is a plain Python function in a file of the researcher's, named in a figure by
``{file, function, params}``: it takes the extension point's fixed arguments first, then
its own numeric parameters by name.  The file is imported once per content (the module is
named after its SHA-256), enters a figure's params by that digest (an edit reruns exactly
the figures using it), and a job refuses a file edited after it was planned.  Before any
job the function is bound to its parameters (``bind_params``) and probed compiled by
Numba (``probe_values``); a problem is a ``ConfigError`` naming the figure's key, the file
and the function.  User code reaches a compiled kernel one way only: the kernel is a
generated module (``colme._jit.generated_module``) that binds the function by the line of
``UserFunction.kernel_import`` and calls it by ``UserFunction.kernel_call``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numba

from .errors import ConfigError


def file_digest(path: str | Path) -> str:
    """The SHA-256 (hex) of a file's bytes: how a researcher's file enters a figure's params."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_function(path: str | Path, function: str, sha256: str | None = None, where: str = "") -> Callable:
    """``function`` of the file ``path`` (imported once per content: the module is named
    after its digest); with ``sha256``, the file must still have that content.  ``where``:
    the config key to name in errors (its ``.file`` and ``.function``)."""
    path = Path(path)
    key = f"{where}.file" if where else "rule file"
    if not path.is_file():
        raise ConfigError(f"{key}: {str(path)!r} is not a file (paths are relative to the workflow's folder, "
                          f"{Path.cwd()})")
    digest = file_digest(path)
    if sha256 and digest != sha256:
        raise ConfigError(f"{key}: {path} changed since this job was planned (sha256 {digest[:12]}, planned "
                          f"{sha256[:12]}): run snakemake again")
    name = f"colme_user_code_{digest[:16]}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as error:
            raise ConfigError(f"{key}: {path} cannot be imported: {type(error).__name__}: {error}") from None
        sys.modules[name] = module
    found = getattr(module, function, None)
    if not inspect.isfunction(found):
        defined = sorted(n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == name)
        raise ConfigError(f"{where + '.function' if where else 'rule function'}: {path} defines no function "
                          f"{function!r}; its functions: {defined}")
    return found


def with_digest(entry: dict) -> dict:
    """A config entry ``{file, function, params}`` as it enters a figure's params: with its
    ``params`` ({} if none) and its file's ``sha256`` (kept if already there, e.g. from
    params; None for a missing file, which the engine's check names)."""
    entry = {"params": {}, **entry}
    if "sha256" not in entry:
        entry["sha256"] = file_digest(entry["file"]) if Path(entry["file"]).is_file() else None
    return entry


@dataclass(frozen=True)
class UserFunction:
    """A function of an extension point as a panel runs it: its name in the config, the
    function, its own parameters' values (in the function's order) and where it comes from:
    a built-in of the module ``builtins`` (each extension point's own) or, with ``file``
    and its ``sha256``, a researcher's file."""

    #: The module whose functions are this extension point's built-ins.
    builtins: ClassVar[str] = __name__

    name: str
    function: str
    params: tuple[tuple[str, float], ...] = ()
    file: str | None = None
    sha256: str = ""

    @property
    def code(self) -> Callable:
        """The Python function (compiled into the kernel, callable as it is)."""
        if self.file is None:
            return getattr(sys.modules[self.builtins], self.function)
        return load_function(self.file, self.function, self.sha256)

    @property
    def values(self) -> tuple[float, ...]:
        """The own parameters' values, in the function's order."""
        return tuple(value for _, value in self.params)

    def kernel_import(self, alias: str) -> str:
        """The generated kernel module's line binding this function to ``alias`` (a built-in
        by its module, a researcher's file by its path and digest: an edited file makes
        another line, so another kernel)."""
        if self.file is None:
            return f"from {self.builtins} import {self.function} as _{alias}\n{alias} = step(_{alias})"
        return (f"{alias} = step(load_function({str(Path(self.file).resolve())!r}, {self.function!r}, "
                f"{self.sha256!r}))")

    def kernel_call(self, alias: str, arguments: Iterable[str], params: str, row: str = "") -> str:
        """The generated kernel's call of this function (bound to ``alias`` by
        ``kernel_import``): the extension point's fixed ``arguments`` (names in the kernel),
        then its own parameters read from the kernel array ``params`` (``params[row j]``:
        ``row`` selects a lane's row, e.g. ``"lane, "``).  One kernel per function and
        parameter count, whatever their values."""
        own = "".join(f", {params}[{row}{j}]" for j in range(len(self.params)))
        return f"{alias}({', '.join(arguments)}{own})"


def bind_params(function: Callable, arguments: tuple[str, ...], given: dict, where: str,
                label: str) -> tuple[tuple[str, float], ...]:
    """(name, value) of ``function``'s own parameters, those after its fixed ``arguments``:
    the ``given`` values, else the function's defaults.  Refuses (``ConfigError`` at
    ``where``, naming ``label`` = file:function) a function that does not take ``arguments``
    first in this order, takes *args or **kwargs, or is given unknown or too few values."""
    parameters = inspect.signature(function).parameters
    names = list(parameters)
    if tuple(names[: len(arguments)]) != arguments or any(
        p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters.values()
    ):
        raise ConfigError(f"{where}: {label} must take the arguments {list(arguments)} first, in this order, "
                          f"then its own parameters by name (no *args or **kwargs); it takes {names}")
    own = names[len(arguments):]
    unknown = sorted(set(given) - set(own))
    if unknown:
        raise ConfigError(f"{where}.params: {unknown} are not parameters of {label}; its parameters: {own}")
    missing = [p for p in own if p not in given and parameters[p].default is inspect.Parameter.empty]
    if missing:
        raise ConfigError(f"{where}.params: {label} needs a value for {missing}")
    return tuple((p, float(given[p] if p in given else parameters[p].default)) for p in own)


def user_function(kind: type[UserFunction], name: str, entry: dict, where: str,
                  arguments: tuple[str, ...], **fields) -> tuple[UserFunction, Callable, str]:
    """(the ``kind`` of ``entry`` = {file, function, params, [sha256]}, its Python function,
    its label file:function): the file loaded (``load_function``) and the function bound to
    its parameters (``bind_params``); ``fields``: the kind's own fields."""
    function = load_function(entry["file"], entry["function"], entry.get("sha256"), where=where)
    label = f"{entry['file']}:{entry['function']}"
    values = bind_params(function, arguments, entry.get("params", {}), where, label)
    made = kind(name, entry["function"], values, file=entry["file"], sha256=file_digest(entry["file"]), **fields)
    return made, function, label


def probe_values(function: Callable, params: tuple[float, ...], points: Iterable[tuple], arguments: tuple[str, ...],
                 where: str, label: str) -> Iterator[tuple[tuple, object]]:
    """(point, value) of ``function`` compiled by Numba (nopython) at each point of fixed
    ``arguments`` with the own ``params``; refuses (``ConfigError`` at ``where``, naming
    ``label``) code Numba cannot compile and a call that raises, with its point."""
    compiled = numba.njit(function)
    for point in points:
        try:
            value = compiled(*point, *params)
        except numba.core.errors.NumbaError as error:  # its whole message, without its terminal colours
            message = re.sub(r"\x1b\[[0-9;]*m", "", str(error)).strip()
            raise ConfigError(f"{where}: Numba cannot compile {label}:\n{message}") from None
        except Exception as error:
            raise ConfigError(f"{where}: {label} raises {type(error).__name__}: {error} at "
                              f"{dict(zip(arguments, point, strict=True))}") from None
        yield point, value
