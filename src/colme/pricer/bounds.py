"""PriCER MSE (Lemma 3.1 (3), Theorem 3.2 (4)-(5), relaxation (13)) and the constraints of (8)."""

from __future__ import annotations

import numpy as np

from .model import Network, Privacy
from .privacy import weight_caps


def unbiasedness_residual(A: np.ndarray, network: Network) -> np.ndarray:
    """Lemma 3.1 (3): sum_j p_j p_ij alpha_ij - 1 for every node i (zero when unbiased)."""
    return (network.p[None, :] * network.P * A).sum(axis=1) - 1.0


def reciprocity_excess(network: Network) -> np.ndarray:
    """M_il = p_i p_l (E_{i,l} - p_il p_li), the reciprocity coefficient of (4) and (13)."""
    p, P, E = network.p, network.P, network.E
    return np.outer(p, p) * (E - P * P.T)


def quadratic_form(network: Network, relaxed: bool = False) -> np.ndarray:
    """Q (n^2 x n^2) with n^2 sigma_tv^2 = vec(A)' Q vec(A) (row-major vec).

    Q is the covariance matrix of the vector (tau_j tau_ij)_{i,j} (App. C's computation), hence
    PSD: (8) is a convex QP.  ``relaxed``: the convex upper bound (13), where the reciprocity
    products alpha_li alpha_il are replaced by alpha_il^2 (AM-GM).
    """
    p, P = network.p, network.P
    n = network.n
    g = p[None, :] * P  # g_ij = p_j p_ij
    Q4 = np.zeros((n, n, n, n))  # Q4[i, j, l, k]
    jj = np.arange(n)
    # first term: same destination j, any i, l
    Q4[:, jj, :, jj] = (p * (1 - p))[:, None, None] * P.T[:, :, None] * P.T[:, None, :]
    # second term: alpha_ij^2
    ii, kk = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    Q4[ii, kk, ii, kk] += g * (1 - P)
    M = reciprocity_excess(network)
    if relaxed:
        Q4[ii, kk, ii, kk] += M
    else:
        Q4[ii, kk, kk, ii] += M  # alpha_ij alpha_ji; M_ii = 0
    return Q4.reshape(n * n, n * n)


def sigma_tv2(A: np.ndarray, network: Network) -> float:
    """sigma_tv^2(p, P, A) of Theorem 3.2 (4), written term by term as printed."""
    p, P = network.p, network.P
    n = network.n
    col = (P * A).sum(axis=0)  # sum_i p_ij alpha_ij per destination j
    first = np.sum(p * (1 - p) * col**2)
    second = np.sum(P * p[None, :] * (1 - P) * A**2)
    third = np.sum(reciprocity_excess(network) * A.T * A)
    return float((first + second + third) / n**2)


def sigma_tv2_relaxed(A: np.ndarray, network: Network) -> float:
    """The convex relaxation (13) of sigma_tv^2 (an upper bound on (4))."""
    p, P = network.p, network.P
    n = network.n
    col = (P * A).sum(axis=0)
    first = np.sum(p * (1 - p) * col**2)
    second = np.sum(P * p[None, :] * (1 - P) * A**2)
    third = np.sum(reciprocity_excess(network) * A**2)
    return float((first + second + third) / n**2)


def sigma_pr2(sigma: float, network: Network, d: int) -> float:
    """sigma_pr^2(p, P, sigma) of (5): (1/n^2) sum_ij p_j p_ij sigma^2 d."""
    g = network.p[None, :] * network.P
    return float(g.sum() * sigma**2 * d / network.n**2)


def objective(A: np.ndarray, sigma: float, network: Network, privacy: Privacy, d: int) -> float:
    """The worst-case MSE (8): R^2 sigma_tv^2 + sigma_pr^2 (Theorem 3.2's bound (4))."""
    return privacy.R**2 * sigma_tv2(A, network) + sigma_pr2(sigma, network, d)


def coefficient_covariance(A: np.ndarray, network: Network) -> np.ndarray:
    """C_il = Cov(c_i, c_l), c_i = sum_j tau_j tau_ij alpha_ij - 1 (App. C); 1'C1 = n^2 sigma_tv^2."""
    n = network.n
    Q4 = quadratic_form(network).reshape(n, n, n, n)
    return np.einsum("ijlk,ij,lk->il", Q4, A, A)


def exact_mse(A, sigma, network: Network, X: np.ndarray) -> float:
    """E||x_hat - x_bar||^2 of Algorithms 1-2 for the data X (n x d) under (3) (App. C, no bound)."""
    n, d = X.shape
    C = coefficient_covariance(A, network)
    return float(np.sum(C * (X @ X.T)) / n**2 + sigma_pr2(sigma, network, d))


def naive_mse(network: Network, X: np.ndarray) -> float:
    """E||(1/n) sum_i tau_i x_i - x_bar||^2 of the naive strategy (Sec. VI), bias included."""
    n = X.shape[0]
    q = 1.0 - network.p
    G = X @ X.T
    cov = np.outer(q, q)
    np.fill_diagonal(cov, q)
    return float(np.sum(cov * G) / n**2)


def check_constraints(A, sigma, network: Network, privacy: Privacy) -> dict[str, float]:
    """Largest violation of each constraint of (8) (0 when satisfied)."""
    caps = weight_caps(privacy, sigma)
    with np.errstate(invalid="ignore"):
        over = np.where(np.isinf(caps), 0.0, A - caps)
    return {
        "nonnegative": float(max(0.0, -A.min())),
        "unbiasedness": float(np.abs(unbiasedness_residual(A, network)).max()),
        "privacy": float(max(0.0, over.max())),
        "sigma": float(max(0.0, -sigma)),
        "no_link_weight": float(np.abs(A[network.p[None, :] * network.P == 0]).max(initial=0.0)),
    }
