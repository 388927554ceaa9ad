"""Populations (colme.populations) and agents that differ in the Private-C-ColME kernel.

Data laws against their moments and Definition 2; the class assignments; the mixed kernel
against the literal Algorithm 1 and, with the oracle rule, against the exact expectation;
a 100% privacy mix against the single-eps curve, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import reference_run
from scipy import special, stats

from colme.ccolme.closed_forms import ALPHA_FACTOR, oracle_expected_mse, theorem1_coefficient
from colme.ccolme.kernel import simulate_runs
from colme.ccolme.spec import Curve, PanelSpec, share_counts
from colme.ccolme.tables import bound_table, theorem1_frames
from colme.graphs import random_regular_edges
from colme.instances import privacy_ranks, run_agent_means
from colme.populations import (
    MAX_MOMENT,
    DataLaw,
    Population,
    assign_classes,
    canonical_population,
    component_sizes,
)
from colme.privacy import laplace_sigma_dp
from colme.seeding import run_generator

LAWS = [
    DataLaw("uniform", 0.5),
    DataLaw("truncated_normal", 0.4, truncation=2.0),
    DataLaw("truncated_normal", 0.3, truncation=0.5),
    DataLaw("beta", 0.5, a=2.0, b=5.0),
    DataLaw("beta", 0.2, a=0.5, b=0.5),
    DataLaw("two_point", 0.5, p=0.3),
    DataLaw("two_point", 1.0, p=0.5),
]


@pytest.mark.parametrize("law", LAWS, ids=lambda law: f"{law.kind}-{law.sigma}")
def test_sampled_law_has_its_mean_variance_and_support(law):
    """200 000 draws: mean 0 and variance sigma^2 within 4 standard errors (the variance's
    from the law's exact fourth moment), every draw inside the support."""
    draws = law.sample(np.random.default_rng(1).random(200_000))
    n = len(draws)
    assert abs(draws.mean()) < 4 * law.sigma / math.sqrt(n)
    variance_se = math.sqrt((law.centred_moment(4) - law.sigma**4) / n)
    assert abs(np.mean(draws**2) - law.sigma**2) < 4 * variance_se + 1e-12  # about the known mean 0
    low, high = law.support
    assert draws.min() >= low - 1e-12 and draws.max() <= high + 1e-12
    assert law.centred_moment(2) == pytest.approx(law.sigma**2, rel=1e-9)


@pytest.mark.parametrize("law", [law for law in LAWS if law.kind in ("truncated_normal", "beta")],
                         ids=lambda law: f"{law.kind}-{law.sigma}")
def test_quantile_table_is_the_law_up_to_interpolation(law):
    """The table's mixture of uniforms has mean 0 and variance sigma^2 exactly, and its
    quantiles stay within 1e-3 sigma of the law's away from the steep ends."""
    table = law.quantile_table
    left, right = table[:-1], table[1:]
    mean = np.mean((left + right) / 2)
    second = np.mean((left * left + left * right + right * right) / 3)
    assert abs(mean) < 1e-12 * law.sigma
    assert second - mean**2 == pytest.approx(law.sigma**2, rel=1e-12)
    u = np.linspace(0.01, 0.99, 99)
    standard, mean0, std0 = law._standard
    exact = law.sigma * (standard.ppf(u) - mean0) / std0
    np.testing.assert_allclose(law.sample(u), exact, atol=1e-3 * law.sigma)


def test_uniform_law_keeps_lemma_2_and_the_papers_half_width_bit_for_bit():
    law = DataLaw("uniform", 0.5)
    assert law.half_width == 0.5 * math.sqrt(3.0)
    assert law.bernstein_beta == law.half_width / (2.0 * math.sqrt(5.0))
    # Lemma 2 is Definition 2's least beta: the k = 4 term, the maximum of the terms
    assert max(law.bernstein_terms()) == pytest.approx(law.bernstein_beta, rel=1e-12)


@pytest.mark.parametrize("law", LAWS, ids=lambda law: f"{law.kind}-{law.sigma}")
def test_bernstein_parameter_satisfies_definition_2_and_is_the_least(law):
    """|E(X-mu)^k| <= k!/2 sigma^2 beta^(k-2) for k = 2..MAX_MOMENT, with equality at some k
    (so no smaller beta works), attained well before MAX_MOMENT."""
    beta = law.bernstein_beta
    ks = np.arange(2, MAX_MOMENT + 1)
    moments = np.array([abs(law.centred_moment(int(k))) for k in ks])
    log_bound = special.gammaln(ks + 1.0) - math.log(2.0) + 2 * math.log(law.sigma) + (ks - 2) * math.log(beta)
    with np.errstate(divide="ignore"):
        assert np.all(np.log(moments) <= log_bound + 1e-9)
        assert np.max(np.log(moments[1:]) - log_bound[1:]) == pytest.approx(0.0, abs=1e-9)
    assert int(np.argmax(law.bernstein_terms())) + 3 <= 20


def test_centred_moments_agree_with_scipy():
    """Quadrature moments against scipy's own (non-central moments, expanded: the expansion
    cancels digits, hence 1e-6)."""
    for law, standard in ((DataLaw("truncated_normal", 1.0, truncation=1.5), stats.truncnorm(-1.5, 1.5)),
                          (DataLaw("beta", 1.0, a=2.0, b=5.0), stats.beta(2.0, 5.0))):
        mean, std = standard.mean(), standard.std()
        for k in range(3, 9):
            raw = [standard.moment(j) if j else 1.0 for j in range(k + 1)]
            central = sum(math.comb(k, j) * raw[j] * (-mean) ** (k - j) for j in range(k + 1))
            assert law.centred_moment(k) == pytest.approx(central / std**k, rel=1e-6, abs=1e-12)


def test_two_point_moments_and_beta_by_closed_form():
    law = DataLaw("two_point", 0.5, p=0.3)
    high, low = 0.5 * 0.7 / math.sqrt(0.21), -0.5 * 0.3 / math.sqrt(0.21)
    assert law.support == pytest.approx((low, high))
    for k in range(2, 12):
        assert law.centred_moment(k) == pytest.approx(0.3 * high**k + 0.7 * low**k, rel=1e-12)


@pytest.mark.parametrize("law", LAWS, ids=lambda law: f"{law.kind}-{law.sigma}")
def test_dp_noise_is_calibrated_to_the_support_width(law):
    """Lemma 1 with sensitivity the width 2L of the law's support."""
    population = Population(means=(0.0, 1.0), laws=(law, law))
    spec = PanelSpec(n_agents=4, degree=1, curves=(Curve("oracle", 2.0),), t_record=np.array([1]),
                     population=population)
    low, high = law.support
    expected = math.sqrt(8.0) * (high - low) / 2 / 2.0
    assert spec.profile_noise(spec.curves)[0] == pytest.approx([expected, expected], rel=1e-12)
    assert laplace_sigma_dp(2.0, law.half_width) == pytest.approx(expected, rel=1e-12)


def test_assignments_uniform_probabilities_and_sizes():
    rng = np.random.default_rng(5)
    same = np.random.default_rng(5)
    assert np.array_equal(assign_classes(50, 3, rng), same.integers(0, 3, size=50).astype(np.int8))
    sized = [assign_classes(30, 3, np.random.default_rng(s), sizes=[5, 10, 15]) for s in range(20)]
    assert all(np.array_equal(np.bincount(c, minlength=3), [5, 10, 15]) for c in sized)
    assert len({c.tobytes() for c in sized}) == 20  # a fresh arrangement per run
    probabilities = np.array([0.1, 0.3, 0.6])
    draws = assign_classes(100_000, 3, np.random.default_rng(6), probabilities=probabilities)
    shares = np.bincount(draws, minlength=3) / len(draws)
    assert np.all(np.abs(shares - probabilities) < 4 * np.sqrt(probabilities * (1 - probabilities) / len(draws)))


def test_share_counts_round_by_largest_remainder():
    assert list(share_counts([0.2, 0.8], 200)) == [40, 160]
    assert list(share_counts([1 / 3, 1 / 3, 1 / 3], 10)) == [4, 3, 3]
    assert list(share_counts([0.25, 0.75], 7)) == [2, 5]
    assert share_counts([0.15, 0.35, 0.5], 13).sum() == 13


def test_canonical_population_drops_defaults_only():
    default = {"means": [0.2, 0.4, 0.8], "sigma": 0.5, "law": {"kind": "uniform", "a": 2.0, "b": 2.0},
               "probabilities": None, "sizes": None, "jitter": 0}
    assert canonical_population(default) == {"means": [0.2, 0.4, 0.8], "sigma": 0.5}
    beta = {**default, "law": {"kind": "beta", "a": 2.0, "b": 5.0, "p": 0.5, "truncation": 2.0}, "jitter": 0.01}
    assert canonical_population(beta) == {"means": [0.2, 0.4, 0.8], "sigma": 0.5,
                                          "law": {"kind": "beta", "a": 2.0, "b": 5.0}, "jitter": 0.01}


MIXED = Population(
    means=(0.2, 0.4, 0.8),
    laws=(DataLaw("beta", 0.3, a=2.0, b=5.0), DataLaw("beta", 0.5, a=2.0, b=5.0), DataLaw("beta", 0.4, a=2.0, b=5.0)),
    jitter=0.02,
)
MIX = ((1.0, 0.25), (math.inf, 0.75))


def rule_curves(mix=None):
    return tuple(
        Curve(rule, math.nan if mix else 2.0, 6.0 if rule == "bernstein" else math.nan, mix or ())
        for rule in ("oracle", "bernstein", "optimistic")
    )


@pytest.mark.parametrize("population", [
    MIXED,
    Population(laws=(DataLaw("two_point", 0.5, p=0.4),) * 3, sizes=(5, 5, 6)),
    Population(laws=(DataLaw("truncated_normal", 0.5),) * 3),
], ids=["beta-sigma-jitter", "two-point-sizes", "truncnorm"])
def test_mixed_kernel_matches_literal_algorithm(population):
    """float64, same draws: the mixed kernel reproduces Algorithm 1 for every rule with
    per-class laws and sigma, jittered means and a privacy mix."""
    rng = run_generator(3, "mixed", 0, "instance")
    classes = population.assign(16, rng)
    edges = random_regular_edges(4, 16, rng)
    curves = rule_curves() + rule_curves(MIX)
    spec = PanelSpec(n_agents=16, degree=4, curves=curves, t_record=np.array([1, 2, 5, 17, 40, 90, 150]),
                     population=population)
    means = run_agent_means(population, classes[None], "mixed", [0], 3)
    ranks = privacy_ranks(16, "mixed", [0], 3)
    kernel = simulate_runs(spec, classes[None], edges[None], [run_generator(5, "ref", 0, "data")], np.float64,
                           agent_means=means, privacy_ranks=ranks)[0]
    expected = reference_run(spec, classes, edges, run_generator(5, "ref", 0, "data"),
                             agent_means=None if means is None else means[0], ranks=ranks[0])
    np.testing.assert_allclose(kernel, expected, rtol=1e-9, atol=1e-12)


def test_full_mix_at_one_eps_is_the_single_eps_curve_bit_for_bit():
    """float32: a 100% mix at eps = 2 and the eps = 2 curve, in one mixed call and against
    the papers' (shared) kernel without any mix, are the same numbers bit for bit."""
    rng = run_generator(4, "full", 0, "instance")
    population = Population()
    classes = population.assign(40, rng)
    edges = random_regular_edges(6, 40, rng)
    record = np.array([10, 100, 400])
    data = [run_generator(6, "full", 0, "data")]
    ranks = privacy_ranks(40, "full", [0], 4)
    single = simulate_runs(PanelSpec(40, 6, rule_curves(), record), classes[None], edges[None], data)
    both = PanelSpec(40, 6, rule_curves() + rule_curves(((2.0, 1.0),)) + rule_curves(MIX), record)
    assert both.mixed
    mixed = simulate_runs(both, classes[None], edges[None], data, privacy_ranks=ranks)
    np.testing.assert_array_equal(mixed[:, :3], single)
    np.testing.assert_array_equal(mixed[:, 3:6], single)
    assert not np.array_equal(mixed[:, 7:9], single[:, 1:3])  # the 25%/75% mix differs


@pytest.mark.parametrize("mix", [None, MIX], ids=["one-eps", "mix"])
def test_oracle_with_agents_that_differ_matches_exact_expectation(mix):
    """Per-class Beta laws and sigma, jittered means (fixed for the instance), a mix: the
    simulated oracle curve against the exact expectation with diag(v) and the jitter's
    drift, within 4 standard errors, at small and large t."""
    rng = run_generator(8, "exact", 0, "instance")
    classes = MIXED.assign(30, rng)
    edges = random_regular_edges(4, 30, rng)
    sizes = component_sizes(edges, classes)
    record = np.array([1, 3, 10, 30, 100, 300])
    curve = Curve("oracle", math.nan if mix else 1.0, math.nan, mix or ())
    spec = PanelSpec(n_agents=30, degree=4, curves=(curve,), t_record=record, population=MIXED)
    runs = 1500
    means = run_agent_means(MIXED, classes[None], "exact", [0], 8)[0]
    ranks = privacy_ranks(30, "exact", [0], 8)[0]
    mse = simulate_runs(
        spec, np.repeat(classes[None], runs, 0), np.repeat(edges[None], runs, 0),
        [run_generator(9, "exact", r, "data") for r in range(runs)],
        agent_means=np.repeat(means[None], runs, 0), privacy_ranks=np.repeat(ranks[None], runs, 0),
    )[:, 0]
    levels = curve.agent_levels(ranks)
    sigma = MIXED.class_sigmas()[classes]
    noise = np.array([laplace_sigma_dp(curve.levels(2)[level], MIXED.laws[c].half_width)
                      for c, level in zip(classes, levels, strict=True)])
    exact = oracle_expected_mse(edges, classes, means, sigma, noise, "floor10", record, sizes)
    se = mse.std(axis=0, ddof=1) / math.sqrt(runs)
    assert np.all(np.abs(mse.mean(axis=0) - exact) < 4 * se), (mse.mean(axis=0), exact, se)
    assert noise.min() < noise.max()  # the agents did differ


@pytest.mark.parametrize("schedule", ["floor10", "theory"])
def test_exact_oracle_with_per_class_laws_reaches_theorem1_term_by_term(schedule):
    """Per-class sigma and supports, no jitter: t * E[MSE] of the exact oracle -> Theorem 1
    with each agent's term at its class's sigma and sigma_DP (within 1% at t = 20000,
    approaching), and the shared-law coefficient of any one class's law misses it."""
    population = Population(means=MIXED.means, laws=MIXED.laws)
    rng = run_generator(2, "theorem1", 0, "instance")
    classes = population.assign(24, rng)
    edges = random_regular_edges(6, 24, rng)
    sizes = component_sizes(edges, classes)
    assert sizes.max() >= 3
    sigma = population.class_sigmas()[classes]
    noise = np.array([laplace_sigma_dp(2.0, population.laws[c].half_width) for c in classes])
    record = np.array([10000, 20000])
    exact = oracle_expected_mse(edges, classes, population.agent_means(classes), sigma, noise, schedule, record, sizes)
    coefficient = theorem1_coefficient(sizes, sigma, noise, ALPHA_FACTOR[schedule])
    ratio = exact * record / coefficient
    assert abs(ratio[1] - 1) < 0.01
    assert abs(ratio[1] - 1) <= abs(ratio[0] - 1) + 1e-4
    for law in population.laws:  # one law for all would not do
        shared = theorem1_coefficient(sizes, law.sigma, laplace_sigma_dp(2.0, law.half_width), ALPHA_FACTOR[schedule])
        assert abs(exact[1] * record[1] / shared - 1) > 0.01  # outside the tolerance above


def test_per_class_laws_get_theorem1_curves_but_no_corollary1_bound():
    """The tables of a panel with per-class laws: Theorem 1 per eps (its coefficient the mean
    of the per-instance term-by-term values) and per mix (each component's average noise,
    tests/ccolme/test_groups.py), Corollary 1's bound absent; with jitter, neither."""
    population = Population(means=MIXED.means, laws=MIXED.laws)
    rng = run_generator(3, "tables", 0, "instance")
    classes = np.stack([population.assign(30, rng) for _ in range(3)])
    edges = np.stack([random_regular_edges(4, 30, rng) for _ in range(3)])
    sizes = np.stack([component_sizes(e, c) for e, c in zip(edges, classes, strict=True)])
    ranks = np.stack([rng.permutation(30) for _ in range(3)])
    instances = [{"runs": np.arange(3), "classes": classes, "edges": edges, "component_sizes": sizes,
                  "privacy_ranks": ranks}]
    spec = PanelSpec(n_agents=30, degree=4, curves=rule_curves() + rule_curves(MIX),
                     t_record=np.array([10, 100]), population=population)
    frames = theorem1_frames(spec, np.array([10, 100]), instances)
    assert [frame["curve"].iloc[0] for frame in frames] == ["theorem1 eps=2", "theorem1 eps=1:25%,inf:75%"]
    terms = [theorem1_coefficient(n, population.class_sigmas()[c],
                                  np.array([laplace_sigma_dp(2.0, population.laws[k].half_width) for k in c]),
                                  ALPHA_FACTOR["floor10"]) for n, c in zip(sizes, classes, strict=True)]
    np.testing.assert_allclose(frames[0]["mse"].to_numpy() * np.array([10, 100]), np.mean(terms), rtol=1e-12)
    assert bound_table(spec, instances).empty
    jittered = PanelSpec(n_agents=30, degree=4, curves=rule_curves(), t_record=np.array([10, 100]), population=MIXED)
    assert theorem1_frames(jittered, np.array([10, 100]), instances) == []
