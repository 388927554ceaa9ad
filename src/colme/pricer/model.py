"""PriCER model (Sec. II-A): the network (p, P, E), privacy levels, validation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class PricerError(ValueError):
    """Invalid PriCER parameters (probabilities, privacy levels) or an infeasible setting."""




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
    if np.any(lo - 1e-15 > E) or np.any(hi + 1e-15 < E):
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
