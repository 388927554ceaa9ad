"""From a validated configuration (a plain dict) to experiment specifications.

Knows the config's shape (see ``workflow/schemas/config.schema.yaml``) but nothing of
Snakemake: the workflow passes ``config`` in, gets plain values and ``PanelSpec`` out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .consensus import Curve, PanelSpec
from .queries import ColmeCurve, ColmeSpec
from .populations import UniformClasses
from .decision_rules import ALPHA_SCHEDULES, RULES, WEIGHT_OFFSETS

PRESETS = ("default", "paper")
ENGINES = ("ccolme", "colme", "oracle", "zoom")
#: Engines whose figures come from Monte Carlo runs (the others are analytic).
SIMULATED_ENGINES = ("ccolme", "colme")

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

#: Choices made where seed 004 is silent; printed in every Private-ColME figure's metadata.
COLME_INTERPRETATIONS = (
    "RR: agent a queries the others in increasing index order, cyclically, from the lowest "
    "index (position l is queried at t = l + (i-1)(M-1), as in Proposition 3); rRR scans the "
    "same order from the last queried position and skips agents outside C_a^(t-1)",
    "decision rule re-evaluated for b only when b answers (t = t_kappa), unless "
    "retest = every_step",
    "before b's first answer b is in C_a with T = 0 and Var[T] = inf (weight 0)",
    "Var[T] from the actual p-sum structure (each p-sum's noise counted once with its total "
    "coefficient), maintained exactly per release",
    "wMoM: uniform weights over releases 2^floor(log2 k)..k (the printed normalisation is "
    "not a valid weight)",
    "PM-II releases each p-sum with (eps, delta) / pm2_split, pm2_split = floor(log2 t_max) + 1 "
    "by default (Sec. VII), so PM-I and PM-II give the same overall privacy",
    "common random numbers: all curves share each run's samples and standard noise draws",
    "unknown variance (Sec. V, PM-I): Welch test with Hill's Student-t quantile (Newton-refined "
    "below 2.5 degrees of freedom); b is accepted with weight 0 until V_{b->a} exists; negative "
    "estimates count as infinite variance; before t = 2 an agent keeps its own mean",
    "Sch-Var-1 halves (eps, delta) for the mean p-sums and spends the other half on the "
    "partial-variance releases (Lemma 3 noise), one per query interval like PM-I",
    "Sch-Var-2 rebuilds each query interval's noisy sum from consecutive releases "
    "(t_k R_k - t_{k-1} R_{k-1}), as the receiving agent can",
)


class ConfigError(ValueError):
    """A configuration value that cannot be run; the message names the key."""


@dataclass(frozen=True)
class Chunk:
    """A contiguous block of global run indices [start, stop) of one figure."""

    index: int
    start: int
    stop: int


#: Choices behind the analytic Private-ColME figures (Proposition 3, Remark 3).
ORACLE_INTERPRETATIONS = (
    "Proposition 3 evaluated exactly: E[1/(t/sigma^2 + sum_l B_l / Var[T_l])] over independent "
    "Bernoulli(1/Gamma) class memberships, as int_0^inf e^{-sc} prod_l (1 - p + p e^{-s x_l}) ds "
    "(adaptive quadrature, relative tolerance 1e-11), not the paper's truncated sum",
    "PM-II Var[T]: by default from the actual p-sum structure of the mechanism (validated "
    "against simulation); the printed eq. (21) pools distinct dyadic blocks that share a bit "
    "(it overstates MoM/wMoM variances from k = 7 on) and is drawn only with "
    "pm2_variance: as_printed (RR curves); the settings record which one is drawn",
    "rRR curves: Remark 3 (period n - 1 over the n - 1 classmates), averaged over "
    "n - 1 ~ Binomial(M - 1, 1/Gamma)",
    "wMoM: uniform weights over releases 2^floor(log2 k)..k",
    "PM-II releases each p-sum with (eps, delta) / (floor(log2 t_max) + 1) unless pm2_split is set",
)


def figure_settings(config: dict, figure: str) -> dict:
    """The figure's settings with the preset resolved and command-line overrides applied."""
    if figure not in config["figures"]:
        raise ConfigError(
            f"unknown figure {figure!r}; configured figures: {sorted(config['figures'])}"
        )
    preset = config["preset"]
    settings = dict(config["figures"][figure])
    simulated = settings["engine"] in SIMULATED_ENGINES
    for key in ("runs", "chunk_runs") if simulated else ():
        value = settings[key]
        settings[key] = value[preset] if isinstance(value, dict) else value
    overridable = ("runs", "t_max", "chunk_runs") if simulated else ("t_max",)
    for key in overridable if settings["engine"] != "zoom" else ():
        if config.get(key) is not None:
            settings[key] = config[key]
    if "grid" in settings:
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


#: Conservative throughputs for sizing cluster jobs, 5x below what the benchmarks measure
#: on an AVX-512 laptop core: Private-C-ColME config-edge-updates/s, Private-ColME
#: agent-steps/s (one query, release and update) and pair tests/s (retest = every_step).
CONSERVATIVE_UPDATES_PER_SECOND = 2e8
CONSERVATIVE_AGENT_STEPS_PER_SECOND = 6e5
CONSERVATIVE_PAIR_TESTS_PER_SECOND = 2e8


def chunk_runtime_minutes(settings: dict) -> int:
    """Wall-time request (minutes) of one simulation job: 2x the conservative estimate + 2 min."""
    runs, n_agents, t_max = settings["chunk_runs"], settings["n_agents"], settings["t_max"]
    if settings["engine"] == "colme":
        curves = len(settings.get("curves") or ()) or math.prod(
            len(settings[key]) for key in ("schedules", "mechanisms", "weights", "noises")
        )
        seconds = runs * curves * t_max * n_agents / CONSERVATIVE_AGENT_STEPS_PER_SECOND
        if settings["retest"] == "every_step":
            seconds += runs * curves * t_max * n_agents**2 / CONSERVATIVE_PAIR_TESTS_PER_SECOND
    else:
        curves = len(settings["rules"]) * len(settings["eps"])
        seconds = runs * n_agents * settings["degree"] * curves * t_max / CONSERVATIVE_UPDATES_PER_SECOND
    return int(math.ceil(2 * seconds / 60)) + 2


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


def panel_spec(config: dict, figure: str) -> PanelSpec | ColmeSpec:
    """The engine specification of one simulated figure."""
    settings = figure_settings(config, figure)
    if settings["engine"] in ("colme", "oracle"):
        return colme_spec(config, settings)
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


def colme_spec(config: dict, settings: dict) -> ColmeSpec:
    """Private-ColME panel: every schedule x mechanism x weights x noise combination.

    Analytic (``engine: oracle``) panels use the oracle class estimator.
    """
    oracle = settings["engine"] == "oracle" or settings["oracle"]
    if settings.get("curves"):
        curves = tuple(ColmeCurve(**curve, oracle=oracle) for curve in settings["curves"])
    else:
        curves = tuple(
            ColmeCurve(schedule, mechanism, weights, noise, oracle)
            for schedule in settings["schedules"]
            for mechanism in settings["mechanisms"]
            for weights in settings["weights"]
            for noise in settings["noises"]
        )
    return ColmeSpec(
        n_agents=settings["n_agents"],
        curves=curves,
        t_record=time_grid(settings["t_max"], settings["grid"]["linear"], settings["grid"]["log"]),
        eps=float(settings["eps"]),
        delta=float(settings["delta"]),
        pm2_split=settings["pm2_split"],
        theta0=float(settings.get("theta0", 0.05)),
        retest=settings.get("retest", "query"),
        pm2_variance=settings.get("pm2_variance", "mechanism"),
        bayes_prior=settings.get("bayes_prior", "uninformative"),
        population=population(config),
    )


def zoom_table(table, meta: dict, settings: dict) -> tuple:
    """A zoom figure's table (rows with t <= t_max) and provenance (the source's, retitled)."""
    zoomed = table[table["t"] <= settings["t_max"]]
    meta = {**meta, "zoom": {"source": settings["source"], "t_max": settings["t_max"]}}
    meta["settings"] = {**meta["settings"], "title": settings.get("title") or meta["settings"].get("title")}
    return zoomed, meta


def interpretations(settings: dict) -> tuple[str, ...]:
    """The choices made where the figure's paper is silent."""
    if settings["engine"] == "oracle":
        return ORACLE_INTERPRETATIONS
    return COLME_INTERPRETATIONS if settings["engine"] == "colme" else CCOLME_INTERPRETATIONS


def report_caption(config: dict, figure: str) -> str:
    """reStructuredText caption of a figure in the Snakemake report.

    Parameters, runs, seed, the choices made where the paper is silent and the package
    versions of the environment that builds the report; the wall time is in the
    figure's provenance file next to it.
    """
    from .plotting import package_versions

    settings = figure_settings(config, figure)
    versions = ", ".join(f"{name} {version}" for name, version in package_versions().items())
    caption = format_caption(settings.get("title") or figure, settings, interpretations(settings))
    return caption + f"\n\nPackage versions: {versions}."


def format_caption(title: str, settings: dict, choices) -> str:
    """reStructuredText: bold title, one bullet per setting, then the choices made."""
    lines = [f"**{title}**", ""]
    lines += [f"- ``{key}``: {value}" for key, value in sorted(settings.items()) if key != "title"]
    lines += ["", "Choices where the paper is silent:", ""]
    lines += [f"- {choice}" for choice in choices]
    return "\n".join(lines)


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
        for key in ("runs", "chunk_runs", "t_max") if settings["engine"] in SIMULATED_ENGINES else ("t_max",):
            if settings[key] < 1:
                raise ConfigError(f"{where}.{key}={settings[key]}: must be >= 1")
        if settings["engine"] == "zoom":
            source = settings["source"]
            if source not in config["figures"] or config["figures"][source]["engine"] == "zoom":
                raise ConfigError(
                    f"{where}.source={source!r}: must name a non-zoom figure; configured: "
                    f"{sorted(f for f, v in config['figures'].items() if v['engine'] != 'zoom')}"
                )
            continue
        if settings["engine"] in ("colme", "oracle"):
            _check_colme(settings, where)
            continue
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


def _check_colme(settings: dict, where: str) -> None:
    """Privacy parameters and curves a Private-ColME panel can actually run with."""
    for index, curve in enumerate(settings.get("curves") or ()):
        if curve.get("variance", "known") != "known" and curve.get("mechanism", "pm1") != "pm1":
            raise ConfigError(
                f"{where}.curves[{index}]: variance estimation (Sec. V) needs mechanism pm1"
            )
    spec_eps, spec_delta = settings["eps"], settings["delta"]
    split = settings["pm2_split"] or int(math.log2(settings["t_max"])) + 1
    noises = {c.get("noise", "gaussian") for c in settings.get("curves") or ()} or set(settings["noises"])
    if "gaussian" in noises and not 0 < spec_eps <= 1:
        raise ConfigError(
            f"{where}.eps={spec_eps}: the Gaussian mechanism (seed 004 Lemma 1) needs "
            "0 < eps <= 1; use noises: [laplace] for larger eps"
        )
    if not 0 < spec_delta <= 1:
        raise ConfigError(f"{where}.delta={spec_delta}: must be in (0, 1]")
    if split < 1:
        raise ConfigError(f"{where}.pm2_split={split}: must be >= 1")
    if settings.get("pm2_variance") == "as_printed" and "rrr" in settings["schedules"]:
        raise ConfigError(
            f"{where}.pm2_variance=as_printed: eq. (21) as printed is only drawn for RR "
            "(Proposition 3); remove 'rrr' from schedules or use pm2_variance: mechanism"
        )
