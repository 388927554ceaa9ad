"""The engine registry: one line per engine.  Adding an engine is a subpackage that
defines an ``Engine`` subclass (``colme.engines``) and one line here
(``docs/adding_an_engine.md``).  The first engine is the default of a figure entry that
names none.

The figures made from other figures (``colme.derived``: zoom, scaling, sweep) are handed
this registry when they are made, to find the engines of the figures they read; they
never import it.  An engine that leaves one of its roles' abstract methods undefined
cannot be made (Python's ``TypeError`` names the class and the methods), so it never
reaches the registry; registering checks the rest of the contract (name, schema).

Also here: what the core asks of a figure through its engine (stage params, caption).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator, MutableMapping

from .engines import Engine
from .provenance import format_caption

#: Engine names kept for old configs: old name -> current name.
ALIASES = {"colme": "private_colme"}


class EngineContractError(TypeError):
    """An engine that does not answer the interface it is registered under."""


class Registry(MutableMapping):
    """Engines by name, in registration order; setting one checks its contract.

    An engine may also be registered by name with the function that makes it
    (``register_lazy``): it is made, and its contract checked, when first looked up, so a
    job that needs one engine imports that engine's modules only (a simulate job's
    start-up: numpy and numba, without pandas).
    """

    def __init__(self) -> None:
        self._engines: dict[str, Engine | Callable[[], Engine]] = {}  # an engine, or its maker

    def __getitem__(self, name: str) -> Engine:
        if not isinstance(self._engines[name], Engine):
            self[name] = self._engines[name]()
        return self._engines[name]

    def __setitem__(self, name: str, engine: Engine) -> None:
        if name != engine.name:
            raise EngineContractError(f"engine {engine.name!r} registered under another name, {name!r}")
        if not isinstance(engine, Engine):
            raise EngineContractError(f"engine {name!r} is a {type(engine).__qualname__}, not a colme.engines.Engine")
        if not engine.figure_schema:
            raise EngineContractError(f"engine {name!r} names no figure_schema (its figures' schema definition)")
        self._engines[name] = engine

    def __delitem__(self, name: str) -> None:
        del self._engines[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._engines)

    def __len__(self) -> int:
        return len(self._engines)

    def register(self, engine: Engine) -> Engine:
        self[engine.name] = engine
        return engine

    def register_lazy(self, name: str, make: Callable[[], Engine]) -> None:
        """Register the engine ``make()`` under ``name``, made at its first lookup."""
        self._engines[name] = make


def _built_in(module: str, cls: str, derived: bool = False) -> Callable[[], Engine]:
    """The maker of built-in engine ``cls`` of ``colme.<module>`` (a derived engine is
    handed the registry)."""

    def make() -> Engine:
        engine_class = getattr(importlib.import_module(f".{module}", __package__), cls)
        return engine_class(ENGINES) if derived else engine_class()

    return make


ENGINES = Registry()
for _name, _make in (
    ("ccolme", _built_in("ccolme.engine", "ConsensusEngine")),  # Private-C-ColME (default)
    ("private_colme", _built_in("private_colme.engine", "PrivateColmeEngine")),  # Private-ColME, simulated
    ("oracle", _built_in("private_colme.engine", "OracleEngine")),  # Private-ColME's Proposition 3 / Remark 3, exact
    ("zoom", _built_in("derived.zoom", "ZoomEngine", derived=True)),  # a view of another figure's table
    ("pricer", _built_in("pricer.engine", "PricerEngine")),  # PriCER
    # simulated figures side by side, and their time per step against M
    ("scaling", _built_in("derived.scaling", "ScalingEngine", derived=True)),
    # a figure over one or two parameters, each point a simulated figure
    ("sweep", _built_in("derived.sweeps", "SweepEngine", derived=True)),
    ("scalable", _built_in("scalable.engine", "ScalableEngine")),  # C-ColME and B-ColME (Galante et al., AAAI 2025)
    # the curves of figures drawing the same streams, in one panel
    ("overlay", _built_in("derived.overlay", "OverlayEngine", derived=True)),
    # algorithms x worlds x eps, each cell a simulated figure
    ("scorecard", _built_in("derived.scorecard", "ScorecardEngine", derived=True)),
):
    ENGINES.register_lazy(_name, _make)


def canonical_engine(name: str, where: str) -> str:
    """The current name of engine ``name`` (an old alias is accepted, with a warning
    naming the key ``where``)."""
    if name in ALIASES:
        warnings.warn(
            f"config key {where}: engine {name!r} is the old name of {ALIASES[name]!r}; write engine: {ALIASES[name]}",
            FutureWarning,
            stacklevel=3,
        )
        return ALIASES[name]
    return name


def engine_of(settings: dict) -> Engine:
    return ENGINES[settings["engine"]]


def stage_params(settings: dict, stage: str, start: int | None = None, stop: int | None = None) -> dict:
    """What determines the output of one workflow stage of a figure (its rule's params).

    ``instances``: the instance model, seed and run range; ``simulate``: every numeric
    setting and the run range; ``table``: every numeric setting and, for simulated
    figures, the run count; ``figure``: that plus the drawing keys (title).
    """
    engine = engine_of(settings)
    if stage == "instances":
        return {**engine.instance_params(settings), "run_range": [start, stop]}
    numeric = engine.numeric_params(settings)
    if stage == "simulate":
        return {**numeric, "run_range": [start, stop]}
    table = {**numeric, **({"runs": settings["runs"]} if engine.simulated else {})}
    if stage == "table":
        return table
    if stage == "figure":
        return {**table, **{key: settings[key] for key in engine.drawing_keys}, **engine.drawing_options(settings)}
    raise ValueError(f"unknown stage {stage!r}; stages: instances, simulate, table, figure")


def figure_caption(figure: str, settings: dict) -> str:
    """Report caption: the figure's params and the choices made where its paper is silent."""
    params = stage_params(settings, "figure")
    return format_caption(settings["title"] or figure, params, engine_of(settings).figure_interpretations(settings))
