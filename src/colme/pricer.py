"""PriCER: private collaborative relaying for mean estimation over intermittent links (seed 003).

Model (Sec. II): n nodes hold x_i in R^d with ||x_i|| <= R.  Node i reaches the server
(PS) with tau_i ~ Ber(p_i) and node j with tau_ij ~ Ber(p_ij), p_ii = 1; the reciprocity
term E_{i,j} = E[tau_ij tau_ji] (>= p_ij p_ji).  Node i sends alpha_ij x_i + n_ij to node j
(n_ij ~ N(0, sigma^2 I_d)); node j relays the sum of what it received (Algorithm 1) and the
PS averages what reaches it (Algorithm 2).

Index convention (as in Lemma 3.1 and Theorem 4.1): ``A[i, j] = alpha_ij`` is the weight node
i applies to its own x_i when sending to node j, ``P[i, j] = p_ij`` is the link i -> j.

What is here:

* validation of (p, P, E) and of the privacy levels (clear ``PricerError`` messages);
* Lemma 3.1 (3), Theorem 3.2 (4)-(5), its convex relaxation (13), Theorem 4.1 (6);
* a vectorised Monte Carlo simulator of Algorithms 1-2 and the naive strategy of Sec. VI;
* Algorithm 3: sigma_thr, the sigma update (10), Gauss-Seidel over rows (14) with the
  per-row solution (15)-(19) (lambda_i by bisection) on (13), then fine tuning with (20);
* an exact reference for (8): sigma_tv^2 is the variance of sum_ij alpha_ij tau_j tau_ij
  (divided by n^2), a PSD quadratic form, and the privacy constraints are linear in
  (A, sigma), so (8) is a convex QP; ``optimise_joint`` minimises it exactly (Algorithm 3's
  A-step inside a search over sigma) and ``scipy_reference`` solves it with SLSQP;
* the tables of seed 003 Figs. 2, 3 and 4 and their plots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

#: Every choice made where seed 003 is silent (goes into the figures' metadata).
PRICER_INTERPRETATIONS = (
    "Index convention: alpha_ij is the weight node i applies to x_i when sending to node j and "
    "p_ij the probability of the link i -> j, as in Lemma 3.1 (3) and Theorem 4.1; eq. (1)-(2) "
    "are read with the same convention (node j receives tau_ij (alpha_ij x_i + n_ij)).",
    "Noise is added on every link including the self link i -> i (Algorithm 1 line 5), and the "
    "privacy constraint of (8) is imposed on the self link too (eps_ii), as printed.",
    "Reciprocity E_{i,j}: links are independent (E_ij = p_ij p_ji) unless a figure says "
    "'full' (E_ij = min(p_ij, p_ji), the largest value compatible with the marginals).",
    "Theorem 4.1 is applied as printed (classical Gaussian-mechanism calibration "
    "eps = sqrt(2 ln(1.25/delta)) * 2 alpha R / sigma) even for eps > 1, where the classical "
    "proof does not apply; eps = .inf means no privacy constraint on that link.",
    "Algorithm 3's outer loop is run literally, but sigma^(k) = sigma_thr for every k: the "
    "A-step keeps A feasible for sigma^(k-1), so (10) can never return more than sigma^(k-1) "
    "and never less than sigma_thr.  Algorithm 3 therefore minimises (11) at sigma = sigma_thr.",
    "Gauss-Seidel stages (L1: relaxation (13), L2: fine tuning (11) with (20)) stop after a "
    "sweep that changes no weight by more than gs_tol (1e-12 relative), or after L1/L2 sweeps "
    "(default 2000 each); lambda_i is bracketed by doubling and bisected until the set of "
    "clipped weights is fixed, then solved exactly on that piece of the piecewise-linear sum.",
    "Case c) (p_i = 1) sets alpha_ii = 1 (19) only when the self-link privacy cap allows it "
    "(w_ii >= 1); otherwise the row is solved like case b) with the zero-cost set "
    "{j: p_j p_ij = 1}, which then contains i.  Links with p_j p_ij = 0 get alpha_ij = 0 (17).",
    "Case b) with S_i >= 1 and an infinite cap (no privacy) in the zero-cost set: the unit "
    "of unbiasedness is split equally among the uncapped zero-cost links.",
    "The initial A^(0) = diag(1/p_i) of Algorithm 3 uses 0 for a node with p_i = 0 (the "
    "Gauss-Seidel row update does not depend on the row's previous value except through "
    "(20)'s alpha_ji terms of other rows).",
    "Extension, not in the paper: (8) is a convex QP (sigma_tv^2 = Var(sum_ij alpha_ij tau_j "
    "tau_ij) / n^2), so its global optimum is found by a convex 1-D search over sigma >= "
    "sigma_thr of min_A (11) + sigma_pr^2 ('joint optimum'); it can be below Algorithm 3 "
    "when a larger sigma loosens the privacy box enough to pay for the extra noise.",
    "Fig. 3: R = 1 (the worst-case MSE of (8) scales as R^2 at fixed eps, delta), d = 10 "
    "by default, p_c in {0.2, 0.5, 0.8}, independent links, and node i trusts its k nearest "
    "ring neighbours i+1, i-1, i+2, i-2, ... (mod n); y = objective (8) at Algorithm 3's "
    "output; the simulated points use the worst-case data x_i = R e_1 for every i, which "
    "attains the bound (4) with equality.",
    "Fig. 4: n = 10; eps = 1e3 on trusted links and on the self link, delta = 1e-3, R = 1; "
    "node i trusts its 6 nearest ring neighbours (i +- 1, 2, 3) with P_ij = 0.8 and has no "
    "link (P_ij = 0) to the others; the g good nodes are spread evenly over the ring; each "
    "realisation draws fresh data (N(0,1)^3 per coordinate, each x_i rescaled to ||x_i|| = R) "
    "and averages 'draws' independent link/noise draws; se is over realisations.",
    "Fig. 4 naive strategy: the PS computes (1/n) sum_i tau_i x_i (biased, no relaying, no "
    "privacy noise), as printed in Sec. VI.",
    "The Monte Carlo simulator draws the PS's aggregate privacy noise sum tau_j tau_ij n_ij / n "
    "as sigma sqrt(N) z / n with N the number of delivered noisy messages (exactly the same "
    "law as drawing every n_ij); the per-link mode draws every n_ij and is tested to agree.",
    "Fig. 2: n = 2, p = (0.6, 0.9), P_12 = P_21 = 0.7, eps_ii = 1, eps_12 = eps_21 = 0.5, "
    "delta = 1e-3, R = 1; boxes for sigma = {0.5, 1, 2} x sigma_thr of row i's constraints.",
)


class PricerError(ValueError):
    """Invalid PriCER parameters (probabilities, privacy levels) or an infeasible setting."""


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Network:
    """Connectivity of Sec. II-A: p (PS links), P (node links, P_ii = 1), E (reciprocity)."""

    p: np.ndarray
    P: np.ndarray
    E: np.ndarray

    @property
    def n(self) -> int:
        return self.p.shape[0]


@dataclass(frozen=True)
class Privacy:
    """Pairwise privacy levels (eps_ij, delta_ij) of (8) and the norm bound R."""

    eps: np.ndarray
    delta: np.ndarray
    R: float


def _check_probabilities(name: str, values: np.ndarray) -> None:
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        bad = values[~(np.isfinite(values) & (values >= 0) & (values <= 1))]
        raise PricerError(f"{name} must lie in [0, 1]; got {bad.tolist()}")


def make_network(p, P, E=None, reciprocity: str = "independent") -> Network:
    """Validated network (Sec. II-A).

    ``E`` may be given explicitly (symmetric, p_ij p_ji <= E_ij <= min(p_ij, p_ji)) or built
    from ``reciprocity``: "independent" (E_ij = p_ij p_ji) or "full" (E_ij = min(p_ij, p_ji)).
    The diagonal of P and E must be 1 (p_ii = 1, tau_ii = 1).
    """
    p = np.asarray(p, dtype=float)
    P = np.array(P, dtype=float)
    if p.ndim != 1 or p.size < 1:
        raise PricerError(f"p must be a non-empty vector; got shape {p.shape}")
    n = p.size
    if P.shape != (n, n):
        raise PricerError(f"P must be {n}x{n} to match p; got shape {P.shape}")
    _check_probabilities("p (node-PS link probabilities)", p)
    _check_probabilities("P (node-node link probabilities)", P)
    if not np.all(np.diag(P) == 1):
        raise PricerError(f"P must have P_ii = 1 (Sec. II-A); diagonal is {np.diag(P).tolist()}")
    if E is None:
        if reciprocity == "independent":
            E = P * P.T
        elif reciprocity == "full":
            E = np.minimum(P, P.T)
        else:
            raise PricerError(f"reciprocity={reciprocity!r}: allowed values are 'independent', 'full'")
        np.fill_diagonal(E, 1.0)
    E = np.array(E, dtype=float)
    if E.shape != (n, n):
        raise PricerError(f"E must be {n}x{n}; got shape {E.shape}")
    _check_probabilities("E (reciprocity E[tau_ij tau_ji])", E)
    if not np.allclose(E, E.T, rtol=0, atol=1e-15):
        raise PricerError("E must be symmetric: E_{i,j} = E[tau_ij tau_ji] = E_{j,i}")
    if not np.all(np.diag(E) == 1):
        raise PricerError("E must have E_ii = 1 (tau_ii = 1)")
    lo, hi = P * P.T, np.minimum(P, P.T)
    if np.any(E < lo - 1e-15) or np.any(E > hi + 1e-15):
        raise PricerError(
            "E_{i,j} must satisfy p_ij p_ji <= E_{i,j} <= min(p_ij, p_ji) (Sec. II-A assumes "
            "positive reciprocity; the upper bound is what the marginals allow)"
        )
    return Network(p=p, P=P, E=E)


def make_privacy(eps, delta, R: float, n: int) -> Privacy:
    """Validated privacy levels: eps_ij > 0 (.inf = no constraint), delta_ij in (0, 1], R > 0.

    Scalars are broadcast to n x n.
    """
    eps = np.broadcast_to(np.asarray(eps, dtype=float), (n, n)).copy()
    delta = np.broadcast_to(np.asarray(delta, dtype=float), (n, n)).copy()
    if np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise PricerError(f"every eps_ij must be > 0 (or .inf for no privacy); got min {np.nanmin(eps)}")
    if np.any(~np.isfinite(delta)) or np.any(delta <= 0) or np.any(delta > 1):
        raise PricerError("every delta_ij must lie in (0, 1] (Theorem 4.1)")
    if not (np.isfinite(R) and R > 0):
        raise PricerError(f"R must be a positive finite norm bound; got {R}")
    return Privacy(eps=eps, delta=delta, R=float(R))


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

    sigma_thr = 2R max_i (sum_j p_j p_ij eps_ij / sqrt(2 ln(1.25/delta_ij)))^(-1).  Raises
    ``PricerError`` when a node has no usable path to the PS (sum_j p_j p_ij = 0).
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


# --------------------------------------------------------------------------- MSE


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


# --------------------------------------------------------------------------- simulation


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


# --------------------------------------------------------------------------- Algorithm 3


def _row_terms(i: int, A: np.ndarray, network: Network, fine: bool) -> tuple[np.ndarray, np.ndarray]:
    """(b_j, D_j) with alpha_ij(lambda) = ((lambda - b_j) / D_j)^+: (15) or, if ``fine``, (20)."""
    p, P, E = network.p, network.P, network.E
    g = p * P[i]
    col = (P * A).sum(axis=0)
    others = col - P[i] * A[i]  # sum_{l != i} p_lj alpha_lj
    b = 2.0 * (1.0 - p) * others
    with np.errstate(divide="ignore", invalid="ignore"):
        recip = np.where(P[i] > 0, p[i] * (E[i] / P[i] - P[:, i]), 0.0)
    if fine:
        return b + 2.0 * recip * A[:, i], 2.0 * (1.0 - g)
    return b, 2.0 * ((1.0 - g) + recip)


def solve_lambda(g, b, D, caps, target: float, method: str = "breakpoints", max_iter: int = 200) -> np.ndarray:
    """Weights min{((lambda - b)/D)^+, caps} with sum g * weights = target (16)-(18).

    The sum is continuous, non-decreasing and piecewise linear in lambda.  ``breakpoints``
    (default): the sum is evaluated at its sorted kinks and the bracketing piece is found by
    binary search (``searchsorted``), then solved exactly.  ``bisection``: lambda is bracketed
    by doubling and bisected until the clipping pattern is the same at both ends, then that
    piece is solved exactly.  Both give the same lambda_i; if even the caps cannot reach
    ``target`` (only possible below sigma_thr) a ``PricerError`` is raised.
    """
    if target <= 0:
        return np.zeros_like(g)
    reach = np.sum(g * caps)
    if reach <= target * (1 + 1e-12):
        if reach < target * (1 - 1e-9):
            raise PricerError(
                f"infeasible row: the privacy caps allow sum p_j p_ij alpha_ij <= {reach:.6g} < "
                f"{target:.6g}; sigma is below sigma_thr"
            )
        return caps.astype(float) * (target / reach)

    def total(lam):
        return np.sum(g * np.clip((np.atleast_1d(lam)[:, None] - b) / D, 0.0, caps), axis=1)

    if method == "breakpoints":
        tops = b + D * caps
        kinks = np.unique(np.concatenate([b, tops[np.isfinite(tops)]]))
        values = total(kinks)
        k = int(np.searchsorted(values, target))
        if k < kinks.size:
            lo, hi = (kinks[k - 1] if k > 0 else kinks[0]), kinks[k]
        else:  # beyond the last kink only uncapped weights grow
            lo, hi = kinks[-1], np.inf
    elif method == "bisection":
        lo = float(np.min(b))
        hi = lo + max(1.0, abs(lo))
        while total(hi)[0] < target:
            hi = lo + 2.0 * (hi - lo)
        for _ in range(max_iter):
            mid = 0.5 * (lo + hi)
            raw_lo, raw_hi = (lo - b) / D, (hi - b) / D
            if np.array_equal(raw_lo <= 0, raw_hi <= 0) and np.array_equal(raw_lo >= caps, raw_hi >= caps):
                break
            if total(mid)[0] < target:
                lo = mid
            else:
                hi = mid
    else:
        raise PricerError(f"method={method!r}: allowed values are 'breakpoints', 'bisection'")
    # On (lo, hi) the clipping pattern is fixed: solve the linear equation exactly.
    probe = lo + 0.5 * (hi - lo) if np.isfinite(hi) else lo + 1.0
    raw = (probe - b) / D
    high = raw >= caps
    free = (raw > 0) & ~high
    fixed = np.sum(g[high] * caps[high])
    if free.any():
        lam = (target - fixed + np.sum(g[free] * b[free] / D[free])) / np.sum(g[free] / D[free])
        lam = min(max(lam, lo), hi)
    else:
        lam = hi
    return np.clip((lam - b) / D, 0.0, caps)


def row_update(i: int, A: np.ndarray, network: Network, caps: np.ndarray, fine: bool) -> np.ndarray:
    """Row i's block minimiser: Sec. V-B cases a) (16)-(17), b) (18) and c) (19).

    ``fine=False`` minimises the relaxation (13) with (15); ``fine=True`` the fine tuning (11)
    with (20).  Returns the new row A_i (the Gauss-Seidel update (14)).
    """
    p, P = network.p, network.P
    g = p * P[i]
    cap = caps[i]
    row = np.zeros(network.n)
    if p[i] == 1.0 and cap[i] >= 1.0:  # case c), (19)
        row[i] = 1.0
        return row
    zero_cost = g == 1.0  # case b) (and case c) when (19) breaks the self-link cap)
    target = 1.0
    if zero_cost.any():
        cz = cap[zero_cost]
        if np.isinf(cz).any():
            idx = np.flatnonzero(zero_cost)[np.isinf(cz)]
            row[idx] = 1.0 / idx.size
            return row
        S = float(cz.sum())
        if S >= 1.0:
            row[zero_cost] = cz / S
            return row
        row[zero_cost] = cz
        target = 1.0 - S
    active = (g > 0) & (g < 1)  # (17)/(18): p_j p_ij = 0 -> 0
    if not active.any():
        raise PricerError(f"infeasible: node {i} cannot meet (3) within its privacy caps")
    b, D = _row_terms(i, A, network, fine)
    row[active] = solve_lambda(g[active], b[active], D[active], cap[active], target)
    return row


def gauss_seidel(
    A: np.ndarray, network: Network, caps: np.ndarray, fine: bool, sweeps: int, tol: float
) -> tuple[np.ndarray, int]:
    """Gauss-Seidel over rows (14) on (13) (``fine=False``) or (11) (``fine=True``).

    Stops after ``sweeps`` full sweeps over the n rows or once a sweep changes no weight by
    more than ``tol`` times the largest weight.  Returns (A, sweeps done).
    """
    A = A.copy()
    for sweep in range(1, sweeps + 1):
        change = 0.0
        for i in range(network.n):
            new = row_update(i, A, network, caps, fine)
            change = max(change, float(np.max(np.abs(new - A[i]))))
            A[i] = new
        if change <= tol * max(1.0, float(A.max())):
            return A, sweep
    return A, sweeps


@dataclass
class PricerResult:
    """Output of Algorithm 3 (or of the joint optimum): weights, sigma and diagnostics."""

    A: np.ndarray
    sigma: float
    sigma_thr: float
    objective: float
    sigma_tv2: float
    sigma_pr2: float
    sweeps: dict = field(default_factory=dict)


def initial_weights(network: Network) -> np.ndarray:
    """A^(0) = diag(1/p_1, ..., 1/p_n) of Algorithm 3 (0 where p_i = 0)."""
    with np.errstate(divide="ignore"):
        return np.diag(np.where(network.p > 0, 1.0 / np.where(network.p > 0, network.p, 1.0), 0.0))


def optimise_weights(
    network: Network,
    privacy: Privacy,
    sigma: float,
    A0: np.ndarray | None = None,
    L1: int = 2000,
    L2: int = 2000,
    tol: float = 1e-12,
) -> tuple[np.ndarray, dict]:
    """Algorithm 3 lines 3-8: relaxation (13) by Gauss-Seidel, then fine tuning (11) with (20)."""
    caps = weight_caps(privacy, sigma)
    A = initial_weights(network) if A0 is None else A0
    A, s1 = gauss_seidel(A, network, caps, fine=False, sweeps=L1, tol=tol)
    A, s2 = gauss_seidel(A, network, caps, fine=True, sweeps=L2, tol=tol)
    return A, {"relaxation": s1, "fine_tuning": s2}


def _result(A, sigma, sigma_thr, network, privacy, d, sweeps) -> PricerResult:
    tv = sigma_tv2(A, network)
    pr = sigma_pr2(sigma, network, d)
    return PricerResult(A, sigma, sigma_thr, privacy.R**2 * tv + pr, tv, pr, sweeps)


def pricer_optimise(
    network: Network, privacy: Privacy, d: int, K: int = 3, L1: int = 2000, L2: int = 2000, tol: float = 1e-12
) -> PricerResult:
    """Algorithm 3: alternating minimisation of (8) over A (Gauss-Seidel) and sigma (10).

    sigma^(0) = sigma_thr, A^(0) = diag(1/p_i); K outer iterations (sigma stays sigma_thr,
    see PRICER_INTERPRETATIONS).
    """
    if d < 1:
        raise PricerError(f"d must be >= 1; got {d}")
    sigma_thr = sigma_threshold(network, privacy)
    sigma, A, sweeps = sigma_thr, initial_weights(network), {}
    for _ in range(max(K, 1)):
        A, sweeps = optimise_weights(network, privacy, sigma, A, L1, L2, tol)
        sigma = sigma_update(A, privacy, sigma_thr)
    return _result(A, sigma, sigma_thr, network, privacy, d, sweeps)


def nonprivate_optimise(network: Network, d: int = 1, **kwargs) -> PricerResult:
    """Algorithm 3 with eps = .inf (sigma = 0): non-private collaborative relaying (ColRel [15])."""
    privacy = make_privacy(np.inf, 1.0, 1.0, network.n)
    return pricer_optimise(network, privacy, d, **kwargs)


def optimise_joint(network: Network, privacy: Privacy, d: int, xtol: float = 1e-7, **kwargs) -> PricerResult:
    """Global optimum of (8) (extension): min over sigma >= sigma_thr of min_A (11) + sigma_pr^2.

    The inner value is convex in sigma ((8) is a convex QP), so a bounded scalar search on
    [sigma_thr, sigma_free] finds it, where sigma_free is the sigma that makes the non-private
    optimum's weights feasible (beyond it only sigma_pr^2 grows).
    """
    from scipy.optimize import minimize_scalar

    base = pricer_optimise(network, privacy, d, **kwargs)
    free = nonprivate_optimise(network, d, **kwargs).A
    sigma_free = max(sigma_update(free, privacy, base.sigma_thr), base.sigma_thr)
    if sigma_free <= base.sigma_thr * (1 + 1e-12):
        return base
    inner = {k: v for k, v in kwargs.items() if k != "K"}
    evaluations = {}

    def value(sigma):
        A, sweeps = optimise_weights(network, privacy, sigma, base.A, **inner)
        val = privacy.R**2 * sigma_tv2(A, network) + sigma_pr2(sigma, network, d)
        evaluations[sigma] = (val, A, sweeps)
        return val

    minimize_scalar(value, bounds=(base.sigma_thr, sigma_free), method="bounded",
                    options={"xatol": xtol * sigma_free})
    sigma, (val, A, sweeps) = min(evaluations.items(), key=lambda item: item[1][0])
    if val >= base.objective:
        return base
    return _result(A, sigma, base.sigma_thr, network, privacy, d, sweeps)


def scipy_reference(
    network: Network,
    privacy: Privacy,
    d: int,
    rng: np.random.Generator,
    starts: int = 5,
    sigma: float | None = None,
) -> tuple[float, np.ndarray, float]:
    """Best (objective, A, sigma) of (8) found by SLSQP from ``starts`` random points.

    Variables: the alpha_ij with p_j p_ij > 0 and sigma (fixed if ``sigma`` is given, i.e.
    problem (11)).  All constraints of (8) are linear; the objective uses Q of
    ``quadratic_form`` with its exact gradient.
    """
    from scipy.optimize import minimize

    n = network.n
    g = (network.p[None, :] * network.P).ravel()
    support = np.flatnonzero(g > 0)
    Q = quadratic_form(network)[np.ix_(support, support)] * privacy.R**2 / n**2
    kpr = sigma_pr2(1.0, network, d)
    scale = (privacy.eps / (gaussian_factor(privacy.delta) * 2.0 * privacy.R)).ravel()[support]
    finite = np.isfinite(scale)
    rows = support // n
    m = support.size
    Aeq = np.zeros((n, m + 1))
    Aeq[rows, np.arange(m)] = g[support]
    sigma_thr = sigma_threshold(network, privacy)

    def f(z):
        a = z[:m]
        return a @ Q @ a + kpr * z[m] ** 2, np.concatenate([2 * Q @ a, [2 * kpr * z[m]]])

    Gin = np.zeros((int(finite.sum()), m + 1))  # scale*sigma - alpha >= 0
    Gin[np.arange(Gin.shape[0]), np.flatnonzero(finite)] = -1.0
    Gin[:, m] = scale[finite]
    cons = [
        {"type": "eq", "fun": lambda z: Aeq @ z - 1.0, "jac": lambda z: Aeq},
        {"type": "ineq", "fun": lambda z: Gin @ z, "jac": lambda z: Gin},
    ]
    fixed_sigma = sigma is not None
    sig_bounds = (sigma, sigma) if fixed_sigma else (0.0, None)
    bounds = [(0.0, None)] * m + [sig_bounds]
    best = (np.inf, None, None)
    for _ in range(starts):
        s0 = sigma if fixed_sigma else sigma_thr * (1.0 + 2.0 * rng.random())
        a0 = rng.random(m)
        for i in range(n):  # scale each row onto its unbiasedness hyperplane
            sel = rows == i
            a0[sel] /= np.sum(g[support][sel] * a0[sel])
        res = minimize(f, np.append(a0, s0), jac=True, method="SLSQP", bounds=bounds,
                       constraints=cons, options={"maxiter": 2000, "ftol": 1e-14})
        z = res.x
        A = np.zeros(n * n)
        A[support] = np.maximum(z[:m], 0.0)
        A = A.reshape(n, n)
        viol = check_constraints(A, z[m], network, privacy)
        if max(viol.values()) > 1e-7:
            continue
        val = objective(A, z[m], network, privacy, d)
        if val < best[0]:
            best = (val, A, float(z[m]))
    if best[1] is None:
        raise RuntimeError("SLSQP found no feasible point from any start")
    return best


# --------------------------------------------------------------------------- figure settings

FIG3_DEFAULTS = {
    "kind": "trust",
    "title": "PriCER: worst-case MSE vs trusted neighbours (seed 003, Fig. 3)",
    "p_server": [0.1, 0.1, 0.8, 0.1, 0.1, 0.9, 0.1, 0.1, 0.9, 0.1],
    "p_c": [0.2, 0.5, 0.8],
    "trusted": None,  # None: 0 .. n-1
    "trust_pattern": "ring_nearest",
    "eps_high": 1000.0,
    "eps_low": 0.1,
    "eps_self": 1000.0,
    "delta": 1.0e-3,
    "R": 1.0,
    "d": 10,
    "reciprocity": "independent",
    "joint_optimum": True,
    "draws": 4000,
}

FIG4_DEFAULTS = {
    "kind": "connectivity",
    "title": "PriCER vs naive: MSE vs good-connectivity nodes (seed 003, Fig. 4)",
    "n_nodes": 10,
    "d": 1000,
    "p_good": 0.9,
    "p_bad": 0.2,
    "trusted": 6,
    "p_trusted": 0.8,
    "p_untrusted": 0.0,
    "trust_pattern": "ring_nearest",
    "good_placement": "spread",
    "eps_high": 1000.0,
    "eps_low": 0.1,
    "eps_self": 1000.0,
    "delta": 1.0e-3,
    "R": 1.0,
    "reciprocity": "independent",
    "normalise": "per_node",
    "realisations": 50,
    "draws": 200,
}

FIG2_DEFAULTS = {
    "kind": "feasible_set",
    "title": "PriCER: feasible set of (8) for n = 2 (seed 003, Fig. 2)",
    "p_server": [0.6, 0.9],
    "p_link": 0.7,
    "eps_self": 1.0,
    "eps_link": 0.5,
    "delta": 1.0e-3,
    "R": 1.0,
    "d": 10,
    "sigma_factors": [0.5, 1.0, 2.0],
}

DEFAULTS = {"trust": FIG3_DEFAULTS, "connectivity": FIG4_DEFAULTS, "feasible_set": FIG2_DEFAULTS}


def resolve_settings(settings: dict) -> dict:
    """The figure's settings completed with the defaults of its ``kind``; unknown keys are errors."""
    kind = settings.get("kind")
    if kind not in DEFAULTS:
        raise PricerError(f"kind={kind!r}: allowed values are {sorted(DEFAULTS)}")
    unknown = sorted(set(settings) - set(DEFAULTS[kind]) - {"seed", "preset", "precision"})
    if unknown:
        raise PricerError(f"unknown PriCER setting(s) {unknown} for kind {kind!r}; allowed: {sorted(DEFAULTS[kind])}")
    return {**DEFAULTS[kind], **settings}


def table_for(settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Dispatch on ``kind``: Fig. 3 (trust), Fig. 4 (connectivity) or Fig. 2 (feasible_set)."""
    s = resolve_settings(settings)
    if s["kind"] == "trust":
        return pricer_fig3_table(s, rng)
    if s["kind"] == "connectivity":
        return pricer_fig4_table(s, rng)
    return feasible_set_table(s)


def pricer_caption(figure: str, settings: dict, seed: int) -> str:
    """reStructuredText caption for the Snakemake report: settings, seed, interpretations."""
    from .experiments import format_caption

    s = resolve_settings(settings)
    return format_caption(s.get("title") or figure, {**s, "seed": seed}, PRICER_INTERPRETATIONS)


def trust_matrix(n: int, k: int, pattern: str = "ring_nearest") -> np.ndarray:
    """Boolean T with T[i, j] = node i trusts node j (i != j), k neighbours per node.

    ``ring_nearest``: i+1, i-1, i+2, i-2, ... (mod n); ``ring_forward``: i+1, ..., i+k.
    """
    if not 0 <= k <= n - 1:
        raise PricerError(f"infeasible trust setting: {k} trusted neighbours with n = {n} nodes (need 0 <= k <= n-1)")
    if pattern == "ring_nearest":
        offsets = [s * (r // 2 + 1) for r, s in zip(range(k), [1, -1] * n)]
    elif pattern == "ring_forward":
        offsets = list(range(1, k + 1))
    else:
        raise PricerError(f"trust_pattern={pattern!r}: allowed values are 'ring_nearest', 'ring_forward'")
    T = np.zeros((n, n), dtype=bool)
    for off in offsets:
        T[np.arange(n), (np.arange(n) + off) % n] = True
    return T


def trust_privacy(T: np.ndarray, eps_high, eps_low, eps_self, delta, R) -> Privacy:
    """eps_ij = eps_high if i trusts j, eps_low otherwise, eps_ii = eps_self (Sec. VI)."""
    n = T.shape[0]
    eps = np.where(T, float(eps_high), float(eps_low))
    np.fill_diagonal(eps, float(eps_self))
    return make_privacy(eps, delta, R, n)


def fig3_instance(settings: dict, p_c: float, k: int) -> tuple[Network, Privacy]:
    """Sec. VI Fig. 3: Erdos-Renyi P_ij = p_c, k trusted ring neighbours per node."""
    s = resolve_settings(settings)
    p = np.asarray(s["p_server"], dtype=float)
    n = p.size
    P = np.full((n, n), float(p_c))
    np.fill_diagonal(P, 1.0)
    network = make_network(p, P, reciprocity=s["reciprocity"])
    T = trust_matrix(n, k, s["trust_pattern"])
    return network, trust_privacy(T, s["eps_high"], s["eps_low"], s["eps_self"], s["delta"], s["R"])


def solution_checks(res: PricerResult, network: Network, privacy: Privacy) -> dict:
    """Table columns certifying a solution: largest violation of (8)'s constraints, and whether
    every link meets its Theorem 4.1 target."""
    return {
        "max_violation": max(check_constraints(res.A, res.sigma, network, privacy).values()),
        "privacy_ok": bool(privacy_report(res.A, res.sigma, network, privacy)["ok"].all()),
    }


def pricer_fig3_table(settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Fig. 3: objective of (8) vs the number of trusted neighbours, one curve per p_c.

    Rows: Algorithm 3 (curve ``PriCER p_c=...``, kind ``algorithm3``), the joint optimum of
    (8) (``joint``, extension) and Algorithms 1-2 simulated on the worst-case data
    x_i = R e_1 (``simulated``; mean squared error, se, runs).
    """
    s = resolve_settings(settings)
    n = len(s["p_server"])
    ks = list(range(n)) if s["trusted"] is None else [int(k) for k in s["trusted"]]
    rows = []
    for p_c in s["p_c"]:
        for k in ks:
            network, privacy = fig3_instance(s, p_c, k)
            res = pricer_optimise(network, privacy, s["d"])
            common = {"p_c": p_c, "trusted": k}
            rows.append({"curve": f"PriCER p_c={p_c:g}", "kind": "algorithm3", **common, "mse": res.objective,
                         "se": np.nan, "runs": 0, "sigma": res.sigma, "sigma_tv2": res.sigma_tv2,
                         "sigma_pr2": res.sigma_pr2, **solution_checks(res, network, privacy)})
            if s["joint_optimum"]:
                joint = optimise_joint(network, privacy, s["d"])
                rows.append({"curve": f"joint optimum p_c={p_c:g}", "kind": "joint", **common,
                             "mse": joint.objective, "se": np.nan, "runs": 0, "sigma": joint.sigma,
                             "sigma_tv2": joint.sigma_tv2, "sigma_pr2": joint.sigma_pr2,
                             **solution_checks(joint, network, privacy)})
            if s["draws"]:
                X = np.zeros((n, s["d"]))
                X[:, 0] = s["R"]
                err = squared_errors(simulate_estimates(res.A, res.sigma, network, X, s["draws"], rng), X)
                rows.append({"curve": f"simulated p_c={p_c:g}", "kind": "simulated", **common,
                             "mse": err.mean(), "se": err.std(ddof=1) / math.sqrt(err.size),
                             "runs": err.size, "sigma": res.sigma, "sigma_tv2": np.nan, "sigma_pr2": np.nan})
    return pd.DataFrame(rows)


def heavy_tailed_data(n: int, d: int, R: float, rng: np.random.Generator, normalise: str = "per_node") -> np.ndarray:
    """Sec. VI Fig. 4 data: N(0, 1)^3 per coordinate, normalised so that ||x_i|| <= R.

    ``per_node``: every x_i rescaled to norm R; ``global``: all divided by max_i ||x_i|| / R.
    """
    X = rng.standard_normal((n, d)) ** 3
    norms = np.linalg.norm(X, axis=1)
    if normalise == "per_node":
        return X * (R / norms)[:, None]
    if normalise == "global":
        return X * (R / norms.max())
    raise PricerError(f"normalise={normalise!r}: allowed values are 'per_node', 'global'")


def good_nodes(n: int, g: int, placement: str = "spread") -> np.ndarray:
    """Indices of the g good-connectivity nodes: evenly spread on the ring, or the first g."""
    if not 0 <= g <= n:
        raise PricerError(f"{g} good nodes with n = {n}")
    if placement == "spread":
        return np.unique(np.floor(np.arange(g) * n / g).astype(int)) if g else np.array([], dtype=int)
    if placement == "first":
        return np.arange(g)
    raise PricerError(f"good_placement={placement!r}: allowed values are 'spread', 'first'")


def fig4_instance(settings: dict, g: int) -> tuple[Network, Privacy]:
    """Sec. VI Fig. 4: g good nodes (p_good), others p_bad; trusted links P_ij = p_trusted."""
    s = resolve_settings(settings)
    n = int(s["n_nodes"])
    p = np.full(n, float(s["p_bad"]))
    p[good_nodes(n, g, s["good_placement"])] = float(s["p_good"])
    T = trust_matrix(n, int(s["trusted"]), s["trust_pattern"])
    P = np.where(T, float(s["p_trusted"]), float(s["p_untrusted"]))
    np.fill_diagonal(P, 1.0)
    network = make_network(p, P, reciprocity=s["reciprocity"])
    return network, trust_privacy(T, s["eps_high"], s["eps_low"], s["eps_self"], s["delta"], s["R"])


def pricer_fig4_table(settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Fig. 4: MSE vs the number of good-connectivity nodes, naive vs PriCER.

    Per x: Algorithm 3 once; then ``realisations`` data sets, each averaging ``draws``
    link/noise draws.  Curves: naive and PriCER simulated (mean, se over realisations,
    runs = realisations); their exact expectations given the data (``*_exact``); Theorem 3.2's
    bound (``PriCER bound``).
    """
    s = resolve_settings(settings)
    n, d, R = int(s["n_nodes"]), int(s["d"]), float(s["R"])
    rows = []
    for g in range(n + 1):
        network, privacy = fig4_instance(s, g)
        res = pricer_optimise(network, privacy, d)
        sims = {"naive": [], "PriCER": []}
        exact = {"naive": [], "PriCER": []}
        for _ in range(int(s["realisations"])):
            X = heavy_tailed_data(n, d, R, rng, s["normalise"])
            sims["naive"].append(squared_errors(simulate_naive(network, X, s["draws"], rng), X).mean())
            est = simulate_estimates(res.A, res.sigma, network, X, s["draws"], rng)
            sims["PriCER"].append(squared_errors(est, X).mean())
            exact["naive"].append(naive_mse(network, X))
            exact["PriCER"].append(exact_mse(res.A, res.sigma, network, X))
        runs = int(s["realisations"])
        for name in ("naive", "PriCER"):
            for curve, values, kind in ((name, sims[name], "simulated"), (f"{name} exact", exact[name], "exact")):
                v = np.asarray(values)
                rows.append({"curve": curve, "kind": kind, "good_nodes": g, "mse": v.mean(),
                             "se": v.std(ddof=1) / math.sqrt(runs) if runs > 1 else np.nan, "runs": runs,
                             "draws": s["draws"] if kind == "simulated" else 0, "sigma": res.sigma})
        rows.append({"curve": "PriCER bound", "kind": "bound", "good_nodes": g, "mse": res.objective,
                     "se": np.nan, "runs": 0, "draws": 0, "sigma": res.sigma,
                     **solution_checks(res, network, privacy)})
    return pd.DataFrame(rows)


def fig2_instance(settings: dict) -> tuple[Network, Privacy]:
    """The n = 2 instance of Fig. 2."""
    s = resolve_settings(settings)
    P = np.array([[1.0, s["p_link"]], [s["p_link"], 1.0]])
    network = make_network(s["p_server"], P)
    eps = np.array([[s["eps_self"], s["eps_link"]], [s["eps_link"], s["eps_self"]]], dtype=float)
    return network, make_privacy(eps, s["delta"], s["R"], 2)


def feasible_set_table(settings: dict) -> pd.DataFrame:
    """Fig. 2: for each row i of A (n = 2), the hyperplane H of (3) in the positive quadrant,
    the privacy box B(sigma) and their intersection, for sigma = factor x sigma_thr; plus
    Algorithm 3's optimum row.  Columns: curve, row, sigma, vertex, alpha_1, alpha_2.
    """
    s = resolve_settings(settings)
    network, privacy = fig2_instance(s)
    sigma_thr = sigma_threshold(network, privacy)
    res = pricer_optimise(network, privacy, s["d"])
    rows = []

    def add(curve, i, sigma, points):
        for v, (a1, a2) in enumerate(points):
            rows.append({"curve": curve, "row": i + 1, "sigma": sigma, "sigma_factor": sigma / sigma_thr,
                         "vertex": v, "alpha_1": a1, "alpha_2": a2})

    for i in range(2):
        g = network.p * network.P[i]
        add("hyperplane", i, np.nan, [(1 / g[0], 0.0), (0.0, 1 / g[1])])
        for factor in s["sigma_factors"]:
            sigma = factor * sigma_thr
            cap = weight_caps(privacy, sigma)[i]
            add(f"box sigma={factor:g} sigma_thr", i, sigma,
                [(0, 0), (cap[0], 0), (cap[0], cap[1]), (0, cap[1]), (0, 0)])
            # intersection of g0 a1 + g1 a2 = 1 with the box: a1 in [lo, hi]
            lo = max(0.0, (1 - g[1] * cap[1]) / g[0])
            hi = min(cap[0], 1 / g[0])
            if lo <= hi * (1 + 1e-12):
                add(f"feasible sigma={factor:g} sigma_thr", i, sigma,
                    [(lo, (1 - g[0] * lo) / g[1]), (hi, (1 - g[0] * hi) / g[1])])
        add("Algorithm 3 optimum", i, res.sigma, [tuple(res.A[i])])
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- plots


def plot_pricer(table: pd.DataFrame, kind: str, title: str, metadata: dict, pdf: Path, png: Path) -> None:
    """Render Fig. 2, 3 or 4 (``kind``: feasible_set, trust, connectivity) to PDF + PNG.

    ``metadata`` (settings, interpretations, versions, timings) goes into the PDF Subject.
    """
    from .plotting import save_figure  # first: selects the Agg backend

    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="paper")
    if kind == "feasible_set":
        fig, axes = plt.subplots(1, 2, figsize=(8.0, 4.0))
        factors = sorted(table["sigma_factor"].dropna().unique())
        colours = dict(zip(factors, sns.color_palette("colorblind", len(factors))))
        for i, ax in enumerate(axes, start=1):
            part = table[table["row"] == i]
            for curve, pts in part.groupby("curve", sort=False):
                f = pts["sigma_factor"].iloc[0]
                if curve == "hyperplane":
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "k-", lw=1, label="unbiasedness (3)")
                elif curve.startswith("box"):
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "--", color=colours[f], lw=1,
                            label=rf"privacy box, $\sigma={f:g}\,\sigma_{{thr}}$")
                elif curve.startswith("feasible"):
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "-o", color=colours[f], lw=4, ms=5, alpha=0.6)
                else:
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "r*", ms=10, label="Algorithm 3")
            ax.set_xlabel(rf"$\alpha_{{{i}1}}$")
            ax.set_ylabel(rf"$\alpha_{{{i}2}}$")
            ax.set_title(f"row i = {i}", fontsize=9)
            ax.set_xlim(left=0)
            ax.set_ylim(bottom=0)
        axes[0].legend(fontsize=7)
    else:
        fig, ax = plt.subplots(figsize=(6.4, 4.6))
        xcol = "trusted" if kind == "trust" else "good_nodes"
        if kind == "trust":
            pcs = sorted(table["p_c"].unique())
            colours = dict(zip(pcs, sns.color_palette("colorblind", len(pcs))))
            for (pc, k), rows in table.groupby(["p_c", "kind"], sort=False):
                style = {"algorithm3": ("-o", 1.4), "joint": (":", 1.2), "simulated": ("x", 0)}[k]
                if k == "simulated":
                    ax.errorbar(rows[xcol], rows["mse"], yerr=2 * rows["se"], fmt="x", color=colours[pc], ms=5)
                else:
                    ax.plot(rows[xcol], rows["mse"], style[0], color=colours[pc], lw=style[1], ms=3)
            handles = [plt.Line2D([], [], color=colours[pc], lw=2, label=rf"$p_c={pc:g}$") for pc in pcs]
            handles += [plt.Line2D([], [], color="k", ls="-", marker="o", ms=3, label="Algorithm 3 (objective (8))"),
                        plt.Line2D([], [], color="k", ls=":", label="joint optimum of (8) (extension)"),
                        plt.Line2D([], [], color="k", ls="", marker="x", label=r"simulated, worst case $x_i=Re_1$ ($\pm 2$ se)")]
            ax.legend(handles=handles, fontsize=7)
            ax.set_xlabel("Number of trusted neighbours")
            ax.set_ylabel("Worst-case MSE")
        else:
            styles = {"naive": ("tab:red", "-o"), "PriCER": ("tab:blue", "-o"),
                      "naive exact": ("tab:red", ":"), "PriCER exact": ("tab:blue", ":"),
                      "PriCER bound": ("tab:blue", "--")}
            for curve, rows in table.groupby("curve", sort=False):
                colour, style = styles.get(curve, ("grey", "-"))
                if rows["kind"].iloc[0] == "simulated":
                    ax.errorbar(rows[xcol], rows["mse"], yerr=2 * rows["se"], fmt=style, color=colour,
                                ms=3, lw=1.4, label=f"{curve} (simulated, $\\pm 2$ se)")
                else:
                    ax.plot(rows[xcol], rows["mse"], style, color=colour, lw=1.2, label=curve)
            ax.legend(fontsize=7)
            ax.set_xlabel("Number of nodes with good connectivity")
            ax.set_ylabel("MSE")
        ax.set_yscale("log")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, title, metadata, pdf, png,
                keywords="PriCER; collaborative relaying; differential privacy; mean estimation")
