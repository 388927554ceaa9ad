"""A slow, literal NumPy transcription of Algorithm 1 (Private-C-ColME, arXiv:2511.04702), used
to test the kernel.

It follows the pseudocode line by line with dense matrices: decision matrix chi, sets
C_a^(t), W^(t) from ``rules.mixing_matrix`` with the caps of the panel's weight rule
(``weight_rules``) and the alpha clock (restarted per agent, globally or never, as
``alpha_reset`` says).  It draws the kernel's SplitMix64 stream of the run (``run_key`` of
the generator) in the kernel's order (per step and agent: data uniform, noise uniform).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from colme.ccolme.randoms import _GOLDEN, _mix_uniform, run_key
from colme.ccolme.rules import (
    alpha_table,
    difference_beta,
    laplace_beta_dp,
    mixing_matrix,
    noisy_mean_beta,
    theta_schedule,
)
from colme.ccolme.spec import PanelSpec
from colme.graphs import adjacency
from colme.populations import centred_sample
from colme.privacy import laplace_sigma_dp, unit_laplace


def reference_run(
    spec: PanelSpec, classes, edges, rng, on_step=None, agent_means=None, ranks=None
) -> np.ndarray:
    """MSE (curves, len(t_record)) of one run; ``on_step(t, curve, chi, W)`` sees each step.

    Agents may differ (per-class laws and sigma, privacy mixes assigned from ``ranks``,
    jittered ``agent_means``): each gets its own sigma, sigma_DP per curve and Bernstein
    parameter, and each pair its own threshold from ``acceptance_threshold``.
    """
    population = spec.population
    n_agents = spec.n_agents
    panel_rules = spec.decision_rules()
    decision_rules = [panel_rules[code] for code in spec.curve_arrays()["rule"]]
    mixing_weights = spec.mixing_weights()
    mu = population.agent_means(classes) if agent_means is None else agent_means
    laws = [population.laws[c] for c in classes]
    sigma = np.array([law.sigma for law in laws])
    ranks = np.arange(n_agents) if ranks is None else ranks
    noise_sd = np.array([
        [laplace_sigma_dp(curve.levels(spec.n_levels)[level], law.half_width)
         for law, level in zip(laws, curve.agent_levels(ranks), strict=True)]
        for curve in spec.curves
    ])
    beta_bar = np.array([
        [noisy_mean_beta(law.sigma, law.bernstein_beta, s, laplace_beta_dp(s))
         for law, s in zip(laws, row, strict=True)]
        for row in noise_sd
    ])
    adj = adjacency(edges, n_agents)
    # r of the optimistic radius: the regular degree, else the mean degree 2E/M (choices.py)
    degree = float(spec.degree) if spec.degree is not None else max(adj.sum(), 1) / n_agents
    same = classes[:, None] == classes[None, :]
    alpha = alpha_table(spec.alpha_schedule, spec.t_max)
    n_curves = len(spec.curves)
    consensus = np.zeros((n_curves, n_agents))
    previous_sets = [np.zeros((n_agents, n_agents), dtype=bool) for _ in range(n_curves)]
    clock = np.zeros((n_curves, n_agents), dtype=np.int64)
    sample_sum = np.zeros(n_agents)
    noise_sum = np.zeros(n_agents)
    out = np.empty((n_curves, len(spec.t_record)))
    record = {int(t): i for i, t in enumerate(spec.t_record)}
    key = run_key(rng)
    for t in range(1, spec.t_max + 1):
        draws = splitmix64_uniforms(key, 2 * n_agents * (t - 1), 2 * n_agents).reshape(n_agents, 2)
        sample_sum += mu + np.array([law.sample(u)[0] for law, u in zip(laws, draws[:, 0], strict=True)])
        noise_sum += unit_laplace_from_uniform(draws[:, 1])
        local_mean = sample_sum / t
        for c in range(n_curves):
            noisy = (sample_sum + noise_sd[c] * noise_sum) / t
            if decision_rules[c].by_class:
                chi = adj & same
            else:
                threshold = np.array([[decision_rules[c].threshold(
                    t, sigma[a], sigma[b], noise_sd[c, a], noise_sd[c, b],
                    difference_beta(beta_bar[c, a], beta_bar[c, b], sigma[a], sigma[b], noise_sd[c, a], noise_sd[c, b],
                                    spec.bernstein_beta),
                    theta_schedule(t, spec.curves[c].theta_k), degree, n_agents,
                ) for b in range(n_agents)] for a in range(n_agents)])
                chi = adj & (np.abs(noisy[:, None] - noisy[None, :]) < threshold)
            sets = chi | np.eye(n_agents, dtype=bool)  # C_a^(t) includes a
            weights = mixing_matrix(
                chi, cap=lambda sizes: np.array([mixing_weights.cap(float(s), degree, n_agents) for s in sizes]))
            if on_step is not None:
                on_step(t, c, chi, weights)
            changed = np.any(sets != previous_sets[c], axis=1)
            previous_sets[c] = sets
            restart = {"per_agent": changed, "global": np.full(n_agents, changed.any()), "none": False}
            clock[c] = np.where(restart[spec.alpha_reset], 1, clock[c] + 1)
            step = alpha[clock[c]]
            consensus[c] = (1 - step) * noisy + step * (weights @ consensus[c])
            sizes = sets.sum(axis=1)
            fallback = np.all(~sets | (sizes[None, :] <= 2), axis=1)
            estimate = np.where(fallback, local_mean, consensus[c])
            if t in record:
                out[c, record[t]] = np.mean((estimate - mu) ** 2)
    return out


def unit_laplace_from_uniform(u: np.ndarray) -> np.ndarray:
    """Map uniforms on [0, 1) to Laplace(0, 1/sqrt 2) draws (unit variance) by inversion.

    The same inversion runs inside the compiled kernels (``colme.privacy.unit_laplace``);
    this array version serves the literal transcription and the statistical tests.  ``u = 0``
    (probability 2^-53) is mapped to 0 rather than -inf.
    """
    u = np.asarray(u, dtype=np.float64)
    scale = 1.0 / math.sqrt(2.0)
    upper = u >= 0.5
    out = np.zeros_like(u)
    out[upper] = -scale * np.log(2.0 - 2.0 * u[upper])
    lower = (~upper) & (u > 0.0)
    out[lower] = scale * np.log(2.0 * u[lower])
    return out


def splitmix64_uniforms(key: int, first: int, count: int) -> np.ndarray:
    """Draws ``first + 1 .. first + count`` of the SplitMix64 stream ``key`` (Steele, Lea &
    Flood 2014), written out here with the published constants, independently of the
    kernel's: draw n is mix(key + n * golden), its top 53 bits as a uniform in [0, 1)."""
    golden, mix1, mix2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
    n = np.arange(first + 1, first + count + 1, dtype=np.uint64)
    z = np.uint64(key) + n * golden  # uint64 arrays wrap modulo 2^64
    z = (z ^ (z >> np.uint64(30))) * mix1
    z = (z ^ (z >> np.uint64(27))) * mix2
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def law_draws(population, classes, key, t_max):
    """(t_max, M) samples and unit noise draws, in the documented order
    (colme.ccolme.randoms: n = 2((t - 1) M + a) + 1 for the data, + 2 for the noise)."""
    laws = population.kernel_laws()
    means = population.agent_means(classes)
    n = len(classes)
    samples, noise = np.empty((t_max, n)), np.empty((t_max, n))
    with np.errstate(over="ignore"):  # the counter wraps around mod 2^64, as in the kernel
        _draw(laws, means, classes, key, samples, noise)
    return samples, noise


def _draw(laws, means, classes, key, samples, noise):
    t_max, n = samples.shape
    for t, a in itertools.product(range(t_max), range(n)):
        c = classes[a]
        first = np.uint64(key) + np.uint64(2 * (t * n + a) + 1) * _GOLDEN
        u = _mix_uniform(first)
        samples[t, a] = means[a] + centred_sample(u, laws.law_code[c], laws.law_a0[c], laws.law_a1[c],
                                                  laws.law_a2[c], laws.quantiles[c])
        noise[t, a] = unit_laplace(_mix_uniform(first + _GOLDEN))
