"""PriCER figures (Figs. 2-4): instances, tables and plots, and the choices made where the paper is silent."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .bounds import check_constraints, exact_mse, naive_mse
from .model import Network, PricerError, Privacy, make_network, make_privacy
from .optimisation import PricerResult, optimise_joint, pricer_optimise, scipy_reference
from .privacy import privacy_report, sigma_threshold, weight_caps
from .simulation import simulate_estimates, simulate_naive, squared_errors


def table_for(settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Dispatch on ``kind``: Fig. 3 (trust), Fig. 4 (connectivity) or Fig. 2 (feasible_set)."""
    s = settings
    if s["kind"] == "trust":
        return pricer_fig3_table(s, rng)
    if s["kind"] == "connectivity":
        return pricer_fig4_table(s, rng)
    return feasible_set_table(s)



#: Values of ``trust_pattern`` (the schema's enum lists the same).
TRUST_PATTERNS = ("ring_nearest", "ring_forward", "authors_code")


def trust_offsets(n: int, k: int, pattern: str = "ring_nearest") -> list[int]:
    """The k ring offsets o (node i trusts i + o mod n), in the order they are added.

    ``ring_nearest``: +1, -1, +2, -2, ...; ``ring_forward``: +1, ..., +k;
    ``authors_code``: the first k of +1, -1, +2, +3, ..., +(n-2), the sets the authors'
    public code builds (github.com/rajarshisaha95/private-collaborative-relaying,
    scripts/testbench.py at 6be19bc: ``for j in range(m): E[i][(i+j+1) % n] = E[i][(i+j-1) % n]
    = eps1``, i.e. {i-1} and i+1, ..., i+m, so m+1 neighbours for m >= 1; k = 1, which
    that loop cannot give, is {i+1} here).
    """
    if not 0 <= k <= n - 1:
        raise PricerError(f"infeasible trust setting: {k} trusted neighbours with n = {n} nodes (need 0 <= k <= n-1)")
    if pattern == "ring_nearest":
        return [s * (r // 2 + 1) for r, s in zip(range(k), [1, -1] * n, strict=False)]
    if pattern == "ring_forward":
        return list(range(1, k + 1))
    if pattern == "authors_code":
        return [1, -1, *range(2, n - 1)][:k]
    raise PricerError(f"trust_pattern={pattern!r}: allowed values are {', '.join(map(repr, TRUST_PATTERNS))}")


def trust_matrix(n: int, k: int, pattern: str = "ring_nearest") -> np.ndarray:
    """Boolean T with T[i, j] = node i trusts node j (i != j), k neighbours per node.

    The trusted neighbours are i + o (mod n) for the offsets o of ``trust_offsets``.
    """
    offsets = trust_offsets(n, k, pattern)
    T = np.zeros((n, n), dtype=bool)
    for off in offsets:
        T[np.arange(n), (np.arange(n) + off) % n] = True
    return T


def trust_privacy(T: np.ndarray, eps_high, eps_low, eps_self, delta, R) -> Privacy:
    """eps_ij = eps_high if i trusts j, eps_low otherwise, eps_ii = eps_self (Sec. VI)."""
    n = T.shape[0]
    eps = np.where(T, float(eps_high), float(eps_low))
    np.fill_diagonal(eps, float(eps_self))
    return make_privacy(eps, delta, R, n)


def fig3_instance(settings: dict, p_c: float, k: int) -> tuple[Network, Privacy]:
    """Sec. VI Fig. 3: Erdos-Renyi P_ij = p_c, k trusted ring neighbours per node."""
    s = settings
    p = np.asarray(s["p_server"], dtype=float)
    n = p.size
    P = np.full((n, n), float(p_c))
    np.fill_diagonal(P, 1.0)
    network = make_network(p, P, reciprocity=s["reciprocity"])
    T = trust_matrix(n, k, s["trust_pattern"])
    return network, trust_privacy(T, s["eps_high"], s["eps_low"], s["eps_self"], s["delta"], s["R"])


def solution_checks(res: PricerResult, network: Network, privacy: Privacy) -> dict:
    """Table columns certifying a solution: largest violation of (8)'s constraints, and whether
    every link meets its Theorem 4.1 target."""
    return {
        "max_violation": max(check_constraints(res.A, res.sigma, network, privacy).values()),
        "privacy_ok": bool(privacy_report(res.A, res.sigma, network, privacy)["ok"].all()),
    }


def pricer_fig3_table(settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Fig. 3: objective of (8) vs the number of trusted neighbours, one curve per p_c.

    Rows: Algorithm 3 (curve ``PriCER p_c=...``, kind ``algorithm3``), the joint optimum of
    (8) (``joint``, extension), with ``reference_solver`` the optimum of (11) at
    Algorithm 3's sigma = sigma_thr by SLSQP (``reference``; its random starts from a
    child of ``rng``, so the other rows' draws are the same with or without it) and
    Algorithms 1-2 simulated on the worst-case data x_i = R e_1 (``simulated``; mean
    squared error, se, runs).
    """
    s = settings
    n = len(s["p_server"])
    ks = list(range(n)) if s["trusted"] is None else [int(k) for k in s["trusted"]]
    starts = rng.spawn(1)[0] if s.get("reference_solver") else None
    rows = []
    for p_c in s["p_c"]:
        for k in ks:
            network, privacy = fig3_instance(s, p_c, k)
            res = pricer_optimise(network, privacy, s["d"])
            common = {"p_c": p_c, "trusted": k}
            rows.append({"curve": f"PriCER p_c={p_c:g}", "kind": "algorithm3", **common, "mse": res.objective,
                         "se": np.nan, "runs": 0, "sigma": res.sigma, "sigma_tv2": res.sigma_tv2,
                         "sigma_pr2": res.sigma_pr2, **solution_checks(res, network, privacy)})
            if s["joint_optimum"]:
                joint = optimise_joint(network, privacy, s["d"])
                rows.append({"curve": f"joint optimum p_c={p_c:g}", "kind": "joint", **common,
                             "mse": joint.objective, "se": np.nan, "runs": 0, "sigma": joint.sigma,
                             "sigma_tv2": joint.sigma_tv2, "sigma_pr2": joint.sigma_pr2,
                             **solution_checks(joint, network, privacy)})
            if starts is not None:
                value, _, _ = scipy_reference(network, privacy, s["d"], starts, sigma=res.sigma_thr)
                rows.append({"curve": f"SLSQP at sigma_thr p_c={p_c:g}", "kind": "reference", **common,
                             "mse": value, "se": np.nan, "runs": 0, "sigma": res.sigma_thr})
            if s["draws"]:
                X = np.zeros((n, s["d"]))
                X[:, 0] = s["R"]
                err = squared_errors(simulate_estimates(res.A, res.sigma, network, X, s["draws"], rng), X)
                rows.append({"curve": f"simulated p_c={p_c:g}", "kind": "simulated", **common,
                             "mse": err.mean(), "se": err.std(ddof=1) / math.sqrt(err.size),
                             "runs": err.size, "sigma": res.sigma, "sigma_tv2": np.nan, "sigma_pr2": np.nan})
    return pd.DataFrame(rows)


def heavy_tailed_data(n: int, d: int, R: float, rng: np.random.Generator, normalise: str = "per_node") -> np.ndarray:
    """Sec. VI Fig. 4 data: N(0, 1)^3 per coordinate, normalised so that ||x_i|| <= R.

    ``per_node``: every x_i rescaled to norm R; ``global``: all divided by max_i ||x_i|| / R.
    """
    X = rng.standard_normal((n, d)) ** 3
    norms = np.linalg.norm(X, axis=1)
    if normalise == "per_node":
        return X * (R / norms)[:, None]
    if normalise == "global":
        return X * (R / norms.max())
    raise PricerError(f"normalise={normalise!r}: allowed values are 'per_node', 'global'")


def good_nodes(n: int, g: int, placement: str = "spread") -> np.ndarray:
    """Indices of the g good-connectivity nodes: evenly spread on the ring, or the first g."""
    if not 0 <= g <= n:
        raise PricerError(f"{g} good nodes with n = {n}")
    if placement == "spread":
        return np.unique(np.floor(np.arange(g) * n / g).astype(int)) if g else np.array([], dtype=int)
    if placement == "first":
        return np.arange(g)
    raise PricerError(f"good_placement={placement!r}: allowed values are 'spread', 'first'")


def fig4_instance(settings: dict, g: int) -> tuple[Network, Privacy]:
    """Sec. VI Fig. 4: g good nodes (p_good), others p_bad; trusted links P_ij = p_trusted."""
    s = settings
    n = int(s["n_nodes"])
    p = np.full(n, float(s["p_bad"]))
    p[good_nodes(n, g, s["good_placement"])] = float(s["p_good"])
    T = trust_matrix(n, int(s["trusted"]), s["trust_pattern"])
    P = np.where(T, float(s["p_trusted"]), float(s["p_untrusted"]))
    np.fill_diagonal(P, 1.0)
    network = make_network(p, P, reciprocity=s["reciprocity"])
    return network, trust_privacy(T, s["eps_high"], s["eps_low"], s["eps_self"], s["delta"], s["R"])


def pricer_fig4_table(settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Fig. 4: MSE vs the number of good-connectivity nodes, naive vs PriCER.

    Per x: Algorithm 3 once; then ``realisations`` data sets, each averaging ``draws``
    link/noise draws.  Curves: naive and PriCER simulated (mean, se over realisations,
    runs = realisations); their exact expectations given the data (``*_exact``); Theorem 3.2's
    bound (``PriCER bound``).
    """
    s = settings
    n, d, R = int(s["n_nodes"]), int(s["d"]), float(s["R"])
    rows = []
    for g in range(n + 1):
        network, privacy = fig4_instance(s, g)
        res = pricer_optimise(network, privacy, d)
        sims = {"naive": [], "PriCER": []}
        exact = {"naive": [], "PriCER": []}
        for _ in range(int(s["realisations"])):
            X = heavy_tailed_data(n, d, R, rng, s["normalise"])
            sims["naive"].append(squared_errors(simulate_naive(network, X, s["draws"], rng), X).mean())
            est = simulate_estimates(res.A, res.sigma, network, X, s["draws"], rng)
            sims["PriCER"].append(squared_errors(est, X).mean())
            exact["naive"].append(naive_mse(network, X))
            exact["PriCER"].append(exact_mse(res.A, res.sigma, network, X))
        runs = int(s["realisations"])
        for name in ("naive", "PriCER"):
            for curve, values, kind in ((name, sims[name], "simulated"), (f"{name} exact", exact[name], "exact")):
                v = np.asarray(values)
                rows.append({"curve": curve, "kind": kind, "good_nodes": g, "mse": v.mean(),
                             "se": v.std(ddof=1) / math.sqrt(runs) if runs > 1 else np.nan, "runs": runs,
                             "draws": s["draws"] if kind == "simulated" else 0, "sigma": res.sigma})
        rows.append({"curve": "PriCER bound", "kind": "bound", "good_nodes": g, "mse": res.objective,
                     "se": np.nan, "runs": 0, "draws": 0, "sigma": res.sigma,
                     **solution_checks(res, network, privacy)})
    return pd.DataFrame(rows)


def fig2_instance(settings: dict) -> tuple[Network, Privacy]:
    """The n = 2 instance of Fig. 2."""
    s = settings
    P = np.array([[1.0, s["p_link"]], [s["p_link"], 1.0]])
    network = make_network(s["p_server"], P)
    eps = np.array([[s["eps_self"], s["eps_link"]], [s["eps_link"], s["eps_self"]]], dtype=float)
    return network, make_privacy(eps, s["delta"], s["R"], 2)


def feasible_set_table(settings: dict) -> pd.DataFrame:
    """Fig. 2: for each row i of A (n = 2), the hyperplane H of (3) in the positive quadrant,
    the privacy box B(sigma) and their intersection, for sigma = factor x sigma_thr; plus
    Algorithm 3's optimum row.  Columns: curve, row, sigma, vertex, alpha_1, alpha_2.
    """
    s = settings
    network, privacy = fig2_instance(s)
    sigma_thr = sigma_threshold(network, privacy)
    if sigma_thr == 0:  # the schema keeps eps_self and eps_link finite for this kind
        raise PricerError(
            f"eps_self={s['eps_self']}, eps_link={s['eps_link']}: Fig. 2 draws boxes at multiples of "
            "sigma_thr, which is 0 when a link with p_j p_ij > 0 has no privacy constraint (.inf)"
        )
    res = pricer_optimise(network, privacy, s["d"])
    rows = []

    def add(curve, i, sigma, points):
        for v, (a1, a2) in enumerate(points):
            rows.append({"curve": curve, "row": i + 1, "sigma": sigma, "sigma_factor": sigma / sigma_thr,
                         "vertex": v, "alpha_1": a1, "alpha_2": a2})

    for i in range(2):
        g = network.p * network.P[i]
        add("hyperplane", i, np.nan, [(1 / g[0], 0.0), (0.0, 1 / g[1])])
        for factor in s["sigma_factors"]:
            sigma = factor * sigma_thr
            cap = weight_caps(privacy, sigma)[i]
            add(f"box sigma={factor:g} sigma_thr", i, sigma,
                [(0, 0), (cap[0], 0), (cap[0], cap[1]), (0, cap[1]), (0, 0)])
            # intersection of g0 a1 + g1 a2 = 1 with the box: a1 in [lo, hi]
            lo = max(0.0, (1 - g[1] * cap[1]) / g[0])
            hi = min(cap[0], 1 / g[0])
            if lo <= hi * (1 + 1e-12):
                add(f"feasible sigma={factor:g} sigma_thr", i, sigma,
                    [(lo, (1 - g[0] * lo) / g[1]), (hi, (1 - g[0] * hi) / g[1])])
        add("Algorithm 3 optimum", i, res.sigma, [tuple(res.A[i])])
    return pd.DataFrame(rows)




def plot_pricer(table: pd.DataFrame, kind: str, title: str, metadata: dict, pdf: Path, png: Path) -> None:
    """Render Fig. 2, 3 or 4 (``kind``: feasible_set, trust, connectivity) to PDF + PNG.

    ``metadata`` (settings, interpretations, versions, timings) goes into the PDF Subject.
    """
    # lazy: matplotlib, only where a figure is drawn
    import matplotlib.pyplot as plt
    import seaborn as sns

    from ..plotting import palette, save_figure, wrapped  # lazy: as above

    sns.set_theme(style="whitegrid", context="paper")
    if kind == "feasible_set":
        fig, axes = plt.subplots(1, 2, figsize=(8.0, 4.0))
        factors = sorted(table["sigma_factor"].dropna().unique())
        colours = palette(factors)
        for i, ax in enumerate(axes, start=1):
            part = table[table["row"] == i]
            for curve, pts in part.groupby("curve", sort=False):
                f = pts["sigma_factor"].iloc[0]
                if curve == "hyperplane":
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "k-", lw=1, label="unbiasedness (3)")
                elif curve.startswith("box"):
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "--", color=colours[f], lw=1,
                            label=rf"privacy box, $\sigma={f:g}\,\sigma_{{thr}}$")
                elif curve.startswith("feasible"):
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "-o", color=colours[f], lw=4, ms=5, alpha=0.6)
                else:
                    ax.plot(pts["alpha_1"], pts["alpha_2"], "r*", ms=10, label="Algorithm 3")
            ax.set_xlabel(rf"$\alpha_{{{i}1}}$")
            ax.set_ylabel(rf"$\alpha_{{{i}2}}$")
            ax.set_title(f"row i = {i}", fontsize=9)
            ax.set_xlim(left=0)
            ax.set_ylim(bottom=0)
        axes[0].legend(fontsize=7)
    else:
        fig, ax = plt.subplots(figsize=(6.4, 4.6))
        xcol = "trusted" if kind == "trust" else "good_nodes"
        if kind == "trust":
            pcs = sorted(table["p_c"].unique())
            colours = palette(pcs)
            for (pc, k), rows in table.groupby(["p_c", "kind"], sort=False):
                style = {"algorithm3": ("-o", 1.4), "joint": (":", 1.2), "simulated": ("x", 0),
                         "reference": ("s", 0)}[k]
                if k == "simulated":
                    ax.errorbar(rows[xcol], rows["mse"], yerr=2 * rows["se"], fmt="x", color=colours[pc], ms=5)
                elif k == "reference":
                    ax.plot(rows[xcol], rows["mse"], "s", color=colours[pc], ms=6, mfc="none")
                else:
                    ax.plot(rows[xcol], rows["mse"], style[0], color=colours[pc], lw=style[1], ms=3)
            handles = [plt.Line2D([], [], color=colours[pc], lw=2, label=rf"$p_c={pc:g}$") for pc in pcs]
            if "reference" in set(table["kind"]):
                handles.append(plt.Line2D([], [], color="k", ls="", marker="s", mfc="none",
                                          label=r"(11) at $\sigma_{thr}$ by SLSQP (independent solver)"))
            handles += [plt.Line2D([], [], color="k", ls="-", marker="o", ms=3, label="Algorithm 3 (objective (8))"),
                        plt.Line2D([], [], color="k", ls=":", label="joint optimum of (8) (extension)"),
                        plt.Line2D([], [], color="k", ls="", marker="x",
                                   label=r"simulated, worst case $x_i=Re_1$ ($\pm 2$ se)")]
            ax.legend(handles=handles, fontsize=7)
            ax.set_xlabel("Number of trusted neighbours")
            ax.set_ylabel("Worst-case MSE")
        else:
            styles = {"naive": ("tab:red", "-o"), "PriCER": ("tab:blue", "-o"),
                      "naive exact": ("tab:red", ":"), "PriCER exact": ("tab:blue", ":"),
                      "PriCER bound": ("tab:blue", "--")}
            for curve, rows in table.groupby("curve", sort=False):
                colour, style = styles.get(curve, ("grey", "-"))
                if rows["kind"].iloc[0] == "simulated":
                    ax.errorbar(rows[xcol], rows["mse"], yerr=2 * rows["se"], fmt=style, color=colour,
                                ms=3, lw=1.4, label=f"{curve} (simulated, $\\pm 2$ se)")
                else:
                    ax.plot(rows[xcol], rows["mse"], style, color=colour, lw=1.2, label=curve)
            ax.legend(fontsize=7)
            ax.set_xlabel("Number of nodes with good connectivity")
            ax.set_ylabel("MSE")
        ax.set_yscale("log")
    fig.suptitle(wrapped(title, 88), fontsize=9)
    fig.tight_layout()
    save_figure(fig, title, metadata, pdf, png,
                keywords="PriCER; collaborative relaying; differential privacy; mean estimation")
