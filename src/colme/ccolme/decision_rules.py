"""Decision rules of Private-C-ColME: the built-in ones and a researcher's own, through
one interface.

A decision rule is a **threshold**: a function of the pair's public parameters at time t,
and the kernel accepts neighbour b into C_a^(t) iff the pair's noisy means differ by less
than it, ``|X~_a^(t) - X~_b^(t)| < threshold`` (the test of Sec. III-C).  Its arguments,
in this order (``ARGUMENTS``), then its own numeric parameters by name:

* ``t``: the time step (1, 2, ...);
* ``sigma_a``, ``sigma_b``: both agents' data standard deviations (their class laws');
* ``sigma_dp_a``, ``sigma_dp_b``: both agents' privacy noise standard deviations
  (Laplace, Lemma 1; 0 at eps = inf);
* ``beta_pair``: the Bernstein parameter (times sqrt t) of the noisy difference
  X~_a - X~_b (``rules.difference_beta``, with the figure's ``bernstein_beta`` form);
* ``theta``: the confidence schedule theta_t = min(2, 3/t^(1/k)) at the curve's k
  (``theta_k``, one per eps);
* ``degree``: r, the graph's degree (a random regular graph's, or each run's mean degree
  2E/M on another family);
* ``n_agents``: M.

Why a threshold and not a decision from the pair's state: the threshold depends on t and
on the pair's *profiles* (class and privacy level) only, so the kernel evaluates it once
per time step and profile pair, outside its loop over the graph's edges; the edge loop,
where the time goes, stays the built-in one, and a rule of one's own runs at the built-in
rules' speed.  It is symmetric by construction (the kernel calls it with (a, b) and (b, a)
profiles alike, and compares a symmetric distance), so W of eq. (2) stays doubly
stochastic.  What a rule cannot see: the pair's noisy means themselves (only whether their
distance is below the threshold), the agents' classes, their current sets C_a, the
history of decisions, or any other agent.

A rule file is plain Python: a function with the arguments above and then its own
parameters (floats), written in the subset of Python that Numba compiles (``math``,
arithmetic, ``if``; no NumPy arrays are needed).  ``experiments/rules/`` holds examples.

The oracle rule is the one rule that knows the classes: it accepts a neighbour of the
same class and nobody else (``by_class``); its threshold is -1.  The optimistic rule's
``<=`` and the Bernstein rule's ``<`` differ only on a null event for continuous data, so
the kernel uses ``<`` for all.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numba
import numpy as np

from ..errors import ConfigError
from ..user_code import UserFunction, probe_values, user_function
from .rules import bernstein_threshold, optimistic_radius, theta_schedule

#: The arguments every decision rule takes first, in this order (the module docstring).
ARGUMENTS = ("t", "sigma_a", "sigma_b", "sigma_dp_a", "sigma_dp_b", "beta_pair", "theta", "degree", "n_agents")


def oracle(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents):
    """The oracle rule: it accepts by class (``DecisionRule.by_class``), never by distance."""
    return -1.0


def bernstein(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents):
    """The Bernstein rule of Sec. III-C1: z_theta_t (``rules.bernstein_threshold``)."""
    return bernstein_threshold(t, theta, sigma_a, sigma_b, beta_pair, sigma_dp_a, sigma_dp_b)


def optimistic(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents, delta,
               closed_early):
    """The optimistic-distance rule of Sec. III-C2: radius(a) + radius(b)
    (``rules.optimistic_radius``; ``closed_early`` > 0.5: the radius as Private-C-ColME's
    conference version prints it)."""
    early = closed_early > 0.5
    return (optimistic_radius(t, sigma_a, sigma_dp_a, degree, n_agents, delta, early)
            + optimistic_radius(t, sigma_b, sigma_dp_b, degree, n_agents, delta, early))


@dataclass(frozen=True)
class DecisionRule(UserFunction):
    """A decision rule as a panel runs it: its threshold function, its parameters' values
    (in the function's order), and where the function comes from (``user_code.UserFunction``:
    a built-in of this module or, with ``file`` and its ``sha256``, a researcher's file).

    ``by_class``: the oracle's class knowledge; ``uses_theta``: whether the rule's curves
    carry the confidence schedule's k.
    """

    builtins: ClassVar[str] = __name__

    by_class: bool = False
    uses_theta: bool = True

    def threshold(self, t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents) -> float:
        """The rule's threshold, evaluated in Python (tests, notebooks)."""
        return self.code(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents,
                         *self.values)


def builtin_rules(optimistic_delta: float = 1.0, closed_early: bool = False) -> dict[str, DecisionRule]:
    """The built-in rules, with the figure's options bound as the optimistic rule's parameters."""
    return {
        "oracle": DecisionRule("oracle", "oracle", by_class=True, uses_theta=False),
        "bernstein": DecisionRule("bernstein", "bernstein"),
        "optimistic": DecisionRule(
            "optimistic", "optimistic", (("delta", float(optimistic_delta)), ("closed_early", float(closed_early))),
            uses_theta=False,
        ),
    }


#: The names the built-in rules take in a figure's ``rules``.
BUILTIN = tuple(builtin_rules())


#: Points at which a rule is first probed, compiled (the steps every figure has): then
#: ``check_horizon`` evaluates it at every step of the figure, with the figure's arguments.
PROBE = tuple(itertools.product((1, 2), (0.5, 2.0), (0.0, 3.0)))

_CHECKED: set[tuple] = set()


def user_rule(name: str, entry: dict, where: str, check: bool = True) -> DecisionRule:
    """A researcher's rule from its config entry (``file``, ``function``, ``params``; with
    ``sha256``, the file must still have that content), checked: the file and function
    exist, take ``ARGUMENTS`` then exactly the parameters given (or defaulted)
    (``user_code.user_function``), and (with ``check``) Numba compiles it and it gives a
    number on a small probe."""
    where = f"{where}.decision_rules.{name}"
    rule, function, label = user_function(DecisionRule, name, entry, where, ARGUMENTS)
    if check and (rule.sha256, rule.function, rule.params) not in _CHECKED:
        _probe(rule, function, where, label)
        _CHECKED.add((rule.sha256, rule.function, rule.params))
    return rule


def _probe(rule: DecisionRule, function, where: str, label: str) -> None:
    """Refuse a threshold that is not a number (NaN, -inf) at a point of ``PROBE``."""
    points = [(t, sigma, sigma, sigma_dp, sigma_dp, 2.0 * (sigma + sigma_dp), theta_schedule(t, 8.0), 10.0, 200)
              for t, sigma, sigma_dp in PROBE]
    for point, value in probe_values(function, rule.values, points, ARGUMENTS, where, label):
        if not isinstance(value, int | float) or not value > -math.inf:
            raise ConfigError(f"{where}: {label} {BAD_THRESHOLD.format(value=value, point=named(point))}")


class RuleError(RuntimeError):
    """A researcher's rule gives no threshold at a step a job meets (``horizon_problems``
    on a run's own graph)."""


#: Why a threshold is refused: NaN (and -inf) decide nothing.  A finite threshold <= 0
#: accepts no neighbour (the test is |X~_a - X~_b| < threshold): the agent keeps its own
#: mean at that step, as Local does.
BAD_THRESHOLD = ("returns {value!r} at {point}: a threshold must be a number (one <= 0 accepts no neighbour, "
                 "+inf every one)")


def named(point) -> dict:
    """A rule's arguments by name (``ARGUMENTS``)."""
    return {name: int(x) if name in ("t", "n_agents") else float(x)
            for name, x in zip(ARGUMENTS, point, strict=True)}


@numba.njit
def _first_bad(rule, t_max, sigma_a, sigma_b, noise_a, noise_b, beta_pair, theta_k, degree, n_agents, params):
    """The first (t, pair) whose threshold is NaN or -inf, over t = 1..t_max and every
    pair of the arrays; (0, 0, 0.0) if none."""
    for t in range(1, t_max + 1):
        for i in range(sigma_a.shape[0]):
            value = rule(t, sigma_a[i], sigma_b[i], noise_a[i], noise_b[i], beta_pair[i],
                         theta_schedule(t, theta_k[i]), degree, n_agents, *params)
            if not value > -math.inf:
                return t, i, value
    return 0, 0, 0.0


def check_horizon(spec, where: str, degree: float) -> None:
    """Every researcher's rule of a panel evaluated at every step t = 1..t_max and every
    pair of its agents' profiles, before any job (``horizon_problem``): a problem is a
    ``ConfigError`` at ``where``.decision_rules.<name>.  ``degree``: the random regular
    graph's, or another family's expected mean degree (each job checks its runs' own)."""
    for name, problem in horizon_problems(spec, degree):
        raise ConfigError(f"{where}.decision_rules.{name}: {problem} (every step up to t_max is checked before "
                          "any job)")


_HORIZON_CHECKED: set[tuple] = set()


def horizon_problems(spec, degree: float) -> list[tuple[str, str]]:
    """(rule name, problem) for each researcher's rule of the panel whose threshold is
    NaN or -inf, or whose call raises, at some step t = 1..t_max and pair of the agents'
    profiles (class law and privacy level: the arguments the kernel passes,
    ``PanelSpec.profile_arrays``), at the graph's ``degree``; the problem names t and the
    arguments.  Evaluated compiled, once per process for the same rule and arguments."""
    found = []
    for rule in spec.user_rules:
        curves = [c for c in spec.curves if c.rule == rule.name]
        if not curves:
            continue
        pairs = spec.profile_arrays(curves, spec.profile_noise(curves))
        lanes = len(curves)
        theta_k = np.tile([c.theta_k for c in curves], len(pairs["pair_sigma_a"]) // lanes)
        arrays = (pairs["pair_sigma_a"], pairs["pair_sigma_b"], pairs["pair_noise_a"], pairs["pair_noise_b"],
                  pairs["pair_beta"], theta_k)
        key = (rule, spec.t_max, float(degree), spec.n_agents, *(a.tobytes() for a in arrays))
        if key in _HORIZON_CHECKED:
            continue
        compiled = _compiled(rule)
        label = f"{rule.file}:{rule.function}"
        try:
            t, i, value = _first_bad(compiled, spec.t_max, *arrays, float(degree), spec.n_agents, tuple(rule.values))
        except Exception as error:  # find where, step by step (only on failure)
            t, i, raised = _first_raising(compiled, spec.t_max, arrays, float(degree), spec.n_agents, rule.values,
                                          error)
            point = (t, *(a[i] for a in arrays[:5]), theta_schedule(t, arrays[5][i]), degree, spec.n_agents)
            found.append((rule.name, f"{label} raises {raised} at {named(point)}"))
            continue
        if t:
            point = (t, *(a[i] for a in arrays[:5]), theta_schedule(t, arrays[5][i]), degree, spec.n_agents)
            found.append((rule.name, f"{label} {BAD_THRESHOLD.format(value=value, point=named(point))}"))
            continue
        _HORIZON_CHECKED.add(key)
    return found


@lru_cache(maxsize=32)
def _compiled(rule: DecisionRule):
    """A rule's function compiled once per process (each run of a job re-checks it)."""
    return numba.njit(rule.code)


def _first_raising(compiled, t_max, arrays, degree, n_agents, values, error):
    """(t, pair, "Type: message") of the first call that raises (``check_horizon``); where
    no single call raises again, the error with "an unknown step" (t = 0)."""
    for t in range(1, t_max + 1):
        for i in range(len(arrays[0])):
            try:
                compiled(t, *(a[i] for a in arrays[:5]), theta_schedule(t, arrays[5][i]), degree, n_agents, *values)
            except Exception as found:
                return t, i, f"{type(found).__name__}: {found}"
    return 0, 0, f"{type(error).__name__}: {error} (at a step no single call repeats)"
