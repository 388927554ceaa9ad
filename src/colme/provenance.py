"""Provenance and safe writes: canonical parameters, atomic files, sidecars, versions, captions.

One module for what every figure records, whatever its engine: the parameters that made
it (as canonical JSON, the same text the workflow compares to decide reruns), the
choices made where the paper is silent, the package versions and the compute seconds
(one key, ``compute_seconds``, for every figure).  Every output is written to a
temporary file and renamed, so a path either holds a complete file or does not exist.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import platform
import re
from pathlib import Path

import numpy as np

PACKAGES = ("colme", "numpy", "scipy", "numba", "networkx", "pandas", "matplotlib", "seaborn", "snakemake")


def _plain(value):
    """JSON-ready value: numpy scalars and arrays to Python, non-finite floats to strings."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else "-inf" if value < 0 else "nan"
    return value


def canonical_json(value) -> str:
    """The canonical text of a parameter set: sorted keys, no whitespace, inf as "inf".

    Two configs that differ only by key order give the same text, so the workflow
    reruns a job only when what determines its output changed.
    """
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"))


def read_params(text: str) -> dict:
    """Inverse of ``canonical_json`` for settings ("inf" back to float infinity)."""
    def restore(v):
        if isinstance(v, dict):
            return {k: restore(x) for k, x in v.items()}
        if isinstance(v, list):
            return [restore(x) for x in v]
        if v in ("inf", "-inf", "nan"):
            return float(v)
        return v

    return restore(json.loads(text))


def _atomic(path: str | Path, write) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write a text file atomically (temporary file + rename)."""
    _atomic(path, lambda tmp: tmp.write_text(text))


def atomic_savez(path: str | Path, **arrays) -> None:
    """Write an .npz so that ``path`` either holds the complete file or does not exist."""

    def write(tmp):
        with open(tmp, "wb") as handle:
            np.savez(handle, **arrays)

    _atomic(path, write)


def atomic_savefig(fig, path: str | Path, **kwargs) -> None:
    """``fig.savefig`` through a temporary file of the same extension, then rename."""
    path = Path(path)
    _atomic(path, lambda tmp: fig.savefig(tmp, format=path.suffix.lstrip("."), **kwargs))


def write_json(path: str | Path, data: dict) -> None:
    atomic_write_text(path, json.dumps(_plain(data), indent=2) + "\n")


def package_versions() -> dict[str, str]:
    """Versions of the packages that made a result (missing ones are reported as such)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def table_provenance(figure: str, settings: dict, interpretations, runs: int, compute_seconds: float, **extra) -> dict:
    """The provenance a table stage writes next to its table (``<figure>.json``)."""
    return {
        "figure": figure,
        "settings": _plain(settings),
        "runs": int(runs),
        "compute_seconds": float(compute_seconds),
        "interpretations": list(interpretations),
        **_plain(extra),
        "versions": package_versions(),
    }


def figure_provenance(table_meta: dict, title: str, drawing: dict | None = None) -> dict:
    """A figure's sidecar: its table's provenance plus the title it was drawn with and the
    drawing options it was drawn with, if any (``Engine.drawing_options``)."""
    return {**table_meta, "title": title, **({"drawing": drawing} if drawing else {}), "versions": package_versions()}


# Characters that open reStructuredText inline markup (emphasis, literals, substitutions
# such as |C_b^(t)|, references); a backslash makes docutils print them as they are.
_RST_INLINE = re.compile(r"([\\*`|_])")


def rst_text(text: str) -> str:
    """``text`` as literal reStructuredText, whatever markup characters it holds."""
    return _RST_INLINE.sub(r"\\\1", str(text))


def format_caption(title: str, settings: dict, choices) -> str:
    """reStructuredText caption: bold title, one bullet per setting, then the choices made.

    Titles, values and choices are escaped, so a choice's ``|C_b^(t)|`` is printed, not
    taken for an undefined substitution (docutils would put an error box in the report)."""
    lines = [f"**{rst_text(title)}**", ""]
    lines += [
        f"- ``{key}``: {rst_text(value if isinstance(value, str) else canonical_json(value))}"
        for key, value in sorted(settings.items())
        if key != "title"
    ]
    lines += ["", "Choices where the paper is silent:", ""]
    lines += [f"- {rst_text(choice)}" for choice in choices]
    return "\n".join(lines)


def vector_isa(features: set[str]) -> str:
    """The widest x86 vector ISA among CPU feature flags (speed figures depend on it)."""
    for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"), ("sse4.2", "SSE4.2")):
        if flag in features:
            return name
    return "SSE2"


def host_cpu() -> tuple[str, set[str]]:
    """(CPU model, feature flags) of this machine's first processor in /proc/cpuinfo."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = {f.replace("_", ".") if f.startswith("sse4") else f for f in fields.get("flags", "").split()}
    return fields.get("model name") or platform.processor() or "unknown", flags
