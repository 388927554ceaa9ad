"""C-ColME and B-ColME (colme.scalable.kernel) against a plain reference written from the
definitions (dense loops over the directed links, every option), B-ColME on a tree
against the exact depth-d average, and the draws against Private-C-ColME's."""

import itertools
import math

import numpy as np
import pytest
from reference import law_draws as draws

from colme.ccolme.randoms import run_key
from colme.populations import DataLaw, Population
from colme.scalable.kernel import link_arrays, optimistic_radius, simulate_scalable_runs
from colme.scalable.spec import DIAGNOSTICS, WEIGHTS, ScalableCurve, ScalableSpec

POPULATION = Population(means=(0.0, 1.0), laws=(DataLaw(sigma=0.5), DataLaw(sigma=0.3)))


def reference(spec, curve, classes, edges, key, ranks=None, per_agent=False):
    """The MSE at every t, from the definitions (colme.scalable.kernel's docstring), with
    dense per-link dictionaries: an implementation that shares no code with the kernel;
    then the shares of agents whose estimate and whose local mean are wrong (more than
    ``spec.tolerance`` from their mean); with ``per_agent``, also each agent's squared
    error (t, M).  ``ranks``: the run's privacy permutation (a curve with a mix)."""
    n, t_max = spec.n_agents, spec.t_max
    samples, noise = draws(spec.population, classes, key, t_max)
    mu = spec.population.agent_means(classes)
    sigma = spec.population.class_sigmas()[classes]
    sigma_dp = spec.curve_arguments(curve, classes, ranks)["sigma_dp"]
    neighbours = {a: [] for a in range(n)}
    for a, b in edges:
        neighbours[int(a)].append(int(b))
        neighbours[int(b)].append(int(a))
    links = [(a, b) for a in range(n) for b in sorted(neighbours[a])]
    stale, permanent = spec.test == "stale", spec.exclusions == "permanent"
    log_links = math.log(4.0 * len(links))

    def beta(count, a):
        if count < 2 and stale:
            return math.inf
        s2 = sigma[a] ** 2 + sigma_dp[a] ** 2
        return math.sqrt(2 * s2 / count * (1 + 1 / count) * math.log(math.sqrt(count + 1) * math.exp(log_links)
                                                                      / spec.delta))

    keep = {(a, b): curve.rule == "optimistic" or classes[a] == classes[b] for a, b in links}
    y = np.zeros(n)
    clock = np.zeros(n)
    tables = {link: [(0.0, 0.0)] * max(curve.depth, 1) for link in links}
    m_prev = np.zeros(n)
    beta_prev = np.full(n, math.inf)
    size_prev = {a: sum(keep[(a, b)] for b in neighbours[a]) for a in range(n)}
    pending = learnt = False
    history, m_hist = [], []
    for t in range(1, t_max + 1):
        m = (samples[:t].sum(0) + sigma_dp * noise[:t].sum(0)) / t
        b_now = np.array([beta(t, a) for a in range(n)])
        if t == 1 and spec.start == "first_sample":
            y = m.copy()
            changed = dict.fromkeys(range(n), False)
        else:
            new = {}
            for a, b in links:
                if curve.rule == "oracle":
                    new[(a, b)] = classes[a] == classes[b]
                elif permanent and not keep[(a, b)]:
                    new[(a, b)] = False
                else:
                    other, reach = (m_prev[b], beta_prev[b]) if stale else (m[b], b_now[b])
                    new[(a, b)] = abs(m[a] - other) <= b_now[a] + reach
            changed = {a: any(new[(a, b)] != keep[(a, b)] for b in neighbours[a]) for a in range(n)}
            old_keep, keep = keep, new
            size = {a: sum(keep[(a, b)] for b in neighbours[a]) for a in range(n)}
            if curve.algorithm == "c_colme":
                wrong = sum(keep[(a, b)] and classes[a] != classes[b] for a, b in links)
                restart = {"none": False, "global": any(changed.values()), "per_agent": False}.get(spec.alpha_reset)
                if spec.alpha_reset in ("global_next_step", "global_until_learnt"):
                    restart = pending
                    if learnt:
                        pending = False
                    elif spec.alpha_reset == "global_until_learnt" and wrong == 0 and curve.rule == "optimistic":
                        learnt = pending = True
                    else:
                        pending = any(changed.values())
                y_new = np.empty(n)
                for a in range(n):
                    v = y[a]
                    for b in neighbours[a]:
                        if keep[(a, b)]:
                            other_size = size_prev[b] if stale else size[b]
                            share = (1 + size[a] if spec.weights == "uniform"
                                     else WEIGHTS[spec.weights] + max(size[a], other_size))
                            v += (y[b] - y[a]) / share
                    own_change = spec.alpha_reset == "per_agent" and changed[a]
                    clock[a] = 1 if restart or own_change or spec.alpha_reset == "constant" else clock[a] + 1
                    alpha = clock[a] / (clock[a] + 1)
                    alone = curve.rule == "oracle" and size[a] == 0
                    y_new[a] = m[a] if alone else (1 - alpha) * m[a] + alpha * v
                y = y_new
            else:
                old = tables
                tables = {}
                for a, b in links:
                    if not keep[(a, b)]:
                        tables[(a, b)] = [(0.0, 0.0)] * curve.depth
                        continue
                    row = [(m_prev[b], 1.0)]
                    for k in range(1, curve.depth):
                        parts = [old[(b, c)][k - 1] for c in neighbours[b] if c != a and old_keep[(b, c)]]
                        row.append((sum(p[0] for p in parts), sum(p[1] for p in parts)))
                    tables[(a, b)] = row
                for a in range(n):
                    weighted, weight = t * m[a], t
                    for b in neighbours[a]:
                        for k, (total, count) in enumerate(tables[(a, b)]):
                            if t - 1 - k > 0:
                                weighted += (t - 1 - k) * total
                                weight += (t - 1 - k) * count
                    y[a] = weighted / weight
            size_prev = size
        history.append((np.mean((y - mu) ** 2), np.mean(abs(y - mu) > spec.tolerance),
                        np.mean(abs(m - mu) > spec.tolerance)))
        m_hist.append((y - mu) ** 2)
        m_prev, beta_prev = m, b_now
    return (*np.array(history).T, np.array(m_hist)) if per_agent else np.array(history).T


def small_instance(seed=3, n=8, degree=3):
    from colme.graphs import random_regular_edges

    rng = np.random.default_rng(seed)
    classes = rng.integers(0, 2, size=n)
    return classes, random_regular_edges(degree, n, rng)


OPTIONS = [
    {},  # the authors' simulator's definitions (the spec's defaults)
    {"test": "current", "exclusions": "revocable", "alpha_reset": "global", "start": "zero", "weights": "eq2"},
    {"alpha_reset": "per_agent", "weights": "uniform"},
    {"alpha_reset": "global_next_step", "exclusions": "revocable"},
    {"alpha_reset": "none", "test": "current"},
    {"alpha_reset": "constant"},
]
CURVES = [ScalableCurve("c_colme"), ScalableCurve("c_colme", eps=2.0), ScalableCurve("c_colme", rule="oracle"),
          ScalableCurve("b_colme", 1), ScalableCurve("b_colme", 3), ScalableCurve("b_colme", 2, eps=2.0)]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "simulator")
def test_the_kernel_follows_the_definitions_step_by_step(options):
    """Every curve and option, 40 steps on 8 agents, against ``reference``: the MSE equal
    to rounding (the two sum in different orders), the shares of wrong estimates exactly."""
    classes, edges = small_instance()
    t_max = 40
    spec = ScalableSpec(n_agents=8, curves=tuple(CURVES), t_record=np.arange(1, t_max + 1), population=POPULATION,
                        delta=0.5, tolerance=0.15, **options)
    generator = np.random.default_rng(11)
    diagnostics = np.empty((1, len(CURVES), len(DIAGNOSTICS), t_max))
    mse = simulate_scalable_runs(spec, classes[None], edges[None], [generator], diagnostics)[0]
    key = run_key(generator)
    for index, curve in enumerate(CURVES):
        expected, wrong, wrong_local = reference(spec, curve, classes, edges, key)
        np.testing.assert_allclose(mse[index], expected, rtol=1e-9, atol=1e-15, err_msg=curve.name)
        np.testing.assert_array_equal(diagnostics[0, index, 3:], [wrong, wrong_local], err_msg=curve.name)
        assert wrong.min() < wrong.max()  # the shares move: not a vacuous comparison


def test_decisions_change_along_the_reference_run():
    """The comparison above is not vacuous: the optimistic rule keeps other-class links at
    first and drops them within the 40 steps."""
    classes, edges = small_instance()
    spec = ScalableSpec(n_agents=8, curves=(ScalableCurve("c_colme"),), t_record=np.array([2, 40]),
                        population=POPULATION, delta=0.5)
    diagnostics = np.empty((1, 1, len(DIAGNOSTICS), 2))
    simulate_scalable_runs(spec, classes[None], edges[None], [np.random.default_rng(11)], diagnostics)
    assert diagnostics[0, 0, 1, 0] > 0 and diagnostics[0, 0, 1, 1] < diagnostics[0, 0, 1, 0]


def test_b_colme_on_a_tree_is_the_exact_depth_d_average():
    """On a tree with every link kept (one class, the oracle rule), B-ColME's estimate is
    (t m_a(t) + sum over the agents c at distance h = 1..d of (t - h) m_c(t - h)) /
    (t + sum (t - h)): each agent counted once, with its mean of h steps before."""
    edges = np.array([[0, 1], [0, 2], [1, 3], [1, 4], [2, 5], [2, 6], [3, 7], [5, 8]])
    n, t_max = 9, 12
    classes = np.zeros(n, dtype=np.int64)
    population = Population(means=(0.3,), laws=(DataLaw(sigma=0.5),))
    distance = np.full((n, n), np.inf)
    links = link_arrays(edges, classes, n)
    for source in range(n):
        distance[source, source] = 0
        frontier = [source]
        while frontier:
            nxt = []
            for a in frontier:
                for b in links["neighbours"][links["indptr"][a]:links["indptr"][a + 1]]:
                    if distance[source, b] == np.inf:
                        distance[source, b] = distance[source, a] + 1
                        nxt.append(b)
            frontier = nxt
    generator = np.random.default_rng(4)
    samples, _ = draws(population, classes, run_key(generator), t_max)
    means = np.cumsum(samples, axis=0) / np.arange(1, t_max + 1)[:, None]
    for depth in (1, 2, 3):
        spec = ScalableSpec(n_agents=n, curves=(ScalableCurve("b_colme", depth, rule="oracle"),),
                            t_record=np.array([t_max]), population=population)
        estimate = simulate_scalable_runs(spec, classes[None], edges[None], [generator])[0, 0, 0]
        errors = []
        for a in range(n):
            weighted, weight = t_max * means[t_max - 1, a], t_max
            for c in range(n):
                h = distance[a, c]
                if 1 <= h <= depth:
                    weighted += (t_max - h) * means[int(t_max - h) - 1, c]
                    weight += t_max - h
            errors.append(weighted / weight - 0.3)
        assert estimate == pytest.approx(np.mean(np.square(errors)), rel=1e-12)


def test_the_radius_is_the_union_bound_over_the_links():
    """[16, Eq. (3)] with 4 |links| in the union bound: Private-C-ColME's 4 r M on an
    r-regular graph (colme.ccolme.rules.optimistic_radius, bit for bit up to rounding)."""
    from colme.ccolme.rules import optimistic_radius as ccolme_radius

    for t, sigma, sigma_dp in itertools.product((2.0, 30.0, 3e4), (0.5, 2.0), (0.0, 1.5)):
        ours = optimistic_radius(t, sigma, sigma_dp, math.log(4.0 * 10 * 1000), 0.1, True)
        assert ours == pytest.approx(ccolme_radius(t, sigma, sigma_dp, 10.0, 1000, 0.1), rel=1e-14)
    assert optimistic_radius(1.0, 1.0, 0.0, 5.0, 0.1, True) == math.inf
    assert math.isfinite(optimistic_radius(1.0, 1.0, 0.0, 5.0, 0.1, False))


def test_a_run_resumed_in_segments_gives_the_same_numbers():
    """With a ``progress`` the kernel runs in segments of steps (the workflow's jobs do):
    its state (tables alternating by the parity of t, the clock, the learnt flag) carries
    over, bit for bit."""
    from colme.progress import Progress

    classes, edges = small_instance()
    spec = ScalableSpec(n_agents=8, curves=tuple(CURVES), t_record=np.arange(1, 41), population=POPULATION,
                        delta=0.5)
    whole = simulate_scalable_runs(spec, classes[None], edges[None], [np.random.default_rng(11)])
    progress = Progress(interval=0.0, write=lambda *args, **kwargs: None)
    progress.steps = lambda remaining: 3  # segments of 3 steps: odd and even starts
    pieces = simulate_scalable_runs(spec, classes[None], edges[None], [np.random.default_rng(11)], progress=progress)
    assert np.array_equal(whole, pieces)


def test_wrong_estimates_follow_the_data_law_and_the_mse():
    """At t = 1 (first-sample start) every estimate is the agent's first sample: the share
    of wrong estimates (|X - mu| > tolerance) has expectation 1 - tolerance / (sqrt(3)
    sigma) under the uniform law, within 4 binomial standard errors; at every t the share
    is at most MSE / tolerance^2 (Markov's inequality, exact per run), Local's share does
    not depend on the algorithm, and the oracle's is below it."""
    from colme.graphs import random_regular_edges

    n, sigma, tolerance = 20000, 0.5, 0.3
    rng = np.random.default_rng(5)
    classes = rng.integers(0, 2, size=n)
    edges = random_regular_edges(4, n, rng)
    population = Population(means=(0.0, 1.0), laws=(DataLaw(sigma=sigma), DataLaw(sigma=sigma)))
    curves = (ScalableCurve("c_colme"), ScalableCurve("b_colme", 2), ScalableCurve("c_colme", rule="oracle"))
    t_record = np.array([1, 5, 30, 200])
    spec = ScalableSpec(n_agents=n, curves=curves, t_record=t_record, population=population, tolerance=tolerance)
    diagnostics = np.empty((1, len(curves), len(DIAGNOSTICS), len(t_record)))
    mse = simulate_scalable_runs(spec, classes[None], edges[None], [np.random.default_rng(2)], diagnostics)[0]
    wrong, wrong_local = diagnostics[0, :, 3], diagnostics[0, :, 4]
    p = 1 - tolerance / (math.sqrt(3) * sigma)
    assert abs(wrong[0, 0] - p) < 4 * math.sqrt(p * (1 - p) / n)
    np.testing.assert_array_equal(wrong[:, 0], wrong_local[:, 0])
    assert np.all(wrong <= mse / tolerance**2)
    np.testing.assert_array_equal(wrong_local, np.broadcast_to(wrong_local[0], wrong_local.shape))
    assert np.all(wrong[2, 1:3] < wrong_local[2, 1:3] / 2)  # the oracle's classmates help at t = 5 and 30


def test_a_privacy_mix_on_an_irregular_graph_follows_the_definitions():
    """An Erdos-Renyi graph with agents of degree 0 to 5, a privacy mix (each agent's noise
    and radius at its own level, from the run's privacy permutation) and groups by privacy
    and degree: every curve against ``reference`` (union bound over the run's 2E directed
    links), each group's sum of squared errors against the reference's agents'."""
    from colme.graphs import erdos_renyi_edges

    n, t_max = 12, 40
    rng = np.random.default_rng(4)
    classes = rng.integers(0, 2, size=n)
    edges = erdos_renyi_edges(n, 0.2, rng)
    degrees = np.bincount(edges.ravel(), minlength=n)
    assert degrees.min() == 0 and len(set(degrees)) > 2  # irregular, with an isolated agent
    ranks = rng.permutation(n)
    mix = ((1.0, 0.5), (math.inf, 0.5))
    curves = (ScalableCurve("c_colme", eps=math.nan, mix=mix), ScalableCurve("b_colme", 2, eps=math.nan, mix=mix),
              ScalableCurve("c_colme", rule="oracle", eps=math.nan, mix=mix), ScalableCurve("c_colme", eps=2.0))
    spec = ScalableSpec(n_agents=n, curves=curves, t_record=np.arange(1, t_max + 1), population=POPULATION,
                        delta=0.5, tolerance=0.15, groups=("privacy", "degree"), degree_bands=(2, 4))
    sigma_dp = spec.curve_arguments(curves[0], classes, ranks)["sigma_dp"]
    assert sorted(np.unique(sigma_dp == 0)) == [False, True] and (sigma_dp == 0).sum() == n // 2
    sums = np.empty((1, len(curves), spec.n_groups, t_max))
    counts = np.empty((1, len(curves), spec.n_groups), dtype=np.int64)
    generator = np.random.default_rng(11)
    mse = simulate_scalable_runs(spec, classes[None], edges[None], [generator], privacy_ranks=ranks[None],
                                 group_sums=sums, group_counts=counts)[0]
    key = run_key(generator)
    links = link_arrays(edges, classes, n)
    for index, curve in enumerate(curves):
        expected, _, _, errors = reference(spec, curve, classes, edges, key, ranks, per_agent=True)
        np.testing.assert_allclose(mse[index], expected, rtol=1e-9, atol=1e-15, err_msg=curve.name)
        groups = spec.agent_groups(curve, classes, ranks, links["indptr"], links["neighbours"])
        assert len(set(groups)) > 2 or not curve.mix  # several groups hold agents
        np.testing.assert_array_equal(counts[0, index], np.bincount(groups, minlength=spec.n_groups))
        for group in range(spec.n_groups):
            np.testing.assert_allclose(sums[0, index, group], errors[:, groups == group].sum(axis=1), rtol=1e-9,
                                       atol=1e-15, err_msg=f"{curve.name}, group {spec.group_labels(curve)[group]}")
    assert mse[0, -1] != mse[3, -1]  # the mix is not the single eps


def test_c_colme_on_an_erdos_renyi_graph_by_hand():
    """The first two steps of C-ColME (the authors' simulator's definitions) on a small
    Erdos-Renyi graph, written out by hand from the documented draws: y_a(1) = X_a(1); at
    t = 2 every link is kept (the stale radius of one sample is infinite), alpha's clock
    starts at 1 (alpha = 1/2) and W_ab = 1/(1 + max(C_a, C_b)) with C the degrees."""
    from colme.graphs import erdos_renyi_edges

    n = 6
    rng = np.random.default_rng(9)
    classes = rng.integers(0, 2, size=n)
    edges = erdos_renyi_edges(n, 0.5, rng)
    spec = ScalableSpec(n_agents=n, curves=(ScalableCurve("c_colme"),), t_record=np.array([1, 2]),
                        population=POPULATION)
    generator = np.random.default_rng(3)
    mse = simulate_scalable_runs(spec, classes[None], edges[None], [generator])[0, 0]
    samples, _ = draws(POPULATION, classes, run_key(generator), 2)
    mu = POPULATION.agent_means(classes)
    y1 = samples[0]
    degree = np.bincount(edges.ravel(), minlength=n)
    pull = np.zeros(n)
    for a, b in edges:
        weight = 1.0 / (1.0 + max(degree[a], degree[b]))
        pull[a] += weight * (y1[b] - y1[a])
        pull[b] += weight * (y1[a] - y1[b])
    y2 = 0.5 * samples[:2].mean(axis=0) + 0.5 * (y1 + pull)
    np.testing.assert_allclose(mse, [np.mean((y1 - mu) ** 2), np.mean((y2 - mu) ** 2)], rtol=1e-12)
    assert len(edges) and degree.max() > degree.min()


def test_curves_in_lockstep_are_the_curves_run_alone(monkeypatch):
    """A run's curves run in lockstep (the draws once per step, the noisy means and the
    decisions once per rule and privacy): on an irregular graph with a privacy mix, the
    oracle, several eps and groups, every curve's MSE, diagnostics and group sums are bit
    for bit those of the curves run one by one (as above ``LOCKSTEP_BYTES``); and the
    workspace holds ``workspace_bytes``."""
    from colme.graphs import erdos_renyi_edges
    from colme.scalable import kernel
    from colme.scalable import spec as spec_module

    n, t_max = 30, 60
    rng = np.random.default_rng(8)
    classes = rng.integers(0, 2, size=n)
    edges = erdos_renyi_edges(n, 0.15, rng)
    ranks = rng.permutation(n)
    mix = ((1.0, 0.5), (math.inf, 0.5))
    curves = (ScalableCurve("c_colme"), *(ScalableCurve("b_colme", depth) for depth in (1, 3)),
              ScalableCurve("c_colme", eps=2.0), ScalableCurve("b_colme", 2, eps=2.0),
              ScalableCurve("c_colme", rule="oracle", eps=2.0), ScalableCurve("b_colme", 2, rule="oracle", eps=2.0),
              ScalableCurve("c_colme", eps=math.nan, mix=mix), ScalableCurve("b_colme", 3, eps=math.nan, mix=mix))
    assert len({curve.decisions for curve in curves}) == 4
    spec = ScalableSpec(n_agents=n, curves=curves, t_record=np.arange(1, t_max + 1), population=POPULATION,
                        delta=0.5, groups=("privacy",))
    n_links = 2 * len(edges)

    def run():
        diagnostics = np.empty((1, len(curves), len(DIAGNOSTICS), t_max))
        sums = np.empty((1, len(curves), spec.n_groups, t_max))
        counts = np.empty((1, len(curves), spec.n_groups), dtype=np.int64)
        mse = simulate_scalable_runs(spec, classes[None], edges[None], [np.random.default_rng(11)], diagnostics,
                                     privacy_ranks=ranks[None], group_sums=sums, group_counts=counts)
        return mse, diagnostics, sums, counts

    allocated = []
    allocate = kernel.Workspace.allocate

    def counted(*args):
        workspace = allocate(*args)
        allocated.append(sum(array.nbytes for array in workspace))
        return workspace

    monkeypatch.setattr(kernel.Workspace, "allocate", counted)
    assert spec_module.lockstep_batches(n, n_links, curves) == (slice(0, len(curves)),)
    together = run()
    assert allocated == [spec_module.workspace_bytes(n, n_links, curves)]
    monkeypatch.setattr(spec_module, "LOCKSTEP_BYTES", 0)
    assert len(spec_module.lockstep_batches(n, n_links, curves)) == len(curves)
    alone = run()
    assert allocated[1:] == [spec_module.workspace_bytes(n, n_links, (curve,)) for curve in curves]
    for mine, theirs in zip(together, alone, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert len(np.unique(together[0][0, :, -1])) == len(curves)  # every curve its own numbers
