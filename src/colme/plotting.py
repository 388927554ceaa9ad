"""Paper-style figures from tidy tables, with provenance in the PDF metadata."""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from .provenance import atomic_savefig  # noqa: E402

#: Line style per decision rule, as in seed 002 Fig. 1.
RULE_STYLES = {"oracle": "-", "bernstein": ":", "optimistic": "-."}
BENCHMARK_STYLES = {"local": ("tab:green", "--"), "ideal": ("#b8860b", "--")}


def _eps_label(eps: float) -> str:
    return r"$\epsilon=\infty$" if math.isinf(eps) else rf"$\epsilon={eps:g}$"


def _consensus_styles(simulated: pd.DataFrame) -> tuple[dict, list]:
    """Colour per eps, line style per decision rule (seed 002 Fig. 1)."""
    eps_values = sorted(simulated["eps"].unique())
    palette = dict(zip(eps_values, sns.color_palette("colorblind", len(eps_values))))
    styles = {
        name: (palette[rows["eps"].iloc[0]], RULE_STYLES.get(rows["rule"].iloc[0], "-"))
        for name, rows in simulated.groupby("curve")
    }
    handles = [plt.Line2D([], [], color=palette[e], lw=2, label=_eps_label(e)) for e in eps_values]
    rules = [r for r in RULE_STYLES if r in set(simulated["rule"])]
    handles += [plt.Line2D([], [], color="k", ls=RULE_STYLES[r], label=r) for r in rules]
    return styles, handles


def _private_colme_styles(simulated: pd.DataFrame) -> tuple[dict, list]:
    """Colour per mechanism/weights/noise, solid for RR and dashed for rRR (seed 004)."""
    simulated = simulated.assign(scheme=simulated["curve"].str.split(" ", n=1).str[1])
    schemes = list(dict.fromkeys(simulated["scheme"]))
    palette = dict(zip(schemes, sns.color_palette("colorblind", len(schemes))))
    dashes = {"rr": "-", "rrr": "--"}
    styles = {
        name: (palette[rows["scheme"].iloc[0]], dashes[rows["schedule"].iloc[0]])
        for name, rows in simulated.groupby("curve")
    }
    handles = [plt.Line2D([], [], color=palette[s], lw=2, label=s) for s in schemes]
    for schedule in dict.fromkeys(simulated["schedule"]):
        label = "RR" if schedule == "rr" else "rRR"
        handles.append(plt.Line2D([], [], color="k", ls=dashes[schedule], label=label))
    return styles, handles


def plot_mse_panel(table: pd.DataFrame, title: str, metadata: dict, pdf: Path, png: Path) -> None:
    """Log-scale average MSE vs t in the papers' style, benchmarks dashed.

    Private-C-ColME: a colour per eps, a line style per rule, Theorem 1 asymptotes faint.
    Private-ColME (simulated or analytic): a colour per scheme, solid RR and dashed rRR.  ``metadata``
    (parameters, runs, seed, interpretations, versions) goes into the PDF's Subject field.
    """
    is_colme = "schedule" in table.columns
    simulated = table[table["kind"] == "simulated"] if not is_colme else table[table["schedule"].notna()]
    styles, handles = (_private_colme_styles if is_colme else _consensus_styles)(simulated)
    sns.set_theme(style="whitegrid", context="paper")
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for name, curve in simulated.groupby("curve", sort=False):
        colour, style = styles[name]
        ax.plot(curve["t"], curve["mse"], style, color=colour, lw=1.2)
    eps_colours = {} if is_colme else {h.get_label(): h.get_color() for h in handles}
    for eps, curve in table[table["rule"] == "theorem1"].groupby("eps"):
        colour = eps_colours.get(_eps_label(eps), "grey")
        ax.plot(curve["t"], curve["mse"], "-", color=colour, lw=3, alpha=0.18)
    for rule, (colour, style) in BENCHMARK_STYLES.items():
        curve = table[table["rule"] == rule]
        ax.plot(curve["t"], curve["mse"], style, color=colour, lw=1.4)
    handles += [
        plt.Line2D([], [], color=c, ls=s, label=r.capitalize()) for r, (c, s) in BENCHMARK_STYLES.items()
    ]
    if (table["rule"] == "theorem1").any():
        handles.append(plt.Line2D([], [], color="grey", lw=3, alpha=0.3, label="Theorem 1 (oracle)"))
    ax.legend(handles=handles, fontsize=7, ncol=2, loc="upper right")
    ax.set_yscale("log")
    ax.set_xlabel("Time $t$")
    ax.set_ylabel("Average MSE")
    ax.set_xlim(0, table["t"].max())
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, title, metadata, pdf, png)


def plot_diagnostics(diagnostics: pd.DataFrame, title: str, metadata: dict, pdf: Path, png: Path) -> None:
    """One panel per diagnostic quantity against t, a line per curve (mean over runs, with
    a band of 2 standard errors); ``metadata`` goes into the PDF's Subject field."""
    quantities = list(dict.fromkeys(diagnostics["quantity"]))
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(1, len(quantities), figsize=(4.2 * len(quantities), 3.8), squeeze=False)
    palette = dict(zip(dict.fromkeys(diagnostics["curve"]),
                       sns.color_palette("colorblind", diagnostics["curve"].nunique())))
    for ax, quantity in zip(axes[0], quantities):
        rows = diagnostics[diagnostics["quantity"] == quantity]
        for curve, line in rows.groupby("curve", sort=False):
            style = "--" if curve.startswith("rRR") else "-"
            ax.plot(line["t"], line["value"], style, color=palette[curve], lw=1.2, label=curve)
            band = 2 * line["se"].fillna(0.0)
            ax.fill_between(line["t"], line["value"] - band, line["value"] + band,
                            color=palette[curve], alpha=0.15, lw=0)
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
