"""Noise calibration for differentially private sample releases, and privacy accounting.

Private-C-ColME (Yakimenka et al. 2025, arXiv:2511.04702) protects every sample with
Laplace noise (its Lemma 1, n = 1); Private-ColME (Yakimenka et al. 2024, arXiv:2411.07094)
releases noisy p-sums with Gaussian (Lemma 1) or Laplace (Lemma 2) noise.
"""

from __future__ import annotations

import math

import numba


def laplace_sigma_dp(eps: float, half_width: float) -> float:
    """Standard deviation sigma_DP of the Laplace mechanism, Private-C-ColME Lemma 1.

    ``sigma_DP^2 = 8 L^2 / eps^2`` for data in ``[mu - L, mu + L]`` (sensitivity
    ``2L``), i.e. ``Z ~ Laplace(0, sigma_DP / sqrt 2)``.  ``eps = inf`` gives 0.
    """
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (or inf for no privacy), got {eps!r}")
    if half_width <= 0:
        raise ValueError(f"the data half-width L must be > 0, got {half_width!r}")
    if math.isinf(eps):
        return 0.0
    return math.sqrt(8.0) * half_width / eps


def gaussian_sigma_dp(eps: float, delta: float, half_width: float) -> float:
    """Standard deviation of the Gaussian mechanism, Private-ColME Lemma 1 (n = 1).

    ``sigma_DP^2 = 8 L^2 ln(1.25/delta) / eps^2``, (eps, delta)-DP only for 0 < eps <= 1.
    """
    if not 0 < eps <= 1:
        raise ValueError(
            f"the Gaussian mechanism (Private-ColME Lemma 1) needs 0 < eps <= 1, got eps={eps!r}; "
            "use Laplace noise for larger eps"
        )
    if not 0 < delta <= 1:
        raise ValueError(f"delta must be in (0, 1], got {delta!r}")
    return math.sqrt(8.0 * math.log(1.25 / delta)) * half_width / eps


def composed_privacy(eps: float, delta: float, uses_per_sample: int) -> tuple[float, float]:
    """(eps, delta) of a sample that enters ``uses_per_sample`` releases (basic composition).

    PM-I puts each sample in one p-sum (uses = 1); PM-II in up to floor(log2 k) + 1 dyadic
    blocks after k releases (Private-ColME Sec. IV-B).
    """
    return eps * uses_per_sample, delta * uses_per_sample


_UNIT_LAPLACE_SCALE = 1.0 / math.sqrt(2.0)


@numba.njit(cache=True)
def unit_laplace(u):
    """Laplace(0, 1/sqrt 2) draw (unit variance) by inversion of a uniform u in [0, 1).

    The simulation kernels call this per draw; u = 0 (probability 2^-53) maps to 0.
    Written with selects, not branches: which half u falls in is a coin flip, a branch
    the CPU mispredicts half the time (docs/kernel.md, "Where a step's time goes").  The value
    is the branchy form's bit for bit: log(2u) or log(2 - 2u) of the same argument, then
    an exact sign change (x -> -x), and log(1) = +0 where u = 0.
    """
    lower = u < 0.5
    argument = 2.0 * u if lower else 2.0 - 2.0 * u
    magnitude = _UNIT_LAPLACE_SCALE * math.log(argument if u > 0.0 else 1.0)
    return magnitude if lower else -magnitude

