"""Local and Ideal: the two baselines every paper of the family draws beside its curves.

Propositions 1 and 2 of Private-C-ColME (Yakimenka et al. 2025, arXiv:2511.04702);
Private-ColME (Yakimenka et al. 2024, arXiv:2411.07094) Sec. VII draws the same two.
"""

from __future__ import annotations

import numpy as np


def local_mse(t: np.ndarray, sigma: float) -> np.ndarray:
    """Proposition 1: average MSE sigma^2 / t of the purely local sample mean."""
    return sigma**2 / np.asarray(t, dtype=np.float64)


def ideal_mse(t: np.ndarray, sigma: float, component_sizes: np.ndarray) -> np.ndarray:
    """Proposition 2: (1/(M t)) sum_a sigma^2 / n_a, the non-private pooled benchmark."""
    return np.mean(sigma**2 / np.asarray(component_sizes, dtype=np.float64)) / np.asarray(
        t, dtype=np.float64
    )
