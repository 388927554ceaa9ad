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

import numba
import numpy as np
from scipy.special import ndtri

from .._jit import jit_noalias
from ..populations import UniformClasses
from ..privacy import gaussian_sigma_dp, laplace_sigma_dp, unit_laplace
from ..timegrid import checked_t_record
from .mechanisms import (
    DATA_COEF,
    LAST_TIME,
    MECHANISMS,
    NOISE_VAR,
    STATISTIC,
    VARIANCE,
    WEIGHTS,
    new_pair_state,
    pm2_levels,
    release,
)
from .variance import BAYES_PRIORS, VARIANCE_SCHEMES, bayes_variance, student_t_quantile, welch_dof

SCHEDULES = {"rr": 0, "rrr": 1}
RETESTS = ("query", "every_step")
#: Per recorded t, averaged over agents: the share of a's classmates in C_a, the share of
#: the other agents in C_a, and the mean number of releases kappa per accepted pair.
DIAGNOSTICS = ("classmates in C_a", "non-classmates in C_a", "releases per accepted pair")


#: Why a curve estimating its variance with another mechanism than PM-I cannot run.
UNSUPPORTED_VARIANCE = "variance estimation (Sec. V) is implemented for PM-I only: use mechanism pm1"


def variance_supported(variance: str, mechanism: str) -> bool:
    """Whether a curve can run: variance estimation (Sec. V) is implemented for PM-I only."""
    return variance == "known" or mechanism == "pm1"


@dataclass(frozen=True)
class ColmeCurve:
    """One curve: query schedule, release mechanism, statistic weights, noise law, rule."""

    schedule: str = "rr"
    mechanism: str = "pm1"
    weights: str = "last"
    noise: str = "gaussian"
    oracle: bool = False
    variance: str = "known"  # known | schvar1 | schvar2 | schvar2_bayes (Sec. V)

    @property
    def name(self) -> str:
        schedule = {"rr": "RR", "rrr": "rRR"}[self.schedule]
        mechanism = {"pm1": "PM-I", "pm2": "PM-II"}[self.mechanism]
        weights = {"last": "non-MoM", "mom": "MoM", "wmom": "wMoM"}[self.weights]
        label = f"{schedule} {mechanism} {weights} {self.noise}"
        scheme = {"known": "", "schvar1": " Sch-Var-1", "schvar2": " Sch-Var-2",
                  "schvar2_bayes": " Sch-Var-2 Bayes"}[self.variance]
        return label + scheme + (" oracle" if self.oracle else "")


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
    population: UniformClasses = UniformClasses()  # noqa: RUF009 - frozen, so shared safely
    pm2_variance: str = "mechanism"  # analytic curves: the mechanism's Var[T] or eq. (21) as printed
    bayes_prior: str = "uninformative"  # eq. (19) prior; footnote 3: jeffreys, flat
    welch_dof: str = "t_kappa"  # Sch-Var-2's Welch degrees of freedom: t_kappa - 1 (as printed) or kappa - 1
    schvar2_first_interval: str = "keep"  # keep or drop Sch-Var-2's short first query interval

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    @property
    def split(self) -> int:
        """PM-II's composition factor (Sec. VII: floor(log2 t_max) + 1)."""
        return self.pm2_split if self.pm2_split is not None else int(math.log2(self.t_max)) + 1

    def psum_budget(self, curve: ColmeCurve) -> tuple[float, float]:
        """(eps, delta) of one p-sum release: the overall budget, divided for PM-II, and
        halved for Sch-Var-1, which spends the other half on the variance releases."""
        divisor = (self.split if curve.mechanism == "pm2" else 1) * (2 if curve.variance == "schvar1" else 1)
        return self.eps / divisor, self.delta / divisor

    def sigma_w(self, curve: ColmeCurve) -> float:
        """Noise of a released partial sample variance (Sch-Var-1): Lemma 3 (Gaussian,
        sigma^2 = 32 L^4 ln(1.25/delta)/eps^2) or its Laplace analogue (32 L^4/eps^2)."""
        if curve.variance != "schvar1":
            return 0.0
        eps, delta = self.psum_budget(curve)
        fourth = 32.0 * self.population.half_width**4
        factor = math.log(1.25 / delta) if curve.noise == "gaussian" else 1.0
        return math.sqrt(fourth * factor) / eps

    def sigma_dp(self, curve: ColmeCurve) -> float:
        """Noise standard deviation of one p-sum (Lemma 1 Gaussian, Lemma 2 Laplace)."""
        eps, delta = self.psum_budget(curve)
        half_width = self.population.half_width
        if curve.noise == "gaussian":
            return gaussian_sigma_dp(eps, delta, half_width)
        return laplace_sigma_dp(eps, half_width)


def decision_thresholds(theta0: float, t_max: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per t = 0..t_max: z_t^2, theta_t = theta0 / ln(t + 1) and Phi^{-1}(theta_t / 2).

    z_t = Phi^{-1}(1 - theta_t/2) is the known-variance threshold (Sec. III-C1); the Welch
    test (Sec. III-C2) turns theta_t and Phi^{-1}(theta_t/2) into a Student-t quantile.
    """
    t = np.arange(t_max + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        theta = np.minimum(theta0 / np.log(t + 1.0), 1.0)
    theta[0] = 1.0
    z_lower = ndtri(theta / 2.0)
    return z_lower**2, theta, z_lower


@jit_noalias
def _simulate_colme_run(
    classes, agent_means, half_width, sigma2, schedule, mechanism, weights, gaussian,
    oracle, every_step, sigma_dp, sigma_w, scheme, bayes_offset, dof_from_count, drop_first,
    z2, theta, z_lower, t_record, rng, mse_out, diagnostics_out,
    chi, stat, var, prec, sample_sum, sample_sq, fresh, fresh_w, pointer,
    state, count, block_noise, block_coef, estimates,
):
    """One run of Algorithm 1 for one curve; writes the average MSE at ``t_record``, and
    the ``DIAGNOSTICS`` at those times to ``diagnostics_out`` (3, len(t_record)).

    ``chi``/``stat``/``var``/``prec`` (M, M) hold, for receiver a and sender b,
    chi_a(b), T_{b->a}, Var[T_{b->a}] (known variance) or its estimate (Sec. III-C2),
    and 1/Var (0 before the first answer).  ``scheme``: 0 known variance (z-test,
    eq. (3)); 1 Sch-Var-1, 2 Sch-Var-2, 3 Sch-Var-2 with eq. (19) (Welch test, eq. (5)).
    ``estimates`` (M*M, 8) is the per-pair variance-estimation state (``_estimate_variance``).
    Sch-Var-2 variants: ``dof_from_count`` gives the Welch test kappa - 1 degrees of freedom
    for b's estimate (the number of intervals it is built from) instead of the printed
    t_kappa - 1; ``drop_first`` leaves out the first query interval (shorter than M - 1
    under RR), so that every interval has the gap the Bayesian estimator assumes.
    """
    n = classes.shape[0]
    known = scheme == 0
    first = 1 if drop_first and scheme >= 2 else 0  # Sch-Var-2 intervals left out
    by_count = dof_from_count and scheme >= 2
    for a in range(n):
        sample_sum[a] = 0.0
        sample_sq[a] = 0.0
        pointer[a] = -1
        for b in range(n):
            chi[a, b] = 1 if (not oracle or classes[a] == classes[b]) and a != b else 0
            stat[a, b] = 0.0
            var[a, b] = np.inf
            prec[a, b] = 0.0
    next_record = 0
    for t in range(1, t_record[-1] + 1):
        for a in range(n):
            x = agent_means[a] + half_width * (2.0 * rng.random() - 1.0)
            sample_sum[a] += x
            sample_sq[a] += x * x
            normal = rng.standard_normal()
            laplace = unit_laplace(rng.random())
            fresh[a] = sigma_dp * (normal if gaussian else laplace)
            normal = rng.standard_normal()
            laplace = unit_laplace(rng.random())
            fresh_w[a] = sigma_w * (normal if gaussian else laplace)
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
            gap_time = t - state[pair, LAST_TIME]
            value = release(pair, float(t), sample_sum[b] / t, fresh[a], sigma2, sigma_dp * sigma_dp,
                            mechanism, weights, state, count, block_noise, block_coef)
            stat[a, b] = state[pair, STATISTIC]
            if known:
                var[a, b] = state[pair, VARIANCE]
            else:
                estimate = _estimate_variance(
                    estimates[pair], scheme, bayes_offset, float(t), gap_time, count[pair], value,
                    sample_sum[b], sample_sq[b], fresh[a], fresh_w[a], sigma_dp * sigma_dp, first,
                )
                var[a, b] = estimate * state[pair, DATA_COEF] + state[pair, NOISE_VAR]
            prec[a, b] = 1.0 / var[a, b]
            if not oracle and not every_step:
                other_count = float(count[pair] - first) if by_count else float(t)
                chi[a, b] = _accept(known, sample_sum[a], sample_sq[a], float(t), stat[a, b],
                                    var[a, b], other_count, sigma2, z2[t], theta[t], z_lower[t])
        record = t == t_record[next_record]
        squared_error = 0.0
        mates_share = others_share = releases = 0.0
        with_mates = with_others = accepted_pairs = 0
        for a in range(n):
            own_mean = sample_sum[a] / t
            if every_step and not oracle:
                for b in range(n):
                    other_count = (float(count[a * n + b] - first) if by_count
                                   else state[a * n + b, LAST_TIME])
                    chi[a, b] = a != b and _accept(
                        known, sample_sum[a], sample_sq[a], float(t), stat[a, b], var[a, b],
                        other_count, sigma2, z2[t], theta[t], z_lower[t])
            if record:
                own_var = sigma2 if known else _sample_variance(sample_sum[a], sample_sq[a], float(t))
                if own_var > 0.0:
                    weighted = own_mean * t / own_var
                    total = t / own_var
                    for b in range(n):
                        on = prec[a, b] if chi[a, b] else 0.0
                        weighted += on * stat[a, b]
                        total += on
                    error = weighted / total - agent_means[a]
                else:  # t = 1 without a known variance: no weights yet, keep the own mean
                    error = own_mean - agent_means[a]
                squared_error += error * error
                mates = others = mates_in = others_in = 0
                for b in range(n):
                    if b == a:
                        continue
                    same = classes[a] == classes[b]
                    mates += same
                    others += not same
                    if chi[a, b]:
                        mates_in += same
                        others_in += not same
                        releases += count[a * n + b]
                        accepted_pairs += 1
                if mates:
                    mates_share += mates_in / mates
                    with_mates += 1
                if others:
                    others_share += others_in / others
                    with_others += 1
        if record:
            mse_out[next_record] = squared_error / n
            diagnostics_out[0, next_record] = mates_share / with_mates if with_mates else np.nan
            diagnostics_out[1, next_record] = others_share / with_others if with_others else np.nan
            diagnostics_out[2, next_record] = releases / accepted_pairs if accepted_pairs else np.nan
            next_record += 1


@numba.njit(cache=True)
def _sample_variance(total, squares, t):
    """V_a^(t) of Sec. III-C2 (unbiased); 0 (unknown) before two samples."""
    if t < 2.0:
        return 0.0
    return max((squares - total * total / t) / (t - 1.0), 0.0)


@numba.njit(cache=True)
def _accept(known, own_sum, own_sq, t, statistic, variance, t_kappa, sigma2, z2, theta, z_lower):
    """chi_a(b): z-test with known variance (Sec. III-C1) or Welch test (Sec. III-C2).

    ``t_kappa`` is the number of values behind b's variance estimate (its Welch degrees
    of freedom are t_kappa - 1).  An infinite (not yet estimable) Var[T] accepts b, with
    weight 0.
    """
    if variance == np.inf:
        return 1
    gap = own_sum / t - statistic
    if known:
        return 1 if gap * gap < z2 * (sigma2 / t + variance) else 0
    own = _sample_variance(own_sum, own_sq, t) / t
    if t < 2.0 or t_kappa < 2.0 or own <= 0.0:
        return 1
    quantile = student_t_quantile(theta, z_lower, welch_dof(own, t, variance, t_kappa))
    return 1 if gap * gap < quantile * quantile * (own + variance) else 0


@numba.njit(cache=True)
def _estimate_variance(
    row, scheme, bayes_offset, t, gap, k, value, sender_sum, sender_sq, noise, noise_w, sigma_dp2,
    first=0,
):
    """V_{b->a} after b's k-th answer (PM-I): Sch-Var-1 (eq. (8)) or Sch-Var-2 (eq. (16), (19)).

    ``row``: [t_{k-1} R_{k-1}, sum (Y + Z~), sum (Y + Z~)^2, sum 1/gap, sum V~~ (eq. (7)),
    sender's sample sum and sum of squares at the previous answer].  Sch-Var-2 rebuilds
    each interval's noisy sum from two consecutive answers, t_k R_k - t_{k-1} R_{k-1},
    as agent a can; Sch-Var-1's partial variances (eqs. (6)-(7)) are computed by agent b.
    Sch-Var-2 leaves out its ``first`` intervals (0 or 1; eq. (16) then runs over the
    kappa - first others).  Returns inf where the estimate is not available yet or
    negative (weight 0).
    """
    interval = t * value - row[0]
    row[0] = t * value
    if k <= first:
        return np.inf
    row[3] += 1.0 / gap
    if scheme == 1:
        part_sum = sender_sum - row[5]
        part_sq = sender_sq - row[6]
        row[5] = sender_sum
        row[6] = sender_sq
        partial = part_sq - part_sum * part_sum / gap + (gap - 1.0) / gap * noise_w
        row[4] += partial + (part_sum + noise) ** 2 / gap
        if t < 2.0:
            return np.inf
        estimate = (row[4] - t * value * value - sigma_dp2 * (row[3] - k / t)) / (t - 1.0)
        return estimate if estimate > 0.0 else np.inf
    row[1] += interval / math.sqrt(gap)
    row[2] += interval * interval / gap
    kappa = k - first
    if kappa < 2:
        return np.inf
    v_prime = (row[2] - row[1] * row[1] / kappa) / (kappa - 1.0)
    noise_var = sigma_dp2 * row[3] / kappa
    estimate = v_prime - noise_var
    if estimate >= 0.0:
        return estimate if estimate > 0.0 else np.inf
    if scheme == 3:
        return bayes_variance(v_prime, float(kappa), noise_var, bayes_offset)
    return np.inf


def simulate_colme_runs(
    spec: ColmeSpec,
    classes: np.ndarray,
    generators: list[np.random.Generator],
    diagnostics: np.ndarray | None = None,
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)); every curve replays each run's stream.

    ``diagnostics`` (runs, curves, len(DIAGNOSTICS), len(t_record)), if given, receives the
    ``DIAGNOSTICS`` of every run and curve.
    """
    t_record = checked_t_record(spec.t_record)
    if spec.retest not in RETESTS:
        raise ValueError(f"retest must be one of {RETESTS}, got {spec.retest!r}")
    for curve in spec.curves:
        if not variance_supported(curve.variance, curve.mechanism):
            raise ValueError(f"{curve.name}: {UNSUPPORTED_VARIANCE}")
    n = spec.n_agents
    thresholds = decision_thresholds(spec.theta0, spec.t_max)
    levels = pm2_levels(spec.t_max)
    population = spec.population
    mse = np.empty((classes.shape[0], len(spec.curves), len(t_record)))
    if diagnostics is None:
        diagnostics = np.empty((*mse.shape[:2], len(DIAGNOSTICS), len(t_record)))
    matrices = [np.zeros((n, n)) for _ in range(3)]
    chi = np.zeros((n, n), dtype=np.uint8)
    for run in range(classes.shape[0]):
        for index, curve in enumerate(spec.curves):
            pair_state = new_pair_state(n * n, levels)
            _simulate_colme_run(
                classes[run].astype(np.int64), population.agent_means(classes[run]),
                population.half_width, population.sigma**2, SCHEDULES[curve.schedule],
                MECHANISMS[curve.mechanism], WEIGHTS[curve.weights], curve.noise == "gaussian",
                curve.oracle, spec.retest == "every_step", spec.sigma_dp(curve), spec.sigma_w(curve),
                VARIANCE_SCHEMES[curve.variance], BAYES_PRIORS[spec.bayes_prior],
                spec.welch_dof == "kappa", spec.schvar2_first_interval == "drop", *thresholds,
                t_record, copy.deepcopy(generators[run]), mse[run, index], diagnostics[run, index],
                chi, *matrices, *(np.zeros(n) for _ in range(4)), np.zeros(n, dtype=np.int64),
                *pair_state, np.zeros((n * n, 8)),
            )
    return mse
