"""Closed forms: seed 002's Propositions 1-2, Theorem 1, Corollary 1 and the exact finite-t
expected MSE of its Algorithm 1 under the oracle rule; seed 004's Proposition 3 and
Remark 3 (Private-ColME with an oracle class estimator), evaluated exactly.

The exact oracle expectation is the yardstick for the simulation engine: with the oracle
rule the mixing matrix W is fixed after t = 1, every agent's alpha clock equals t, and the
error e_t = mu~_t - mu obeys the linear recursion

    e_t = c_t S_t + alpha_t W e_{t-1},   c_t = (1 - alpha_t)/t,   S_t = sum_{s<=t} eta_s,

with eta_s the i.i.d. per-agent sample-plus-noise deviations (variance sigma^2 + sigma_DP^2)
and e_0 = -mu (mu~^(0) = 0).  Its first two moments follow exactly (``oracle_expected_mse``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from scipy.integrate import quad
from scipy.stats import binom

from .graphs import adjacency
from .mechanisms import (
    MECHANISMS,
    VARIANCE,
    WEIGHTS,
    new_pair_state,
    pm2_levels,
    printed_pm2_noise_table,
    release,
)
from .decision_rules import alpha_table, mixing_matrix

#: lim t * MSE / ((sigma^2 + sigma_DP^2)/n_a) for a fully mixing class component.
#: alpha_t = t/(t+1): 2 (Theorem 1).  alpha_t = (floor(t/10)+1)/(floor(t/10)+2):
#: 1 - alpha_t ~ 10/t gives 100/81 * int_0^1 (1 - x^9)^2 dx = 20/19.
ALPHA_FACTOR = {"theory": 2.0, "floor10": 20.0 / 19.0}


def local_mse(t: np.ndarray, sigma: float) -> np.ndarray:
    """Proposition 1: average MSE sigma^2 / t of the purely local sample mean."""
    return sigma**2 / np.asarray(t, dtype=np.float64)


def ideal_mse(t: np.ndarray, sigma: float, component_sizes: np.ndarray) -> np.ndarray:
    """Proposition 2: (1/(M t)) sum_a sigma^2 / n_a, the non-private pooled benchmark."""
    return np.mean(sigma**2 / np.asarray(component_sizes, dtype=np.float64)) / np.asarray(
        t, dtype=np.float64
    )


def theorem1_coefficient(
    component_sizes: np.ndarray, sigma: float, sigma_dp: float, alpha_factor: float = 2.0
) -> float:
    """t times Theorem 1's asymptotic average MSE for one instance.

    (1/M) (sum_{n_a <= 2} sigma^2 + sum_{n_a >= 3} f (sigma^2 + sigma_DP^2)/n_a) with
    f = 2 for alpha_t = t/(t+1) as in the theorem; ``alpha_factor`` = 20/19 gives the
    asymptote of the floor(t/10) schedule (``ALPHA_FACTOR``).
    """
    n = np.asarray(component_sizes, dtype=np.float64)
    small = n <= 2
    terms = np.where(small, sigma**2, alpha_factor * (sigma**2 + sigma_dp**2) / n)
    return float(terms.mean())


def corollary1_terms(component_sizes: np.ndarray, sigma: float) -> tuple[float, float]:
    """Numerator and denominator of Corollary 1's bound (3) for one instance.

    sigma_DP^2 < sum_{n_a >= 3} sigma^2 (1 - 2/n_a) / (2 sum_{n_a >= 3} 1/n_a).
    An instance without components of size >= 3 has (0, 0): no gain is possible.
    """
    n = np.asarray(component_sizes, dtype=np.float64)
    large = n[n >= 3]
    return float(np.sum(sigma**2 * (1.0 - 2.0 / large))), float(2.0 * np.sum(1.0 / large))


def oracle_mixing_matrix(
    edges: np.ndarray, classes: np.ndarray, weight_offset: float = 1.0
) -> np.ndarray:
    """W of eq. (2) when every agent accepts exactly its same-class neighbours."""
    adj = adjacency(edges, classes.shape[0])
    return mixing_matrix(adj & (classes[:, None] == classes[None, :]), weight_offset)


def oracle_expected_mse(
    edges: np.ndarray,
    classes: np.ndarray,
    agent_means: np.ndarray,
    sigma: float,
    sigma_dp: float,
    alpha_schedule: str,
    t_record: np.ndarray,
    component_sizes: np.ndarray,
    weight_offset: float = 1.0,
) -> np.ndarray:
    """Exact E[average MSE] of Algorithm 1 with the oracle rule at the times ``t_record``.

    Propagates the mean m_t = alpha_t W m_{t-1} (m_0 = -mu) and the covariances
    P_t = Cov(e_t), Q_t = E[e_t S_t^T] of the recursion in the module docstring:

        Q_t = c_t t v I + alpha_t W Q_{t-1},
        P_t = c_t^2 t v I + c_t alpha_t (W Q_{t-1} + Q_{t-1}^T W^T) + alpha_t^2 W P_{t-1} W^T,

    v = sigma^2 + sigma_DP^2.  Agents with n_a <= 2 take the final if/else branch of
    Algorithm 1 (local mean, MSE sigma^2/t).  Cost O(t_max M^3): for tests and small M.
    """
    t_record = np.asarray(t_record, dtype=np.int64)
    t_max = int(t_record[-1])
    weights = oracle_mixing_matrix(edges, classes, weight_offset)
    alpha = alpha_table(alpha_schedule, t_max)
    n_agents = classes.shape[0]
    variance = sigma**2 + sigma_dp**2
    identity = np.eye(n_agents)
    mean = -np.asarray(agent_means, dtype=np.float64)
    cov = np.zeros((n_agents, n_agents))
    cross = np.zeros((n_agents, n_agents))
    fallback = np.asarray(component_sizes) <= 2
    out = np.empty(len(t_record))
    next_record = 0
    for t in range(1, t_max + 1):
        step = alpha[t]
        gain = (1.0 - step) / t
        mixed_cross = weights @ cross
        cov = (
            gain**2 * t * variance * identity
            + gain * step * (mixed_cross + mixed_cross.T)
            + step**2 * weights @ cov @ weights.T
        )
        cross = gain * t * variance * identity + step * mixed_cross
        mean = step * weights @ mean
        if t == t_record[next_record]:
            per_agent = np.where(fallback, sigma**2 / t, np.diag(cov) + mean**2)
            out[next_record] = per_agent.mean()
            next_record += 1
    return out


# ----------------------------------------------------------------------------------------
# Seed 004: Private-ColME with an oracle class estimator (Proposition 3, Remark 3).


def release_variances(
    positions: np.ndarray, period: int, k_max: int, mechanism: str, weights: str,
    sigma2: float, sigma_dp2: float, pm2_variance: str = "mechanism",
) -> np.ndarray:
    """Var[T_{b->a}] after each of the first ``k_max`` answers of the agent at each position.

    The agent at round-robin position l answers at t_i = l + (i - 1) * period (Prop. 3 with
    period M - 1; Remark 3's rRR with period n - 1).  Row l-1, column k-1 holds Var[T]
    after k answers, from the same p-sum bookkeeping as the simulation
    (``mechanisms.release``, validated against explicit sums and the simulated mechanism).
    ``pm2_variance="as_printed"`` replaces PM-II's noise part by eq. (21) as printed.
    """
    positions = np.asarray(positions, dtype=np.int64)
    if mechanism == "pm2" and pm2_variance == "as_printed":
        data = release_variances(positions, period, k_max, mechanism, weights, sigma2, 0.0)
        printed = np.empty(k_max)
        for row, position in enumerate(positions):
            times = position + period * np.arange(k_max, dtype=np.float64)
            printed_pm2_noise_table(times, WEIGHTS[weights], printed)
            data[row] += sigma_dp2 * printed
        return data
    if pm2_variance not in ("mechanism", "as_printed"):
        raise ValueError(f"pm2_variance must be 'mechanism' or 'as_printed', got {pm2_variance!r}")
    out = np.empty((len(positions), k_max))
    _fill_release_variances(
        positions, period, sigma2, sigma_dp2, MECHANISMS[mechanism], WEIGHTS[weights], out,
        *new_pair_state(len(positions), pm2_levels(max(k_max, 1))),
    )
    return out


@numba.njit(cache=True)
def _fill_release_variances(
    positions, period, sigma2, sigma_dp2, mechanism, weights, out, state, count, noise, coef
):
    for row in range(positions.shape[0]):
        for k in range(out.shape[1]):
            t = float(positions[row] + k * period)
            release(row, t, 0.0, 0.0, sigma2, sigma_dp2, mechanism, weights, state, count, noise, coef)
            out[row, k] = state[row, VARIANCE]


def _answers_by(t: int, positions: np.ndarray, period: int) -> np.ndarray:
    """Number of answers of each position by time t: floor((t - l)/period) + 1 if t >= l."""
    return np.where(t >= positions, (t - positions) // period + 1, 0)


def _precisions(variances: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """1/Var[T] of each position given its number of answers (0 before the first)."""
    out = np.zeros(len(answers))
    has = answers > 0
    out[has] = 1.0 / variances[np.flatnonzero(has), answers[has] - 1]
    return out


def expected_inverse(own_precision: float, precisions: np.ndarray, p: float) -> float:
    """E[1/(c + sum_l B_l x_l)], B_l ~ Bernoulli(p) independent: Proposition 3's average.

    Exact up to quadrature error: 1/y = int_0^inf e^{-s y} ds turns the 2^(M-1)-term
    average over class memberships into int_0^inf e^{-s c} prod_l (1 - p + p e^{-s x_l}) ds,
    integrated adaptively (relative tolerance 1e-11) in the variable u = s c.
    """
    scaled = precisions[precisions > 0] / own_precision

    def integrand(u: float) -> float:
        return math.exp(-u + np.sum(np.log1p(p * np.expm1(-u * scaled))))

    value, _ = quad(integrand, 0.0, np.inf, epsabs=0.0, epsrel=1e-11, limit=500)
    return value / own_precision


def prop3_oracle_mse(
    n_agents: int, n_classes: int, sigma: float, sigma_dp: float, mechanism: str, weights: str,
    t_record: np.ndarray, pm2_variance: str = "mechanism",
) -> np.ndarray:
    """Proposition 3 (oracle, RR, equal known sigma): average MSE at ``t_record``, exactly.

    Each of the M - 1 others is in a's class with probability p = 1/Gamma; position l
    answers at t_i = l + (i - 1)(M - 1); the MSE given the class is 1/e_{n,t} (eq. (4)).
    """
    t_record = np.asarray(t_record, dtype=np.int64)
    period = n_agents - 1
    positions = np.arange(1, n_agents)
    k_max = int(_answers_by(int(t_record[-1]), positions, period).max())
    variances = release_variances(
        positions, period, k_max, mechanism, weights, sigma**2, sigma_dp**2, pm2_variance
    )
    p = 1.0 / n_classes
    return np.array([
        expected_inverse(t / sigma**2, _precisions(variances, _answers_by(t, positions, period)), p)
        for t in t_record
    ])


def remark3_rrr_oracle_mse(
    n_agents: int, n_classes: int, sigma: float, sigma_dp: float, mechanism: str, weights: str,
    t_record: np.ndarray, tail: float = 1e-12,
) -> np.ndarray:
    """Remark 3: the rRR analogue, a queries only its n - 1 classmates (period n - 1).

    Average over n - 1 ~ Binomial(M - 1, 1/Gamma) of 1/e_{n,t}; class sizes with
    probability below ``tail`` are skipped (their total mass is below M * tail).
    """
    t_record = np.asarray(t_record, dtype=np.int64)
    p = 1.0 / n_classes
    mates = np.arange(n_agents)
    mass = binom.pmf(mates, n_agents - 1, p)
    out = np.zeros(len(t_record))
    for m in mates[mass > tail]:
        if m == 0:
            out += mass[m] * sigma**2 / t_record
            continue
        positions = np.arange(1, m + 1)
        k_max = int(_answers_by(int(t_record[-1]), positions, m).max())
        variances = release_variances(positions, m, k_max, mechanism, weights, sigma**2, sigma_dp**2)
        for i, t in enumerate(t_record):
            total = t / sigma**2 + _precisions(variances, _answers_by(t, positions, m)).sum()
            out[i] += mass[m] / total
    return out


def ideal_all_to_all_mse(n_agents: int, n_classes: int, sigma: float, t_record: np.ndarray) -> np.ndarray:
    """Proposition 2 averaged over random classes: E[sigma^2/(n t)], n - 1 ~ Bin(M - 1, 1/Gamma)."""
    mates = np.arange(n_agents)
    mean_inverse = np.sum(binom.pmf(mates, n_agents - 1, 1.0 / n_classes) / (mates + 1))
    return sigma**2 * mean_inverse / np.asarray(t_record, dtype=np.float64)
