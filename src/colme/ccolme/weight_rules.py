"""Mixing weights of Private-C-ColME: the built-in ones and a researcher's own, through
one interface.

A weight rule is a per-agent **cap** q: a function of the agent's set size |C_a^(t)|
(``size``, counting a itself), of ``degree`` (r, the graph's degree: a random regular
graph's, or each run's mean degree 2E/M on another family) and of ``n_agents`` (M), in
this order (``ARGUMENTS``), then of its own numeric parameters by name.  The kernel
computes q_a once per agent and time step, right after the decisions, and mixes with

    W_ab^(t) = min(q_a, q_b) for b in C_a^(t) \\ {a},   W_ab^(t) = 0 for other b,
    W_aa^(t) = 1 - sum_{b != a} W_ab^(t).

Why a cap and min(q_a, q_b): the edge loop, where the time goes, stays the built-in one
(one ``min`` per accepted edge), and min is symmetric, so W is symmetric, hence doubly
stochastic, whenever the decisions are symmetric (every decision rule's are,
``decision_rules``).  W is **non-negative iff 0 <= q(s) <= 1/(s - 1) for every set size
s >= 2** an agent can have: then W_aa >= 1 - (s_a - 1) q_a >= 0, and an agent whose s - 1
accepted neighbours all have the set size s too (an r-regular graph's oracle at s = r + 1)
has W_aa = 1 - (s - 1) q(s), negative otherwise.  Before any job the workflow probes q
over s = 1 .. the largest set size (``max_set_size``: r + 1 on an r-regular graph) and
refuses a cap that breaks this, naming the figure's key, the file, the function, s and q.

The built-in weights are caps with a parameter, the offset of ``rules.WEIGHT_OFFSETS``:
q = 1/(|C_a| + offset), so W_ab = 1/(max(|C_a|, |C_b|) + offset), eq. (2) of
Private-C-ColME at offset 1 (``weights: eq2``) and Metropolis weights at 0
(``weights: metropolis``).  A figure's ``weight_rule: {file, function, params}`` names a
researcher's cap instead: a plain Python function in the subset Numba compiles, like a
decision rule's (``experiments/weights/`` holds an example).  What a cap cannot see: the
neighbours' sizes (min does that), the agent's class, its noisy mean, or the time step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import ConfigError
from ..user_code import UserFunction, probe_values, user_function
from .rules import WEIGHT_OFFSETS

#: The arguments every weight rule takes first, in this order (the module docstring).
ARGUMENTS = ("size", "degree", "n_agents")


def inverse_size(size, degree, n_agents, offset):
    """The built-in cap q = 1/(|C_a| + offset): W_ab = 1/(max(|C_a|, |C_b|) + offset),
    eq. (2) of Private-C-ColME at offset 1, Metropolis weights at 0 (``rules.WEIGHT_OFFSETS``).

    The division runs in the precision of its operands: the kernel passes a built-in
    rule's offset in the lanes' precision (``WeightRule.param_array``), so the float32
    kernel divides its lanes in float32, not float64 (docs/kernel.md, "Where a step's time
    goes").  It is the number float64's quotient rounded to float32 would be (the
    kernel's before), as a quotient correctly rounded to 53 bits and then to 24 is
    correctly rounded to 24 (53 >= 2 * 24 + 2; the sum |C_a| + offset is an exact small
    integer)."""
    return np.reciprocal(size + offset)


@dataclass(frozen=True)
class WeightRule(UserFunction):
    """A figure's mixing weights as a panel runs them: its cap function, its parameters'
    values (in the function's order), and where the function comes from
    (``user_code.UserFunction``: a built-in of this module, or a researcher's file)."""

    builtins: ClassVar[str] = __name__

    def cap(self, size, degree, n_agents) -> float:
        """The cap q of an agent with set size ``size``, evaluated in Python (tests, the
        dense transcription ``tests/reference.py``)."""
        return self.code(size, degree, n_agents, *self.values)

    def param_array(self, dtype=np.float64) -> np.ndarray:
        """The kernel's ``weight_params``: the own parameters' values (one unused 0 if none),
        in float64, or for a built-in rule in the lanes' ``dtype`` where every value is
        exact in it (``inverse_size``'s offset, 0 or 1: its division then runs in the lanes'
        precision).  A researcher's parameters stay float64: their arithmetic is theirs."""
        values = np.array(self.values or (0.0,), dtype=np.float64)
        if self.file is None and np.array_equal(values.astype(dtype), values):
            return values.astype(dtype)
        return values


def builtin_weights() -> dict[str, WeightRule]:
    """The built-in weights by their ``weights`` name: ``inverse_size`` with the offset of
    ``rules.WEIGHT_OFFSETS`` bound (one function, so one compiled kernel for both)."""
    return {name: WeightRule(name, "inverse_size", (("offset", float(offset)),))
            for name, offset in WEIGHT_OFFSETS.items()}


#: The names the built-in weights take in a figure's ``weights``.
BUILTIN = tuple(builtin_weights())

#: Set sizes |C_a| <= max degree + 1 on the graph families whose every graph has a known
#: largest degree (besides random regular, whose is the figure's ``degree``).
_LARGEST_DEGREE = {"ring_lattice": lambda graph, n_agents: graph["k"], "torus": lambda graph, n_agents: 4}


def max_set_size(graph: dict | None, n_agents: int, degree: int | None) -> int:
    """The largest |C_a^(t)| (a counted) an agent can have, where the cap is probed: r + 1 on
    an r-regular random graph (``graph`` None, ``degree`` r), k + 1 on a ring lattice, 5 on
    a torus, M on the other families, whose largest degree is only known once drawn."""
    if graph is None:
        return int(degree) + 1
    largest = _LARGEST_DEGREE.get(graph["family"])
    return n_agents if largest is None else min(int(largest(graph, n_agents)) + 1, n_agents)


_CHECKED: set[tuple] = set()


def user_weights(entry: dict, where: str, probe: tuple[int, float, int] | None = None) -> WeightRule:
    """A researcher's weight rule from a figure's ``weight_rule`` entry (``file``,
    ``function``, ``params``; with ``sha256``, the file must still have that content),
    checked: the file and function exist, take ``ARGUMENTS`` then exactly the parameters
    given (or defaulted) (``user_code.user_function``), and, with a ``probe`` = (largest set
    size, degree, n_agents), Numba compiles it and its cap keeps W non-negative,
    0 <= q(s) <= 1/(s - 1), for s = 1 .. the largest set size (the module docstring)."""
    where = f"{where}.weight_rule"
    rule, function, label = user_function(WeightRule, "weight_rule", entry, where, ARGUMENTS)
    if probe is not None and (rule.sha256, rule.function, rule.params, *probe) not in _CHECKED:
        _probe(rule, function, where, label, *probe)
        _CHECKED.add((rule.sha256, rule.function, rule.params, *probe))
    return rule


def _probe(rule: WeightRule, function, where: str, label: str, max_size: int, degree: float, n_agents: int) -> None:
    """Refuse a cap that is not a finite number >= 0, or above 1/(s - 1), at a set size
    s = 1 .. ``max_size`` (``user_weights``)."""
    degree = float(degree)
    points = ((float(s), degree, n_agents) for s in range(1, max_size + 1))
    for (size, _, _), value in probe_values(function, rule.values, points, ARGUMENTS, where, label):
        s = int(size)
        at = f"at set size s = {s} (degree {degree:g}, n_agents {n_agents})"
        if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise ConfigError(f"{where}: {label} returns q = {value!r} {at}: a cap must be a finite number >= 0")
        if s >= 2 and value > 1.0 / (s - 1):
            raise ConfigError(
                f"{where}: {label} returns q = {value!r} {at}, above 1/(s - 1) = {1.0 / (s - 1)!r}: an agent whose "
                f"s - 1 accepted neighbours have set size s too would get W_aa = 1 - (s - 1) q < 0 (W must stay "
                f"non-negative: q(s) <= 1/(s - 1) for every set size s up to {max_size})"
            )
