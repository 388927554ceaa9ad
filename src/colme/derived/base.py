"""What the figures made from other figures share: their schema and the registry they
are handed (``colme.registry`` makes them with it; they never import it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..engines import Engine


class DerivedEngine(Engine):
    """An engine whose figures read other figures' tables, found through ``engines``."""

    schema = Path(__file__).with_name("schema.yaml")
    unused_globals = frozenset({"precision", "seed", "population"})

    def __init__(self, engines: Mapping[str, Engine]) -> None:
        self.engines = engines

    def numeric_params(self, settings: dict) -> dict:
        """The settings that determine this figure's numbers, less every ``chunk_runs`` its
        figures are given (a sweep's or a world's ``set``): how runs are chunked never
        changes a table, so changing it reruns none."""
        return _without_chunking(super().numeric_params(settings))


def _without_chunking(value):
    if isinstance(value, Mapping):
        return {key: _without_chunking(item) for key, item in value.items() if key != "chunk_runs"}
    if isinstance(value, list):
        return [_without_chunking(item) for item in value]
    return value
