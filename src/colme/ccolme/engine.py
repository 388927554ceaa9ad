"""The Private-C-ColME engine (Yakimenka et al. 2025, arXiv:2511.04702, Algorithm 1) on
random r-regular graphs, or on graphs of another family (the figure's ``graph`` key,
``colme.graphs``)."""

from __future__ import annotations

import math
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ..engines import WorldEngine, data_bytes, job_memory_mb, population, population_summary, table_module, wall_minutes
from ..errors import ConfigError
from ..graphs import expected_mean_degree
from ..timegrid import figure_grid
from ..user_code import with_digest
from ..world import check_world, graph_line, panel_groups, world_numeric_params
from .choices import CHOICES, ccolme_population_choices
from .decision_rules import BUILTIN, builtin_rules, check_horizon, user_rule
from .spec import DIAGNOSTICS, Curve, PanelSpec
from .weight_rules import max_set_size, user_weights

#: Conservative config-edge-updates/s for sizing cluster jobs (6x below the 2.5e9 measured
#: on an AVX-512 core, 3x below the ~1.2e9 projected for an older AVX2 core).
CONSERVATIVE_UPDATES_PER_SECOND = 4e8


def run_state_bytes(n_agents: int, n_edges: float, curves: int, itemsize: int, runs: int = 1) -> float:
    """The bytes of the arrays a simulate job of ``runs`` runs holds while it simulates
    (``kernel.simulate_runs``; ``tests/ccolme/test_fast_path.py`` checks the workspace
    part against ``Workspace.allocate``): the runs' instances (classes, edges), one run's
    world (CSR rows, offsets and classmates per directed edge, per-agent arrays) and the
    ``Workspace`` of the larger of its two layouts, for the lane groups of at most
    ``kernel.MAX_LANES`` curves (``kernel.lane_groups``)."""
    from .kernel import lane_groups  # lazy: the kernel driver's module, not needed to configure

    lanes = lane_groups(curves)[1]
    instances = runs * (8 * n_agents + 16 * n_edges)
    world = 2 * n_edges * (16 + 2 * itemsize) + 32 * n_agents
    small = n_agents * 7 * lanes * itemsize + n_edges * lanes * itemsize
    large = n_agents * 10 * lanes * itemsize + 2 * n_edges * lanes
    return instances + world + max(small, large) + 16 * n_agents + 16 * lanes * itemsize


class ConsensusEngine(WorldEngine):
    """Private-C-ColME (arXiv:2511.04702, Algorithm 1) on random r-regular graphs."""

    name = "ccolme"
    schema = Path(__file__).with_name("schema.yaml")
    figure_schema = "ccolme_figure"
    interpretations = CHOICES
    diagnostics = DIAGNOSTICS
    unused_globals = frozenset()
    lane_keys = MappingProxyType({"eps": ("theta_k",)})

    def check(self, settings, where, config):
        own = settings.get("decision_rules") or {}
        for name in own:
            if name in BUILTIN:
                raise ConfigError(f"{where}.decision_rules.{name}: {name!r} is a built-in rule's name; "
                                  f"give yours another (built-in: {list(BUILTIN)})")
        for index, name in enumerate(settings["rules"]):
            if name not in BUILTIN and name not in own:
                raise ConfigError(f"{where}.rules[{index}]: {name!r} is neither a built-in rule {list(BUILTIN)} "
                                  f"nor one of decision_rules {sorted(own)}")
            if name in own:
                user_rule(name, own[name], where)
        if len(settings["theta_k"]) != len(settings["eps"]):
            raise ConfigError(
                f"{where}.theta_k has {len(settings['theta_k'])} entries but eps has "
                f"{len(settings['eps'])}: give one Bernstein exponent k per eps"
            )
        data = settings["population"].get("data") or {}
        if data.get("sigma") == "agent":
            raise ConfigError(f"{where}.population.data.sigma='agent': Private-C-ColME's rules get one threshold per "
                              "step and pair of profiles (class and privacy level), not per pair of agents; use "
                              "sigma: class here (C-ColME, B-ColME and Private-ColME read agent)")
        check_world(settings, where, tuple(settings["rules"]))
        self.weight_rule(settings, where)
        if any(name in own for name in settings["rules"]):  # every step its curves will see
            graph, n_agents = self.graph(settings), settings["n_agents"]
            degree = settings["degree"] if graph is None else None
            check_horizon(self.spec(self.numeric_params(settings)), where,
                          expected_mean_degree(graph, n_agents, degree))

    def numeric_params(self, settings: dict) -> dict:
        """The settings; a random regular figure's without ``graph`` and a figure without
        privacy mixes without ``privacy_mixes`` (so that their params are those of before
        these keys, bit for bit), another family's with its graph params in place of the
        ``degree`` it does not read, a figure's own ``weight_rule`` with its file's digest in
        place of the ``weights`` it replaces (a figure without one: no such key)."""
        params = world_numeric_params(super().numeric_params(settings), settings)
        params.pop("decision_rules", None)
        used = self.user_rules(settings)
        if used:  # the rules' files enter by their digests: an edit reruns exactly their figures
            params["decision_rules"] = used
        params.pop("weight_rule", None)
        if settings.get("weight_rule"):  # by its file's digest, in place of the weights it replaces
            params.pop("weights", None)
            params["weight_rule"] = with_digest(settings["weight_rule"])
        return params

    @staticmethod
    def user_rules(settings: dict) -> dict:
        """The researcher's rules a figure's curves use, each with its file's sha256 (kept
        from params; a missing file has none, and ``check`` names it)."""
        own = settings.get("decision_rules") or {}
        return {name: with_digest(own[name]) for name in settings["rules"] if name in own}

    def weight_rule(self, settings: dict, where: str = "figure", check: bool = True):
        """The figure's own mixing weights (``weight_rules.user_weights``), or None without a
        ``weight_rule``; with ``check``, refused (naming ``where``.weight_rule) unless W stays
        non-negative up to the graph's largest set size (``weight_rules.max_set_size``), at
        its degree (the expected mean degree on another family)."""
        entry = settings.get("weight_rule")
        if not entry:
            return None
        if not check:
            return user_weights(entry, where)
        graph, n_agents = self.graph(settings), settings["n_agents"]
        degree = settings["degree"] if graph is None else None
        probe = (max_set_size(graph, n_agents, degree), expected_mean_degree(graph, n_agents, degree), n_agents)
        return user_weights(entry, where, probe)

    def figure_interpretations(self, settings: dict) -> tuple[str, ...]:
        return (
            self.interpretations
            + self.graph_choices(settings)
            + ccolme_population_choices(population(settings), self.has_mixes(settings),
                                        bool((settings.get("groups") or {}).get("by")))
        )

    def spec(self, params: dict) -> PanelSpec:
        user = tuple(user_rule(name, entry, "decision_rules", check=False)
                     for name, entry in self.user_rules(params).items())
        rules = builtin_rules() | {rule.name: rule for rule in user}
        curves = tuple(
            curve
            for rule in params["rules"]
            for curve in (
                *(Curve(rule, float(eps), float(k) if rules[rule].uses_theta else math.nan)
                  for eps, k in zip(params["eps"], params["theta_k"], strict=True)),
                *(Curve(rule, math.nan, float(mix["theta_k"]) if rules[rule].uses_theta else math.nan,
                        tuple((float(e), float(share)) for e, share in zip(mix["eps"], mix["shares"], strict=True)))
                  for mix in params.get("privacy_mixes", ())),
            )
        )
        return PanelSpec(
            n_agents=params["n_agents"],
            degree=None if self.graph(params) is not None else params["degree"],
            curves=curves,
            t_record=figure_grid(params),
            population=population(params),
            alpha_schedule=params["alpha_schedule"],
            alpha_reset=params["alpha_reset"],
            weights=params.get("weights", "eq2"),
            optimistic_delta=params["optimistic_delta"],
            optimistic_radius=params["optimistic_radius"],
            bernstein_beta=params["bernstein_beta"],
            user_rules=user,
            weight_rule=self.weight_rule(params, check=False),
            **panel_groups(params),
        )

    def run_kernel(self, spec, params, instances, generators, diagnostics, progress):
        from .kernel import simulate_runs  # lazy: compiles/loads the Numba kernel

        dtype = np.dtype(params["precision"]).type
        groups = self.group_outputs(spec, len(generators))
        mse = simulate_runs(
            spec, instances["classes"], instances["edges"], generators, dtype, diagnostics, progress,
            instances.get("agent_means"), instances.get("privacy_ranks"), **groups,
        )
        return {"mse": mse, **groups} if groups else mse

    def drawing_options(self, settings: dict) -> dict:
        return {"draw_groups": list(settings["draw_groups"])} if settings.get("draw_groups") else {}

    def privileged_knowledge(self, settings):
        return ("the true classes (oracle rule)",) if "oracle" in settings["rules"] else ()

    def curve_fields(self, spec, curve):
        return table_module(__package__).curve_fields(spec, curve)

    def analytic_frames(self, spec, t, instances):
        return table_module(__package__).theorem1_frames(spec, t, instances)

    def supplement(self, spec, instances):
        bound = table_module(__package__).bound_table(spec, instances)
        return bound, {"corollary1": bound.to_dict(orient="records")}

    def sweep_margins(self, supplement):
        """Corollary 1 as printed (bound (3), alpha_t = t/(t+1)): log of the bound (ratio of
        the instances' mean numerator and denominator) over sigma_DP^2, for a point with one
        eps (> 0: a gain over Local predicted).  Theorem 1 with the panel's own schedule
        factor is the ``theorem1`` curve of the point's table."""
        if "group" in supplement.columns:  # a grouped panel's: the panel's rows
            supplement = supplement[supplement["group"] == table_module(__package__).ALL_AGENTS]
        noise = supplement[supplement["quantity"] == "sigma_dp2"]
        bound = supplement.loc[supplement["quantity"] == "corollary1_ratio_of_means", "value"]
        if len(noise) != 1 or len(bound) != 1:
            return {}
        with np.errstate(divide="ignore"):  # eps = inf: no noise, an infinite margin
            margin = np.log(np.float64(bound.iloc[0]) / np.float64(noise["value"].iloc[0]))
        return {"Corollary 1 (bound (3))": float(margin)}

    def details(self, settings: dict) -> str:
        own = settings.get("weight_rule")
        weights = (f"{own['file']}:{own['function']}"
                   + "".join(f", {key} {value:g}" for key, value in own.get("params", {}).items())
                   if own else settings["weights"])
        line = f"alpha {settings['alpha_schedule']} (restart {settings['alpha_reset']}), weights {weights}"
        for key, printed in (("optimistic_radius", "sqrt_over_all"), ("bernstein_beta", "sec3c1")):
            if settings.get(key, printed) != printed:
                line += f", {key} {settings[key]}"
        population_line = population_summary(settings["population"])
        if population_line:
            line += f"\n{population_line}"  # a line of its own
        graph = self.graph(settings)
        if graph is not None:
            line += f"\n{graph_line(graph)}"  # a line of its own
        return line

    def panel_style(self, table, draw_groups=()):
        from .plots import panel_style  # lazy: matplotlib, only where a figure is drawn

        return panel_style(table, draw_groups)

    def draw(self, table, meta, title, pdf, png):
        from ..plotting import plot_mse_panel  # lazy: matplotlib, only where a figure is drawn

        drawn = meta.get("drawing", {}).get("draw_groups", ())
        plot_mse_panel(table, self.panel_style(table, drawn), title, meta, pdf, png)

    def interpretation_options(self, settings: dict) -> tuple[str, ...]:
        rules = settings["rules"]
        return (
            ("alpha_reset",)
            + (() if settings.get("weight_rule") else ("weights",))  # a weight_rule replaces them
            + (("optimistic_radius",) if "optimistic" in rules else ())
            + (("bernstein_beta",) if "bernstein" in rules else ())
        )

    def mean_degree(self, params: dict) -> float:
        """The expected mean degree of the figure's graph (the job estimates' edge count)."""
        return expected_mean_degree(self.graph(params), params["n_agents"], params.get("degree"))

    def runtime_minutes(self, params: dict, runs: int) -> int:
        curves = len(self.spec(params).curves)
        updates = runs * params["n_agents"] * self.mean_degree(params) * curves * params["t_max"]
        return wall_minutes(updates / CONSERVATIVE_UPDATES_PER_SECOND)

    def memory_mb(self, params: dict, runs: int) -> int:
        n_agents = params["n_agents"]
        state = run_state_bytes(n_agents, n_agents * self.mean_degree(params) / 2, len(self.spec(params).curves),
                                np.dtype(params["precision"]).itemsize, runs)
        return job_memory_mb(state + data_bytes(params))
