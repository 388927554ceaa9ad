"""Claim checks on synthetic tables with known answers, and the shipped claims file."""

import inspect
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from colme.claims import (
    CHECKS,
    CLAIM_KEYS,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    bound_value,
    closeness,
    convergence,
    evaluate,
    gain,
    load_claims,
    no_gain,
    ordering,
    to_markdown,
)

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "workflow" / "claims.yaml"
TABLES = Path(os.environ.get("COLME_TABLES", ROOT / "results" / "tables"))
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
    if check is ordering:
        result = check(data, "A", "B")
    else:
        result = check(data, "A")
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


def arguments(claim):
    """The claim's check arguments, defaults included (raises if a parameter is unknown)."""
    params = {k: v for k, v in claim.items() if k not in CLAIM_KEYS}
    bound = inspect.signature(CHECKS[claim["check"]]).bind(None, **params)
    bound.apply_defaults()
    return bound.arguments


def test_claims_file_is_well_formed():
    claims = load_claims(CLAIMS)
    assert len({c["id"] for c in claims}) == len(claims), "duplicate claim ids"
    for claim in claims:
        arguments(claim)
        assert "{" not in claim["id"] + claim["claim"], claim["id"]
    assert {c["id"] for c in claims} >= {"fig1.a.r5", "fig1.a.r20", "fig1.b.r20.eps2.oracle"}


def test_report_without_claimed_figures_is_empty():
    results = evaluate(load_claims(CLAIMS), {})
    assert results.empty and "0 claims" in to_markdown(results)


@pytest.mark.skipif(not (TABLES / "fig1_r5.csv").exists(), reason=f"no tables in {TABLES}")
def test_claims_refer_to_curves_of_the_built_tables():
    claims = load_claims(CLAIMS)
    tables = {}
    for figure in {c["figure"] for c in claims}:
        tables[figure] = (pd.read_csv(TABLES / f"{figure}.csv"),
                          pd.read_csv(TABLES / f"{figure}_bound.csv"))
    for claim in claims:
        curves, bound = tables[claim["figure"]]
        args = arguments(claim)
        for key in ("curve", "below", "above", "reference", "benchmark"):
            if key in args:
                assert args[key] in set(curves["curve"]), (claim["id"], args[key])
        if "quantity" in args:
            assert args["quantity"] in set(bound["quantity"]), claim["id"]
    results = evaluate(claims, tables)
    assert len(results) == len(claims)
    assert set(results["verdict"]) <= {REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE}
