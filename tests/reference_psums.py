"""Private-ColME's (arXiv:2411.07094) release mechanisms by explicit sums (Sec. IV, Appendix A),
to test the kernel.

``mechanisms.release`` keeps T and Var[T] incrementally in O(1) (PM-I) or O(log k) (PM-II)
per release; these build every p-sum and every weight explicitly, O(k^2), and transcribe
eq. (21) literally.
"""

from __future__ import annotations

import numpy as np


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
    """PM-II noise part of Var[T] exactly as printed in Private-ColME, Appendix A, eq. (21).

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
