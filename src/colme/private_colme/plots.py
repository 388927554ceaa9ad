"""How Private-ColME panels are drawn (Yakimenka et al. 2024, arXiv:2411.07094, Figs. 2-4):
a colour per mechanism/weights/noise scheme, solid for RR and dashed for rRR."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ..plotting import STYLE_KEY_COLOUR, PanelStyle, palette

SCHEDULE_STYLES = {"rr": "-", "rrr": "--"}
SCHEDULE_LABELS = {"rr": "RR", "rrr": "rRR"}


def panel_style(table: pd.DataFrame) -> PanelStyle:
    """Simulated and exact tables alike: the curves are the rows with a query schedule."""
    curves = table[table["schedule"].notna()]
    curves = curves.assign(scheme=curves["curve"].str.split(" ", n=1).str[1])
    schemes = list(dict.fromkeys(curves["scheme"]))
    colours = palette(schemes)
    lines = {
        name: (colours[rows["scheme"].iloc[0]], SCHEDULE_STYLES[rows["schedule"].iloc[0]])
        for name, rows in curves.groupby("curve")
    }
    handles = [plt.Line2D([], [], color=colours[s], lw=2, label=s) for s in schemes]
    for schedule in dict.fromkeys(curves["schedule"]):
        handles.append(plt.Line2D([], [], color=STYLE_KEY_COLOUR, ls=SCHEDULE_STYLES[schedule],
                                  label=SCHEDULE_LABELS[schedule]))
    return PanelStyle(curves, lines, handles)
