"""Private-ColME engine (arXiv:2411.07094) against Proposition 3, Remark 3 and Lemma 5."""

import itertools
import math

import numpy as np
import pytest
from reference_psums import psums

from colme.populations import Population
from colme.privacy import composed_privacy
from colme.private_colme.kernel import simulate_colme_runs
from colme.private_colme.oracle import (
    expected_inverse,
    ideal_all_to_all_mse,
    prop3_oracle_mse,
    remark3_rrr_oracle_mse,
)
from colme.private_colme.spec import ColmeCurve, ColmeSpec
from colme.private_colme.tables import privacy_table
from colme.seeding import run_generator

POPULATION = Population()


def random_classes(n_agents, runs, seed):
    return np.stack([POPULATION.assign(n_agents, run_generator(seed, "colme", r, "instance"))
                     for r in range(runs)])


@pytest.mark.parametrize(
    "schedule, mechanism, weights, noise",
    [("rr", "pm1", "last", "gaussian"), ("rr", "pm2", "wmom", "laplace"),
     ("rrr", "pm1", "mom", "gaussian"), ("rrr", "pm2", "last", "laplace")],
)
def test_oracle_simulation_matches_proposition3_and_remark3(schedule, mechanism, weights, noise):
    """Fresh classes per run: the Monte Carlo mean is within 4 standard errors of the exact average."""
    n_agents, runs = 12, 1500
    grid = np.array([1, 6, 11, 23, 60, 150])
    curve = ColmeCurve(schedule, mechanism, weights, noise, oracle=True)
    spec = ColmeSpec(n_agents=n_agents, curves=(curve,), t_record=grid, pm2_split=3)
    mse = simulate_colme_runs(spec, random_classes(n_agents, runs, 1),
                              [run_generator(1, "colme", r, "data") for r in range(runs)])[:, 0]
    analytic = prop3_oracle_mse if schedule == "rr" else remark3_rrr_oracle_mse
    exact = analytic(n_agents, 3, POPULATION.sigma, spec.sigma_dp(curve), mechanism, weights, grid)
    se = mse.std(axis=0, ddof=1) / math.sqrt(runs)
    assert np.all(np.abs(mse.mean(axis=0) - exact) < 4 * se), (mse.mean(axis=0) - exact) / se
    assert np.all(exact < POPULATION.sigma**2 / grid + 1e-15)  # never worse than Local


def test_expected_inverse_equals_enumeration_over_class_memberships():
    rng = np.random.default_rng(0)
    x, c, p = rng.uniform(0.1, 30, 7), 2.5, 0.3
    brute = 0.0
    for members in itertools.product((0, 1), repeat=len(x)):
        members = np.array(members)
        brute += p ** members.sum() * (1 - p) ** (len(x) - members.sum()) / (c + members @ x)
    assert expected_inverse(c, x, p) == pytest.approx(brute, rel=1e-9)


def test_ideal_all_to_all_is_class_size_average():
    t = np.array([1.0, 10.0])
    rng = np.random.default_rng(1)
    sizes = 1 + rng.binomial(29, 1 / 3, size=400_000)
    assert ideal_all_to_all_mse(30, 3, 0.5, t)[0] == pytest.approx(np.mean(0.25 / sizes), rel=5e-3)


def release_covariance(times, mechanism, sigma2, sigma_dp2):
    """Cov(R_i, R_j) of the releases: shared samples and shared p-sums."""
    k = len(times)
    cov = np.empty((k, k))
    for i, j in itertools.product(range(k), repeat=2):
        shared = len(set(psums(i + 1, mechanism)) & set(psums(j + 1, mechanism)))
        cov[i, j] = sigma2 / max(times[i], times[j]) + sigma_dp2 * shared / (times[i] * times[j])
    return cov


def optimal_weights(cov):
    solved = np.linalg.solve(cov, np.ones(len(cov)))
    return solved / solved.sum()


def test_lemma5_keeping_the_last_release_is_optimal_for_pm1_last_position():
    period, k, sigma2, sigma_dp2 = 11, 9, 0.25, 80.0
    last = np.arange(1, k + 1) * period  # the last RR position: t_i = i (M - 1)
    np.testing.assert_allclose(optimal_weights(release_covariance(last, "pm1", sigma2, sigma_dp2)),
                               np.eye(k)[-1], atol=1e-9)
    # The lemma needs the last position: elsewhere, and for PM-II (Sec. IV-B), other
    # weights beat keeping the last release.
    for times, mechanism in ((1 + np.arange(k) * period, "pm1"), (last, "pm2")):
        cov = release_covariance(times, mechanism, sigma2, sigma_dp2)
        best = optimal_weights(cov)
        assert best @ cov @ best < 0.999 * cov[-1, -1]


def test_curves_share_random_numbers_and_do_not_interact():
    grid = np.array([5, 40, 90])
    curves = (ColmeCurve("rr", "pm1", "last"), ColmeCurve("rrr", "pm2", "mom", "laplace"))
    classes = random_classes(10, 3, 2)
    gens = lambda: [run_generator(2, "crn", r, "data") for r in range(3)]  # noqa: E731
    both = simulate_colme_runs(ColmeSpec(n_agents=10, curves=curves, t_record=grid), classes, gens())
    alone = simulate_colme_runs(ColmeSpec(n_agents=10, curves=curves[1:], t_record=grid), classes, gens())
    np.testing.assert_array_equal(both[:, 1], alone[:, 0])


def test_gaussian_needs_eps_at_most_one():
    spec = ColmeSpec(n_agents=10, curves=(ColmeCurve(),), t_record=np.array([5]), eps=2.0)
    with pytest.raises(ValueError, match="0 < eps <= 1"):
        spec.sigma_dp(spec.curves[0])
    laplace = ColmeCurve(noise="laplace")
    assert spec.sigma_dp(laplace) == pytest.approx(math.sqrt(8) * POPULATION.half_width / 2.0)


def test_privacy_accounting_gives_both_mechanisms_the_same_overall_budget():
    curves = (ColmeCurve(mechanism="pm1"), ColmeCurve(mechanism="pm2"))
    spec = ColmeSpec(n_agents=200, curves=curves, t_record=np.array([30000]))
    table = privacy_table(spec).set_index("mechanism")
    assert spec.split == 15 and table.loc["pm2", "psums_per_sample"] == 15
    for mechanism in ("pm1", "pm2"):
        assert table.loc[mechanism, "sample_eps"] == pytest.approx(1.0)
        assert table.loc[mechanism, "sample_delta"] == pytest.approx(1e-6)
    # RR: 151 answers per pair at most, so a sample enters 8 blocks: eps = 8/15 overall
    assert table.loc["pm2", "psums_per_sample_rr"] == 8
    assert table.loc["pm2", "sample_eps_rr"] == pytest.approx(8 / 15)
    assert table.loc["pm1", "sample_eps_rr"] == pytest.approx(1.0)
    assert composed_privacy(0.1, 1e-7, 15) == pytest.approx((1.5, 1.5e-6))


def test_schvar1_splits_the_budget_between_means_and_variances():
    curve = ColmeCurve(variance="schvar1")
    spec = ColmeSpec(n_agents=50, curves=(curve,), t_record=np.array([1000]))
    assert spec.psum_budget(curve) == pytest.approx((0.5, 5e-7))
    row = privacy_table(spec).iloc[0]
    assert row["variance_releases"] and row["sample_eps"] == pytest.approx(1.0)
    assert row["sample_delta"] == pytest.approx(1e-6)
    # Lemma 3: sigma_2,DP^2 = 32 L^4 ln(1.25/delta)/eps^2 with the halved budget
    L = POPULATION.half_width
    assert spec.sigma_w(curve) ** 2 == pytest.approx(32 * L**4 * math.log(1.25 / 5e-7) / 0.25)
    with pytest.raises(ValueError, match="PM-I only"):
        simulate_colme_runs(ColmeSpec(n_agents=5, curves=(ColmeCurve(mechanism="pm2", variance="schvar2"),),
                                      t_record=np.array([3])), random_classes(5, 1, 0),
                            [run_generator(0, "x", 0, "data")])


def test_diagnostics_of_the_oracle_classifier_are_exact():
    """Oracle C_a: every classmate in C_a, nobody else; under RR each other agent has
    answered exactly t / (M - 1) times at t a multiple of M - 1."""
    from colme.private_colme.spec import DIAGNOSTICS

    n = 7
    spec = ColmeSpec(n_agents=n, curves=(ColmeCurve(oracle=True), ColmeCurve(schedule="rrr", oracle=True)),
                     t_record=np.array([6, 12, 60]))
    classes = np.array([[0, 0, 1, 1, 1, 2, 0]], dtype=np.int8)
    diagnostics = np.empty((1, 2, len(DIAGNOSTICS), 3))
    simulate_colme_runs(spec, classes, [run_generator(1, "diag", 0, "data")], diagnostics)
    rr, rrr = diagnostics[0]
    np.testing.assert_array_equal(rr[0], 1.0)  # classmates in C_a
    np.testing.assert_array_equal(rr[1], 0.0)  # non-classmates in C_a
    np.testing.assert_allclose(rr[2], [1.0, 2.0, 10.0])  # releases per accepted pair
    np.testing.assert_array_equal(rrr[:2], rr[:2])
    # rRR queries only C_a: its classmates answer more often than under RR
    assert (rrr[2] > rr[2]).all()


def rr_last_pm1_oracle_mse(classes, means, sigma2, sigma_dp2, t_record):
    """Exact E[MSE] of the oracle curve under RR, PM-I, non-MoM, known variances, on one
    instance whose agents may differ (per-class sigma_b^2 and sigma_DP,b^2, jittered mu_b).

    Agent a queries position l = (t - 1) mod (M - 1) (b = l, or l + 1 from a on); after
    b's k-th answer at t_k, T = X-bar_b^(t_k) + (Z_1 + ... + Z_k)/t_k is independent of
    a's own mean and of the other senders', with mean mu_b and variance
    sigma_b^2/t_k + k sigma_DP,b^2/t_k^2.  The inverse-variance combination over a's
    classmates then has variance 1/P and bias sum_b p_b (mu_b - mu_a)/P, with
    P = t/sigma_a^2 + sum_b p_b.
    """
    n = len(classes)
    out = []
    for t in t_record:
        total = 0.0
        for a in range(n):
            precision, bias = t / sigma2[a], 0.0
            for b in range(n):
                if b == a or classes[b] != classes[a]:
                    continue
                position = b if b < a else b - 1
                answers = (t - 1 - position) // (n - 1) + 1 if t - 1 >= position else 0
                if answers == 0:
                    continue
                last = position + 1 + (answers - 1) * (n - 1)
                weight = 1.0 / (sigma2[b] / last + answers * sigma_dp2[b] / last**2)
                precision += weight
                bias += weight * (means[b] - means[a])
            total += 1.0 / precision + (bias / precision) ** 2
        out.append(total / n)
    return np.array(out)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_oracle_with_per_class_laws_and_jitter_matches_the_exact_expectation(noise):
    """Per-class sigma (so per-class support and sigma_DP, each sender's own), Beta data and
    jittered means on a fixed instance: the simulated oracle curve (RR, PM-I, non-MoM)
    within 4 standard errors of its exact expectation, bias of the jitter included, at
    small and large t.  With Laplace noise, the expectation without the jitter's bias
    falls outside, and so does the one with every sender's noise at the largest class's
    sigma_DP (the bias and the per-sender noise are what is tested)."""
    from colme.populations import DataLaw

    population = Population(
        means=(0.2, 0.4, 0.8),
        laws=tuple(DataLaw("beta", s, a=2.0, b=5.0) for s in (0.2, 0.5, 0.35)),
        jitter=0.05,
    )
    n_agents, runs = 12, 2000
    classes = population.assign(n_agents, run_generator(4, "per-class", 0, "instance"))
    means = population.agent_means(classes, run_generator(4, "per-class", 0, "population"))
    curve = ColmeCurve("rr", "pm1", "last", noise, oracle=True)
    spec = ColmeSpec(n_agents=n_agents, curves=(curve,), t_record=np.array([1, 5, 11, 40, 120, 400]),
                     eps=1.0, population=population)
    mse = simulate_colme_runs(
        spec, np.repeat(classes[None], runs, 0), [run_generator(4, "per-class", r, "data") for r in range(runs)],
        agent_means=np.repeat(means[None], runs, 0),
    )[:, 0]
    sigma2 = population.class_sigmas()[classes] ** 2
    sigma_dp2 = spec.class_sigma_dp(curve)[classes] ** 2
    exact = rr_last_pm1_oracle_mse(classes, means, sigma2, sigma_dp2, spec.t_record)
    se = mse.std(axis=0, ddof=1) / math.sqrt(runs)
    assert np.all(np.abs(mse.mean(axis=0) - exact) < 4 * se), (mse.mean(axis=0) - exact) / se
    if noise == "laplace":  # Gaussian noise at eps = 1 gives the classmates ~3% of the weight: too little to tell
        no_bias = rr_last_pm1_oracle_mse(classes, np.asarray(population.means)[classes], sigma2, sigma_dp2,
                                         spec.t_record)
        assert np.any(np.abs(mse.mean(axis=0) - no_bias) > 4 * se)
        one_noise = rr_last_pm1_oracle_mse(classes, means, sigma2, np.full(n_agents, sigma_dp2.max()), spec.t_record)
        assert np.any(np.abs(mse.mean(axis=0) - one_noise) > 4 * se)
    assert len(set(sigma_dp2)) == 3 and len(set(means)) == n_agents  # the agents did differ


def test_privacy_table_gives_each_class_its_own_noise_where_the_laws_differ():
    """Per-class sigma: one row per class, sigma_DP calibrated to that class's support (the
    same budget); one shared law: one row, no class column."""
    from colme.populations import DataLaw

    laws = tuple(DataLaw("uniform", s) for s in (0.2, 0.5, 0.35))
    curve = ColmeCurve("rr", "pm1", "last", "laplace")
    spec = ColmeSpec(n_agents=12, curves=(curve,), t_record=np.array([10]), population=Population(laws=laws))
    table = privacy_table(spec)
    assert list(table["class"]) == [0, 1, 2]
    np.testing.assert_allclose(table["sigma_dp"], [spec.sigma_dp(curve, law.half_width) for law in laws])
    assert table["sigma_dp"].iloc[1] / table["sigma_dp"].iloc[0] == pytest.approx(0.5 / 0.2)  # L is sqrt(3) sigma
    shared = privacy_table(ColmeSpec(n_agents=12, curves=(curve,), t_record=np.array([10])))
    assert "class" not in shared and len(shared) == 1
