"""How Private-C-ColME panels are drawn (Yakimenka et al. 2025, arXiv:2511.04702, Fig. 1): a
colour per eps, a line style per decision rule, Theorem 1's asymptotes as faint bands in
their eps's colour."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from ..aggregation import group_rows, panel_rows
from ..plotting import STYLE_KEY_COLOUR, PanelStyle, palette

#: Line style per decision rule, as in Private-C-ColME Fig. 1.
RULE_STYLES = {"oracle": "-", "bernstein": ":", "optimistic": "-."}
#: Line styles of a researcher's own rules, in the order the panel lists them (none of them
#: Local's or Ideal's dashes).
USER_STYLES = ((0, (5, 1, 1, 1, 1, 1)), (0, (1, 1, 4, 1)), (0, (8, 2, 2, 2)), (0, (1, 2)))


def _eps_label(eps: float) -> str:
    return r"$\epsilon=\infty$" if math.isinf(eps) else rf"$\epsilon={eps:g}$"


def _privacy(rows: pd.DataFrame):
    """A curve's privacy: its eps, or its mix's label (column ``eps_mix``)."""
    mix = rows["eps_mix"].iloc[0] if "eps_mix" in rows else None
    return mix if isinstance(mix, str) else rows["eps"].iloc[0]


def _privacy_label(privacy) -> str:
    if isinstance(privacy, str):
        return r"$\epsilon$ mix " + privacy.replace("inf", r"$\infty$")
    return _eps_label(privacy)


#: Dashes of the groups drawn for a curve (``draw_groups``), in the order of the table
#: (drawn thin in the curve's colour: never Local's or Ideal's black).
GROUP_DASHES = ((0, (1, 1)), (0, (3, 1, 1, 1)), (0, (1, 3)), (0, (3, 1, 1, 1, 1, 1)), (0, (5, 1, 1, 1, 1, 1, 1, 1)))


def with_group_lines(simulated: pd.DataFrame, lines: dict, handles: list, grouped: pd.DataFrame, colour_of):
    """A panel's curves, lines and legend handles with the group rows ``grouped`` drawn
    too: each as curve "<curve> [<group>]", in its curve's colour (``colour_of(curve)``),
    a dash per group (``GROUP_DASHES``) listed once in the legend."""
    if grouped.empty:
        return simulated, lines, handles
    dashes = {group: GROUP_DASHES[i % len(GROUP_DASHES)] for i, group in enumerate(dict.fromkeys(grouped["group"]))}
    named = grouped.assign(curve=grouped["curve"] + " [" + grouped["group"] + "]")
    lines = lines | {f"{curve} [{group}]": (colour_of(curve), dashes[group])
                     for curve, group in dict.fromkeys(zip(grouped["curve"], grouped["group"], strict=True))}
    handles = handles + [plt.Line2D([], [], color=STYLE_KEY_COLOUR, lw=0.8, ls=dash, label=group)
                         for group, dash in dashes.items()]
    return pd.concat([simulated, named], ignore_index=True), lines, handles


def panel_style(table: pd.DataFrame, draw_groups=()) -> PanelStyle:
    """Private-C-ColME Fig. 1's style for a table's panel rows; with ``draw_groups`` (rules),
    those rules' curves also group by group (a grouped table's rows, ``colme.aggregation``):
    thin, in the curve's colour, one dash per group."""
    grouped = group_rows(table)
    grouped = grouped[grouped["rule"].isin(draw_groups) & (grouped["kind"] == "simulated")]
    table = panel_rows(table)
    simulated = table[table["kind"] == "simulated"]
    privacy = {name: _privacy(rows) for name, rows in simulated.groupby("curve", sort=False)}
    levels = sorted({p for p in privacy.values() if not isinstance(p, str)})
    levels += list(dict.fromkeys(p for p in privacy.values() if isinstance(p, str)))  # mixes, as listed
    colours = palette(levels)
    own = [r for r in dict.fromkeys(simulated["rule"]) if r not in RULE_STYLES]
    styles = RULE_STYLES | {r: USER_STYLES[i % len(USER_STYLES)] for i, r in enumerate(own)}
    lines = {
        name: (colours[privacy[name]], styles[rows["rule"].iloc[0]])
        for name, rows in simulated.groupby("curve")
    }
    handles = [plt.Line2D([], [], color=colours[p], lw=2, label=_privacy_label(p)) for p in levels]
    rules = [r for r in styles if r in set(simulated["rule"])]
    handles += [plt.Line2D([], [], color=STYLE_KEY_COLOUR, ls=styles[r], label=r) for r in rules]
    theory = table[table["rule"] == "theorem1"]
    bands = [(rows, colours.get(_privacy(rows), "grey")) for _, rows in theory.groupby("curve", sort=False)]
    simulated, lines, handles = with_group_lines(simulated, lines, handles, grouped,
                                                 lambda curve: colours[privacy[curve]])
    return PanelStyle(simulated, lines, handles, bands, "Theorem 1 (oracle)")
