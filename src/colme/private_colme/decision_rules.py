"""Decision rule of Private-ColME: the paper's test and a researcher's own, through one
interface.

Private-ColME's agent a tests the statistic T_{b->a} that b last released to it against
its own mean (Algorithm 1, line 13; Sec. III-C1 and, with estimated variances, Sec. V).
A decision rule here is a **bound on the squared gap**: a function of the pair's state at
a's test, and a keeps b in C_a^(t) iff ``(X-bar_a^(t) - T_{b->a})^2 < bound``.  Its
arguments, in this order (``ARGUMENTS``), then its own numeric parameters by name:

* ``t``: the time step, a's number of samples (1, 2, ...);
* ``own_var``: the variance of a's mean, sigma_a^2 / t (known variance) or V_a^(t) / t
  (estimated, Sec. V);
* ``other_var``: Var[T_{b->a}] (known variance: the mechanism's, data and privacy noise
  together) or its estimate V_{b->a} (Sch-Var-1, Sch-Var-2); always finite: before b's
  variance can be estimated the kernel keeps b without asking the rule (weight 0);
* ``other_count``: the number of values behind b's estimate (t_kappa, or kappa with
  ``welch_dof: kappa``; the Welch test's degrees of freedom start from it);
* ``known``: 1.0 with a known data variance, 0.0 with an estimated one;
* ``theta``: the confidence schedule theta_t = theta0 / ln(t + 1) (Sec. VII);
* ``z_lower``: Phi^{-1}(theta_t / 2), the normal quantile of that schedule (negative);
* ``sigma_dp``: the standard deviation of the privacy noise of one p-sum of b's
  (Lemmas 1-2; 0 where b is not private);
* ``n_agents``: M.

The paper's rule (``paper_test``): known variance, the z-test
``z_theta^2 (sigma_a^2 / t + Var[T])``; estimated variance, the Welch test with the
Student-t quantile at the Welch-Satterthwaite degrees of freedom.

Why a bound from the pair's state and not a threshold of profiles (as Private-C-ColME's
rules, ``colme.ccolme.decision_rules``): Var[T_{b->a}] depends on how many of b's releases
a has received and on the release mechanism, so it differs for every pair and step; the
test runs once per query (one per agent and step, or every pair with ``retest:
every_step``), so calling the rule there costs little.  A bound on the squared gap keeps
the paper's comparison exactly (``gap^2 < z^2 (...)``), so its tables stay bit for bit.
What a rule cannot see: the gap's sign, the agents' classes, the history of a's decisions
about b, the other agents' statistics, or the released values themselves beyond their
mean and variance.

A rule file is plain Python (the subset Numba compiles: ``math``, arithmetic, ``if``);
``experiments/rules/`` holds examples.  The oracle curves do not ask the rule.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar

from scipy.special import ndtri

from ..errors import ConfigError
from ..user_code import UserFunction, probe_values, user_function
from .variance import student_t_quantile, welch_dof

#: The arguments every Private-ColME decision rule takes first, in this order.
ARGUMENTS = ("t", "own_var", "other_var", "other_count", "known", "theta", "z_lower", "sigma_dp", "n_agents")


def paper_test(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents):
    """The bound of Private-ColME's test: z-test with a known variance (Sec. III-C1),
    Welch test with estimated ones (Sec. V; +inf, keep b, until both variances and the
    degrees of freedom exist)."""
    if known > 0.5:
        return z_lower * z_lower * (own_var + other_var)
    if t < 2.0 or other_count < 2.0 or own_var <= 0.0:
        return math.inf
    nu = welch_dof(own_var_of_mean=own_var, own_count=t, other_var=other_var, other_count=other_count)
    quantile = student_t_quantile(two_sided_tail=theta, z_lower=z_lower, nu=nu)
    return quantile * quantile * (own_var + other_var)


@dataclass(frozen=True)
class PrivateDecisionRule(UserFunction):
    """Private-ColME's decision rule as a panel runs it (``user_code.UserFunction``: the
    paper's test of this module, or a researcher's file with its digest)."""

    builtins: ClassVar[str] = __name__

    def bound(self, t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents) -> float:
        """The rule's bound on the squared gap, evaluated in Python (tests, notebooks)."""
        return self.code(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents,
                         *self.values)

    def kernel_binding(self) -> str:
        """The kernel module's lines binding ``decision_rule(*ARGUMENTS, rule_params)``
        (``kernel.run_function`` generates the module): the rule, bound by
        ``kernel_import``, called with its own parameters ``rule_params[0 .. n - 1]``
        (``kernel_call``), so an edited file, by its digest, makes another kernel."""
        return "\n".join([
            self.kernel_import("rule_function"),
            "@step",
            f"def decision_rule({', '.join(ARGUMENTS)}, rule_params):",
            f"    return {self.kernel_call('rule_function', ARGUMENTS, 'rule_params')}",
        ])


#: The paper's rule, the default of every Private-ColME figure.
PAPER = PrivateDecisionRule("paper_test", "paper_test")


#: Points of (t, own_var, other_var, other_count, known) at which a rule is probed before
#: any job: its bound must be a number or +inf (NaN and -inf are refused).
PROBE = tuple(itertools.product((1.0, 2.0, 30.0, 30000.0), (0.0, 0.02), (0.01, 4.0), (1.0, 30.0), (1.0, 0.0)))

_CHECKED: set[tuple] = set()


def user_rule(entry: dict, where: str, check: bool = True) -> PrivateDecisionRule:
    """A researcher's rule from its config entry (``file``, ``function``, ``params``; with
    ``sha256``, the file must still have that content), checked: the file and function
    exist, take ``ARGUMENTS`` then exactly the parameters given (or defaulted), and (with
    ``check``) Numba compiles it and its bound is a number or +inf on a small probe."""
    where = f"{where}.decision_rule"
    rule, function, label = user_function(PrivateDecisionRule, entry["function"], entry, where, ARGUMENTS)
    if check and (rule.sha256, rule.function, rule.params) not in _CHECKED:
        points = []
        for t, own, other, count, known in PROBE:
            theta = min(0.05 / math.log(t + 1.0), 1.0)
            points.append((t, own, other, count, known, theta, float(ndtri(theta / 2.0)), 2.0, 200))
        for point, value in probe_values(function, rule.values, points, ARGUMENTS, where, label):
            if not isinstance(value, int | float) or math.isnan(value) or value == -math.inf:
                raise ConfigError(f"{where}: {label} returns {value!r} at {dict(zip(ARGUMENTS, point, strict=True))}: "
                                  "a bound must be a number (or +inf: keep b)")
        _CHECKED.add((rule.sha256, rule.function, rule.params))
    return rule
