"""Thresholds, confidence schedules, mixing weights and step sizes of Private-C-ColME.

Everything here follows Private-C-ColME (Yakimenka et al., "Communication-Constrained
Private Decentralized Online Personalized Mean Estimation", arXiv:2511.04702), Sec. III.
The scalar threshold functions are compiled with Numba so the simulation kernel (generated
from ``ccolme.template``) and the tests call the very same code.

The decision rules built from these thresholds, and a researcher's own, are
``decision_rules``'s.  All three rules are symmetric in (a, b), also between agents with
different data or noise levels (a population with per-class sigma, a privacy mix), so the
mixing matrix of eq. (2) is doubly stochastic.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: Mixing weight 1/(max(|C_a|, |C_b|) + offset): eq. (2) uses +1 with |C| counting the
#: agent itself; standard Metropolis weights (the public C-ColME code) use +0.
WEIGHT_OFFSETS = {"eq2": 1.0, "metropolis": 0.0}

#: alpha_t schedules (Sec. III-B / Theorem 1 and Sec. V).
ALPHA_SCHEDULES = ("floor10", "theory")

#: When the alpha clock restarts: per agent when its own C_a^(t) changes (Sec. V, as in
#: [16, App. I.3]), for everybody when any C_a^(t) changes (the public C-ColME code's
#: global flag), or never.
ALPHA_RESETS = ("per_agent", "global", "none")

#: Bernstein parameter of the noisy difference X~_a - X~_b (times sqrt t): the sum
#: b~_a + b~_b of Sec. III-C1's z_theta, or Sec. II-D's
#: min(beta_X + beta_Y, sqrt 2 max(sigma_X, sigma_Y, beta_X, beta_Y)).
BERNSTEIN_BETAS = ("sec3c1", "sec2d")

#: Where the optimistic radius closes its square root: over (1 + 1/t) ln(...) too
#: (Private-C-ColME, [16, Eq. (3)]), or right after 2 (sigma_DP^2 + sigma^2)/t (as
#: Private-C-ColME's conference version prints it).
OPTIMISTIC_RADII = {"sqrt_over_all": 0, "sqrt_closed_early": 1}


def laplace_beta_dp(sigma_dp: float) -> float:
    """Bernstein parameter of Laplace(0, sigma_DP/sqrt 2) noise: sigma_DP/sqrt 2 (Sec. III-B)."""
    return sigma_dp / math.sqrt(2.0)


def noisy_mean_beta(sigma: float, beta: float, sigma_dp: float, beta_dp: float) -> float:
    """tilde-bar-beta_a of Sec. III-C1: Bernstein parameter (times sqrt t) of the noisy mean.

    ``min(max(sigma, beta) + max(sigma_DP, beta_DP),
    max(beta + beta_DP, sqrt(sigma^2 + sigma_DP^2)))``, from Lemma 3 with n = 2.
    """
    return min(
        max(sigma, beta) + max(sigma_dp, beta_dp),
        max(beta + beta_dp, math.sqrt(sigma**2 + sigma_dp**2)),
    )


@numba.njit(cache=True)
def theta_schedule(t, k):
    """Confidence level theta_t = min(2, 3 / t^(1/k)) of the Bernstein rule (Sec. V)."""
    return min(2.0, 3.0 / t ** (1.0 / k))


def difference_beta(beta_bar_a, beta_bar_b, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, form="sec3c1"):
    """Bernstein parameter (times sqrt t) of the noisy difference X~_a - X~_b.

    ``sec3c1``: b~_a + b~_b, as z_theta of Sec. III-C1 prints it; ``sec2d``: Sec. II-D's
    beta = min(beta_X + beta_Y, sqrt 2 max(sigma_X, sigma_Y, beta_X, beta_Y)) with
    sigma_X = sqrt(sigma_a^2 + sigma_DP,a^2) and beta_X = b~_a (all times sqrt t).  Each
    agent brings its own data and noise levels (a population with per-class sigma, a
    privacy mix); the paper's panels have them equal.
    """
    total = beta_bar_a + beta_bar_b
    if form == "sec3c1":
        return total
    if form == "sec2d":
        spread_a = math.sqrt(sigma_a**2 + sigma_dp_a**2)
        spread_b = math.sqrt(sigma_b**2 + sigma_dp_b**2)
        return min(total, math.sqrt(2.0) * max(spread_a, spread_b, beta_bar_a, beta_bar_b))
    raise ValueError(f"bernstein_beta must be one of {BERNSTEIN_BETAS}, got {form!r}")


@numba.njit(cache=True)
def bernstein_threshold(t, theta, sigma_a, sigma_b, beta_pair, sigma_dp_a, sigma_dp_b):
    """z_theta_t of Sec. III-C1; b is accepted iff |noisy mean difference| < z.

    ``z = 2 beta_pair/sqrt t ln(2/theta)
    + sqrt(sigma_a^2 + sigma_b^2 + sigma_DP,a^2 + sigma_DP,b^2)/sqrt t sqrt(2 ln(2/theta))``
    (the paper's 2 sigma_DP^2 when both agents share one privacy level, bit for bit:
    s + s = 2 s exactly), with ``beta_pair`` the difference's Bernstein parameter
    (``difference_beta``: b~_a + b~_b as printed).  At theta = 2 the threshold is 0 and
    nobody is accepted.
    """
    log_term = math.log(2.0 / theta)
    root_t = math.sqrt(t)
    spread = math.sqrt(sigma_a**2 + sigma_b**2 + (sigma_dp_a**2 + sigma_dp_b**2))
    return 2.0 * beta_pair / root_t * log_term + spread / root_t * math.sqrt(2.0 * log_term)


@numba.njit(cache=True)
def optimistic_radius(t, sigma, sigma_dp, degree, n_agents, delta, closed_early=False):
    """Confidence radius tilde-beta_delta(.; t) of the optimistic-distance rule (Sec. III-C2).

    ``sqrt(2 (sigma_DP^2 + sigma^2)/t (1 + 1/t) ln(4 r M sqrt(t + 1) / delta))``
    (Private-C-ColME, [16, Eq. (3)]); with ``closed_early``, ``sqrt(2 (sigma_DP^2 +
    sigma^2)/t) (1 + 1/t) ln(4 r M sqrt(t + 1) / delta)`` as Private-C-ColME's conference
    version prints it.  b is accepted iff |noisy mean difference| <= radius(a) + radius(b).
    """
    scale = 2.0 * (sigma_dp**2 + sigma**2) / t
    log_term = math.log(4.0 * degree * n_agents * math.sqrt(t + 1.0) / delta)
    if closed_early:
        return math.sqrt(scale) * (1.0 + 1.0 / t) * log_term
    return math.sqrt(scale * (1.0 + 1.0 / t) * log_term)


def alpha_table(schedule: str, t_max: int) -> np.ndarray:
    """alpha_tau for tau = 0..t_max (index 0 unused).

    ``theory``: tau/(tau + 1) (Theorem 1); ``floor10``: (floor(tau/10) + 1)/(floor(tau/10) + 2)
    (Sec. V).  tau is the agent's own clock, reset to 1 when its C_a^(t) changes.
    """
    tau = np.arange(t_max + 1, dtype=np.float64)
    if schedule == "theory":
        return tau / (tau + 1.0)
    if schedule == "floor10":
        block = np.floor(tau / 10.0)
        return (block + 1.0) / (block + 2.0)
    raise ValueError(f"alpha schedule must be one of {ALPHA_SCHEDULES}, got {schedule!r}")


def mixing_matrix(accepted: np.ndarray, weight_offset: float = 1.0, cap=None) -> np.ndarray:
    """Dense mixing matrix W^(t) from a boolean neighbour-acceptance matrix.

    ``accepted[a, b]`` says b in C_a^(t) (b != a); |C_a| counts a itself.
    W_ab = min(q_a, q_b) for accepted b, W_aa = 1 - sum of the row, with the caps q of
    ``weight_rules``: ``cap(sizes)``, the caps of the agents' set sizes (an array), or by
    default q = 1/(|C_a| + offset), i.e. W_ab = 1/(max(|C_a|, |C_b|) + offset) of eq. (2)
    (offset 1; Metropolis: 0).  Doubly stochastic whenever ``accepted`` is symmetric.
    """
    accepted = np.asarray(accepted, dtype=bool).copy()
    np.fill_diagonal(accepted, False)
    size = 1 + accepted.sum(axis=1)
    caps = 1.0 / (size + weight_offset) if cap is None else np.asarray(cap(size), dtype=np.float64)
    weights = np.where(accepted, np.minimum(caps[:, None], caps[None, :]), 0.0)
    weights[np.diag_indices_from(weights)] = 1.0 - weights.sum(axis=1)
    return weights
