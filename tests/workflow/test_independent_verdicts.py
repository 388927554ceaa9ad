"""Re-derive the published verdicts of the most common checks with code that shares nothing
with ``colme.claims``: written from the criteria as ``workflow/claims.yaml``'s header and the
published ``criterion`` strings state them, reading the published CSV files directly.  A bug
in ``colme.claims`` (a window, a sign, a covariance term) and the same bug here would have
to be written twice.

Criteria (k = 2 standard errors; "t_max" = the largest t of the figure's table):
* ordering(below, above, t_range, factor): z(t) = (factor above - below) / sqrt(se_b^2 +
  factor^2 se_a^2 - 2 factor cov) at every recorded t in [lo, hi] t_max; reproduced if
  z > k at every t, not reproduced if z < -k at some t, else inconclusive; both se = 0:
  exact (reproduced iff below < factor above at every t);
* gain(curve, benchmark, tail, factor) = ordering(curve, benchmark, [1 - tail, 1], factor);
  no_gain(curve, benchmark, tail, factor) = ordering(benchmark, curve, [1 - tail, 1], 1 / factor);
* closeness(curve, reference, tol, tail): R = curve / reference with se_R = R sqrt((s_c/c)^2
  + (s_r/r)^2 - 2 cov / (c r)) at every t of the tail; reproduced if |R - 1| + k se_R <= tol
  at every t, not reproduced if |R - 1| - k se_R > tol at some t.
"""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K = 2.0
CHECKED = ("ordering", "gain", "no_gain", "closeness")


def expanded_claims() -> list[dict]:
    """The claims of workflow/claims.yaml with their ``each`` expanded (str.format)."""
    spec = yaml.safe_load((ROOT / "workflow" / "claims.yaml").read_text())
    claims = []
    for figure, entries in spec["figures"].items():
        for entry in entries:
            each = entry.get("each", {})
            for values in itertools.product(*each.values()):
                names = dict(zip(each, values, strict=True))
                claim = {key: value.format(**names) if isinstance(value, str) else value
                         for key, value in entry.items() if key not in ("each", "diagnosis")}
                claims.append({**claim, "figure": figure})
    return claims


def window(table: pd.DataFrame, curve: str, lo: float, hi: float, x: str = "t") -> pd.DataFrame:
    """A curve's rows in [lo, hi] t_max; in a grouped table (a ``group`` column) "<curve>
    [<group>]" names a group's rows and a plain name the panel's (group "all")."""
    t_max = table[x].max()
    if "group" in table.columns:
        name, _, group = curve.partition(" [")
        group = group.removesuffix("]") if group else "all"
        table = table[table["group"] == group]
        curve = name if group != "all" else curve
    rows = table[(table["curve"] == curve) & (table[x] >= lo * t_max) & (table[x] <= hi * t_max)]
    return rows.set_index(x)[["mse", "se"]].sort_index()


def covariance(pairs: pd.DataFrame | None, a: str, b: str, t) -> np.ndarray:
    if pairs is None:
        return np.zeros(len(t))
    rows = pairs[((pairs["curve_a"] == a) & (pairs["curve_b"] == b)) | ((pairs["curve_a"] == b)
                                                                       & (pairs["curve_b"] == a))]
    return rows.set_index("t")["cov"].reindex(t).fillna(0.0).to_numpy()


def ordering(table, pairs, below, above, lo, hi, factor=1.0, x="t") -> str:
    a, b = window(table, below, lo, hi, x), window(table, above, lo, hi, x)
    t = a.index.intersection(b.index)
    a, b = a.loc[t], b.loc[t]
    diff = factor * b["mse"].to_numpy() - a["mse"].to_numpy()
    if (a["se"] == 0).all() and (b["se"] == 0).all():
        return "reproduced" if (diff > 1e-9 * np.abs(b["mse"].to_numpy())).all() else "not reproduced"
    var = a["se"].to_numpy() ** 2 + factor**2 * b["se"].to_numpy() ** 2 - 2 * factor * covariance(
        pairs, below, above, t)
    se = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, diff / se, np.sign(diff) * np.inf)
    if (z > K).all():
        return "reproduced"
    return "not reproduced" if (z < -K).any() else "inconclusive"


def closeness(table, pairs, curve, reference, tol, tail) -> str:
    c, r = window(table, curve, 1 - tail, 1.0), window(table, reference, 1 - tail, 1.0)
    t = c.index.intersection(r.index)
    c, r = c.loc[t], r.loc[t]
    ratio = (c["mse"] / r["mse"]).to_numpy()
    relative = ((c["se"] / c["mse"]) ** 2 + (r["se"] / r["mse"]) ** 2).to_numpy() \
        - 2 * covariance(pairs, curve, reference, t) / (c["mse"] * r["mse"]).to_numpy()
    se = ratio * np.sqrt(np.maximum(relative, 0.0))
    gap = np.abs(ratio - 1)
    if (gap + K * se <= tol).all():
        return "reproduced"
    return "not reproduced" if (gap - K * se > tol).any() else "inconclusive"


def verdict(claim: dict, table: pd.DataFrame, pairs: pd.DataFrame | None) -> str:
    check, x = claim["check"], claim.get("x", "t")
    if check == "ordering":
        lo, hi = claim.get("t_range", (0.1, 1.0))
        return ordering(table, pairs, claim["below"], claim["above"], lo, hi, claim.get("factor", 1.0), x)
    tail, factor = claim.get("tail", 0.1), claim.get("factor", 1.0)
    benchmark = claim.get("benchmark", "Local")
    if check == "gain":
        return ordering(table, pairs, claim["curve"], benchmark, 1 - tail, 1.0, factor, x)
    if check == "no_gain":
        return ordering(table, pairs, benchmark, claim["curve"], 1 - tail, 1.0, 1.0 / factor, x)
    return closeness(table, pairs, claim["curve"], claim.get("reference", "Ideal"), claim.get("tol", 0.25), tail)


def published_table(folder: Path, figure: str) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """A figure's published table and covariances; "<figure>_diagnostics" is its diagnostics
    table read as curves "<curve>: <quantity>" (no covariances: independent errors)."""
    if figure.endswith("_diagnostics"):
        rates = pd.read_csv(folder / "tables" / f"{figure}.csv.gz")
        return pd.DataFrame({"curve": rates["curve"] + ": " + rates["quantity"], "t": rates["t"],
                             "mse": rates["value"], "se": rates["se"]}), None
    pairs_path = folder / "tables" / f"{figure}_covariance.csv.gz"
    return (pd.read_csv(folder / "tables" / f"{figure}.csv"),
            pd.read_csv(pairs_path) if pairs_path.exists() else None)


@pytest.mark.parametrize("preset", ["default", "paper"])
def test_published_verdicts_rederive_independently(preset):
    """Every published ordering, gain, no_gain and closeness verdict (paired standard
    errors; same-figure claims on simulated tables) equals this module's, and there are
    enough of them for the comparison to mean something."""
    folder = ROOT / "docs" / preset
    published = pd.read_csv(folder / "claims.csv").set_index("id")["verdict"]
    compared = 0
    for claim in expanded_claims():
        if claim["check"] not in CHECKED or "other_figure" in claim or claim["id"] not in published:
            continue
        table, pairs = published_table(folder, claim["figure"])
        assert verdict(claim, table, pairs) == published[claim["id"]], claim["id"]
        compared += 1
    assert compared >= 60, compared
