"""Paper-style figures from tidy tables, with provenance in the PDF metadata."""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import TwoSlopeNorm

from .provenance import atomic_savefig

#: Decades of log10(MSE / Local) at which a sweep heatmap's colours saturate.
HEATMAP_DECADES = 2.0
#: Local and Ideal (rule ``local`` / ``ideal``), in every MSE panel: black, dashed and dotted.
#: No curve is black (``palette``), so a curve never looks like either.
BENCHMARK_STYLES = {"local": ("black", "--"), "ideal": ("black", ":")}
#: Other closed-form curves of a sweep (e.g. Theorem 1): grey, dash-dotted.
CLOSED_FORM_STYLE = ("0.45", "-.")
#: The colour of a legend entry that stands for a line style (a rule, a query schedule):
#: grey, which no curve has (``palette``) and Local and Ideal have not.
STYLE_KEY_COLOUR = "0.4"


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
    """A colour per value, in order: colour-blind safe up to 9 values (seaborn's
    ``colorblind``), ``tab20`` beyond (repeated past 17).  Never black or grey: black is
    Local's and Ideal's, grey a line style's legend entry (``STYLE_KEY_COLOUR``)."""
    values = list(values)
    base = [c for c in sns.color_palette("colorblind" if len(values) <= 9 else "tab20") if max(c) - min(c) > 0.15]
    return {value: base[index % len(base)] for index, value in enumerate(values)}


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
        ax.plot(curve["t"], curve["mse"], linestyle=line, color=colour, lw=1.2)
    for rows, colour in style.bands:
        ax.plot(rows["t"], rows["mse"], "-", color=colour, lw=3, alpha=0.18)
    for rule, (colour, line) in BENCHMARK_STYLES.items():
        curve = table[table["rule"] == rule]
        ax.plot(curve["t"], curve["mse"], line, color=colour, lw=1.4)
    handles = style.handles + [  # only those the table has (a world from a data file has no Ideal)
        plt.Line2D([], [], color=c, ls=s, label=r.capitalize()) for r, (c, s) in BENCHMARK_STYLES.items()
        if (table["rule"] == r).any()
    ]
    if style.bands and style.band_label:
        handles.append(plt.Line2D([], [], color="grey", lw=3, alpha=0.3, label=style.band_label))
    if legend:
        ax.legend(handles=handles, fontsize=7, ncol=2, loc="upper right")
    ax.set_yscale("log")
    ax.set_xlabel("Time $t$")
    ax.set_ylabel("Average MSE")
    ax.set_xlim(0, table["t"].max())
    ax.set_title(wrapped(title, 88), fontsize=9)


def plot_diagnostics(
    diagnostics: pd.DataFrame, title: str, metadata: dict, pdf: Path, png: Path, line_styles: dict | None = None,
    log_quantities: frozenset = frozenset(),
) -> None:
    """One panel per diagnostic quantity against t, a line per curve (mean over runs, with
    a band of 2 standard errors; ``line_styles[curve]``, solid by default); the panels of
    ``log_quantities`` on a log y axis where some value is positive (zeros, and bands that
    reach 0, are not drawn there); ``metadata`` goes into
    the PDF's Subject field."""
    line_styles = line_styles or {}
    quantities = list(dict.fromkeys(diagnostics["quantity"]))
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(1, len(quantities), figsize=(4.2 * len(quantities), 3.8), squeeze=False)
    colours = palette(dict.fromkeys(diagnostics["curve"]))
    for ax, quantity in zip(axes[0], quantities, strict=True):
        rows = diagnostics[diagnostics["quantity"] == quantity]
        log = quantity in log_quantities and bool((rows["value"] > 0).any())
        for curve, line in rows.groupby("curve", sort=False):
            style = line_styles.get(curve, "-")
            ax.plot(line["t"], line["value"], style, color=colours[curve], lw=1.2, label=curve)
            band = 2 * line["se"].fillna(0.0)
            lower = line["value"] - band
            if log:  # a band reaching 0 has no place on a log axis: drawn where it stays positive
                lower = lower.where(lower > 0)
            ax.fill_between(line["t"], lower, line["value"] + band, color=colours[curve], alpha=0.15, lw=0)
        ax.set_xlabel("Time $t$")
        ax.set_title(quantity, fontsize=9)
        ax.set_xlim(0, rows["t"].max())
        if log:
            ax.set_yscale("log", nonpositive="mask")
    handles = {}  # every curve once, those drawn in one panel only (Local) included
    for ax in axes[0]:
        handles |= dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    axes[0][0].legend(handles.values(), handles.keys(), fontsize=6, loc="best")
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


def wrapped(title: str, width: int) -> str:
    """A title's lines (title, subtitle) each wrapped at ``width`` characters."""
    return "\n".join(textwrap.fill(line, width) for line in title.splitlines())


def log_axis(values, scale: str = "auto") -> bool:
    """Whether a sweep's axis is logarithmic: ``scale`` log, or auto with every finite value
    > 0, or with values >= 0 whose positive ones span a decade or more."""
    finite = sorted(float(v) for v in values if float(v) != float("inf"))
    positive = [v for v in finite if v > 0]
    if scale != "auto":
        return scale == "log"
    if not finite or finite[0] < 0:
        return False
    return finite[0] > 0 or (len(positive) > 1 and positive[-1] >= 10 * positive[0])


def axis_positions(values, scale: str = "auto") -> tuple[list[float], list[str], bool]:
    """Where a sweep's axis values are drawn, their tick labels and whether the axis is
    logarithmic (``log_axis``).  +inf is drawn one step beyond the largest finite value
    (the ratio of the last two, or 2), labelled with the infinity sign; on a log axis, 0 one
    step below the smallest positive value (the ratio of the first two, or 10)."""
    values = [float(v) for v in values]
    finite = sorted(v for v in values if v != float("inf"))
    log = log_axis(values, scale)
    if log:
        positive = [v for v in finite if v > 0] or [1.0]
        step = finite[-1] / finite[-2] if len(finite) > 1 and finite[-2] > 0 else 2.0
        beyond = finite[-1] * step if finite else 1.0
        below = positive[0] / (positive[1] / positive[0] if len(positive) > 1 else 10.0)
    else:
        beyond = (finite[-1] + (finite[-1] - finite[-2] if len(finite) > 1 else 1.0)) if finite else 1.0
        below = 0.0
    positions = [beyond if v == float("inf") else below if v == 0 else v for v in values]
    labels = ["∞" if v == float("inf") else f"{v:g}" for v in values]
    return positions, labels, log


def draw_sweep_lines(table: pd.DataFrame, key: str, meta: dict, margins: list, title: str, pdf, png,
                     scale: str = "auto") -> None:
    """A one-axis sweep: the summary ``y`` of each curve against the swept value (on the
    axis ``scale``, ``axis_positions``), simulated curves with +-2 se bands, closed-form
    curves (Local, Ideal, Theorem 1) dashed, and the predicted boundaries (where a
    closed-form curve or an engine margin crosses Local)."""
    sns.set_theme(style="whitegrid", context="paper")
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    simulated = [c for c in dict.fromkeys(table.loc[table["kind"] == "simulated", "curve"])]
    colours = palette(simulated)
    analytic = [c for c in dict.fromkeys(table.loc[table["kind"] != "simulated", "curve"])]
    values = sorted(table[key].unique())
    x, labels, log = axis_positions(values, scale)
    position = dict(zip(values, x, strict=True))  # from every value: where 0 and inf go
    for curve in simulated + analytic:
        rows = table[table["curve"] == curve].sort_values(key)
        x = [position[v] for v in rows[key]]
        if curve in colours:
            ax.plot(x, rows["y"], "o-", color=colours[curve], lw=1.3, ms=3.5, label=curve)
            ax.fill_between(x, rows["y_lo"], rows["y_hi"], color=colours[curve], alpha=0.18, lw=0)
        else:
            colour, line = BENCHMARK_STYLES.get(curve.lower(), CLOSED_FORM_STYLE)
            ax.plot(x, rows["y"], line, color=colour, lw=1.3, label=curve)
    x, labels, log = axis_positions(values, scale)
    boundaries = [m for m in margins if m["quantity"].startswith("boundary") or
                  (m["quantity"] == "crosses Local" and m["curve"] in analytic)]
    for index, mark in enumerate(m for m in boundaries if m["where"] == "at"):
        label = mark["quantity"].removeprefix("boundary: ") if mark["quantity"].startswith("boundary") \
            else f"{mark['curve']} = Local"
        ax.axvline(mark["value"], color="0.2", ls=("--", "-.", ":")[index % 3], lw=1.0,
                   label=f"{label} at {key} = {mark['value']:.3g}")
    if meta["summary"]["kind"] == "ratio_to_local":
        ax.axhline(1.0, color=BENCHMARK_STYLES["local"][0], ls=BENCHMARK_STYLES["local"][1], lw=0.8)
    if log:
        ax.set_xscale("log")
    ax.set_xticks(x, labels)
    ax.minorticks_off()
    ax.set_yscale("log")
    ax.set_xlabel(key)
    ax.set_ylabel({"mse_at": "Average MSE at t", "mse_window": "Average MSE over the window",
                   "ratio_to_local": "MSE / Local", "time_to_mse": "First t reaching the target"}
                  [meta["summary"]["kind"]])
    ax.legend(fontsize=6.5, loc="best")
    ax.set_title(wrapped(title, 105), fontsize=7.5)
    fig.tight_layout()
    save_figure(fig, title, meta, pdf, png)


def draw_heatmaps(table: pd.DataFrame, keys: list, meta: dict, margins: list, title: str, pdf, png) -> None:
    """A two-axis sweep: per simulated curve, a heatmap of log10(MSE / Local) at the summary
    time over (keys[0] across, keys[1] up); a dot marks a cell whose sign the Monte Carlo
    error does not resolve (|ratio - 1| <= 2 se); the zero contours of each closed-form
    curve's log ratio (e.g. Theorem 1) and of the engine's margins (e.g. Corollary 1) are
    the predicted boundaries."""
    sns.set_theme(style="white", context="paper")
    xs, ys = sorted(table[keys[0]].unique()), sorted(table[keys[1]].unique())
    _, xlabels, _ = axis_positions(xs)
    _, ylabels, _ = axis_positions(ys)
    simulated = list(dict.fromkeys(table.loc[table["kind"] == "simulated", "curve"]))
    analytic = [c for c in dict.fromkeys(table.loc[table["kind"] != "simulated", "curve"]) if c != "Local"]

    def grid(frame, column):
        out = np.full((len(ys), len(xs)), np.nan)
        for _, row in frame.iterrows():
            out[ys.index(row[keys[1]]), xs.index(row[keys[0]])] = row[column]
        return out

    values = grid(table[table["curve"].isin(simulated)], "log10_ratio")
    # Colours saturate at HEATMAP_DECADES so that the cells near the boundary stay readable;
    # each cell prints its value.
    bound = min(np.nanmax(np.abs(values[np.isfinite(values)])) if np.isfinite(values).any() else 1.0, HEATMAP_DECADES)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-max(bound, 1e-3), vmax=max(bound, 1e-3))
    fig, axes = plt.subplots(1, len(simulated), figsize=(4.3 * len(simulated) + 0.8, 4.2), squeeze=False)
    styles = ("--", "-.", ":")
    for ax, curve in zip(axes[0], simulated, strict=True):
        rows = table[table["curve"] == curve]
        image = ax.imshow(grid(rows, "log10_ratio"), origin="lower", cmap="RdBu_r", norm=norm, aspect="auto")
        cells = grid(rows, "log10_ratio")
        unresolved = ~grid(rows, "resolved").astype(bool)
        for (y, x), value in np.ndenumerate(cells):
            mark = "?" if unresolved[y, x] else ""
            ax.text(x, y, f"{value:+.1f}{mark}", ha="center", va="center", fontsize=6,
                    color="white" if abs(value) > 0.6 * bound else "black")
        ax.plot([], [], " ", label="? sign not resolved (2 se)")
        overlays = [(c, grid(table[table["curve"] == c], "log10_ratio")) for c in analytic]
        for quantity in dict.fromkeys(m["quantity"] for m in margins if m["curve"] == ""):
            rows_of = pd.DataFrame([m for m in margins if m["quantity"] == quantity])
            rows_of[keys] = rows_of[keys].astype(float)  # the sidecar writes inf as "inf"
            field_ = grid(rows_of.assign(value=rows_of["value"].astype(float)), "value")
            overlays.append((quantity, -field_))
        for index, (label, field_) in enumerate(overlays):
            field_ = np.clip(field_, -1e6, 1e6)  # a margin is infinite without noise (eps = inf)
            if np.isfinite(field_).all() and field_.min() < 0 < field_.max():
                ax.contour(field_, levels=[0.0], colors="k", linestyles=styles[index % 3], linewidths=1.2)
                ax.plot([], [], color="k", ls=styles[index % 3], label=f"{label}: gain boundary")
        ax.set_xticks(range(len(xs)), xlabels)
        ax.set_yticks(range(len(ys)), ylabels)
        ax.set_xlabel(keys[0])
        ax.set_ylabel(keys[1])
        ax.set_title(curve, fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=7, frameon=False)
    fig.subplots_adjust(top=0.84, bottom=0.2, wspace=0.3)
    fig.colorbar(image, ax=axes[0].tolist(), extend="both",
                 label="log10(MSE / Local)  (< 0: collaboration pays)")
    fig.suptitle(wrapped(title, 140), fontsize=9)
    save_figure(fig, title, meta, pdf, png)


def draw_scorecard(table: pd.DataFrame, meta: dict, title: str, pdf, png) -> None:
    """A scorecard (``colme.derived.scorecard``) as a heatmap: a row per world and eps, a
    column per algorithm (deployable ones first, then those that know the classes, after a
    gap), coloured by log10(MSE / Local) at the horizon; each cell prints MSE / Local, with
    * where it beats Local and + where it beats the best baseline (Holm over the card);
    grey: the algorithm does not run on that world."""
    sns.set_theme(style="white", context="paper")
    rows = list(dict.fromkeys(zip(table["world"], table["privacy"], strict=True)))
    # deployable algorithms, then the privileged ones; within each, those of the most worlds
    # first, baselines after the others, by mean rank
    order = table.groupby("curve").agg(privileged=("ranked_among", lambda r: (r == "privileged").any()),
                                       worlds=("world", lambda w: ",".join(sorted(set(w)))),
                                       breadth=("world", lambda w: -len(set(w))), rank=("rank", "mean"))
    algorithms = meta["settings"]["algorithms"]
    order["baseline"] = [bool(algorithms.get(name, {}).get("baseline")) for name in order.index]
    columns = list(order.sort_values(["privileged", "breadth", "worlds", "baseline", "rank"], kind="stable").index)
    privileged = set(order.index[order["privileged"]])
    values = np.full((len(rows), len(columns)), np.nan)
    labels = np.full(values.shape, "", dtype=object)
    for row in table.itertuples():
        y, x = rows.index((row.world, row.privacy)), columns.index(row.curve)
        values[y, x] = math.log10(row.ratio) if row.ratio > 0 else np.nan
        labels[y, x] = f"{row.ratio:.2g}" + ("*" if row.beats_local else "") + ("+" if row.beats_baseline else "")
    finite = values[np.isfinite(values)]
    bound = min(np.abs(finite).max() if finite.size else 1.0, HEATMAP_DECADES)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-max(bound, 1e-3), vmax=max(bound, 1e-3))
    fig, ax = plt.subplots(figsize=(1.0 * len(columns) + 3.2, 0.38 * len(rows) + 2.2))
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("0.85")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=norm, aspect="auto")
    for (y, x), text in np.ndenumerate(labels):
        shade = values[y, x]
        ax.text(x, y, text or "n/a", ha="center", va="center", fontsize=6.5,
                color="white" if np.isfinite(shade) and abs(shade) > 0.6 * bound else "black")
    if privileged and len(privileged) < len(columns):
        ax.axvline(len(columns) - len(privileged) - 0.5, color="k", lw=2)
    ax.set_xticks(range(len(columns)),
                  [f"{c}\n(knows classes)" if c in privileged else c for c in columns], fontsize=7, rotation=30,
                  ha="right")
    ax.set_yticks(range(len(rows)), [f"{world}, {privacy}" for world, privacy in rows], fontsize=7)
    for y in range(1, len(rows)):
        if rows[y][0] != rows[y - 1][0]:
            ax.axhline(y - 0.5, color="w", lw=2)
    fig.colorbar(image, ax=ax, extend="both", label="log10(MSE / Local) at the horizon (< 0: collaboration pays)")
    ax.set_title("* beats Local, + beats the best baseline (one-sided, Holm over the card); grey: not run",
                 fontsize=7)
    fig.suptitle(wrapped(title, 110), fontsize=8.5)
    fig.tight_layout()
    save_figure(fig, title, meta, pdf, png)
