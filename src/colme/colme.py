"""Private-ColME (seed 004, Algorithm 1): all-to-all queries, compiled Monte Carlo engine.

At every step each agent a receives a sample, queries one agent b (round-robin, or
restricted round-robin over C_a^(t-1)), which answers through a p-sum release mechanism
(``mechanisms.release``); a tests every b (decision rule of Sec. III-C1 with
theta_t = 0.05/ln(t+1)) and combines its own mean and the accepted statistics T_{b->a}
with the inverse-variance weights of eq. (3).

Interpretations where the paper is silent (recorded in the figures' metadata):

* RR order: agent a queries the other agents in increasing index order, cyclically,
  starting with the lowest index (position l = 1..M-1 is queried at t = l + (i-1)(M-1),
  as in Proposition 3).  rRR scans the same cyclic order from the last queried position
  and takes the first agent in C_a^(t-1); if there is none, a queries nobody that step.
* ``retest="query"`` (default): chi_a(b) is re-evaluated only when b answers, at
  t = t_kappa with X-bar_a^(t_kappa) (the paper's "t = t_kappa");
  ``retest="every_step"`` re-tests every b at every t with the current X-bar_a^(t).
* Before b's first answer, b is in C_a (chi = 1) with T = 0 and Var[T] = inf: weight 0.
* Common random numbers: every curve of a panel sees the same samples and the same
  standard Gaussian and Laplace draws (one of each per receiving agent and step).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from ._jit import jit_noalias
from .mechanisms import (
    MECHANISMS,
    STATISTIC,
    VARIANCE,
    WEIGHTS,
    new_pair_state,
    pm2_levels,
    release,
)
from .populations import UniformClasses
from .privacy import gaussian_sigma_dp, laplace_sigma_dp, unit_laplace

SCHEDULES = {"rr": 0, "rrr": 1}
NOISES = ("gaussian", "laplace")
RETESTS = ("query", "every_step")


@dataclass(frozen=True)
class ColmeCurve:
    """One curve: query schedule, release mechanism, statistic weights, noise law, rule."""

    schedule: str = "rr"
    mechanism: str = "pm1"
    weights: str = "last"
    noise: str = "gaussian"
    oracle: bool = False

    @property
    def name(self) -> str:
        schedule = {"rr": "RR", "rrr": "rRR"}[self.schedule]
        mechanism = {"pm1": "PM-I", "pm2": "PM-II"}[self.mechanism]
        weights = {"last": "non-MoM", "mom": "MoM", "wmom": "wMoM"}[self.weights]
        label = f"{schedule} {mechanism} {weights} {self.noise}"
        return label + (" oracle" if self.oracle else "")


@dataclass(frozen=True)
class ColmeSpec:
    """A Private-ColME panel: agents, curves, privacy and the recorded times."""

    n_agents: int
    curves: tuple[ColmeCurve, ...]
    t_record: np.ndarray
    eps: float = 1.0
    delta: float = 1e-6
    pm2_split: int | None = None  # PM-II's (eps, delta) divisor; None: floor(log2 t_max) + 1
    theta0: float = 0.05
    retest: str = "query"
    population: UniformClasses = UniformClasses()
    pm2_variance: str = "mechanism"  # analytic curves: the mechanism's Var[T] or eq. (21) as printed

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    @property
    def split(self) -> int:
        """PM-II's composition factor (Sec. VII: floor(log2 t_max) + 1)."""
        return self.pm2_split if self.pm2_split is not None else int(math.log2(self.t_max)) + 1

    def psum_budget(self, curve: ColmeCurve) -> tuple[float, float]:
        """(eps, delta) of one p-sum release: the overall budget, divided for PM-II."""
        divisor = self.split if curve.mechanism == "pm2" else 1
        return self.eps / divisor, self.delta / divisor

    def sigma_dp(self, curve: ColmeCurve) -> float:
        """Noise standard deviation of one p-sum (Lemma 1 Gaussian, Lemma 2 Laplace)."""
        eps, delta = self.psum_budget(curve)
        half_width = self.population.half_width
        if curve.noise == "gaussian":
            return gaussian_sigma_dp(eps, delta, half_width)
        return laplace_sigma_dp(eps, half_width)


def decision_thresholds(theta0: float, t_max: int) -> np.ndarray:
    """z_t^2 = Phi^{-1}(1 - theta_t/2)^2 with theta_t = theta0 / ln(t + 1), t = 0..t_max."""
    t = np.arange(t_max + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        theta = np.minimum(theta0 / np.log(t + 1.0), 1.0)
    z = ndtri(1.0 - theta / 2.0)
    z[0] = 0.0
    return z**2


@jit_noalias
def _simulate_colme_run(
    classes, agent_means, half_width, sigma2, schedule, mechanism, weights, gaussian,
    oracle, every_step, sigma_dp, z2, t_record, rng, mse_out,
    chi, stat, var, prec, sample_sum, fresh, pointer,
    state, count, block_noise, block_coef,
):
    """One run of Algorithm 1 for one curve; writes the average MSE at ``t_record``.

    ``chi``/``stat``/``var``/``prec`` (M, M) hold, for receiver a and sender b,
    chi_a(b), T_{b->a}, Var[T_{b->a}] and 1/Var[T_{b->a}] (0 before the first answer).
    """
    n = classes.shape[0]
    for a in range(n):
        sample_sum[a] = 0.0
        pointer[a] = -1
        for b in range(n):
            chi[a, b] = 1 if (not oracle or classes[a] == classes[b]) and a != b else 0
            stat[a, b] = 0.0
            var[a, b] = np.inf
            prec[a, b] = 0.0
    next_record = 0
    for t in range(1, t_record[-1] + 1):
        for a in range(n):
            sample_sum[a] += agent_means[a] + half_width * (2.0 * rng.random() - 1.0)
            normal = rng.standard_normal()
            laplace = unit_laplace(rng.random())
            fresh[a] = sigma_dp * (normal if gaussian else laplace)
        for a in range(n):
            if schedule == 0:
                position = (t - 1) % (n - 1)
                b = position if position < a else position + 1
            else:
                b = -1
                for step in range(1, n):
                    position = (pointer[a] + step) % (n - 1)
                    candidate = position if position < a else position + 1
                    if chi[a, candidate]:
                        b = candidate
                        pointer[a] = position
                        break
            if b < 0:
                continue
            pair = a * n + b
            release(pair, float(t), sample_sum[b] / t, fresh[a], sigma2, sigma_dp * sigma_dp,
                    mechanism, weights, state, count, block_noise, block_coef)
            stat[a, b] = state[pair, STATISTIC]
            var[a, b] = state[pair, VARIANCE]
            prec[a, b] = 1.0 / var[a, b]
            if not oracle and not every_step:
                gap = sample_sum[a] / t - stat[a, b]
                chi[a, b] = 1 if gap * gap < z2[t] * (sigma2 / t + var[a, b]) else 0
        record = t == t_record[next_record]
        squared_error = 0.0
        for a in range(n):
            own_mean = sample_sum[a] / t
            if every_step and not oracle:
                limit = z2[t] * sigma2 / t
                for b in range(n):
                    gap = own_mean - stat[a, b]
                    chi[a, b] = 1 if gap * gap < limit + z2[t] * var[a, b] and a != b else 0
            if record:
                weighted = own_mean * t / sigma2
                total = t / sigma2
                for b in range(n):
                    on = prec[a, b] if chi[a, b] else 0.0
                    weighted += on * stat[a, b]
                    total += on
                error = weighted / total - agent_means[a]
                squared_error += error * error
        if record:
            mse_out[next_record] = squared_error / n
            next_record += 1


def simulate_colme_runs(
    spec: ColmeSpec, classes: np.ndarray, generators: list[np.random.Generator]
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)); every curve replays each run's stream."""
    t_record = np.asarray(spec.t_record, dtype=np.int64)
    if t_record.ndim != 1 or t_record[0] < 1 or np.any(np.diff(t_record) <= 0):
        raise ValueError("t_record must be strictly increasing times >= 1")
    if spec.retest not in RETESTS:
        raise ValueError(f"retest must be one of {RETESTS}, got {spec.retest!r}")
    n = spec.n_agents
    z2 = decision_thresholds(spec.theta0, spec.t_max)
    levels = pm2_levels(spec.t_max)
    population = spec.population
    mse = np.empty((classes.shape[0], len(spec.curves), len(t_record)))
    matrices = [np.zeros((n, n)) for _ in range(3)]
    chi = np.zeros((n, n), dtype=np.uint8)
    for run in range(classes.shape[0]):
        for index, curve in enumerate(spec.curves):
            pair_state = new_pair_state(n * n, levels)
            _simulate_colme_run(
                classes[run].astype(np.int64), population.agent_means(classes[run]),
                population.half_width, population.sigma**2, SCHEDULES[curve.schedule],
                MECHANISMS[curve.mechanism], WEIGHTS[curve.weights], curve.noise == "gaussian",
                curve.oracle, spec.retest == "every_step", spec.sigma_dp(curve), z2, t_record,
                copy.deepcopy(generators[run]), mse[run, index],
                chi, *matrices, np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64),
                *pair_state,
            )
    return mse
