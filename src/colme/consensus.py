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
import math
from dataclasses import dataclass

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

#: Curves per kernel call: a compile-time trip count for the curve loops, which then
#: compile to whole vector operations (16 float32 = one AVX-512 register).  A runtime
#: trip count, or an outer loop over blocks of curves, defeats LLVM's vectorizer.
LANES = 16


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


@jit_noalias
def _simulate_run(
    indptr,
    neighbours,
    classes,
    agent_means,
    half_width,
    sigma,
    rule,
    sigma_dp,
    beta_bar,
    theta_k,
    degree,
    delta,
    weight_offset,
    one,
    alpha,
    alpha_reset,
    t_record,
    rng,
    mse_out,
    accepted,
    clock,
    noisy_mean,
    consensus,
    consensus_next,
    set_size,
    inverse_weight,
    flips,
    pull,
    pull_weight,
    oracle,
    threshold,
    largest_set,
    squared_error,
    sample_sum,
    noise_sum,
):
    """Run Algorithm 1 for every curve on one instance; write the average MSE at ``t_record``.

    The graph comes as CSR arrays (``indptr``, ``neighbours``).  The per-curve state
    arrays (M, LANES) come from ``Workspace`` in the caller's precision (float32 or
    float64); ``alpha``, ``weight_offset`` and ``one`` come in that precision too, so
    nothing in the hot loops promotes to float64.  ``accepted`` (nnz, LANES) is
    chi_a^(t)(b) as 0/1 per directed edge.  Each agent's loops write only its own row,
    every array is a distinct argument (``jit_noalias``) and the curve loops have the
    compile-time trip count LANES: together they let LLVM keep an agent's row in vector
    registers across its neighbours.
    """
    n_agents = classes.shape[0]
    n_curves = LANES
    zero = one - one
    for c in range(n_curves):
        oracle[c] = one if rule[c] == 0 else zero
        squared_error[c] = 0.0
    sample_sum[:] = 0.0
    noise_sum[:] = 0.0
    consensus[:] = zero
    accepted[:] = zero
    clock[:] = 0
    next_record = 0
    t_max = t_record[-1]
    for t in range(1, t_max + 1):
        inv_t = 1.0 / t
        for a in range(n_agents):
            sample_sum[a] += agent_means[a] + half_width * (2.0 * rng.random() - 1.0)
            noise_sum[a] += unit_laplace(rng.random())
        for c in range(n_curves):
            threshold[c] = acceptance_threshold(
                rule[c], t, theta_k[c], sigma, beta_bar[c], sigma_dp[c], degree, n_agents, delta
            )
        for a in range(n_agents):
            for c in range(n_curves):
                noisy_mean[a, c] = (sample_sum[a] + sigma_dp[c] * noise_sum[a]) * inv_t
        # Decision rule chi_a^(t)(b), |C_a^(t)| and whether C_a^(t) != C_a^(t-1).
        for a in range(n_agents):
            for c in range(n_curves):
                set_size[a, c] = one
                flips[a, c] = one if t == 1 else zero  # C_a^(0) is empty
            for k in range(indptr[a], indptr[a + 1]):
                b = neighbours[k]
                same = one if classes[a] == classes[b] else zero
                for c in range(LANES):
                    close = one if abs(noisy_mean[a, c] - noisy_mean[b, c]) < threshold[c] else zero
                    now = max(close, same * oracle[c])
                    flips[a, c] += abs(now - accepted[k, c])
                    accepted[k, c] = now
                    set_size[a, c] += now
            for c in range(n_curves):
                inverse_weight[a, c] = one / (set_size[a, c] + weight_offset)
        # Consensus step with W^(t) of eq. (2): W_ab = min(1/(|C_a|+1), 1/(|C_b|+1)).
        record = t == t_record[next_record]
        for a in range(n_agents):
            for c in range(n_curves):
                pull[a, c] = zero
                pull_weight[a, c] = zero
                largest_set[c] = set_size[a, c]
            for k in range(indptr[a], indptr[a + 1]):
                b = neighbours[k]
                for c in range(LANES):
                    w = accepted[k, c] * min(inverse_weight[a, c], inverse_weight[b, c])
                    pull[a, c] += w * consensus[b, c]
                    pull_weight[a, c] += w
                    largest_set[c] = max(largest_set[c], accepted[k, c] * set_size[b, c])
            for c in range(n_curves):
                if flips[a, c] > zero and alpha_reset:
                    clock[a, c] = 1
                else:
                    clock[a, c] += 1
                step = alpha[clock[a, c]]
                consensus_next[a, c] = (one - step) * noisy_mean[a, c] + step * (
                    pull[a, c] + (one - pull_weight[a, c]) * consensus[a, c]
                )
            if record:
                # Final if/else of Algorithm 1: local mean when every |C_b| <= 2, b in C_a.
                local_error = sample_sum[a] * inv_t - agent_means[a]
                for c in range(n_curves):
                    if largest_set[c] <= 2:
                        error = local_error
                    else:
                        error = consensus_next[a, c] - agent_means[a]
                    squared_error[c] += error * error
        # A copy, not a swap: swapped references would hide from LLVM which argument
        # each name points to, and the no-alias vectorization would be lost (~2.5x).
        consensus[:] = consensus_next
        if record:
            for c in range(n_curves):
                mse_out[c, next_record] = squared_error[c] / n_agents
                squared_error[c] = 0.0
            next_record += 1


class Workspace:
    """The kernel's scratch arrays, allocated once per call of ``simulate_runs``.

    Distinct allocations passed as separate arguments: the no-alias promise of
    ``jit_noalias`` holds by construction.
    """

    def __init__(self, n_agents: int, n_directed_edges: int, dtype):
        per_agent = [np.zeros((n_agents, LANES), dtype=dtype) for _ in range(8)]
        per_lane = [np.zeros(LANES, dtype=dtype) for _ in range(3)]
        self.arrays = (
            np.zeros((n_directed_edges, LANES), dtype=dtype),  # accepted
            np.zeros((n_agents, LANES), dtype=np.int64),  # alpha clock
            *per_agent,
            *per_lane,
            np.zeros(LANES),  # squared error
            np.zeros(n_agents),  # running sample sums
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
    runs' data streams.  The kernel handles LANES curves at a time; larger panels replay
    each run's data stream once per group of LANES curves, so every curve still sees the
    same samples and noise (common random numbers).  ``dtype`` is the precision of the
    per-curve state (float32 is faster and changes the curves far less than their Monte
    Carlo error; ``tests/test_engine.py`` checks this).
    """
    n_runs = classes.shape[0]
    n_curves = len(spec.curves)
    t_record = np.asarray(spec.t_record, dtype=np.int64)
    if t_record.ndim != 1 or t_record[0] < 1 or np.any(np.diff(t_record) <= 0):
        raise ValueError("t_record must be strictly increasing times >= 1")
    # Pad the curve axis with copies of the last curve; their results are dropped.
    padded = -(-n_curves // LANES) * LANES
    params = {
        key: np.concatenate([value, np.repeat(value[-1:], padded - n_curves)])
        for key, value in spec.curve_arrays().items()
    }
    alpha = alpha_table(spec.alpha_schedule, spec.t_max).astype(dtype)
    weight_offset = dtype(WEIGHT_OFFSETS[spec.weights])
    workspace = Workspace(spec.n_agents, 2 * edges.shape[1], dtype)
    mse = np.empty((n_runs, padded, len(t_record)))
    population = spec.population
    for run in range(n_runs):
        indptr, neighbours = csr_neighbours(edges[run], spec.n_agents)
        start_state = copy.deepcopy(generators[run])
        for first in range(0, padded, LANES):
            group = slice(first, first + LANES)
            _simulate_run(
                indptr,
                neighbours,
                np.ascontiguousarray(classes[run], dtype=np.int64),
                population.agent_means(classes[run]),
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
                bool(spec.alpha_reset),
                t_record,
                copy.deepcopy(start_state),
                mse_group := np.empty((LANES, len(t_record))),
                *workspace.arrays,
            )
            mse[run, group] = mse_group
    return mse[:, :n_curves]
