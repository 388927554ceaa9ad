"""Student-t quantiles, Welch's nu and the Bayesian variance estimator (Private-ColME Sec. V)."""

import math

import numpy as np
import pytest
from scipy import special, stats

from colme.private_colme.variance import bayes_variance, student_t_quantile, welch_dof

# Measured maximum relative error (1.05e-5, at nu = 2.5) against SciPy over the tails
# theta_t = 0.05/ln(t + 1) (t <= 1e6) and nu in [1, 1e6]: the bound the test enforces.
HILL_RELATIVE_ERROR = 2e-5


def test_hill_quantile_matches_scipy_over_the_rule_range():
    tails = 0.05 / np.log(np.geomspace(2, 1e6, 40) + 1)
    nus = np.concatenate([[1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 7.5], np.geomspace(10, 1e6, 40)])
    worst = 0.0
    for p in tails:
        z_lower = special.ndtri(p / 2)
        for nu in nus:
            exact = stats.t.isf(p / 2, nu)
            worst = max(worst, abs(student_t_quantile(p, z_lower, nu) / exact - 1))
    assert worst < HILL_RELATIVE_ERROR, worst


def test_welch_threshold_tends_to_the_gaussian_one():
    p = 0.05 / math.log(1001)
    z = -special.ndtri(p / 2)
    gaps = [abs(student_t_quantile(p, -z, nu) - z) for nu in (10.0, 100.0, 1e3, 1e5)]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < 1e-3 * z


def test_welch_dof_limits():
    # equal variances and counts n: nu = 2(n - 1); one side dominating: its own n - 1
    assert welch_dof(1.0, 11.0, 1.0, 11.0) == pytest.approx(20.0)
    assert welch_dof(1.0, 11.0, 1e-9, 1e6) == pytest.approx(10.0, rel=1e-6)


def reference_bayes(v_prime, kappa, noise_var, offset):
    a = (kappa + offset) / 2
    x = (kappa - 1) * v_prime / (2 * noise_var)
    ratio = special.gammainc(a - 1, x) * special.gamma(a - 1) / (special.gammainc(a, x) * special.gamma(a))
    return v_prime * (kappa - 1) / 2 * ratio - noise_var


@pytest.mark.parametrize("offset", [2.0, 1.0, -2.0])
def test_bayes_estimator_equals_incomplete_gamma_form_and_is_nonnegative(offset):
    rng = np.random.default_rng(0)
    for _ in range(300):
        kappa = int(rng.integers(6, 60))
        noise_var = rng.uniform(0.01, 5)
        v_prime = rng.uniform(0, 1.5) * noise_var  # the V < 0 regime where (19) is used
        value = bayes_variance(v_prime, kappa, noise_var, offset)
        assert value >= 0
        assert value == pytest.approx(reference_bayes(v_prime, kappa, noise_var, offset), rel=1e-9)
    # no overflow where the incomplete gammas themselves would underflow
    assert 0 < bayes_variance(1e-3, 5000, 2.0, 2.0) < math.inf
    assert bayes_variance(0.0, 3, 1.0, -2.0) == math.inf  # flat prior: mean undefined


def test_bayes_estimator_close_to_plain_one_when_that_is_clearly_positive():
    """Eq. (19) uses V where V >= 0; where V >> 0 the posterior mean is V to O(1/k) anyway."""
    kappa, noise_var = 400, 0.1
    v_prime = 3.0 + noise_var
    assert bayes_variance(v_prime, kappa, noise_var, 2.0) == pytest.approx(v_prime - noise_var, rel=0.02)


def pair_estimates(scheme, reps, k, gap, sigma_dp, sigma_w, rng, offset=2.0):
    """V_{b->a} after each of k PM-I answers, for ``reps`` independent pairs (real mechanism),
    and the final estimate before negative values are clipped, rebuilt from the kernel's
    own accumulators."""
    from colme.private_colme.kernel import _estimate_variance
    from colme.private_colme.mechanisms import MECHANISMS, WEIGHTS, PairState, release

    half_width = math.sqrt(3) / 2  # sigma = 1/2
    out = np.empty((reps, k))
    raw = np.empty(reps)
    for r in range(reps):
        pair = PairState.new(1, 1)
        row = np.zeros(8)
        total = squares = 0.0
        for i in range(1, k + 1):
            x = 0.4 + rng.uniform(-half_width, half_width, gap)
            total += x.sum()
            squares += (x * x).sum()
            t = float(i * gap)
            z, w = sigma_dp * rng.standard_normal(), sigma_w * rng.standard_normal()
            value = release(pair=0, t=t, sample_mean=total / t, fresh_noise=z, sigma2=0.25, sigma_dp2=sigma_dp**2,
                            mechanism=MECHANISMS["pm1"], weights=WEIGHTS["last"], **pair.arguments())
            out[r, i - 1] = _estimate_variance(row, scheme, offset, t, float(gap), i, value,
                                               total, squares, z, w, sigma_dp**2)
        if scheme == 1:  # eq. (8)
            raw[r] = (row[4] - t * value**2 - sigma_dp**2 * (row[3] - k / t)) / (t - 1)
        else:  # eq. (16)
            raw[r] = (row[2] - row[1] ** 2 / k) / (k - 1) - sigma_dp**2 * row[3] / k
    return out, raw


@pytest.mark.parametrize("scheme, name", [(1, "Lemma 6 (Sch-Var-1, eq. (8))"), (2, "Lemma 7 (Sch-Var-2, eq. (16))")])
def test_variance_estimators_are_unbiased(scheme, name):
    """Before clipping negative values to inf, E[V_{b->a}] = sigma^2 = 1/4, within 4 se."""
    rng = np.random.default_rng(5)
    _, values = pair_estimates(scheme, 4000, 6, 9, 0.6, 0.8, rng)
    se = values.std(ddof=1) / math.sqrt(len(values))
    assert abs(values.mean() - 0.25) < 4 * se, name
    # the test has the power to see the noise correction: without it the bias is > 10 se
    assert 10 * se < 0.6**2 / 9


def test_bayes_variant_is_nonnegative_and_equals_plain_where_that_is_valid():
    rng = np.random.default_rng(6)
    plain, _ = pair_estimates(2, 300, 8, 5, 2.5, 0.0, rng)
    rng = np.random.default_rng(6)
    bayes, _ = pair_estimates(3, 300, 8, 5, 2.5, 0.0, rng)
    valid = np.isfinite(plain)
    np.testing.assert_allclose(bayes[valid], plain[valid])
    later = bayes[:, 1:]  # from the second answer on, every Bayes estimate exists
    assert np.all(np.isfinite(later)) and np.all(later >= 0)
    assert (~valid[:, 1:]).any()  # the test did meet negative plain estimates


def test_schvar2_without_its_first_interval_is_eq16_over_the_others():
    """schvar2_first_interval: drop: eq. (16) over intervals 2..kappa (first one shorter)."""
    from colme.private_colme.kernel import _estimate_variance

    rng = np.random.default_rng(11)
    gaps = np.array([3.0, 9.0, 9.0, 9.0, 9.0, 9.0])
    sigma_dp = 0.7
    sums = rng.normal(0.4 * gaps, 0.5 * np.sqrt(gaps)) + sigma_dp * rng.standard_normal(gaps.size)
    times = np.cumsum(gaps)
    row, values = np.zeros(8), []
    for k, (t, gap) in enumerate(zip(times, gaps, strict=True), start=1):
        value = sums[:k].sum() / t  # R_k, the running noisy mean the receiver holds
        values.append(_estimate_variance(row, 2, 2.0, t, gap, k, value, 0.0, 0.0, 0.0, 0.0,
                                         sigma_dp**2, 1))
    assert values[0] == math.inf and values[1] == math.inf  # no estimate from one interval
    scaled = sums[1:] / np.sqrt(gaps[1:])
    expected = scaled.var(ddof=1) - sigma_dp**2 * np.mean(1 / gaps[1:])
    assert values[-1] == pytest.approx(expected if expected > 0 else math.inf, rel=1e-12)


def test_schvar2_variants_change_only_the_schvar2_curves():
    """welch_dof and schvar2_first_interval act on Sch-Var-2 only: the known-variance and
    Sch-Var-1 curves stay bit for bit, the Sch-Var-2 ones move."""
    from colme.populations import Population
    from colme.private_colme.kernel import simulate_colme_runs
    from colme.private_colme.spec import ColmeCurve, ColmeSpec
    from colme.seeding import run_generator

    curves = tuple(ColmeCurve(variance=v) for v in ("known", "schvar1", "schvar2", "schvar2_bayes"))
    rng = run_generator(1, "variants", 0, "instance")
    classes = Population().assign(12, rng)[None]

    def run(**options):
        spec = ColmeSpec(n_agents=12, curves=curves, t_record=np.array([50, 200, 400]), **options)
        return simulate_colme_runs(spec, classes, [run_generator(1, "variants", 0, "data")])[0]

    printed = run()
    for options in ({"welch_dof": "kappa"}, {"schvar2_first_interval": "drop"}):
        variant = run(**options)
        np.testing.assert_array_equal(variant[:2], printed[:2])
        assert not np.array_equal(variant[2:], printed[2:]), options
