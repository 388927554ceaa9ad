"""Release mechanisms PM-I/PM-II and Var[T] (Private-ColME Sec. IV, Appendix A)."""

import itertools
import math

import numpy as np
import pytest
from reference_psums import pm2_noise_variance_as_printed, psums, statistic_variance_direct, window_weights

from colme.private_colme.mechanisms import (
    MECHANISMS,
    STATISTIC,
    VARIANCE,
    WEIGHTS,
    PairState,
    pm2_levels,
    printed_pm2_noise_table,
    release,
)

CASES = list(itertools.product(("pm1", "pm2"), ("last", "mom", "wmom")))


def run_pair(times, samples_mean, fresh, mechanism, weights, sigma2=0.25, sigma_dp2=3.0):
    pair = PairState.new(1, pm2_levels(len(times)))
    out = []
    for t, mean, z in zip(times, samples_mean, fresh, strict=True):
        value = release(pair=0, t=float(t), sample_mean=mean, fresh_noise=z, sigma2=sigma2, sigma_dp2=sigma_dp2,
                        mechanism=MECHANISMS[mechanism], weights=WEIGHTS[weights], **pair.arguments())
        out.append((value, pair.state[0, STATISTIC], pair.state[0, VARIANCE]))
    return np.array(out)


@pytest.mark.parametrize("mechanism, weights", CASES)
def test_incremental_variance_equals_explicit_psum_sum(mechanism, weights):
    rng = np.random.default_rng(0)
    times = np.cumsum(rng.integers(1, 9, size=70))
    got = run_pair(times, np.zeros(70), np.zeros(70), mechanism, weights)[:, 2]
    for k in range(1, 71):
        expected = statistic_variance_direct(times[:k], window_weights(k, weights), mechanism, 0.25, 3.0)
        assert got[k - 1] == pytest.approx(expected, rel=1e-10)


def test_printed_closed_forms_for_last_and_mom_pm1():
    """Appendix A: non-MoM sigma^2/t_k + k sigma_DP^2/t_k^2 (PM-I), w_H(k) (PM-II); MoM data part."""
    times = np.arange(1, 40) * 7.0
    for mechanism, factor in (("pm1", lambda k: k), ("pm2", lambda k: bin(k).count("1"))):
        var = run_pair(times, np.zeros(39), np.zeros(39), mechanism, "last")[:, 2]
        k = np.arange(1, 40)
        np.testing.assert_allclose(var, 0.25 / times + np.array([factor(i) for i in k]) * 3.0 / times**2)
    mom = run_pair(times, np.zeros(39), np.zeros(39), "pm1", "mom")[:, 2]
    k = 39
    data = 0.25 / k**2 * np.sum((2 * np.arange(1, k + 1) - 1) / times)
    noise = 3.0 / k**2 * np.sum(np.cumsum((1 / times)[::-1]) ** 2)
    assert mom[-1] == pytest.approx(data + noise, rel=1e-12)


@pytest.mark.parametrize("mechanism", ["pm1", "pm2"])
def test_same_interval_same_noise(mechanism):
    """t_k Z^(t_k) is the sum of the noises of release k's p-sums, each drawn once."""
    k_max = 45
    times = np.arange(1, k_max + 1) * 3.0
    fresh = np.random.default_rng(1).standard_normal(k_max)
    values = run_pair(times, np.zeros(k_max), fresh, mechanism, "last")[:, 0]
    for k in range(1, k_max + 1):
        # a p-sum (first, last) is created, with fresh noise, at release `last`
        expected = sum(fresh[last - 1] for first, last in psums(k, mechanism))
        assert values[k - 1] * times[k - 1] == pytest.approx(expected, abs=1e-12)
    assert len(psums(k_max, "pm2")) == bin(k_max).count("1")


def test_pm2_memory_is_logarithmic():
    k_max = 1000
    levels = pm2_levels(k_max)
    assert levels == math.floor(math.log2(k_max)) + 1
    pair = PairState.new(1, levels)
    rng = np.random.default_rng(2)
    for t in range(1, k_max + 1):
        release(pair=0, t=float(t), sample_mean=0.0, fresh_noise=rng.standard_normal(), sigma2=1.0, sigma_dp2=1.0,
                mechanism=MECHANISMS["pm2"], weights=WEIGHTS["mom"], **pair.arguments())
        assert np.count_nonzero(pair.block_noise[0]) == bin(t).count("1") <= levels
    assert sum(pair.arguments()[name].shape[1] for name in ("state", "block_noise", "block_coef")) < 50  # O(log k)


@pytest.mark.parametrize("mechanism, weights", CASES)
def test_variance_matches_simulated_mechanism(mechanism, weights):
    """Monte Carlo Var[T] of the real mechanism (uniform data, Gaussian p-sums) vs the formula."""
    rng = np.random.default_rng(3)
    half_width, sigma_dp = math.sqrt(3) / 2, 1.7
    times = np.array([3, 5, 11, 12, 20, 26, 33, 41, 50, 52, 60, 75, 77]).astype(float)
    reps = 20000
    samples = rng.uniform(-half_width, half_width, (reps, int(times[-1])))
    means = np.cumsum(samples, axis=1)[:, times.astype(int) - 1] / times
    fresh = rng.standard_normal((reps, len(times))) * sigma_dp
    final = np.array([
        run_pair(times, means[r], fresh[r], mechanism, weights, 0.25, sigma_dp**2)[-1, 1]
        for r in range(reps)
    ])
    expected = statistic_variance_direct(times, window_weights(len(times), weights), mechanism,
                                         0.25, sigma_dp**2)
    # sd of a sample variance of a near-Gaussian: var * sqrt(2/(n-1)); 4 sd tolerance
    assert final.var(ddof=1) == pytest.approx(expected, rel=4 * math.sqrt(2 / (reps - 1)))
    assert abs(final.mean()) < 4 * math.sqrt(expected / reps)  # unbiased


def test_printed_pm2_formula_agrees_until_distinct_blocks_share_a_bit():
    """Eq. (21) as printed equals the mechanism for non-MoM and for k < 7, and overstates MoM after."""
    times = np.arange(1, 41) * 5.0
    for k in range(1, 41):
        last = window_weights(k, "last")
        assert pm2_noise_variance_as_printed(times[:k], last, 2.0) == pytest.approx(
            statistic_variance_direct(times[:k], last, "pm2", 0.0, 2.0))
        mom = window_weights(k, "mom")
        printed = pm2_noise_variance_as_printed(times[:k], mom, 2.0)
        actual = statistic_variance_direct(times[:k], mom, "pm2", 0.0, 2.0)
        if k < 7:
            assert printed == pytest.approx(actual)
        else:
            assert printed > actual * (1 + 1e-9)


@pytest.mark.parametrize("weights", ["last", "mom", "wmom"])
def test_compiled_printed_formula_matches_reference(weights):
    times = 3.0 + 7.0 * np.arange(50)
    table = np.empty(50)
    printed_pm2_noise_table(times, WEIGHTS[weights], table)
    for k in (1, 2, 7, 13, 32, 50):
        assert table[k - 1] == pytest.approx(
            pm2_noise_variance_as_printed(times[:k], window_weights(k, weights), 1.0), rel=1e-12)
