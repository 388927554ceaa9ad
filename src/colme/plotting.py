"""Paper-style figures from tidy tables, with provenance in the PDF metadata."""

from __future__ import annotations

import importlib.metadata
import json
import math
import platform
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

#: Line style per decision rule, as in seed 002 Fig. 1.
RULE_STYLES = {"oracle": "-", "bernstein": ":", "optimistic": "-."}
BENCHMARK_STYLES = {"local": ("tab:green", "--"), "ideal": ("#b8860b", "--")}
PACKAGES = ("colme", "numpy", "scipy", "numba", "networkx", "pandas", "matplotlib", "seaborn", "snakemake")


def package_versions() -> dict[str, str]:
    """Versions of the packages that made a result (missing ones are reported as such)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _eps_label(eps: float) -> str:
    return r"$\epsilon=\infty$" if math.isinf(eps) else rf"$\epsilon={eps:g}$"


def plot_mse_panel(table: pd.DataFrame, title: str, metadata: dict, pdf: Path, png: Path) -> None:
    """Log-scale average MSE vs t: a colour per eps, a line style per rule, benchmarks dashed.

    Theorem 1 asymptotes are drawn faint in their eps colour.  ``metadata`` (parameters,
    runs, seed, interpretations, versions) goes into the PDF's Subject/Keywords fields.
    """
    eps_values = sorted(table.loc[table["kind"] == "simulated", "eps"].unique())
    palette = dict(zip(eps_values, sns.color_palette("colorblind", len(eps_values))))
    sns.set_theme(style="whitegrid", context="paper")
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for (rule, eps), curve in table[table["kind"] == "simulated"].groupby(["rule", "eps"]):
        ax.plot(curve["t"], curve["mse"], RULE_STYLES.get(rule, "-"), color=palette[eps], lw=1.2)
    for eps, curve in table[table["rule"] == "theorem1"].groupby("eps"):
        ax.plot(curve["t"], curve["mse"], "-", color=palette.get(eps, "grey"), lw=3, alpha=0.18)
    for rule, (colour, style) in BENCHMARK_STYLES.items():
        curve = table[table["rule"] == rule]
        ax.plot(curve["t"], curve["mse"], style, color=colour, lw=1.4)
    handles = [plt.Line2D([], [], color=palette[e], lw=2, label=_eps_label(e)) for e in eps_values]
    rules = [r for r in RULE_STYLES if r in set(table["rule"])]
    handles += [plt.Line2D([], [], color="k", ls=RULE_STYLES[r], label=r) for r in rules]
    handles += [
        plt.Line2D([], [], color=c, ls=s, label=r.capitalize()) for r, (c, s) in BENCHMARK_STYLES.items()
    ]
    handles.append(plt.Line2D([], [], color="grey", lw=3, alpha=0.3, label="Theorem 1 (oracle)"))
    ax.legend(handles=handles, fontsize=7, ncol=2, loc="upper right")
    ax.set_yscale("log")
    ax.set_xlabel("Time $t$")
    ax.set_ylabel("Average MSE")
    ax.set_xlim(0, table["t"].max())
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    pdf.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(
        pdf,
        metadata={
            "Title": title,
            "Subject": json.dumps(metadata, default=str),
            "Keywords": "colme; differential privacy; personalized mean estimation",
            "Creator": "colme reproducibility workflow",
        },
    )
    fig.savefig(png, dpi=150)
    plt.close(fig)
