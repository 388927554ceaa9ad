"""The PriCER engine (Saha et al., arXiv:2303.00035): Algorithm 3, the joint optimum of (8),
Monte Carlo of Algorithms 1-2, and the feasible set of (8)."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from ..engines import Engine, FigureTables, no_diagnostics, no_pairs, stream_name
from ..errors import ConfigError
from ..seeding import figure_generator
from .choices import CHOICES
from .figures import plot_pricer, table_for


class PricerEngine(Engine):
    """PriCER (arXiv:2303.00035): Algorithm 3, the joint optimum of (8), Monte Carlo of Algorithms 1-2."""

    name = "pricer"
    schema = Path(__file__).with_name("schema.yaml")
    figure_schema = "pricer_figure"
    time_axis = False
    interpretations = CHOICES
    unused_globals = frozenset({"precision", "population"})

    def check(self, settings, where, config):
        """Trust settings a PriCER figure can build (each node trusts fewer than n nodes)."""
        n = settings["n_nodes"] if settings["kind"] == "connectivity" else len(settings.get("p_server", ()))
        trusted = settings.get("trusted")
        counts = trusted if isinstance(trusted, list) else [] if trusted is None else [trusted]
        for count in counts:
            if not 0 <= count <= n - 1:
                raise ConfigError(
                    f"{where}.trusted={trusted}: each node can trust 0 .. {n - 1} of its n - 1 = {n - 1} "
                    f"neighbours (n = {n})"
                )

    def numeric_params(self, settings: dict) -> dict:
        params = super().numeric_params(settings)
        if params["kind"] == "feasible_set":  # no random draws
            params.pop("seed")
        if not params.get("reference_solver"):  # off: the params of before the option, bit for bit
            params.pop("reference_solver", None)
        return params

    def tables(self, figure, params, inputs):
        start = time.process_time()
        table = table_for(params, figure_generator(params.get("seed", 0), stream_name(params, figure)))
        seconds = time.process_time() - start
        checks = {}
        if "max_violation" in table.columns:
            checks = {
                "max_constraint_violation": float(table["max_violation"].max()),
                "all_links_private": bool(table["privacy_ok"].dropna().astype(bool).all()),
            }
        supplement = pd.DataFrame({"quantity": list(checks), "value": list(checks.values())})
        extras = {
            "paper": (
                "Saha, Seif, Yemini, Goldsmith, Poor: Collaborative Mean Estimation over Intermittently "
                "Connected Networks with Peer-To-Peer Privacy, arXiv:2303.00035 (PriCER)"
            ),
            "curves": list(dict.fromkeys(table["curve"])),
            "checks": checks,
        }
        runs = int(table["runs"].max()) if "runs" in table.columns else 0
        provenance = {"runs": runs, "compute_seconds": seconds, **extras}
        return FigureTables(table, supplement, no_pairs(), no_diagnostics(), provenance)

    def subtitle(self, meta: dict) -> str:
        settings = meta["settings"]
        line = f"seed {settings['seed']}" if "seed" in settings else "exact"
        if settings["kind"] == "connectivity":
            line += f", d={settings['d']}, {settings['realisations']} realisations x {settings['draws']} draws"
        elif settings["kind"] == "trust":
            line += f", d={settings['d']}, R={settings['R']:g}, eps {settings['eps_high']:g}/{settings['eps_low']:g}"
        return line

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        return ("reciprocity",) if "reciprocity" in settings else ()

    def draw(self, table, meta, title, pdf, png):
        plot_pricer(table, meta["settings"]["kind"], title, meta, pdf, png)
