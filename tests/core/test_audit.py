"""The privacy audit (``colme.audit``) and the calibration against Google's dp-accounting:
every mechanism the workflow releases through keeps its stated eps, a broken calibration
is caught, and the accounting the workflow writes by hand is at least the library's."""

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from scipy import stats

from colme.audit import (
    DISCRETIZATION,
    PAGE_ALPHA,
    accounted,
    audit,
    clopper_pearson,
    miscalibrated,
    privacy_loss,
    workflow_mechanisms,
)
from colme.privacy import composed_privacy, gaussian_sigma_dp, laplace_sigma_dp

MECHANISMS = workflow_mechanisms()
NAMES = [m.name for m in MECHANISMS]


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=NAMES)
def test_every_mechanism_keeps_its_stated_eps(mechanism):
    """The audit's lower bound (confidence 1 - 0.01) stays at or below the stated eps, and
    dp-accounting's tight eps of the same releases is at most the stated one (plus the
    library's pessimistic discretisation, per composed release)."""
    found = audit(mechanism, np.random.default_rng(11), releases=400_000, selection=100_000, alpha=PAGE_ALPHA)
    assert found.passed, f"{mechanism.name}: lower bound {found.eps_lower:.3f} > stated {mechanism.stated_eps}"
    assert accounted(mechanism) <= mechanism.stated_eps + DISCRETIZATION * len(mechanism.terms)


@pytest.mark.parametrize("mechanism", [m for m in MECHANISMS if len(m.terms) == 1], ids=lambda m: m.name)
def test_a_halved_noise_scale_is_caught(mechanism):
    """With its noise scale halved, every single release breaks its claim (dp-accounting's
    eps above the stated one) and the audit fails it."""
    broken = miscalibrated(mechanism)
    assert accounted(broken) > 1.2 * mechanism.stated_eps
    assert not audit(broken, np.random.default_rng(12), releases=400_000, selection=100_000,
                     alpha=PAGE_ALPHA).passed


def test_a_composition_whose_claim_survives_the_halving_passes():
    """PM-II's Gaussian blocks are far inside their claim (basic composition): halved, the
    tight eps stays below the stated one, and the audit must not fail them."""
    pm2 = next(m for m in MECHANISMS if "PM-II, gaussian" in m.name)
    broken = miscalibrated(pm2)
    assert accounted(broken) < pm2.stated_eps
    assert audit(broken, np.random.default_rng(13), releases=200_000, selection=50_000).passed


@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("half_width", [0.5, 2.0])
def test_the_laplace_calibration_is_the_libraries_tight_one(eps, half_width):
    """Lemma 1 (Laplace, sensitivity 2L): dp-accounting gives exactly eps back."""
    scale = laplace_sigma_dp(eps, half_width) / math.sqrt(2.0)
    distribution = pld.from_laplace_mechanism(scale, sensitivity=2 * half_width, value_discretization_interval=1e-5)
    assert distribution.get_epsilon_for_delta(1e-12) == pytest.approx(eps, rel=1e-3)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-3])
def test_the_gaussian_calibration_is_valid_and_conservative(eps, delta):
    """Lemma 1 (Gaussian, the classical sqrt(2 ln(1.25/delta)) calibration, eps <= 1): the
    library's eps at delta is below the stated one (valid), and not far below (a third of
    it: the calibration is conservative, not broken)."""
    sigma = gaussian_sigma_dp(eps, delta, 1.0)
    tight = pld.from_gaussian_mechanism(sigma, sensitivity=2.0).get_epsilon_for_delta(delta)
    assert eps / 3 < tight <= eps


@pytest.mark.parametrize("uses", [2, 15])
@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_basic_composition_bounds_the_libraries(uses, noise):
    """``composed_privacy`` (basic composition, PM-II's accounting) is at least the tight
    composition of ``uses`` releases at (eps, delta) each."""
    eps, delta = 0.2, 1e-6
    one = (pld.from_laplace_mechanism(laplace_sigma_dp(eps, 1.0) / math.sqrt(2.0), sensitivity=2.0)
           if noise == "laplace" else pld.from_gaussian_mechanism(gaussian_sigma_dp(eps, delta, 1.0), sensitivity=2.0))
    total_eps, total_delta = composed_privacy(eps, delta if noise == "gaussian" else 0.0, uses)
    tight = one.self_compose(uses).get_epsilon_for_delta(max(total_delta, 1e-12))
    assert tight <= total_eps * (1 + 1e-3)


def test_clopper_pearson_is_scipys_exact_interval():
    for count, n in ((0, 50), (7, 50), (50, 50), (1234, 100_000)):
        interval = stats.binomtest(count, n).proportion_ci(confidence_level=0.98, method="exact")
        assert clopper_pearson(count, n, 0.02) == pytest.approx((interval.low, interval.high), abs=1e-12)


def test_privacy_loss_of_an_event():
    assert privacy_loss(0.5, 0.5 / math.e, 0.0) == pytest.approx(1.0)
    assert privacy_loss(0.3, 0.3, 0.0) == 0.0  # shows nothing
    assert privacy_loss(0.1, 0.2, 0.0) == 0.0
    assert privacy_loss(0.2, 0.0, 0.0) == math.inf
    assert privacy_loss(0.2, 0.05, 0.1) == pytest.approx(math.log(2.0))


def test_the_clopper_pearson_ends_cover_at_their_level():
    """Over 4000 binomial(400, 0.05) counts, each one-sided end of the level-0.9 interval
    misses p = 0.05 at most 5 % of the time (within 3 Monte Carlo se), and not far less
    than 1 % (an interval that is degenerate or too wide fails): the level the audit's
    lower bound on eps inherits."""
    rng = np.random.default_rng(15)
    n, p, draws = 400, 0.05, 4000
    counts = rng.binomial(n, p, draws)
    ends = np.array([clopper_pearson(int(k), n, 0.1) for k in counts])
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / draws)
    for misses in (np.mean(ends[:, 0] > p), np.mean(ends[:, 1] < p)):
        assert 0.01 < misses <= bound
