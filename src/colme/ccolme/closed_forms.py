"""Closed forms of Private-C-ColME (Yakimenka et al. 2025, arXiv:2511.04702): Theorem 1,
Corollary 1 and the exact finite-t expected MSE of Algorithm 1 under the oracle rule
(Propositions 1-2, Local and Ideal, are in ``colme.baselines``).

The exact oracle expectation is the yardstick for the simulation engine: with the oracle
rule the mixing matrix W is fixed after t = 1, every agent's alpha clock equals t, and the
error e_t = mu~_t - mu obeys the linear recursion

    e_t = c_t S_t + alpha_t W e_{t-1},   c_t = (1 - alpha_t)/t,   S_t = sum_{s<=t} eta_s,

with eta_s the i.i.d. per-agent sample-plus-noise deviations (variance sigma^2 + sigma_DP^2)
and e_0 = -mu (mu~^(0) = 0).  Its first two moments follow exactly (``oracle_expected_mse``).
"""

from __future__ import annotations

import numpy as np

from ..graphs import adjacency
from .rules import alpha_table, mixing_matrix

#: lim t * MSE / ((sigma^2 + sigma_DP^2)/n_a) for a fully mixing class component.
#: alpha_t = t/(t+1): 2 (Theorem 1).  alpha_t = (floor(t/10)+1)/(floor(t/10)+2):
#: 1 - alpha_t ~ 10/t gives 100/81 * int_0^1 (1 - x^9)^2 dx = 20/19.
ALPHA_FACTOR = {"theory": 2.0, "floor10": 20.0 / 19.0}


def theorem1_coefficient(
    component_sizes: np.ndarray, sigma, sigma_dp, alpha_factor: float = 2.0
) -> float:
    """t times Theorem 1's asymptotic average MSE for one instance.

    (1/M) (sum_{n_a <= 2} sigma^2 + sum_{n_a >= 3} f (sigma^2 + sigma_DP^2)/n_a) with
    f = 2 for alpha_t = t/(t+1) as in the theorem; ``alpha_factor`` = 20/19 gives the
    asymptote of the floor(t/10) schedule (``ALPHA_FACTOR``).  ``sigma`` and ``sigma_dp``
    may be per-agent arrays where the laws differ by class: the theorem's per-component
    argument holds term by term, a class-induced component sharing one law.
    """
    return float(theorem1_terms(component_sizes, sigma, sigma**2 + sigma_dp**2, alpha_factor).mean())


def theorem1_terms(component_sizes: np.ndarray, sigma, noisy_variance, alpha_factor: float = 2.0) -> np.ndarray:
    """Each agent's term of Theorem 1 (t times its asymptotic MSE): sigma^2 for n_a <= 2
    (the local mean), f * noisy_variance / n_a otherwise, where ``noisy_variance`` is
    sigma^2 + sigma_DP^2 of the agent's component (per agent where the agents differ)."""
    n = np.asarray(component_sizes, dtype=np.float64)
    return np.where(n <= 2, sigma**2, alpha_factor * noisy_variance / n)


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
    per_agent: bool = False,
) -> np.ndarray:
    """Exact E[average MSE] of Algorithm 1 with the oracle rule at the times ``t_record``
    (``per_agent``: each agent's E[MSE], (len(t_record), M), whose mean is the average).

    Propagates the mean m_t = alpha_t W m_{t-1} (m_0 = -mu) and the covariances
    P_t = Cov(e_t), Q_t = E[e_t S_t^T] of the recursion in the module docstring:

        Q_t = c_t t v I + alpha_t W Q_{t-1},
        P_t = c_t^2 t v I + c_t alpha_t (W Q_{t-1} + Q_{t-1}^T W^T) + alpha_t^2 W P_{t-1} W^T,

    v = sigma^2 + sigma_DP^2.  Agents with n_a <= 2 take the final if/else branch of
    Algorithm 1 (local mean, MSE sigma^2/t).  Cost O(t_max M^3): for tests and small M.

    Agents may differ: ``sigma`` and ``sigma_dp`` may be per-agent arrays (per-class
    laws, privacy mixes), so v I becomes diag(v); and when the means differ within a class
    (jitter) the mean gains the drift alpha_t (W mu - mu) of consensus towards the
    neighbours' means: m_t = alpha_t W m_{t-1} + alpha_t (W - I) mu.
    """
    t_record = np.asarray(t_record, dtype=np.int64)
    t_max = int(t_record[-1])
    weights = oracle_mixing_matrix(edges, classes, weight_offset)
    alpha = alpha_table(alpha_schedule, t_max)
    n_agents = classes.shape[0]
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (n_agents,))
    variance = np.diag(sigma**2 + np.broadcast_to(np.asarray(sigma_dp, dtype=np.float64), (n_agents,)) ** 2)
    mu = np.asarray(agent_means, dtype=np.float64)
    drift = weights @ mu - mu
    mean = -mu
    cov = np.zeros((n_agents, n_agents))
    cross = np.zeros((n_agents, n_agents))
    fallback = np.asarray(component_sizes) <= 2
    out = np.empty((len(t_record), n_agents))
    next_record = 0
    for t in range(1, t_max + 1):
        step = alpha[t]
        gain = (1.0 - step) / t
        mixed_cross = weights @ cross
        cov = (
            gain**2 * t * variance
            + gain * step * (mixed_cross + mixed_cross.T)
            + step**2 * weights @ cov @ weights.T
        )
        cross = gain * t * variance + step * mixed_cross
        mean = step * (weights @ mean + drift)
        if t == t_record[next_record]:
            out[next_record] = np.where(fallback, sigma**2 / t, np.diag(cov) + mean**2)
            next_record += 1
    return out if per_agent else out.mean(axis=1)
