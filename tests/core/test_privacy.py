"""Laplace noise calibration (Private-C-ColME Lemma 1) and the sampler the kernel uses."""

import math

import numba
import numpy as np
import pytest
from reference import unit_laplace_from_uniform
from scipy import stats

from colme.ccolme.rules import laplace_beta_dp
from colme.privacy import (
    laplace_sigma_dp,
    unit_laplace,
)


def test_sigma_dp_lemma1():
    L = 0.5 * math.sqrt(3)
    for eps in (0.5, 1.0, 2.0, 4.0):
        assert laplace_sigma_dp(eps, L) ** 2 == pytest.approx(8 * L**2 / eps**2)
    assert laplace_sigma_dp(math.inf, L) == 0.0
    assert laplace_beta_dp(2.0) == pytest.approx(2 / math.sqrt(2))
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="eps"):
            laplace_sigma_dp(bad, L)


def test_laplace_scale_gives_eps_dp_density_ratio():
    """Z ~ Laplace(0, sigma_DP/sqrt 2) on sensitivity 2L: density ratio bounded by e^eps."""
    L, eps = 0.5 * math.sqrt(3), 1.3
    scale = laplace_sigma_dp(eps, L) / math.sqrt(2)
    z = np.linspace(-20, 20, 2001)
    log_ratio = stats.laplace.logpdf(z, scale=scale) - stats.laplace.logpdf(z + 2 * L, scale=scale)
    assert np.max(np.abs(log_ratio)) == pytest.approx(eps, rel=1e-9)


def test_unit_laplace_sampler_statistics():
    """Unit variance, zero mean, Laplace shape (KS), tolerances from the sampling error."""
    n = 400_000
    draws = unit_laplace_from_uniform(np.random.default_rng(2).random(n))
    # Var of the sample variance of a unit Laplace: (mu4 - 1)/n with mu4 = 6.
    assert abs(draws.mean()) < 4 / math.sqrt(n)
    assert abs(draws.var() - 1) < 4 * math.sqrt(5 / n)
    assert stats.kstest(draws, stats.laplace(scale=1 / math.sqrt(2)).cdf).pvalue > 1e-4


def test_kernel_sampler_equals_array_sampler():
    u = np.concatenate([[0.0, 0.5, 1 - 2**-53], np.random.default_rng(3).random(1000)])
    # numba calls libm, NumPy its own SIMD log: equal to the last bit or two.
    np.testing.assert_allclose(
        np.array([unit_laplace(x) for x in u]), unit_laplace_from_uniform(u), rtol=1e-14, atol=0
    )


def test_kernel_sampler_without_branches_is_the_branchy_inversion_bit_for_bit():
    """``unit_laplace`` selects instead of branching (a coin-flip branch costs the kernels a
    misprediction every other draw); its values, signed zeros included, are the branchy
    inversion's, both compiled by Numba (the same log)."""
    scale = 1 / math.sqrt(2)

    @numba.njit
    def branchy(u):
        if u >= 0.5:
            return -scale * math.log(2.0 - 2.0 * u)
        if u > 0.0:
            return scale * math.log(2.0 * u)
        return 0.0

    edges = [0.0, 2.0**-53, 0.25, np.nextafter(0.5, 0.0), 0.5, 0.75, 1 - 2.0**-53]
    u = np.concatenate([edges, np.random.default_rng(4).random(20_000)])
    ours = np.array([unit_laplace(x) for x in u])
    theirs = np.array([branchy(x) for x in u])
    assert np.array_equal(ours.view(np.int64), theirs.view(np.int64))



def test_a_samples_privacy_in_provenance_is_one_laplace_release_and_at_eps_inf_the_sample_itself():
    from colme.expansion import expand_config
    from colme.registry import ENGINES, stage_params

    for engine_name, extra in (("ccolme", {"theta_k": [5, 5], "rules": ["oracle"]}), ("scalable", {"depths": [1]})):
        figures = expand_config({"seed": 1, "figures": {"f": {
            "engine": engine_name, "n_agents": 12, "degree": 4, "eps": [1, math.inf], "t_max": 20, "runs": 1,
            **extra}}}).figures
        engine = ENGINES[engine_name]
        releases = {}
        for row in engine.sample_privacy(engine.spec(stage_params(figures["f"], "table"))):
            releases.setdefault(row["eps"], set()).add(row["releases"])
        assert releases[1.0] == {"one noisy value per sample (Laplace); later releases are post-processing"}
        assert releases[math.inf] == {"each sample's exact value (no noise at eps = inf)"}
