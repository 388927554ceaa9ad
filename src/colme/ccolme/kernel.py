"""Private-C-ColME (seed 002, Algorithm 1): a compiled Monte Carlo engine.

One call simulates one run (one class assignment, one graph, one data stream) for *all*
curves of a panel at once: curves differ only by the decision rule and the privacy level,
so they share the data samples and the standard noise draws (common random numbers).
The kernel is generated for the panel's number of curves (lanes) with the lane loops
unrolled, so that LLVM packs them into the CPU's vector registers; its state holds errors
from the agents' true means (float32 stays exact at the paper horizon); its draws come
from an inline counter-based generator (SplitMix64) keyed by each run's generator.

The choices made where seed 002 is silent, which this kernel implements, are listed once,
in ``choices.py`` (and recorded in every figure's metadata).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import linecache
import math
import os
import re
import sys
import warnings
from dataclasses import dataclass, fields
from pathlib import Path

import numba
import numpy as np

from .._jit import call_kernel, check_distinct
from ..graphs import csr_neighbours, valid_edges
from ..populations import Population
from ..privacy import laplace_sigma_dp
from ..progress import Progress, time_segments
from ..timegrid import checked_t_record
from .rules import (
    ALPHA_RESETS,
    OPTIMISTIC_RADII,
    RULES,
    WEIGHT_OFFSETS,
    alpha_table,
    difference_beta,
    laplace_beta_dp,
    noisy_mean_beta,
)


def eps_text(eps: float) -> str:
    return "inf" if math.isinf(eps) else f"{eps:g}"


@dataclass(frozen=True)
class Curve:
    """One curve of a panel: a decision rule at a privacy level, or at a privacy ``mix``:
    (eps, share) pairs, the share of the agents at each eps (``agent_levels``)."""

    rule: str
    eps: float  # NaN for a mix
    theta_k: float = math.nan  # exponent k of theta_t = min(2, 3/t^(1/k)); Bernstein only
    mix: tuple[tuple[float, float], ...] = ()

    @property
    def name(self) -> str:
        if self.mix:
            return f"{self.rule} eps=" + ",".join(f"{eps_text(eps)}:{100 * share:g}%" for eps, share in self.mix)
        return f"{self.rule} eps={eps_text(self.eps)}"

    def levels(self, count: int) -> tuple[float, ...]:
        """The curve's eps per privacy level, padded to ``count`` levels (unused ones)."""
        levels = tuple(eps for eps, _ in self.mix) or (self.eps,)
        return levels + (levels[-1],) * (count - len(levels))

    def agent_levels(self, ranks: np.ndarray) -> np.ndarray:
        """Each agent's privacy level from its rank (a uniformly random permutation of the
        agents, ``colme.instances.privacy_ranks``): the first share_1 M ranks get the first
        eps, and so on, with counts rounded by largest remainder.  One permutation per run
        serves every curve, so mixes of one figure nest and pair run by run."""
        if not self.mix:
            return np.zeros(len(ranks), dtype=np.int64)
        counts = share_counts([share for _, share in self.mix], len(ranks))
        return np.searchsorted(np.cumsum(counts), ranks, side="right")


def share_counts(shares, n_agents: int) -> np.ndarray:
    """Agents per share: floor(share M), the remainder to the largest fractional parts
    (the first listed among equal ones)."""
    exact = np.asarray(shares, dtype=np.float64) * n_agents
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: n_agents - int(counts.sum())]] += 1
    return counts


@dataclass(frozen=True)
class PanelSpec:
    """Everything the engine needs besides the instances and the seeds."""

    n_agents: int
    #: r of the optimistic radius's ln(4 r M sqrt(t + 1)/delta): the random regular graph's
    #: degree, or None for another family: then each run's mean degree 2E/M (choices.py).
    degree: int | None
    curves: tuple[Curve, ...]
    t_record: np.ndarray  # strictly increasing recorded times, last one = t_max
    population: Population = Population()  # noqa: RUF009 - frozen, so shared safely
    alpha_schedule: str = "floor10"
    alpha_reset: str = "per_agent"  # a value of rules.ALPHA_RESETS
    weights: str = "eq2"
    optimistic_delta: float = 1.0
    optimistic_radius: str = "sqrt_over_all"  # a key of rules.OPTIMISTIC_RADII
    bernstein_beta: str = "sec3c1"  # a value of rules.BERNSTEIN_BETAS

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    @property
    def mixed(self) -> bool:
        """Whether agents differ beyond their means (per-class laws or sigma, or a privacy
        mix): then the kernel's ``mixed`` variant runs (``kernel_source``)."""
        return not self.population.uniform_law or any(c.mix for c in self.curves)

    @property
    def n_levels(self) -> int:
        """Privacy levels per curve: the largest mix's (1 without mixes)."""
        return max(len(c.mix) or 1 for c in self.curves)

    def curve_arrays(self) -> dict[str, np.ndarray]:
        """Per-curve parameters as arrays for the kernel: rule code, sigma_DP, the Bernstein
        parameter of a noisy difference (``difference_beta`` of two agents' beta~), k.
        sigma_DP and the pair's beta are those of the shared law (NaN in a mixed panel,
        whose kernel reads ``profile_arrays`` instead)."""
        arrays = {
            "rule": np.array([RULES[c.rule] for c in self.curves], dtype=np.int64),
            "theta_k": np.array([c.theta_k for c in self.curves], dtype=np.float64),
        }
        if self.mixed:
            nan = np.full(len(self.curves), math.nan)
            return arrays | {"sigma_dp": nan, "beta_pair": nan}
        law = self.population.shared_law
        sigma, half_width, beta = law.sigma, law.half_width, law.bernstein_beta
        sigma_dp = np.array([laplace_sigma_dp(c.eps, half_width) for c in self.curves])
        beta_bar = [noisy_mean_beta(sigma, beta, s, laplace_beta_dp(s)) for s in sigma_dp]
        return arrays | {
            "sigma_dp": sigma_dp,
            "beta_pair": np.array(
                [
                    difference_beta(b, b, sigma, sigma, s, s, self.bernstein_beta)
                    for b, s in zip(beta_bar, sigma_dp, strict=True)
                ]
            ),
        }

    def profile_noise(self, curves) -> np.ndarray:
        """sigma_DP (lanes, profiles) of a mixed panel's lane group ``curves``: profile
        p = class * n_levels + level, the Laplace mechanism of Lemma 1 calibrated to the
        class law's support (half-width L of ``DataLaw.half_width``)."""
        levels = self.n_levels
        return np.array([
            [laplace_sigma_dp(curve.levels(levels)[p % levels], self.population.laws[p // levels].half_width)
             for p in range(self.population.n_classes * levels)]
            for curve in curves
        ])

    def profile_arrays(self, curves, noise: np.ndarray) -> dict[str, np.ndarray]:
        """The threshold parameters of every (profile, profile) pair per lane, flattened
        (pair * lanes + lane) for the mixed kernel: both agents' sigma and sigma_DP (``noise``,
        ``profile_noise(curves)``) and the Bernstein parameter of their noisy difference
        (Sec. III-C1 with each agent's law's beta, ``DataLaw.bernstein_beta``, and beta_DP =
        sigma_DP/sqrt 2)."""
        levels = self.n_levels
        laws = [self.population.laws[p // levels] for p in range(self.population.n_classes * levels)]
        beta_bar = np.array([
            [noisy_mean_beta(law.sigma, law.bernstein_beta, s, laplace_beta_dp(s)) for law, s in zip(laws, row, strict=True)]
            for row in noise
        ])
        pairs = [(pa, pb) for pa in range(len(laws)) for pb in range(len(laws))]
        lanes = range(len(curves))
        def flat(value):
            return np.array([[value(lane, pa, pb) for lane in lanes] for pa, pb in pairs], dtype=np.float64).reshape(-1)
        return {
            "pair_sigma_a": flat(lambda lane, pa, pb: laws[pa].sigma),
            "pair_sigma_b": flat(lambda lane, pa, pb: laws[pb].sigma),
            "pair_noise_a": flat(lambda lane, pa, pb: noise[lane, pa]),
            "pair_noise_b": flat(lambda lane, pa, pb: noise[lane, pb]),
            "pair_beta": flat(lambda lane, pa, pb: difference_beta(
                beta_bar[lane, pa], beta_bar[lane, pb], laws[pa].sigma, laws[pb].sigma,
                noise[lane, pa], noise[lane, pb], self.bernstein_beta)),
        }

    def agent_profiles(self, curves, noise: np.ndarray, classes: np.ndarray, ranks: np.ndarray | None) -> dict:
        """Per agent and lane (a * lanes + lane) of a mixed panel's run: the agent's noise
        level (from ``noise``, ``profile_noise(curves)``) and its profile's row and column
        offsets in the pair table."""
        levels = self.n_levels
        n_profiles = self.population.n_classes * levels
        lanes = len(curves)
        ranks = np.zeros(len(classes), dtype=np.int64) if ranks is None else ranks
        profile = np.stack(
            [classes.astype(np.int64) * levels + curve.agent_levels(ranks) for curve in curves], axis=1
        )
        return {
            "agent_noise": noise[np.arange(lanes)[None, :], profile].reshape(-1),
            "profile_row": (profile * n_profiles * lanes).astype(np.uint64).reshape(-1),
            "profile_col": (profile * lanes).astype(np.uint64).reshape(-1),
        }


# --- Inline random numbers --------------------------------------------------------------
#
# SplitMix64 (Steele, Lea & Flood 2014): draw n >= 1 of a run is mix(key + n * GOLDEN), a
# counter-based stream of a few ns per draw with no generator object in the kernel.  Draw
# order per step t and agent a: n = 2 ((t - 1) M + a) + 1 (data), + 2 (noise).  Every
# curve of a run, in any kernel call, replays the same draws (common random numbers).

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TWO_M53 = 2.0**-53


@numba.njit(cache=True)
def _mix_uniform(x):
    """SplitMix64's output function of the counter value ``x``, as a uniform in [0, 1)."""
    z = (x ^ (x >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return np.float64(z >> _S11) * _TWO_M53


def run_key(generator: np.random.Generator) -> int:
    """A run's 64-bit stream key: one draw from a copy of its generator (left untouched)."""
    return int(copy.deepcopy(generator).integers(0, 2**64, dtype=np.uint64))


# --- The kernel, generated for a given number of lanes ----------------------------------
#
# Lines holding "@" are repeated once per lane (curve) with "@" replaced by the lane
# index: the lane loops are unrolled in the source, so a curve's state lives in scalars
# that LLVM's SLP vectorizer packs into whatever vector registers the CPU has (12 lanes:
# 8 + 4 float32 on AVX2, 16-wide registers on AVX-512), with no padding to a register width.
#
# State in error coordinates: per agent and curve the kernel holds e_a = mu~_a - mu_a and
# the noisy-mean error X~_a - mu_a, small numbers whose float32 ulp stays far below the
# consensus increments at t = 3e4 (an absolute mu~_a ~ 0.5 would lose them, biasing float32
# by +1.5%).  Neighbour b's value seen from a is e_b - offset_ab, offset_ab = mu_a - mu_b
# per directed edge (0 within a class): exact in real arithmetic.  The decision compares
# |(X~_a - mu_a) - (X~_b - mu_b) + offset_ab| = |X~_a - X~_b| to the threshold; offset_ba =
# -offset_ab makes it symmetric bit for bit.
#
# The kernel is only ever called by keyword (``call_kernel``): the order of its parameter
# list binds no caller, and Workspace's field names are its scratch parameters' names.

_TEMPLATE = '''
@step
def prefetch_row(array, row):
    """Ask for both cache lines a lane row starting at ``row`` may straddle (large graphs,
    where a neighbour's row comes from DRAM: more misses in flight)."""
    prefetch(array, row)
    prefetch(array, row + LANES - np.uint64(1))


@step
def start_run(agent_means, one, sample_sum, noise_sum, accepted, clock, error):
    """Algorithm 1, line 1: mu~^(0) = 0 (error -mu_a), no sample yet, every clock at 0,
    C^(0) empty."""
    zero = one - one
    for a in range(agent_means.shape[0]):
        ra = np.uint64(a) * LANES
        sample_sum[a] = 0.0
        noise_sum[a] = 0.0
        error[ra + U@] = -agent_means[a]
        clock[ra + U@] = zero
    for i in range(accepted.shape[0]):
        accepted[i] = 0


@step
def receive(counter, half_width, agent_class, law_code, law_a0, law_a1, law_a2, quantiles, sample_sum, noise_sum):
    """Lines 3-4: each agent's new sample x_a^(t) - mu_a and standard Laplace noise draw,
    accumulated (sample_sum[a] = sum of x_a - mu_a); returns the stream counter."""
    for a in range(sample_sum.shape[0]):
        counter += GOLDEN
        sample_sum[a] += half_width * (2.0 * mix_uniform(counter) - 1.0)  #:shared
        c = agent_class[a]  #:mixed
        sample_sum[a] += centred_sample(mix_uniform(counter), law_code[c], law_a0[c], law_a1[c], law_a2[c], quantiles[c])  #:mixed
        counter += GOLDEN
        noise_sum[a] += unit_laplace(mix_uniform(counter))
    return counter


@step
def set_thresholds(t, rule, sigma_dp, beta_pair, theta_k, pair_sigma_a, pair_sigma_b, pair_beta, pair_noise_a,
                   pair_noise_b, sigma, degree, n_agents, delta, radius_form, threshold, pair_threshold):
    """The decision rule's threshold at t (Sec. III-C): one per lane, or one per profile
    pair and lane when agents differ."""
    threshold[@] = acceptance_threshold(rule[@], t, theta_k[@], sigma, sigma, beta_pair[@], sigma_dp[@], sigma_dp[@], degree, n_agents, delta, radius_form)  #:shared
    for q in range(pair_sigma_a.shape[0] // LANES):  #:mixed
        rq = np.uint64(q) * LANES  #:mixed
        pair_threshold[rq + U@] = acceptance_threshold(rule[@], t, theta_k[@], pair_sigma_a[rq + U@], pair_sigma_b[rq + U@], pair_beta[rq + U@], pair_noise_a[rq + U@], pair_noise_b[rq + U@], degree, n_agents, delta, radius_form)  #:mixed


@step
def publish(t, sigma_dp, agent_noise, one, sample_sum, noise_sum, noisy, set_size, flips):
    """Line 5: each agent's noisy mean X~_a^(t) (as the error X~_a - mu_a), |C_a| reset to
    {a}, and at t = 1 every C_a marked changed (C_a^(0) is empty)."""
    inv_t = 1.0 / t
    first = one if t == 1 else one - one
    noise_scale@ = sigma_dp[@]  #:shared
    for a in range(sample_sum.shape[0]):
        ra = np.uint64(a) * LANES
        s = sample_sum[a]
        z = noise_sum[a]
        noisy[ra + U@] = (s + noise_scale@ * z) * inv_t  #:shared
        noisy[ra + U@] = (s + agent_noise[ra + U@] * z) * inv_t  #:mixed
        set_size[ra + U@] = one
        flips[ra + U@] = first


@step
def decide(rule, indptr, upper, neighbour_row, edge_row, offset, same, profile_row, profile_col, one,
           weight_offset, threshold, pair_threshold, noisy, accepted, set_size, flips, inverse_weight):
    """Lines 6-7, the decision rule chi_a^(t)(b) = chi_b^(t)(a), once per edge {a, b} from
    its lower end a (neighbours k >= upper[a] have b > a): |C_a^(t)|, |C_b^(t)| and whether
    C^(t) != C^(t-1) accumulate at both ends.  Returns each lane's count of changes (> 0
    iff some C_a^(t) changed)."""
    zero = one - one
    oracle@ = one if rule[@] == 0 else zero
    limit@ = threshold[@]  #:shared
    changes@ = zero
    for a in range(indptr.shape[0] - 1):
        ra = np.uint64(a) * LANES
        ahead = a + PREFETCH_AHEAD  #:large
        if ahead < indptr.shape[0] - 1:  #:large
            for j in range(upper[ahead], indptr[ahead + 1]):  #:large
                prefetch_row(noisy, neighbour_row[j])  #:large
                prefetch_row(set_size, neighbour_row[j])  #:large
                prefetch_row(flips, neighbour_row[j])  #:large
        mine@ = noisy[ra + U@]
        size@ = set_size[ra + U@]
        flip@ = flips[ra + U@]
        row@ = profile_row[ra + U@]  #:mixed
        for k in range(upper[a], indptr[a + 1]):
            rb = neighbour_row[k]
            re = edge_row[k]
            d = offset[k]
            same_class = same[k]
            limit@ = pair_threshold[row@ + profile_col[rb + U@] + U@]  #:mixed
            now@ = max(one if abs(mine@ - noisy[rb + U@] + d) < limit@ else zero, same_class * oracle@)
            change@ = abs(now@ - as_state(accepted[re + U@], one))
            accepted[re + U@] = now@  #:small
            accepted[re + U@] = np.uint8(now@)  #:large
            size@ += now@
            flip@ += change@
            set_size[rb + U@] += now@
            flips[rb + U@] += change@
        set_size[ra + U@] = size@
        flips[ra + U@] = flip@
        changes@ += flip@
        inverse_weight[ra + U@] = one / (size@ + weight_offset)
    return ({changes@},)


@step
def consensus(changes, indptr, neighbour_row, edge_row, offset, one, block_scale, block_shift, per_agent_reset,
              global_reset, accepted, inverse_weight, noisy, flips, clock, error, error_next):
    """Lines 8-10, the consensus step with W^(t) of eq. (2): W_ab = min(1/(|C_a|+1),
    1/(|C_b|+1)), and alpha of the agent's clock tau: 1 - alpha = 1/(block + 2), block =
    floor(tau * block_scale) + block_shift (floor10: tau/10 and 0; theory: tau and -1).

    In increment form, (W e)_a = e_a + sum_b W_ab (e_b - e_a) and alpha m + (1 - alpha) x =
    m + (1 - alpha)(x - m): no rounded 1 - sum W or alpha multiplies a whole value.  The
    clock restarts (alpha_reset) when the agent's own C_a^(t) changed (per_agent), when
    anybody's did (global: ``changes`` > 0), or never (none).
    """
    zero = one - one
    two = one + one
    everybody@ = global_reset * changes[@]
    for a in range(indptr.shape[0] - 1):
        ra = np.uint64(a) * LANES
        ahead = a + PREFETCH_AHEAD  #:large
        if ahead < indptr.shape[0] - 1:  #:large
            for j in range(indptr[ahead], indptr[ahead + 1]):  #:large
                prefetch_row(inverse_weight, neighbour_row[j])  #:large
                prefetch_row(error, neighbour_row[j])  #:large
                prefetch(accepted, edge_row[j])  #:large
        own@ = inverse_weight[ra + U@]
        mine@ = error[ra + U@]
        pull@ = zero
        for k in range(indptr[a], indptr[a + 1]):
            rb = neighbour_row[k]
            re = edge_row[k]
            d = offset[k]
            w@ = as_state(accepted[re + U@], one) * min(own@, inverse_weight[rb + U@])
            pull@ += w@ * (error[rb + U@] - d - mine@)
        trigger@ = per_agent_reset * flips[ra + U@] + everybody@
        tick@ = one if trigger@ > zero else clock[ra + U@] + one
        clock[ra + U@] = tick@
        fresh@ = one / (np.floor(tick@ * block_scale) + block_shift + two)
        mixed@ = mine@ + pull@
        error_next[ra + U@] = mixed@ + fresh@ * (noisy[ra + U@] - mixed@)
    # A copy, not a swap: swapped references would hide from LLVM which argument each
    # name points to, and the no-alias vectorization would be lost.
    for i in range(error.shape[0]):
        error[i] = error_next[i]


@step
def record_mse(t, column, indptr, neighbour_row, edge_row, one, sample_sum, accepted, set_size, error, mse_out):
    """Line 11 averaged over agents into ``mse_out[:, column]``: the final if/else of
    Algorithm 1 takes the local mean when every |C_b| <= 2, b in C_a."""
    n_agents = sample_sum.shape[0]
    inv_t = 1.0 / t
    two = one + one
    squared@ = 0.0
    for a in range(n_agents):
        ra = np.uint64(a) * LANES
        local_error = sample_sum[a] * inv_t
        largest@ = set_size[ra + U@]
        for k in range(indptr[a], indptr[a + 1]):
            rb = neighbour_row[k]
            re = edge_row[k]
            largest@ = max(largest@, as_state(accepted[re + U@], one) * set_size[rb + U@])
        estimate@ = local_error if largest@ <= two else np.float64(error[ra + U@])
        squared@ += estimate@ * estimate@
    mse_out[@, column] = squared@ / n_agents


@step
def record_diagnostics(column, indptr, upper, edge_row, same, one, accepted, flips, diagnostics_out):
    """The ``DIAGNOSTICS`` into ``diagnostics_out[:, :, column]``: the decision rule's error
    rates over the graph's edges (same class rejected, other class accepted) and the share
    of agents whose C_a changed."""
    n_agents = indptr.shape[0] - 1
    zero = one - one
    same_edges = 0.0
    rejected@ = 0.0
    crossing@ = 0.0
    changed@ = 0.0
    for a in range(n_agents):
        ra = np.uint64(a) * LANES
        changed@ += 1.0 if flips[ra + U@] > zero else 0.0
        for k in range(upper[a], indptr[a + 1]):
            re = edge_row[k]
            same_edges += same[k]
            rejected@ += same[k] * (one - as_state(accepted[re + U@], one))
            crossing@ += (one - same[k]) * as_state(accepted[re + U@], one)
    cross_edges = (indptr[n_agents] - indptr[0]) / 2.0 - same_edges
    diagnostics_out[@, 0, column] = rejected@ / same_edges if same_edges > 0 else np.nan
    diagnostics_out[@, 1, column] = crossing@ / cross_edges if cross_edges > 0 else np.nan
    diagnostics_out[@, 2, column] = changed@ / n_agents


def kernel(
    # The run: its graph (CSR; rows premultiplied by LANES), classes, means, stream key.
    indptr, upper, neighbour_row, edge_row, offset, same, agent_means, key,
    # The lane group's curves (keys of PanelSpec.curve_arrays).
    rule, sigma_dp, beta_pair, theta_k,
    # Mixed panels only (``kernel_source(lanes, mixed=True)``; see ``MixedPanel``): each
    # class's law, each agent's noise level and profile row/column per lane, and the
    # parameters of each profile pair's threshold per lane.
    agent_class, law_code, law_a0, law_a1, law_a2, quantiles, agent_noise, profile_row,
    profile_col, pair_sigma_a, pair_sigma_b, pair_beta, pair_noise_a, pair_noise_b,
    # The panel's population, options and recorded times; this call runs t_first..t_last
    # (t_first = 1 starts the run; a later call resumes it from the scratch arrays).
    half_width, sigma, degree, delta, radius_form, weight_offset, one, block_scale, block_shift,
    per_agent_reset, global_reset, t_record, t_first, t_last,
    # Outputs.
    mse_out, diagnostics_out,
    # Scratch: the fields of Workspace.
    accepted, clock, noisy, error, error_next, set_size, inverse_weight, flips, threshold,
    pair_threshold, sample_sum, noise_sum,
):
    """Algorithm 1 of seed 002 for one run and one lane group, steps t_first..t_last."""
    n_agents = sample_sum.shape[0]
    if t_first == 1:
        start_run(agent_means, one, sample_sum, noise_sum, accepted, clock, error)
    # Two draws per agent and step: the counter where step t_first starts (mod 2^64).
    counter = key + np.uint64(2 * n_agents) * np.uint64(t_first - 1) * GOLDEN
    next_record = 0
    while t_record[next_record] < t_first:
        next_record += 1
    for t in range(t_first, t_last + 1):
        counter = receive(counter, half_width, agent_class, law_code, law_a0, law_a1, law_a2, quantiles,
                          sample_sum, noise_sum)
        set_thresholds(t, rule, sigma_dp, beta_pair, theta_k, pair_sigma_a, pair_sigma_b, pair_beta, pair_noise_a,
                       pair_noise_b, sigma, degree, n_agents, delta, radius_form, threshold, pair_threshold)
        publish(t, sigma_dp, agent_noise, one, sample_sum, noise_sum, noisy, set_size, flips)
        changes = decide(rule, indptr, upper, neighbour_row, edge_row, offset, same, profile_row, profile_col, one,
                         weight_offset, threshold, pair_threshold, noisy, accepted, set_size, flips, inverse_weight)
        consensus(changes, indptr, neighbour_row, edge_row, offset, one, block_scale, block_shift, per_agent_reset,
                  global_reset, accepted, inverse_weight, noisy, flips, clock, error, error_next)
        if t == t_record[next_record]:
            record_mse(t, next_record, indptr, neighbour_row, edge_row, one, sample_sum, accepted, set_size, error,
                       mse_out)
            record_diagnostics(next_record, indptr, upper, edge_row, same, one, accepted, flips, diagnostics_out)
            next_record += 1
'''

#: Most curves per kernel call; larger panels run in groups that replay the run's draws.
MAX_LANES = 16
#: Per recorded t and curve: the rule's type-I rate (same-class edges rejected), type-II
#: rate (other-class edges accepted) and the share of agents whose C_a changed at that
#: step (each restarts its alpha clock when alpha_reset is per_agent).
DIAGNOSTICS = ("same-class edges rejected", "other-class edges accepted", "agents whose C_a changed")

#: Agents from which a panel runs the ``large`` kernel (``kernel_source``).  Against the
#: small layout, r = 10, 12 curves, float32 (docs/kernel.md, "The layout for large graphs"):
#: x0.93 at M = 1e4, x0.93-1.13 at 2e4, x1.36 at 3e4, x1.48 at 1e5, x1.49 at 1e6 on a Zen 5
#: with a 32 MB L3; a CPU with a larger L3 breaks even later, hence 5e4 rather than 3e4.
LARGE_AGENTS = 50_000
#: How many agents ahead the large kernel prefetches the neighbour rows of.
PREFETCH_AHEAD = 4

_KERNELS: dict[tuple[int, bool, bool], object] = {}


def kernel_source(lanes: int, mixed: bool = False, large: bool = False) -> str:
    """The kernel's Python source for ``lanes`` curves (lane lines unrolled).

    Lines tagged ``#:shared`` are the paper's panels (one law and sigma for all agents, one
    noise level per curve); ``#:mixed`` lines replace them when agents differ (per-class
    laws or sigma, privacy mixes): per-agent draws and noise levels, and a threshold per
    profile pair.  ``#:small`` lines are for graphs whose state fits in the caches;
    ``#:large`` lines replace them from ``LARGE_AGENTS`` agents, where the neighbour rows
    come from L3 or DRAM: the accepted-edge state as uint8 (12 bytes per edge instead of
    48; ``Workspace.allocate``) and software prefetch of the rows the agent
    ``PREFETCH_AHEAD`` places on will read.  Everything else is one source for all.
    """
    tags = {"#:mixed": mixed, "#:shared": not mixed, "#:large": large, "#:small": not large}

    def lane(text: str, c: int) -> str:
        return text.replace("U@", f"U{c}").replace("@", str(c))

    lines = []
    for line in _TEMPLATE.splitlines():
        tag = next((tag for tag in tags if line.endswith(tag)), None)
        if tag is not None and not tags[tag]:
            continue
        line = line.removesuffix(tag or "").rstrip()
        if "{" in line:  # {x@} -> x0, x1, ...: every lane in one expression
            lines.append(re.sub(r"\{([^{}]*@[^{}]*)\}", lambda m: ", ".join(lane(m[1], c) for c in range(lanes)), line))
        elif "@" in line and not line.startswith("@"):
            lines.extend(lane(line, c) for c in range(lanes))
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def kernel_module_source(lanes: int, mixed: bool = False, large: bool = False) -> str:
    """A Python module defining ``kernel``, the no-alias compiled kernel for ``lanes`` curves
    (``mixed``: agents that differ; ``large``: the layout for large graphs; ``kernel_source``)."""
    package = __package__ or "colme.ccolme"
    root = package.rpartition(".")[0]
    constants = "\n".join(f"U{c} = np.uint64({c})" for c in range(lanes))
    return (
        f'"""Generated by {package}.kernel.kernel_module_source({lanes}, mixed={mixed}, large={large}): '
        'do not edit."""\n'
        "import numba\n"
        "import numpy as np\n"
        f"from {root}._jit import as_state, jit_noalias, prefetch\n"
        f"from {package}.kernel import _GOLDEN as GOLDEN, _mix_uniform as mix_uniform\n"
        f"from {package}.rules import acceptance_threshold\n"
        f"from {root}.privacy import unit_laplace\n"
        f"from {root}.populations import centred_sample\n"
        "step = numba.njit(inline='always', error_model='numpy')\n"
        f"LANES = np.uint64({lanes})\n{constants}\nPREFETCH_AHEAD = {PREFETCH_AHEAD}\n"
        + kernel_source(lanes, mixed, large)
        + "kernel = jit_noalias(kernel, cache=CACHE, slp_vectorize=True)\n"
    )


def _kernel_folder() -> Path:
    """Where generated kernel modules (and, unless NUMBA_CACHE_DIR says otherwise, their
    compiled code) are kept: $COLME_KERNEL_DIR, else $XDG_CACHE_HOME/colme/kernels."""
    if os.environ.get("COLME_KERNEL_DIR"):
        return Path(os.environ["COLME_KERNEL_DIR"])
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "colme" / "kernels"


def build_kernel(lanes: int, mixed: bool = False, cache: bool = True, large: bool = False):
    """Compile-on-call dispatcher of the kernel for ``lanes`` curves (``mixed``: agents
    that differ; ``large``: the layout for large graphs; ``kernel_source``).

    With ``cache``, the generated module is written once to ``_kernel_folder()`` under a
    name hashing its source and the modules it calls, and Numba caches its machine code
    there like any module's: later processes skip the compilation (~4 s per precision).
    Without it, or if the folder is not writable, the source is compiled in memory.
    """
    source = kernel_module_source(lanes, mixed, large)
    variant = f"{lanes}{'_mixed' if mixed else ''}{'_large' if large else ''}"
    namespace = {"__name__": f"colme_consensus_kernel_{variant}"}
    if cache:
        here = Path(__file__).resolve().parent
        digest = hashlib.sha256(source.encode())
        for path in (here / "kernel.py", here / "rules.py", here.parent / "privacy.py", here.parent / "_jit.py",
                     here.parent / "populations.py"):
            digest.update(path.read_bytes())
        name = f"consensus_kernel_{variant}_{digest.hexdigest()[:16]}"
        try:
            path = _kernel_folder() / f"{name}.py"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(source.replace("cache=CACHE", "cache=True"))
                os.replace(partial, path)  # atomic: concurrent jobs see all or nothing
            module_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module  # Numba's cached code refers to it by name
            module_spec.loader.exec_module(module)
            return module.kernel
        except (OSError, RuntimeError) as error:  # read-only or no home folder
            warnings.warn(f"kernel cache unavailable ({error}); compiling in memory", stacklevel=2)
    filename = f"<colme.ccolme kernel, {variant} lanes>"
    source = source.replace("cache=CACHE", "cache=False")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace["kernel"]


def compiled_kernel(lanes: int, mixed: bool = False, large: bool = False):
    """The kernel for ``lanes`` curves (``mixed``: agents that differ; ``large``: the
    layout for large graphs), built once per process and variant."""
    if (lanes, mixed, large) not in _KERNELS:
        _KERNELS[lanes, mixed, large] = build_kernel(lanes, mixed, large=large)
    return _KERNELS[lanes, mixed, large]


def lane_groups(n_curves: int) -> tuple[int, int]:
    """(groups, lanes): the fewest kernel calls of at most MAX_LANES lanes, evenly filled."""
    groups = -(-n_curves // MAX_LANES)
    return groups, -(-n_curves // groups)


#: alpha_tau = (block + 1)/(block + 2), block = floor(tau * scale) + shift: the schedules of
#: ``rules.alpha_table`` (floor10: floor(tau/10); theory: tau - 1), computed in the
#: kernel (no table gather); 0.1 rounds up in binary, so floor(tau * 0.1) = floor(tau / 10).
BLOCKS = {"floor10": (0.1, 0.0), "theory": (1.0, -1.0)}


@dataclass(frozen=True)
class Workspace:
    """The kernel's scratch arrays, allocated once per call of ``simulate_runs``.

    The field names are the kernel's parameter names (``arguments()`` passes them by name).
    Each field is its own allocation, so the no-alias promise of ``jit_noalias`` holds by
    construction (``__post_init__`` checks it).
    """

    accepted: np.ndarray  # per undirected edge and lane: b in C_a^(t) (1 or 0)
    clock: np.ndarray  # per agent and lane: the alpha clock tau
    noisy: np.ndarray  # noisy-mean error X~_a - mu_a
    error: np.ndarray  # consensus error e_a = mu~_a - mu_a
    error_next: np.ndarray  # next step's e_a
    set_size: np.ndarray  # |C_a^(t)|
    inverse_weight: np.ndarray  # 1/(|C_a^(t)| + weight offset)
    flips: np.ndarray  # > 0 iff C_a^(t) != C_a^(t-1)
    threshold: np.ndarray  # per lane: the decision rule's threshold at t
    pair_threshold: np.ndarray  # per profile pair and lane (mixed panels): the same
    sample_sum: np.ndarray  # per agent (float64): running sum of x_a - mu_a
    noise_sum: np.ndarray  # per agent (float64): running sum of standard noise draws

    @classmethod
    def allocate(cls, n_agents: int, n_edges: int, lanes: int, dtype, n_pairs: int = 1,
                 large: bool = False) -> Workspace:
        """Zeroed arrays, each its own allocation; per-lane state in ``dtype`` (the
        accepted-edge state, 0 or 1, in uint8 for the ``large`` kernel); ``n_pairs``
        profile pairs (mixed panels)."""
        def per_agent():
            return np.zeros(n_agents * lanes, dtype=dtype)

        return cls(
            accepted=np.zeros(n_edges * lanes, dtype=np.uint8 if large else dtype),
            clock=per_agent(),
            noisy=per_agent(),
            error=per_agent(),
            error_next=per_agent(),
            set_size=per_agent(),
            inverse_weight=per_agent(),
            flips=per_agent(),
            threshold=np.zeros(lanes, dtype=dtype),
            pair_threshold=np.zeros(n_pairs * lanes, dtype=dtype),
            sample_sum=np.zeros(n_agents),
            noise_sum=np.zeros(n_agents),
        )

    def __post_init__(self):
        check_distinct(self.arguments(), "Workspace")

    def arguments(self) -> dict[str, np.ndarray]:
        """The arrays by kernel parameter name (not ``dataclasses.asdict``, which copies)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}


def run_degree(spec: PanelSpec, n_edges: int) -> float:
    """The r of a run's optimistic radius: the spec's degree (random regular graphs), else
    the run's mean degree 2E/M, i.e. the union bound over its 2E (agent, neighbour) pairs,
    which is r M on an r-regular graph (1/M if the graph has no edge: no test is made)."""
    if spec.degree is not None:
        return float(spec.degree)
    return max(2 * n_edges, 1) / spec.n_agents


def simulate_runs(
    spec: PanelSpec,
    classes: np.ndarray,
    edges: np.ndarray,
    generators: list[np.random.Generator],
    dtype=np.float32,
    diagnostics: np.ndarray | None = None,
    progress: Progress | None = None,
    agent_means: np.ndarray | None = None,
    privacy_ranks: np.ndarray | None = None,
    large: bool | None = None,
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)) of Algorithm 1, one instance per run.

    ``agent_means`` (R, M): each run's true means (default: the class means; a population
    with jitter passes its own, ``colme.instances.run_agent_means``); ``privacy_ranks``
    (R, M): each run's permutation of the agents that assigns a mix's privacy levels
    (``Curve.agent_levels``; needed when a curve has a mix).

    ``diagnostics`` (runs, curves, len(DIAGNOSTICS), len(t_record)), if given, receives the
    ``DIAGNOSTICS`` of every run and curve at the recorded times.

    ``classes`` (R, M) and ``edges`` (R, E, 2) are the runs' instances (rows (-1, -1) pad
    runs with fewer edges, ``colme.instances.make_family_instances``); ``generators`` the
    runs' data streams: each gives the run's SplitMix64 key (``run_key``; the generators
    are not advanced).  The kernel handles up to MAX_LANES curves per call; larger panels
    replay each run's stream once per group, so every curve still sees the same samples
    and noise (common random numbers).  ``dtype`` is the precision of the per-curve state,
    held in error coordinates so that float32 stays unbiased at the paper horizon
    (``tests/test_precision.py`` checks it at t = 3e4).  With a ``progress``, each run
    is simulated in segments of time steps, reported between them (``colme.progress``):
    the same numbers as one call.  ``large`` picks the kernel's layout (``kernel_source``;
    default: from ``LARGE_AGENTS`` agents): the same numbers bit for bit, only the speed
    differs.
    """
    n_runs = classes.shape[0]
    n_curves = len(spec.curves)
    t_record = checked_t_record(spec.t_record)
    groups, lanes = lane_groups(n_curves)
    padded = groups * lanes
    # Pad the curve axis with copies of the last curve; their results are dropped.
    padded_curves = spec.curves + (spec.curves[-1],) * (padded - n_curves)
    unmixed = {  # the mixed kernel's arrays, unread by the shared one
        name: np.zeros(lanes, dtype=np.uint64 if name.startswith("profile") else np.float64)
        for name in ("agent_noise", "profile_row", "profile_col", "pair_sigma_a", "pair_sigma_b",
                     "pair_beta", "pair_noise_a", "pair_noise_b")
    }
    params = {
        key: np.concatenate([value, np.repeat(value[-1:], padded - n_curves)])
        for key, value in spec.curve_arrays().items()
    }
    alpha_table(spec.alpha_schedule, 1)  # validates the schedule's name
    if spec.alpha_reset not in ALPHA_RESETS:
        raise ValueError(f"alpha_reset must be one of {ALPHA_RESETS}, got {spec.alpha_reset!r}")
    if spec.optimistic_radius not in OPTIMISTIC_RADII:
        raise ValueError(f"optimistic_radius must be one of {tuple(OPTIMISTIC_RADII)}, got {spec.optimistic_radius!r}")
    block_scale, block_shift = BLOCKS[spec.alpha_schedule]
    if dtype(spec.t_max + 1) == dtype(spec.t_max):
        raise ValueError(f"t_max={spec.t_max} is beyond the integers {dtype.__name__} holds exactly")
    weight_offset = dtype(WEIGHT_OFFSETS[spec.weights])
    mixed = spec.mixed
    if any(c.mix for c in spec.curves) and privacy_ranks is None:
        raise ValueError("a privacy mix needs each run's privacy_ranks")
    n_profiles = spec.population.n_classes * spec.n_levels if mixed else 1
    if large is None:
        large = spec.n_agents >= LARGE_AGENTS
    workspace = Workspace.allocate(spec.n_agents, edges.shape[1], lanes, dtype, n_profiles**2, large)
    kernel = compiled_kernel(lanes, mixed, large)
    if progress is not None:
        progress.begin(n_runs * groups * spec.t_max)
    mse = np.empty((n_runs, padded, len(t_record)))
    rates = np.empty((n_runs, padded, len(DIAGNOSTICS), len(t_record)))
    population = spec.population
    shared = population.laws[0]  # read by the shared kernel only, whose classes all have it
    panel = population.kernel_laws() | {
        "half_width": shared.half_width,
        "sigma": shared.sigma,
        "delta": float(spec.optimistic_delta),
        "radius_form": OPTIMISTIC_RADII[spec.optimistic_radius],
        "weight_offset": weight_offset,
        "one": dtype(1),
        "block_scale": dtype(block_scale),
        "block_shift": dtype(block_shift),
        "per_agent_reset": dtype(spec.alpha_reset == "per_agent"),
        "global_reset": dtype(spec.alpha_reset == "global"),
        "t_record": t_record,
    }
    # Per lane group of a mixed panel: each profile's sigma_DP and the pair table, once.
    group_noise = {first: spec.profile_noise(padded_curves[first:first + lanes])
                   for first in range(0, padded, lanes)} if mixed else {}
    pair_tables = {first: spec.profile_arrays(padded_curves[first:first + lanes], noise)
                   for first, noise in group_noise.items()}
    for run in range(n_runs):
        run_edges = valid_edges(edges[run])  # without the padding of unequal edge counts
        indptr, neighbours = csr_neighbours(run_edges, spec.n_agents)
        heads = np.repeat(np.arange(spec.n_agents), np.diff(indptr))
        upper = indptr[:-1] + np.bincount(heads[neighbours < heads], minlength=spec.n_agents)
        _, edge_id = np.unique(
            np.minimum(heads, neighbours) * spec.n_agents + np.maximum(heads, neighbours),
            return_inverse=True,
        )
        mu = population.agent_means(classes[run]) if agent_means is None else agent_means[run]
        # Unsigned indices (no negative-index wraparound in the kernel), rows premultiplied.
        graph = {
            "indptr": indptr.astype(np.uint64),
            "upper": upper.astype(np.uint64),
            "neighbour_row": (neighbours * lanes).astype(np.uint64),
            "edge_row": (edge_id.reshape(-1) * lanes).astype(np.uint64),
            "offset": (mu[heads] - mu[neighbours]).astype(dtype),
            "same": (classes[run][heads] == classes[run][neighbours]).astype(dtype),
            "agent_means": mu,
            "agent_class": classes[run].astype(np.int64),
            "key": np.uint64(run_key(generators[run])),
            "degree": run_degree(spec, len(run_edges)),
        }
        for first in range(0, padded, lanes):
            group = slice(first, first + lanes)
            outputs = {
                "mse_out": np.empty((lanes, len(t_record))),
                "diagnostics_out": np.empty((lanes, len(DIAGNOSTICS), len(t_record))),
            }
            curves = {name: value[group].copy() for name, value in params.items()}
            group_curves = padded_curves[group]
            if mixed:
                curves |= pair_tables[first] | spec.agent_profiles(
                    group_curves, group_noise[first], classes[run], None if privacy_ranks is None else privacy_ranks[run])
            else:
                curves |= unmixed
            arguments = graph | curves | panel | outputs | workspace.arguments()
            for t_first, t_last in time_segments(spec.t_max, progress, f"run {run + 1}/{n_runs}"):
                call_kernel(kernel, arguments | {"t_first": t_first, "t_last": t_last})
            mse[run, group] = outputs["mse_out"]
            rates[run, group] = outputs["diagnostics_out"]
    if diagnostics is not None:
        diagnostics[...] = rates[:, :n_curves]
    return mse[:, :n_curves]
