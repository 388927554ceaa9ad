"""Results that verify themselves: every instance and chunk file names what made it.

The maker of a file is its figure, its stage and the canonical params of the job that
wrote it (a chunk's maker names its instance file's digest too).  The file's path ends in
a digest of the maker (``runs<start>-<stop>-<digest>.npz``) and the file stores the maker
itself as the member ``made_by``.  So a file made under other params sits at another path
(Snakemake computes the one asked for, with or without its own metadata), and a file that
is at the right path but was copied there, renamed or cut short is found out before it is
used: in the DAG (``problem``, then ``quarantine``: the job that makes it runs again) and
in the job that reads it (``load_verified``).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np

from .provenance import canonical_json
from .seeding import stream_name

#: The member of an instance or chunk archive that holds its maker.
MADE_BY = "made_by"
#: Hex digits of the maker's SHA-256 in a file name (64 bits: no collision in practice).
DIGEST_LENGTH = 16
_PATH_DIGEST = re.compile(rf"-([0-9a-f]{{{DIGEST_LENGTH}}})\.npz$")


class StaleResultError(ValueError):
    """A result file that was not made by the job that should have made it."""


def maker(figure: str, stage: str, params: dict, instances: str | None = None) -> str:
    """The canonical text of what makes one file: figure, stage, the job's params and, for
    a chunk, the digest of the instance file it simulates."""
    made_by = {"figure": figure, "stage": stage, "params": params}
    if instances is not None:
        made_by["instances"] = instances
    return canonical_json(made_by)


def digest(made_by: str) -> str:
    """The first ``DIGEST_LENGTH`` hex digits of the maker's SHA-256."""
    return hashlib.sha256(made_by.encode()).hexdigest()[:DIGEST_LENGTH]


def path_digest(path: str | Path) -> str:
    """The digest a file's name carries (``...-<digest>.npz``)."""
    match = _PATH_DIGEST.search(str(path))
    if not match:
        raise StaleResultError(f"{path}: the name carries no maker digest (-<{DIGEST_LENGTH} hex>.npz)")
    return match.group(1)


def stamped(arrays: dict, made_by: str) -> dict:
    """``arrays`` plus the maker, ready for ``atomic_savez``."""
    return {**arrays, MADE_BY: np.array(made_by)}


def differences(found: str, expected: str) -> list[str]:
    """The dotted keys at which two makers differ (values compared after parsing)."""
    def flat(value, prefix=""):
        if isinstance(value, dict):
            items = {}
            for key, item in value.items():
                items.update(flat(item, f"{prefix}{key}."))
            return items
        return {prefix.rstrip("."): value}

    try:
        left, right = flat(json.loads(found)), flat(json.loads(expected))
    except json.JSONDecodeError:
        return ["made_by (unreadable)"]
    return sorted(key for key in left.keys() | right.keys() if left.get(key, None) != right.get(key, None))


def read_maker(path: str | Path) -> str:
    """The maker stored in an archive, after checking every member's CRC.

    Raises ``StaleResultError`` for a truncated or corrupt archive or one without a maker.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            broken = archive.testzip()
            if broken is not None:
                raise StaleResultError(f"{path}: corrupt archive (member {broken} fails its CRC)")
            if f"{MADE_BY}.npy" not in archive.namelist():
                raise StaleResultError(f"{path}: records no maker (written before results verified themselves?)")
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise StaleResultError(f"{path}: not a complete archive (cut short?): {error}") from None
    with np.load(path, allow_pickle=False) as data:
        return str(data[MADE_BY])


def problem(path: str | Path, expected: str) -> str | None:
    """Why the file at ``path`` cannot be trusted as the output of ``expected``; None if it
    can (or does not exist)."""
    if not Path(path).exists():
        return None
    try:
        found = read_maker(path)
    except StaleResultError as error:
        return str(error)
    if found != expected:
        return f"{path}: made under other params (differing keys: {', '.join(differences(found, expected))})"
    return None


def stale_record(meta_path: str | Path, expected: str) -> str | None:
    """Why the outputs whose sidecar is ``meta_path`` (a table's ``<figure>.json``, which
    records its maker under ``made_by``) were not made by the maker ``expected``; None if
    they were (or were never made)."""
    path = Path(meta_path)
    if not path.exists():
        return None
    try:
        recorded = json.loads(path.read_text())[MADE_BY]
    except (json.JSONDecodeError, KeyError, TypeError, OSError):
        return f"{path}: records no maker"
    if recorded != expected:
        return f"{path}: made under other params (differing keys: {', '.join(differences(recorded, expected))})"
    return None


def quarantine(path: str | Path, reason: str, root: str | Path = "results") -> Path:
    """Move an untrusted file to ``<root>/quarantine/`` (never delete it), with the reason
    next to it, so that the job that makes ``path`` runs again."""
    path = Path(path)
    try:
        relative = path.resolve().relative_to(Path(root).resolve())
    except ValueError:
        relative = Path(path.name)
    target = Path(root) / "quarantine" / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(path, target)
    target.with_name(target.name + ".reason.txt").write_text(reason + "\n")
    return target


def load_verified(path: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    """An archive's arrays and its parsed maker, only if it is intact and its maker hashes
    to the digest in its name (else ``StaleResultError``: copied, renamed or cut short)."""
    found = read_maker(path)
    if digest(found) != path_digest(path):
        raise StaleResultError(f"{path}: its maker does not hash to the digest in its name (copied or renamed?)")
    with np.load(path, allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files if key != MADE_BY}
    return arrays, json.loads(found)


def load_simulation(figure: str, params: dict, chunk_paths: list, instance_paths: list) -> tuple[list, list]:
    """The chunks and instance files of a simulated figure's table, each verified.

    ``params`` are the table stage's (the numeric settings and ``runs``).  Every chunk must
    be a ``simulate`` chunk of ``figure`` made with these numeric settings, and simulate one
    of the instance files given; every instance file an ``instances`` file of ``figure``.
    A file that is not raises ``StaleResultError`` naming it and the keys that differ.
    Instance files belong to the figure whose streams they draw (``params["stream"]``).
    """
    numeric = {key: value for key, value in params.items() if key != "runs"}
    instances, instance_digests = [], set()
    for path in instance_paths:
        arrays, made_by = load_verified(path)
        _expect(path, made_by, stream_name(params, figure), "instances")
        instances.append(arrays)
        instance_digests.add(path_digest(path))
    sims = []
    for path in chunk_paths:
        arrays, made_by = load_verified(path)
        _expect(path, made_by, figure, "simulate")
        found = {key: value for key, value in made_by["params"].items() if key != "run_range"}
        if canonical_json(found) != canonical_json(numeric):
            keys = differences(canonical_json(found), canonical_json(numeric))
            raise StaleResultError(f"{path}: made under other params (differing keys: {', '.join(keys)})")
        if made_by.get("instances") not in instance_digests:
            raise StaleResultError(
                f"{path}: simulates instance file {made_by.get('instances')}, not one of this table's"
            )
        sims.append(arrays)
    return sims, instances


def _expect(path, made_by: dict, figure: str, stage: str) -> None:
    for key, value in (("figure", figure), ("stage", stage)):
        if made_by.get(key) != value:
            raise StaleResultError(f"{path}: made for {key} {made_by.get(key)!r}, not {value!r}")
