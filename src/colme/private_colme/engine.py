"""The Private-ColME engines (Yakimenka et al. 2024, arXiv:2411.07094): the simulated
Algorithm 1 and the exact oracle curves of Proposition 3 / Remark 3."""

from __future__ import annotations

import time
from pathlib import Path

from ..engines import (
    Engine,
    FigureTables,
    PanelDrawn,
    SimulatedEngine,
    no_diagnostics,
    no_pairs,
    population,
    population_summary,
    table_module,
    wall_minutes,
)
from ..errors import ConfigError
from ..timegrid import figure_grid
from ..user_code import with_digest
from ..world import check_data
from .choices import ORACLE, PER_CLASS_SIGMA, SIMULATION
from .decision_rules import user_rule
from .spec import DIAGNOSTICS, UNSUPPORTED_VARIANCE, ColmeCurve, ColmeSpec, variance_supported

SCHEMA = Path(__file__).with_name("schema.yaml")
#: Conservative throughputs for sizing cluster jobs: agent-steps/s (one query, release
#: and update; 10x below the measured) and pair tests/s (retest = every_step).
CONSERVATIVE_AGENT_STEPS_PER_SECOND = 6e5
CONSERVATIVE_PAIR_TESTS_PER_SECOND = 2e8


def panel_curves(params: dict, oracle: bool) -> tuple[ColmeCurve, ...]:
    """The curves of a panel: its explicit ``curves`` list, or the product of its
    schedules, mechanisms, weights and noises."""
    if params.get("curves"):
        return tuple(ColmeCurve(**curve, oracle=oracle) for curve in params["curves"])
    return tuple(
        ColmeCurve(schedule, mechanism, weights, noise, oracle)
        for schedule in params["schedules"]
        for mechanism in params["mechanisms"]
        for weights in params["weights"]
        for noise in params["noises"]
    )


def panel_spec(params: dict, oracle: bool) -> ColmeSpec:
    """A Private-ColME spec; keys only one of the two engines has keep the spec's defaults
    (the simulation's decision-rule keys, the analytic figures' pm2_variance)."""
    optional = ("theta0", "retest", "pm2_variance", "bayes_prior", "welch_dof", "schvar2_first_interval")
    own_rule = params.get("decision_rule")
    rule = {"decision_rule": user_rule(own_rule, "figure", check=False)} if own_rule else {}
    return ColmeSpec(
        n_agents=params["n_agents"],
        curves=panel_curves(params, oracle),
        t_record=figure_grid(params),
        eps=float(params["eps"]),
        delta=float(params["delta"]),
        pm2_split=params["pm2_split"],
        population=population(params),
        **{key: params[key] for key in optional if key in params},
        **rule,
    )


def check_population(settings: dict, where: str) -> None:
    """The exact oracle (Proposition 3, Remark 3) knows one law and one sigma shared by all
    agents, equal means within a class and binomial class counts (the uniform assignment);
    the simulated panel takes any population."""
    population = settings["population"]
    unsupported = [key for key in ("jitter", "probabilities", "sizes") if key in population]
    unsupported += ["sigma"] if isinstance(population["sigma"], list) else []
    if unsupported:
        raise ConfigError(
            f"{where}: population key(s) {unsupported} (the global population) are not in Proposition 3's "
            "model; the exact oracle figure allows ['means', 'sigma (one)', 'law']: one law and one "
            "sigma for every class, uniform assignment, equal means within a class "
            "(a simulated colme figure with oracle: true takes any population)"
        )


def check_panel(settings: dict, where: str) -> None:
    """Privacy parameters and curves a Private-ColME panel can actually run with."""
    for index, curve in enumerate(settings.get("curves") or ()):
        if not variance_supported(curve["variance"], curve["mechanism"]):
            raise ConfigError(f"{where}.curves[{index}]: {UNSUPPORTED_VARIANCE}")
    noises = {c["noise"] for c in settings.get("curves") or ()} or set(settings["noises"])
    if "gaussian" in noises and not 0 < settings["eps"] <= 1:
        raise ConfigError(
            f"{where}.eps={settings['eps']}: the Gaussian mechanism (Private-ColME Lemma 1) needs "
            "0 < eps <= 1; use noises: [laplace] for larger eps"
        )
    if settings.get("pm2_variance") == "as_printed" and "rrr" in settings["schedules"]:
        raise ConfigError(
            f"{where}.pm2_variance=as_printed: eq. (21) as printed is only drawn for RR "
            "(Proposition 3); remove 'rrr' from schedules or use pm2_variance: mechanism"
        )


def panel_style(table):
    from .plots import panel_style  # lazy: matplotlib, only where a figure is drawn

    return panel_style(table)


class PrivateColmeEngine(SimulatedEngine):
    """Private-ColME (arXiv:2411.07094): all-to-all queries, p-sum releases, decision rule."""

    name = "private_colme"
    reads_data_files = True
    world_kind = "all_to_all"
    schema = SCHEMA
    figure_schema = "private_colme_figure"
    interpretations = SIMULATION
    diagnostics = DIAGNOSTICS

    def check(self, settings, where, config):
        check_panel(settings, where)
        if settings.get("decision_rule"):
            user_rule(settings["decision_rule"], where)
        data = settings["population"].get("data")
        if data:  # a world from a data file (its checks are every world engine's)
            check_data(data, settings, where, ("oracle",) if settings.get("oracle") else ())

    def numeric_params(self, settings: dict) -> dict:
        """The settings; an explicit curve list in place of the product, a researcher's
        decision rule with its file's digest (an edit reruns exactly its figures; a figure
        without one: no such key, so its params are those of before the key, bit for bit)."""
        params = super().numeric_params(settings)
        if params.get("curves"):  # an explicit curve list replaces the product
            for key in ("schedules", "mechanisms", "weights", "noises"):
                params.pop(key, None)
        rule = params.pop("decision_rule", None)
        if rule:
            params["decision_rule"] = with_digest(rule)
        return params

    def spec(self, params: dict) -> ColmeSpec:
        return panel_spec(params, oracle=params["oracle"])

    def run_kernel(self, spec, params, instances, generators, diagnostics, progress):
        from .kernel import simulate_colme_runs  # lazy: compiles/loads the Numba kernel

        return simulate_colme_runs(spec, instances["classes"], generators, diagnostics, progress,
                                   instances.get("agent_means"))

    def privileged_knowledge(self, settings):
        return ("the true classes (oracle class estimator)",) if settings.get("oracle") else ()

    def curve_fields(self, spec, curve):
        return table_module(__package__).curve_fields(spec, curve)

    def supplement(self, spec, instances):
        privacy = table_module(__package__).privacy_table(spec)
        return privacy, {"privacy": privacy.to_dict(orient="records")}

    def sample_privacy(self, spec):
        """Each curve's row of ``privacy_table``: a sample's eps and delta after basic
        composition over the p-sums it enters with one querying agent (PM-I one, PM-II up
        to floor(log2 k) + 1 dyadic blocks after k releases, the worst case over schedules:
        k <= t_max), and Sch-Var-1's partial-variance release."""
        privacy = table_module(__package__).privacy_table(spec)
        found = []
        for curve in spec.curves:
            rows = privacy[(privacy["mechanism"] == curve.mechanism) & (privacy["noise"] == curve.noise)
                           & (privacy["variance_releases"] == (curve.variance == "schvar1"))]
            for row in rows.to_dict(orient="records"):
                found.append({"curve": curve.name, "eps": row["sample_eps"], "delta": row["sample_delta"],
                              **({"class": row["class"]} if "class" in row else {}),
                              "releases": f"{row['psums_per_sample']} p-sum(s) per querying agent"
                                          + (" and a partial variance" if curve.variance == "schvar1" else "")
                                          + " (releases to different agents compose)"})
        return found

    def details(self, settings: dict) -> str:
        line = f"eps {settings['eps']:g}, delta {settings['delta']:g}, retest {settings['retest']}"
        rule = settings.get("decision_rule")
        if rule:
            own = ", ".join(f"{name}={value:g}" for name, value in (rule.get("params") or {}).items())
            line += f", decision rule {rule['file']}:{rule['function']}({own})"
        population_line = population_summary(settings["population"])
        return line + (f"\n{population_line}" if population_line else "")

    def panel_style(self, table):
        return panel_style(table)

    def diagnostics_line_styles(self, diagnostics):
        from .plots import SCHEDULE_STYLES  # lazy: matplotlib, only where a figure is drawn

        return {
            curve: SCHEDULE_STYLES["rrr"] for curve in dict.fromkeys(diagnostics["curve"]) if curve.startswith("rRR")
        }

    def figure_interpretations(self, settings: dict) -> tuple[str, ...]:
        per_class = population(settings).sigmas_differ
        return super().figure_interpretations(settings) + ((PER_CLASS_SIGMA,) if per_class else ())

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        variances = {curve.variance for curve in panel_curves(settings, settings["oracle"])}
        # retest = every_step with estimated variances runs a Welch test per pair and step:
        # over an hour per 5-run chunk at M = 200 on one core, too slow to flip routinely.
        return (
            (("retest",) if variances == {"known"} else ())
            + (("welch_dof", "schvar2_first_interval") if variances & {"schvar2", "schvar2_bayes"} else ())
            + (("bayes_prior",) if "schvar2_bayes" in variances else ())
        )

    def runtime_minutes(self, params: dict, runs: int) -> int:
        curves = len(self.spec(params).curves)
        steps = runs * curves * params["t_max"] * params["n_agents"]
        seconds = steps / CONSERVATIVE_AGENT_STEPS_PER_SECOND
        if params["retest"] == "every_step":
            seconds += steps * params["n_agents"] / CONSERVATIVE_PAIR_TESTS_PER_SECOND
        return wall_minutes(seconds)


class OracleEngine(PanelDrawn, Engine):
    """Private-ColME Proposition 3 (RR) and Remark 3 (rRR) with the oracle class estimator, exact."""

    name = "oracle"
    schema = SCHEMA
    figure_schema = "oracle_figure"
    overridable = ("t_max",)
    interpretations = ORACLE
    unused_globals = frozenset({"precision", "seed"})

    def check(self, settings, where, config):
        check_panel(settings, where)
        check_population(settings, where)

    def spec(self, params: dict) -> ColmeSpec:
        return panel_spec(params, oracle=True)

    def tables(self, figure, params, inputs):
        spec = self.spec(params)
        start = time.process_time()
        table = table_module(__package__).oracle_table(spec)
        privacy = table_module(__package__).privacy_table(spec)
        extras = {"curves": [c.name for c in spec.curves], "privacy": privacy.to_dict(orient="records")}
        provenance = {"runs": 0, "compute_seconds": time.process_time() - start, **extras}
        return FigureTables(table, privacy, no_pairs(), no_diagnostics(), provenance)

    def subtitle(self, meta: dict) -> str:
        settings = meta["settings"]
        return f"analytic (oracle class estimator), eps {settings['eps']:g}, delta {settings['delta']:g}"

    def panel_style(self, table):
        return panel_style(table)

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        return ("pm2_variance",) if "pm2" in settings["mechanisms"] else ()
