"""PriCER Algorithm 3 (Sec. V): Gauss-Seidel over rows (14)-(20), the joint optimum of (8), SLSQP reference."""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from .bounds import check_constraints, objective, quadratic_form, sigma_pr2, sigma_tv2
from .model import Network, PricerError, Privacy, make_privacy
from .privacy import gaussian_factor, sigma_threshold, sigma_update, weight_caps

#: ``solve_lambda``'s methods, by the compiled code's number.
LAMBDA_METHODS = {"breakpoints": 0, "bisection": 1}

#: The compiled functions' status: done, a row whose privacy caps cannot meet (3), a node
#: that cannot reach the PS at all.
OK, INFEASIBLE_ROW, UNREACHABLE = 0, 1, 2


@numba.njit(cache=True)
def _row_terms_compiled(i, A, p, P, E, fine):
    n = p.shape[0]
    b = np.empty(n)
    D = np.empty(n)
    for j in range(n):
        others = 0.0
        for row in range(n):  # sum_{l != i} p_lj alpha_lj, row by row as (P * A).sum(axis=0) adds
            if row != i:
                others += P[row, j] * A[row, j]
        b[j] = 2.0 * (1.0 - p[j]) * others
        recip = p[i] * (E[i, j] / P[i, j] - P[j, i]) if P[i, j] > 0 else 0.0
        g = p[j] * P[i, j]
        if fine:
            b[j] += 2.0 * recip * A[j, i]
            D[j] = 2.0 * (1.0 - g)
        else:
            D[j] = 2.0 * ((1.0 - g) + recip)
    return b, D


def _row_terms(i: int, A: np.ndarray, network: Network, fine: bool) -> tuple[np.ndarray, np.ndarray]:
    """(b_j, D_j) with alpha_ij(lambda) = ((lambda - b_j) / D_j)^+: (15) or, if ``fine``, (20)."""
    return _row_terms_compiled(i, A, network.p, network.P, network.E, fine)


@numba.njit(cache=True)
def _clipped_total(lam, g, b, D, caps):
    total = 0.0
    for j in range(g.shape[0]):
        total += g[j] * min(max((lam - b[j]) / D[j], 0.0), caps[j])
    return total


@numba.njit(cache=True)
def _solve_lambda_compiled(g, b, D, caps, target, method, max_iter):
    """``solve_lambda``, compiled: (weights, status, reach)."""
    m = g.shape[0]
    out = np.zeros(m)
    if target <= 0:
        return out, OK, 0.0
    reach = 0.0
    for j in range(m):
        reach += g[j] * caps[j]
    if reach <= target * (1 + 1e-12):
        if reach < target * (1 - 1e-9):
            return out, INFEASIBLE_ROW, reach
        for j in range(m):
            out[j] = caps[j] * (target / reach)
        return out, OK, reach
    if method == 0:
        points = np.empty(2 * m)
        count = 0
        for j in range(m):
            points[count] = b[j]
            count += 1
            top = b[j] + D[j] * caps[j]
            if np.isfinite(top):
                points[count] = top
                count += 1
        kinks = np.unique(points[:count])
        k = kinks.shape[0]
        for index in range(kinks.shape[0]):  # the first kink whose total reaches the target
            if _clipped_total(kinks[index], g, b, D, caps) >= target:
                k = index
                break
        if k < kinks.shape[0]:
            lo = kinks[k - 1] if k > 0 else kinks[0]
            hi = kinks[k]
        else:  # beyond the last kink only uncapped weights grow
            lo, hi = kinks[-1], np.inf
    else:
        lo = b.min()
        hi = lo + max(1.0, abs(lo))
        while _clipped_total(hi, g, b, D, caps) < target:
            hi = lo + 2.0 * (hi - lo)
        for _ in range(max_iter):
            mid = 0.5 * (lo + hi)
            same = True
            for j in range(m):
                raw_lo, raw_hi = (lo - b[j]) / D[j], (hi - b[j]) / D[j]
                if (raw_lo <= 0) != (raw_hi <= 0) or (raw_lo >= caps[j]) != (raw_hi >= caps[j]):
                    same = False
            if same:
                break
            if _clipped_total(mid, g, b, D, caps) < target:
                lo = mid
            else:
                hi = mid
    # On (lo, hi) the clipping pattern is fixed: solve the linear equation exactly.
    probe = lo + 0.5 * (hi - lo) if np.isfinite(hi) else lo + 1.0
    fixed, over, under, free = 0.0, 0.0, 0.0, False
    for j in range(m):
        raw = (probe - b[j]) / D[j]
        if raw >= caps[j]:
            fixed += g[j] * caps[j]
        elif raw > 0:
            free = True
            over += g[j] * b[j] / D[j]
            under += g[j] / D[j]
    lam = min(max((target - fixed + over) / under, lo), hi) if free else hi
    for j in range(m):
        out[j] = min(max((lam - b[j]) / D[j], 0.0), caps[j])
    return out, OK, reach


def solve_lambda(g, b, D, caps, target: float, method: str = "breakpoints", max_iter: int = 200) -> np.ndarray:
    """Weights min{((lambda - b)/D)^+, caps} with sum g * weights = target (16)-(18).

    The sum is continuous, non-decreasing and piecewise linear in lambda.  ``breakpoints``
    (default): the sum is evaluated at its sorted kinks and the bracketing piece is the one
    where it first reaches the target, then solved exactly.  ``bisection``: lambda is
    bracketed by doubling and bisected until the clipping pattern is the same at both ends,
    then that piece is solved exactly.  Both give the same lambda_i; if even the caps cannot
    reach ``target`` (only possible below sigma_thr) a ``PricerError`` is raised.  Compiled
    (Numba): Algorithm 3 calls it once per row and sweep.
    """
    if method not in LAMBDA_METHODS:
        raise PricerError(f"method={method!r}: allowed values are 'breakpoints', 'bisection'")
    arrays = [np.asarray(x, dtype=np.float64) for x in (g, b, D, caps)]
    weights, status, reach = _solve_lambda_compiled(*arrays, float(target), LAMBDA_METHODS[method], max_iter)
    if status == INFEASIBLE_ROW:
        raise PricerError(
            f"infeasible row: the privacy caps allow sum p_j p_ij alpha_ij <= {reach:.6g} < "
            f"{target:.6g}; sigma is below sigma_thr"
        )
    return weights


@numba.njit(cache=True)
def _row_update_compiled(i, A, p, P, E, caps, fine):
    """``row_update``, compiled: (row, status, the caps' reach, the target) (the last two
    for an infeasible row's error)."""
    n = p.shape[0]
    row = np.zeros(n)
    g = p * P[i]
    cap = caps[i]
    if p[i] == 1.0 and cap[i] >= 1.0:  # case c), (19)
        row[i] = 1.0
        return row, OK, 0.0, 0.0
    target = 1.0
    zero_cost = g == 1.0  # case b) (and case c) when (19) breaks the self-link cap)
    if zero_cost.any():
        infinite = 0
        for j in range(n):
            if zero_cost[j] and np.isinf(cap[j]):
                infinite += 1
        if infinite:
            for j in range(n):
                if zero_cost[j] and np.isinf(cap[j]):
                    row[j] = 1.0 / infinite
            return row, OK, 0.0, 0.0
        total = 0.0
        for j in range(n):
            if zero_cost[j]:
                total += cap[j]
        if total >= 1.0:
            for j in range(n):
                if zero_cost[j]:
                    row[j] = cap[j] / total
            return row, OK, 0.0, 0.0
        for j in range(n):
            if zero_cost[j]:
                row[j] = cap[j]
        target = 1.0 - total
    active = np.flatnonzero((g > 0) & (g < 1))  # (17)/(18): p_j p_ij = 0 -> 0
    if active.shape[0] == 0:
        return row, UNREACHABLE, 0.0, target
    b, D = _row_terms_compiled(i, A, p, P, E, fine)
    weights, status, reach = _solve_lambda_compiled(g[active], b[active], D[active], cap[active], target, 0, 200)
    if status != OK:
        return row, status, reach, target
    for index in range(active.shape[0]):
        row[active[index]] = weights[index]
    return row, OK, reach, target


def _raise_for(status: int, i: int, reach: float, target: float) -> None:
    if status == UNREACHABLE:
        raise PricerError(f"infeasible: node {i} cannot meet (3) within its privacy caps")
    if status == INFEASIBLE_ROW:
        raise PricerError(
            f"infeasible row {i}: the privacy caps allow sum p_j p_ij alpha_ij <= {reach:.6g} < {target:.6g}; "
            "sigma is below sigma_thr"
        )


def row_update(i: int, A: np.ndarray, network: Network, caps: np.ndarray, fine: bool) -> np.ndarray:
    """Row i's block minimiser: Sec. V-B cases a) (16)-(17), b) (18) and c) (19).

    ``fine=False`` minimises the relaxation (13) with (15); ``fine=True`` the fine tuning (11)
    with (20).  Returns the new row A_i (the Gauss-Seidel update (14)).  Compiled (Numba).
    """
    row, status, reach, target = _row_update_compiled(i, np.asarray(A, dtype=np.float64), network.p, network.P,
                                                      network.E, np.asarray(caps, dtype=np.float64), fine)
    _raise_for(status, i, reach, target)
    return row


@numba.njit(cache=True)
def _gauss_seidel_compiled(A, p, P, E, caps, fine, sweeps, tol):
    """``gauss_seidel``, compiled: (A, sweeps done, status, row, reach, target) (the last
    three for an infeasible row's error)."""
    A = A.copy()
    n = p.shape[0]
    for sweep in range(1, sweeps + 1):
        change = 0.0
        for i in range(n):
            new, status, reach, target = _row_update_compiled(i, A, p, P, E, caps, fine)
            if status != OK:
                return A, sweep, status, i, reach, target
            for j in range(n):
                change = max(change, abs(new[j] - A[i, j]))
                A[i, j] = new[j]
        if change <= tol * max(1.0, A.max()):
            return A, sweep, OK, -1, 0.0, 0.0
    return A, sweeps, OK, -1, 0.0, 0.0


def gauss_seidel(
    A: np.ndarray, network: Network, caps: np.ndarray, fine: bool, sweeps: int, tol: float
) -> tuple[np.ndarray, int]:
    """Gauss-Seidel over rows (14) on (13) (``fine=False``) or (11) (``fine=True``).

    Stops after ``sweeps`` full sweeps over the n rows or once a sweep changes no weight by
    more than ``tol`` times the largest weight.  Returns (A, sweeps done).  Compiled (Numba):
    a figure's joint optimum runs it some ten thousand times.
    """
    A, done, status, row, reach, target = _gauss_seidel_compiled(
        np.asarray(A, dtype=np.float64), network.p, network.P, network.E, np.asarray(caps, dtype=np.float64), fine,
        int(sweeps), float(tol))
    _raise_for(status, row, reach, target)
    return A, int(done)


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
    see colme.pricer.choices.CHOICES).
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
    from scipy.optimize import minimize_scalar  # lazy: scipy.optimize, only for PriCER's optimum

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

    Variables: the alpha_ij with p_j p_ij > 0, and sigma unless it is given (problem (11)).
    The constraints of (8) are linear: unbiasedness as equalities, and each link's privacy
    cap alpha_ij <= eps_ij sigma / (sqrt(2 ln(1.25/delta)) 2R) as an inequality in
    (alpha, sigma), or at a given sigma as the variable's upper bound, which SLSQP meets
    exactly (as an inequality it stopped up to 2e-6 above (11)'s optimum).  The objective
    uses Q of ``quadratic_form`` with its exact gradient.
    """
    from scipy.optimize import minimize  # lazy: scipy.optimize, only for PriCER's optimum

    n = network.n
    g = (network.p[None, :] * network.P).ravel()
    support = np.flatnonzero(g > 0)
    Q = quadratic_form(network)[np.ix_(support, support)] * privacy.R**2 / n**2
    kpr = sigma_pr2(1.0, network, d)
    scale = (privacy.eps / (gaussian_factor(privacy.delta) * 2.0 * privacy.R)).ravel()[support]
    finite = np.isfinite(scale)
    rows = support // n
    m = support.size
    fixed_sigma = sigma is not None
    Aeq = np.zeros((n, m if fixed_sigma else m + 1))
    Aeq[rows, np.arange(m)] = g[support]
    cons = [{"type": "eq", "fun": lambda z: Aeq @ z - 1.0, "jac": lambda z: Aeq}]
    if fixed_sigma:
        bounds = [(0.0, cap * sigma if bounded else None) for cap, bounded in zip(scale, finite, strict=True)]

        def f(z):
            return z @ Q @ z, 2 * Q @ z

    else:
        Gin = np.zeros((int(finite.sum()), m + 1))  # scale*sigma - alpha >= 0
        Gin[np.arange(Gin.shape[0]), np.flatnonzero(finite)] = -1.0
        Gin[:, m] = scale[finite]
        cons.append({"type": "ineq", "fun": lambda z: Gin @ z, "jac": lambda z: Gin})
        bounds = [(0.0, None)] * (m + 1)
        sigma_thr = sigma_threshold(network, privacy)

        def f(z):
            a = z[:m]
            return a @ Q @ a + kpr * z[m] ** 2, np.concatenate([2 * Q @ a, [2 * kpr * z[m]]])

    best = (np.inf, None, None)
    for _ in range(starts):
        sigma0 = [] if fixed_sigma else [sigma_thr * (1.0 + 2.0 * rng.random())]
        a0 = rng.random(m)
        for i in range(n):  # scale each row onto its unbiasedness hyperplane
            sel = rows == i
            a0[sel] /= np.sum(g[support][sel] * a0[sel])
        res = minimize(f, np.append(a0, sigma0), jac=True, method="SLSQP", bounds=bounds,
                       constraints=cons, options={"maxiter": 2000, "ftol": 1e-14})
        point_sigma = float(sigma) if fixed_sigma else float(res.x[m])
        A = np.zeros(n * n)
        A[support] = np.maximum(res.x[:m], 0.0)
        A = A.reshape(n, n)
        viol = check_constraints(A, point_sigma, network, privacy)
        if max(viol.values()) > 1e-7:
            continue
        val = objective(A, point_sigma, network, privacy, d)
        if val < best[0]:
            best = (val, A, point_sigma)
    if best[1] is None:
        raise RuntimeError("SLSQP found no feasible point from any start")
    return best
