"""Noise calibration for differentially private sample releases.

Seed 002 (Private-C-ColME) protects every sample with Laplace noise; the scale
follows Lemma 1 with n = 1.
"""

from __future__ import annotations

import math

import numpy as np

#: eps = inf means "no privacy": zero noise.
NO_PRIVACY = math.inf


def laplace_sigma_dp(eps: float, half_width: float) -> float:
    """Standard deviation sigma_DP of the Laplace mechanism, seed 002 Lemma 1.

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


def laplace_beta_dp(sigma_dp: float) -> float:
    """Bernstein parameter of Laplace(0, sigma_DP/sqrt 2) noise: sigma_DP/sqrt 2 (Sec. III-B)."""
    return sigma_dp / math.sqrt(2.0)


def unit_laplace_from_uniform(u: np.ndarray) -> np.ndarray:
    """Map uniforms on [0, 1) to Laplace(0, 1/sqrt 2) draws (unit variance) by inversion.

    The same inversion runs inside the compiled kernel (``ccolme._unit_laplace``);
    this array version exists so the mapping can be tested statistically.  ``u = 0``
    (probability 2^-53) is mapped to 0 rather than -inf.
    """
    u = np.asarray(u, dtype=np.float64)
    scale = 1.0 / math.sqrt(2.0)
    upper = u >= 0.5
    out = np.zeros_like(u)
    out[upper] = -scale * np.log(2.0 - 2.0 * u[upper])
    lower = (~upper) & (u > 0.0)
    out[lower] = scale * np.log(2.0 * u[lower])
    return out
