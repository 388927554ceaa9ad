"""The spec of a Private-ColME panel (Yakimenka et al. 2024, arXiv:2411.07094, Algorithm 1):
its curves (query schedule, release mechanism, statistic weights, noise law, variance
scheme), its privacy budget and options, and the decision rule's per-t thresholds.  Plain
data: the compiled kernel is ``kernel.py``'s, so the analytic tables and the engines read a
panel without loading it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import ndtri

from ..populations import Population
from ..privacy import gaussian_sigma_dp, laplace_sigma_dp
from .decision_rules import PAPER, PrivateDecisionRule
from .mechanisms import MECHANISMS, WEIGHTS
from .variance import VARIANCE_SCHEMES

SCHEDULES = {"rr": 0, "rrr": 1}
RETESTS = ("query", "every_step")
#: Per recorded t, averaged over agents: the share of a's classmates in C_a, the share of
#: the other agents in C_a, and the mean number of releases kappa per accepted pair.
DIAGNOSTICS = ("classmates in C_a", "non-classmates in C_a", "releases per accepted pair")


#: Why a curve estimating its variance with another mechanism than PM-I cannot run.
UNSUPPORTED_VARIANCE = "variance estimation (Sec. V) is implemented for PM-I only: use mechanism pm1"


def variance_supported(variance: str, mechanism: str) -> bool:
    """Whether a curve can run: variance estimation (Sec. V) is implemented for PM-I only."""
    return variance == "known" or mechanism == "pm1"


@dataclass(frozen=True)
class ColmeCurve:
    """One curve: query schedule, release mechanism, statistic weights, noise law, rule."""

    schedule: str = "rr"
    mechanism: str = "pm1"
    weights: str = "last"
    noise: str = "gaussian"
    oracle: bool = False
    variance: str = "known"  # known | schvar1 | schvar2 | schvar2_bayes (Sec. V)

    @property
    def name(self) -> str:
        schedule = {"rr": "RR", "rrr": "rRR"}[self.schedule]
        mechanism = {"pm1": "PM-I", "pm2": "PM-II"}[self.mechanism]
        weights = {"last": "non-MoM", "mom": "MoM", "wmom": "wMoM"}[self.weights]
        label = f"{schedule} {mechanism} {weights} {self.noise}"
        scheme = {"known": "", "schvar1": " Sch-Var-1", "schvar2": " Sch-Var-2",
                  "schvar2_bayes": " Sch-Var-2 Bayes"}[self.variance]
        return label + scheme + (" oracle" if self.oracle else "")


@dataclass(frozen=True)
class ColmeSpec:
    """A Private-ColME panel: agents, curves, privacy and the recorded times."""

    n_agents: int
    curves: tuple[ColmeCurve, ...]
    t_record: np.ndarray
    eps: float = 1.0
    delta: float = 1e-6
    pm2_split: int | None = None  # PM-II's (eps, delta) divisor; None: floor(log2 t_max) + 1
    theta0: float = 0.05
    retest: str = "query"
    population: Population = Population()  # noqa: RUF009 - frozen, so shared safely
    pm2_variance: str = "mechanism"  # analytic curves: the mechanism's Var[T] or eq. (21) as printed
    bayes_prior: str = "uninformative"  # eq. (19) prior; footnote 3: jeffreys, flat
    welch_dof: str = "t_kappa"  # Sch-Var-2's Welch degrees of freedom: t_kappa - 1 (as printed) or kappa - 1
    schvar2_first_interval: str = "keep"  # keep or drop Sch-Var-2's short first query interval
    decision_rule: PrivateDecisionRule = PAPER  # the paper's test, or a researcher's (``decision_rules``)

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    @property
    def split(self) -> int:
        """PM-II's composition factor (Sec. VII: floor(log2 t_max) + 1)."""
        return self.pm2_split if self.pm2_split is not None else int(math.log2(self.t_max)) + 1

    def psum_budget(self, curve: ColmeCurve) -> tuple[float, float]:
        """(eps, delta) of one p-sum release: the overall budget, divided for PM-II, and
        halved for Sch-Var-1, which spends the other half on the variance releases."""
        divisor = (self.split if curve.mechanism == "pm2" else 1) * (2 if curve.variance == "schvar1" else 1)
        return self.eps / divisor, self.delta / divisor

    def sigma_w(self, curve: ColmeCurve, half_width: float | None = None) -> float:
        """Noise of a released partial sample variance (Sch-Var-1): Lemma 3 (Gaussian,
        sigma^2 = 32 L^4 ln(1.25/delta)/eps^2) or its Laplace analogue (32 L^4/eps^2), for
        the support half-width L of the shared law (or ``half_width``)."""
        if curve.variance != "schvar1":
            return 0.0
        eps, delta = self.psum_budget(curve)
        fourth = 32.0 * (self.population.half_width if half_width is None else half_width) ** 4
        factor = math.log(1.25 / delta) if curve.noise == "gaussian" else 1.0
        return math.sqrt(fourth * factor) / eps

    def sigma_dp(self, curve: ColmeCurve, half_width: float | None = None) -> float:
        """Noise standard deviation of one p-sum (Lemma 1 Gaussian, Lemma 2 Laplace) for
        the support half-width L of the shared law (or ``half_width``)."""
        eps, delta = self.psum_budget(curve)
        half_width = self.population.half_width if half_width is None else half_width
        if curve.noise == "gaussian":
            return gaussian_sigma_dp(eps, delta, half_width)
        return laplace_sigma_dp(eps, half_width)

    def class_sigma_dp(self, curve: ColmeCurve) -> np.ndarray:
        """``sigma_dp`` per class: each sender's noise calibrated to its own class's support."""
        return np.array([self.sigma_dp(curve, law.half_width) for law in self.population.laws])

    def curve_arguments(self, curve: ColmeCurve) -> dict:
        """The kernel's per-curve parameters, by name (noise levels per class)."""
        return {
            "schedule": SCHEDULES[curve.schedule],
            "mechanism": MECHANISMS[curve.mechanism],
            "weights": WEIGHTS[curve.weights],
            "gaussian": curve.noise == "gaussian",
            "oracle": curve.oracle,
            "class_sigma_dp": self.class_sigma_dp(curve),
            "class_sigma_w": np.array([self.sigma_w(curve, law.half_width) for law in self.population.laws]),
            "scheme": VARIANCE_SCHEMES[curve.variance],
        }


class Thresholds(NamedTuple):
    """The decision rule's per-t constants, t = 0..t_max (Sec. III-C, theta_t = theta0/ln(t+1))."""

    theta: np.ndarray  # theta_t
    z_lower: np.ndarray  # Phi^{-1}(theta_t/2) = -z_theta: the z-test's quantile, where the Welch test's starts


def decision_thresholds(theta0: float, t_max: int) -> Thresholds:
    """``Thresholds`` for t = 0..t_max: theta_t = theta0 / ln(t + 1), capped at 1."""
    t = np.arange(t_max + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        theta = np.minimum(theta0 / np.log(t + 1.0), 1.0)
    theta[0] = 1.0
    z_lower = ndtri(theta / 2.0)
    return Thresholds(theta=theta, z_lower=z_lower)
