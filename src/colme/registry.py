"""The engine registry: one line per engine.  Adding an engine is a subpackage that
defines an ``Engine`` subclass (``colme.engines``) and one line here
(``docs/adding_an_engine.md``).  The first engine is the default of a figure entry that
names none.

Also here: what the core asks of a figure through its engine (stage params, caption).
"""

from __future__ import annotations

from .ccolme.engine import ConsensusEngine
from .engines import Engine
from .pricer.engine import PricerEngine
from .private_colme.engine import OracleEngine, PrivateColmeEngine
from .provenance import format_caption
from .scaling import ScalingEngine
from .sweeps import SweepEngine
from .zoom import ZoomEngine

ENGINES: dict[str, Engine] = {
    engine.name: engine
    for engine in (
        ConsensusEngine(),  # seed 002, Private-C-ColME (default)
        PrivateColmeEngine(),  # seed 004, Private-ColME, simulated
        OracleEngine(),  # seed 004, Proposition 3 / Remark 3, exact
        ZoomEngine(),  # a view of another figure's table
        PricerEngine(),  # seed 003, PriCER
        ScalingEngine(),  # simulated figures side by side, and their time per step against M
        SweepEngine(),  # a figure over one or two parameters, each point a simulated figure
    )
}


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
        return {**table, **{key: settings[key] for key in engine.drawing_keys}}
    raise ValueError(f"unknown stage {stage!r}; stages: instances, simulate, table, figure")


def figure_caption(figure: str, settings: dict) -> str:
    """Report caption: the figure's params and the choices made where its paper is silent."""
    params = stage_params(settings, "figure")
    return format_caption(settings["title"] or figure, params, engine_of(settings).figure_interpretations(settings))
