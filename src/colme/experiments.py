"""From a validated configuration (a plain dict) to experiment specifications.

Knows the config's shape (see ``workflow/schemas/config.schema.yaml``) but nothing of
Snakemake: the workflow passes ``config`` in, gets plain values and ``PanelSpec`` out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .ccolme import Curve, PanelSpec
from .populations import UniformClasses
from .rules import ALPHA_SCHEDULES, RULES, WEIGHT_OFFSETS

PRESETS = ("default", "paper")
ENGINES = ("ccolme",)

#: Choices made where seed 002 is silent; printed in every Fig. 1 caption/metadata.
CCOLME_INTERPRETATIONS = (
    "W_ab^(t) of eq. (2) uses the current |C_b^(t)| and the previous consensus mu~_b^(t-1)",
    "C_a^(0) is empty, so every agent resets its alpha clock at t = 1; mu~^(0) = 0 biases t = 1",
    "alpha clock reset is per agent, whenever C_a^(t) != C_a^(t-1) (Sec. V)",
    "final if/else: local non-private mean when |C_b^(t)| <= 2 for all b in C_a^(t), a included",
    "acceptance uses '<' for both rules (the optimistic rule's '<=' differs on a null event)",
    "one fresh class assignment, graph and data stream per run; all curves of a panel share "
    "them (common random numbers: same samples and unit Laplace draws scaled by sigma_DP)",
    "Theorem 1 curve uses the asymptote factor of the panel's alpha schedule "
    "(2 for t/(t+1), 20/19 for floor(t/10))",
)


class ConfigError(ValueError):
    """A configuration value that cannot be run; the message names the key."""


@dataclass(frozen=True)
class Chunk:
    """A contiguous block of global run indices [start, stop) of one figure."""

    index: int
    start: int
    stop: int


def figure_settings(config: dict, figure: str) -> dict:
    """The figure's settings with the preset resolved and command-line overrides applied."""
    if figure not in config["figures"]:
        raise ConfigError(
            f"unknown figure {figure!r}; configured figures: {sorted(config['figures'])}"
        )
    preset = config["preset"]
    settings = dict(config["figures"][figure])
    for key in ("runs", "chunk_runs"):
        value = settings[key]
        settings[key] = value[preset] if isinstance(value, dict) else value
    for key in ("runs", "t_max", "chunk_runs"):
        if config.get(key) is not None:
            settings[key] = config[key]
    settings["grid"] = {
        part: config.get(f"grid_{part}") or settings["grid"][part] for part in ("linear", "log")
    }
    settings["preset"] = preset
    settings["seed"] = config["seed"]
    settings["precision"] = config["precision"]
    return settings


def chunks(settings: dict) -> list[Chunk]:
    """Split the figure's runs into chunks of ``chunk_runs`` (the last may be shorter)."""
    size = settings["chunk_runs"]
    return [
        Chunk(i, start, min(start + size, settings["runs"]))
        for i, start in enumerate(range(0, settings["runs"], size))
    ]


#: Conservative throughput (config-edge-updates/s/core) for sizing cluster jobs: 5x below
#: what ``benchmarks/bench_ccolme.py`` measures on an AVX-512 laptop core.
CONSERVATIVE_UPDATES_PER_SECOND = 2e8


def chunk_runtime_minutes(settings: dict) -> int:
    """Wall-time request (minutes) of one simulation job: 2x the conservative estimate + 2 min."""
    curves = len(settings["rules"]) * len(settings["eps"])
    updates = (
        settings["chunk_runs"] * settings["n_agents"] * settings["degree"] * curves * settings["t_max"]
    )
    return int(math.ceil(2 * updates / CONSERVATIVE_UPDATES_PER_SECOND / 60)) + 2


def time_grid(t_max: int, linear: int, log: int) -> np.ndarray:
    """Recorded times: ``log`` geometric points from 1 and ``linear`` even points up to t_max.

    The geometric part resolves the early transient, the linear part the paper's linear
    time axis; t_max is always recorded.
    """
    geometric = np.geomspace(1, t_max, max(log, 1))
    even = np.linspace(t_max / max(linear, 1), t_max, max(linear, 1))
    return np.unique(np.rint(np.concatenate([geometric, even, [t_max]])).astype(np.int64))


def population(config: dict) -> UniformClasses:
    """The class means and common data standard deviation of the config."""
    spec = config["population"]
    return UniformClasses(means=tuple(float(m) for m in spec["means"]), sigma=float(spec["sigma"]))


def panel_spec(config: dict, figure: str) -> PanelSpec:
    """The engine specification of one simulated figure: every rule at every eps."""
    settings = figure_settings(config, figure)
    curves = tuple(
        Curve(rule, float(eps), float(k) if rule == "bernstein" else math.nan)
        for rule in settings["rules"]
        for eps, k in zip(settings["eps"], settings["theta_k"])
    )
    return PanelSpec(
        n_agents=settings["n_agents"],
        degree=settings["degree"],
        curves=curves,
        t_record=time_grid(settings["t_max"], settings["grid"]["linear"], settings["grid"]["log"]),
        population=population(config),
        alpha_schedule=settings["alpha_schedule"],
        alpha_reset=settings["alpha_reset"],
        weights=settings["weights"],
        optimistic_delta=settings["optimistic_delta"],
    )


def check_config(config: dict) -> None:
    """Semantic checks the JSON schema cannot express; raises ``ConfigError`` naming the key."""
    if config["preset"] not in PRESETS:
        raise ConfigError(f"preset={config['preset']!r}: allowed values are {list(PRESETS)}")
    if config["precision"] not in ("float32", "float64"):
        raise ConfigError(
            f"precision={config['precision']!r}: allowed values are ['float32', 'float64']"
        )
    means = config["population"]["means"]
    if len(set(means)) != len(means):
        raise ConfigError(f"population.means={means}: class means must be distinct")
    for name in config["figures"]:
        settings = figure_settings(config, name)
        where = f"figures.{name}"
        if settings["engine"] not in ENGINES:
            raise ConfigError(
                f"{where}.engine={settings['engine']!r}: allowed values are {list(ENGINES)}"
            )
        for rule in settings["rules"]:
            if rule not in RULES:
                raise ConfigError(f"{where}.rules: {rule!r} is not one of {list(RULES)}")
        if settings["alpha_schedule"] not in ALPHA_SCHEDULES:
            raise ConfigError(
                f"{where}.alpha_schedule={settings['alpha_schedule']!r}: "
                f"allowed values are {list(ALPHA_SCHEDULES)}"
            )
        if settings["weights"] not in WEIGHT_OFFSETS:
            raise ConfigError(
                f"{where}.weights={settings['weights']!r}: allowed values are {list(WEIGHT_OFFSETS)}"
            )
        if len(settings["theta_k"]) != len(settings["eps"]):
            raise ConfigError(
                f"{where}.theta_k has {len(settings['theta_k'])} entries but eps has "
                f"{len(settings['eps'])}: give one Bernstein exponent k per eps"
            )
        for eps in settings["eps"]:
            if not eps > 0:
                raise ConfigError(f"{where}.eps contains {eps}: each eps must be > 0 or .inf")
        n_agents, degree = settings["n_agents"], settings["degree"]
        if not 1 <= degree < n_agents or (degree * n_agents) % 2:
            raise ConfigError(
                f"{where}.degree={degree} with n_agents={n_agents}: an r-regular graph needs "
                "1 <= degree < n_agents and degree * n_agents even"
            )
        for key in ("runs", "chunk_runs", "t_max"):
            if settings[key] < 1:
                raise ConfigError(f"{where}.{key}={settings[key]}: must be >= 1")
