"""Private-C-ColME (seed 002, Algorithm 1): a compiled Monte Carlo engine.

One call simulates one run (one class assignment, one graph, one data stream) for *all*
curves of a panel at once: curves differ only by the decision rule and the privacy level,
so they share the data samples and the standard noise draws (common random numbers).
The curve is the innermost array axis, so the per-edge work is one SIMD-friendly loop.

Interpretations where the paper is silent (recorded in every figure's metadata):

* W_ab^(t) uses the current |C_b^(t)| and the previous consensus mu~_b^(t-1) (Alg. 1, line 24).
* C_a^(0) is empty, so every agent "changes" at t = 1 and starts its alpha clock there;
  mu~^(0) = 0 biases t = 1 (e.g. MSE ~ 1.63 for eps = 1), as Algorithm 1 prescribes.
* The final if/else compares |C_b^(t)| <= 2 over b in C_a^(t), a included, and falls back to
  the agent's non-private local mean X-bar_a^(t) (line 32).
* The noise of curve eps is sigma_DP(eps) times one unit-variance Laplace draw shared by all
  curves; the data sample is shared too.
"""

from __future__ import annotations

import copy
import linecache
import math
from dataclasses import dataclass

import numba
import numpy as np

from ._jit import jit_noalias
from .graphs import csr_neighbours
from .populations import UniformClasses
from .privacy import laplace_beta_dp, laplace_sigma_dp, unit_laplace
from .decision_rules import (
    RULES,
    WEIGHT_OFFSETS,
    acceptance_threshold,
    alpha_table,
    noisy_mean_beta,
    uniform_bernstein_beta,
)

@dataclass(frozen=True)
class Curve:
    """One curve of a panel: a decision rule at a privacy level."""

    rule: str
    eps: float
    theta_k: float = math.nan  # exponent k of theta_t = min(2, 3/t^(1/k)); Bernstein only

    @property
    def name(self) -> str:
        eps = "inf" if math.isinf(self.eps) else f"{self.eps:g}"
        return f"{self.rule} eps={eps}"


@dataclass(frozen=True)
class PanelSpec:
    """Everything the engine needs besides the instances and the seeds."""

    n_agents: int
    degree: int
    curves: tuple[Curve, ...]
    t_record: np.ndarray  # strictly increasing recorded times, last one = t_max
    population: UniformClasses = UniformClasses()
    alpha_schedule: str = "floor10"
    alpha_reset: bool = True  # per-agent reset of the alpha clock when C_a^(t) changes
    weights: str = "eq2"
    optimistic_delta: float = 1.0

    @property
    def t_max(self) -> int:
        return int(self.t_record[-1])

    def curve_arrays(self) -> dict[str, np.ndarray]:
        """Per-curve parameters as arrays for the kernel (rule code, sigma_DP, beta~, k)."""
        sigma = self.population.sigma
        half_width = self.population.half_width
        beta = uniform_bernstein_beta(half_width)
        sigma_dp = np.array([laplace_sigma_dp(c.eps, half_width) for c in self.curves])
        return {
            "rule": np.array([RULES[c.rule] for c in self.curves], dtype=np.int64),
            "sigma_dp": sigma_dp,
            "beta_bar": np.array(
                [noisy_mean_beta(sigma, beta, s, laplace_beta_dp(s)) for s in sigma_dp]
            ),
            "theta_k": np.array([c.theta_k for c in self.curves], dtype=np.float64),
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


def splitmix64_uniforms(key: int, first: int, count: int) -> np.ndarray:
    """Draws ``first + 1 .. first + count`` of the stream ``key``, as the kernel makes them."""
    n = np.arange(first + 1, first + count + 1, dtype=np.uint64)
    z = np.uint64(key) + n * _GOLDEN  # uint64 arrays wrap modulo 2^64
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return (z >> _S11).astype(np.float64) * _TWO_M53


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

_TEMPLATE = '''
def kernel(indptr, neighbours, offset, same, agent_means, half_width, sigma, rule, sigma_dp, beta_bar,
           theta_k, degree, delta, weight_offset, one, alpha, one_minus_alpha, alpha_reset,
           t_record, key, mse_out, accepted, clock, noisy, error, error_next, set_size,
           inverse_weight, flips, threshold, sample_sum, noise_sum):
    n_agents = sample_sum.shape[0]
    zero = one - one
    oracle@ = one if rule[@] == 0 else zero
    noise_scale@ = sigma_dp[@]
    for a in range(n_agents):
        sample_sum[a] = 0.0
        noise_sum[a] = 0.0
        error[a, @] = -agent_means[a]  # mu~^(0) = 0
        clock[a, @] = 0
    for k in range(neighbours.shape[0]):
        accepted[k, @] = zero
    counter = key
    next_record = 0
    t_max = t_record[t_record.shape[0] - 1]
    for t in range(1, t_max + 1):
        inv_t = 1.0 / t
        # Data and standard noise: sample_sum[a] = sum of x_a - mu_a.
        for a in range(n_agents):
            counter += GOLDEN
            sample_sum[a] += half_width * (2.0 * mix_uniform(counter) - 1.0)
            counter += GOLDEN
            noise_sum[a] += unit_laplace(mix_uniform(counter))
        threshold[@] = acceptance_threshold(rule[@], t, theta_k[@], sigma, beta_bar[@], noise_scale@, degree, n_agents, delta)
        limit@ = threshold[@]
        for a in range(n_agents):
            s = sample_sum[a]
            z = noise_sum[a]
            noisy[a, @] = (s + noise_scale@ * z) * inv_t
        # Decision rule chi_a^(t)(b), |C_a^(t)| and whether C_a^(t) != C_a^(t-1).
        first = one if t == 1 else zero  # C_a^(0) is empty
        for a in range(n_agents):
            mine@ = noisy[a, @]
            size@ = one
            flip@ = first
            for k in range(indptr[a], indptr[a + 1]):
                b = neighbours[k]
                d = offset[k]
                same_class = same[k]
                now@ = max(one if abs(mine@ - noisy[b, @] + d) < limit@ else zero, same_class * oracle@)
                flip@ += abs(now@ - accepted[k, @])
                accepted[k, @] = now@
                size@ += now@
            set_size[a, @] = size@
            inverse_weight[a, @] = one / (size@ + weight_offset)
            flips[a, @] = flip@
        # Consensus step with W^(t) of eq. (2): W_ab = min(1/(|C_a|+1), 1/(|C_b|+1)).
        for a in range(n_agents):
            own@ = inverse_weight[a, @]
            pull@ = zero
            weight@ = zero
            for k in range(indptr[a], indptr[a + 1]):
                b = neighbours[k]
                d = offset[k]
                w@ = accepted[k, @] * min(own@, inverse_weight[b, @])
                pull@ += w@ * (error[b, @] - d)
                weight@ += w@
            tick@ = 1 if alpha_reset and flips[a, @] > zero else clock[a, @] + 1
            clock[a, @] = tick@
            error_next[a, @] = one_minus_alpha[tick@] * noisy[a, @] + alpha[tick@] * (pull@ + (one - weight@) * error[a, @])
        # A copy, not a swap: swapped references would hide from LLVM which argument each
        # name points to, and the no-alias vectorization would be lost.
        for a in range(n_agents):
            error[a, @] = error_next[a, @]
        if t == t_record[next_record]:
            # Final if/else of Algorithm 1: local mean when every |C_b| <= 2, b in C_a.
            squared@ = 0.0
            for a in range(n_agents):
                local_error = sample_sum[a] * inv_t
                largest@ = set_size[a, @]
                for k in range(indptr[a], indptr[a + 1]):
                    b = neighbours[k]
                    largest@ = max(largest@, accepted[k, @] * set_size[b, @])
                estimate@ = local_error if largest@ <= 2 else np.float64(error[a, @])
                squared@ += estimate@ * estimate@
            mse_out[@, next_record] = squared@ / n_agents
            next_record += 1
'''

#: Most curves per kernel call; larger panels run in groups that replay the run's draws.
MAX_LANES = 16

_KERNELS: dict[int, object] = {}


def kernel_source(lanes: int) -> str:
    """The kernel's Python source for ``lanes`` curves (lane lines unrolled)."""
    lines = []
    for line in _TEMPLATE.splitlines():
        if "@" in line:
            lines.extend(line.replace("@", str(c)) for c in range(lanes))
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def compiled_kernel(lanes: int):
    """The no-alias compiled kernel for ``lanes`` curves (built once per process and lane count)."""
    if lanes not in _KERNELS:
        source = kernel_source(lanes)
        filename = f"<colme.consensus kernel, {lanes} lanes>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {
            "np": np,
            "GOLDEN": _GOLDEN,
            "mix_uniform": _mix_uniform,
            "unit_laplace": unit_laplace,
            "acceptance_threshold": acceptance_threshold,
        }
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own template
        _KERNELS[lanes] = jit_noalias(namespace["kernel"], cache=False, slp_vectorize=True)
    return _KERNELS[lanes]


def lane_groups(n_curves: int) -> tuple[int, int]:
    """(groups, lanes): the fewest kernel calls of at most MAX_LANES lanes, evenly filled."""
    groups = -(-n_curves // MAX_LANES)
    return groups, -(-n_curves // groups)


class Workspace:
    """The kernel's scratch arrays, allocated once per call of ``simulate_runs``.

    Distinct allocations passed as separate arguments: the no-alias promise of
    ``jit_noalias`` holds by construction.
    """

    def __init__(self, n_agents: int, n_directed_edges: int, lanes: int, dtype):
        per_agent = [np.zeros((n_agents, lanes), dtype=dtype) for _ in range(6)]
        self.arrays = (
            np.zeros((n_directed_edges, lanes), dtype=dtype),  # accepted
            np.zeros((n_agents, lanes), dtype=np.int64),  # alpha clock
            *per_agent,  # noisy-mean error, error, next error, |C_a|, 1/(|C_a|+offset), flips
            np.zeros(lanes, dtype=dtype),  # thresholds
            np.zeros(n_agents),  # running sums of x_a - mu_a
            np.zeros(n_agents),  # running standard noise sums
        )


def simulate_runs(
    spec: PanelSpec,
    classes: np.ndarray,
    edges: np.ndarray,
    generators: list[np.random.Generator],
    dtype=np.float32,
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)) of Algorithm 1, one instance per run.

    ``classes`` (R, M) and ``edges`` (R, E, 2) are the runs' instances; ``generators`` the
    runs' data streams: each gives the run's SplitMix64 key (``run_key``; the generators
    are not advanced).  The kernel handles up to MAX_LANES curves per call; larger panels
    replay each run's stream once per group, so every curve still sees the same samples
    and noise (common random numbers).  ``dtype`` is the precision of the per-curve state,
    held in error coordinates so that float32 stays unbiased at the paper horizon
    (``tests/test_precision.py`` checks it at t = 3e4).
    """
    n_runs = classes.shape[0]
    n_curves = len(spec.curves)
    t_record = np.asarray(spec.t_record, dtype=np.int64)
    if t_record.ndim != 1 or t_record[0] < 1 or np.any(np.diff(t_record) <= 0):
        raise ValueError("t_record must be strictly increasing times >= 1")
    groups, lanes = lane_groups(n_curves)
    padded = groups * lanes
    # Pad the curve axis with copies of the last curve; their results are dropped.
    params = {
        key: np.concatenate([value, np.repeat(value[-1:], padded - n_curves)])
        for key, value in spec.curve_arrays().items()
    }
    alpha64 = alpha_table(spec.alpha_schedule, spec.t_max)
    alpha = alpha64.astype(dtype)
    one_minus_alpha = (1.0 - alpha64).astype(dtype)  # accurate 1 - alpha_t ~ 10/t in float32
    weight_offset = dtype(WEIGHT_OFFSETS[spec.weights])
    workspace = Workspace(spec.n_agents, 2 * edges.shape[1], lanes, dtype)
    kernel = compiled_kernel(lanes)
    mse = np.empty((n_runs, padded, len(t_record)))
    population = spec.population
    for run in range(n_runs):
        indptr, neighbours = csr_neighbours(edges[run], spec.n_agents)
        heads = np.repeat(np.arange(spec.n_agents), np.diff(indptr))
        mu = population.agent_means(classes[run])
        offset = (mu[heads] - mu[neighbours]).astype(dtype)
        same = (classes[run][heads] == classes[run][neighbours]).astype(dtype)
        key = np.uint64(run_key(generators[run]))
        for first in range(0, padded, lanes):
            group = slice(first, first + lanes)
            kernel(
                indptr,
                neighbours,
                offset,
                same,
                mu,
                population.half_width,
                population.sigma,
                params["rule"][group].copy(),
                params["sigma_dp"][group].copy(),
                params["beta_bar"][group].copy(),
                params["theta_k"][group].copy(),
                float(spec.degree),
                float(spec.optimistic_delta),
                weight_offset,
                dtype(1),
                alpha,
                one_minus_alpha,
                bool(spec.alpha_reset),
                t_record,
                key,
                mse_group := np.empty((lanes, len(t_record))),
                *workspace.arrays,
            )
            mse[run, group] = mse_group
    return mse[:, :n_curves]
