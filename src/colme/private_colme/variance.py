"""Unknown data variance (Private-ColME, arXiv:2411.07094, Secs. II-D, III-C2, V): Welch
test, Sch-Var-1, Sch-Var-2 and the Bayesian estimator of eq. (19).  Compiled scalar
functions, called per pair by the Private-ColME kernel.
"""

from __future__ import annotations

import math

import numba

#: Variance estimation schemes of the config (``known`` = the variance is public).
VARIANCE_SCHEMES = {"known": 0, "schvar1": 1, "schvar2": 2, "schvar2_bayes": 3}
#: Shape offsets of the posterior of eq. (19) and footnote 3: shape = (k + offset)/2.
BAYES_PRIORS = {"uninformative": 2.0, "jeffreys": 1.0, "flat": -2.0}


@numba.njit(cache=True)
def student_t_quantile(two_sided_tail, z_lower, nu):
    """t with P(|T_nu| > t) = ``two_sided_tail``: Hill's algorithm 396 (CACM 1970).

    ``z_lower`` = Phi^{-1}(two_sided_tail / 2) (negative), passed in so the caller can
    tabulate it by t.  Hill's closed form is accurate to ~1e-5 for nu >= 2.5 but only to
    ~5% for 1 < nu < 2.5, so there three Newton steps on the exact tail (incomplete beta)
    follow; ``tests/private_colme/test_variance.py`` bounds the relative error against SciPy over the
    tails and degrees of freedom the rule meets.  Non-integer nu >= 1 (Welch) is allowed;
    nu -> inf gives -z_lower.
    """
    q = _hill_quantile(two_sided_tail, z_lower, nu)
    if 1.0 + 1e-12 < nu < 2.5 and abs(nu - 2.0) > 1e-12:
        for _ in range(3):
            excess = _t_upper_tail(q, nu) - 0.5 * two_sided_tail
            q += excess / _t_density(q, nu)
    return q


@numba.njit(cache=True)
def _t_density(q, nu):
    return math.exp(
        math.lgamma(0.5 * (nu + 1.0)) - math.lgamma(0.5 * nu) - 0.5 * math.log(nu * math.pi)
        - 0.5 * (nu + 1.0) * math.log1p(q * q / nu)
    )


@numba.njit(cache=True)
def _t_upper_tail(q, nu):
    """P(T_nu > q) = I_{nu/(nu+q^2)}(nu/2, 1/2)/2 for q > 0."""
    return 0.5 * _incomplete_beta(0.5 * nu, 0.5, nu / (nu + q * q))


@numba.njit(cache=True)
def _incomplete_beta(a, b, x):
    """Regularized I_x(a, b) by the Numerical Recipes continued fraction (x < (a+1)/(a+b+2))."""
    if x <= 0.0:
        return 0.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 500):
        numerator = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
        for _ in range(2):
            d = 1.0 + numerator * d
            d = 1.0 / (tiny if abs(d) < tiny else d)
            c = 1.0 + numerator / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
            numerator = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * h / a


@numba.njit(cache=True)
def _hill_quantile(two_sided_tail, z_lower, nu):
    p = two_sided_tail
    if abs(nu - 2.0) < 1e-12:
        return math.sqrt(2.0 / (p * (2.0 - p)) - 2.0)
    if nu < 1.0 + 1e-12:
        return math.cos(p * math.pi / 2.0) / math.sin(p * math.pi / 2.0)
    a = 1.0 / (nu - 0.5)
    b = 48.0 / (a * a)
    c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36
    d = ((94.5 / (b + c) - 3.0) / b + 1.0) * math.sqrt(a * math.pi / 2.0) * nu
    y = (d * p) ** (2.0 / nu)
    if y > 0.05 + a:
        x = z_lower
        y = x * x
        if nu < 5.0:
            c += 0.3 * (nu - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x
        y = math.expm1(a * y * y)
    else:
        y = (
            (1.0 / (((nu + 6.0) / (nu * y) - 0.089 * d - 0.822) * (nu + 2.0) * 3.0) + 0.5 / (nu + 4.0)) * y
            - 1.0
        ) * (nu + 1.0) / (nu + 2.0) + 1.0 / y
    return math.sqrt(nu * y)


@numba.njit(cache=True)
def welch_dof(own_var_of_mean, own_count, other_var, other_count):
    """nu of Sec. III-C2: (A + B)^2 / (A^2/(t - 1) + B^2/(t_kappa - 1)), A = V_a/t, B = Var^[T]."""
    total = own_var_of_mean + other_var
    return total * total / (
        own_var_of_mean * own_var_of_mean / (own_count - 1.0) + other_var * other_var / (other_count - 1.0)
    )


@numba.njit(cache=True)
def bayes_variance(v_prime, kappa, noise_var, shape_offset):
    """Eq. (19)'s posterior mean of sigma_b^2 (truncated inverse gamma), computed stably.

    E = V' (k - 1)/2 * gamma(a - 1, x)/gamma(a, x) - K sigma_DP^2 with a = (k + offset)/2,
    x = (k - 1) V'/(2 K sigma_DP^2), ``noise_var`` = K sigma_DP^2.  With the series
    P(a, x) = x^a e^{-x}/Gamma(a + 1) * S, S = sum_n x^n / ((a + 1)...(a + n)), the ratio
    is (1 + a/(x S))/(a - 1), so E = V'(k - 1)/(2(a - 1)) + K sigma_DP^2 (a/((a - 1) S) - 1):
    no incomplete gamma is ever formed, nothing overflows, and V' = 0 is fine.  Returns
    inf when a <= 1 (posterior mean undefined, e.g. the flat prior with k <= 4).
    """
    a = 0.5 * (kappa + shape_offset)
    if a <= 1.0:
        return math.inf
    x = (kappa - 1.0) * v_prime / (2.0 * noise_var)
    if x > a + 1.0:
        # Series slow here: P(a, x) = 1 - Q(a, x) with Q by Lentz's continued fraction.
        log_p = math.log1p(-_upper_gamma_regularized(a, x))
        log_tail = (a - 1.0) * math.log(x) - x - math.lgamma(a) - log_p
        return v_prime * (kappa - 1.0) / 2.0 * (1.0 + math.exp(log_tail)) / (a - 1.0) - noise_var
    series = 1.0
    term = 1.0
    n = 1.0
    while term > 1e-17 * series:
        term *= x / (a + n)
        series += term
        n += 1.0
    return v_prime * (kappa - 1.0) / (2.0 * (a - 1.0)) + noise_var * (a / ((a - 1.0) * series) - 1.0)


@numba.njit(cache=True)
def _upper_gamma_regularized(a, x):
    """Q(a, x) for x > a + 1 by the modified Lentz continued fraction (Numerical Recipes)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h
