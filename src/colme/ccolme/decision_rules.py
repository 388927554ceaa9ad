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
from typing import ClassVar

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


#: Points at which a rule is probed before any job: its threshold must be a finite number
#: or +inf (-inf and NaN are refused).
PROBE = tuple(itertools.product((1, 2, 30, 30000), (0.5, 2.0), (0.0, 3.0)))

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
    """Refuse a threshold that is not a number or +inf at a point of ``PROBE``."""
    points = [(t, sigma, sigma, sigma_dp, sigma_dp, 2.0 * (sigma + sigma_dp), theta_schedule(t, 8.0), 10.0, 200)
              for t, sigma, sigma_dp in PROBE]
    for point, value in probe_values(function, rule.values, points, ARGUMENTS, where, label):
        if not isinstance(value, int | float) or math.isnan(value) or value == -math.inf:
            raise ConfigError(f"{where}: {label} returns {value!r} at {dict(zip(ARGUMENTS, point, strict=True))}: "
                              "a threshold must be a number (or +inf: accept everybody)")
