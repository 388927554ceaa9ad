"""Private release mechanisms with p-sums and the statistic T_{b->a} (seed 004, Secs. III-A, IV).

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


def new_pair_state(n_pairs: int, levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(float state, release counts, PM-II block noises, PM-II block coefficients)."""
    state = np.zeros((n_pairs, N_FIELDS))
    state[:, VARIANCE] = np.inf
    return (
        state,
        np.zeros(n_pairs, dtype=np.int64),
        np.zeros((n_pairs, levels)),
        np.zeros((n_pairs, levels)),
    )


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


def statistic_variance_direct(
    times: np.ndarray, weights: np.ndarray, mechanism: str, sigma2: float, sigma_dp2: float
) -> float:
    """Var[T] straight from eq. (2) and the p-sum structure, by explicit sums (for tests).

    Builds every p-sum the releases used with its total coefficient sum_j w_j/t_j and adds
    their squares once each: O(k^2), no incremental bookkeeping.
    """
    times = np.asarray(times, dtype=np.float64)
    k = len(times)
    coef = np.asarray(weights, dtype=np.float64) / times
    suffix = np.cumsum(coef[::-1])[::-1]
    gaps = np.diff(np.concatenate([[0.0], times]))
    data = sigma2 * np.sum(gaps * suffix**2)
    blocks: dict[tuple[int, int], float] = {}
    for j in range(1, k + 1):
        for first, last in psums(j, mechanism):
            blocks[(first, last)] = blocks.get((first, last), 0.0) + coef[j - 1]
    return float(data + sigma_dp2 * sum(c * c for c in blocks.values()))


def psums(k: int, mechanism: str) -> list[tuple[int, int]]:
    """The query intervals (first, last release index) whose p-sums make release k (Sec. IV)."""
    if mechanism == "pm1":
        return [(i, i) for i in range(1, k + 1)]
    out, start = [], 0
    for level in reversed(range(k.bit_length())):
        if (k >> level) & 1:
            out.append((start + 1, start + (1 << level)))
            start += 1 << level
    return out


def window_weights(k: int, weights: str) -> np.ndarray:
    """w_1..w_k: non-MoM (last), MoM (uniform) or wMoM (uniform over [2^floor(log2 k), k]).

    Sec. IV-B prints the wMoM weight as 1/(k - 2^(floor(log2 k) + 1)), negative for most
    k; the window [2^floor(log2 k), k] has k - 2^floor(log2 k) + 1 releases, whose uniform
    weight is used here.
    """
    w = np.zeros(k)
    first = {"last": k, "mom": 1, "wmom": 1 << (k.bit_length() - 1)}[weights]
    w[first - 1 :] = 1.0 / (k - first + 1)
    return w



def pm2_noise_variance_as_printed(times: np.ndarray, weights: np.ndarray, sigma_dp2: float) -> float:
    """PM-II noise part of Var[T] exactly as printed in seed 004, Appendix A, eq. (21).

    sigma_DP^2 sum_{l=1}^{floor(log2 k)+1} sum_{i=0}^{l-1}
    (sum_{j=2^(l-1)}^{min(2^l - 1, k)} Bin_{l-i}(j) w_j / t_j)^2, Bin_1 the least significant
    bit.  It pools, within an octave [2^(l-1), 2^l), all releases whose bit l-i is set;
    releases with the same bit set but different higher bits below l use *different*
    dyadic blocks (e.g. releases 5 and 7 at bit 1), so (21) overstates the variance from
    k = 7 on when several of them carry weight.  Kept as the "as printed" variant.
    """
    k = len(times)
    coef = np.asarray(weights, dtype=np.float64) / np.asarray(times, dtype=np.float64)
    total = 0.0
    for level in range(1, k.bit_length() + 1):
        octave = np.arange(1 << (level - 1), min((1 << level) - 1, k) + 1)
        for i in range(level):
            bit = (octave >> (level - i - 1)) & 1
            total += float(np.sum(bit * coef[octave - 1])) ** 2
    return sigma_dp2 * total


@numba.njit(cache=True)
def printed_pm2_noise_table(times, weights, out):
    """``out[k-1]`` = eq. (21) as printed / sigma_DP^2 after k releases at ``times``, all k.

    Compiled form of ``pm2_noise_variance_as_printed`` for the window weights
    (0 non-MoM, 1 MoM, 2 wMoM); O(k log k) per k.
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
