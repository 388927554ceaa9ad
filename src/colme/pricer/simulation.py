"""PriCER Monte Carlo of Algorithms 1-2 and the naive strategy of Sec. VI."""

from __future__ import annotations

import numpy as np

from .model import Network, PricerError


def sample_links(network: Network, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw tau (draws x n) and T (draws x n x n, T[:, i, j] = tau_ij) with reciprocity E.

    Each unordered pair {i, j} draws (tau_ij, tau_ji) from the joint law with marginals
    p_ij, p_ji and P(both) = E_{i,j}; distinct pairs and the PS links are independent.
    """
    n = network.n
    P, E = network.P, network.E
    tau = rng.random((draws, n)) < network.p
    iu, ju = np.triu_indices(n, k=1)
    u = rng.random((draws, iu.size))
    pij, pji, e = P[iu, ju], P[ju, iu], E[iu, ju]
    fwd = u < pij  # [0, pij): tau_ij = 1
    # tau_ji = 1 on [0, e) and [pij, pij + pji - e)
    bwd = (u < e) | ((u >= pij) & (u < pij + pji - e))
    T = np.ones((draws, n, n), dtype=bool)
    T[:, iu, ju] = fwd
    T[:, ju, iu] = bwd
    return tau, T


def simulate_estimates(
    A: np.ndarray,
    sigma: float,
    network: Network,
    X: np.ndarray,
    draws: int,
    rng: np.random.Generator,
    noise: str = "aggregate",
) -> np.ndarray:
    """Estimates x_hat (draws x d) at the PS after Algorithms 1 and 2.

    Stage 1: node j receives tau_ij (alpha_ij x_i + n_ij) from every i (1)-(2); stage 2: the
    PS averages tau_j x_tilde_j / n.  ``noise="per_link"`` draws every n_ij; "aggregate" draws
    their delivered sum, sigma sqrt(#delivered) z, which has the same law.
    """
    n, d = X.shape
    tau, T = sample_links(network, draws, rng)
    # weight of x_i at the PS: (1/n) sum_j tau_j T_ij alpha_ij
    delivered = T & tau[:, None, :]
    W = (delivered * A).sum(axis=2) / n
    est = W @ X
    if sigma > 0:
        if noise == "aggregate":
            count = delivered.sum(axis=(1, 2))
            est += (sigma * np.sqrt(count) / n)[:, None] * rng.standard_normal((draws, d))
        elif noise == "per_link":
            for m in range(draws):  # n^2 d normals per draw: loop over draws keeps memory O(n^2 d)
                z = rng.standard_normal((n, n, d))
                est[m] += sigma * (delivered[m][:, :, None] * z).sum(axis=(0, 1)) / n
        else:
            raise PricerError(f"noise={noise!r}: allowed values are 'aggregate', 'per_link'")
    return est


def simulate_naive(network: Network, X: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Naive estimates (1/n) sum_i tau_i x_i (Sec. VI): no relaying, no privacy noise."""
    tau = rng.random((draws, network.n)) < network.p
    return (tau @ X) / network.n


def squared_errors(estimates: np.ndarray, X: np.ndarray) -> np.ndarray:
    """||x_hat - x_bar||^2 per draw."""
    return np.sum((estimates - X.mean(axis=0)) ** 2, axis=1)
