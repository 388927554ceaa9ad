"""PriCER privacy (Theorem 4.1, eq. (6)): per-link caps, sigma_thr, the sigma update (10)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .model import Network, PricerError, Privacy


def gaussian_factor(delta) -> np.ndarray:
    """sqrt(2 ln(1.25 / delta)), the Gaussian-mechanism factor of Theorem 4.1 (6)."""
    return np.sqrt(2.0 * np.log(1.25 / np.asarray(delta, dtype=float)))


def weight_caps(privacy: Privacy, sigma: float) -> np.ndarray:
    """w_ij = eps_ij sigma / (sqrt(2 ln(1.25/delta_ij)) 2R): the privacy box of (8) (Sec. V-B).

    Infinite for eps_ij = .inf (no constraint), whatever sigma.
    """
    scale = privacy.eps / (gaussian_factor(privacy.delta) * 2.0 * privacy.R)
    with np.errstate(invalid="ignore"):
        caps = scale * sigma
    caps[np.isinf(privacy.eps)] = np.inf
    return caps


def sigma_threshold(network: Network, privacy: Privacy) -> float:
    """sigma_thr of Sec. V-A: the least sigma for which every row's constraints intersect.

    sigma_thr = 2R max_i (sum_j p_j p_ij eps_ij / sqrt(2 ln(1.25/delta_ij)))^(-1).  A row with
    an unconstrained usable link (eps_ij = .inf, p_j p_ij > 0; e.g. the self link with
    eps_self = .inf and p_i > 0) needs no noise: its term is 0, so sigma_thr = 0 when every
    row has one.  Raises ``PricerError`` when a node has no usable path to the PS
    (sum_j p_j p_ij = 0).
    """
    g = network.p[None, :] * network.P
    reach = g.sum(axis=1)
    if np.any(reach <= 0):
        nodes = np.flatnonzero(reach <= 0).tolist()
        raise PricerError(
            f"infeasible: node(s) {nodes} cannot reach the PS (p_j p_ij = 0 for every j), so the "
            "unbiasedness condition (3) cannot hold"
        )
    with np.errstate(invalid="ignore"):
        terms = np.where(g > 0, g * privacy.eps / gaussian_factor(privacy.delta), 0.0)
    return float(2.0 * privacy.R * np.max(1.0 / terms.sum(axis=1)))


def sigma_update(A: np.ndarray, privacy: Privacy, sigma_thr: float) -> float:
    """The sigma step (10): the least sigma meeting every privacy constraint for A, >= sigma_thr."""
    need = np.where(
        (A > 0) & np.isfinite(privacy.eps),
        gaussian_factor(privacy.delta) * 2.0 * A * privacy.R / privacy.eps,
        0.0,
    )
    return float(max(need.max(initial=0.0), sigma_thr))


def link_epsilons(A: np.ndarray, sigma: float, network: Network, privacy: Privacy) -> np.ndarray:
    """Theorem 4.1 (6): eps_ij = sqrt(2 ln(1.25/delta_ij)) 2 alpha_ij R / sigma, 0 if p_ij = 0.

    The link i -> j is then (eps_ij, p_ij delta_ij)-DP.  alpha_ij > 0 with sigma = 0 gives .inf.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = gaussian_factor(privacy.delta) * 2.0 * A * privacy.R / sigma
    eps = np.where(A == 0, 0.0, eps)
    return np.where(network.P > 0, eps, 0.0)


def privacy_report(A, sigma, network: Network, privacy: Privacy, rtol: float = 1e-9) -> pd.DataFrame:
    """Per-link privacy accounting of Theorem 4.1: achieved eps_ij, target, delta = p_ij delta_ij."""
    achieved = link_epsilons(A, sigma, network, privacy)
    i, j = np.nonzero(network.P > 0)
    target = privacy.eps[i, j]
    return pd.DataFrame(
        {
            "i": i,
            "j": j,
            "alpha": A[i, j],
            "eps": achieved[i, j],
            "eps_target": target,
            "delta": network.P[i, j] * privacy.delta[i, j],
            "ok": achieved[i, j] <= target * (1 + rtol),
        }
    )
