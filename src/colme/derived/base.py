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
