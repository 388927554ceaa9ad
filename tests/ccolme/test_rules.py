"""Decision thresholds, schedules and mixing weights of Private-C-ColME (arXiv:2511.04702),
Sec. III."""

import math

import numpy as np
import pytest

from colme.ccolme.decision_rules import builtin_rules
from colme.ccolme.rules import (
    alpha_table,
    bernstein_threshold,
    difference_beta,
    laplace_beta_dp,
    mixing_matrix,
    noisy_mean_beta,
    optimistic_radius,
    theta_schedule,
)
from colme.populations import uniform_bernstein_beta
from colme.privacy import laplace_sigma_dp

SIGMA = 0.5
L = SIGMA * math.sqrt(3)
BUILTIN = builtin_rules()


def threshold(rule, t, k, sigma_dp, beta_pair=0.0, **options):
    """A built-in rule's threshold for two agents with data sd SIGMA and noise ``sigma_dp``,
    r = 5, M = 200 (``options``: the optimistic rule's delta and closed_early)."""
    rule = builtin_rules(**options)[rule]
    theta = theta_schedule(t, k) if not math.isnan(k) else math.nan
    return rule.threshold(t, SIGMA, SIGMA, sigma_dp, sigma_dp, beta_pair, theta, 5.0, 200)


@pytest.mark.parametrize("k", [5, 6, 7, 8])
def test_theta_is_two_exactly_until_one_point_five_to_the_k(k):
    """theta_t = min(2, 3/t^(1/k)) = 2 iff t <= 1.5^k, and then nobody is accepted."""
    last_closed = math.floor(1.5**k)
    assert theta_schedule(last_closed, k) == 2.0
    assert theta_schedule(last_closed + 1, k) < 2.0
    assert threshold("bernstein", last_closed, k, 0.0, beta_pair=2.0) == 0.0
    assert threshold("bernstein", last_closed + 1, k, 0.0, beta_pair=2.0) > 0.0


def test_bernstein_threshold_closed_form():
    """z_theta of Sec. III-C1, evaluated by hand for eps = 1 at t = 100, k = 7."""
    sigma_dp = laplace_sigma_dp(1.0, L)
    beta_bar = noisy_mean_beta(SIGMA, uniform_bernstein_beta(L), sigma_dp, laplace_beta_dp(sigma_dp))
    theta = 3 / 100 ** (1 / 7)
    log_term = math.log(2 / theta)
    by_hand = 2 * 2 * beta_bar / 10 * log_term + math.sqrt(2 * SIGMA**2 + 2 * sigma_dp**2) / 10 * math.sqrt(
        2 * log_term
    )
    beta_pair = difference_beta(beta_bar, beta_bar, SIGMA, SIGMA, sigma_dp, sigma_dp)
    threshold = bernstein_threshold(100, theta, SIGMA, SIGMA, beta_pair, sigma_dp, sigma_dp)
    assert threshold == pytest.approx(by_hand, rel=1e-12)
    # Lemma 2 and the min/max of Lemma 3 for these numbers:
    assert uniform_bernstein_beta(L) == pytest.approx(L / (2 * math.sqrt(5)))
    expected_beta_bar = min(SIGMA + sigma_dp, max(L / (2 * math.sqrt(5)) + sigma_dp / math.sqrt(2),
                                                 math.sqrt(SIGMA**2 + sigma_dp**2)))
    assert beta_bar == pytest.approx(expected_beta_bar)


def test_bernstein_type_one_error_below_theta():
    """Under H0 the Bernstein test rejects with probability at most theta (Sec. II-D)."""
    rng = np.random.default_rng(0)
    t, k, n = 400, 7, 20000
    sigma_dp = laplace_sigma_dp(2.0, L)
    beta_bar = noisy_mean_beta(SIGMA, uniform_bernstein_beta(L), sigma_dp, laplace_beta_dp(sigma_dp))
    z = bernstein_threshold(t, theta_schedule(t, k), SIGMA, SIGMA, 2 * beta_bar, sigma_dp, sigma_dp)
    samples = rng.uniform(-L, L, (2, n, t)) + rng.laplace(0, sigma_dp / math.sqrt(2), (2, n, t))
    rejected = np.mean(np.abs(samples[0].mean(axis=1) - samples[1].mean(axis=1)) >= z)
    assert rejected <= theta_schedule(t, k)


def test_optimistic_radius_formula():
    sigma_dp = laplace_sigma_dp(2.0, L)
    t = 50
    by_hand = math.sqrt(2 * (sigma_dp**2 + SIGMA**2) / t * (1 + 1 / t) * math.log(4 * 5 * 200 * math.sqrt(t + 1)))
    assert optimistic_radius(t, SIGMA, sigma_dp, 5.0, 200, 1.0) == pytest.approx(by_hand, rel=1e-12)
    assert threshold("optimistic", t, math.nan, sigma_dp) == pytest.approx(2 * by_hand)
    assert threshold("oracle", t, math.nan, sigma_dp) < 0 and BUILTIN["oracle"].by_class  # accepts by class


def test_optimistic_radius_closed_early_as_the_conference_version_prints_it():
    """Private-C-ColME's conference version: sqrt(2 (sigma_DP^2 + sigma^2)/t) (1 + 1/t)
    ln(4 r M sqrt(t + 1)/delta)."""
    sigma_dp = laplace_sigma_dp(2.0, L)
    t = 50
    by_hand = math.sqrt(2 * (sigma_dp**2 + SIGMA**2) / t) * (1 + 1 / t) * math.log(4 * 5 * 200 * math.sqrt(t + 1))
    assert optimistic_radius(t, SIGMA, sigma_dp, 5.0, 200, 1.0, True) == pytest.approx(by_hand, rel=1e-12)
    early = threshold("optimistic", t, math.nan, sigma_dp, closed_early=True)
    assert early == pytest.approx(2 * by_hand)
    # ln(4 r M sqrt(t + 1)) ~ 10.6 > 1: closing the root early widens the radius.
    assert early > threshold("optimistic", t, math.nan, sigma_dp)


def test_difference_beta_of_section_2d():
    """Sec. II-D: beta = min(beta_X + beta_Y, sqrt 2 max(sigma_X, sigma_Y, beta_X, beta_Y)),
    with sigma_X = sqrt(sigma_a^2 + sigma_DP^2); Sec. III-C1 prints b~_a + b~_b."""
    assert difference_beta(0.3, 0.5, 0.2, 0.1, 0.0, 0.0, "sec3c1") == 0.8
    # max(sigma_X, sigma_Y, beta_X, beta_Y) = max(0.2, 0.1, 0.3, 0.5) = 0.5: sqrt 2 * 0.5 < 0.8
    assert difference_beta(0.3, 0.5, 0.2, 0.1, 0.0, 0.0, "sec2d") == pytest.approx(math.sqrt(2) * 0.5)
    # sigma_X = sqrt(0.6^2 + 0.8^2) = 1 dominates and sqrt 2 > 0.1 + 0.2: the sum is kept
    assert difference_beta(0.1, 0.2, 0.6, 0.6, 0.8, 0.8, "sec2d") == pytest.approx(0.3)
    assert difference_beta(0.1, 0.2, 0.6, 0.0, 0.8, 0.8, "sec2d") == pytest.approx(0.3)
    # the paper's set-up: b~ >= sqrt(sigma^2 + sigma_DP^2), so Sec. II-D gives sqrt 2 b~ < 2 b~
    sigma_dp = laplace_sigma_dp(1.0, L)
    beta_bar = noisy_mean_beta(SIGMA, uniform_bernstein_beta(L), sigma_dp, laplace_beta_dp(sigma_dp))
    assert difference_beta(beta_bar, beta_bar, SIGMA, SIGMA, sigma_dp, sigma_dp, "sec2d") == pytest.approx(
        math.sqrt(2) * beta_bar
    )
    with pytest.raises(ValueError, match="sec2d"):
        difference_beta(0.1, 0.2, 0.6, 0.6, 0.8, 0.8, "lemma")


def test_alpha_tables():
    floor10 = alpha_table("floor10", 30)
    assert floor10[1] == 0.5 and floor10[9] == 0.5 and floor10[10] == pytest.approx(2 / 3)
    assert floor10[25] == pytest.approx(3 / 4)
    theory = alpha_table("theory", 30)
    assert theory[1] == 0.5 and theory[3] == pytest.approx(0.75)
    with pytest.raises(ValueError, match="floor10"):
        alpha_table("constant", 3)


@pytest.mark.parametrize("offset", [1.0, 0.0])
def test_mixing_matrix_doubly_stochastic_for_symmetric_sets(offset):
    rng = np.random.default_rng(1)
    for _ in range(50):
        upper = np.triu(rng.random((12, 12)) < 0.3, 1)
        accepted = upper | upper.T
        weights = mixing_matrix(accepted, offset)
        np.testing.assert_allclose(weights.sum(0), 1, atol=1e-12)
        np.testing.assert_allclose(weights.sum(1), 1, atol=1e-12)
        assert weights.min() >= 0
        sizes = 1 + accepted.sum(1)
        a, b = np.argwhere(accepted)[0]
        assert weights[a, b] == pytest.approx(1 / (max(sizes[a], sizes[b]) + offset))


def test_mixing_matrix_not_doubly_stochastic_when_asymmetric():
    """The symmetry of the rules is what makes W doubly stochastic: an asymmetric set breaks it."""
    accepted = np.zeros((3, 3), dtype=bool)
    accepted[0, 1] = True
    weights = mixing_matrix(accepted)
    np.testing.assert_allclose(weights.sum(1), 1)
    assert not np.allclose(weights.sum(0), 1)
