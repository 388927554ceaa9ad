"""The compiled Private-C-ColME kernel against a literal transcription and exact moments."""

import math

import numpy as np
import pytest
from reference import reference_run

from colme.ccolme.closed_forms import ALPHA_FACTOR, oracle_expected_mse, theorem1_coefficient
from colme.ccolme.kernel import BLOCKS, simulate_runs
from colme.ccolme.rules import alpha_table
from colme.ccolme.spec import Curve, PanelSpec
from colme.graphs import file_sha256, random_regular_edges, valid_edges
from colme.instances import make_family_instances
from colme.populations import Population, component_sizes
from colme.privacy import laplace_sigma_dp
from colme.seeding import run_generator

POPULATION = Population()
ALL_CURVES = tuple(
    Curve(rule, eps, 6.0 if rule == "bernstein" else math.nan)
    for rule in ("oracle", "bernstein", "optimistic")
    for eps in (1.0, 4.0, math.inf)
)


def instance(n_agents, degree, seed):
    rng = run_generator(seed, "test", 0, "instance")
    classes = POPULATION.assign(n_agents, rng)
    return classes, random_regular_edges(degree, n_agents, rng)


def many(array, runs):
    return np.repeat(array[None], runs, axis=0)


VARIANTS = [
    {"alpha_schedule": schedule, "weights": weights}
    for schedule in ("floor10", "theory")
    for weights in ("eq2", "metropolis")
] + [
    {"alpha_reset": "global"},
    {"alpha_reset": "none"},
    {"optimistic_radius": "sqrt_closed_early", "optimistic_delta": 0.5},
    {"bernstein_beta": "sec2d"},
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_kernel_matches_literal_algorithm(variant):
    """Same draws, float64: the kernel reproduces Algorithm 1 step by step for every rule,
    under every interpretation option of the panel."""
    classes, edges = instance(16, 4, seed=3)
    spec = PanelSpec(
        n_agents=16, degree=4, curves=ALL_CURVES, t_record=np.array([1, 2, 5, 17, 40, 90, 150]),
        **variant,
    )
    for run in range(3):
        kernel = simulate_runs(
            spec, classes[None], edges[None], [run_generator(5, "ref", run, "data")], np.float64
        )[0]
        expected = reference_run(spec, classes, edges, run_generator(5, "ref", run, "data"))
        np.testing.assert_allclose(kernel, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "variant, changed_rules",
    [
        ({"alpha_reset": "global"}, {"bernstein", "optimistic"}),
        ({"alpha_reset": "none"}, {"bernstein", "optimistic"}),
        ({"optimistic_radius": "sqrt_closed_early"}, {"optimistic"}),
        ({"bernstein_beta": "sec2d"}, {"bernstein"}),
    ],
)
def test_interpretation_options_change_exactly_their_curves(variant, changed_rules):
    """Each option changes the curves of the rules it concerns and leaves the others bit for
    bit (the oracle's C_a never changes after t = 1, so no reset mode can touch it)."""
    classes, edges = instance(30, 6, seed=4)
    record = np.array([20, 60, 150, 400])
    runs = [run_generator(7, "variant", run, "data") for run in range(2)]
    default = PanelSpec(n_agents=30, degree=6, curves=ALL_CURVES, t_record=record)
    options = PanelSpec(n_agents=30, degree=6, curves=ALL_CURVES, t_record=record, **variant)
    base = simulate_runs(default, many(classes, 2), many(edges, 2), runs, np.float64)
    other = simulate_runs(options, many(classes, 2), many(edges, 2), runs, np.float64)
    for i, curve in enumerate(ALL_CURVES):
        same = np.array_equal(base[:, i], other[:, i])
        if curve.rule in changed_rules and not math.isinf(curve.eps):
            assert not same, curve
        elif curve.rule not in changed_rules:
            assert same, curve


def test_decisions_symmetric_and_mixing_doubly_stochastic():
    """Every rule is symmetric, so W^(t) of eq. (2) is doubly stochastic at every step."""
    classes, edges = instance(16, 4, seed=4)
    spec = PanelSpec(n_agents=16, degree=4, curves=ALL_CURVES, t_record=np.array([120]))
    seen = {"accepting_steps": 0}

    def check(t, curve, chi, weights):
        assert np.array_equal(chi, chi.T)
        np.testing.assert_allclose(weights.sum(axis=0), 1.0, atol=1e-12)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
        assert weights.min() >= 0.0
        seen["accepting_steps"] += bool(chi.any())

    reference_run(spec, classes, edges, run_generator(6, "sym", 0, "data"), on_step=check)
    assert seen["accepting_steps"] > 100  # the check saw non-trivial W's


@pytest.mark.parametrize("schedule", ["floor10", "theory"])
def test_oracle_simulation_matches_exact_expectation(schedule):
    """Monte Carlo mean vs the exact finite-t expectation, within 4 standard errors."""
    classes, edges = instance(30, 4, seed=7)
    grid = np.array([1, 3, 10, 30, 100, 300])
    curves = (Curve("oracle", 1.0), Curve("oracle", math.inf))
    spec = PanelSpec(n_agents=30, degree=4, curves=curves, t_record=grid, alpha_schedule=schedule)
    runs = 1500
    mse = simulate_runs(
        spec, many(classes, runs), many(edges, runs),
        [run_generator(11, "oracle", r, "data") for r in range(runs)],
    )
    sizes = component_sizes(edges, classes)
    for index, curve in enumerate(curves):
        exact = oracle_expected_mse(
            edges, classes, POPULATION.agent_means(classes), POPULATION.sigma,
            laplace_sigma_dp(curve.eps, POPULATION.half_width), schedule, grid, sizes,
        )
        mean = mse[:, index].mean(axis=0)
        se = mse[:, index].std(axis=0, ddof=1) / math.sqrt(runs)
        assert np.all(np.abs(mean - exact) < 4 * se), (curve.name, (mean - exact) / se)


@pytest.mark.parametrize("schedule", ["floor10", "theory"])
def test_exact_oracle_expectation_reaches_theorem1(schedule):
    """t * E[MSE] -> Theorem 1's coefficient (factor 2 for t/(t+1), 20/19 for floor(t/10))."""
    classes, edges = instance(24, 6, seed=2)
    sizes = component_sizes(edges, classes)
    assert sizes.max() >= 3
    sigma_dp = laplace_sigma_dp(2.0, POPULATION.half_width)
    t_max = 20000
    exact = oracle_expected_mse(
        edges, classes, POPULATION.agent_means(classes), POPULATION.sigma, sigma_dp,
        schedule, np.array([t_max // 2, t_max]), sizes,
    )
    coefficient = theorem1_coefficient(sizes, POPULATION.sigma, sigma_dp, ALPHA_FACTOR[schedule])
    ratio = exact * np.array([t_max // 2, t_max]) / coefficient
    # o(1/t) corrections: the ratio approaches 1 and is within 1% at t = 20000.
    assert abs(ratio[1] - 1) < 0.01
    assert abs(ratio[1] - 1) <= abs(ratio[0] - 1) + 1e-4


def test_first_step_bias_of_zero_initialisation():
    """mu~^(0) = 0 and alpha_1 = 1/2: E[MSE_1] = (E[mu^2] + sigma^2 + sigma_DP^2)/4 (oracle)."""
    n_agents, degree = 200, 20
    classes, edges = instance(n_agents, degree, seed=9)
    runs = 400
    spec = PanelSpec(n_agents=n_agents, degree=degree, curves=(Curve("oracle", 1.0),),
                     t_record=np.array([1]))
    mse = simulate_runs(spec, many(classes, runs), many(edges, runs),
                        [run_generator(3, "bias", r, "data") for r in range(runs)])[:, 0, 0]
    sizes = component_sizes(edges, classes)
    mu = POPULATION.agent_means(classes)
    sigma_dp2 = laplace_sigma_dp(1.0, POPULATION.half_width) ** 2
    expected = np.where(sizes <= 2, POPULATION.sigma**2,
                        (mu**2 + POPULATION.sigma**2 + sigma_dp2) / 4).mean()
    assert abs(mse.mean() - expected) < 4 * mse.std(ddof=1) / math.sqrt(runs)
    assert 1.5 < expected < 1.75  # the ~1.63 of the issue, for this instance


def test_curves_do_not_depend_on_their_neighbours_or_the_chunking():
    """A curve's numbers depend only on its own parameters and the run's seeds."""
    classes, edges = instance(40, 4, seed=5)
    t_record = np.array([10, 100, 200])
    full = PanelSpec(n_agents=40, degree=4, curves=ALL_CURVES + ALL_CURVES[:8], t_record=t_record)
    alone = PanelSpec(n_agents=40, degree=4, curves=(ALL_CURVES[4],), t_record=t_record)
    gens = lambda: [run_generator(8, "crn", r, "data") for r in range(4)]  # noqa: E731
    everything = simulate_runs(full, many(classes, 4), many(edges, 4), gens())
    single = simulate_runs(alone, many(classes, 4), many(edges, 4), gens())
    np.testing.assert_array_equal(everything[:, 4], single[:, 0])
    np.testing.assert_array_equal(everything[:, 4 + len(ALL_CURVES)], single[:, 0])
    halves = np.concatenate([
        simulate_runs(full, many(classes, 2), many(edges, 2), gens()[:2]),
        simulate_runs(full, many(classes, 2), many(edges, 2), gens()[2:]),
    ])
    np.testing.assert_array_equal(halves, everything)


def test_float32_changes_curves_far_less_than_monte_carlo_error():
    """float32 state vs float64 on the same seeds, Fig. 1-like panel (M=200, r=5)."""
    runs, n_agents, degree = 60, 200, 5
    rngs = [run_generator(13, "prec", r, "instance") for r in range(runs)]
    classes = np.stack([POPULATION.assign(n_agents, g) for g in rngs])
    edges = np.stack([random_regular_edges(degree, n_agents, g) for g in rngs])
    spec = PanelSpec(n_agents=n_agents, degree=degree, curves=ALL_CURVES,
                     t_record=np.array([10, 100, 1000, 2000]))
    results = {
        dtype: simulate_runs(spec, classes, edges,
                             [run_generator(13, "prec", r, "data") for r in range(runs)], dtype)
        for dtype in (np.float32, np.float64)
    }
    se = results[np.float64].std(axis=0, ddof=1) / math.sqrt(runs)
    shift = np.abs(results[np.float32].mean(axis=0) - results[np.float64].mean(axis=0))
    print("max float32 shift in standard errors:", (shift / se).max())
    assert np.all(shift < 0.1 * se), (shift / se).max()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("schedule", ["floor10", "theory"])
def test_kernel_step_sizes_match_alpha_table(schedule, dtype):
    """The kernel's 1 - alpha_tau = 1/(floor(tau * scale) + shift + 2) equals the table's."""
    tau = np.arange(1, 30001)
    scale, shift = (dtype(v) for v in BLOCKS[schedule])
    fresh = dtype(1) / (np.floor(tau.astype(dtype) * scale) + shift + dtype(2))
    exact = 1.0 / (tau // 10 + 2.0) if schedule == "floor10" else 1.0 / (tau + 1.0)
    np.testing.assert_allclose(1.0 - exact, alpha_table(schedule, 30000)[1:], rtol=0, atol=1e-15)
    np.testing.assert_allclose(fresh, exact, rtol=np.finfo(dtype).eps)


def test_diagnostics_match_the_literal_algorithm():
    """Type-I / type-II rates and the share of agents whose C_a changed, at every recorded
    t and for every rule, equal those counted on the literal transcription's chi^(t)."""
    from colme.ccolme.spec import DIAGNOSTICS

    classes, edges = instance(16, 4, seed=3)
    record = np.array([1, 2, 5, 17, 40, 90, 150])
    spec = PanelSpec(n_agents=16, degree=4, curves=ALL_CURVES, t_record=record)
    diagnostics = np.empty((1, len(ALL_CURVES), len(DIAGNOSTICS), len(record)))
    simulate_runs(spec, classes[None], edges[None], [run_generator(5, "ref", 0, "data")], np.float64,
                  diagnostics)
    same = classes[edges[:, 0]] == classes[edges[:, 1]]
    expected = np.full_like(diagnostics[0], np.nan)
    previous = {}

    def count(t, curve, chi, weights):
        accepted = chi[edges[:, 0], edges[:, 1]]
        changed = (chi != previous.get(curve, np.zeros_like(chi))).any(axis=1) if t > 1 else np.ones(16, bool)
        previous[curve] = chi.copy()
        if t in record:
            i = int(np.searchsorted(record, t))
            expected[curve, :, i] = [np.mean(~accepted[same]), np.mean(accepted[~same]), changed.mean()]

    reference_run(spec, classes, edges, run_generator(5, "ref", 0, "data"), on_step=count)
    np.testing.assert_allclose(diagnostics[0], expected, rtol=0, atol=1e-12)
    oracle = [i for i, c in enumerate(ALL_CURVES) if c.rule == "oracle"]
    assert (diagnostics[0, oracle, :2] == 0).all()  # the oracle rule makes no error
    assert (diagnostics[0, :, 2, 0] == 1).all()  # C_a^(0) is empty: everybody changes at t = 1


# --- Graph families (issue 19): non-regular, disconnected graphs, unequal edge counts ------

#: One graph per family on 30 agents (several are disconnected or have isolated agents);
#: ``edge_list``: a path 0 - 1 - ... - 27 plus the edge 28 - 29, "# nodes: 30".
FAMILY_GRAPHS = {
    "erdos_renyi": {"family": "erdos_renyi", "mean_degree": 3.0},
    "watts_strogatz": {"family": "watts_strogatz", "k": 4, "p": 0.3},
    "random_geometric": {"family": "random_geometric", "mean_degree": 4.0},
    "barabasi_albert": {"family": "barabasi_albert", "m": 2},
    "ring_lattice": {"family": "ring_lattice", "k": 4},
    "torus": {"family": "torus", "rows": 5, "cols": 6},
    "complete": {"family": "complete"},
    "edge_list": {"family": "edge_list"},
}


def family_params(name, tmp_path):
    graph = dict(FAMILY_GRAPHS[name])
    if name == "edge_list":
        path = tmp_path / "path.txt"
        path.write_text("# nodes: 30\n" + "".join(f"{a} {a + 1}\n" for a in range(27)) + "28, 29\n")
        graph = {**graph, "path": str(path), "sha256": file_sha256(path)}
    return graph


@pytest.mark.parametrize("schedule", ["floor10", "theory"])
@pytest.mark.parametrize("family", sorted(FAMILY_GRAPHS))
def test_oracle_simulation_matches_exact_expectation_on_every_graph_family(family, schedule, tmp_path):
    """Monte Carlo mean vs the exact expectation on the same instances, within 4 standard
    errors, at small and large t: 4 instances of the family (unequal edge counts are padded),
    400 runs each; the stratified standard error sqrt(sum_k se_k^2)/4."""
    n_agents, per_instance = 30, 400
    made = make_family_instances(n_agents, 3, family_params(family, tmp_path), "family-test", range(4), 13)
    grid = np.array([1, 3, 10, 30, 100, 300])
    curves = (Curve("oracle", 1.0), Curve("oracle", math.inf))
    spec = PanelSpec(n_agents=n_agents, degree=None, curves=curves, t_record=grid, alpha_schedule=schedule)
    which = np.arange(4 * per_instance) % 4
    mse = simulate_runs(
        spec, made["classes"][which], made["edges"][which],
        [run_generator(11, f"oracle-{family}", r, "data") for r in range(len(which))],
    )
    for index, curve in enumerate(curves):
        exact, errors = [], []
        for k in range(4):
            edges = valid_edges(made["edges"][k])
            assert len(edges) == made["n_edges"][k]
            classes = made["classes"][k]
            exact.append(oracle_expected_mse(
                edges, classes, POPULATION.agent_means(classes), POPULATION.sigma,
                laplace_sigma_dp(curve.eps, POPULATION.half_width), schedule, grid, made["component_sizes"][k],
            ))
            errors.append(mse[which == k, index].std(axis=0, ddof=1) / math.sqrt(per_instance))
        expected = np.mean(exact, axis=0)
        se = np.sqrt(np.sum(np.square(errors), axis=0)) / 4
        mean = mse[:, index].mean(axis=0)
        assert np.all(np.abs(mean - expected) < 4 * se), (family, curve.name, (mean - expected) / se)


def test_kernel_matches_literal_algorithm_on_a_disconnected_irregular_graph():
    """Float64, same draws: every rule on an Erdos-Renyi graph with isolated agents and
    unequal degrees, padded among runs of other edge counts; the optimistic radius's r is
    the run's mean degree 2E/M (choices.py)."""
    made = make_family_instances(16, 3, {"family": "erdos_renyi", "p": 0.15}, "literal-er", range(3), 21)
    assert len(set(made["n_edges"])) > 1  # the padding is exercised
    assert any((np.bincount(valid_edges(e).ravel(), minlength=16) == 0).any() for e in made["edges"])
    spec = PanelSpec(n_agents=16, degree=None, curves=ALL_CURVES, t_record=np.array([1, 2, 5, 17, 40, 90, 150]))
    kernel = simulate_runs(
        spec, made["classes"], made["edges"], [run_generator(5, "ref-er", r, "data") for r in range(3)], np.float64
    )
    for run in range(3):
        expected = reference_run(
            spec, made["classes"][run], valid_edges(made["edges"][run]), run_generator(5, "ref-er", run, "data")
        )
        np.testing.assert_allclose(kernel[run], expected, rtol=1e-9, atol=1e-12)


def test_optimistic_radius_on_a_regular_family_is_the_random_regular_one():
    """A ring lattice of degree 4 given as a family (degree None: r = 2E/M = 4) gives the
    same numbers, bit for bit, as the spec with degree 4: the choice agrees with Private-C-ColME
    wherever the graph is regular."""
    made = make_family_instances(20, 3, {"family": "ring_lattice", "k": 4}, "ring", range(2), 3)
    record = np.array([5, 50, 200])
    gens = lambda: [run_generator(2, "ring", r, "data") for r in range(2)]  # noqa: E731
    family = simulate_runs(PanelSpec(20, None, ALL_CURVES, record), made["classes"], made["edges"], gens())
    regular = simulate_runs(PanelSpec(20, 4, ALL_CURVES, record), made["classes"], made["edges"], gens())
    np.testing.assert_array_equal(family, regular)
