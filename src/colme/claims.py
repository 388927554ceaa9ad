"""Machine checks of the papers' claims on the aggregated tables.

A claim is data (``workflow/claims.yaml``): a check name and its parameters.  Every check
applies a criterion fixed in advance and returns a ``Verdict``, one of

* "reproduced": the claim holds by more than k standard errors wherever it is made;
* "not reproduced": the data contradict it by more than k standard errors somewhere;
* "inconclusive": neither, i.e. the differences are within the Monte Carlo noise
  (too few runs) or the standard errors are undefined (a single run).

Analytic curves (and Local, Ideal of the Private-ColME panels) have se = 0: comparisons
between exact values are exact, reproduced or not reproduced, never inconclusive (values
equal to a relative TIE count as equal, which fails a strict claim).

Standard errors are the tables' ``se`` columns.  Two simulated curves of the same panel
share their runs' instances, samples and noise draws (common random numbers), so a check
comparing them uses the paired standard error, sqrt(se_a^2 + se_b^2 - 2 cov), with the
covariance of their means from ``<figure>_covariance.csv`` (the standard error of the
per-run differences).  Curves without a recorded covariance (analytic ones, or curves of
two figures) are treated as independent.  The paired error was adopted after results
existed (k and every criterion unchanged), so ``evaluate`` reports every verdict under both
error models, paired (primary) and independent, and ``model_dependent`` lists the claims
whose verdict hangs on the choice.

A claim's ``diagnosis`` states a cause for a non-reproduction and checks it; it declares
its ``evidence`` (``EVIDENCE``) and whether the table it reads existed when it was written.
"""

from __future__ import annotations

import inspect
import itertools
import math
from dataclasses import astuple, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy.special import ndtr  # Phi; the normal's sf(x) is ndtr(-x), without scipy.stats' start-up

from .aggregation import groups_as_curves

K = 2.0
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"
#: Suffix of the columns that repeat a verdict with independent standard errors.
INDEPENDENT = " (independent se)"
#: The family-wise verdict column (Holm over the claims checked together: a preset's build).
HOLM = "verdict (Holm)"
#: The diagnosis's verdict where Holm's correction leaves the claim not reproduced or
#: inconclusive: the paired one's where Holm keeps the paired verdict, the diagnosis run
#: for the Holm verdict where the correction moved it (``evaluate``).
HOLM_DIAGNOSIS = "diagnosis verdict (Holm)"
COLUMNS = ["id", "figure", "origin", "claim", "criterion", "measured", "verdict", "diagnosis", "diagnosis verdict",
           "diagnosis evidence", "measured" + INDEPENDENT, "verdict" + INDEPENDENT,
           "diagnosis verdict" + INDEPENDENT, "x scanned", "k decisive", "p", HOLM, HOLM_DIAGNOSIS]
CONFIRMED, NOT_CONFIRMED = "confirmed", "not confirmed"
#: A diagnosis check's verdict, read as a verdict on the stated cause.
DIAGNOSIS_VERDICTS = {REPRODUCED: CONFIRMED, NOT_REPRODUCED: NOT_CONFIRMED, INCONCLUSIVE: INCONCLUSIVE}
#: What a diagnosis's check reads, declared with it as ``evidence``.
EVIDENCE = {
    "ablation": "a variant (new runs or exact curves) built to test the cause",
    "diagnostics": "a quantity recorded from the same runs",
    "power": "the resolving power of the runs against the exact model's gap",
    "re-reading": "not a test of the stated cause: another measure on tables the claims already read, a "
                  "mechanism that holds by construction, or another diagnosis's check repeated",
}
#: Keys of a diagnosis that are not its check's parameters.
DIAGNOSIS_KEYS = ("cause", "figure", "check", "other_figure", "evidence", "table_existed")


@dataclass(frozen=True)
class Verdict:
    criterion: str
    measured: str
    verdict: str


TIE = 1e-9  # exact (se = 0) values closer than this, relative, are equal


def _verdict(holds: bool, contradicted: bool) -> str:
    if contradicted:
        return NOT_REPRODUCED
    return REPRODUCED if holds else INCONCLUSIVE


def curve_rows(table: pd.DataFrame, name: str, t_range=(0.0, 1.0), x="t") -> pd.DataFrame:
    """``mse``, ``se`` and ``runs`` of one curve indexed by its x column (``x``, default
    t), for x in [lo, hi] x the table's largest x (t_max).

    A row with runs = 0 and an undefined se (NaN) is an exact value (the PriCER tables'
    optimised objectives): its se is 0.  NaN with runs >= 1 (a single run) stays NaN."""
    rows = table[table["curve"] == name]
    if rows.empty:
        raise KeyError(f"no curve {name!r}; the table has {sorted(table['curve'].unique())}")
    if x not in table.columns:
        raise KeyError(f"no x column {x!r}; the table has {list(table.columns)}")
    t_max = table[x].max()
    lo, hi = t_range
    rows = rows[(rows[x] >= lo * t_max) & (rows[x] <= hi * t_max)]
    if rows.empty:
        raise ValueError(f"no recorded {x} in [{lo:g}, {hi:g}] x {x}_max for {name!r}")
    if rows[x].duplicated().any():
        raise ValueError(f"curve {name!r} has several rows at the same {x}")
    rows = rows.set_index(x)[["mse", "se", "runs"]].sort_index()
    rows["se"] = rows["se"].mask(rows["se"].isna() & (rows["runs"] == 0), 0.0)
    return rows


def _aligned(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of a and b at their common t (curves of two figures may differ in grid)."""
    a, b = a.align(b, join="inner", axis=0)
    if a.empty:
        raise ValueError("the two curves have no recorded t in common")
    return a, b


def _ratio(a: pd.DataFrame, b: pd.DataFrame, cov=None) -> tuple[pd.Series, pd.Series]:
    """a/b per common t and its delta-method standard error (``cov``: of the two means)."""
    a, b = _aligned(a, b)
    ratio = a["mse"] / b["mse"]
    cov = np.zeros(len(a)) if cov is None else np.asarray(cov)
    relative = _paired_se(a["se"] / a["mse"], b["se"] / b["mse"], cov / (a["mse"] * b["mse"]).to_numpy())
    return ratio, ratio * relative


def _z(diff, se, scale, exact=None) -> tuple[np.ndarray, np.ndarray]:
    """z = diff / se per t, and where the comparison is exact.

    Exact values (analytic curves on both sides: ``exact``, by default se = 0) have
    z = +-inf by the sign of diff, and z = 0 for a tie (|diff| <= TIE |scale|); an
    undefined se (NaN: a single run) gives NaN.  A simulated pair whose paired se is 0
    (identical in every run) gives z = 0 for no difference and +-inf otherwise, without
    counting as exact.
    """
    diff, se, scale = (np.asarray(x, dtype=float) for x in (diff, se, scale))
    exact = se == 0 if exact is None else np.asarray(exact, dtype=bool)
    tie = np.abs(diff) <= TIE * np.abs(scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se == 0, np.where(tie, 0.0, np.copysign(np.inf, diff)), diff / se)
    return z, exact


def pair_covariance(pairs: pd.DataFrame | None, a: str, b: str, index) -> np.ndarray:
    """Cov of the Monte Carlo means of curves ``a`` and ``b`` at ``index`` (0 if unrecorded)."""
    if pairs is None or pairs.empty or a == b:
        return np.zeros(len(index))
    rows = pairs[((pairs["curve_a"] == a) & (pairs["curve_b"] == b))
                 | ((pairs["curve_a"] == b) & (pairs["curve_b"] == a))]
    return rows.set_index("t")["cov"].reindex(index).fillna(0.0).to_numpy(dtype=float)


def _paired_se(se_a, se_b, cov, factor=1.0) -> np.ndarray:
    """se of a - factor b from the two se and the covariance of the means (clipped at 0)."""
    se_a, se_b = np.asarray(se_a, dtype=float), np.asarray(se_b, dtype=float)
    return np.sqrt(np.maximum(se_a**2 + (factor * se_b) ** 2 - 2 * factor * cov, 0.0))


def _strict(z: np.ndarray, exact: np.ndarray, k: float) -> tuple[bool, bool]:
    """(holds, contradicted) of a claim "diff > 0 at every t": holds if z > k at every t;
    contradicted if z < -k at some t, or if an exact comparison fails (a tie included)."""
    holds = z > k
    return bool(np.all(holds)), bool(np.any((z < -k) | (exact & ~holds)))


def _runs(*frames: pd.DataFrame) -> str:
    runs = int(max(frame["runs"].max() for frame in frames))
    return f"runs = {runs}" if runs else "exact (analytic)"


def _below(factor: float, name: str) -> str:
    return name if factor == 1 else f"{factor:g} x {name}"


def ordering(
    table: pd.DataFrame, below: str, above: str, t_range=(0.1, 1.0), factor=1.0, k=K, x="t",
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """Curve ``below`` has a lower MSE than ``factor`` x curve ``above`` over ``t_range``
    (fractions of t_max); ``factor`` < 1 asks for a margin ("well below": 0.5).

    With z(t) = (factor above - below) / sqrt(se_below^2 + factor^2 se_above^2 - 2 factor
    cov) at every recorded t of the range (cov: of the two means, from ``pairs``):
    reproduced if z > k at every t; not reproduced if z < -k at some t (``below``
    significantly above); inconclusive otherwise. Both directions are judged at every t, so
    a reversal at a single t contradicts the claim: read the t reported with it. Exact
    curves (se = 0 on both sides, e.g. analytic ones) are compared exactly: reproduced if
    below < factor x above at every t, not reproduced otherwise (a tie included). ``x``
    names the table's x column (default t; e.g. good_nodes).
    """
    a, b = _aligned(curve_rows(table, below, t_range, x), curve_rows(table, above, t_range, x))
    cov = pair_covariance(pairs, below, above, a.index)
    z, exact = _z(factor * b["mse"] - a["mse"], _paired_se(a["se"], b["se"], cov, factor), b["mse"],
                  (a["se"] == 0) & (b["se"] == 0))
    ratio = (a["mse"] / b["mse"]).to_numpy()
    worst = int(np.lexsort((-ratio, np.where(np.isnan(z), np.inf, z)))[0])
    lo, hi = t_range
    where = "exact comparison" if exact.all() else f"min z = {z[worst]:.2f}"
    return Verdict(
        f"{_below(factor, above)} - {below} > {k:g} se at every {x} in [{lo:g}, {hi:g}] "
        f"{x}_max (not reproduced if < -{k:g} se at some {x}; se = 0: exact)",
        f"{where} at {x} = {a.index[worst]:g} ({len(z)} {x}), where {below} / {above} = "
        f"{ratio[worst]:.3g}; {ratio[-1]:.3g} at {x} = {a.index[-1]:g}; {_runs(a, b)}",
        _verdict(*_strict(z, exact, k)),
    )


def gain(
    table: pd.DataFrame, curve: str, benchmark="Local", tail=0.1, factor=1.0, k=K, x="t",
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """Collaborative gain: ``curve`` below ``factor`` x ``benchmark`` over the last ``tail``
    of the t range (an ``ordering`` check; factor 0.5 for "well below")."""
    return ordering(table, curve, benchmark, (1.0 - tail, 1.0), factor, k, x, pairs)


def no_gain(
    table: pd.DataFrame, curve: str, benchmark="Local", tail=0.1, factor=1.0, k=K, x="t",
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """No (or no large) collaborative gain: ``curve`` above ``factor`` x ``benchmark`` over
    the last ``tail`` of the t range (an ``ordering`` check; factor 0.5 for "not well
    below", the negation of ``gain`` with the same factor)."""
    return ordering(table, benchmark, curve, (1.0 - tail, 1.0), 1.0 / factor, k, x, pairs)


def convergence(
    table: pd.DataFrame, curve: str, reference: str, tol=0.25, k=K, pairs: pd.DataFrame | None = None
) -> Verdict:
    """``curve`` approaches ``reference`` as t grows.

    R = curve / reference (delta-method se) at t_max and at mid-range (the recorded t
    nearest t_max / 2); gap g = |R - 1|.  Reproduced if g(t_max) + k se <= tol and the gap
    has not grown significantly since mid-range (g(t_max) - g(mid) <= k se of the
    difference); not reproduced if g(t_max) - k se > tol or the gap grew significantly;
    inconclusive otherwise.  With se = 0 (exact curves) both tests are exact.
    """
    rows = curve_rows(table, curve)
    ratio, se = _ratio(rows, curve_rows(table, reference), pair_covariance(pairs, curve, reference, rows.index))
    end = ratio.index[-1]
    mid = ratio.index[np.argmin(np.abs(ratio.index - end / 2))]
    gap_end, gap_mid = abs(ratio[end] - 1), abs(ratio[mid] - 1)
    growth = float(_z(gap_end - gap_mid, np.hypot(se[end], se[mid]), 1.0)[0])
    return Verdict(
        f"|{curve} / {reference} - 1| + {k:g} se <= {tol:g} at t_max and not growing by "
        f"> {k:g} se since t_max/2 (not reproduced if > {tol:g} by {k:g} se, or growing)",
        f"ratio {ratio[mid]:.3f} ± {se[mid]:.3f} at t = {mid:g}, {ratio[end]:.3f} ± "
        f"{se[end]:.3f} at t = {end:g}; {_runs(table[table['curve'] == curve])}",
        _verdict(
            bool(gap_end + k * se[end] <= tol and growth <= k),
            bool(gap_end - k * se[end] > tol or growth > k),
        ),
    )


def closeness(
    table: pd.DataFrame,
    curve: str,
    reference="Ideal",
    tol=0.25,
    tail=0.1,
    k=K,
    other: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """``curve`` within a relative ``tol`` of ``reference`` over the last ``tail`` of t.

    R = curve / reference (delta-method se) at every recorded t of the tail: reproduced if
    |R - 1| + k se <= tol at every t; not reproduced if |R - 1| - k se > tol at some t;
    inconclusive otherwise (with se = 0 on both sides: exact, never inconclusive).  With
    ``other`` (a second figure's table, claim key ``other_figure``) ``reference`` is a curve
    of that table, compared at the t both tables record.
    """
    t_range = (1.0 - tail, 1.0)
    ref = curve_rows(table if other is None else other, reference, t_range)
    rows = curve_rows(table, curve, t_range)
    cov = pair_covariance(pairs, curve, reference, rows.index) if other is None else None
    ratio, se = _ratio(rows, ref, cov)
    gap = np.abs(ratio - 1)
    worst = gap.idxmax()
    where = "" if other is None else " (other figure)"
    return Verdict(
        f"|{curve} / {reference}{where} - 1| + {k:g} se <= {tol:g} at every t in "
        f"[{1 - tail:g}, 1] t_max (not reproduced if > {tol:g} by {k:g} se at some t)",
        f"ratio {ratio[worst]:.3f} ± {se[worst]:.3f} at t = {worst:g} (farthest of {len(gap)} t), "
        f"{ratio.iloc[-1]:.3f} at t_max; {_runs(table[table['curve'] == curve])}",
        _verdict(bool(np.all(gap + k * se <= tol)), bool(np.any(gap - k * se > tol))),
    )


def roughness(mse: pd.Series) -> float:
    """Excess variation of log MSE over the recorded t: its total variation minus its net
    change, i.e. twice the variation against the curve's overall trend.  0 for a monotone
    curve, whatever its slope (round-off below TIE x the total variation counts as 0); an
    oscillation adds twice its swings."""
    log = np.log(mse.to_numpy(dtype=float))
    variation = float(np.abs(np.diff(log)).sum())
    excess = variation - abs(log[-1] - log[0])
    return excess if excess > TIE * max(variation, 1.0) else 0.0


def smoother(
    table: pd.DataFrame, smooth: str, rough: str, t_range=(0.01, 1.0), factor=0.5, k=K
) -> Verdict:
    """Curve ``smooth`` smooths the oscillation of curve ``rough`` over ``t_range``.

    roughness (see ``roughness``) of both on their recorded t in the range: reproduced if
    roughness(smooth) < factor x roughness(rough), not reproduced otherwise (including a
    ``rough`` curve that does not oscillate).  Judged on exact (se = 0, analytic) curves
    only: a Monte Carlo curve's roughness includes its noise, so any se > 0 (or NaN) gives
    "inconclusive" (``k`` is accepted for uniformity with the other checks, and unused).
    """
    a, b = curve_rows(table, smooth, t_range), curve_rows(table, rough, t_range)
    r_smooth, r_rough = roughness(a["mse"]), roughness(b["mse"])
    exact = bool((a["se"] == 0).all() and (b["se"] == 0).all())
    holds = r_smooth < factor * r_rough
    lo, hi = t_range
    return Verdict(
        f"roughness({smooth}) < {factor:g} x roughness({rough}) over [{lo:g}, {hi:g}] t_max "
        "(roughness = total variation of ln MSE minus its net change; exact curves only)",
        f"roughness {r_smooth:.3g} vs {r_rough:.3g} ({len(a)} and {len(b)} t); {_runs(a, b)}",
        _verdict(exact and holds, exact and not holds),
    )


def _compare_gaps(table, curve, other, other_curve, reference, factor, tail, gap):
    """Shared by larger_gap and larger_abs_gap: the ``gap`` (a function of the curve's and
    the reference's rows giving the gap and its se per t) of ``curve`` in ``table`` against
    ``factor`` x that of ``other_curve`` in ``other``, at the t both record in the tail.

    Returns (g, g_other, z, exact, worst t, "min z = ..." or "exact comparison", runs).
    """
    t_range = (1.0 - tail, 1.0)

    def gaps(data, name):
        return gap(*_aligned(curve_rows(data, name, t_range), curve_rows(data, reference, t_range)))

    (g, se), (g_other, se_other) = gaps(table, curve), gaps(other, other_curve)
    g, g_other = g.align(g_other, join="inner")
    se, se_other = se.reindex(g.index), se_other.reindex(g.index)
    if g.empty:
        raise ValueError("the two figures have no recorded t in common")
    diff = g - factor * g_other
    z, exact = _z(diff, np.hypot(se, factor * se_other), np.maximum(abs(g), abs(factor * g_other)))
    worst = int(np.lexsort((diff.to_numpy(), np.where(np.isnan(z), np.inf, z)))[0])
    where = "exact comparison" if exact.all() else f"min z = {z[worst]:.2f}"
    runs = _runs(table[table["curve"] == curve], other[other["curve"] == other_curve])
    return g, g_other, z, exact, g.index[worst], where, runs


def larger_gap(
    table: pd.DataFrame,
    curve: str,
    other: pd.DataFrame,
    other_curve: str | None = None,
    reference="Ideal",
    factor=2.0,
    tail=0.1,
    k=K,
) -> Verdict:
    """The gap of ``curve`` to ``reference`` is at least ``factor`` times that of
    ``other_curve`` (default: the same name) to ``reference`` in ``other``, a second
    figure's table (claim key ``other_figure``), over the last ``tail`` of t.

    The gap is the vertical distance on a log MSE axis, G = ln(curve / reference), with
    delta-method se sqrt((se_c/c)^2 + (se_r/r)^2).  With z = (G - factor G_other) /
    sqrt(se^2 + factor^2 se_other^2) at every t both tables record in the tail: reproduced
    if z > k at every t; not reproduced if z < -k at some t; inconclusive otherwise (with
    se = 0 on both sides: exact, never inconclusive).
    """
    other_curve = curve if other_curve is None else other_curve

    def log_gap(c, r):
        return np.log(c["mse"] / r["mse"]), np.hypot(c["se"] / c["mse"], r["se"] / r["mse"])

    g, g_other, z, exact, t, where, runs = _compare_gaps(
        table, curve, other, other_curve, reference, factor, tail, log_gap
    )
    return Verdict(
        f"ln({curve} / {reference}) - {factor:g} x the same in the other figure "
        f"({other_curve}) > {k:g} se at every t in [{1 - tail:g}, 1] t_max "
        f"(not reproduced if < -{k:g} se at some t; se = 0: exact)",
        f"{where} at t = {t:g} ({len(g)} t), where {curve} / {reference} = {np.exp(g[t]):.3g} "
        f"vs {np.exp(g_other[t]):.3g} in the other figure (log-gap ratio "
        f"{g[t] / g_other[t]:.2f}); {runs}",
        _verdict(*_strict(z, exact, k)),
    )


def larger_abs_gap(
    table: pd.DataFrame,
    curve: str,
    other: pd.DataFrame,
    other_curve: str | None = None,
    reference="Ideal",
    factor=2.0,
    tail=0.1,
    k=K,
) -> Verdict:
    """The absolute gap of ``curve`` to ``reference`` is at least ``factor`` times that of
    ``other_curve`` (default: the same name) to ``reference`` in ``other``, a second
    figure's table (key ``other_figure``), over the last ``tail`` of t.

    The absolute variant of ``larger_gap``: the gap is the MSE difference D = curve -
    reference (not the log ratio), with se sqrt(se_c^2 + se_r^2) (the two treated as
    independent).  With z = (D - factor D_other) / sqrt(se^2 + factor^2 se_other^2) at every
    t both tables record in the tail: reproduced if z > k at every t; not reproduced if
    z < -k at some t; inconclusive otherwise (with se = 0 on both sides: exact, never
    inconclusive).  Note that D scales with the reference itself: a panel whose Ideal MSE
    is larger has a larger absolute gap for the same log gap.
    """
    other_curve = curve if other_curve is None else other_curve

    def abs_gap(c, r):
        return c["mse"] - r["mse"], np.hypot(c["se"], r["se"])

    g, g_other, z, exact, t, where, runs = _compare_gaps(
        table, curve, other, other_curve, reference, factor, tail, abs_gap
    )
    return Verdict(
        f"({curve} - {reference}) - {factor:g} x the same in the other figure "
        f"({other_curve}) > {k:g} se at every t in [{1 - tail:g}, 1] t_max "
        f"(absolute MSE gap; not reproduced if < -{k:g} se at some t; se = 0: exact)",
        f"{where} at t = {t:g} ({len(g)} t), where {curve} - {reference} = {g[t]:.3g} vs "
        f"{g_other[t]:.3g} in the other figure (absolute-gap ratio {g[t] / g_other[t]:.2f}); {runs}",
        _verdict(*_strict(z, exact, k)),
    )


def agreement(
    table: pd.DataFrame,
    curve: str,
    reference: str,
    tol: float,
    tail=0.1,
    k=K,
    other: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """``curve`` agrees with ``reference`` within its Monte Carlo error over the last
    ``tail`` of t, and that error is small enough to have seen a deviation of ``tol``.

    R = curve / reference (delta-method se) at every recorded t of the tail: reproduced if
    |R - 1| <= k se at every t (the reference inside the curve's k-se band) and the
    resolution k se <= ``tol`` at every t (the power condition: a relative deviation of
    ``tol`` would have been detected); not reproduced if |R - 1| > k se at some t (a
    significant deviation); inconclusive otherwise (noise too large to resolve ``tol``, or
    an undefined se: a single run).  Exact curves on both sides agree only if equal
    (|R - 1| <= TIE).  With ``other`` (key ``other_figure``) ``reference`` is a curve of
    that table.

    Without the power condition any curve noisy enough would "agree"; with it, large noise
    reads inconclusive.  The measured text gives the resolution k se per t.
    """
    t_range = (1.0 - tail, 1.0)
    ref = curve_rows(table if other is None else other, reference, t_range)
    rows = curve_rows(table, curve, t_range)
    cov = pair_covariance(pairs, curve, reference, rows.index) if other is None else None
    ratio, se = _ratio(rows, ref, cov)
    deviation = np.abs(ratio - 1).to_numpy(dtype=float)
    se = se.to_numpy(dtype=float)
    exact = se == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(exact, np.where(deviation <= TIE, 0.0, np.inf), deviation / se)
    worst = int(np.argmax(np.where(np.isnan(z), -np.inf, z)))
    undefined = bool(np.isnan(z).any())
    significant = bool(np.any(z > k))
    where = "" if other is None else " (other figure)"
    defined = k * se[np.isfinite(se)]
    resolution = f"{defined.min():.3f} to {defined.max():.3f}" if defined.size else "undefined"
    resolved = bool(np.all(k * se <= tol))
    return Verdict(
        f"|{curve} / {reference}{where} - 1| <= {k:g} se at every t in [{1 - tail:g}, 1] "
        f"t_max with {k:g} se <= {tol:g} (agreement within a Monte Carlo error that resolves "
        f"{tol:g}; not reproduced if > {k:g} se at some t; inconclusive if {k:g} se > {tol:g})",
        f"largest |R - 1| / se = {z[worst]:.2f} at t = {ratio.index[worst]:g} (ratio "
        f"{ratio.iloc[worst]:.3f} ± {se[worst]:.3f}; {len(z)} t); resolution {k:g} se = "
        f"{resolution}; largest |R - 1| = "
        f"{np.nanmax(deviation):.3f}; {_runs(table[table['curve'] == curve])}",
        NOT_REPRODUCED if significant else INCONCLUSIVE if undefined or not resolved else REPRODUCED,
    )


def cannot_resolve(
    table: pd.DataFrame,
    curve: str,
    reference: str,
    tol: float,
    tail=0.1,
    k=K,
    other: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """The cause "these runs cannot decide a ``closeness`` claim at tolerance ``tol``, even
    if ``curve`` equalled ``reference``": the Monte Carlo resolution against ``tol``.

    R = curve / reference with its delta-method se at every recorded t of the last ``tail``
    of t (as ``closeness`` reads them); the resolution is k s with s = se / R, the se R
    would have at R = 1 (a curve equal to its reference, with the same relative Monte Carlo
    error).  ``closeness`` asks |R - 1| + k se <= tol at every t, which a curve equal to its
    reference meets only where k s <= tol.  Reproduced (the runs cannot resolve ``tol``) if
    k s > tol at some t; not reproduced if k s <= tol at every t (the runs resolve ``tol``:
    what keeps the closeness claim undecided is the measured deviation |R - 1|, not the
    noise alone); inconclusive if s is undefined (a single run) and k s <= tol wherever it
    is defined.  Exact curves on both sides (s = 0) always resolve: not reproduced.  With
    ``other`` (key ``other_figure``) ``reference`` is a curve of that table.

    Unlike "k se > tol - |R - 1| at some t", which every closeness claim short of
    reproduced satisfies, this can come out either way for an inconclusive claim.
    """
    t_range = (1.0 - tail, 1.0)
    ref = curve_rows(table if other is None else other, reference, t_range)
    rows = curve_rows(table, curve, t_range)
    cov = pair_covariance(pairs, curve, reference, rows.index) if other is None else None
    ratio, se = _ratio(rows, ref, cov)
    resolution = (k * se / ratio).to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        short = resolution > tol
    defined = np.isfinite(resolution)
    worst = int(np.argmax(np.where(defined, resolution, -np.inf)))
    deviation = np.abs(ratio - 1).to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se.to_numpy() > 0, deviation / se.to_numpy(), np.where(deviation > TIE, np.inf, 0.0))
    where = "" if other is None else " (other figure)"
    span = (f"{resolution[defined].min():.3f} to {resolution[defined].max():.3f}" if defined.any()
            else "undefined")
    verdict = (REPRODUCED if short.any() else INCONCLUSIVE if not defined.all() else NOT_REPRODUCED)
    return Verdict(
        f"{k:g} se / R of {curve} / {reference}{where} > {tol:g} at some t in [{1 - tail:g}, 1] "
        f"t_max (the runs cannot resolve {tol:g}: a curve equal to its reference would not "
        f"meet |R - 1| + {k:g} se <= {tol:g} there; not reproduced if <= {tol:g} at every t)",
        f"resolution {k:g} se / R = {span}, above {tol:g} at {int(short.sum())} of {len(resolution)} t "
        f"(largest at t = {ratio.index[worst]:g}); measured |R - 1| up to {np.nanmax(deviation):.3f}, "
        f"|R - 1| / se up to {np.nanmax(z):.2f}; {_runs(table[table['curve'] == curve])}",
        verdict,
    )


def exceeds(table: pd.DataFrame, curve: str, level: float, t_range=(0.9, 1.0), k=K, x="t") -> Verdict:
    """``curve`` stays above a fixed ``level`` over ``t_range`` (fractions of x_max), e.g.
    a diagnostics rate that must be large enough for a stated cause to act.

    With z = (value - level) / se at every recorded x of the range: reproduced if z > k at
    every x; not reproduced if z < -k at some x (significantly below the level); inconclusive
    otherwise.  Exact values (se = 0) are compared exactly (a tie fails).
    """
    rows = curve_rows(table, curve, t_range, x)
    value, se = rows["mse"].to_numpy(dtype=float), rows["se"].to_numpy(dtype=float)
    return _level_verdict(rows, value, se, value - level, level, f"{curve} - {level:g}", curve, t_range, k, x)


def _level_verdict(rows, value, se, margin, level, lhs, name, t_range, k, x) -> Verdict:
    """The verdict of "``margin`` > 0 at every x of the range" (z = margin / se), shared by
    ``exceeds`` and ``below_level``; ``lhs`` and ``name`` word the criterion and the value."""
    z, exact = _z(margin, se, np.full(len(value), level))
    worst = int(np.argmin(np.where(np.isnan(z), -np.inf, z)))
    lo, hi = t_range
    where = "exact comparison" if exact.all() else f"min z = {z[worst]:.2f}"
    return Verdict(
        f"{lhs} > {k:g} se at every {x} in [{lo:g}, {hi:g}] {x}_max "
        f"(not reproduced if < -{k:g} se at some {x}; se = 0: exact)",
        f"{where} at {x} = {rows.index[worst]:g} ({len(z)} {x}), where {name} = "
        f"{value[worst]:.3g} ± {se[worst]:.2g}; {value[-1]:.3g} at {x} = {rows.index[-1]:g}; {_runs(rows)}",
        _verdict(*_strict(z, exact, k)),
    )


def below_level(
    table: pd.DataFrame, curve: str, level: float, t_range=(0.9, 1.0), reference: str | None = None, k=K, x="t"
) -> Verdict:
    """``curve`` stays below a fixed ``level`` over ``t_range`` (fractions of x_max), or,
    with ``reference``, exceeds that curve by less than ``level`` (an absolute margin, for
    shares near 0 where a ratio is meaningless, e.g. Galante et al.'s "wrong estimates").

    With d = value (- reference value) and z = (level - d) / se (independent errors) at
    every recorded x of the range: reproduced if z > k at every x; not reproduced if z < -k
    at some x (significantly at or above the level); inconclusive otherwise.  Exact values
    (se = 0, e.g. no run with a wrong link) are compared exactly (a tie fails).
    """
    rows, value, se, name = _level_value(table, curve, t_range, reference, x)
    return _level_verdict(rows, value, se, level - value, level, f"{level:g} - ({name})", name, t_range, k, x)


def _level_value(table, curve, t_range, reference, x):
    """(rows, value, se, name) that ``below_level`` compares with its level: ``curve`` over
    ``t_range``, or its difference from ``reference`` (independent errors)."""
    rows = curve_rows(table, curve, t_range, x)
    value, se = rows["mse"].to_numpy(dtype=float), rows["se"].to_numpy(dtype=float)
    if reference is None:
        return rows, value, se, curve
    ref = curve_rows(table, reference, t_range, x).reindex(rows.index)
    return (rows, value - ref["mse"].to_numpy(dtype=float), np.hypot(se, ref["se"].to_numpy(dtype=float)),
            f"{curve} - {reference}")


def resolving_power(
    table: pd.DataFrame, below: str, above: str, other: pd.DataFrame, other_below: str,
    other_above: str, t_range=(0.1, 1.0), factor=1.0, k=K, pairs: pd.DataFrame | None = None,
) -> Verdict:
    """The cause "these runs cannot resolve the claim ``below`` < ``factor`` x ``above``":
    the gap the exact model predicts against the runs' own paired standard error.

    G(t) = factor x other_above - other_below is the exact gap (``other``: a table of exact
    curves, key ``other_figure``) and s(t) the paired se of factor x above - below in
    ``table`` (the simulated runs), so z(t) = G / s is the z an ``ordering`` check would
    expect if the runs followed the model.  Reproduced (the runs cannot resolve the claim)
    if G > 0 at every t of ``t_range`` (the model agrees with the claim) and z < k at some
    t (there the expected z falls short of the claim's k); not reproduced if G <= 0 at some
    t (the model contradicts the claim: the cause is not resolution) or z >= k at every t
    (the runs resolve the model's gap everywhere); inconclusive if s is undefined.
    """
    sim = _aligned(curve_rows(table, below, t_range), curve_rows(table, above, t_range))
    exact = _aligned(curve_rows(other, other_below, t_range), curve_rows(other, other_above, t_range))
    index = sim[0].index.intersection(exact[0].index)
    if index.empty:
        raise ValueError("the simulated and exact curves have no recorded t in common")
    sim_below, sim_above = (frame.reindex(index) for frame in sim)
    exact_below, exact_above = (frame.reindex(index) for frame in exact)
    gap = (factor * exact_above["mse"] - exact_below["mse"]).to_numpy(dtype=float)
    se = _paired_se(sim_below["se"], sim_above["se"], pair_covariance(pairs, below, above, index), factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = gap / se
    short = np.flatnonzero(z < k)
    worst = int(np.argmin(np.where(np.isnan(z), np.inf, z)))
    lo, hi = t_range
    agrees = bool(np.all(gap > 0))
    verdict = (INCONCLUSIVE if np.isnan(z).any() else
               _verdict(agrees and short.size > 0, not agrees or short.size == 0))
    return Verdict(
        f"the exact gap {_below(factor, other_above)} - {other_below} > 0 at every t in "
        f"[{lo:g}, {hi:g}] t_max and below {k:g} paired se of the runs at some t (not "
        f"reproduced if the exact gap is <= 0 somewhere or above {k:g} se everywhere)",
        f"expected z = gap / se: min {z[worst]:.2f} at t = {index[worst]:g} (exact {other_below} "
        f"/ {other_above} = {exact_below['mse'].iloc[worst] / exact_above['mse'].iloc[worst]:.4g}, "
        f"paired se / {above} = {se[worst] / sim_above['mse'].iloc[worst]:.3g}); "
        f"{short.size} of {len(z)} t with expected z < {k:g}; exact gap <= 0 at "
        f"{int(np.sum(gap <= 0))} t; {_runs(sim_below, sim_above)}",
        verdict,
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
        f"{value:.3f} ± {se:.3f} ({_runs(row)})",
        _verdict(distance <= allowed and k * se <= resolution, distance > allowed),
    )


def decreasing(table: pd.DataFrame, curve: str, t_range=(0.0, 1.0), k=K, x="t") -> Verdict:
    """The MSE of ``curve`` decreases as x grows: at every step between consecutive
    recorded x of ``t_range`` (fractions of x_max; default the whole range).

    With z = (mse(x_i) - mse(x_i+1)) / sqrt(se_i^2 + se_i+1^2) per step: reproduced if
    z > k at every step; not reproduced if z < -k at some step (a significant increase);
    inconclusive otherwise.  Exact curves (se = 0, e.g. an optimised objective) are
    compared exactly: reproduced if every step decreases, not reproduced otherwise (a flat
    step, i.e. a relative change <= TIE, included).
    """
    rows = curve_rows(table, curve, t_range, x)
    if len(rows) < 2:
        raise ValueError(f"{curve!r}: a trend needs at least two recorded {x}")
    mse, se = rows["mse"].to_numpy(dtype=float), rows["se"].to_numpy(dtype=float)
    z, exact = _z(mse[:-1] - mse[1:], np.hypot(se[:-1], se[1:]), mse[:-1])
    step = mse[1:] / mse[:-1]
    worst = int(np.lexsort((-step, np.where(np.isnan(z), np.inf, z)))[0])
    xs, lo, hi = rows.index, *t_range
    where = "exact comparison" if exact.all() else f"min z = {z[worst]:.2f}"
    return Verdict(
        f"{curve}: mse(next {x}) < mse({x}) by > {k:g} se at every step between consecutive "
        f"{x} in [{lo:g}, {hi:g}] {x}_max (not reproduced if it increases by > {k:g} se at "
        "some step; se = 0: exact, a flat step fails)",
        f"{int(np.sum(z > k))} of {len(z)} steps decrease; "
        f"{where} at {x} = {xs[worst]:g} -> {xs[worst + 1]:g}, where "
        f"mse ratio = {step[worst]:.4g}; mse({x}={xs[-1]:g}) / mse({x}={xs[0]:g}) = "
        f"{mse[-1] / mse[0]:.3g}; {_runs(rows)}",
        _verdict(*_strict(z, exact, k)),
    )


def crossing(
    table: pd.DataFrame, curve: str, reference: str, paper: float, factor=1.5, k=K, x="t",
    pairs: pd.DataFrame | None = None,
) -> Verdict:
    """``curve`` is above ``reference`` early, then crosses it and stays below "for good",
    at about the paper's x = ``paper`` (tolerance: within a factor ``factor``).

    With d = curve - reference and z = d / sqrt(se_c^2 + se_r^2 - 2 cov) at every recorded x:
    x_lo is the last x with z > k (curve significantly above: the crossing for good is
    later) and x_hi the first x after x_lo with z < -k (significantly below: the crossing
    is at or before it), so the crossing lies in the band (x_lo, x_hi], the crossing
    time's uncertainty.  Its point estimate is the last sign change of d in the band
    (linear interpolation; "-" if d does not change sign there).  Reproduced if the band
    lies inside [paper / factor, paper x factor]; not reproduced if it lies entirely
    outside (x_hi < paper / factor, e.g. a curve below from the start, or x_lo >= paper x
    factor, e.g. no crossing at all); inconclusive otherwise (the band straddles a
    tolerance limit, or is unbounded on a side inside the tolerance: too few runs).  Exact
    curves (se = 0) give z = +-inf: the band is then the grid interval of the crossing.
    """
    a, b = _aligned(curve_rows(table, curve, x=x), curve_rows(table, reference, x=x))
    d = (a["mse"] - b["mse"]).to_numpy(dtype=float)
    cov = pair_covariance(pairs, curve, reference, a.index)
    z, _ = _z(d, _paired_se(a["se"], b["se"], cov), b["mse"], (a["se"] == 0) & (b["se"] == 0))
    xs = a.index.to_numpy(dtype=float)
    above = np.flatnonzero(z > k)
    i_lo = int(above[-1]) if above.size else None
    start = 0 if i_lo is None else i_lo
    below = np.flatnonzero(z[start:] < -k)
    i_hi = start + int(below[0]) if below.size else None
    x_lo = -np.inf if i_lo is None else xs[i_lo]
    x_hi = np.inf if i_hi is None else xs[i_hi]
    stop = len(xs) - 1 if i_hi is None else i_hi
    estimate = None
    for j in range(stop - 1, start - 1, -1):
        if d[j] > 0 >= d[j + 1]:
            estimate = xs[j] + (xs[j + 1] - xs[j]) * d[j] / (d[j] - d[j + 1])
            break
    lo, hi = paper / factor, paper * factor
    est = "-" if estimate is None else f"{estimate:.4g}"
    return Verdict(
        f"{curve} crosses {reference} from above for good at {x} within a factor {factor:g} "
        f"of the paper's {paper:g}: the band (last {x} with {curve} - {reference} > {k:g} se, "
        f"first later {x} with < -{k:g} se] inside [{lo:.4g}, {hi:.4g}] (not reproduced if "
        "entirely outside, no crossing included)",
        f"crossing at {x} ~ {est}, band ({x_lo:g}, {x_hi:g}] ({len(xs)} {x}); "
        f"{_runs(a, b)}",
        _verdict(bool(x_lo >= lo and x_hi <= hi), bool(x_hi < lo or x_lo >= hi)),
    )



def _sweep_points(table: pd.DataFrame, curve: str) -> pd.DataFrame:
    """One curve of a sweep table (``colme.derived.sweeps``), one row per point, in table order."""
    rows = table[table["curve"] == curve].set_index("point")
    if rows.empty:
        raise KeyError(f"curve {curve!r} not in the sweep table; curves: {sorted(table['curve'].unique())}")
    return rows


def _coordinates(table: pd.DataFrame, point: str) -> str:
    axes = [c for c in table.columns[table.columns.get_loc("point") + 1:table.columns.get_loc("t")]]
    row = table[table["point"] == point].iloc[0]
    return ", ".join(f"{key}={row[key]:g}" for key in axes)


def _sweep_ratio(table: pd.DataFrame, curve: str, reference: str) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    """(rows of ``curve``, R = curve / reference per point, the relative se of R by the delta
    method from both se, the closed form's over its instances)."""
    rows, ref = _sweep_points(table, curve), _sweep_points(table, reference)
    relative = np.sqrt((rows["se"] / rows["mse"]) ** 2 + (ref["se"].fillna(0) / ref["mse"]) ** 2)
    return rows, rows["mse"] / ref["mse"], relative


def sweep_sign(table: pd.DataFrame, curve: str = "oracle", predicted: str = "theorem1", k=K) -> Verdict:
    """The sign of ``curve``'s gain over Local at the sweep's summary time flips where the
    closed-form ``predicted`` curve says, at every point both resolve.

    Per point: the simulated sign of MSE / Local - 1 is resolved when its |z| > k (Local is
    exact), the predicted sign when |predicted / Local - 1| > k se (the closed form averages
    over the point's instances).  Not reproduced if the two resolved signs differ at some
    point; reproduced if they agree at every point where both are resolved and those points
    include both predicted signs (the flip is seen); inconclusive otherwise.
    """
    rows, pred = _sweep_points(table, curve), _sweep_points(table, predicted)
    z = (rows["ratio"] - 1) / rows["ratio_se"]
    pred_z = (pred["ratio"] - 1) / pred["ratio_se"].where(pred["ratio_se"] > 0, np.nan)
    pred_sign = np.sign(pred["ratio"] - 1)
    pred_resolved = (pred_z.abs() > k) | (pred["ratio_se"].fillna(0) == 0)
    both = (z.abs() > k) & pred_resolved
    disagree = both & (np.sign(z) != pred_sign)
    signs_seen = set(pred_sign[both])
    unresolved = [_coordinates(table, p) for p in rows.index[~both]]
    wrong = [f"{_coordinates(table, p)} (z = {z[p]:.1f}, predicted ratio {pred['ratio'][p]:.3f})"
             for p in rows.index[disagree]]
    return Verdict(
        f"sign of {curve} / Local - 1 equals that of {predicted} / Local - 1 at every point where "
        f"both exceed {k:g} se, with both signs among them (not reproduced if they differ at some point)",
        f"{int(both.sum())} of {len(rows)} points resolved; disagree at: {'; '.join(wrong) or 'none'}; "
        f"unresolved: {'; '.join(unresolved) or 'none'}; {_runs(rows)}",
        _verdict(not disagree.any() and signs_seen >= {-1.0, 1.0}, bool(disagree.any())),
    )


def sweep_agreement(table: pd.DataFrame, curve: str = "oracle", reference: str = "theorem1", tol: float = 0.1,
                    k=K) -> Verdict:
    """``curve`` matches the closed-form ``reference`` within a relative ``tol`` at every
    point of a sweep (e.g. t x MSE of the oracle against Theorem 1's coefficient).

    R = curve / reference per point, se by the delta method from both se (the closed form's
    over the instances): reproduced if |R - 1| + k se <= tol at every point; not reproduced
    if |R - 1| - k se > tol at some point; inconclusive otherwise.  The measured text gives
    R - 1 at every point: the finite-t excess over the asymptote.
    """
    rows, ratio, relative = _sweep_ratio(table, curve, reference)
    se = ratio * relative
    gap = (ratio - 1).abs()
    excess = "; ".join(f"{_coordinates(table, p)}: {ratio[p] - 1:+.3f} ± {k * se[p]:.3f}" for p in rows.index)
    return Verdict(
        f"|{curve} / {reference} - 1| + {k:g} se <= {tol:g} at every point (not reproduced if > {tol:g} "
        f"by {k:g} se at some point)",
        f"R - 1 (finite-t excess, ± {k:g} se) at {excess}; {_runs(rows)}",
        _verdict(bool(np.all(gap + k * se <= tol)), bool(np.any(gap - k * se > tol))),
    )

def paired_correlation(table: pd.DataFrame, curve: str, reference: str, t_range=(0.1, 1.0), k=K,
                       pairs: pd.DataFrame | None = None) -> Verdict:
    """The cause "the two curves share their runs' draws (common random numbers), so their
    Monte Carlo means are positively correlated and the paired se of their difference is
    below the independent one": the correlation of the means over ``t_range``.

    rho = cov / (se_a se_b) per recorded t (the covariance table of the figure): reproduced
    if rho > 0 at every t (the paired se is the smaller everywhere: the error model, not
    the curves, decides between the two verdicts); not reproduced if rho <= 0 at some t;
    inconclusive where no covariance is recorded (one run, or curves of two figures).
    ``k`` is accepted for uniformity with the other checks, and unused.
    """
    rows, ref = _aligned(curve_rows(table, curve, t_range), curve_rows(table, reference, t_range))
    cov = pair_covariance(pairs, curve, reference, rows.index)
    se_a, se_b = rows["se"].to_numpy(dtype=float), ref["se"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = cov / (se_a * se_b)
        shrink = _paired_se(se_a, se_b, cov) / np.hypot(se_a, se_b)
    lo, hi = t_range
    defined = pairs is not None and np.isfinite(rho).all()
    worst = int(np.nanargmin(rho)) if np.isfinite(rho).any() else 0
    return Verdict(
        f"the correlation of the means of {curve} and {reference} > 0 at every t in [{lo:g}, {hi:g}] t_max "
        "(the paired se below the independent one; not reproduced if <= 0 at some t)",
        f"rho = {np.nanmin(rho):.3f} to {np.nanmax(rho):.3f} (min at t = {rows.index[worst]:g}); paired se / "
        f"independent se = {np.nanmin(shrink):.3f} to {np.nanmax(shrink):.3f}; {_runs(rows, ref)}",
        _verdict(bool(np.all(rho > 0)), bool(np.any(rho <= 0))) if defined else INCONCLUSIVE,
    )


def exact_agreement(table: pd.DataFrame, curve: str, reference: str, rtol: float, x: str = "t", k=K) -> Verdict:
    """Two exact curves (se = 0, e.g. one problem solved by two solvers) agree within a
    relative ``rtol`` at every recorded x: reproduced if |curve / reference - 1| <= rtol at
    every x, not reproduced otherwise (no Monte Carlo error: never inconclusive; ``k`` is
    accepted for uniformity with the other checks, and unused)."""
    rows, ref = _aligned(curve_rows(table, curve, x=x), curve_rows(table, reference, x=x))
    ratio = rows["mse"] / ref["mse"]
    gap = (ratio - 1).abs()
    worst = gap.idxmax()
    lower = int((ratio < 1 - rtol).sum())
    return Verdict(
        f"|{curve} / {reference} - 1| <= {rtol:g} at every {x} (exact curves; not reproduced otherwise)",
        f"largest |ratio - 1| = {gap.max():.2e} at {x} = {worst:g} (ratio {ratio[worst]:.6g}); {curve} lower by "
        f"more than {rtol:g} at {lower} of {len(ratio)} {x}",
        _verdict(bool(gap.max() <= rtol), bool(gap.max() > rtol)),
    )


def level_resolution(table: pd.DataFrame, curve: str, level: float, t_range=(0.9, 1.0),
                     reference: str | None = None, k=K, x: str = "t") -> Verdict:
    """The cause "these runs cannot decide a ``below_level`` claim, even if ``curve`` equalled
    ``reference``": the Monte Carlo resolution against ``level``.

    With the standard error s of the value (of the difference from ``reference``, the
    independent errors ``below_level`` reads) at every recorded x of ``t_range``: a difference
    of 0 gives z = level / s, so the claim can be reproduced only where k s < level.
    Reproduced (the runs cannot resolve ``level``) if k s >= level at some x; not reproduced
    if k s < level at every x (the measured difference, not the noise alone, keeps the claim
    undecided); inconclusive if s is undefined somewhere.
    """
    rows, _, se, name = _level_value(table, curve, t_range, reference, x)
    resolution = k * se
    short = resolution >= level
    worst = int(np.nanargmax(resolution)) if np.isfinite(resolution).any() else 0
    lo, hi = t_range
    return Verdict(
        f"{k:g} se of {name} >= {level:g} at some {x} in [{lo:g}, {hi:g}] {x}_max (the runs cannot show even "
        f"a difference of 0 below {level:g} there; not reproduced if < {level:g} at every {x})",
        f"{k:g} se = {np.nanmin(resolution):.2g} to {np.nanmax(resolution):.2g} (largest at {x} = "
        f"{rows.index[worst]:g}), >= {level:g} at {int(short.sum())} of {len(se)} {x}; {_runs(rows)}",
        INCONCLUSIVE if np.isnan(se).any() else _verdict(bool(short.any()), not bool(short.any())),
    )


def sweep_resolution(table: pd.DataFrame, curve: str = "oracle", reference: str = "theorem1", tol: float = 0.1,
                     k=K) -> Verdict:
    """The cause "these runs cannot decide a ``sweep_agreement`` claim at tolerance ``tol``,
    even if ``curve`` equalled ``reference`` at every point": the sweep's resolution.

    Per point, s = the delta-method se of R = curve / reference divided by R (the se R
    would have at R = 1 with the same relative errors); ``sweep_agreement`` asks |R - 1| +
    k se <= tol at every point, which a curve equal to its reference meets only where
    k s <= tol.  Reproduced (the runs cannot resolve ``tol``) if k s > tol at some point;
    not reproduced if k s <= tol at every point (the runs resolve ``tol``: the measured
    deviation |R - 1|, not the noise alone, keeps the claim undecided); inconclusive if s
    is undefined at some point.  As ``cannot_resolve``, it can come out either way for an
    inconclusive claim.
    """
    rows, ratio, relative = _sweep_ratio(table, curve, reference)
    resolution = k * relative
    short = resolution > tol
    worst = resolution.idxmax()
    deviation = (ratio - 1).abs()
    return Verdict(
        f"{k:g} se / R of {curve} / {reference} > {tol:g} at some point (the runs cannot resolve {tol:g}: "
        f"a curve equal to its reference would not meet |R - 1| + {k:g} se <= {tol:g} there; not reproduced "
        f"if <= {tol:g} at every point)",
        f"resolution {k:g} se / R = {resolution.min():.3f} to {resolution.max():.3f}, above {tol:g} at "
        f"{int(short.sum())} of {len(resolution)} points (largest at {_coordinates(table, worst)}); measured "
        f"|R - 1| up to {deviation.max():.3f}; {_runs(rows)}",
        INCONCLUSIVE if resolution.isna().any() else _verdict(bool(short.any()), not bool(short.any())),
    )


CHECKS = {
    "ordering": ordering,
    "gain": gain,
    "no_gain": no_gain,
    "convergence": convergence,
    "closeness": closeness,
    "smoother": smoother,
    "larger_gap": larger_gap,
    "larger_abs_gap": larger_abs_gap,
    "agreement": agreement,
    "cannot_resolve": cannot_resolve,
    "exceeds": exceeds,
    "below_level": below_level,
    "resolving_power": resolving_power,
    "bound_value": bound_value,
    "decreasing": decreasing,
    "crossing": crossing,
    "sweep_sign": sweep_sign,
    "sweep_agreement": sweep_agreement,
    "sweep_resolution": sweep_resolution,
    "paired_correlation": paired_correlation,
    "exact_agreement": exact_agreement,
    "level_resolution": level_resolution,
}
CLAIM_KEYS = ("id", "figure", "claim", "check", "other_figure", "diagnosis", "origin")
#: Where a claim comes from: a sentence of a paper, the project's own claim about a paper's
#: model (a sweep, an extension), or the project's reading of a published figure whose text
#: it cannot quote (Galante et al.'s Fig. 1).
ORIGINS = ("paper", "project", "figure reading")


def _formatted(value, names: dict):
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, dict):
        return {key: _formatted(item, names) for key, item in value.items()}
    return value


def load_claims(path: str | Path) -> list[dict]:
    """The claims of a claims file, one dict per claim, with its figure and defaults.

    A claim with ``each: {name: [values], ...}`` stands for one claim per combination of
    the values, its string fields formatted with them (``"{rule} eps={eps}"``), those of
    its ``diagnosis`` included.

    A ``diagnosis`` (``cause``: one sentence; ``figure``: the table it reads, e.g. an
    ablation; ``check`` and its parameters) is a second, separately stated check of why a
    claim is not reproduced.  It never changes the claim's own criterion or verdict.
    """
    spec = yaml.safe_load(Path(path).read_text())
    claims = []
    for figure, entries in spec["figures"].items():
        for entry in entries:
            entry = {"origin": "paper", **spec.get("defaults", {}), **entry, "figure": figure}
            if entry["origin"] not in ORIGINS:
                raise ValueError(f"claim {entry.get('id')}: origin is {entry['origin']!r}; allowed: {ORIGINS}")
            each = entry.pop("each", {})
            for values in itertools.product(*each.values()):
                names = dict(zip(each, values, strict=True))
                claim = {key: _formatted(value, names) for key, value in entry.items()}
                if "diagnosis" in claim:
                    claim["diagnosis"] = {"k": claim.get("k", K), **claim["diagnosis"]}
                    _check_diagnosis(claim["id"], claim["diagnosis"])
                claims.append(claim)
    return claims


def _check_diagnosis(claim_id: str, diagnosis: dict) -> None:
    """A diagnosis declares what kind of evidence it is and whether the table it reads
    existed when it was written (``table_existed``: true for a re-reading of a built table,
    false for a table first built after the diagnosis was fixed)."""
    for key in ("cause", "figure", "check", "evidence", "table_existed"):
        if key not in diagnosis:
            raise ValueError(f"claim {claim_id}: diagnosis.{key} is missing")
    if diagnosis["evidence"] not in EVIDENCE:
        raise ValueError(f"claim {claim_id}: diagnosis.evidence is {diagnosis['evidence']!r}; "
                         f"allowed: {sorted(EVIDENCE)}")
    if not isinstance(diagnosis["table_existed"], bool):
        raise ValueError(f"claim {claim_id}: diagnosis.table_existed must be true or false, "
                         f"not {diagnosis['table_existed']!r}")
    if diagnosis["check"] not in CHECKS:
        raise ValueError(f"claim {claim_id}: diagnosis.check is {diagnosis['check']!r}; "
                         f"allowed: {sorted(CHECKS)}")


def table_figures(claims: list[dict]) -> set[str]:
    """The figures whose tidy table some claim reads (its own figure, ``other_figure`` or its
    diagnosis's figure and ``other_figure``)."""
    own = {c[key] for c in claims for key in ("figure", "other_figure") if key in c}
    return own | {c["diagnosis"][key] for c in claims if "diagnosis" in c
                  for key in ("figure", "other_figure") if key in c["diagnosis"]}


DIAGNOSTICS_SUFFIX = "_diagnostics"


def tables_by_figure(paths, suffix: str = "") -> dict[str, pd.DataFrame]:
    """CSV tables (plain or gzip-compressed, ``.csv.gz``) keyed by figure: the file's name
    without ``.csv[.gz]`` and ``suffix`` (``_supplement``...)."""
    def figure(path):
        return Path(path).name.removesuffix(".gz").removesuffix(".csv").removesuffix(suffix)

    return {figure(p): pd.read_csv(p) for p in paths}


def read_inputs(tables, bounds=(), covariances=(), diagnostics=()) -> dict:
    """``evaluate``'s keyword inputs from CSV paths: the tidy tables (a grouped table's
    groups as curves "<curve> [<group>]", ``aggregation.groups_as_curves``), the
    supplementary (bound) tables, the covariance tables and the diagnostics tables (read as
    curves of the figure "<figure>_diagnostics").  The claims rule and the published-claims test both read
    their tables here."""
    by_figure = {figure: groups_as_curves(frame) for figure, frame in tables_by_figure(tables).items()}
    for figure, frame in tables_by_figure(diagnostics).items():
        by_figure[figure] = diagnostics_as_curves(frame)
    return {"tables": by_figure, "bounds": tables_by_figure(bounds, "_supplement"),
            "covariances": tables_by_figure(covariances, "_covariance")}


def diagnostics_as_curves(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """A diagnostics table (curve, quantity, t, value, se, runs) as a tidy table the checks
    read: one curve "<curve>: <quantity>" with the value in ``mse``.  A claim's diagnosis
    names it as figure "<figure>_diagnostics"."""
    return pd.DataFrame({
        "curve": diagnostics["curve"] + ": " + diagnostics["quantity"],
        "t": diagnostics["t"], "mse": diagnostics["value"], "se": diagnostics["se"],
        "runs": diagnostics["runs"],
    })


def bound_figures(claims: list[dict]) -> set[str]:
    """The figures whose supplementary table (<figure>_supplement.csv: Corollary 1, Theorem 1) some claim reads."""
    return {c["figure"] for c in claims if c["check"] == "bound_value"}


#: Checks comparing two curves of one table, which take the covariance of their means.
PAIRED_CHECKS = ("ordering", "gain", "no_gain", "convergence", "closeness", "crossing", "agreement",
                 "resolving_power", "cannot_resolve", "paired_correlation")


def _pairs(check_name: str, figure: str, covariances: dict | None) -> dict:
    """``{"pairs": <figure's covariance table>}`` for a paired check, else nothing."""
    if check_name in PAIRED_CHECKS and covariances and figure in covariances:
        return {"pairs": covariances[figure]}
    return {}


def check(
    claim: dict,
    tables: dict[str, pd.DataFrame],
    bounds: dict[str, pd.DataFrame],
    covariances: dict[str, pd.DataFrame] | None = None,
) -> Verdict:
    """Run one claim's check on its figure's tidy table (or bound table); a cross-figure
    claim gets ``other_figure``'s table as ``other``, a paired check its figure's
    covariance table as ``pairs``."""
    params = {key: value for key, value in claim.items() if key not in CLAIM_KEYS}
    params.update(_pairs(claim["check"], claim["figure"], covariances))
    if "other_figure" in claim:
        params["other"] = tables[claim["other_figure"]]
    if claim["check"] == "bound_value":
        if claim["figure"] not in bounds:
            raise KeyError(f"{claim['id']}: no bound table for {claim['figure']!r}")
        data = bounds[claim["figure"]]
    else:
        data = tables[claim["figure"]]
    return CHECKS[claim["check"]](data, **params)


def diagnose(
    claim: dict, verdict: Verdict, tables: dict[str, pd.DataFrame], covariances: dict | None = None,
    paired: bool = True,
) -> tuple[str, str]:
    """(diagnosis, diagnosis verdict) of a claim not reproduced; ("", "") otherwise.

    The diagnosis's check runs on its own figure's table (an ablation or a diagnostics
    table; with ``other_figure``, a second table as ``other``, as for a claim); reproduced
    reads as "confirmed", not reproduced as "not confirmed".  Without ``paired`` (the
    independent error model) its check ignores the ``covariances``, but for
    ``paired_correlation``, whose subject they are.
    """
    diagnosis = claim.get("diagnosis")
    if diagnosis is None or verdict.verdict == REPRODUCED:
        return "", ""
    for key in ("figure", "other_figure"):
        if key in diagnosis and diagnosis[key] not in tables:
            return f"{diagnosis['cause']} (check not run: no table {diagnosis[key]})", "not run"
    params = {key: value for key, value in diagnosis.items() if key not in DIAGNOSIS_KEYS}
    if paired or diagnosis["check"] == "paired_correlation":
        params.update(_pairs(diagnosis["check"], diagnosis["figure"], covariances))
    if "other_figure" in diagnosis:
        params["other"] = tables[diagnosis["other_figure"]]
    result = CHECKS[diagnosis["check"]](tables[diagnosis["figure"]], **params)
    text = f"{diagnosis['cause']} Check on {diagnosis['figure']}: {result.criterion}; {result.measured}"
    return text, DIAGNOSIS_VERDICTS[result.verdict]


def evidence(claim: dict) -> str:
    """What a claim's diagnosis reads, as the report states it ("" without a diagnosis)."""
    diagnosis = claim.get("diagnosis")
    if diagnosis is None:
        return ""
    when = ("on a table that existed when it was written" if diagnosis["table_existed"]
            else "on a table first built after it was written")
    return f"{diagnosis['evidence']} ({EVIDENCE[diagnosis['evidence']]}), {when}"


#: The largest k searched for ``decisive_k``; a verdict that holds there holds at every k.
K_MAX = 38.0


def decisive_k(claim: dict, verdict: str, tables, bounds, covariances) -> float:
    """The largest k (>= K) at which the claim's check keeps its decisive ``verdict``
    (reproduced or not reproduced; bisection to 1e-3): its evidence in standard errors.
    inf where it holds at K_MAX (exact comparisons); NaN for an inconclusive claim."""
    if verdict not in (REPRODUCED, NOT_REPRODUCED):
        return math.nan

    def keeps(k):
        return check({**claim, "k": k}, tables, bounds, covariances).verdict == verdict

    if keeps(K_MAX):
        return math.inf
    low, high = K, K_MAX
    while high - low > 1e-3:
        middle = (low + high) / 2
        low, high = (middle, high) if keeps(middle) else (low, middle)
    return math.floor(low * 1000) / 1000  # to the bisection's precision, never above the bisected k


def x_scanned(claim: dict, tables) -> int:
    """How many recorded x (t, or the sweep's points) the claim's check compares: its
    curve's rows in its range (``t_range``, ``tail`` or the check's default), a sweep's
    points; 2 for a convergence (t_max and t_max / 2), 1 for a bound's value."""
    if claim["check"] == "convergence":
        return 2
    curve = claim.get("curve", claim.get("below", claim.get("smooth")))
    if claim["check"] == "bound_value" or curve is None:
        return 1
    if claim["check"].startswith("sweep_"):  # one row per point of the sweep
        return int((tables[claim["figure"]]["curve"] == curve).sum())
    defaults = {name: parameter.default for name, parameter in inspect.signature(CHECKS[claim["check"]]).parameters
                .items() if parameter.default is not inspect.Parameter.empty}
    settings = {**defaults, **claim}
    t_range = settings.get("t_range", (1.0 - settings["tail"], 1.0) if "tail" in settings else (0.0, 1.0))
    return len(curve_rows(tables[claim["figure"]], curve, tuple(t_range), settings.get("x", "t")))


def family_wise(results: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Holm's step-down correction over the claims checked together (a preset's family).

    A claim's p-value is one-sided at its decisive k: p = Phi(-k) for reproduced (every x
    must pass, so no correction within the claim) and min(1, n Phi(-k)) for not reproduced
    (one x of the n scanned suffices: Bonferroni within the claim); 1 for inconclusive.
    Ordered by p, the j-th of m claims stays decisive while p <= Phi(-K) / (m - j + 1),
    Phi(-K) being the per-claim level of the headline verdict; from the first that fails
    on, decisive verdicts read inconclusive.  Returns (p, family-wise verdict); the
    headline verdict is unchanged."""
    alpha = float(ndtr(-K))
    tail = ndtr(-results["k decisive"].astype(float).fillna(-np.inf).to_numpy())
    contradicted = (results["verdict"] == NOT_REPRODUCED).to_numpy()
    p = np.where(contradicted, np.minimum(1.0, results["x scanned"].to_numpy() * tail), tail)
    p = np.where(results["verdict"].isin([REPRODUCED, NOT_REPRODUCED]).to_numpy(), p, 1.0)
    verdicts = results["verdict"].to_numpy(dtype=object).copy()
    m = len(p)
    for rank, index in enumerate(np.argsort(p, kind="stable")):
        if p[index] > alpha / (m - rank):
            verdicts[np.argsort(p, kind="stable")[rank:]] = INCONCLUSIVE
            break
    return pd.Series(p, index=results.index, name="p"), pd.Series(verdicts, index=results.index, name=HOLM)


def evaluate(
    claims: list[dict],
    tables: dict[str, pd.DataFrame],
    bounds: dict[str, pd.DataFrame] | None = None,
    covariances: dict[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Check the claims whose figures (own and ``other_figure``) are all in ``tables``
    (figure -> tidy table); ``bounds`` (figure -> supplementary table) serves bound_value
    claims, ``covariances`` (figure -> covariance table) the paired checks.  A claim not
    reproduced that has a diagnosis gets its check's verdict too.

    Every claim is checked under both error models: paired standard errors (the primary
    verdict: the curves share their runs' draws) and independent ones (the "(independent
    se)" columns: the covariances ignored), so a verdict that hangs on the choice shows.
    """
    rows, checked = [], {}
    for claim in claims:
        if {claim["figure"], claim.get("other_figure", claim["figure"])} <= set(tables):
            paired = check(claim, tables, bounds or {}, covariances)
            checked[claim["id"]] = (claim, paired)
            independent = check(claim, tables, bounds or {}, None)
            diagnosis, diagnosis_verdict = diagnose(claim, paired, tables, covariances)
            independent_text, independent_diagnosis_verdict = diagnose(claim, independent, tables, covariances,
                                                                       paired=False)
            diagnosis = diagnosis or independent_text  # a claim not reproduced under independent se only
            rows.append([claim["id"], claim["figure"], claim.get("origin", "paper"), claim["claim"], *astuple(paired),
                         diagnosis, diagnosis_verdict,
                         evidence(claim) if diagnosis_verdict or independent_diagnosis_verdict else "",
                         independent.measured, independent.verdict, independent_diagnosis_verdict,
                         x_scanned(claim, tables),
                         decisive_k(claim, paired.verdict, tables, bounds or {}, covariances), math.nan, "", ""])
    results = pd.DataFrame(rows, columns=COLUMNS)
    results["p"], results[HOLM] = family_wise(results)
    for index, row in results.iterrows():
        if row[HOLM] == REPRODUCED:
            continue
        if row[HOLM] == row["verdict"]:
            results.loc[index, HOLM_DIAGNOSIS] = row["diagnosis verdict"]
            continue
        claim, paired = checked[row["id"]]  # moved by the correction: its diagnosis, for the Holm verdict
        text, verdict = diagnose(claim, replace(paired, verdict=row[HOLM]), tables, covariances)
        results.loc[index, HOLM_DIAGNOSIS] = verdict
        if verdict and not row["diagnosis"]:
            results.loc[index, ["diagnosis", "diagnosis evidence"]] = [text, evidence(claim)]
    return results


def model_dependent(results: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdict differs between paired and independent standard errors."""
    return results[results["verdict"] != results["verdict" + INDEPENDENT]]


def re_readings(results: pd.DataFrame) -> pd.Series:
    """Which rows' diagnoses are re-readings (``EVIDENCE``): not tests of their stated
    cause (another measure of the claim on the tables it already reads, a mechanism that
    holds by construction, another diagnosis's check repeated), so their verdicts are
    counted apart from the causes' (``summary``,
    ``confirmed_by_evidence``, ``diagnosis_counts``)."""
    return results["diagnosis evidence"].fillna("").str.startswith("re-reading")


def summary(results: pd.DataFrame, suffix: str = "") -> str:
    """Verdict counts, the claims not reproduced (and the inconclusive ones) split by their
    diagnosis's verdict, re-readings counted apart from causes (``suffix``: INDEPENDENT for
    the counts with independent standard errors)."""
    verdicts = results["verdict" + suffix]
    diagnoses = results["diagnosis verdict" + suffix].fillna("")
    reading = re_readings(results)
    counts = verdicts.value_counts()

    def split(verdict):
        causes = diagnoses[(verdicts == verdict) & ~reading].value_counts()
        text = ", ".join(f"{causes.get(v, 0)} {label}" for v, label in (
            (CONFIRMED, "cause confirmed"), (NOT_CONFIRMED, "cause not confirmed"),
            (INCONCLUSIVE, "diagnosis inconclusive"), ("", "no diagnosis yet")))
        readings = diagnoses[(verdicts == verdict) & reading].value_counts()
        if readings.sum():
            text += "; re-readings, not causes: " + ", ".join(
                f"{readings.get(v, 0)} {v}" for v in (CONFIRMED, NOT_CONFIRMED, INCONCLUSIVE))
        return text

    return (
        f"{len(results)} claims: {counts.get(REPRODUCED, 0)} {REPRODUCED}; "
        f"{counts.get(NOT_REPRODUCED, 0)} {NOT_REPRODUCED} ({split(NOT_REPRODUCED)}); "
        f"{counts.get(INCONCLUSIVE, 0)} {INCONCLUSIVE} ({split(INCONCLUSIVE)})"
    )


def confirmed_by_evidence(results: pd.DataFrame) -> str:
    """The confirmed causes counted by what their checks read; confirmed re-readings apart."""
    confirmed = results["diagnosis verdict"] == CONFIRMED
    reading = re_readings(results)
    causes = results[confirmed & ~reading]["diagnosis evidence"]
    fresh = int(causes.str.endswith("first built after it was written").sum())
    kinds = causes.str.split(" ").str[0].value_counts().sort_index()
    by_kind = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
    text = (f"{len(causes)} causes confirmed ({by_kind or 'none'}); {fresh} of them on a table "
            f"first built after the diagnosis was written, {len(causes) - fresh} on a table that existed")
    readings = int((confirmed & reading).sum())
    if reading.any():
        text += (f"; besides, {readings} of {int(reading.sum())} re-readings confirmed (not tests of their "
                 "stated cause)")
    return text


def diagnosis_counts(results: pd.DataFrame) -> dict:
    """build.json's diagnosis counts: the causes' verdicts ("" for claims without one)
    and, apart, the re-readings' verdicts; the reported diagnoses (under either error
    model) by kind of evidence (``evidence_counts``)."""
    verdicts = results["diagnosis verdict"].fillna("")
    reading = re_readings(results)
    return {
        "diagnosis_verdicts": verdicts[~reading].value_counts().sort_index().to_dict(),
        "re_reading_verdicts": verdicts[reading].value_counts().sort_index().to_dict(),
        **evidence_counts(results),
    }


def evidence_counts(results: pd.DataFrame) -> dict:
    """The diagnoses a build reports (under either error model) counted by kind of evidence
    (``EVIDENCE``: ablation, diagnostics, power, re-reading) and, apart, how many of the
    causes (not re-readings) read a table first built after they were written."""
    stated = results["diagnosis evidence"].fillna("")
    stated = stated[stated != ""]
    kinds = stated.str.split(" ").str[0]
    fresh = stated[(kinds != "re-reading") & stated.str.endswith("first built after it was written")]
    return {
        "diagnosis_evidence": {kind: int((kinds == kind).sum()) for kind in EVIDENCE},
        "causes_on_unseen_tables": len(fresh),
    }


def evidence_summary(results: pd.DataFrame) -> str:
    """``evidence_counts`` as a sentence for the reports."""
    counts = evidence_counts(results)
    kinds = counts["diagnosis_evidence"]
    causes = sum(n for kind, n in kinds.items() if kind != "re-reading")
    return (f"Diagnoses reported, by evidence: {', '.join(f'{n} {kind}' for kind, n in kinds.items())}; "
            f"{counts['causes_on_unseen_tables']} of the {causes} causes read a table first built after "
            "they were written")


MARKDOWN_COLUMNS = [column for column in COLUMNS if column != "measured" + INDEPENDENT]


#: What was fixed when, stated once for every report (claims.md, the claims page, README).
HISTORY = (
    "The criteria of the papers' claims (check, parameters, k, window, curves) were written from "
    "the papers' wording and first committed (1a94d0e) before any result table was, and none has "
    "changed since; that is all git proves: by then the README already listed Fig. 1 as built, "
    "with a 12-minute build (e0b2187), and recorded a measured job memory (4cd5911), so results "
    "had been seen when the criteria were written.  The project's own claims (origin \"project\": "
    "the sweeps' Theorem 1 / Corollary 1 claims, the joint optimum of PriCER's (8), the world "
    "claims) and its readings of Galante et al.'s Fig. 1 (origin \"figure reading\": that paper's "
    "text is not quoted) were written before their own tables were built, except "
    "pricer3.decreasing.joint, whose curve the README described as drawn at ab44964.  Not fixed "
    "in advance: the error model of two-curve comparisons (paired standard errors, the headline) "
    "was chosen on 2026-11-23, about 5 hours after the first results, so both models' verdicts "
    "are given; the family-wise (Holm) column was added on 2026-11-25, after the verdicts were "
    "known; every diagnosis was written after its claim's verdict was known (each says whether "
    "the table its check reads existed then, or its answer was otherwise known).  Two history "
    "details: the README text describing PriCER's Algorithm 3 as non-monotone predates the "
    "claims commit by 9 minutes, and the comment on the tolerance of fig3.zoom.bayes-crossing "
    "cites a crossing time measured before."
)


def origin_counts(results: pd.DataFrame) -> str:
    counts = results["origin"].value_counts()
    return ", ".join(f"{counts.get(origin, 0)} {origin}" for origin in ORIGINS)


def holm_summary(results: pd.DataFrame) -> str:
    """The family-wise verdict counts and the claims whose verdict it moves."""
    counts = results[HOLM].value_counts()
    moved = results[results["verdict"] != results[HOLM]]
    return (f"{counts.get(REPRODUCED, 0)} {REPRODUCED}, {counts.get(NOT_REPRODUCED, 0)} {NOT_REPRODUCED}, "
            f"{counts.get(INCONCLUSIVE, 0)} {INCONCLUSIVE}; moved to inconclusive ({len(moved)}): "
            + (", ".join(f"{claim} (k = {k:.2f} over {n} x)" for claim, k, n in
                         zip(moved["id"], moved["k decisive"], moved["x scanned"], strict=True)) or "none"))


def to_markdown(results: pd.DataFrame) -> str:
    """The results as a Markdown report: verdict counts under both error models, the
    claims whose verdict depends on the model, then one table row per claim."""
    moved = model_dependent(results)
    lines = [
        "# Claims checked on the aggregated tables",
        "",
        (
            f"Paired standard errors (primary): {summary(results)}.  "
            f"Independent standard errors: {summary(results, INDEPENDENT)}.  "
            f"{confirmed_by_evidence(results)}.  {evidence_summary(results)}.  "
            "Criteria: workflow/claims.yaml and src/colme/claims.py (se = Monte Carlo standard "
            "error).  A diagnosis states a cause for a claim not reproduced and checks it on "
            "another table; it never changes the claim's own verdict."
        ),
        "",
        f"Origin of the claims: {origin_counts(results)}.  {HISTORY}",
        "",
        (f"Family-wise (Holm's correction over these {len(results)} claims at the per-claim level "
         f"Phi(-{K:g}) = {ndtr(-K):.4f}; column {HOLM!r}): {holm_summary(results)}."),
        "",
        f"Verdicts that depend on the error model ({len(moved)}): "
        + (", ".join(f"{claim} ({paired} paired, {independent} independent)" for claim, paired, independent
                     in zip(moved["id"], moved["verdict"], moved["verdict" + INDEPENDENT], strict=True))
           or "none") + ".",
        "",
        "| " + " | ".join(MARKDOWN_COLUMNS) + " |",
        "|" + "---|" * len(MARKDOWN_COLUMNS),
    ]
    for row in results[MARKDOWN_COLUMNS].itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines) + "\n"
