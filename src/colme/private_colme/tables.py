"""Private-ColME's own tables (Yakimenka et al. 2024, arXiv:2411.07094): the exact oracle
curves (Proposition 3, Remark 3) and the privacy accounting of every mechanism and noise of
a panel."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..aggregation import analytic_frame
from ..baselines import local_mse
from ..privacy import composed_privacy
from .mechanisms import pm2_levels
from .oracle import ideal_all_to_all_mse, prop3_oracle_mse, remark3_rrr_oracle_mse
from .spec import ColmeCurve, ColmeSpec


def curve_fields(spec: ColmeSpec, curve: ColmeCurve) -> dict:
    """The table columns describing a Private-ColME curve (beyond its name)."""
    return {
        "rule": "oracle" if curve.oracle else "test",
        "eps": spec.eps,
        "schedule": curve.schedule,
        "mechanism": curve.mechanism,
        "weights": curve.weights,
        "noise": curve.noise,
    }


def oracle_table(spec: ColmeSpec) -> pd.DataFrame:
    """Analytic tidy table: Proposition 3 (RR) / Remark 3 (rRR) per curve, Local, Ideal.

    Same columns as the simulated tables; ``kind`` is ``analytic``, ``se`` 0 (exact up to
    quadrature error) and ``runs`` 0.
    """
    t = np.asarray(spec.t_record, dtype=np.int64)
    sigma = spec.population.sigma
    n_classes = len(spec.population.means)
    frames = []
    for curve in spec.curves:
        args = (spec.n_agents, n_classes, sigma, spec.sigma_dp(curve), curve.mechanism, curve.weights, t)
        if curve.schedule == "rr":
            analytic_mse = prop3_oracle_mse(*args, pm2_variance=spec.pm2_variance)
        else:
            analytic_mse = remark3_rrr_oracle_mse(*args)
        fields = {**curve_fields(spec, curve), "rule": "prop3" if curve.schedule == "rr" else "remark3"}
        frames.append(pd.DataFrame({"curve": curve.name, "kind": "analytic", **fields, "t": t,
                                    "mse": analytic_mse, "se": 0.0, "runs": 0}))
    local = local_mse(t, sigma)
    frames.append(analytic_frame("Local", "local", math.nan, t, local, np.zeros_like(local), 0))
    ideal = ideal_all_to_all_mse(spec.n_agents, n_classes, sigma, t)
    frames.append(analytic_frame("Ideal", "ideal", math.nan, t, ideal, np.zeros_like(ideal), 0))
    return pd.concat(frames, ignore_index=True)


def privacy_table(spec: ColmeSpec) -> pd.DataFrame:
    """Per mechanism and noise: each p-sum's (eps, delta), sigma_DP, and what a sample gets.

    PM-I puts every sample in one p-sum; PM-II in up to floor(log2 k) + 1 dyadic blocks
    after k releases to the same agent (basic composition, Sec. IV-B).  ``sample_*`` is the
    worst case over schedules (rRR can query one agent every step: k <= t_max);
    ``sample_*_rr`` is what a sample gets under RR, k = ceil(t_max / (M - 1)).  Sch-Var-1
    rows add the partial-variance release each sample enters (half the budget).  Classes
    with different laws get a row each (column ``class``): their supports, so their
    sigma_DP, differ.
    """
    rows = []
    per_class = not spec.population.one_law
    schemes = sorted({(c.mechanism, c.noise, c.variance == "schvar1") for c in spec.curves})
    for mechanism, noise, releases_variance in schemes:
        curve = next(
            c for c in spec.curves
            if (c.mechanism, c.noise, c.variance == "schvar1") == (mechanism, noise, releases_variance)
        )
        eps, delta = spec.psum_budget(curve)
        delta = delta if noise == "gaussian" else 0.0
        rr_releases = -(-spec.t_max // (spec.n_agents - 1))
        uses = 1 if mechanism == "pm1" else pm2_levels(spec.t_max)
        uses_rr = 1 if mechanism == "pm1" else pm2_levels(rr_releases)
        # Sch-Var-1: each sample also enters one partial-variance release with the other half
        extra = (eps, delta) if releases_variance else (0.0, 0.0)
        total_eps, total_delta = composed_privacy(eps, delta, uses)
        rr_eps, rr_delta = composed_privacy(eps, delta, uses_rr)
        sigma_dps = spec.class_sigma_dp(curve)
        for cls in range(len(sigma_dps)) if per_class else (None,):
            rows.append({
                "mechanism": mechanism, "noise": noise, "variance_releases": releases_variance,
                "psum_eps": eps, "psum_delta": delta, **({} if cls is None else {"class": cls}),
                "sigma_dp": sigma_dps[cls or 0],
                "psums_per_sample": uses,
                "sample_eps": total_eps + extra[0], "sample_delta": total_delta + extra[1],
                "psums_per_sample_rr": uses_rr,
                "sample_eps_rr": rr_eps + extra[0], "sample_delta_rr": rr_delta + extra[1],
            })
    return pd.DataFrame(rows)
