"""Closed forms of Private-ColME (Yakimenka et al. 2024, arXiv:2411.07094): Proposition 3
(RR) and Remark 3 (rRR), Private-ColME with an oracle class estimator, evaluated exactly,
and Ideal averaged over random classes."""

from __future__ import annotations

import math

import numba
import numpy as np

from .mechanisms import (
    MECHANISMS,
    VARIANCE,
    WEIGHTS,
    PairState,
    pm2_levels,
    printed_pm2_noise_table,
    release,
)


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
        positions=positions, period=period, sigma2=sigma2, sigma_dp2=sigma_dp2,
        mechanism=MECHANISMS[mechanism], weights=WEIGHTS[weights], out=out,
        **PairState.new(len(positions), pm2_levels(max(k_max, 1))).arguments(),
    )
    return out


@numba.njit(cache=True)
def _fill_release_variances(
    positions, period, sigma2, sigma_dp2, mechanism, weights, out, state, count, block_noise, block_coef
):
    """Var[T] after each answer (no data, no noise: the variance does not depend on them)."""
    for row in range(positions.shape[0]):
        for k in range(out.shape[1]):
            release(
                pair=row, t=float(positions[row] + k * period), sample_mean=0.0, fresh_noise=0.0,
                sigma2=sigma2, sigma_dp2=sigma_dp2, mechanism=mechanism, weights=weights,
                state=state, count=count, block_noise=block_noise, block_coef=block_coef,
            )
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

    from scipy.integrate import quad  # lazy: scipy.integrate and scipy.stats cost every job ~0.4 s of start-up

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
    from scipy.stats import binom  # lazy: as quad's

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
    from scipy.stats import binom  # lazy: as quad's

    mean_inverse = np.sum(binom.pmf(mates, n_agents - 1, 1.0 / n_classes) / (mates + 1))
    return sigma**2 * mean_inverse / np.asarray(t_record, dtype=np.float64)
