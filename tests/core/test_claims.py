"""Claim checks on synthetic tables with known answers, and the shipped claims file."""

import inspect
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from colme.claims import (
    CHECKS,
    CLAIM_KEYS,
    DIAGNOSIS_KEYS,
    DIAGNOSTICS_SUFFIX,
    EVIDENCE,
    INCONCLUSIVE,
    INDEPENDENT,
    NOT_REPRODUCED,
    REPRODUCED,
    agreement,
    below_level,
    bound_figures,
    bound_value,
    cannot_resolve,
    check,
    closeness,
    convergence,
    crossing,
    curve_rows,
    decisive_k,
    decreasing,
    diagnosis_counts,
    evaluate,
    exceeds,
    family_wise,
    gain,
    larger_abs_gap,
    larger_gap,
    load_claims,
    model_dependent,
    no_gain,
    ordering,
    read_inputs,
    resolving_power,
    roughness,
    smoother,
    table_figures,
    to_markdown,
    x_scanned,
)

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "workflow" / "claims.yaml"
TABLES = Path(os.environ.get("COLME_TABLES", ROOT / "docs" / "default" / "tables"))
T = np.arange(1, 101)


def table(runs=100, **curves):
    """A tidy table with curves given as name=(mse, se) over t = 1..100."""
    return pd.concat(
        pd.DataFrame({"curve": name, "t": T, "mse": mse, "se": se, "runs": runs})
        for name, (mse, se) in curves.items()
    )


def precise(factor):
    return factor / T, 0.001 / T


def noisy(factor):
    return factor / T, 0.5 / T


LOCAL = (1.0 / T, 0.0 * T)
SHRINKING = (1 + 100 / T**2) / T, 0.001 / T  # ratio to 1/T: 1.04 at mid-range, 1.01 at t_max
GROWING = (1 + T / 500) / T, 0.001 / T  # ratio 1.1 at mid-range, 1.2 at t_max


@pytest.mark.parametrize(
    "check, data, expected",
    [
        (ordering, table(A=precise(1), B=precise(2)), REPRODUCED),
        (ordering, table(A=precise(2), B=precise(1)), NOT_REPRODUCED),
        (ordering, table(A=noisy(1), B=noisy(1.1)), INCONCLUSIVE),
        (ordering, table(runs=1, A=(1 / T, np.nan * T), B=(2 / T, np.nan * T)), INCONCLUSIVE),
        (gain, table(A=precise(0.5), Local=LOCAL), REPRODUCED),
        (gain, table(A=precise(2), Local=LOCAL), NOT_REPRODUCED),
        (gain, table(A=noisy(0.9), Local=LOCAL), INCONCLUSIVE),
        (no_gain, table(A=precise(2), Local=LOCAL), REPRODUCED),
        (no_gain, table(A=precise(0.5), Local=LOCAL), NOT_REPRODUCED),
        (no_gain, table(A=noisy(1.1), Local=LOCAL), INCONCLUSIVE),
    ],
)
def test_ordering_gain_no_gain(check, data, expected):
    result = check(data, "A", "B") if check is ordering else check(data, "A")
    assert result.verdict == expected, result


@pytest.mark.parametrize(
    "curve, expected",
    [
        (SHRINKING, REPRODUCED),
        (precise(2), NOT_REPRODUCED),  # outside the tolerance at t_max
        (GROWING, NOT_REPRODUCED),  # within the tolerance but moving away from the oracle
        (noisy(1.1), INCONCLUSIVE),
    ],
)
def test_convergence(curve, expected):
    result = convergence(table(A=curve, oracle=precise(1)), "A", "oracle", tol=0.25)
    assert result.verdict == expected, result


@pytest.mark.parametrize(
    "curve, expected",
    [(precise(1.05), REPRODUCED), (precise(1.5), NOT_REPRODUCED), (noisy(1.1), INCONCLUSIVE)],
)
def test_closeness(curve, expected):
    result = closeness(table(A=curve, Ideal=precise(1)), "A", "Ideal", tol=0.25)
    assert result.verdict == expected, result


@pytest.mark.parametrize(
    "value, se, expected",
    [(1.93, 0.01, REPRODUCED), (2.3, 0.01, NOT_REPRODUCED), (1.95, 0.2, INCONCLUSIVE)],
)
def test_bound_value(value, se, expected):
    bound = pd.DataFrame(
        {"quantity": ["corollary1_mean_of_ratios"], "eps": [np.nan], "value": [value],
         "se": [se], "runs": [100]}
    )
    result = bound_value(bound, "corollary1_mean_of_ratios", paper=1.9)
    assert result.verdict == expected, result
    assert f"{value:.3f}" in result.measured


def exact(factor):
    """An analytic curve: se = 0 (runs = 0 in the table)."""
    return factor / T, 0.0 * T


@pytest.mark.parametrize(
    "check, data, expected",
    [
        (ordering, table(runs=0, A=exact(1), B=exact(1.001)), REPRODUCED),
        (ordering, table(runs=0, A=exact(1.001), B=exact(1)), NOT_REPRODUCED),
        (ordering, table(runs=0, A=exact(1), B=exact(1)), NOT_REPRODUCED),  # a tie
        (ordering, table(runs=0, A=exact(1), B=((1 + (T == 50)) / T, 0 * T)), NOT_REPRODUCED),
        (gain, table(runs=0, A=exact(0.99), Local=LOCAL), REPRODUCED),
        (gain, table(runs=0, A=exact(1.01), Local=LOCAL), NOT_REPRODUCED),
        (no_gain, table(runs=0, A=exact(1.01), Local=LOCAL), REPRODUCED),
        (no_gain, table(runs=0, A=exact(0.99), Local=LOCAL), NOT_REPRODUCED),
    ],
)
def test_exact_comparisons_are_never_inconclusive(check, data, expected):
    # A 0.1% difference is far below any Monte Carlo noise but exact: it decides.
    result = check(data, "A", "B", t_range=(0.0, 1.0)) if check is ordering else check(data, "A")
    assert result.verdict == expected, result
    assert "exact" in result.measured


@pytest.mark.parametrize(
    "check, curve, expected",
    [
        (gain, precise(0.4), REPRODUCED),  # well below: under half of Local
        (gain, precise(0.6), NOT_REPRODUCED),  # below Local, but not by a factor 2
        (gain, noisy(0.5), INCONCLUSIVE),
        (gain, exact(0.6), NOT_REPRODUCED),
        (no_gain, precise(0.6), REPRODUCED),  # not well below Local
        (no_gain, precise(0.4), NOT_REPRODUCED),
        (no_gain, noisy(0.5), INCONCLUSIVE),
    ],
)
def test_gain_with_a_margin(check, curve, expected):
    result = check(table(A=curve, Local=LOCAL), "A", factor=0.5)
    assert result.verdict == expected, result


def test_exact_convergence_and_closeness():
    flat = ((1.1 + 0 * T) / T, 0 * T)
    shrinking = ((1 + 10 / T) / T, 0 * T)
    growing = ((1 + T / 1000) / T, 0 * T)  # 1.05 at mid-range, 1.1 at t_max: within tol
    oracle = exact(1)
    cases = [(flat, REPRODUCED), (shrinking, REPRODUCED), (growing, NOT_REPRODUCED),
             (exact(1.3), NOT_REPRODUCED)]
    for curve, expected in cases:
        data = table(runs=0, A=curve, oracle=oracle)
        assert convergence(data, "A", "oracle").verdict == expected
    for factor, expected in [(1.2, REPRODUCED), (1.3, NOT_REPRODUCED)]:
        data = table(runs=0, A=exact(factor), Ideal=oracle)
        assert closeness(data, "A", "Ideal", tol=0.25).verdict == expected


def test_closeness_to_a_curve_of_another_figure():
    oracle = table(runs=0, **{"A oracle": exact(1)})
    for curve, expected in [
        (precise(1.05), REPRODUCED),
        (precise(1.2), NOT_REPRODUCED),
        (noisy(1), INCONCLUSIVE),
    ]:
        result = closeness(table(A=curve), "A", "A oracle", tol=0.1, other=oracle)
        assert result.verdict == expected, result
    # Only the t both figures record are compared.
    sparse = table(runs=0, **{"A oracle": exact(1)}).iloc[::7]
    result = closeness(table(A=precise(1.05)), "A", "A oracle", tol=0.1, other=sparse)
    assert result.verdict == REPRODUCED and "of 2 t" in result.measured, result


# PM-II non-MoM style: a decreasing curve with a multiplicative oscillation.
WIGGLE = 1 + 0.3 * (T % 4 == 0)


def test_roughness():
    assert roughness(pd.Series(1.0 / T)) == pytest.approx(0.0, abs=1e-12)  # monotone
    assert roughness(pd.Series([1.0, 2.0, 1.0])) == pytest.approx(2 * np.log(2))


@pytest.mark.parametrize(
    "smooth, rough, expected",
    [
        (exact(1), (WIGGLE / T, 0 * T), REPRODUCED),
        (((1 + 0.1 * (T % 4 == 0)) / T, 0 * T), (WIGGLE / T, 0 * T), REPRODUCED),
        (((1 + 0.2 * (T % 4 == 0)) / T, 0 * T), (WIGGLE / T, 0 * T), NOT_REPRODUCED),
        ((WIGGLE / T, 0 * T), exact(1), NOT_REPRODUCED),
        (exact(1), exact(2), NOT_REPRODUCED),  # nothing oscillates: nothing to smooth
        (precise(1), (WIGGLE / T, 0.001 / T), INCONCLUSIVE),  # Monte Carlo curves
    ],
)
def test_smoother(smooth, rough, expected):
    result = smoother(table(runs=0, S=smooth, R=rough), "S", "R", t_range=(0.0, 1.0), factor=0.5)
    assert result.verdict == expected, result


def gap_table(runs, factor, se=0.0):
    """Curve A at ``factor`` x Ideal (= 1/T), with relative standard error ``se``."""
    return table(runs=runs, A=(factor / T, se * factor / T), Ideal=exact(1))


@pytest.mark.parametrize(
    "mine, others, expected",
    [
        (gap_table(0, 10), gap_table(0, 3), REPRODUCED),  # ln 10 > 2 ln 3
        (gap_table(0, 8), gap_table(0, 3), NOT_REPRODUCED),  # ln 8 < 2 ln 3
        (gap_table(0, 9), gap_table(0, 3), NOT_REPRODUCED),  # a tie
        (gap_table(100, 10, 0.01), gap_table(100, 3, 0.01), REPRODUCED),
        (gap_table(100, 8, 0.01), gap_table(100, 3, 0.01), NOT_REPRODUCED),
        (gap_table(100, 10, 0.2), gap_table(100, 3, 0.2), INCONCLUSIVE),
        (gap_table(1, 10, np.nan), gap_table(1, 3, np.nan), INCONCLUSIVE),
    ],
)
def test_larger_gap(mine, others, expected):
    result = larger_gap(mine, "A", others, reference="Ideal", factor=2)
    assert result.verdict == expected, result


def abs_gap_table(runs, factor, ideal=1.0, se=0.0):
    """Curve A at ``factor`` x Ideal, Ideal = ``ideal`` / T; A's relative se ``se``."""
    return table(runs=runs, A=(factor * ideal / T, se * factor * ideal / T), Ideal=exact(ideal))


@pytest.mark.parametrize(
    "mine, others, expected",
    [
        # Ideal 6.7x larger (M = 30 vs 200), log gap smaller: absolute gap 6.7 x 2 > 2 x 4
        (abs_gap_table(0, 3, ideal=6.7), abs_gap_table(0, 5), REPRODUCED),
        # same Ideal: absolute gap 2 < 2 x 4, although the curves differ
        (abs_gap_table(0, 3), abs_gap_table(0, 5), NOT_REPRODUCED),
        (abs_gap_table(0, 9), abs_gap_table(0, 5), NOT_REPRODUCED),  # 8 = 2 x 4: a tie
        (abs_gap_table(100, 3, 6.7, 0.01), abs_gap_table(100, 5, se=0.01), REPRODUCED),
        (abs_gap_table(100, 3, 1.0, 0.01), abs_gap_table(100, 5, se=0.01), NOT_REPRODUCED),
        (abs_gap_table(100, 3, 3.0, 0.5), abs_gap_table(100, 5, se=0.5), INCONCLUSIVE),
        (abs_gap_table(1, 3, 6.7, np.nan), abs_gap_table(1, 5, se=np.nan), INCONCLUSIVE),
    ],
)
def test_larger_abs_gap(mine, others, expected):
    result = larger_abs_gap(mine, "A", others, reference="Ideal", factor=2)
    assert result.verdict == expected, result


def test_larger_abs_gap_and_larger_gap_can_disagree():
    """A panel with a 6.7x larger Ideal: smaller log gap, larger absolute gap."""
    mine, others = abs_gap_table(0, 3, ideal=6.7), abs_gap_table(0, 5)
    assert larger_gap(mine, "A", others, factor=2).verdict == NOT_REPRODUCED
    result = larger_abs_gap(mine, "A", others, factor=2)
    assert result.verdict == REPRODUCED and "absolute-gap ratio 3.35" in result.measured, result


@pytest.mark.parametrize(
    "curve, tol, expected",
    [
        ((1.03 / T, 0.03 / T), 0.1, REPRODUCED),  # a 3% offset inside 2 se = 6%, which resolves 10%
        ((1.03 / T, 0.03 / T), 0.05, INCONCLUSIVE),  # the same, but 2 se = 6% cannot resolve 5%
        ((1.0 / T, 0.3 / T), 0.1, INCONCLUSIVE),  # no offset, noise far too large: not "agreement"
        ((1.03 / T, 0.001 / T), 0.1, NOT_REPRODUCED),  # the 3% offset, resolved
        ((1.0 / T, 0.001 / T), 0.01, REPRODUCED),
        ((1.2 / T, 0.05 / T), 0.05, NOT_REPRODUCED),  # 20% offset, 2 se = 10%: significant anyway
        ((1.0 / T, np.nan * T), 0.1, INCONCLUSIVE),  # a single run
    ],
)
def test_agreement_needs_the_power_to_resolve_its_tolerance(curve, tol, expected):
    oracle = table(runs=0, **{"A oracle": exact(1)})
    result = agreement(table(A=curve), "A", "A oracle", tol=tol, tail=0.1, other=oracle)
    assert result.verdict == expected, result
    assert "resolution 2 se" in result.measured and f"2 se <= {tol:g}" in result.criterion


def test_agreement_of_exact_curves_and_within_one_table():
    assert agreement(table(runs=0, A=exact(1), B=exact(1)), "A", "B", tol=0.01).verdict == REPRODUCED
    assert agreement(table(runs=0, A=exact(1.01), B=exact(1)), "A", "B", tol=0.1).verdict == NOT_REPRODUCED


@pytest.mark.parametrize(
    "curve, tol, expected",
    [
        # 2 se / R = 0.06 everywhere: a curve equal to its oracle would be "close" at 0.1,
        # so the 0.08 offset, not the noise, is what keeps closeness at 0.1 undecided
        ((1.08 / T, 0.0324 / T), 0.1, NOT_REPRODUCED),
        # the same runs cannot resolve 0.05: even R = 1 would read inconclusive
        ((1.08 / T, 0.0324 / T), 0.05, REPRODUCED),
        ((1.0 / T, 0.06 / T), 0.1, REPRODUCED),  # no offset, 2 se / R = 0.12 > 0.1
        ((1.0 / T, np.nan * T), 0.1, INCONCLUSIVE),  # a single run
    ],
)
def test_cannot_resolve_tests_the_noise_not_the_deviation(curve, tol, expected):
    """Both outcomes occur on a closeness claim that is inconclusive: the check asks
    whether the runs could resolve tol at R = 1, which an inconclusive claim does not
    settle (unlike "k se > tol - |R - 1| at some t", which it implies)."""
    oracle = table(runs=0, **{"A oracle": exact(1)})
    mine = table(A=curve)
    claim = closeness(mine, "A", "A oracle", tol=tol, tail=0.1, other=oracle)
    result = cannot_resolve(mine, "A", "A oracle", tol=tol, tail=0.1, other=oracle)
    assert result.verdict == expected, result
    if expected != INCONCLUSIVE:
        assert claim.verdict == INCONCLUSIVE, claim  # the situation the diagnosis explains
    assert f"> {tol:g} at some t" in result.criterion and "resolution 2 se / R" in result.measured


def test_cannot_resolve_on_exact_curves_and_within_one_table():
    assert cannot_resolve(table(runs=0, A=exact(1.2), B=exact(1)), "A", "B", tol=0.1).verdict == NOT_REPRODUCED
    # within one table the covariance of the two means enters the se
    data = table(A=(1.0 / T, 0.04 / T), B=(1.0 / T, 0.04 / T))
    pairs = pd.DataFrame({"curve_a": "A", "curve_b": "B", "t": T, "cov": 0.0016 / T**2 * 0.9})
    assert cannot_resolve(data, "A", "B", tol=0.1).verdict == REPRODUCED  # 2 sqrt(2) 0.04 = 0.113
    assert cannot_resolve(data, "A", "B", tol=0.1, pairs=pairs).verdict == NOT_REPRODUCED  # 0.036


@pytest.mark.parametrize(
    "value, se, expected",
    [
        (0.05, 0.001, REPRODUCED),
        (0.001, 0.001, NOT_REPRODUCED),  # significantly below the level
        (0.011, 0.005, INCONCLUSIVE),
        (0.02, 0.0, REPRODUCED),  # exact
        (0.01, 0.0, NOT_REPRODUCED),  # an exact tie fails
    ],
)
def test_exceeds(value, se, expected):
    rate = table(**{"A: rate": (value + 0 * T, se + 0 * T)})
    assert exceeds(rate, "A: rate", level=0.01, t_range=(0.9, 1.0)).verdict == expected


@pytest.mark.parametrize(
    "value, se, reference, expected",
    [
        (0.005, 0.001, None, REPRODUCED),  # 5 se below the level
        (0.009, 0.001, None, INCONCLUSIVE),  # 1 se below
        (0.013, 0.001, None, NOT_REPRODUCED),  # 3 se above
        (0.0, 0.0, None, REPRODUCED),  # no run ever above 0: exact
        (0.01, 0.0, None, NOT_REPRODUCED),  # exact tie: the claim asks for strictly below
        (0.025, 0.001, 0.02, REPRODUCED),  # a margin of 0.005 over the reference, 3.5 se below 0.01
        (0.035, 0.001, 0.02, NOT_REPRODUCED),  # 0.015 over the reference
    ],
)
def test_below_level(value, se, reference, expected):
    curves = {"A: rate": (value + 0 * T, se + 0 * T)}
    if reference is not None:
        curves["B: rate"] = (reference + 0 * T, 0.0 * T)
    rates = table(**curves)
    result = below_level(rates, "A: rate", level=0.01, t_range=(0.9, 1.0),
                         reference=None if reference is None else "B: rate")
    assert result.verdict == expected, result


def power_tables(sim_gap, sim_se, exact_gap):
    """A simulated pair (A below B by ``sim_gap``, relative, each with relative se ``sim_se``)
    and its exact model (A below B by ``exact_gap``)."""
    sim = table(A=((1 - sim_gap) / T, sim_se / T), B=(1 / T, sim_se / T))
    model = table(runs=0, **{"A exact": exact(1 - exact_gap), "B exact": exact(1)})
    return sim, model


@pytest.mark.parametrize(
    "exact_gap, sim_se, expected",
    [
        (0.05, 0.05, REPRODUCED),  # independent se of the gap 0.07: expected z 0.7 < 2
        (0.05, 0.001, NOT_REPRODUCED),  # the runs resolve a 5% gap: not a matter of runs
        (-0.05, 0.05, NOT_REPRODUCED),  # the model contradicts the claim: not resolution
        (0.05, np.nan, INCONCLUSIVE),  # a single run
    ],
)
def test_resolving_power_compares_the_exact_gap_with_the_runs_paired_error(exact_gap, sim_se, expected):
    sim, model = power_tables(0.0, sim_se, exact_gap)
    result = resolving_power(sim, "A", "B", model, "A exact", "B exact", t_range=(0.1, 1.0))
    assert result.verdict == expected, result


def test_resolving_power_uses_the_covariance_of_the_pair():
    table_, pairs, _ = simulated_pair()
    mse = curve_rows(table_, "oracle eps=2")["mse"].to_numpy()
    gap = 0.02 * mse  # a 2% gap: below 2 independent se, well above 2 paired se
    exact_model = pd.DataFrame({"curve": ["a"] * len(mse) + ["b"] * len(mse),
                                "t": np.tile(curve_rows(table_, "oracle eps=2").index, 2),
                                "mse": np.concatenate([mse - gap, mse]), "se": 0.0, "runs": 0})
    args = (table_, "oracle eps=1", "oracle eps=2", exact_model, "a", "b")
    assert resolving_power(*args, t_range=(0.0, 1.0)).verdict == REPRODUCED
    assert resolving_power(*args, t_range=(0.0, 1.0), pairs=pairs).verdict == NOT_REPRODUCED


def arguments(claim):
    """The claim's check arguments, defaults included (raises if a parameter is unknown)."""
    params = {k: v for k, v in claim.items() if k not in {*CLAIM_KEYS, *DIAGNOSIS_KEYS}}
    if "other_figure" in claim:
        params["other"] = None
    bound = inspect.signature(CHECKS[claim["check"]]).bind(None, **params)
    bound.apply_defaults()
    return bound.arguments


def test_claims_file_is_well_formed():
    claims = load_claims(CLAIMS)
    assert len({c["id"] for c in claims}) == len(claims), "duplicate claim ids"
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    figures = set(config["figures"])
    for claim in claims:
        arguments(claim)
        if "diagnosis" in claim:
            arguments(claim["diagnosis"])
        assert "{" not in claim["id"] + claim["claim"], claim["id"]
        # a claim on a diagnostics table names it "<figure>_diagnostics"
        own = claim["figure"].removesuffix(DIAGNOSTICS_SUFFIX)
        assert {own, claim.get("other_figure", own)} <= figures
    assert {c["id"] for c in claims} >= {"fig1.a.r5", "fig1.a.r20", "fig1.b.r20.eps2.oracle"}
    private_colme = {"fig2_sim", "fig2_oracle_m200", "fig2_oracle_m30", "fig4_laplace",
                     "fig4_laplace_oracle"}
    assert private_colme <= {c["figure"] for c in claims}
    assert table_figures(claims) >= private_colme
    new = {"fig3_varest", "fig3_varest_zoom", "pricer_fig3", "pricer_fig4"}
    assert table_figures(claims) >= new
    assert {"crossing", "decreasing"} <= {c["check"] for c in claims}
    # Supplementary tables only where a bound_value claim reads one: the Private-ColME figures
    # have none.
    assert bound_figures(claims) == {"fig1_r5", "fig1_r20"}


def test_report_without_claimed_figures_is_empty():
    results = evaluate(load_claims(CLAIMS), {})
    assert results.empty and "0 claims" in to_markdown(results)


def test_cross_figure_claims_need_both_tables():
    claims = [
        {"id": "x", "figure": "f", "claim": "c", "check": "closeness", "curve": "A",
         "reference": "A oracle", "other_figure": "g", "tol": 0.1},
    ]
    mine, others = table(A=precise(1.05)), table(runs=0, **{"A oracle": exact(1)})
    assert evaluate(claims, {"f": mine}).empty
    results = evaluate(claims, {"f": mine, "g": others})
    assert list(results["verdict"]) == [REPRODUCED]


def built_tables(folder: Path):
    """The tidy (diagnostics included) and supplementary tables of a build's tables folder,
    plain or as published (``.csv.gz``)."""
    inputs = read_inputs(
        [p for p in folder.glob("*.csv") if not p.name.endswith(("_supplement.csv", "_covariance.csv",
                                                                  "_diagnostics.csv"))],
        folder.glob("*_supplement.csv"), (), [*folder.glob("*_diagnostics.csv*")],
    )
    return inputs["tables"], inputs["bounds"]


def test_claims_refer_to_curves_of_the_built_tables():
    """Every curve, reference and quantity a claim or diagnosis names is in the tables of
    the published default build (or of ``COLME_TABLES``, e.g. a fresh results/tables)."""
    tables, bounds = built_tables(TABLES)
    assert tables, f"no table in {TABLES}"
    claims = [
        c for c in load_claims(CLAIMS)
        if {c["figure"], c.get("other_figure", c["figure"])} <= set(tables)
        and (c["check"] != "bound_value" or c["figure"] in bounds)
    ]
    diagnoses = [{**c["diagnosis"], "id": c["id"]} for c in claims if "diagnosis" in c]
    diagnoses = [d for d in diagnoses if {d["figure"], d.get("other_figure", d["figure"])} <= set(tables)]
    for claim in claims + diagnoses:
        curves = tables[claim["figure"]]
        args = arguments(claim)
        for key in ("curve", "below", "above", "benchmark", "smooth", "rough"):
            if key in args:
                assert args[key] in set(curves["curve"]), (claim["id"], args[key])
        for key in ("other_below", "other_above"):
            if key in args:
                assert args[key] in set(tables[claim["other_figure"]]["curve"]), (claim["id"], args[key])
        if args.get("reference") is not None:  # below_level's is optional
            where = tables[claim.get("other_figure", claim["figure"])]
            if claim["check"] in ("larger_gap", "larger_abs_gap"):
                where = curves
            assert args["reference"] in set(where["curve"]), (claim["id"], args["reference"])
        if "quantity" in args:
            assert args["quantity"] in set(bounds[claim["figure"]]["quantity"]), claim["id"]
    results = evaluate(claims, tables, bounds)
    assert len(results) == len(claims)
    assert set(results["verdict"]) <= {REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE}


# Crossing: curve A above B early, below for good after t0 (a tanh step of +-50%), on the
# grid t = 10, 20, ..., 2000; the paper's crossing at t = 600, tolerance a factor 1.5.
TC = np.arange(10, 2001, 10)


def crossing_table(t0, rel_se=0.001, runs=20, shape=None):
    ref = 1.0 / TC
    a = ref * (1 + 0.5 * np.tanh((t0 - TC) / 100.0)) if shape is None else ref * shape
    return pd.concat(
        pd.DataFrame({"curve": name, "t": TC, "mse": mse, "se": rel_se * mse, "runs": runs})
        for name, mse in (("A", a), ("B", ref))
    )


@pytest.mark.parametrize(
    "data, expected",
    [
        (crossing_table(600), REPRODUCED),
        (crossing_table(500), REPRODUCED),
        (crossing_table(600, rel_se=0.0, runs=0), REPRODUCED),  # exact curves
        (crossing_table(1500), NOT_REPRODUCED),  # crosses far too late
        (crossing_table(200), NOT_REPRODUCED),  # far too early
        (crossing_table(600, shape=1.5 + 0 * TC), NOT_REPRODUCED),  # never crosses
        (crossing_table(600, shape=0.5 + 0 * TC), NOT_REPRODUCED),  # never worse early
        (crossing_table(600, rel_se=0.5), INCONCLUSIVE),  # Monte Carlo noise
        (crossing_table(890, rel_se=0.1), INCONCLUSIVE),  # band straddles 900
        (crossing_table(600, runs=1, rel_se=np.nan), INCONCLUSIVE),  # a single run
    ],
)
def test_crossing(data, expected):
    result = crossing(data, "A", "B", paper=600, factor=1.5)
    assert result.verdict == expected, result


def test_crossing_estimate_band_and_for_good():
    result = crossing(crossing_table(600), "A", "B", paper=600, factor=1.5)
    estimate = float(result.measured.split("~ ")[1].split(",")[0])
    assert estimate == pytest.approx(600, abs=5)
    assert "band (590, 610]" in result.measured, result
    # An early transient dip below B does not count: the crossing "for good" is the last.
    shape = 1 + 0.5 * np.tanh((600 - TC) / 100.0) - 1.2 * ((TC >= 200) & (TC <= 250))
    result = crossing(crossing_table(600, shape=shape), "A", "B", paper=600, factor=1.5)
    assert result.verdict == REPRODUCED and "band (590, 610]" in result.measured, result
    # The same transient late (A back above B at t = 1500) moves the crossing: not at 600.
    shape = 1 + 0.5 * np.tanh((600 - TC) / 100.0) + 1.2 * ((TC >= 1500) & (TC <= 1550))
    result = crossing(crossing_table(600, shape=shape), "A", "B", paper=600, factor=1.5)
    assert result.verdict == NOT_REPRODUCED and "band (1550, 1560]" in result.measured, result


X = np.arange(10)


def trend_table(mse, se, runs=0):
    return pd.DataFrame({"curve": "A", "trusted": X, "mse": mse, "se": se, "runs": runs})


@pytest.mark.parametrize(
    "mse, se, expected",
    [
        (1.0 / (1 + X), 0 * X, REPRODUCED),  # exact, strictly decreasing
        (np.minimum(1.0 / (1 + X), 0.2), 0 * X, NOT_REPRODUCED),  # exact, flat from x = 4
        (1.0 / (1 + X) + 0.5 * (X == 9), 0 * X, NOT_REPRODUCED),  # exact, last step up
        (1.0 / (1 + X), 0.001 / (1 + X), REPRODUCED),  # Monte Carlo, precise
        (1.0 / (1 + X) + 0.5 * (X == 9), 0.001 / (1 + X), NOT_REPRODUCED),
        (1.0 / (1 + X), 0.5 / (1 + X), INCONCLUSIVE),  # Monte Carlo, noisy
    ],
)
def test_decreasing(mse, se, expected):
    runs = 0 if not np.any(se) else 100
    result = decreasing(trend_table(mse, se, runs), "A", x="trusted")
    assert result.verdict == expected, result
    assert "trusted" in result.criterion


def test_exact_values_with_undefined_se():
    # runs = 0 with se = NaN (the PriCER tables' optimised objectives) is exact ...
    result = decreasing(trend_table(1.0 / (1 + X), np.nan * X), "A", x="trusted")
    assert result.verdict == REPRODUCED and "exact" in result.measured, result
    # ... while se = NaN with runs >= 1 (a single run) stays undefined.
    result = decreasing(trend_table(1.0 / (1 + X), np.nan * X, runs=1), "A", x="trusted")
    assert result.verdict == INCONCLUSIVE, result


def test_ordering_on_another_x_column():
    data = table(A=precise(1), B=precise(2)).rename(columns={"t": "good_nodes"})
    result = ordering(data, "A", "B", t_range=(0.0, 1.0), x="good_nodes")
    assert result.verdict == REPRODUCED and "good_nodes" in result.measured, result
    assert gain(data.replace({"B": "Local"}), "A", x="good_nodes").verdict == REPRODUCED
    with pytest.raises(KeyError):
        ordering(data, "A", "B")  # no t column



# --------------------------------------------------------------------------- paired errors


def simulated_pair(seed=3, runs=400, shift=0.02, noise=0.01):
    """Per-run MSE curves of two curves sharing most of their noise (common random numbers),
    B = A + shift/t + a little independent noise: their tables and covariance."""
    from colme.aggregation import aggregate_table, covariance_table
    from colme.ccolme.spec import Curve, PanelSpec
    from colme.registry import ENGINES

    rng = np.random.default_rng(seed)
    t = np.arange(1, 101)
    shared = rng.gamma(4.0, 0.25, size=(runs, 1, t.size)) / t
    mse = np.concatenate([shared, shared + shift / t + noise * rng.standard_normal((runs, 1, t.size)) / t], axis=1)
    spec = PanelSpec(n_agents=4, degree=2, curves=(Curve("oracle", 1.0), Curve("oracle", 2.0)), t_record=t)
    sims = [{"runs": np.arange(runs), "t": t, "mse": mse}]
    sizes = [{"runs": np.arange(runs), "component_sizes": np.full((runs, 4), 2)}]
    engine = ENGINES["ccolme"]
    table = aggregate_table(spec, sims, sizes, engine.curve_fields, engine.analytic_frames)
    return table, covariance_table(spec, sims), mse


def test_paired_standard_error_is_the_se_of_per_run_differences():
    table, pairs, mse = simulated_pair()
    assert set(pairs["curve_a"]) == {"oracle eps=1"} and set(pairs["curve_b"]) == {"oracle eps=2"}
    from colme.claims import _paired_se, curve_rows, pair_covariance

    a, b = curve_rows(table, "oracle eps=1"), curve_rows(table, "oracle eps=2")
    cov = pair_covariance(pairs, "oracle eps=2", "oracle eps=1", a.index)  # either order
    difference = mse[:, 1] - mse[:, 0]
    expected = difference.std(axis=0, ddof=1) / np.sqrt(len(difference))
    np.testing.assert_allclose(_paired_se(a["se"], b["se"], cov), expected, rtol=1e-9)
    assert (expected < 0.1 * np.hypot(a["se"], b["se"])).all()  # CRN: far below unpaired


def test_paired_errors_resolve_a_difference_that_independent_errors_cannot():
    table, pairs, _ = simulated_pair()
    claim = {"below": "oracle eps=1", "above": "oracle eps=2", "t_range": (0.0, 1.0)}
    assert ordering(table, **claim).verdict == INCONCLUSIVE  # unpaired: lost in the noise
    assert ordering(table, **claim, pairs=pairs).verdict == REPRODUCED
    reversed_claim = {"below": "oracle eps=2", "above": "oracle eps=1", "t_range": (0.0, 1.0)}
    assert ordering(table, **reversed_claim, pairs=pairs).verdict == NOT_REPRODUCED
    # identical curves in every run: no difference, never "exact", never significant
    same, same_pairs, _ = simulated_pair(shift=0.0, noise=0.0)
    assert ordering(same, **claim, pairs=same_pairs).verdict == INCONCLUSIVE


# --------------------------------------------------------------------------- diagnoses

#: A diagnosis's declared evidence: an ablation first built after the diagnosis was written.
FRESH = {"evidence": "ablation", "table_existed": False}


def test_diagnosis_confirms_or_refutes_a_stated_cause_without_touching_the_verdict():
    claims = [
        {"id": "c1", "figure": "f", "claim": "A beats B", "check": "ordering", "below": "A", "above": "B",
         "diagnosis": {**FRESH, "cause": "B wins because of X.", "figure": "ablation", "check": "closeness",
                       "curve": "A", "reference": "B", "tol": 0.05, "tail": 0.9}},
        {"id": "c2", "figure": "f", "claim": "A beats B", "check": "ordering", "below": "A", "above": "B",
         "diagnosis": {**FRESH, "cause": "B wins because of Y.", "figure": "refuting", "check": "closeness",
                       "curve": "A", "reference": "B", "tol": 0.05, "tail": 0.9}},
        {"id": "c3", "figure": "f", "claim": "B beats A", "check": "ordering", "below": "B", "above": "A",
         "diagnosis": {**FRESH, "cause": "never run: reproduced", "figure": "ablation", "check": "closeness",
                       "curve": "A", "reference": "B"}},
    ]
    tables = {
        "f": table(A=precise(1.2), B=precise(1.0)),  # B beats A: c1, c2 not reproduced
        "ablation": table(A=precise(1.01), B=precise(1.0)),  # without X, A and B agree
        "refuting": table(A=precise(1.2), B=precise(1.0)),  # without Y, the gap stays
    }
    results = evaluate(claims, tables).set_index("id")
    assert list(results["verdict"]) == [NOT_REPRODUCED, NOT_REPRODUCED, REPRODUCED]
    assert results.loc["c1", "diagnosis verdict"] == "confirmed"
    assert results.loc["c2", "diagnosis verdict"] == "not confirmed"
    assert results.loc["c3", "diagnosis"] == "" and results.loc["c3", "diagnosis verdict"] == ""
    assert results.loc["c1", "diagnosis"].startswith("B wins because of X. Check on ablation:")
    report = to_markdown(results.reset_index())
    assert "3 claims: 1 reproduced; 2 not reproduced (1 cause confirmed, 1 cause not confirmed" in report
    # the claim's own verdict is the same with or without a diagnosis
    plain = evaluate([{k: v for k, v in c.items() if k != "diagnosis"} for c in claims], tables)
    assert list(plain["verdict"]) == list(results["verdict"])


def test_diagnosis_strings_expand_with_each():
    import tempfile

    spec = {"figures": {"f": [{"id": "x{e}", "claim": "c", "check": "gain", "curve": "A{e}",
                               "each": {"e": ["1", "2"]},
                               "diagnosis": {**FRESH, "cause": "because {e}", "figure": "g{e}", "check": "gain",
                                             "curve": "A{e}"}}]}}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        yaml.safe_dump(spec, handle)
    claims = load_claims(handle.name)
    assert [c["diagnosis"]["figure"] for c in claims] == ["g1", "g2"]
    assert claims[1]["diagnosis"]["cause"] == "because 2" and claims[1]["diagnosis"]["k"] == 2.0
    assert table_figures(claims) == {"f", "g1", "g2"}


def test_diagnosis_reads_a_second_table_with_other_figure():
    claims = [
        {"id": "c", "figure": "f", "claim": "A closer to its oracle", "check": "closeness",
         "curve": "A", "reference": "A oracle", "other_figure": "g", "tol": 0.01,
         "diagnosis": {**FRESH, "cause": "noise.", "figure": "f", "other_figure": "g", "check": "agreement",
                       "curve": "A", "reference": "A oracle", "tol": 0.1}},
    ]
    mine, oracle = table(A=(1.03 / T, 0.03 / T)), table(runs=0, **{"A oracle": exact(1)})
    assert table_figures(claims) == {"f", "g"}
    results = evaluate(claims, {"f": mine, "g": oracle})
    assert list(results["verdict"]) == [INCONCLUSIVE]
    assert list(results["diagnosis verdict"]) == ["confirmed"]
    assert "(other figure)" in results["diagnosis"].iloc[0]


def test_every_verdict_is_reported_under_both_error_models():
    data, pairs, _ = simulated_pair()
    claims = [{"id": "paired.only", "figure": "f", "claim": "eps=1 below eps=2", "check": "ordering",
               "below": "oracle eps=1", "above": "oracle eps=2", "t_range": [0.0, 1.0]},
              {"id": "both", "figure": "f", "claim": "eps=1 below 2 x eps=2", "check": "ordering",
               "below": "oracle eps=1", "above": "oracle eps=2", "factor": 2.0, "t_range": [0.0, 1.0]}]
    results = evaluate(claims, {"f": data}, covariances={"f": pairs}).set_index("id")
    assert list(results["verdict"]) == [REPRODUCED, REPRODUCED]
    assert list(results["verdict" + INDEPENDENT]) == [INCONCLUSIVE, REPRODUCED]
    assert results.loc["paired.only", "measured"] != results.loc["paired.only", "measured" + INDEPENDENT]
    assert list(model_dependent(results.reset_index())["id"]) == ["paired.only"]
    report = to_markdown(results.reset_index())
    assert "Paired standard errors (primary): 2 claims: 2 reproduced;" in report
    assert "Independent standard errors: 2 claims: 1 reproduced; 0 not reproduced" in report
    assert "(1): paired.only (reproduced paired, inconclusive independent)." in report


def test_a_diagnosis_declares_its_evidence(tmp_path):
    def claims_file(**diagnosis):
        spec = {"figures": {"f": [{"id": "x", "claim": "c", "check": "gain", "curve": "A",
                                   "diagnosis": {"cause": "c.", "figure": "g", "check": "gain",
                                                 "curve": "A", **diagnosis}}]}}
        path = tmp_path / "claims.yaml"
        path.write_text(yaml.safe_dump(spec))
        return path

    with pytest.raises(ValueError, match=r"claim x: diagnosis.evidence is 'hunch'; allowed: \['ablation'"):
        load_claims(claims_file(evidence="hunch", table_existed=False))
    with pytest.raises(ValueError, match=r"claim x: diagnosis\.table_existed is missing"):
        load_claims(claims_file(evidence="ablation"))
    with pytest.raises(ValueError, match="table_existed must be true or false, not 'no'"):
        load_claims(claims_file(evidence="ablation", table_existed="no"))
    with pytest.raises(ValueError, match=r"diagnosis.check is 'guess'; allowed: \['agreement'"):
        load_claims(claims_file(evidence="ablation", table_existed=False, check="guess"))
    claim = load_claims(claims_file(evidence="re-reading", table_existed=True))[0]
    tables = {"f": table(A=precise(2), Local=LOCAL), "g": table(A=precise(2), Local=LOCAL)}
    row = evaluate([claim], tables).iloc[0]
    assert row["diagnosis verdict"] == "not confirmed"
    assert row["diagnosis evidence"].startswith("re-reading (not a test of the stated cause")
    assert row["diagnosis evidence"].endswith("on a table that existed when it was written")
    assert "0 causes confirmed (none)" in to_markdown(evaluate([claim], tables))


def test_re_readings_are_counted_apart_from_causes():
    """A re-reading's "cause" is a reading of the paper's words: its confirmation is
    reported, but not as a confirmed cause."""
    def claim(name, evidence, table_existed):
        return {"id": name, "figure": "f", "claim": "A beats B", "check": "ordering", "below": "A", "above": "B",
                "diagnosis": {"evidence": evidence, "table_existed": table_existed, "cause": "c.", "figure": "g",
                              "check": "closeness", "curve": "A", "reference": "B", "tol": 0.05, "tail": 0.9}}

    tables = {"f": table(A=precise(1.2), B=precise(1.0)), "g": table(A=precise(1.01), B=precise(1.0))}
    results = evaluate([claim("fresh", "ablation", False), claim("reading", "re-reading", True)], tables)
    assert list(results["diagnosis verdict"]) == ["confirmed", "confirmed"]
    report = to_markdown(results)
    assert ("2 not reproduced (1 cause confirmed, 0 cause not confirmed, 0 diagnosis inconclusive, "
            "0 no diagnosis yet; re-readings, not causes: 1 confirmed, 0 not confirmed, 0 inconclusive)") in report
    assert "1 causes confirmed (1 ablation); 1 of them on a table first built after" in report
    assert "besides, 1 of 1 re-readings confirmed" in report
    assert diagnosis_counts(results) == {
        "diagnosis_verdicts": {"confirmed": 1}, "re_reading_verdicts": {"confirmed": 1},
        "diagnosis_evidence": {"ablation": 1, "diagnostics": 0, "power": 0, "re-reading": 1},
        "causes_on_unseen_tables": 1,
    }
    assert ("Diagnoses reported, by evidence: 1 ablation, 0 diagnostics, 0 power, 1 re-reading; 1 of the 1 "
            "causes read a table first built after they were written") in report


def _check_of(spec: dict) -> tuple:
    params = {k: v for k, v in spec.items() if k not in {*CLAIM_KEYS, *DIAGNOSIS_KEYS, "k"}}
    return spec["check"], spec["figure"], spec.get("other_figure"), yaml.safe_dump(params, sort_keys=True)


def test_no_shipped_diagnosis_restates_a_claims_check():
    """A diagnosis whose check is some claim's own check knows its verdict in advance (the
    audit found two); every diagnosis declares its evidence (checked by load_claims)."""
    claims = load_claims(CLAIMS)
    own = {_check_of(claim) for claim in claims}
    diagnosed = [claim for claim in claims if "diagnosis" in claim]
    assert diagnosed
    for claim in diagnosed:
        assert _check_of(claim["diagnosis"]) not in own, claim["id"]
        assert claim["diagnosis"]["evidence"] in EVIDENCE


def holm_results(verdicts, ks, scanned):
    return pd.DataFrame({"verdict": verdicts, "k decisive": ks, "x scanned": scanned})


def test_family_wise_is_holms_step_down_over_the_claims():
    """Four claims, per-claim level Phi(-2) = 0.02275: the p-values (Phi(-k) for reproduced,
    n Phi(-k) for not reproduced, 1 for inconclusive) sorted are compared with 0.02275 / 4,
    / 3, / 2, / 1 in turn; the first failure and every later claim read inconclusive."""
    from scipy.stats import norm

    results = holm_results([REPRODUCED, NOT_REPRODUCED, REPRODUCED, INCONCLUSIVE],
                           [math.inf, 3.0, 2.6, math.nan], [10, 5, 10, 10])
    p, holm = family_wise(results)
    np.testing.assert_allclose(p, [0.0, 5 * norm.sf(3.0), norm.sf(2.6), 1.0])
    # sorted: 0 <= 0.0057; 5 Phi(-3) = 0.00675 <= 0.02275 / 3 = 0.00758; Phi(-2.6) = 0.00466 <= 0.0114
    assert list(holm) == [REPRODUCED, NOT_REPRODUCED, REPRODUCED, INCONCLUSIVE]
    results.loc[1, "x scanned"] = 50  # 50 Phi(-3) = 0.0675: the contradiction no longer survives
    _, holm = family_wise(results)
    assert list(holm) == [REPRODUCED, INCONCLUSIVE, REPRODUCED, INCONCLUSIVE]
    results.loc[2, "k decisive"] = 2.1  # Phi(-2.1) = 0.0179 > 0.02275 / 3: it and every later fail
    _, holm = family_wise(results)
    assert list(holm) == [REPRODUCED, INCONCLUSIVE, INCONCLUSIVE, INCONCLUSIVE]


def test_decisive_k_is_the_largest_k_keeping_the_verdict():
    """A gap of 5 standard errors at every t: the ordering holds up to k = 5 (to 1e-3); an
    exact comparison at every k (inf); an inconclusive claim has none."""
    tables = {"f": table(A=(0.95 / T, 0.01 / T), B=(1.0 / T, 0.0 * T))}
    claim = {"id": "c", "figure": "f", "check": "ordering", "below": "A", "above": "B", "t_range": (0.5, 1.0)}
    assert check(claim, tables, {}).verdict == REPRODUCED
    assert decisive_k(claim, REPRODUCED, tables, {}, None) == pytest.approx(5.0, abs=2e-3)
    assert x_scanned(claim, tables) == len(curve_rows(tables["f"], "A", (0.5, 1.0)))
    analytic = {"f": table(runs=0, A=exact(0.9), B=exact(1.0))}
    assert decisive_k(claim, REPRODUCED, analytic, {}, None) == math.inf
    assert math.isnan(decisive_k(claim, INCONCLUSIVE, tables, {}, None))


def test_the_new_diagnosis_checks_come_out_either_way():
    """exact_agreement, level_resolution and paired_correlation each give "reproduced" and
    "not reproduced" on tables made to give them (and take the k every diagnosis is given)."""
    from colme.claims import exact_agreement, level_resolution, paired_correlation

    exact = pd.DataFrame({"curve": ["A"] * 3 + ["B"] * 3, "trusted": [0, 1, 2] * 2,
                          "mse": [1.0, 0.5, 0.6, 1.0, 0.5, 0.6 * (1 + 2e-4)], "se": np.nan, "runs": 0})
    assert exact_agreement(exact, "A", "B", rtol=1e-3, x="trusted", k=2).verdict == "reproduced"
    assert exact_agreement(exact, "A", "B", rtol=1e-4, x="trusted", k=2).verdict == "not reproduced"
    noisy = table(A=(np.full(len(T), 1e-5), np.full(len(T), 6e-5)), B=(np.zeros(len(T)), np.full(len(T), 1e-6)))
    assert level_resolution(noisy, "A", 1e-4, reference="B", k=2).verdict == "reproduced"
    assert level_resolution(noisy, "A", 1e-3, reference="B", k=2).verdict == "not reproduced"
    tab = table(A=precise(1.0), B=precise(1.1))
    t = tab["t"].unique()
    for sign, verdict in ((1, "reproduced"), (-1, "not reproduced")):
        pairs = pd.DataFrame({"curve_a": "A", "curve_b": "B", "t": t, "cov": sign * 1e-6})
        assert paired_correlation(tab, "A", "B", pairs=pairs).verdict == verdict
    assert paired_correlation(tab, "A", "B").verdict == "inconclusive"  # no covariance recorded


def test_a_claim_holms_correction_moves_gets_its_diagnosis_run_for_the_corrected_verdict():
    """Two claims reproduced at 2.1 se (Phi(-2.1) = 0.018 > 0.02275 / 2): Holm turns both
    inconclusive, and each one's diagnosis runs for that verdict (column
    ``diagnosis verdict (Holm)``), though it never ran for the paired verdict; a claim Holm
    keeps reproduced has none."""
    from colme.claims import HOLM, HOLM_DIAGNOSIS

    gap = {"A": (0.95 / T, 0.05 / 2.1 / T), "B": (1.0 / T, 0.0 * T)}
    diagnosis = {"evidence": "power", "table_existed": True, "cause": "few runs.", "figure": "more_runs",
                 "check": "ordering", "below": "A", "above": "B"}
    claims = [{"id": f"c{i}", "figure": f"f{i}", "claim": "A beats B", "check": "ordering", "below": "A",
               "above": "B", "diagnosis": diagnosis} for i in (1, 2)]
    claims.append({"id": "c3", "figure": "exact", "claim": "A beats B", "check": "ordering", "below": "A",
                   "above": "B", "diagnosis": diagnosis})
    tables = {"f1": table(**gap), "f2": table(**gap), "exact": table(A=(0.9 / T, 0.0 * T), B=(1.0 / T, 0.0 * T)),
              "more_runs": table(A=precise(0.95), B=precise(1.0))}
    results = evaluate(claims, tables).set_index("id")
    assert list(results["verdict"]) == [REPRODUCED] * 3
    assert list(results[HOLM]) == [INCONCLUSIVE, INCONCLUSIVE, REPRODUCED]
    assert list(results["diagnosis verdict"]) == ["", "", ""]
    assert list(results[HOLM_DIAGNOSIS]) == ["confirmed", "confirmed", ""]
    assert results.loc["c1", "diagnosis"].startswith("few runs. Check on more_runs:")
