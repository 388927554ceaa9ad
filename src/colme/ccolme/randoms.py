"""The kernel's inline random numbers.

SplitMix64 (Steele, Lea & Flood 2014): draw n >= 1 of a run is mix(key + n * GOLDEN), a
counter-based stream of a few ns per draw with no generator object in the kernel.  Draw
order per step t and agent a: n = 2 ((t - 1) M + a) + 1 (data), + 2 (noise).  Every
curve of a run, in any kernel call, replays the same draws (common random numbers).
"""

from __future__ import annotations

import copy

import numba
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TWO_M53 = 2.0**-53


@numba.njit(cache=True, inline="always")
def _mix64(x):
    """SplitMix64's output function of the counter value ``x``, a 64-bit integer."""
    z = (x ^ (x >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@numba.njit(cache=True)
def _mix_uniform(x):
    """SplitMix64's output function of the counter value ``x``, as a uniform in [0, 1)."""
    return np.float64(_mix64(x) >> _S11) * _TWO_M53


def run_key(generator: np.random.Generator) -> int:
    """A run's 64-bit stream key: one draw from a copy of its generator (left untouched)."""
    return int(copy.deepcopy(generator).integers(0, 2**64, dtype=np.uint64))
