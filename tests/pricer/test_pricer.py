"""PriCER (arXiv:2303.00035): model, Algorithm 3, Monte Carlo of Algorithms 1-2, figure tables.

Statistical checks use tolerances of a few Monte Carlo standard errors (Z = 4.5, a false
alarm rate of ~1e-5 per check); deterministic checks use numerical tolerances.
"""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from colme import pricer as pr
from colme.config import ConfigError, figure_defaults
from colme.expansion import validate_config
from colme.pricer.choices import CHOICES as PRICER

Z = 4.5


def shipped_figures() -> dict:
    """The figures of the shipped config.yaml, validated (defaults filled in)."""
    shipped = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text())
    return validate_config(shipped)["figures"]


def pricer_settings(kind, **settings):
    """A PriCER figure's settings: the schema's defaults for ``kind``, then ``settings``."""
    return {**figure_defaults("pricer", kind=kind), **settings}


def random_instance(rng, n, reciprocity="independent", zeros=True, eps_low=0.3, eps_high=50.0):
    """A random small network and privacy spec (some missing links, mixed trust)."""
    p = rng.uniform(0.1, 0.95, n)
    P = rng.uniform(0.1, 1.0, (n, n))
    if zeros:
        P[rng.random((n, n)) < 0.2] = 0.0
    np.fill_diagonal(P, 1.0)
    net = pr.make_network(p, P, reciprocity=reciprocity)
    eps = np.where(rng.random((n, n)) < 0.5, eps_high, eps_low)
    np.fill_diagonal(eps, eps_high)
    return net, pr.make_privacy(eps, 1e-3, 1.0, n)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "p, P, match",
    [
        ([0.5, 1.2], [[1, 0.5], [0.5, 1]], r"p \(node-PS"),
        ([0.5, -0.1], [[1, 0.5], [0.5, 1]], r"p \(node-PS"),
        ([0.5, 0.5], [[1, 1.5], [0.5, 1]], r"P \(node-node"),
        ([0.5, 0.5], [[0.9, 0.5], [0.5, 1]], "P_ii = 1"),
        ([0.5, 0.5, 0.5], [[1, 0.5], [0.5, 1]], "3x3"),
        ([0.5, np.nan], [[1, 0.5], [0.5, 1]], r"\[0, 1\]"),
    ],
)
def test_bad_probabilities_are_rejected(p, P, match):
    with pytest.raises(pr.PricerError, match=match):
        pr.make_network(p, P)


def test_bad_reciprocity_is_rejected():
    P = [[1, 0.5], [0.4, 1]]
    with pytest.raises(pr.PricerError, match="p_ij p_ji <= E"):
        pr.make_network([0.5, 0.5], P, E=[[1, 0.1], [0.1, 1]])  # below p12 p21 = 0.2
    with pytest.raises(pr.PricerError, match="p_ij p_ji <= E"):
        pr.make_network([0.5, 0.5], P, E=[[1, 0.45], [0.45, 1]])  # above min = 0.4
    with pytest.raises(pr.PricerError, match="symmetric"):
        pr.make_network([0.5, 0.5], P, E=[[1, 0.3], [0.25, 1]])
    with pytest.raises(pr.PricerError, match="reciprocity="):
        pr.make_network([0.5, 0.5], P, reciprocity="sometimes")


@pytest.mark.parametrize("eps, delta, R, match", [
    (0.0, 1e-3, 1.0, "eps_ij must be > 0"),
    (-1.0, 1e-3, 1.0, "eps_ij must be > 0"),
    (1.0, 0.0, 1.0, r"delta_ij must lie in \(0, 1\]"),
    (1.0, 1.5, 1.0, r"delta_ij must lie in \(0, 1\]"),
    (1.0, 1e-3, 0.0, "R must be"),
])
def test_bad_privacy_is_rejected(eps, delta, R, match):
    with pytest.raises(pr.PricerError, match=match):
        pr.make_privacy(eps, delta, R, 3)


def test_infeasible_settings_are_rejected():
    # node 1 can reach nobody that reaches the PS: (3) cannot hold
    net = pr.make_network([0.0, 0.5], [[1, 0.0], [0.5, 1]])
    with pytest.raises(pr.PricerError, match=r"node\(s\) \[0\] cannot reach the PS"):
        pr.pricer_optimise(net, pr.make_privacy(1.0, 1e-3, 1.0, 2), d=1)
    with pytest.raises(pr.PricerError, match="infeasible trust setting"):
        pr.trust_matrix(5, 5)
    with pytest.raises(pr.PricerError, match="infeasible trust setting"):
        pr.fig4_instance(pricer_settings("connectivity", n_nodes=5), 2)  # trusts 6 of 4 others
    # ... and the config rejects them before any job runs, naming the key
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['pc'\]"):
        figure_defaults("pricer", kind="trust", pc=[0.5])
    with pytest.raises(ConfigError, match=r"kind: 'fig9' is not allowed"):
        figure_defaults("pricer", kind="fig9")
    with pytest.raises(ConfigError, match=r"trusted=6: each node can trust 0 .. 4"):
        figure_defaults("pricer", kind="connectivity", n_nodes=5)
    with pytest.raises(pr.PricerError, match="below sigma_thr"):
        net, priv = random_instance(np.random.default_rng(0), 3)
        pr.optimise_weights(net, priv, 0.5 * pr.sigma_threshold(net, priv))


# --------------------------------------------------------------------------- formulas


@pytest.mark.parametrize("reciprocity", ["independent", "full"])
def test_sigma_tv2_forms_agree_and_are_convex(reciprocity):
    """(4) as printed = vec(A)'Q vec(A)/n^2 = 1'C1/n^2; Q is PSD; (13) bounds (4) from above."""
    rng = np.random.default_rng(1)
    for _ in range(5):
        net, _ = random_instance(rng, 4, reciprocity)
        A = rng.random((4, 4))
        Q = pr.quadratic_form(net)
        tv = pr.sigma_tv2(A, net)
        assert tv == pytest.approx(A.ravel() @ Q @ A.ravel() / 16, rel=1e-12)
        assert tv == pytest.approx(pr.coefficient_covariance(A, net).sum() / 16, rel=1e-12)
        Qr = pr.quadratic_form(net, relaxed=True)
        assert pr.sigma_tv2_relaxed(A, net) == pytest.approx(A.ravel() @ Qr @ A.ravel() / 16, rel=1e-12)
        assert pr.sigma_tv2_relaxed(A, net) >= tv - 1e-15
        assert np.linalg.eigvalsh(Q).min() > -1e-12
        assert np.linalg.eigvalsh(Qr).min() > -1e-12


def test_reciprocal_link_sampling_matches_E():
    rng = np.random.default_rng(2)
    net = pr.make_network([0.3, 0.7, 0.5], [[1, 0.6, 0.2], [0.5, 1, 0.9], [0.4, 0.3, 1]], reciprocity="full")
    draws = 200_000
    tau, T = pr.sample_links(net, draws, rng)
    for (i, j) in [(0, 1), (0, 2), (1, 2)]:
        for est, target in [(T[:, i, j].mean(), net.P[i, j]), (T[:, j, i].mean(), net.P[j, i]),
                            ((T[:, i, j] & T[:, j, i]).mean(), net.E[i, j])]:
            assert abs(est - target) <= Z * math.sqrt(target * (1 - target) / draws) + 1e-12
    assert np.all(np.abs(tau.mean(axis=0) - net.p) <= Z * np.sqrt(net.p * (1 - net.p) / draws))
    assert T[:, [0, 1, 2], [0, 1, 2]].all()


# --------------------------------------------------------------------------- row solutions


def test_breakpoint_search_equals_bisection():
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = rng.integers(1, 8)
        g, b, D = rng.uniform(0.05, 0.9, m), rng.uniform(0, 2, m), rng.uniform(0.2, 3, m)
        caps = np.where(rng.random(m) < 0.2, np.inf, rng.uniform(0.1, 3, m))
        target = rng.uniform(0.05, 1.0) * min(np.sum(g * caps), 5.0)
        w1 = pr.solve_lambda(g, b, D, caps, target, "breakpoints")
        w2 = pr.solve_lambda(g, b, D, caps, target, "bisection")
        assert np.sum(g * w1) == pytest.approx(target, rel=1e-12)
        np.testing.assert_allclose(w1, w2, rtol=1e-9, atol=1e-12)
        assert np.all(w1 >= 0) and np.all(w1 <= caps)


def test_cases_b_and_c():
    # node 0 has p_0 = 1: case c) -> alpha_00 = 1 (19) when its cap allows
    net = pr.make_network([1.0, 0.3, 1.0], [[1, 0.5, 1.0], [1.0, 1, 0.5], [0.5, 0.5, 1]])
    priv = pr.make_privacy(np.inf, 1e-3, 1.0, 3)
    res = pr.pricer_optimise(net, priv, d=5)
    np.testing.assert_allclose(res.A[0], [1, 0, 0])
    # node 1 reaches node 0 (p_0 = 1) surely: case b) with no privacy -> all weight there
    np.testing.assert_allclose(res.A[1], [1, 0, 0])
    assert res.objective == pytest.approx(0.0, abs=1e-15)  # every row has a sure path
    # with privacy caps: case c) fails (w_00 < 1) -> case b) over {j: p_j p_0j = 1} = {0, 2}
    caps = np.array([[0.6, 5.0, 0.7], [0.4, 2.0, 2.0], [3.0, 3.0, 3.0]])
    A0 = pr.initial_weights(net)
    np.testing.assert_allclose(pr.row_update(0, A0, net, caps, fine=False), [0.6 / 1.3, 0, 0.7 / 1.3])
    # case b) with S_1 = 0.4 < 1: the zero-cost link at its cap, the residual 0.6 by lambda (18)
    row = pr.row_update(1, A0, net, caps, fine=False)
    g = net.p * net.P[1]
    assert row[0] == 0.4 and row[1] > 0 and row[2] > 0
    assert np.sum(g * row) == pytest.approx(1.0, abs=1e-14)
    # case c) as printed when the cap allows it
    np.testing.assert_allclose(pr.row_update(2, A0, net, caps, fine=True), [0, 0, 1])


# --------------------------------------------------------------------------- Algorithm 3


@pytest.mark.parametrize("reciprocity", ["independent", "full"])
def test_algorithm3_output_is_feasible_and_private(reciprocity):
    rng = np.random.default_rng(4)
    for n in (3, 5, 8):
        net, priv = random_instance(rng, n, reciprocity)
        d = int(rng.integers(1, 200))
        for res in (pr.pricer_optimise(net, priv, d), pr.optimise_joint(net, priv, d, xtol=1e-4)):
            viol = pr.check_constraints(res.A, res.sigma, net, priv)
            assert max(viol.values()) < 1e-9, viol
            report = pr.privacy_report(res.A, res.sigma, net, priv)
            assert report["ok"].all()
            np.testing.assert_allclose(report["delta"], net.P[report["i"], report["j"]] * 1e-3)
            assert res.objective == pytest.approx(pr.objective(res.A, res.sigma, net, priv, d))
            assert res.sigma >= res.sigma_thr * (1 - 1e-12)
        # fine tuning (20) never worsens the relaxation's (13) solution on the true objective (4)
        caps = pr.weight_caps(priv, pr.sigma_threshold(net, priv))
        relaxed, _ = pr.gauss_seidel(pr.initial_weights(net), net, caps, fine=False, sweeps=2000, tol=1e-12)
        tuned, _ = pr.gauss_seidel(relaxed, net, caps, fine=True, sweeps=2000, tol=1e-12)
        assert pr.sigma_tv2(tuned, net) <= pr.sigma_tv2(relaxed, net) + 1e-15
        assert pr.sigma_tv2_relaxed(relaxed, net) <= pr.sigma_tv2_relaxed(tuned, net) + 1e-15
        # sigma update (10) leaves Algorithm 3 at sigma_thr (see colme.pricer.choices.CHOICES)
        alg3 = pr.pricer_optimise(net, priv, 1)
        assert alg3.sigma == pytest.approx(alg3.sigma_thr, rel=1e-12)
        assert pr.sigma_update(alg3.A, priv, alg3.sigma_thr) == pytest.approx(alg3.sigma_thr, rel=1e-12)


def test_theorem41_check_flags_a_violation():
    rng = np.random.default_rng(5)
    net, priv = random_instance(rng, 4)
    res = pr.pricer_optimise(net, priv, 10)
    eps = pr.link_epsilons(res.A, res.sigma, net, priv)
    caps = pr.weight_caps(priv, res.sigma)
    bound = np.isclose(res.A, caps) & (net.P > 0)
    assert bound.any()  # sigma_thr makes at least one row's caps binding
    np.testing.assert_allclose(eps[bound], priv.eps[bound], rtol=1e-9)
    A = res.A.copy()
    i, j = np.argwhere(bound)[0]
    A[i, j] *= 1.01
    assert not pr.privacy_report(A, res.sigma, net, priv)["ok"].all()
    assert pr.check_constraints(A, res.sigma, net, priv)["privacy"] > 0


@pytest.mark.parametrize("reciprocity", ["independent", "full"])
def test_algorithm3_against_scipy(reciprocity):
    """Small instances vs SLSQP from several starts.

    * Algorithm 3 = the best SLSQP point of (11) at its sigma = sigma_thr (rel. 1e-9);
    * the joint optimum (extension) = the best SLSQP point of (8) (rel. 1e-6);
    * Algorithm 3's gap to the best point of (8) is entirely sigma's: wherever it exceeds
      1e-4, SLSQP's best sigma is above sigma_thr (Fig. 3-like trust levels make this happen).
    """
    rng = np.random.default_rng(7 if reciprocity == "independent" else 6)
    gaps = []
    for eps_low, eps_high, d_max in ((0.5, 5.0, 20), (0.1, 1000.0, 4)):
        for n in (3, 4, 5):
            net, priv = random_instance(rng, n, reciprocity, eps_low=eps_low, eps_high=eps_high)
            d = int(rng.integers(1, d_max))
            alg3 = pr.pricer_optimise(net, priv, d)
            joint = pr.optimise_joint(net, priv, d)
            fixed, _, _ = pr.scipy_reference(net, priv, d, rng, starts=4, sigma=alg3.sigma_thr)
            best, _, best_sigma = pr.scipy_reference(net, priv, d, rng, starts=4)
            assert alg3.objective == pytest.approx(fixed, rel=1e-9)  # two solvers of (11), one optimum
            assert joint.objective <= best * (1 + 1e-6) + 1e-12
            assert alg3.objective >= joint.objective - 1e-12
            gap = alg3.objective / best - 1
            if gap > 1e-4:
                assert best_sigma > alg3.sigma_thr * (1 + 1e-4)
            gaps.append(gap)
    assert max(gaps) > 1e-2  # the gap is real on these instances (reported, not hidden)


@pytest.mark.parametrize("p_c, trusted", [(0.2, 5), (0.2, 8), (0.5, 5)])
def test_slsqp_meets_algorithm3_on_fig3s_instances(p_c, trusted):
    """The ablation pricer_fig3_solver's setting (config.yaml's Fig. 3) where SLSQP had
    stopped short, on the Xeon and the Zen 3 alike: SLSQP at sigma_thr, the caps as bounds,
    reaches Algorithm 3's value of (11) within 1e-9 (with the caps as inequalities in
    (alpha, sigma) it stopped 1e-9 to 2e-6 above it, by CPU and random starts)."""
    settings = shipped_figures()["pricer_fig3"]
    network, privacy = pr.fig3_instance(settings, p_c, trusted)
    alg3 = pr.pricer_optimise(network, privacy, settings["d"])
    rng = np.random.default_rng(3)
    value, _, _ = pr.scipy_reference(network, privacy, settings["d"], rng, sigma=alg3.sigma_thr)
    assert value == pytest.approx(alg3.objective, rel=1e-9)


def test_nonprivate_limit_is_collaborative_relaying():
    """eps = .inf: sigma = 0, weights unbiased, and the QP optimum of sigma_tv^2 alone (ColRel)."""
    rng = np.random.default_rng(8)
    for reciprocity in ("independent", "full"):
        net, _ = random_instance(rng, 4, reciprocity)
        res = pr.nonprivate_optimise(net, d=100)
        assert res.sigma == 0.0 and res.sigma_pr2 == 0.0
        assert np.abs(pr.unbiasedness_residual(res.A, net)).max() < 1e-12
        priv = pr.make_privacy(np.inf, 1e-3, 1.0, 4)
        best, _, _ = pr.scipy_reference(net, priv, 100, rng, starts=3, sigma=0.0)
        assert res.objective <= best * (1 + 1e-6)
        # eps -> inf: the joint optimum of (8) tends to ColRel; Algorithm 3 does not, because at
        # sigma = sigma_thr a uniform eps leaves the caps 1 / min_i sum_j p_j p_ij unchanged
        loose = pr.make_privacy(1e9, 1e-3, 1.0, 4)
        assert pr.optimise_joint(net, loose, 100).objective == pytest.approx(res.objective, rel=1e-4)
        alg3 = pr.pricer_optimise(net, loose, 100)
        caps = pr.weight_caps(loose, alg3.sigma)
        assert caps.max() == pytest.approx(1 / (net.p * net.P).sum(axis=1).min(), rel=1e-9)


# --------------------------------------------------------------------------- Monte Carlo


@pytest.mark.parametrize("reciprocity", ["independent", "full"])
def test_simulation_unbiased_and_matches_theorem32(reciprocity):
    rng = np.random.default_rng(9)
    n, d, draws = 6, 30, 40_000
    net, priv = random_instance(rng, n, reciprocity)
    res = pr.pricer_optimise(net, priv, d)
    X = pr.heavy_tailed_data(n, d, priv.R, rng)
    est = pr.simulate_estimates(res.A, res.sigma, net, X, draws, rng)
    err = est - X.mean(axis=0)
    # Lemma 3.1: every coordinate's mean error is 0 (max |t| over d coordinates, Bonferroni)
    t = err.mean(axis=0) / (err.std(axis=0, ddof=1) / math.sqrt(draws))
    assert np.abs(t).max() < Z
    sq = np.sum(err**2, axis=1)
    mse, se = sq.mean(), sq.std(ddof=1) / math.sqrt(draws)
    exact = pr.exact_mse(res.A, res.sigma, net, X)
    assert abs(mse - exact) < Z * se
    assert exact <= res.objective * (1 + 1e-12)  # Theorem 3.2
    assert mse <= res.objective + Z * se
    # worst case x_i = R e_1 attains the bound (4)
    Xw = np.zeros((n, d))
    Xw[:, 0] = priv.R
    assert pr.exact_mse(res.A, res.sigma, net, Xw) == pytest.approx(res.objective, rel=1e-12)


def test_per_link_noise_has_the_aggregate_law():
    rng = np.random.default_rng(10)
    net, priv = random_instance(rng, 4)
    res = pr.pricer_optimise(net, priv, 8)
    sigma = 3.0  # make the noise dominate
    X = pr.heavy_tailed_data(4, 8, 1.0, rng)
    a = pr.squared_errors(pr.simulate_estimates(res.A, sigma, net, X, 4000, rng, "per_link"), X)
    b = pr.squared_errors(pr.simulate_estimates(res.A, sigma, net, X, 4000, rng, "aggregate"), X)
    exact = pr.exact_mse(res.A, sigma, net, X)
    for v in (a, b):
        assert abs(v.mean() - exact) < Z * v.std(ddof=1) / math.sqrt(v.size)


def test_naive_simulation_matches_its_mse():
    rng = np.random.default_rng(11)
    net = pr.make_network([0.2, 0.9, 0.5], np.eye(3))
    X = pr.heavy_tailed_data(3, 20, 1.0, rng)
    sq = pr.squared_errors(pr.simulate_naive(net, X, 50_000, rng), X)
    assert abs(sq.mean() - pr.naive_mse(net, X)) < Z * sq.std(ddof=1) / math.sqrt(sq.size)


# --------------------------------------------------------------------------- figures


def test_fig3_table_small():
    rng = np.random.default_rng(12)
    table = pr.pricer_fig3_table(pricer_settings("trust", p_c=[0.5], trusted=[0, 2, 5], draws=3000), rng)
    assert {"curve", "trusted", "mse", "se", "runs", "kind", "p_c"} <= set(table.columns)
    alg3 = table[table.kind == "algorithm3"].set_index("trusted")["mse"]
    joint = table[table.kind == "joint"].set_index("trusted")["mse"]
    sim = table[table.kind == "simulated"].set_index("trusted")
    assert (joint <= alg3 + 1e-12).all()
    assert alg3.is_monotonic_decreasing and joint.is_monotonic_decreasing
    assert (np.abs(sim["mse"] - alg3) < Z * sim["se"]).all()
    assert (sim["runs"] == 3000).all()


def test_fig4_table_small():
    rng = np.random.default_rng(13)
    table = pr.pricer_fig4_table(
        pricer_settings("connectivity", d=50, realisations=6, draws=100), rng)
    assert set(table["curve"]) == {"naive", "PriCER", "naive exact", "PriCER exact", "PriCER bound"}
    wide = table.pivot(index="good_nodes", columns="curve", values="mse")
    assert (wide["PriCER exact"] < wide["naive exact"]).all()  # the paper's Fig. 4 claim
    assert (wide["PriCER exact"] <= wide["PriCER bound"]).all()
    sims = table[table.kind == "simulated"]
    assert (sims["runs"] == 6).all() and sims["se"].notna().all()


def test_feasible_set_and_plots(tmp_path):
    table = pr.feasible_set_table(pricer_settings("feasible_set"))
    feas = table[table.curve.str.startswith("feasible")]
    assert not (feas.sigma_factor < 1).any()  # below sigma_thr the box misses H in some row
    net, _ = pr.fig2_instance(pricer_settings("feasible_set"))
    for (i, _), pts in feas.groupby(["row", "curve"]):
        g = net.p * net.P[i - 1]
        np.testing.assert_allclose(g[0] * pts.alpha_1 + g[1] * pts.alpha_2, 1.0)
    meta = {"figure": "t", "interpretations": list(PRICER)}
    pdf, png = tmp_path / "f.pdf", tmp_path / "f.png"
    pr.plot_pricer(table, "feasible_set", "Fig. 2", meta, pdf, png)
    assert png.stat().st_size > 0 and b"/Subject" in pdf.read_bytes()
    small = pd.DataFrame({"curve": ["naive", "PriCER"] * 2, "kind": "simulated", "good_nodes": [0, 0, 1, 1],
                          "mse": [0.1, 0.05, 0.08, 0.03], "se": 0.001, "runs": 5})
    pr.plot_pricer(small, "connectivity", "Fig. 4", meta, pdf, png)
    json.dumps(meta)


# --------------------------------------------------------------------------- interpretation variants


def _enumerated_tv2(A, p, P, E):
    """n = 2: Var(sum_i c_i) / n^2 by enumerating (tau_1, tau_2, tau_12, tau_21) with
    P(tau_12 = tau_21 = 1) = E (App. C's definition of sigma_tv^2, no formula of the code)."""
    pair = {(1, 1): E, (1, 0): P[0, 1] - E, (0, 1): P[1, 0] - E, (0, 0): 1 - P[0, 1] - P[1, 0] + E}
    outcomes = []
    for t1 in (0, 1):
        for t2 in (0, 1):
            for (t12, t21), q in pair.items():
                prob = (p[0] if t1 else 1 - p[0]) * (p[1] if t2 else 1 - p[1]) * q
                total = t1 * A[0, 0] + t2 * t12 * A[0, 1] + t2 * A[1, 1] + t1 * t21 * A[1, 0]
                outcomes.append((prob, total))
    mean = sum(q * s for q, s in outcomes)
    return sum(q * (s - mean) ** 2 for q, s in outcomes) / 4


def test_reciprocity_hand_case_objective_rows_and_simulation():
    """E_{1,2} = p_12 p_21 = 0.18 (independent) or min(p_12, p_21) = 0.3 (full) enters (4), the
    row updates (15)/(20) and the link sampler alike; n = 2 by enumeration and by hand."""
    p, P = np.array([0.5, 0.8]), np.array([[1.0, 0.6], [0.3, 1.0]])
    A = np.array([[0.7, 1.2], [0.4, 0.9]])
    tv = {}
    for reciprocity, E in (("independent", 0.18), ("full", 0.3)):
        net = pr.make_network(p, P, reciprocity=reciprocity)
        assert net.E[0, 1] == net.E[1, 0] == pytest.approx(E, abs=1e-15)
        tv[reciprocity] = pr.sigma_tv2(A, net)
        assert tv[reciprocity] == pytest.approx(_enumerated_tv2(A, p, P, E), rel=1e-12)
        # (15) and (20): b_j + D_j alpha_ij = d(n^2 sigma_tv^2) / d alpha_ij / (p_j p_ij), for the
        # relaxation (13) and for (4), so the row updates use the same E as the objective
        for fine, value in ((True, pr.sigma_tv2), (False, pr.sigma_tv2_relaxed)):
            for i in range(2):
                b, D = pr.optimisation._row_terms(i, A, net, fine)
                for j in range(2):
                    h = 1e-6
                    Ap, Am = A.copy(), A.copy()
                    Ap[i, j] += h
                    Am[i, j] -= h
                    grad = 4 * (value(Ap, net) - value(Am, net)) / (2 * h) / (net.p[j] * net.P[i, j])
                    assert b[j] + D[j] * A[i, j] == pytest.approx(grad, rel=1e-7)
        # simulation (sigma = 0, x_i = 1): Var(x_hat) = sigma_tv^2
        est = pr.simulate_estimates(A, 0.0, net, np.ones((2, 1)), 400_000, np.random.default_rng(21))[:, 0]
        dev = (est - est.mean()) ** 2
        assert abs(dev.mean() - tv[reciprocity]) < Z * dev.std(ddof=1) / math.sqrt(dev.size)
    # the reciprocity term of (4) by hand: 2 p_1 p_2 (0.3 - 0.18) alpha_12 alpha_21 / n^2
    assert tv["full"] - tv["independent"] == pytest.approx(2 * 0.5 * 0.8 * 0.12 * 1.2 * 0.4 / 4, rel=1e-12)


def test_unconstrained_self_link_n1_by_hand():
    """n = 1, p = 1/2: with eps_11 = .inf alpha_11 = 1/p = 2 needs no noise (sigma_thr = 0,
    objective (1 - p)/p = 1); with eps_11 = 1000 it is capped at w_11 = eps sigma / (f 2R)."""
    net = pr.make_network([0.5], [[1.0]])
    f = math.sqrt(2 * math.log(1.25 / 1e-3))
    free, capped = (pr.make_privacy(eps, 1e-3, 1.0, 1) for eps in (math.inf, 1000.0))
    assert pr.sigma_threshold(net, free) == 0.0
    res = pr.pricer_optimise(net, free, d=3)
    assert res.sigma == 0.0 and res.A[0, 0] == pytest.approx(2.0, rel=1e-14)
    assert res.objective == pytest.approx(1.0, rel=1e-14)
    assert pr.privacy_report(res.A, res.sigma, net, free)["ok"].all()
    thr = 2 * f / (0.5 * 1000.0)
    res = pr.pricer_optimise(net, capped, d=3)
    assert res.sigma == pytest.approx(thr, rel=1e-12) and res.A[0, 0] == pytest.approx(2.0, rel=1e-12)
    assert res.objective == pytest.approx(1.0 + 0.5 * thr**2 * 3, rel=1e-12)
    # at a sigma below the finite cap's threshold only the unconstrained self link is feasible
    A, _ = pr.optimise_weights(net, free, 0.01)
    assert A[0, 0] == pytest.approx(2.0, rel=1e-14)
    w11 = pr.weight_caps(capped, 0.01)[0, 0]
    assert w11 == pytest.approx(1000.0 * 0.01 / (2 * f), rel=1e-14) and w11 < 2.0
    with pytest.raises(pr.PricerError, match="below sigma_thr"):
        pr.optimise_weights(net, capped, 0.01)


def test_unconstrained_self_link_n2_fig2_instance():
    """Fig. 2's n = 2 instance with eps_self = .inf: sigma_thr = 0 and Algorithm 3 returns
    A = diag(1/p_i), sigma = 0 (the links' caps are 0 at sigma = 0), objective
    (1/4) sum_i (1 - p_i)/p_i = 7/36; with eps_ii = 1 every alpha_ii stays within its cap."""
    s = pricer_settings("feasible_set")
    net, priv = pr.fig2_instance({**s, "eps_self": math.inf})
    res = pr.pricer_optimise(net, priv, s["d"])
    assert res.sigma_thr == 0.0 and res.sigma == 0.0
    np.testing.assert_allclose(res.A, np.diag([1 / 0.6, 1 / 0.9]), rtol=1e-13, atol=1e-15)
    assert res.objective == pytest.approx((0.4 / 0.6 + 0.1 / 0.9) / 4, rel=1e-12)
    assert max(pr.check_constraints(res.A, res.sigma, net, priv).values()) == 0.0
    assert pr.privacy_report(res.A, res.sigma, net, priv)["ok"].all()
    net, priv = pr.fig2_instance(s)  # as printed: eps_ii = 1
    res = pr.pricer_optimise(net, priv, s["d"])
    caps = pr.weight_caps(priv, res.sigma)
    assert res.sigma > 0 and np.all(np.diag(res.A) <= np.diag(caps) * (1 + 1e-12))
    assert res.A[0, 0] < 1 / 0.6  # the self cap binds: node 1 must relay
    # Fig. 2 itself needs a finite eps (boxes at multiples of sigma_thr): a clear error
    with pytest.raises(pr.PricerError, match="sigma_thr, which is 0"):
        pr.feasible_set_table({**s, "eps_self": math.inf})
    with pytest.raises(ConfigError, match=r"config key figures.figure.eps_self: inf is greater than"):
        figure_defaults("pricer", kind="feasible_set", eps_self=math.inf)


def test_unconstrained_self_link_changes_the_fig3_table():
    settings = pricer_settings("trust", p_c=[0.5], trusted=[0, 2, 5], draws=0)
    assert figure_defaults("pricer", kind="trust")["eps_self"] == 1000.0  # the paper's eps_ii
    paper = pr.pricer_fig3_table(settings, np.random.default_rng(0))
    free = pr.pricer_fig3_table({**settings, "eps_self": math.inf}, np.random.default_rng(0))
    assert list(free.columns) == list(paper.columns) and list(free.curve) == list(paper.curve)
    alg3 = free[free.kind == "algorithm3"]
    p = np.asarray(settings["p_server"])
    # Algorithm 3 stays at sigma_thr = 0: no noise, no collaboration, the same value for every k
    np.testing.assert_allclose(alg3["mse"], np.sum((1 - p) / p) / p.size**2, rtol=1e-12)
    assert (alg3["sigma"] == 0).all()
    joint = free[free.kind == "joint"].set_index("trusted")["mse"]
    assert joint.is_monotonic_decreasing and joint[5] < 0.5 * joint[0]
    assert not np.allclose(free["mse"], paper["mse"])
    assert (free["max_violation"] < 1e-9).all() and free["privacy_ok"].all()
    # the connectivity figure accepts it too: every node keeps its own x_i without noise
    net, priv = pr.fig4_instance(pricer_settings("connectivity", eps_self=math.inf), 3)
    assert pr.sigma_threshold(net, priv) == 0.0


def test_authors_trust_sets():
    """trust_pattern authors_code: the nested sets of the authors' loop (m -> i-1, i+1..i+m)."""
    n = 10
    assert [pr.trust_offsets(n, k, "authors_code") for k in range(4)] == [[], [1], [1, -1], [1, -1, 2]]
    assert sorted(o % n for o in pr.trust_offsets(n, n - 1, "authors_code")) == list(range(1, n))
    for m in range(n - 1):  # the authors' loop, written out: eps1 on i+j+1 and i+j-1, j < m
        trusted = np.zeros((n, n), dtype=bool)
        for i in range(n):
            for j in range(m):
                trusted[i, (i + j + 1) % n] = trusted[i, (i + j - 1) % n] = True
        np.fill_diagonal(trusted, False)
        k = m + 1 if m else 0
        np.testing.assert_array_equal(pr.trust_matrix(n, k, "authors_code"), trusted)
    # differs from ring_nearest from k = 4 on (i+3 instead of i-2)
    assert (pr.trust_matrix(n, 3, "authors_code") == pr.trust_matrix(n, 3, "ring_nearest")).all()
    assert not (pr.trust_matrix(n, 4, "authors_code") == pr.trust_matrix(n, 4, "ring_nearest")).all()
    with pytest.raises(pr.PricerError, match="'ring_nearest', 'ring_forward', 'authors_code'"):
        pr.trust_matrix(n, 2, "authors")
    with pytest.raises(ConfigError, match=r"figures.figure.trust_pattern: 'authors' is not allowed; "
                       r"allowed values: \['ring_nearest', 'ring_forward', 'authors_code'\]"):
        figure_defaults("pricer", kind="trust", trust_pattern="authors")
    with pytest.raises(ConfigError, match=r"figures.figure.trust_pattern: 'authors' is not allowed"):
        figure_defaults("pricer", kind="connectivity", trust_pattern="authors")


def test_shipped_pricer_variants():
    """The derived figures are pricer_fig3 plus exactly their overrides; pricer_fig3 keeps the
    paper's values; the authors' figure uses the blockage model E = P."""
    figures = shipped_figures()
    base = figures["pricer_fig3"]
    assert (base["eps_self"], base["trust_pattern"], base["reciprocity"], base["d"], base["p_c"]) == (
        1000.0, "ring_nearest", "independent", 10, [0.2, 0.5, 0.8])
    variants = {
        "pricer_fig3_no_self_privacy": {"eps_self": math.inf},
        "pricer_fig3_authors_code": {"d": 128, "p_c": [0.9], "trust_pattern": "authors_code",
                                     "reciprocity": "full"},
    }
    for name, overrides in variants.items():
        figure = figures[name]
        assert figure["title"].startswith("Variant:")
        assert {k for k in figure if figure[k] != base[k]} == {*overrides, "title"}, name
        assert {k: figure[k] for k in overrides} == overrides
    assert figures["pricer_fig3_authors_code"]["title"].startswith("Variant: authors' code parameters")
    for k in (0, 2, 9):
        net, _ = pr.fig3_instance(figures["pricer_fig3_authors_code"], 0.9, k)
        np.testing.assert_array_equal(net.E, net.P)
    # every new choice is recorded in the engine's interpretations (each figure's metadata)
    text = " ".join(PRICER)
    for needle in ("eps_self: .inf", "pricer_fig3_no_self_privacy", "pricer_fig3_authors_code",
                   "rajarshisaha95/private-collaborative-relaying", "authors_code", "d = 128"):
        assert needle in text


def test_algorithm3s_infeasible_cases_are_refused_with_their_numbers():
    """The compiled row step's error paths: caps that cannot reach the target (with the
    reach and the target), an unknown lambda method, and a row whose node reaches nobody."""
    g, b, D = np.array([0.5, 0.5]), np.zeros(2), np.ones(2)
    with pytest.raises(pr.PricerError, match=r"caps allow sum p_j p_ij alpha_ij <= 0\.3 < 1; sigma is below"):
        pr.solve_lambda(g, b, D, np.array([0.2, 0.4]), 1.0)
    with pytest.raises(pr.PricerError, match=r"method='newton': allowed values are 'breakpoints', 'bisection'"):
        pr.solve_lambda(g, b, D, np.array([2.0, 2.0]), 1.0, "newton")
    net = pr.make_network([0.5, 0.5], [[1.0, 0.5], [0.5, 1.0]])
    caps = np.full((2, 2), 0.1)  # sum p_j p_0j caps = 0.5 * 0.1 + 0.25 * 0.1 = 0.075 < 1
    with pytest.raises(pr.PricerError, match=r"infeasible row 0: the privacy caps allow .* <= 0\.075 < 1"):
        pr.gauss_seidel(pr.initial_weights(net), net, caps, fine=False, sweeps=5, tol=1e-12)
    lonely = pr.make_network([0.0, 0.5], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(pr.PricerError, match=r"infeasible: node 0 cannot meet \(3\)"):
        pr.row_update(0, pr.initial_weights(lonely), lonely, np.full((2, 2), np.inf), fine=False)
