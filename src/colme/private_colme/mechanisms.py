"""Private release mechanisms with p-sums and the statistic T_{b->a} (Private-ColME,
arXiv:2411.07094, Secs. III-A, IV).

Agent b answers the k-th query of agent a at time t_k with X-bar_b^(t_k) + Z^(t_k), where
t_k Z^(t_k) is a sum of p-sum noises (Sec. IV): PM-I uses one p-sum per query interval
(t_{i-1}, t_i] (all k of them), PM-II joins them into the w_H(k) dyadic blocks of the binary
representation of k.  The same interval always carries the same noise value: PM-I keeps
the running noise sum (O(1) state), PM-II the noise of each open dyadic block (O(log k)).

Agent a combines the releases into T = sum_j w_j R_j (eq. (1)) with uniform weights over a
window of releases W = [m, k]: non-MoM (m = k), MoM (m = 1) and wMoM (m = 2^floor(log2 k);
the printed normalisation 1/(k - 2^floor(log2 k) + 1) is not a valid weight, so the window
is uniformly weighted).  Var[T] is maintained exactly and incrementally from the actual
p-sum structure (each p-sum's noise counted once with its total coefficient):

    data part  sigma^2 (t_{m-1} S^2 + sum_{i in W} (t_i - t_{i-1}) U_i^2) / n^2,
    PM-I noise sigma_DP^2 ((m - 1) S^2 + sum_{i in W} U_i^2) / n^2,
    PM-II noise sigma_DP^2 (sum over dyadic blocks B of (sum_{j in W using B} 1/t_j)^2) / n^2,

with U_i = sum_{j in W, j >= i} 1/t_j, S = U_m and n = |W|.  Sums of squared suffix sums
update in O(1) per release: adding u = 1/t_k to every suffix turns sum c_i U_i^2 into
sum c_i U_i^2 + 2 u sum c_i U_i + u^2 sum c_i.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

WEIGHTS = {"last": 0, "mom": 1, "wmom": 2}
MECHANISMS = {"pm1": 0, "pm2": 1}

# Columns of the per-pair float state (one row per ordered pair b -> a).
(
    LAST_TIME,  # t_{k-1}: time of the previous release
    PRE_TIME,  # t_{m-1}: time of the last release before the window
    PRE_COUNT,  # m - 1: releases before the window
    SUFFIX_SUM,  # S = sum_{j in W} 1/t_j
    DATA_SQ,  # sum_{i in W} (t_i - t_{i-1}) U_i^2
    DATA_LIN,  # sum_{i in W} (t_i - t_{i-1}) U_i
    DATA_CNT,  # sum_{i in W} (t_i - t_{i-1})
    NOISE_SQ,  # sum_{i in W} U_i^2  (PM-I)
    NOISE_LIN,  # sum_{i in W} U_i
    RELEASE_SUM,  # sum_{j in W} R_j
    NOISE_TOTAL,  # PM-I: running sum of all p-sum noises
    CLOSED_SQ,  # PM-II: sum of squared coefficients of closed dyadic blocks
    STATISTIC,  # T
    VARIANCE,  # Var[T] (inf before the first release)
    DATA_COEF,  # Var[T] = DATA_COEF * sigma_b^2 + NOISE_VAR
    NOISE_VAR,
    N_FIELDS,
) = range(17)


def pm2_levels(max_releases: int) -> int:
    """Dyadic levels PM-II needs for up to ``max_releases`` releases: floor(log2 k) + 1."""
    return int(max_releases).bit_length()


class PairState(NamedTuple):
    """The p-sum bookkeeping of ``n_pairs`` ordered pairs b -> a (``release``'s state; an
    argument group of Private-ColME's kernel, inside its ``Workspace``).

    The field names are ``release``'s parameter names: ``arguments()`` passes them by name.
    """

    state: np.ndarray  # (n_pairs, N_FIELDS) float columns above
    count: np.ndarray  # (n_pairs,) releases so far, kappa
    block_noise: np.ndarray  # (n_pairs, levels) PM-II: noise of each open dyadic block
    block_coef: np.ndarray  # (n_pairs, levels) PM-II: its coefficient in T

    @classmethod
    def new(cls, n_pairs: int, levels: int) -> PairState:
        """No release yet: Var[T] = inf, every count and block zero."""
        state = np.zeros((n_pairs, N_FIELDS))
        state[:, VARIANCE] = np.inf
        return cls(
            state=state,
            count=np.zeros(n_pairs, dtype=np.int64),
            block_noise=np.zeros((n_pairs, levels)),
            block_coef=np.zeros((n_pairs, levels)),
        )

    def arguments(self) -> dict[str, np.ndarray]:
        """The arrays by ``release``'s parameter names."""
        return self._asdict()


@numba.njit(cache=True)
def release(
    pair, t, sample_mean, fresh_noise, sigma2, sigma_dp2, mechanism, weights,
    state, count, block_noise, block_coef,
):
    """Agent b answers a query at time t; updates T and Var[T] of ``pair``; returns R.

    ``fresh_noise`` is the new p-sum noise (already scaled to variance sigma_DP^2); PM-II
    gives it to the dyadic block that the release opens.
    """
    k = count[pair] + 1
    count[pair] = k
    row = state[pair]
    # The released noise: PM-I adds a p-sum per query; PM-II closes the blocks of the
    # trailing ones of k - 1 and opens one block at level s = trailing zeros of k.
    if mechanism == 0:
        row[NOISE_TOTAL] += fresh_noise
        total_noise = row[NOISE_TOTAL]
    else:
        level = 0
        while (k >> level) & 1 == 0:
            row[CLOSED_SQ] += block_coef[pair, level] ** 2
            block_coef[pair, level] = 0.0
            block_noise[pair, level] = 0.0
            level += 1
        block_noise[pair, level] = fresh_noise
        block_coef[pair, level] = 0.0
        total_noise = 0.0
        for lv in range(block_noise.shape[1]):
            if (k >> lv) & 1:
                total_noise += block_noise[pair, lv]
    value = sample_mean + total_noise / t
    restart = weights == 0 or k == 1 or (weights == 2 and (k & (k - 1)) == 0)
    previous = row[LAST_TIME]
    if restart:
        row[PRE_TIME] = previous
        row[PRE_COUNT] = k - 1
        for field in (SUFFIX_SUM, DATA_SQ, DATA_LIN, DATA_CNT, NOISE_SQ, NOISE_LIN, RELEASE_SUM, CLOSED_SQ):
            row[field] = 0.0
        for lv in range(block_coef.shape[1]):
            block_coef[pair, lv] = 0.0
    u = 1.0 / t
    gap = t - previous
    row[DATA_SQ] += 2.0 * u * row[DATA_LIN] + u * u * row[DATA_CNT] + gap * u * u
    row[DATA_LIN] += u * row[DATA_CNT] + gap * u
    row[DATA_CNT] += gap
    row[NOISE_SQ] += 2.0 * u * row[NOISE_LIN] + u * u * (k - row[PRE_COUNT] - 1) + u * u
    row[NOISE_LIN] += u * (k - row[PRE_COUNT] - 1) + u
    row[SUFFIX_SUM] += u
    row[RELEASE_SUM] += value
    row[LAST_TIME] = t
    n = k - row[PRE_COUNT]
    s = row[SUFFIX_SUM]
    data_coef = (row[PRE_TIME] * s * s + row[DATA_SQ]) / (n * n)
    if mechanism == 0:
        noise = sigma_dp2 * (row[PRE_COUNT] * s * s + row[NOISE_SQ])
    else:
        open_sq = 0.0
        for lv in range(block_coef.shape[1]):
            if (k >> lv) & 1:
                block_coef[pair, lv] += u
                open_sq += block_coef[pair, lv] ** 2
        noise = sigma_dp2 * (row[CLOSED_SQ] + open_sq)
    row[STATISTIC] = row[RELEASE_SUM] / n
    row[DATA_COEF] = data_coef
    row[NOISE_VAR] = noise / (n * n)
    row[VARIANCE] = sigma2 * data_coef + row[NOISE_VAR]
    return value


@numba.njit(cache=True)
def printed_pm2_noise_table(times, weights, out):
    """``out[k-1]`` = eq. (21) as printed / sigma_DP^2 after k releases at ``times``, all k.

    Eq. (21) sigma_DP^2 sum_{l=1}^{floor(log2 k)+1} sum_{i=0}^{l-1}
    (sum_{j=2^(l-1)}^{min(2^l - 1, k)} Bin_{l-i}(j) w_j / t_j)^2 (Bin_1 the least significant
    bit) for the window weights (0 non-MoM, 1 MoM, 2 wMoM); O(k log k) per k.  It pools,
    within an octave [2^(l-1), 2^l), releases that use different dyadic blocks, so it
    overstates the variance from k = 7 on: kept as the "as printed" variant.
    """
    for k in range(1, times.shape[0] + 1):
        if weights == 0:
            first = k
        elif weights == 1:
            first = 1
        else:
            first = 1
            while first * 2 <= k:
                first *= 2
        n = k - first + 1
        total = 0.0
        level = 1
        while (1 << (level - 1)) <= k:
            low = max(1 << (level - 1), first)
            high = min((1 << level) - 1, k)
            for i in range(level):
                pooled = 0.0
                for j in range(low, high + 1):
                    if (j >> (level - i - 1)) & 1:
                        pooled += 1.0 / (n * times[j - 1])
                total += pooled * pooled
            level += 1
        out[k - 1] = total
