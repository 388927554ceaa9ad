"""Paper-style figures from tidy tables, with provenance in the PDF metadata."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .provenance import atomic_savefig

#: Local and Ideal (rule ``local`` / ``ideal``): dashed, in every MSE panel.
BENCHMARK_STYLES = {"local": ("tab:green", "--"), "ideal": ("#b8860b", "--")}


@dataclass
class PanelStyle:
    """How an engine's MSE-vs-t table is drawn.

    ``curves``: the rows drawn as the panel's curves, one line per ``curve``, with the
    colour and line style of ``lines[curve]``; ``handles``: their legend entries; ``bands``:
    faint wide lines (e.g. asymptotes), each rows and a colour, listed in the legend as
    ``band_label``.  Local and Ideal are drawn for every engine.
    """

    curves: pd.DataFrame
    lines: dict
    handles: list
    bands: list = field(default_factory=list)
    band_label: str | None = None


def palette(values) -> dict:
    """A colour-blind-safe colour per value, in order."""
    values = list(values)
    return dict(zip(values, sns.color_palette("colorblind", len(values)), strict=True))


def plot_mse_panel(table: pd.DataFrame, style: PanelStyle, title: str, metadata: dict, pdf: Path, png: Path) -> None:
    """Log-scale average MSE vs t in the papers' style, Local and Ideal dashed.

    ``style`` (the engine's ``panel_style``) says which rows are curves and how each is
    drawn.  ``metadata`` (parameters, runs, seed, interpretations, versions) goes into the
    PDF's Subject field.
    """
    sns.set_theme(style="whitegrid", context="paper")
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    draw_mse_axes(ax, table, style, title)
    fig.tight_layout()
    save_figure(fig, title, metadata, pdf, png)


def draw_mse_axes(ax, table: pd.DataFrame, style: PanelStyle, title: str, legend: bool = True) -> None:
    """One MSE-vs-t panel on ``ax`` (see ``plot_mse_panel``)."""
    for name, curve in style.curves.groupby("curve", sort=False):
        colour, line = style.lines[name]
        ax.plot(curve["t"], curve["mse"], line, color=colour, lw=1.2)
    for rows, colour in style.bands:
        ax.plot(rows["t"], rows["mse"], "-", color=colour, lw=3, alpha=0.18)
    for rule, (colour, line) in BENCHMARK_STYLES.items():
        curve = table[table["rule"] == rule]
        ax.plot(curve["t"], curve["mse"], line, color=colour, lw=1.4)
    handles = style.handles + [
        plt.Line2D([], [], color=c, ls=s, label=r.capitalize()) for r, (c, s) in BENCHMARK_STYLES.items()
    ]
    if style.bands and style.band_label:
        handles.append(plt.Line2D([], [], color="grey", lw=3, alpha=0.3, label=style.band_label))
    if legend:
        ax.legend(handles=handles, fontsize=7, ncol=2, loc="upper right")
    ax.set_yscale("log")
    ax.set_xlabel("Time $t$")
    ax.set_ylabel("Average MSE")
    ax.set_xlim(0, table["t"].max())
    ax.set_title(title, fontsize=9)


def plot_diagnostics(
    diagnostics: pd.DataFrame, title: str, metadata: dict, pdf: Path, png: Path, line_styles: dict | None = None
) -> None:
    """One panel per diagnostic quantity against t, a line per curve (mean over runs, with
    a band of 2 standard errors; ``line_styles[curve]``, solid by default); ``metadata``
    goes into the PDF's Subject field."""
    line_styles = line_styles or {}
    quantities = list(dict.fromkeys(diagnostics["quantity"]))
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(1, len(quantities), figsize=(4.2 * len(quantities), 3.8), squeeze=False)
    colours = palette(dict.fromkeys(diagnostics["curve"]))
    for ax, quantity in zip(axes[0], quantities, strict=True):
        rows = diagnostics[diagnostics["quantity"] == quantity]
        for curve, line in rows.groupby("curve", sort=False):
            style = line_styles.get(curve, "-")
            ax.plot(line["t"], line["value"], style, color=colours[curve], lw=1.2, label=curve)
            band = 2 * line["se"].fillna(0.0)
            ax.fill_between(line["t"], line["value"] - band, line["value"] + band,
                            color=colours[curve], alpha=0.15, lw=0)
        ax.set_xlabel("Time $t$")
        ax.set_title(quantity, fontsize=9)
        ax.set_xlim(0, rows["t"].max())
    axes[0][0].legend(fontsize=6, loc="best")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, title, metadata, pdf, png)


def save_figure(
    fig, title: str, metadata: dict, pdf: Path, png: Path,
    keywords: str = "colme; differential privacy; personalized mean estimation",
) -> None:
    """Write PDF (provenance JSON in its Subject field) and PNG atomically, then close the figure."""
    atomic_savefig(
        fig,
        pdf,
        metadata={
            "Title": title,
            "Subject": json.dumps(metadata, default=str),
            "Keywords": keywords,
            "Creator": "colme reproducibility workflow",
        },
    )
    atomic_savefig(fig, png, dpi=150)
    plt.close(fig)
