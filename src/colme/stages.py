"""The chunked stages of a simulated figure as plain functions of their makers.

What the workflow's ``instances`` and ``simulate`` scripts run, and what a test runs to
build a figure without Snakemake: each file is written with its maker inside and a digest
of it in its name (``colme.integrity``), and a chunk reads only the instance file its
maker names.
"""

from __future__ import annotations

from pathlib import Path

from .engines import stream_name
from .integrity import StaleResultError, digest, load_verified, maker, path_digest, stamped
from .provenance import atomic_savez, read_params
from .registry import ENGINES, stage_params

#: The kinds of chunked files, by directory under ``results/``.
KINDS = ("instances", "chunks")


def owner(kind: str, figure: str, settings: dict) -> str:
    """The figure whose directory holds a file of ``kind``: a chunk is its figure's, an
    instance file is the stream's (``stream_name``), shared by every figure drawing it."""
    return stream_name(settings, figure) if kind == "instances" else figure


def makers(figure: str, settings: dict, start: int, stop: int) -> dict[str, str]:
    """The makers of one run range's instance file and chunk (``KINDS``)."""
    instances = maker(
        owner("instances", figure, settings), "instances", stage_params(settings, "instances", start, stop)
    )
    chunk = maker(figure, "simulate", stage_params(settings, "simulate", start, stop), instances=digest(instances))
    return {"instances": instances, "chunks": chunk}


def figure_path(kind: str, figure: str, settings: dict, start: int, stop: int, root: str | Path = "results") -> str:
    """The path of ``figure``'s file of ``kind`` for runs [start, stop)."""
    made_by = makers(figure, settings, start, stop)[kind]
    return result_path(kind, owner(kind, figure, settings), start, stop, made_by, root)


def result_path(kind: str, figure: str, start: int, stop: int, made_by: str, root: str | Path = "results") -> str:
    """Where the file of ``kind`` made by ``made_by`` lives: its name ends in the maker's digest."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    return f"{root}/{kind}/{figure}/runs{start}-{stop}-{digest(made_by)}.npz"


def write_instances(made_by: str, output: str | Path) -> dict:
    """Make the instance file of ``made_by`` (an ``instances`` maker) at ``output``."""
    made = read_params(made_by)
    params = made["params"]
    start, stop = params["run_range"]
    arrays = ENGINES[params["engine"]].instances(params, made["figure"], start, stop)
    atomic_savez(output, **stamped(arrays, made_by))
    return arrays


def write_chunk(made_by: str, instance_path: str | Path, output: str | Path) -> dict:
    """Simulate the chunk of ``made_by`` (a ``simulate`` maker) on the instance file it names."""
    made = read_params(made_by)
    instances, _ = load_verified(instance_path)
    if path_digest(instance_path) != made["instances"]:
        raise StaleResultError(f"{instance_path}: not the instance file {made['instances']} this chunk simulates")
    params = made["params"]
    result = ENGINES[params["engine"]].simulate(params, instances, made["figure"])
    atomic_savez(output, **stamped(result, made_by))
    return result
