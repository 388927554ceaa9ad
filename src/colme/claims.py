"""Machine checks of the papers' claims on the aggregated tables.

A claim is data (``workflow/claims.yaml``): a check name and its parameters.  Every check
applies a criterion fixed in advance and returns a ``Verdict``, one of

* "reproduced": the claim holds by more than k standard errors wherever it is made;
* "not reproduced": the data contradict it by more than k standard errors somewhere;
* "inconclusive": neither, i.e. the differences are within the Monte Carlo noise
  (too few runs) or the standard errors are undefined (a single run).

Standard errors are the tables' ``se`` columns.  Differences and ratios of two curves
treat them as independent; the curves of a panel share their runs' samples and noise
draws (common random numbers, positively correlated), so this overstates the standard
error: it can turn a verdict into "inconclusive", never into a spurious significance.
"""

from __future__ import annotations

import itertools
from dataclasses import astuple, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

K = 2.0
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"
COLUMNS = ["id", "figure", "claim", "criterion", "measured", "verdict"]


@dataclass(frozen=True)
class Verdict:
    criterion: str
    measured: str
    verdict: str


def _verdict(holds: bool, contradicted: bool) -> str:
    if contradicted:
        return NOT_REPRODUCED
    return REPRODUCED if holds else INCONCLUSIVE


def curve_rows(table: pd.DataFrame, name: str, t_range=(0.0, 1.0)) -> pd.DataFrame:
    """``mse`` and ``se`` of one curve indexed by t, for t in [lo, hi] x the table's t_max."""
    rows = table[table["curve"] == name]
    if rows.empty:
        raise KeyError(f"no curve {name!r}; the table has {sorted(table['curve'].unique())}")
    t_max = table["t"].max()
    lo, hi = t_range
    rows = rows[(rows["t"] >= lo * t_max) & (rows["t"] <= hi * t_max)]
    if rows.empty:
        raise ValueError(f"no recorded t in [{lo:g}, {hi:g}] x t_max for {name!r}")
    return rows.set_index("t")[["mse", "se"]].sort_index()


def _ratio(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """a/b per t and its delta-method standard error."""
    ratio = a["mse"] / b["mse"]
    return ratio, ratio * np.hypot(a["se"] / a["mse"], b["se"] / b["mse"])


def _runs(table: pd.DataFrame) -> int:
    return int(table["runs"].max())


def ordering(table: pd.DataFrame, below: str, above: str, t_range=(0.1, 1.0), k=K) -> Verdict:
    """Curve ``below`` has a lower MSE than curve ``above`` over ``t_range`` (fractions of t_max).

    With z(t) = (above - below) / sqrt(se_below^2 + se_above^2) at every recorded t of the
    range: reproduced if z > k at every t; not reproduced if z < -k at some t (``below``
    significantly above ``above``); inconclusive otherwise.  Both directions are judged at
    every t, so a reversal at a single t contradicts the claim: read the t reported with it.
    """
    a, b = curve_rows(table, below, t_range), curve_rows(table, above, t_range)
    z = ((b["mse"] - a["mse"]) / np.hypot(a["se"], b["se"])).to_numpy()
    worst = int(np.argmin(z))
    lo, hi = t_range
    ratio = a["mse"].iloc[-1] / b["mse"].iloc[-1]
    return Verdict(
        f"{above} - {below} > {k:g} se at every t in [{lo:g}, {hi:g}] t_max "
        f"(not reproduced if < -{k:g} se at some t)",
        f"min z = {z[worst]:.2f} at t = {a.index[worst]} ({len(z)} t); "
        f"{below} / {above} at t_max = {ratio:.3g}; runs = {_runs(table)}",
        _verdict(bool(np.all(z > k)), bool(np.any(z < -k))),
    )


def gain(table: pd.DataFrame, curve: str, benchmark="Local", tail=0.1, k=K) -> Verdict:
    """Collaborative gain: ``curve`` below ``benchmark`` over the last ``tail`` of the t range
    (an ``ordering`` check)."""
    return ordering(table, curve, benchmark, (1.0 - tail, 1.0), k)


def no_gain(table: pd.DataFrame, curve: str, benchmark="Local", tail=0.1, k=K) -> Verdict:
    """No collaborative gain: ``curve`` above ``benchmark`` over the last ``tail`` of the t
    range (an ``ordering`` check)."""
    return ordering(table, benchmark, curve, (1.0 - tail, 1.0), k)


def convergence(table: pd.DataFrame, curve: str, reference: str, tol=0.25, k=K) -> Verdict:
    """``curve`` approaches ``reference`` as t grows.

    R = curve / reference (delta-method se) at t_max and at mid-range (the recorded t
    nearest t_max / 2); gap g = |R - 1|.  Reproduced if g(t_max) + k se <= tol and the gap
    has not grown significantly since mid-range (g(t_max) - g(mid) <= k se of the
    difference); not reproduced if g(t_max) - k se > tol or the gap grew significantly;
    inconclusive otherwise.
    """
    ratio, se = _ratio(curve_rows(table, curve), curve_rows(table, reference))
    end = ratio.index[-1]
    mid = ratio.index[np.argmin(np.abs(ratio.index - end / 2))]
    gap_end, gap_mid = abs(ratio[end] - 1), abs(ratio[mid] - 1)
    growth = (gap_end - gap_mid) / np.hypot(se[end], se[mid])
    return Verdict(
        f"|{curve} / {reference} - 1| + {k:g} se <= {tol:g} at t_max and not growing by "
        f"> {k:g} se since t_max/2 (not reproduced if > {tol:g} by {k:g} se, or growing)",
        f"ratio {ratio[mid]:.3f} ± {se[mid]:.3f} at t = {mid}, {ratio[end]:.3f} ± "
        f"{se[end]:.3f} at t = {end}; runs = {_runs(table)}",
        _verdict(
            bool(gap_end + k * se[end] <= tol and growth <= k),
            bool(gap_end - k * se[end] > tol or growth > k),
        ),
    )


def closeness(
    table: pd.DataFrame, curve: str, reference="Ideal", tol=0.25, tail=0.1, k=K
) -> Verdict:
    """``curve`` within a relative ``tol`` of ``reference`` over the last ``tail`` of t.

    R = curve / reference (delta-method se) at every recorded t of the tail: reproduced if
    |R - 1| + k se <= tol at every t; not reproduced if |R - 1| - k se > tol at some t;
    inconclusive otherwise.
    """
    t_range = (1.0 - tail, 1.0)
    ratio, se = _ratio(curve_rows(table, curve, t_range), curve_rows(table, reference, t_range))
    gap = np.abs(ratio - 1)
    worst = gap.idxmax()
    return Verdict(
        f"|{curve} / {reference} - 1| + {k:g} se <= {tol:g} at every t in "
        f"[{1 - tail:g}, 1] t_max (not reproduced if > {tol:g} by {k:g} se at some t)",
        f"ratio {ratio[worst]:.3f} ± {se[worst]:.3f} at t = {worst} (farthest of {len(gap)} t), "
        f"{ratio.iloc[-1]:.3f} at t_max; runs = {_runs(table)}",
        _verdict(bool(np.all(gap + k * se <= tol)), bool(np.any(gap - k * se > tol))),
    )


def bound_value(bound: pd.DataFrame, quantity: str, paper: float, resolution=0.1, k=K) -> Verdict:
    """A number of the bound table against the paper's value, printed to ``resolution``.

    d = |value - paper|: reproduced if d <= resolution/2 + k se (rounding plus noise) and
    k se <= resolution (precise enough to resolve the paper's last digit); not reproduced
    if d > resolution/2 + k se; inconclusive otherwise (too few instances).
    """
    row = bound[bound["quantity"] == quantity]
    if len(row) != 1:
        raise KeyError(f"expected one {quantity!r} row in the bound table, found {len(row)}")
    value, se = float(row["value"].iloc[0]), float(row["se"].iloc[0])
    distance, allowed = abs(value - paper), resolution / 2 + k * se
    return Verdict(
        f"|{quantity} - {paper:g}| <= {resolution / 2:g} (rounding) + {k:g} se, "
        f"with {k:g} se <= {resolution:g}",
        f"{value:.3f} ± {se:.3f} (runs = {_runs(row)})",
        _verdict(distance <= allowed and k * se <= resolution, distance > allowed),
    )


CHECKS = {
    "ordering": ordering,
    "gain": gain,
    "no_gain": no_gain,
    "convergence": convergence,
    "closeness": closeness,
    "bound_value": bound_value,
}
CLAIM_KEYS = ("id", "figure", "claim", "check")


def load_claims(path: str | Path) -> list[dict]:
    """The claims of a claims file, one dict per claim, with its figure and defaults.

    A claim with ``each: {name: [values], ...}`` stands for one claim per combination of
    the values, its string fields formatted with them (``"{rule} eps={eps}"``).
    """
    spec = yaml.safe_load(Path(path).read_text())
    claims = []
    for figure, entries in spec["figures"].items():
        for entry in entries:
            entry = {**spec.get("defaults", {}), **entry, "figure": figure}
            each = entry.pop("each", {})
            for values in itertools.product(*each.values()):
                names = dict(zip(each, values))
                claims.append(
                    {
                        key: value.format(**names) if isinstance(value, str) else value
                        for key, value in entry.items()
                    }
                )
    return claims


def check(claim: dict, table: pd.DataFrame, bound: pd.DataFrame) -> Verdict:
    """Run one claim's check on its figure's tidy table (or bound table)."""
    params = {key: value for key, value in claim.items() if key not in CLAIM_KEYS}
    data = bound if claim["check"] == "bound_value" else table
    return CHECKS[claim["check"]](data, **params)


def evaluate(claims: list[dict], tables: dict[str, tuple[pd.DataFrame, pd.DataFrame]]):
    """Check the claims whose figure is in ``tables`` (figure -> (table, bound table))."""
    rows = []
    for claim in claims:
        if claim["figure"] in tables:
            verdict = check(claim, *tables[claim["figure"]])
            rows.append([claim["id"], claim["figure"], claim["claim"], *astuple(verdict)])
    return pd.DataFrame(rows, columns=COLUMNS)


def to_markdown(results: pd.DataFrame) -> str:
    """The results as a Markdown report: verdict counts, then one table row per claim."""
    counts = results["verdict"].value_counts()
    summary = ", ".join(
        f"{counts.get(v, 0)} {v}" for v in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)
    )
    lines = [
        "# Claims checked on the aggregated tables",
        "",
        f"{len(results)} claims: {summary}.  Criteria: workflow/claims.yaml and "
        "src/colme/claims.py (se = Monte Carlo standard error).",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for row in results.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines) + "\n"
