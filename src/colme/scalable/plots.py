"""How C-ColME and B-ColME panels are drawn: a colour per algorithm (B-ColME per depth),
a line style per decision rule and privacy level."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from ..aggregation import panel_rows
from ..plotting import STYLE_KEY_COLOUR, PanelStyle, palette

#: Line styles per (rule, private): the optimistic rule solid, the oracle dotted; private dashed.
STYLES = {("optimistic", False): "-", ("oracle", False): ":", ("optimistic", True): "-.", ("oracle", True): (0, (1, 3))}


def _private(rows: pd.DataFrame) -> bool:
    """Whether a curve has privacy: a finite eps, or a mix (eps NaN)."""
    return not math.isinf(rows["eps"].iloc[0])


def _label(rows: pd.DataFrame) -> str:
    algorithm = rows["algorithm"].iloc[0]
    return "C-ColME" if algorithm == "c_colme" else f"B-ColME d={int(rows['depth'].iloc[0])}"


def panel_style(table: pd.DataFrame) -> PanelStyle:
    """A colour per algorithm (B-ColME per depth), a line style per rule and privacy (a
    privacy mix counts as private), for a table's panel rows (a grouped table's groups are
    in its CSV)."""
    simulated = panel_rows(table)
    simulated = simulated[simulated["kind"] == "simulated"]
    groups = {name: rows for name, rows in simulated.groupby("curve", sort=False)}
    algorithms = list(dict.fromkeys(_label(rows) for rows in groups.values()))
    colours = palette(algorithms)
    lines = {}
    for name, rows in groups.items():
        private = _private(rows)
        lines[name] = (colours[_label(rows)], STYLES[(rows["rule"].iloc[0], private)])
    handles = [plt.Line2D([], [], color=colours[a], lw=2, label=a) for a in algorithms]
    kinds = dict.fromkeys((rows["rule"].iloc[0], _private(rows)) for rows in groups.values())
    for rule, private in kinds:
        label = rule + (", private" if private else "")
        handles.append(plt.Line2D([], [], color=STYLE_KEY_COLOUR, ls=STYLES[(rule, private)], label=label))
    return PanelStyle(simulated, lines, handles)
