"""Seeds derived from (root seed, figure, run, stream): independent of chunking and executor.

Every run draws its instance (classes, graph) and its data from generators keyed by the
run's global index, so a run's numbers never depend on which chunk, job or core ran it.
"""

from __future__ import annotations

import hashlib

import numpy as np

#: A run's streams: its instance (classes, graph), its data, its population draws (mean
#: jitter) and its privacy ranks (who gets which eps of a mix).
STREAMS = {"instance": 0, "data": 1, "population": 2, "privacy": 3}


def figure_key(figure: str) -> int:
    """A stable 32-bit integer naming a figure (sha256 of its name), for spawn keys."""
    return int.from_bytes(hashlib.sha256(figure.encode()).digest()[:4], "little")


def run_generator(root_seed: int, figure: str, run: int, stream: str) -> np.random.Generator:
    """PCG64 generator of one run's ``stream`` ("instance" or "data")."""
    sequence = np.random.SeedSequence(
        entropy=root_seed, spawn_key=(figure_key(figure), run, STREAMS[stream])
    )
    return np.random.Generator(np.random.PCG64(sequence))


def figure_generator(root_seed: int, figure: str) -> np.random.Generator:
    """PCG64 generator of a figure computed in one piece (no runs), keyed by its name."""
    sequence = np.random.SeedSequence(entropy=root_seed, spawn_key=(figure_key(figure),))
    return np.random.Generator(np.random.PCG64(sequence))


def stream_name(params: dict, figure: str) -> str:
    """Whose random streams a figure draws: its own, or (``stream``) those of another
    figure (a sensitivity variant's figure, a sweep's base), so that both are paired run
    by run and share instance files."""
    return params.get("stream") or figure
