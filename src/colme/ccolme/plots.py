"""How Private-C-ColME panels are drawn (seed 002 Fig. 1): a colour per eps, a line style
per decision rule, Theorem 1's asymptotes as faint bands in their eps's colour."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from ..plotting import PanelStyle, palette

#: Line style per decision rule, as in seed 002 Fig. 1.
RULE_STYLES = {"oracle": "-", "bernstein": ":", "optimistic": "-."}


def _eps_label(eps: float) -> str:
    return r"$\epsilon=\infty$" if math.isinf(eps) else rf"$\epsilon={eps:g}$"


def panel_style(table: pd.DataFrame) -> PanelStyle:
    simulated = table[table["kind"] == "simulated"]
    eps_values = sorted(simulated["eps"].unique())
    colours = palette(eps_values)
    lines = {
        name: (colours[rows["eps"].iloc[0]], RULE_STYLES.get(rows["rule"].iloc[0], "-"))
        for name, rows in simulated.groupby("curve")
    }
    handles = [plt.Line2D([], [], color=colours[e], lw=2, label=_eps_label(e)) for e in eps_values]
    rules = [r for r in RULE_STYLES if r in set(simulated["rule"])]
    handles += [plt.Line2D([], [], color="k", ls=RULE_STYLES[r], label=r) for r in rules]
    eps_colours = {_eps_label(e): colours[e] for e in eps_values}
    bands = [
        (rows, eps_colours.get(_eps_label(eps), "grey"))
        for eps, rows in table[table["rule"] == "theorem1"].groupby("eps")
    ]
    return PanelStyle(simulated, lines, handles, bands, "Theorem 1 (oracle)")
