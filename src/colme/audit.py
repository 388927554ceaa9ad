"""An empirical privacy audit of every release mechanism: a statistical test that a
mechanism gives no more than its stated (eps, delta), and catches one that does.

The test is the black-box one of Ding et al., "Detecting Violations of Differential
Privacy" (CCS 2018, StatDP) and Bichsel et al., "DP-Sniper" (IEEE S&P 2021), as Google's
DP stochastic tester runs it: run the mechanism many times on two neighbouring inputs
(one sample at each end of its range, ``Mechanism.low`` and ``high``), pick the
distinguishing event S = {statistic > tau} (or < tau) that maximises the empirical
privacy loss on a first batch of releases (``select_event``), count how often S occurs in
a fresh batch from each input, and bound

    eps >= ln((p_hi - delta) / p_lo)

from below with Clopper-Pearson intervals on both probabilities (two-sided at alpha / 2
each, so each one-sided end at alpha / 4; ``audit``).  For Gaussian noise and for a single
Laplace release a threshold of the linear statistic ``Mechanism.release`` draws is the
optimal event (Neyman-Pearson), so the bound is tight up to the sampling error; for
compositions of Laplace releases (PM-II) it is not, and the bound is loose.  A mechanism
fails when the lower bound exceeds its stated eps: with probability at most alpha for a
correct mechanism.

Each mechanism is built from the calibration and the noise draw the engines run
(``colme.privacy``, ``ColmeSpec.sigma_dp``/``sigma_w``, ``PanelSpec.profile_noise``,
PriCER's ``link_epsilons``), so an error there moves the audit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numba
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld
from scipy import stats

from .ccolme.spec import Curve, PanelSpec
from .populations import DataLaw, Population
from .pricer.model import make_network, make_privacy
from .pricer.privacy import gaussian_factor, link_epsilons
from .privacy import unit_laplace
from .private_colme.spec import ColmeCurve, ColmeSpec


@numba.njit(cache=True)
def _unit_laplace_draws(u):
    """The kernels' unit-variance Laplace draw (``privacy.unit_laplace``) of each uniform."""
    out = np.empty(u.shape[0])
    for i in range(u.shape[0]):
        out[i] = unit_laplace(u[i])
    return out


def unit_noise(noise: str, shape, rng: np.random.Generator) -> np.ndarray:
    """Unit-variance noise as the kernels draw it: ``gaussian`` (standard normal) or
    ``laplace`` (``unit_laplace`` of a uniform)."""
    if noise == "gaussian":
        return rng.standard_normal(shape)
    uniforms = rng.random(shape)
    return _unit_laplace_draws(uniforms.ravel()).reshape(uniforms.shape)


@dataclass(frozen=True)
class Release:
    """One noisy release that holds the audited sample: its value moves by
    ``sensitivity`` between the two neighbouring inputs and carries ``noise`` (gaussian
    or laplace) of standard deviation ``scale``."""

    noise: str
    sensitivity: float
    scale: float


@dataclass(frozen=True)
class Mechanism:
    """One release mechanism to audit: the independent ``terms`` (``Release``) that hold
    one sample, from the calibration the engines run; ``stated_eps`` and ``stated_delta``
    are what the workflow claims for that sample over them (``releases``, in words)."""

    name: str
    releases: str
    stated_eps: float
    stated_delta: float
    terms: tuple[Release, ...]

    def release(self, neighbour: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """n draws of the likelihood ratio's linear statistic sum_i (d_i / s_i^2) y_i of
        the releases y_i = neighbour d_i + s_i Z_i (neighbour 0 or 1: the sample at one end
        of its range or the other), Z_i drawn as the kernels draw them (``unit_noise``):
        the optimal statistic for Gaussian noise, a good one for Laplace noise."""
        statistic = np.zeros(n)
        for term in self.terms:
            weight = term.sensitivity / term.scale**2
            statistic += weight * (neighbour * term.sensitivity + term.scale * unit_noise(term.noise, n, rng))
        return statistic

    def accounted_eps(self) -> float:
        """The tight eps at ``stated_delta`` of the composed releases, from Google's
        dp-accounting (privacy loss distributions, ``from_laplace_mechanism`` and
        ``from_gaussian_mechanism`` composed; a development dependency: the extras test and
        docs, never a job)."""

        composed = None
        for term in self.terms:
            if term.noise == "gaussian":
                one = pld.from_gaussian_mechanism(term.scale, sensitivity=term.sensitivity,
                                                  value_discretization_interval=DISCRETIZATION)
            else:
                one = pld.from_laplace_mechanism(term.scale / math.sqrt(2.0), sensitivity=term.sensitivity,
                                                 value_discretization_interval=DISCRETIZATION)
            composed = one if composed is None else composed.compose(one)
        return float(composed.get_epsilon_for_delta(self.stated_delta))


@dataclass(frozen=True)
class AuditResult:
    """``eps_hat`` (the empirical privacy loss of the chosen event on the fresh batch) and
    ``eps_lower`` (its Clopper-Pearson lower bound at confidence 1 - alpha); ``passed``:
    eps_lower <= stated eps."""

    mechanism: Mechanism
    eps_hat: float
    eps_lower: float
    event: str
    releases_per_input: int
    alpha: float

    @property
    def passed(self) -> bool:
        return self.eps_lower <= self.mechanism.stated_eps


def privacy_loss(p_hi: float, p_lo: float, delta: float) -> float:
    """ln((p_hi - delta) / p_lo), the eps an event's probabilities under two neighbouring
    inputs imply (0 where p_hi - delta <= p_lo, the event shows nothing; inf where
    p_lo = 0 < p_hi - delta)."""
    excess = p_hi - delta
    if excess <= p_lo:
        return 0.0
    return math.inf if p_lo <= 0 else math.log(excess / p_lo)


def select_event(lo: np.ndarray, hi: np.ndarray, delta: float, min_count: int = 100) -> tuple[float, int]:
    """The threshold tau and direction (+1: statistic > tau, -1: < tau) that maximise the
    empirical privacy loss of the event, P_hi[S] against P_lo[S], over thresholds at the
    pooled releases' quantiles, among events that occur at least ``min_count`` times under
    each input (so that the choice does not chase a handful of tail draws)."""
    candidates = np.quantile(np.concatenate([lo, hi]), np.linspace(0.0005, 0.9995, 801))
    lo_sorted, hi_sorted = np.sort(lo), np.sort(hi)
    best, choice = -math.inf, (float(candidates[len(candidates) // 2]), 1)
    for direction in (1, -1):
        if direction == 1:
            count_lo = len(lo) - np.searchsorted(lo_sorted, candidates, side="right")
            count_hi = len(hi) - np.searchsorted(hi_sorted, candidates, side="right")
        else:
            count_lo = np.searchsorted(lo_sorted, candidates, side="left")
            count_hi = np.searchsorted(hi_sorted, candidates, side="left")
        for tau, k_lo, k_hi in zip(candidates, count_lo, count_hi, strict=True):
            if min(k_lo, k_hi) < min_count:
                continue
            for p_a, p_b in ((k_hi / len(hi), k_lo / len(lo)), (k_lo / len(lo), k_hi / len(hi))):
                loss = privacy_loss(p_a, p_b, delta)
                if loss > best:
                    best, choice = loss, (float(tau), direction)
    return choice


def clopper_pearson(count: int, n: int, alpha: float) -> tuple[float, float]:
    """The two-sided Clopper-Pearson interval (level 1 - alpha) of a binomial proportion."""
    low = stats.beta.ppf(alpha / 2, count, n - count + 1) if count > 0 else 0.0
    high = stats.beta.ppf(1 - alpha / 2, count + 1, n - count) if count < n else 1.0
    return float(low), float(high)


def audit(mechanism: Mechanism, rng: np.random.Generator, releases: int = 1_000_000,
          selection: int = 200_000, alpha: float = 0.05) -> AuditResult:
    """Audit ``mechanism`` (module docstring): ``selection`` releases per input choose the
    event, ``releases`` fresh ones per input count it; the lower bound holds with
    confidence 1 - alpha (each probability's interval at alpha / 2, Bonferroni)."""
    delta = mechanism.stated_delta
    tau, direction = select_event(mechanism.release(0, selection, rng), mechanism.release(1, selection, rng),
                                  delta)
    counts = []
    for neighbour in (0, 1):
        values = mechanism.release(neighbour, releases, rng)
        counts.append(int(np.count_nonzero(values > tau if direction == 1 else values < tau)))
    best_hat, best_lower = 0.0, 0.0
    for k_hi, k_lo in (counts[::-1], counts):  # either input may be the one the event favours
        p_hi_low, _ = clopper_pearson(k_hi, releases, alpha / 2)
        _, p_lo_high = clopper_pearson(k_lo, releases, alpha / 2)
        hat = privacy_loss(k_hi / releases, k_lo / releases, delta)
        lower = privacy_loss(p_hi_low, p_lo_high, delta)
        if (lower, hat) > (best_lower, best_hat):
            best_hat, best_lower = hat, lower
    event = f"statistic {'>' if direction == 1 else '<'} {tau:.4g}"
    return AuditResult(mechanism, best_hat, best_lower, event, releases, alpha)


# --- the workflow's mechanisms ------------------------------------------------------------------


def ccolme_mechanisms(eps_levels=(0.5, 1.0, 4.0), half_width: float = 1.0) -> list[Mechanism]:
    """Private-C-ColME (Yakimenka et al. 2025, Lemma 1): each sample x in [mu - L, mu + L]
    is published once, as x + sigma_DP Z with Laplace Z, sigma_DP from the panel's own
    calibration (``PanelSpec.profile_noise``) at each level of a privacy mix; every later
    noisy mean is post-processing of these.  C-ColME's private variant (engine
    ``scalable``) calibrates with the same ``laplace_sigma_dp``."""

    law = DataLaw(sigma=half_width / math.sqrt(3.0))  # uniform on [-L, L]
    mix = tuple((eps, 1.0 / len(eps_levels)) for eps in eps_levels)
    spec = PanelSpec(n_agents=10, degree=2, curves=(Curve("oracle", math.nan, mix=mix),),
                     t_record=np.array([1]), population=Population(means=(0.0, 1.0), laws=(law, law)))
    noise = spec.profile_noise(spec.curves)[0]  # (profiles,): class * levels + level
    return [
        Mechanism(f"Private-C-ColME, Laplace per sample (Lemma 1), privacy-mix level eps = {eps:g}",
                  "the sample's one noisy value (every noisy mean after it is post-processing)", eps, 0.0,
                  (Release("laplace", 2.0 * half_width, float(noise[level])),))
        for level, eps in enumerate(eps_levels)
    ]


def private_colme_mechanisms(eps: float = 1.0, delta: float = 1e-5, t_max: int = 30_000,
                             half_width: float = 1.0, interval: int = 4) -> list[Mechanism]:
    """Private-ColME (Yakimenka et al. 2024): a sample enters p-sums released with
    Gaussian (Lemma 1) or Laplace (Lemma 2) noise of the spec's ``sigma_dp``:

    - PM-I: one p-sum per sample and querying agent, at the whole (eps, delta);
    - PM-II: up to floor(log2 t_max) + 1 dyadic blocks, each at (eps, delta) / that
      number (``ColmeSpec.psum_budget``), audited with the sample in all of them;
    - Sch-Var-1: the p-sum at (eps, delta) / 2, and the interval's partial variance (the
      sum of squared deviations of its ``interval`` samples, eqs. (6)-(7)) with noise
      ``sigma_w`` (n - 1) / n (the kernel's scaling) at the other half; its sensitivity is
      measured on the interval whose other samples sit at -L, where it is largest."""

    law = DataLaw(sigma=half_width / math.sqrt(3.0))
    spec = ColmeSpec(n_agents=10, curves=(), t_record=np.array([t_max]), eps=eps, delta=delta,
                     population=Population(means=(0.0, 1.0), laws=(law, law)))
    squares = [float(((v - v.mean()) ** 2).sum())
               for v in (np.append(np.full(interval - 1, -half_width), x) for x in (-half_width, half_width))]
    found = []
    for noise in ("gaussian", "laplace"):
        stated_delta = delta if noise == "gaussian" else 0.0
        lemma = 1 if noise == "gaussian" else 2
        psum = 2.0 * half_width
        pm1 = spec.sigma_dp(ColmeCurve(mechanism="pm1", noise=noise))
        pm2 = spec.sigma_dp(ColmeCurve(mechanism="pm2", noise=noise))
        schvar1 = ColmeCurve(mechanism="pm1", noise=noise, variance="schvar1")
        found += [
            Mechanism(f"Private-ColME PM-I, {noise} (Lemma {lemma})",
                      "the one p-sum holding the sample, per querying agent", eps, stated_delta,
                      (Release(noise, psum, pm1),)),
            Mechanism(f"Private-ColME PM-II, {noise} (Lemma {lemma}), {spec.split} dyadic blocks",
                      f"the {spec.split} dyadic blocks holding the sample up to t_max = {t_max}, each at "
                      f"(eps, delta) / {spec.split} (basic composition)", eps, stated_delta,
                      (Release(noise, psum, pm2),) * spec.split),
            Mechanism(f"Private-ColME Sch-Var-1, {noise} (Lemmas {lemma} and 3)",
                      f"the p-sum and the partial variance of its interval ({interval} samples), at "
                      "(eps, delta) / 2 each", eps, stated_delta,
                      (Release(noise, psum, spec.sigma_dp(schvar1)),
                       Release(noise, squares[1] - squares[0], spec.sigma_w(schvar1) * (interval - 1) / interval))),
        ]
    return found


def pricer_mechanisms(eps_links=(0.5, 2.0), delta: float = 1e-5, radius: float = 1.0,
                      weight: float = 0.5) -> list[Mechanism]:
    """PriCER (Theorem 4.1): node i sends alpha_ij x_i + sigma N(0, I_d) over link i -> j,
    ||x_i|| <= R, so one coordinate moves by up to 2 alpha_ij R; ``link_epsilons`` states
    eps_ij = sqrt(2 ln(1.25/delta_ij)) 2 alpha_ij R / sigma (with delta_ij, before the
    link's own probability p_ij).  Audited at the sigma that makes each eps_ij exact."""

    found = []
    network = make_network(np.ones(2), np.ones((2, 2)))
    alpha = np.full((2, 2), weight)
    for target in eps_links:
        sigma = float(gaussian_factor(delta)) * 2.0 * weight * radius / target
        stated = float(link_epsilons(alpha, sigma, network, make_privacy(target, delta, radius, 2))[0, 1])
        found.append(Mechanism(
            f"PriCER, Gaussian per link (Theorem 4.1), eps_ij = {stated:g}",
            "one link's message alpha_ij x_i + sigma N(0, I_d), per coordinate", stated, delta,
            (Release("gaussian", 2.0 * weight * radius, sigma),)))
    return found


def workflow_mechanisms() -> list[Mechanism]:
    """Every mechanism the workflow releases through, at the settings the audit page shows."""
    return ccolme_mechanisms() + private_colme_mechanisms() + pricer_mechanisms()


def miscalibrated(mechanism: Mechanism, factor: float = 0.5) -> Mechanism:
    """``mechanism`` with every noise scale times ``factor`` and its claim unchanged (a
    deliberately broken calibration, which the audit must catch where the claim was
    tight)."""
    terms = tuple(replace(term, scale=term.scale * factor) for term in mechanism.terms)
    return replace(mechanism, name=f"{mechanism.name}, noise scale x{factor:g} (miscalibrated)", terms=terms)


# --- the audit page ---------------------------------------------------------------------------

#: The page's settings: releases per input (after as many for the event's choice), the
#: confidence of the lower bounds, the seed, and the delta at which a pure-DP claim's
#: releases are accounted (dp-accounting's discretised Laplace loss needs delta > 0).
PAGE_RELEASES, PAGE_ALPHA, PAGE_SEED, PURE_DELTA = 1_000_000, 0.01, 20261127, 1e-12

#: dp-accounting's discretisation of the privacy loss: its pessimistic eps exceeds the
#: exact one by at most this much per composed release.
DISCRETIZATION = 1e-4


def _eps(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.3f}"


def audit_rows(mechanisms: list[Mechanism], releases: int = PAGE_RELEASES, alpha: float = PAGE_ALPHA,
               seed: int = PAGE_SEED) -> list[dict]:
    """Each mechanism and its miscalibrated copy (``miscalibrated``) audited, with their
    accounted eps: one row per mechanism."""
    rng = np.random.default_rng(seed)
    rows = []
    for mechanism in mechanisms:
        broken = miscalibrated(mechanism)
        found, caught = audit(mechanism, rng, releases, releases // 5, alpha), audit(broken, rng, releases,
                                                                                     releases // 5, alpha)
        rows.append({"mechanism": mechanism, "result": found, "accounted": accounted(mechanism),
                     "broken_accounted": accounted(broken), "broken": caught})
    return rows


def accounted(mechanism: Mechanism) -> float:
    """``Mechanism.accounted_eps`` at the stated delta, or at ``PURE_DELTA`` for a pure-DP
    claim."""
    return replace(mechanism, stated_delta=mechanism.stated_delta or PURE_DELTA).accounted_eps()


def caught_summary(rows: list[dict]) -> str:
    """How many of the halved mechanisms that break their claim the audit fails, single
    releases and compositions apart (a composition breaks its claim through events too
    rare for the audit's releases to show)."""
    broken = [row for row in rows
              if row["broken_accounted"] > row["mechanism"].stated_eps + DISCRETIZATION * len(row["mechanism"].terms)]
    parts = []
    for kind, single in (("single releases", True), ("compositions", False)):
        these = [row for row in broken if (len(row["mechanism"].terms) == 1) == single]
        caught = sum(not row["broken"].passed for row in these)
        parts.append(f"{caught} of the {len(these)} {kind}")
    return (f"Halving breaks the claim of {len(broken)} of the {len(rows)} (dp-accounting's eps above the stated "
            f"one); the audit fails {parts[0]} and {parts[1]} among them (a composition breaks its claim "
            "through events too rare for these releases to show). A mechanism whose claim survives the "
            "halving should pass.")


def audit_page() -> str:
    """The docs page of the audit (``colme.docpages`` writes it as privacy_audit.md)."""
    rows = audit_rows(workflow_mechanisms())
    level = f"{100 * (1 - PAGE_ALPHA):g} %"
    intro = f"""# Privacy audit

Generated by `python -m colme.docpages` from `colme.audit`; every number below is recomputed
at each build of this page, from a fixed seed ({PAGE_SEED}).

Every mechanism through which the workflow releases a sample is audited as a black box, as
[StatDP](https://doi.org/10.1145/3243734.3243818) (Ding et al., CCS 2018),
[DP-Sniper](https://doi.org/10.1109/SP40001.2021.00081) (Bichsel et al., IEEE S&P 2021) and
Google's DP stochastic tester do: the sample at one end of its range, then at the other (the
neighbouring inputs), {PAGE_RELEASES // 5:,} releases of each to choose the distinguishing
event (a threshold of the likelihood ratio's statistic), then {PAGE_RELEASES:,} fresh
releases of each to count it. From the two counts, eps_hat = ln((p_hi - delta) / p_lo) and
its lower confidence bound, from Clopper-Pearson intervals on both probabilities (together
at {level}). A mechanism fails when the lower bound exceeds the stated eps. The noise is
drawn as the kernels draw it, at the calibration the engines compute (`colme.privacy`,
`ColmeSpec.sigma_dp` and `sigma_w`, `PanelSpec.profile_noise`, PriCER's `link_epsilons`).

Each mechanism is also accounted by
[Google's dp-accounting](https://github.com/google/differential-privacy/tree/main/python)
(privacy loss distributions, composed): the tight eps of the same releases at the stated
delta (at delta = {PURE_DELTA:g} for a pure eps-DP claim). A stated eps at or above it: the
calibration holds; well above it: the paper's calibration is conservative there.
"""
    header = ("| mechanism | releases of one sample | stated eps (delta) | dp-accounting eps | audited eps_hat "
              f"| lower bound ({level}) | verdict |")
    lines = [*intro.split("\n"), header, "|---|---|---|---|---|---|---|"]
    for row in rows:
        mechanism, found = row["mechanism"], row["result"]
        delta = f" ({mechanism.stated_delta:g})" if mechanism.stated_delta else ""
        lines.append(f"| {mechanism.name} | {mechanism.releases} | {mechanism.stated_eps:g}{delta} "
                     f"| {_eps(row['accounted'])} | {_eps(found.eps_hat)} | {_eps(found.eps_lower)} "
                     f"| {'passes' if found.passed else '**fails**'} |")
    lines += [
        "",
        "## The audit catches a broken calibration",
        "",
        "The same mechanisms with every noise scale halved and the claim kept. " + caught_summary(rows),
        "",
        f"| mechanism | stated eps | dp-accounting eps, noise halved | lower bound ({level}) | verdict |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        mechanism, broken = row["mechanism"], row["broken"]
        lines.append(f"| {mechanism.name} | {mechanism.stated_eps:g} | {_eps(row['broken_accounted'])} "
                     f"| {_eps(broken.eps_lower)} | {'passes' if broken.passed else '**fails** (caught)'} |")
    return "\n".join(lines) + "\n"
