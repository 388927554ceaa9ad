"""Private-ColME (Yakimenka et al. 2024, arXiv:2411.07094, Algorithm 1): all-to-all queries,
compiled Monte Carlo engine.

At every step each agent a receives a sample, queries one agent b (round-robin, or
restricted round-robin over C_a^(t-1)), which answers through a p-sum release mechanism
(``mechanisms.release``); a tests every b (decision rule of Sec. III-C1 with
theta_t = 0.05/ln(t+1)) and combines its own mean and the accepted statistics T_{b->a}
with the inverse-variance weights of eq. (3).

The steps follow Algorithm 1's Receive, Query and Estimate blocks, for all agents at once;
this module holds them and their driver (``simulate_colme_runs``), the panel's spec is
``spec.py``'s.
The choices made where Private-ColME is silent, which this kernel implements (RR order, when
chi is re-tested, b before its first answer, common random numbers...), are listed once,
in ``choices.py`` (and recorded in every figure's metadata).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np

from .._jit import call_kernel, check_shapes, generated_module, jit_noalias
from ..ccolme.randoms import run_key
from ..datafiles import DataArrays
from ..populations import KernelLaws, centred_sample
from ..privacy import unit_laplace
from ..progress import Progress, time_segments
from ..replay import replay_index
from ..timegrid import checked_t_record
from .decision_rules import PAPER, PrivateDecisionRule
from .mechanisms import DATA_COEF, LAST_TIME, NOISE_VAR, STATISTIC, VARIANCE, PairState, pm2_levels, release
from .spec import DIAGNOSTICS, RETESTS, UNSUPPORTED_VARIANCE, ColmeSpec, decision_thresholds, variance_supported
from .variance import BAYES_PRIORS, bayes_variance

#: The decision rule: bound only in the kernel modules ``run_function`` generates (this
#: module's source with ``PrivateDecisionRule.kernel_binding`` in place of the next line).
decision_rule = None


class RunWorld(NamedTuple):
    """The kernel's first argument group: one run's world: the agents' ``classes`` and true
    means ``agent_means``, the classes' data ``laws``, each agent's data variance
    ``agent_sigma2`` (its class's, or its own in a file world with ``sigma: agent``), the
    run's stream ``key`` (``colme.ccolme.randoms.run_key``: the replay's permutations are
    the other engines') and, in a world from a data file, the agents' samples (``data``)."""

    classes: np.ndarray
    agent_means: np.ndarray
    laws: KernelLaws
    agent_sigma2: np.ndarray
    key: np.uint64
    data: DataArrays


class CurveArrays(NamedTuple):
    """The kernel's second argument group: the algorithm, one curve
    (``ColmeSpec.curve_arguments``) and the panel's options: ``schedule``
    (``SCHEDULES``), ``mechanism``, ``weights`` (``mechanisms``), ``gaussian`` (else
    Laplace) noise of standard deviation ``class_sigma_dp`` per p-sum and ``class_sigma_w``
    per released partial variance, each the sender's class's, ``oracle`` (C_a = a's class),
    ``scheme`` (``VARIANCE_SCHEMES``: 0 known variance, z-test and eq. (3); 1 Sch-Var-1,
    2 Sch-Var-2, 3 Sch-Var-2 with eq. (19): Welch test and eq. (5)); ``every_step``
    (``retest``), ``bayes_offset`` (eq. (19)'s prior), ``dof_from_count`` (Welch degrees
    of freedom kappa - 1 instead of t_kappa - 1), ``drop_first`` (Sch-Var-2 without its
    first query interval), the ``Thresholds`` (``theta``, ``z_lower``) and the decision
    rule's own parameters ``rule_params`` (``decision_rules``)."""

    schedule: int
    mechanism: int
    weights: int
    gaussian: bool
    oracle: bool
    class_sigma_dp: np.ndarray
    class_sigma_w: np.ndarray
    scheme: int
    every_step: bool
    bayes_offset: float
    dof_from_count: bool
    drop_first: bool
    theta: np.ndarray
    z_lower: np.ndarray
    rule_params: np.ndarray


class Records(NamedTuple):
    """The kernel's third argument group: the average MSE ``mse_out`` (T,) and the
    ``DIAGNOSTICS`` ``diagnostics_out`` (3, T) at the times ``t_record``."""

    t_record: np.ndarray
    mse_out: np.ndarray
    diagnostics_out: np.ndarray


class Workspace(NamedTuple):
    """The kernel's last argument group: one run of one curve, agent a's view of every
    sender b and the pairs' release state, each array its own allocation (``call_kernel``
    checks it: the kernel is compiled with ``jit_noalias``)."""

    chi: np.ndarray  # (M, M) uint8: chi_a(b), b in C_a
    stat: np.ndarray  # (M, M) T_{b->a}
    var: np.ndarray  # (M, M) Var[T_{b->a}] (known variance) or its estimate (Sec. III-C2)
    prec: np.ndarray  # (M, M) 1/Var, 0 before b's first answer
    sample_sum: np.ndarray  # (M,) running sum of a's samples
    sample_sq: np.ndarray  # (M,) and of their squares
    fresh: np.ndarray  # (M,) this step's unit p-sum noise of the answer a receives
    fresh_w: np.ndarray  # (M,) and of a released partial variance (Sch-Var-1)
    pointer: np.ndarray  # (M,) int64: rRR's last queried position
    estimates: np.ndarray  # (M*M, 8) per-pair variance-estimation state (``_estimate_variance``)
    pairs: PairState  # p-sum release state of every ordered pair, row a * M + b

    @classmethod
    def allocate(cls, n_agents: int, levels: int) -> Workspace:
        """Fresh arrays for ``n_agents`` agents and PM-II's ``levels`` dyadic levels."""
        n = n_agents

        def per_agent():
            return np.zeros(n)

        return cls(
            chi=np.zeros((n, n), dtype=np.uint8),
            stat=np.zeros((n, n)),
            var=np.zeros((n, n)),
            prec=np.zeros((n, n)),
            sample_sum=per_agent(),
            sample_sq=per_agent(),
            fresh=per_agent(),
            fresh_w=per_agent(),
            pointer=np.zeros(n, dtype=np.int64),
            estimates=np.zeros((n * n, 8)),
            pairs=PairState.new(n * n, levels),
        )


@jit_noalias(cache=True)
def _simulate_colme_run(world, algorithm, outputs, workspace, rng, t_first, t_last):
    """One run of Algorithm 1 for one curve, every agent at once; writes the average MSE
    at ``t_record`` to ``mse_out`` and the ``DIAGNOSTICS`` to ``diagnostics_out`` (3, len).

    Called by name only (``call_kernel``), with four argument groups, each unpacked by its
    fields' names: the run's ``RunWorld``, the curve's ``CurveArrays``, the ``Records`` it
    writes and the ``Workspace``; ``rng`` is the run's data stream.  The call runs
    t_first..t_last: t_first = 1 starts the run, a later call resumes it (the
    ``Workspace`` and ``rng`` carry its state).
    """
    classes, agent_means, laws, agent_sigma2, key, data = world
    law_code, law_a0, law_a1, law_a2, quantiles = laws
    data_values, data_start, data_count, data_order, replay = data
    schedule, mechanism, weights, gaussian, oracle, class_sigma_dp, class_sigma_w, scheme, every_step, bayes_offset, \
        dof_from_count, drop_first, theta, z_lower, rule_params = algorithm
    t_record, mse_out, diagnostics_out = outputs
    chi, stat, var, prec, sample_sum, sample_sq, fresh, fresh_w, pointer, estimates, pairs = workspace
    state, count, block_noise, block_coef = pairs
    n = classes.shape[0]
    known = scheme == 0
    first = 1 if drop_first and scheme >= 2 else 0  # Sch-Var-2 intervals left out
    by_count = dof_from_count and scheme >= 2
    if t_first == 1:
        _initialise(classes, oracle, chi, stat, var, prec, sample_sum, sample_sq, pointer)
    next_record = 0
    while t_record[next_record] < t_first:
        next_record += 1
    for t in range(t_first, t_last + 1):
        # Receive (lines 4-6), with this step's noise draws
        _receive(t, classes, agent_means, law_code, law_a0, law_a1, law_a2, quantiles, data_values, data_start,
                 data_count, data_order, replay, key, gaussian, rng, sample_sum, sample_sq, fresh, fresh_w)
        # Query (lines 7-11), and the test of the answering agent at t = t_kappa
        for a in range(n):
            b = _choose_agent(a, t, schedule, chi, pointer)
            if b < 0:
                continue
            pair = a * n + b
            sender = classes[b]
            sigma_dp = class_sigma_dp[sender]
            sigma_dp2 = sigma_dp * sigma_dp
            gap_time = t - state[pair, LAST_TIME]
            value = release(
                pair=pair, t=float(t), sample_mean=sample_sum[b] / t, fresh_noise=sigma_dp * fresh[a],
                sigma2=agent_sigma2[b], sigma_dp2=sigma_dp2, mechanism=mechanism, weights=weights,
                state=state, count=count, block_noise=block_noise, block_coef=block_coef,
            )
            stat[a, b] = state[pair, STATISTIC]
            if known:
                var[a, b] = state[pair, VARIANCE]
            else:  # line 11: V_{b->a}
                estimate = _estimate_variance(
                    estimates[pair], scheme, bayes_offset, float(t), gap_time, count[pair], value,
                    sample_sum[b], sample_sq[b], sigma_dp * fresh[a], class_sigma_w[sender] * fresh_w[a], sigma_dp2,
                    first,
                )
                var[a, b] = estimate * state[pair, DATA_COEF] + state[pair, NOISE_VAR]
            prec[a, b] = 1.0 / var[a, b]
            if not oracle and not every_step:
                other_count = float(count[pair] - first) if by_count else float(t)
                chi[a, b] = _accept(known, sample_sum[a], sample_sq[a], float(t), stat[a, b], var[a, b],
                                    other_count, agent_sigma2[a], theta[t], z_lower[t], sigma_dp, n,
                                    rule_params)
        # Estimate (lines 12-14): C_a^(t) re-tested in full if every_step, then mu_a^(t)
        if every_step and not oracle:
            _retest_all(t, known, first, by_count, classes, agent_sigma2, class_sigma_dp, theta[t], z_lower[t],
                        rule_params, chi, stat, var, sample_sum, sample_sq, state, count)
        if t == t_record[next_record]:
            mse_out[next_record] = _mean_squared_error(t, known, classes, agent_sigma2, agent_means, chi, stat,
                                                       prec, sample_sum, sample_sq)
            _record_membership(classes, chi, count, diagnostics_out[:, next_record])
            next_record += 1


@numba.njit(cache=True)
def _initialise(classes, oracle, chi, stat, var, prec, sample_sum, sample_sq, pointer):
    """Lines 1-2: C_a^(0) = [M] (the oracle: a's class), T = 0, Var[T] = inf, no samples."""
    n = classes.shape[0]
    for a in range(n):
        sample_sum[a] = 0.0
        sample_sq[a] = 0.0
        pointer[a] = -1
        for b in range(n):
            chi[a, b] = 1 if (not oracle or classes[a] == classes[b]) and a != b else 0
            stat[a, b] = 0.0
            var[a, b] = np.inf
            prec[a, b] = 0.0


@numba.njit(cache=True)
def _receive(t, classes, agent_means, law_code, law_a0, law_a1, law_a2, quantiles, data_values, data_start,
             data_count, data_order, replay, key, gaussian, rng, sample_sum, sample_sq, fresh, fresh_w):
    """Lines 5-6: each agent's sample X_a^(t) (mu_a plus a draw of its class's law: for
    the paper's uniform law mu_a + L (2u - 1), as ever), and the unit noise of the p-sum
    (and, for Sch-Var-1, of the partial variance) answering a's query this step, which
    the sender scales by its own sigma_DP.

    Draw order per agent: sample, normal, uniform (Laplace), normal, uniform: every curve
    draws both noise laws, so all curves see the same stream (common random numbers).  In
    a world from a data file the sample is the agent's next replayed one
    (``replay.replay_index``, keyed by the run's ``key`` as in the other engines; the
    bootstrap reads the sample's uniform draw).
    """
    for a in range(agent_means.shape[0]):
        c = classes[a]
        u = rng.random()
        if replay < 0:
            x = agent_means[a] + centred_sample(u, law_code[c], law_a0[c], law_a1[c], law_a2[c], quantiles[c])
        else:
            first = data_start[a]
            x = data_values[first + replay_index(t - 1, data_count[a], replay, key, a, u, data_order, first)]
        sample_sum[a] += x
        sample_sq[a] += x * x
        normal = rng.standard_normal()
        laplace = unit_laplace(rng.random())
        fresh[a] = normal if gaussian else laplace
        normal = rng.standard_normal()
        laplace = unit_laplace(rng.random())
        fresh_w[a] = normal if gaussian else laplace


@numba.njit(cache=True)
def _choose_agent(a, t, schedule, chi, pointer):
    """Line 8, ``choose_agent``: RR (position (t - 1) mod (M - 1), skipping a), or rRR (the
    next position in C_a^(t-1) after the last queried one); -1 if rRR finds nobody."""
    n = chi.shape[0]
    if schedule == 0:
        position = (t - 1) % (n - 1)
        return position if position < a else position + 1
    for step in range(1, n):
        position = (pointer[a] + step) % (n - 1)
        candidate = position if position < a else position + 1
        if chi[a, candidate]:
            pointer[a] = position
            return candidate
    return -1


@numba.njit(cache=True)
def _retest_all(t, known, first, by_count, classes, agent_sigma2, class_sigma_dp, theta, z_lower, rule_params,
                chi, stat, var, sample_sum, sample_sq, state, count):
    """Line 13 with ``retest="every_step"``: chi_a(b) for every pair with the current X-bar_a^(t)."""
    n = chi.shape[0]
    for a in range(n):
        sigma2 = agent_sigma2[a]
        for b in range(n):
            other_count = float(count[a * n + b] - first) if by_count else state[a * n + b, LAST_TIME]
            chi[a, b] = a != b and _accept(known, sample_sum[a], sample_sq[a], float(t), stat[a, b], var[a, b],
                                           other_count, sigma2, theta, z_lower, class_sigma_dp[classes[b]], n,
                                           rule_params)


@numba.njit(cache=True)
def _mean_squared_error(t, known, classes, agent_sigma2, agent_means, chi, stat, prec, sample_sum, sample_sq):
    """Line 14 averaged over agents: (1/M) sum_a (mu_a^(t) - mu_a)^2, with mu_a^(t) the
    inverse-variance combination of eq. (3) (known variance sigma_a^2) or eq. (5) (V_a^(t))."""
    n = chi.shape[0]
    squared_error = 0.0
    for a in range(n):
        own_mean = sample_sum[a] / t
        own_var = agent_sigma2[a] if known else _sample_variance(sample_sum[a], sample_sq[a], float(t))
        if own_var > 0.0:
            weighted = own_mean * t / own_var
            total = t / own_var
            for b in range(n):
                on = prec[a, b] if chi[a, b] else 0.0
                weighted += on * stat[a, b]
                total += on
            error = weighted / total - agent_means[a]
        else:  # t = 1 without a known variance: no weights yet, keep the own mean
            error = own_mean - agent_means[a]
        squared_error += error * error
    return squared_error / n


@numba.njit(cache=True)
def _record_membership(classes, chi, count, out):
    """The ``DIAGNOSTICS`` at t into ``out`` (3,): shares of classmates and of the others
    in C_a (averaged over the agents that have any), and releases per accepted pair."""
    n = classes.shape[0]
    mates_share = others_share = releases = 0.0
    with_mates = with_others = accepted_pairs = 0
    for a in range(n):
        mates = others = mates_in = others_in = 0
        for b in range(n):
            if b == a:
                continue
            same = classes[a] == classes[b]
            mates += same
            others += not same
            if chi[a, b]:
                mates_in += same
                others_in += not same
                releases += count[a * n + b]
                accepted_pairs += 1
        if mates:
            mates_share += mates_in / mates
            with_mates += 1
        if others:
            others_share += others_in / others
            with_others += 1
    out[0] = mates_share / with_mates if with_mates else np.nan
    out[1] = others_share / with_others if with_others else np.nan
    out[2] = releases / accepted_pairs if accepted_pairs else np.nan


@numba.njit(cache=True)
def _sample_variance(total, squares, t):
    """V_a^(t) of Sec. III-C2 (unbiased); 0 (unknown) before two samples."""
    if t < 2.0:
        return 0.0
    return max((squares - total * total / t) / (t - 1.0), 0.0)


@numba.njit(cache=True)
def _accept(known, own_sum, own_sq, t, statistic, variance, t_kappa, sigma2, theta, z_lower, sigma_dp, n_agents,
            rule_params):
    """chi_a(b): the squared gap between a's mean and T_{b->a} below the decision rule's
    bound (``decision_rules``; the paper's: z-test with known variance, Sec. III-C1, or
    Welch test, Sec. V).

    ``t_kappa`` is the number of values behind b's variance estimate (its Welch degrees
    of freedom are t_kappa - 1).  An infinite (not yet estimable) Var[T] accepts b, with
    weight 0, without asking the rule.
    """
    if variance == np.inf:
        return 1
    gap = own_sum / t - statistic
    own = sigma2 / t if known else _sample_variance(own_sum, own_sq, t) / t
    bound = decision_rule(t, own, variance, t_kappa, 1.0 if known else 0.0, theta, z_lower, sigma_dp, float(n_agents),
                          rule_params)
    return 1 if gap * gap < bound else 0


@numba.njit(cache=True)
def _estimate_variance(
    row, scheme, bayes_offset, t, gap, k, value, sender_sum, sender_sq, noise, noise_w, sigma_dp2,
    first=0,
):
    """V_{b->a} after b's k-th answer (PM-I): Sch-Var-1 (eq. (8)) or Sch-Var-2 (eq. (16), (19)).

    ``row``: [t_{k-1} R_{k-1}, sum (Y + Z~), sum (Y + Z~)^2, sum 1/gap, sum V~~ (eq. (7)),
    sender's sample sum and sum of squares at the previous answer].  Sch-Var-2 rebuilds
    each interval's noisy sum from two consecutive answers, t_k R_k - t_{k-1} R_{k-1},
    as agent a can; Sch-Var-1's partial variances (eqs. (6)-(7)) are computed by agent b.
    Sch-Var-2 leaves out its ``first`` intervals (0 or 1; eq. (16) then runs over the
    kappa - first others).  Returns inf where the estimate is not available yet or
    negative (weight 0).
    """
    interval = t * value - row[0]
    row[0] = t * value
    if k <= first:
        return np.inf
    row[3] += 1.0 / gap
    if scheme == 1:
        part_sum = sender_sum - row[5]
        part_sq = sender_sq - row[6]
        row[5] = sender_sum
        row[6] = sender_sq
        partial = part_sq - part_sum * part_sum / gap + (gap - 1.0) / gap * noise_w
        row[4] += partial + (part_sum + noise) ** 2 / gap
        if t < 2.0:
            return np.inf
        estimate = (row[4] - t * value * value - sigma_dp2 * (row[3] - k / t)) / (t - 1.0)
        return estimate if estimate > 0.0 else np.inf
    row[1] += interval / math.sqrt(gap)
    row[2] += interval * interval / gap
    kappa = k - first
    if kappa < 2:
        return np.inf
    v_prime = (row[2] - row[1] * row[1] / kappa) / (kappa - 1.0)
    noise_var = sigma_dp2 * row[3] / kappa
    estimate = v_prime - noise_var
    if estimate >= 0.0:
        return estimate if estimate > 0.0 else np.inf
    if scheme == 3:
        return bayes_variance(v_prime=v_prime, kappa=float(kappa), noise_var=noise_var, shape_offset=bayes_offset)
    return np.inf


#: The line of this module that a generated kernel module replaces by the rule's binding.
RULE_LINE = "decision_rule = None\n"


def run_function(rule: PrivateDecisionRule = PAPER):
    """``_simulate_colme_run`` with ``rule`` compiled in (the paper's test by default): the
    one way user code reaches a kernel (``colme.user_code``), a module generated from this
    module's source with ``RULE_LINE`` bound to the rule (``kernel_binding``), written and
    cached by its digest (``colme._jit.generated_module``)."""
    here = Path(__file__).resolve()
    source = here.read_text()
    if source.count(RULE_LINE) != 1:
        raise RuntimeError(f"{here} must hold the decision rule's line exactly once: {RULE_LINE!r}")
    binding = ("step = numba.njit(inline='always', error_model='numpy')\n"
               "from ..user_code import load_function\n" + rule.kernel_binding() + "\n")
    source = source.replace(RULE_LINE, binding).replace("cache=True", "cache=CACHE")
    calls = [here.with_name(name) for name in ("decision_rules.py", "mechanisms.py", "variance.py")]
    calls += [here.parent.parent / name for name in ("_jit.py", "user_code.py", "privacy.py", "populations.py")]
    module = generated_module("private_colme_kernel", source, calls, package=__package__,
                              label=f"colme.private_colme kernel, rule {rule.function}")
    return module._simulate_colme_run


def simulate_colme_runs(
    spec: ColmeSpec,
    classes: np.ndarray,
    generators: list[np.random.Generator],
    diagnostics: np.ndarray | None = None,
    progress: Progress | None = None,
    agent_means: np.ndarray | None = None,
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)); every curve replays each run's stream.

    ``agent_means`` (runs, M): each run's true means (a population with jitter,
    ``colme.instances.run_agent_means``); None: the class means.

    ``diagnostics`` (runs, curves, len(DIAGNOSTICS), len(t_record)), if given, receives the
    ``DIAGNOSTICS`` of every run and curve.  With a ``progress``, each run is simulated in
    segments of time steps, reported between them: the same numbers as one call.
    """
    t_record = checked_t_record(spec.t_record)
    if spec.retest not in RETESTS:
        raise ValueError(f"retest must be one of {RETESTS}, got {spec.retest!r}")
    for curve in spec.curves:
        if not variance_supported(curve.variance, curve.mechanism):
            raise ValueError(f"{curve.name}: {UNSUPPORTED_VARIANCE}")
    levels = pm2_levels(spec.t_max)
    population = spec.population
    mse = np.empty((classes.shape[0], len(spec.curves), len(t_record)))
    if diagnostics is None:
        diagnostics = np.empty((*mse.shape[:2], len(DIAGNOSTICS), len(t_record)))
    check_shapes({"diagnostics": (diagnostics, (*mse.shape[:2], len(DIAGNOSTICS), len(t_record)))})
    run_colme = run_function(spec.decision_rule)
    options = decision_thresholds(spec.theta0, spec.t_max)._asdict() | {
        "rule_params": np.array(spec.decision_rule.values, dtype=np.float64),
        "every_step": spec.retest == "every_step",
        "bayes_offset": BAYES_PRIORS[spec.bayes_prior],
        "dof_from_count": spec.welch_dof == "kappa",
        "drop_first": spec.schvar2_first_interval == "drop",
    }
    laws = population.kernel_laws()
    data = DataArrays.of(population.streams)
    n_runs = classes.shape[0]
    if progress is not None:
        progress.begin(n_runs * len(spec.curves) * spec.t_max)
    for run in range(n_runs):
        mu = population.agent_means(classes[run]) if agent_means is None else agent_means[run]
        world = RunWorld(classes=classes[run].astype(np.int64), agent_means=mu, laws=laws,
                         agent_sigma2=population.agent_sigmas(classes[run]) ** 2,
                         key=np.uint64(run_key(generators[run])), data=data)
        for index, curve in enumerate(spec.curves):
            arguments = {
                "world": world,
                "algorithm": CurveArrays(**spec.curve_arguments(curve), **options),
                "outputs": Records(t_record=t_record, mse_out=mse[run, index], diagnostics_out=diagnostics[run, index]),
                "workspace": Workspace.allocate(spec.n_agents, levels),
                "rng": copy.deepcopy(generators[run]),
            }
            where = f"run {run + 1}/{n_runs}, curve {index + 1}/{len(spec.curves)}"
            for t_first, t_last in time_segments(spec.t_max, progress, where):
                call_kernel(run_colme, arguments | {"t_first": t_first, "t_last": t_last})
    return mse
