"""C-ColME and B-ColME (Galante, Neglia, Leonardi, AAAI 2025): a compiled Monte Carlo engine.

Both algorithms run on a graph whose directed links a -> b each carry agent a's decision
about neighbour b (``active``), tested with the optimistic distance of [16, Eq. (3)]:
a keeps b iff |m_a(t) - m_b(ref)| <= beta_a(t) + beta_b(ref), with ref = t - 1 (``stale``:
b's published state of the previous step, as the authors' simulator does) or t
(``current``: the symmetric test of Private-C-ColME).  With ``permanent`` exclusions a
link once dropped is never tested again.  m_a is a's (noisy, with privacy) running mean.

* C-ColME (consensus): y_a(t) = (1 - alpha_t) m_a(t) + alpha_t (y_a(t-1) + sum_b W_ab
  (y_b(t-1) - y_a(t-1))) over the kept links, W_ab = 1/(offset + max(C_a(t), C_b(ref)))
  with C the numbers of kept neighbours (``WEIGHTS``), alpha_t = s/(s + 1) on a clock s
  that restarts (``RESETS``).
* B-ColME (message passing, depth d): a's row for a kept neighbour b holds, for hops
  k = 0..d-1, the sum and the number of the means of the agents k + 1 hops away through
  b, as b saw them at t - 1 (non-backtracking: b's rows except the one for a); the
  estimate is the sample-count-weighted mean of a's own mean and those stale means.

Every curve of a run draws the same samples and noise as Private-C-ColME's kernel on the
same instance (``colme.ccolme.randoms``: two counter-based draws per agent and step).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from .._jit import call_kernel, check_shapes, jit_noalias
from ..ccolme.randoms import _GOLDEN, _mix_uniform, run_key
from ..datafiles import DataArrays
from ..graphs import csr_links, valid_edges
from ..populations import KernelLaws, centred_sample
from ..privacy import unit_laplace
from ..progress import Progress, time_segments
from ..replay import replay_index
from ..timegrid import checked_t_record
from .spec import (
    ALGORITHMS,
    DIAGNOSTICS,
    RESETS,
    RULES,
    TESTS,
    WEIGHTS,
    ScalableSpec,
    lockstep_batches,
    table_depths,
)


class RunWorld(NamedTuple):
    """The kernel's first argument group: one run's world.  Its directed links in CSR form
    (``link_arrays``: ``indptr``, ``neighbours``, ``reverse``, ``same``), the agents'
    ``classes`` and true means ``agent_means``, the stream ``key`` (``run_key``), the
    classes' ``laws`` and the log of the union bound's 4 |links| (``log_links``)."""

    indptr: np.ndarray
    neighbours: np.ndarray
    reverse: np.ndarray
    same: np.ndarray
    classes: np.ndarray
    agent_means: np.ndarray
    key: np.uint64
    laws: KernelLaws
    log_links: float
    data: DataArrays


class CurveArrays(NamedTuple):
    """The kernel's second argument group: the algorithms, the curves one call runs in
    lockstep.  Per curve (C,): ``algorithm_code`` (``ALGORITHMS``), ``depth`` (B-ColME's
    hops), ``decider``, the index of its decision set (the curves of one rule and privacy,
    ``ScalableCurve.decisions``), and ``table_start``, where its B-ColME tables begin in the
    workspace's flat table arrays (-1 for C-ColME).  Per decision set (D,): ``by_class``
    (the oracle rule: keep the classmates, no test), each agent's ``sigma_dp`` and
    ``spread`` = sqrt(sigma^2 + sigma_DP^2) (D, M) (``ScalableSpec.curve_arguments``).  The
    panel's options: ``stale``, ``permanent``, the weights (``weight_offset``,
    ``uniform_weights``), ``reset`` (``RESETS``), ``first_sample`` (y_a(1) = m_a(1), else
    y_a(0) = 0 and a first consensus step), the radius's ``delta`` and the diagnostics'
    ``tolerance``."""

    algorithm_code: np.ndarray
    depth: np.ndarray
    decider: np.ndarray
    table_start: np.ndarray
    by_class: np.ndarray
    sigma_dp: np.ndarray
    spread: np.ndarray
    stale: bool
    permanent: bool
    weight_offset: float
    uniform_weights: bool
    reset: int
    first_sample: bool
    delta: float
    tolerance: float


class Records(NamedTuple):
    """The kernel's third argument group: what it records per curve at the times
    ``t_record``: the MSE ``mse_out`` (C, T), the ``DIAGNOSTICS`` ``diagnostics_out`` (C, 5,
    T) and, in a grouped panel, each group's sum of squared errors ``group_out`` (C, G, T),
    agent a of curve c in group ``agent_group[c, a]`` (G = 0 and no agent without groups)."""

    t_record: np.ndarray
    agent_group: np.ndarray
    mse_out: np.ndarray
    diagnostics_out: np.ndarray
    group_out: np.ndarray


class Workspace(NamedTuple):
    """The kernel's last argument group: one run of C curves in lockstep, D decision sets
    and B B-ColME curves, each array its own allocation (``call_kernel`` checks it).  Its
    bytes: ``spec.workspace_bytes``."""

    sample_sum: np.ndarray  # (M,) running sum of a's samples: every curve's
    noise_sum: np.ndarray  # (M,) running sum of a's unit Laplace draws
    mean: np.ndarray  # (D, M) m_a(t), a's published (noisy) mean
    radius: np.ndarray  # (D, M) beta_a(t)
    previous_mean: np.ndarray  # (D, M) m_a(t - 1)
    previous_radius: np.ndarray  # (D, M) beta_a(t - 1)
    size: np.ndarray  # (D, M) C_a(t): kept neighbours
    previous_size: np.ndarray  # (D, M) C_a(t - 1)
    changed: np.ndarray  # (D, M) whether a's kept set changed at t
    active: np.ndarray  # (D, 2E) uint8: a keeps b, per directed link
    previous_active: np.ndarray  # (D, 2E) uint8
    step_counts: np.ndarray  # (D, 2) the step's changed decisions and kept other-class links
    estimate: np.ndarray  # (C, M) y_a(t) (C-ColME) or the message-passing estimate
    estimate_next: np.ndarray  # (M,) scratch
    clock: np.ndarray  # (C, M) alpha's clock s
    state: np.ndarray  # (C, 2) per curve: [learnt (0/1), a change at the previous step (0/1)]
    # B-ColME's tables, flat: each B-ColME curve's (2E, d) rows for its own depth d, one after another
    table_sum: np.ndarray  # sums of means per hop, written at odd t
    table_count: np.ndarray  # and their numbers of agents
    previous_sum: np.ndarray  # the same, written at even t (the two alternate)
    previous_count: np.ndarray
    total_sum: np.ndarray  # (M, d) scratch: per agent, over its kept rows (previous step)
    total_count: np.ndarray  # (M, d)

    @classmethod
    def allocate(cls, n_agents: int, n_links: int, n_curves: int, n_deciders: int,
                 table_depths: tuple[int, ...]) -> Workspace:
        """For ``n_curves`` curves in ``n_deciders`` decision sets, whose B-ColME curves have
        the depths ``table_depths``."""
        depth = max([1, *table_depths])

        def per_decider():
            return np.zeros((n_deciders, n_agents))

        def per_curve():
            return np.zeros((n_curves, n_agents))

        def tables():
            return np.zeros(n_links * sum(table_depths))

        return cls(
            sample_sum=np.zeros(n_agents), noise_sum=np.zeros(n_agents), mean=per_decider(), radius=per_decider(),
            previous_mean=per_decider(), previous_radius=per_decider(), size=per_decider(),
            previous_size=per_decider(), changed=per_decider(), active=np.zeros((n_deciders, n_links), dtype=np.uint8),
            previous_active=np.zeros((n_deciders, n_links), dtype=np.uint8), step_counts=np.zeros((n_deciders, 2)),
            estimate=per_curve(), estimate_next=np.zeros(n_agents), clock=per_curve(), state=np.zeros((n_curves, 2)),
            table_sum=tables(), table_count=tables(), previous_sum=tables(), previous_count=tables(),
            total_sum=np.zeros((n_agents, depth)), total_count=np.zeros((n_agents, depth)),
        )


@numba.njit(cache=True)
def radius_scale(n, log_links, delta, stale):
    """beta(n) / sqrt(sigma^2 + sigma_DP^2) of [16, Eq. (3)] for a mean of n (noisy)
    samples: sqrt(2/n (1 + 1/n) ln(sqrt(n + 1) 4 |links| / delta)), |links| the number of
    directed links (r M on an r-regular graph, Private-C-ColME's 4 r M); with ``stale``
    (the authors' simulator), +inf below two samples: no test before."""
    if n < 2.0 and stale:
        return np.inf
    return math.sqrt(2.0 / n * (1.0 + 1.0 / n) * (0.5 * math.log(n + 1.0) + log_links - math.log(delta)))


def optimistic_radius(n, sigma, sigma_dp, log_links, delta, stale):
    """beta(n) of [16, Eq. (3)]: sqrt(sigma^2 + sigma_DP^2) ``radius_scale(n, ...)``."""
    return math.sqrt(sigma * sigma + sigma_dp * sigma_dp) * radius_scale(n, log_links, delta, stale)


@jit_noalias(cache=True)
def _simulate_scalable_run(world, algorithm, outputs, workspace, t_first, t_last):
    """Steps t_first..t_last of one run of C curves in lockstep (t_first = 1 starts it; a
    later call resumes from the ``Workspace``).  Called by name only (``call_kernel``), with
    four argument groups, each unpacked by its fields' names: the run's ``RunWorld``, the
    curves' ``CurveArrays``, the ``Records`` it writes and the ``Workspace``.

    Each step draws the agents' samples and noise once for every curve, computes the noisy
    means, radii and decisions once per decision set (the tests do not depend on the
    algorithm), then each curve's estimates: every curve's numbers are those of a call that
    runs it alone, bit for bit.  Writes the MSE (1/M) sum_a (y_a - mu_a)^2 at ``t_record``
    and the ``DIAGNOSTICS`` (``tolerance``: the error beyond which an estimate is wrong); a
    grouped panel (``group_out`` (C, G, T), G > 0) also each group's sum of squared
    errors, agent a of curve c in group ``agent_group[c, a]``.
    """
    indptr, neighbours, reverse, same, classes, agent_means, key, laws, log_links, data = world
    law_code, law_a0, law_a1, law_a2, quantiles = laws
    data_values, data_start, data_count, data_order, replay = data
    algorithm_code, depth, decider, table_start, by_class, sigma_dp, spread, stale, permanent, weight_offset, \
        uniform_weights, reset, first_sample, delta, tolerance = algorithm
    t_record, agent_group, mse_out, diagnostics_out, group_out = outputs
    sample_sum, noise_sum, mean, radius, previous_mean, previous_radius, size, previous_size, changed, active, \
        previous_active, step_counts, estimate, estimate_next, clock, state, table_sum, table_count, previous_sum, \
        previous_count, total_sum, total_count = workspace
    n = indptr.shape[0] - 1
    n_curves, n_deciders = algorithm_code.shape[0], by_class.shape[0]
    counter = key + np.uint64(2) * np.uint64((t_first - 1) * n) * _GOLDEN
    if t_first == 1:
        _start(indptr, same, by_class, sample_sum, noise_sum, active, previous_active, size, previous_size,
               previous_radius, changed, estimate, clock, state, table_sum, table_count, previous_sum,
               previous_count)
    record = 0
    while t_record[record] < t_first:
        record += 1
    for t in range(t_first, t_last + 1):
        tf = float(t)
        scale = radius_scale(tf, log_links, delta, stale)
        for a in range(n):  # Receive: the same two draws per agent and step as Private-C-ColME's kernel
            c = classes[a]
            counter += _GOLDEN
            u = _mix_uniform(counter)
            if replay < 0:
                sample_sum[a] += agent_means[a] + centred_sample(u, law_code[c], law_a0[c], law_a1[c], law_a2[c],
                                                                 quantiles[c])
            else:  # a data file's sample (its raw value: the agents' sums are not centred here)
                first = data_start[a]
                sample_sum[a] += data_values[first + replay_index(t - 1, data_count[a], replay, key, a, u, data_order,
                                                                  first)]
            counter += _GOLDEN
            noise_sum[a] += unit_laplace(_mix_uniform(counter))
        for d in range(n_deciders):
            _observe(tf, scale, sample_sum, noise_sum, sigma_dp[d], spread[d], mean[d], radius[d])
        if t == 1 and first_sample:
            for curve in range(n_curves):
                estimate[curve, :] = mean[decider[curve], :]
        else:
            for d in range(n_deciders):
                changes, wrong = _decide(indptr, neighbours, same, by_class[d], stale, permanent, mean[d], radius[d],
                                         previous_mean[d], previous_radius[d], active[d], previous_active[d], size[d],
                                         changed[d])
                step_counts[d, 0] = changes
                step_counts[d, 1] = wrong
            for curve in range(n_curves):
                d = decider[curve]
                if algorithm_code[curve] == 0:
                    _consensus(indptr, neighbours, by_class[d], stale, weight_offset, uniform_weights, reset,
                               step_counts[d, 0], step_counts[d, 1], mean[d], size[d], previous_size[d], changed[d],
                               active[d], clock[curve], estimate[curve], estimate_next, state[curve])
                    continue
                rows = (neighbours.shape[0], depth[curve])  # the curve's (2E, d) tables in the flat arrays
                tables = slice(table_start[curve], table_start[curve] + rows[0] * rows[1])
                if t % 2 == 0:  # B-ColME's tables alternate between two buffers: no copy
                    _message_passing(tf, indptr, neighbours, reverse, depth[curve], previous_mean[d], mean[d],
                                     active[d], previous_active[d], previous_sum[tables].reshape(rows),
                                     previous_count[tables].reshape(rows), table_sum[tables].reshape(rows),
                                     table_count[tables].reshape(rows), total_sum, total_count, estimate[curve])
                else:
                    _message_passing(tf, indptr, neighbours, reverse, depth[curve], previous_mean[d], mean[d],
                                     active[d], previous_active[d], table_sum[tables].reshape(rows),
                                     table_count[tables].reshape(rows), previous_sum[tables].reshape(rows),
                                     previous_count[tables].reshape(rows), total_sum, total_count, estimate[curve])
        if t == t_record[record]:
            for curve in range(n_curves):
                d = decider[curve]
                error = 0.0
                for a in range(n):
                    error += (estimate[curve, a] - agent_means[a]) ** 2
                mse_out[curve, record] = error / n
                if group_out.shape[1] > 0:
                    _record_groups(agent_group[curve], estimate[curve], agent_means, group_out[curve, :, record])
                _record_diagnostics(indptr, same, active[d], changed[d], estimate[curve], mean[d], agent_means,
                                    tolerance, diagnostics_out[curve, :, record])
            record += 1
        for d in range(n_deciders):  # loops: 2-D slice assignments ran one C-ColME curve ~3 % slower
            for a in range(n):
                previous_mean[d, a] = mean[d, a]
                previous_radius[d, a] = radius[d, a]
                previous_size[d, a] = size[d, a]
            for k in range(active.shape[1]):
                previous_active[d, k] = active[d, k]


@numba.njit(cache=True)
def _observe(tf, scale, sample_sum, noise_sum, sigma_dp, spread, mean, radius):
    """One decision set's published means m_a(t) = (sum of samples + sigma_DP,a sum of unit
    Laplace draws) / t and radii beta_a(t) = spread_a ``radius_scale`` (a pass of its own:
    the same loop over several sets' rows of 2-D arrays ran ~5 % slower for one curve)."""
    for a in range(sample_sum.shape[0]):
        mean[a] = (sample_sum[a] + sigma_dp[a] * noise_sum[a]) / tf
        radius[a] = spread[a] * scale


@numba.njit(cache=True)
def _start(indptr, same, by_class, sample_sum, noise_sum, active, previous_active, size, previous_size,
           previous_radius, changed, estimate, clock, state, table_sum, table_count, previous_sum, previous_count):
    """Before t = 1: every link kept (the oracle: the classmates'), no sample, y(0) = 0,
    empty tables, the clocks at 0."""
    n = indptr.shape[0] - 1
    for d in range(by_class.shape[0]):
        for a in range(n):
            kept = 0.0
            for k in range(indptr[a], indptr[a + 1]):
                keep = 1 if same[k] or not by_class[d] else 0
                active[d, k] = keep
                previous_active[d, k] = keep
                kept += keep
            size[d, a] = kept
            previous_size[d, a] = kept
    changed[:] = 0.0
    previous_radius[:] = np.inf  # nobody's state before t = 1: no test against it
    sample_sum[:] = 0.0
    noise_sum[:] = 0.0
    estimate[:] = 0.0
    clock[:] = 0.0
    state[:] = 0.0
    table_sum[:] = 0.0
    table_count[:] = 0.0
    previous_sum[:] = 0.0
    previous_count[:] = 0.0


@numba.njit(cache=True)
def _decide(indptr, neighbours, same, by_class, stale, permanent, mean, radius, previous_mean, previous_radius,
            active, previous_active, size, changed):
    """a's decision about each neighbour b: the optimistic test against b's state at t - 1
    (``stale``) or t, on every link (``permanent``: only on the links a still keeps).
    Returns the step's number of changed decisions and of other-class links kept."""
    n = indptr.shape[0] - 1
    changes = 0.0
    wrong = 0.0
    for a in range(n):
        kept = 0.0
        flip = 0.0
        for k in range(indptr[a], indptr[a + 1]):
            b = neighbours[k]
            if by_class:
                keep = 1 if same[k] else 0
            elif permanent and not previous_active[k]:
                keep = 0
            else:
                other = previous_mean[b] if stale else mean[b]
                reach = previous_radius[b] if stale else radius[b]
                keep = 1 if abs(mean[a] - other) <= radius[a] + reach else 0
            active[k] = keep
            kept += keep
            flip += 1.0 if keep != previous_active[k] else 0.0
            wrong += keep * (1 - same[k])
        size[a] = kept
        changed[a] = flip
        changes += flip
    return changes, wrong


@numba.njit(cache=True)
def _consensus(indptr, neighbours, by_class, stale, weight_offset, uniform_weights, reset, changes, wrong, mean, size,
               previous_size, changed, active, clock, estimate, estimate_next, state):
    """C-ColME's step: W_ab = 1/(offset + max(C_a(t), C_b)) (C_b at t - 1 with ``stale``;
    ``uniform_weights``: 1/(1 + C_a(t))), then y_a = (1 - alpha) m_a + alpha v_a with
    alpha = s/(s + 1), s the clock (``RESETS``; constant: alpha = 1/2).  The oracle's sets
    never change: its clock never restarts, and an agent without classmates keeps its own
    mean (as the authors' simulator's oracle does; the algorithm keeps mixing its y)."""
    n = indptr.shape[0] - 1
    restart = False
    if reset == 1:  # global, the change seen at the step it happens
        restart = changes > 0.0
    elif reset == 2 or reset == 3:  # global, the previous step's change (the authors' simulator)
        restart = state[1] > 0.0
        if state[0] > 0.0:  # learnt: no restart any more
            state[1] = 0.0
        elif reset == 3 and wrong == 0.0 and not by_class:  # "graph learnt" (ground truth): one last restart
            state[0] = 1.0
            state[1] = 1.0
        else:
            state[1] = 1.0 if changes > 0.0 else 0.0
    for a in range(n):
        own = estimate[a]
        pull = 0.0
        for k in range(indptr[a], indptr[a + 1]):
            if active[k]:
                b = neighbours[k]
                other_size = previous_size[b] if stale else size[b]
                share = 1.0 + size[a] if uniform_weights else weight_offset + max(size[a], other_size)
                pull += (estimate[b] - own) / share
        if restart or (reset == 4 and changed[a] > 0.0) or reset == 5:
            clock[a] = 1.0
        else:
            clock[a] += 1.0
        alpha = clock[a] / (clock[a] + 1.0)
        if by_class and size[a] == 0.0:  # the oracle without classmates: its local mean
            estimate_next[a] = mean[a]
        else:
            estimate_next[a] = (1.0 - alpha) * mean[a] + alpha * (own + pull)
    for a in range(n):
        estimate[a] = estimate_next[a]


@jit_noalias(cache=True)
def _message_passing(t, indptr, neighbours, reverse, depth, previous_mean, mean, active, previous_active,
                     table_sum, table_count, previous_sum, previous_count, total_sum, total_count, estimate):
    """B-ColME's step: the tables of the kept links (``table_*`` (2E, depth)) from the
    neighbours' previous tables (``previous_*``, non-backtracking), then each agent's
    sample-count-weighted mean of its own mean and the tables' means (a mean k + 1 steps
    old stands for t - 1 - k samples).  A link a drops writes no table: at t + 1 its row
    of ``previous_*`` is read only where ``previous_active`` keeps it."""
    n = indptr.shape[0] - 1
    relayed = depth - 1  # the hops a table passes on: its last hop is read by its own agent only
    if relayed > 0:
        for b in range(n):
            for k in range(relayed):
                total_sum[b, k] = 0.0
                total_count[b, k] = 0.0
            for link in range(indptr[b], indptr[b + 1]):
                if previous_active[link]:
                    for k in range(relayed):
                        total_sum[b, k] += previous_sum[link, k]
                        total_count[b, k] += previous_count[link, k]
    for a in range(n):
        weighted = t * mean[a]
        weight = t
        for link in range(indptr[a], indptr[a + 1]):
            if not active[link]:  # its table is never read: the next step reads kept links' only
                continue
            b = neighbours[link]
            back = reverse[link]
            table_sum[link, 0] = previous_mean[b]
            table_count[link, 0] = 1.0
            for k in range(1, depth):
                own_sum = total_sum[b, k - 1]
                own_count = total_count[b, k - 1]
                if previous_active[back]:  # not back through a itself
                    own_sum -= previous_sum[back, k - 1]
                    own_count -= previous_count[back, k - 1]
                table_sum[link, k] = own_sum
                table_count[link, k] = own_count
            for k in range(depth):
                samples = t - 1.0 - k
                if samples > 0.0:
                    weighted += samples * table_sum[link, k]
                    weight += samples * table_count[link, k]
        estimate[a] = weighted / weight


@numba.njit(cache=True)
def _record_groups(agent_group, estimate, agent_means, out):
    """Each group's sum of squared errors (``out[g]``, agent a in group ``agent_group[a]``)."""
    out[:] = 0.0
    for a in range(agent_group.shape[0]):
        out[agent_group[a]] += (estimate[a] - agent_means[a]) ** 2


@numba.njit(cache=True)
def _record_diagnostics(indptr, same, active, changed, estimate, mean, agent_means, tolerance, out):
    """The ``DIAGNOSTICS``: the share of same-class links dropped, of other-class links
    kept, of agents whose kept set changed at t, and of agents whose estimate (y_a, then
    the local mean m_a) is more than ``tolerance`` from mu_a: [16]'s "wrong estimates",
    1 - p_e and 1 - p_l of the authors' simulator."""
    n = indptr.shape[0] - 1
    same_links = other_links = dropped = kept = moved = wrong = wrong_local = 0.0
    for a in range(n):
        moved += 1.0 if changed[a] > 0.0 else 0.0
        wrong += 1.0 if abs(estimate[a] - agent_means[a]) > tolerance else 0.0
        wrong_local += 1.0 if abs(mean[a] - agent_means[a]) > tolerance else 0.0
        for k in range(indptr[a], indptr[a + 1]):
            if same[k]:
                same_links += 1.0
                dropped += 1.0 - active[k]
            else:
                other_links += 1.0
                kept += active[k]
    out[0] = dropped / same_links if same_links > 0 else np.nan
    out[1] = kept / other_links if other_links > 0 else np.nan
    out[2] = moved / n
    out[3] = wrong / n
    out[4] = wrong_local / n


def link_arrays(edges: np.ndarray, classes: np.ndarray, n_agents: int) -> dict[str, np.ndarray]:
    """The directed links of an undirected edge list (E, 2): CSR ``indptr``, ``neighbours``,
    ``reverse`` (the index of b -> a for a -> b) and ``same`` (classmates)."""
    indptr, neighbours, reverse = csr_links(edges, n_agents)
    heads = np.repeat(np.arange(n_agents), np.diff(indptr))
    return {
        "indptr": indptr.astype(np.int64),
        "neighbours": neighbours.astype(np.int64),
        "reverse": reverse,
        "same": (classes[heads] == classes[neighbours]).astype(np.uint8),
    }


def simulate_scalable_runs(
    spec: ScalableSpec,
    classes: np.ndarray,
    edges: np.ndarray,
    generators: list[np.random.Generator],
    diagnostics: np.ndarray | None = None,
    progress: Progress | None = None,
    agent_means: np.ndarray | None = None,
    privacy_ranks: np.ndarray | None = None,
    group_sums: np.ndarray | None = None,
    group_counts: np.ndarray | None = None,
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)); one instance per run (``classes`` (R, M),
    ``edges`` (R, E, 2), padded with (-1, -1) rows), each run's draws keyed by its
    generator (``run_key``, the generator not advanced: Private-C-ColME's draws).

    ``privacy_ranks`` (R, M) gives each agent its level in the curves' privacy mixes
    (``colme.instances.privacy_ranks``, as Private-C-ColME's kernel reads them).  A panel
    with ``groups`` fills ``group_sums`` (R, curves, groups, T), each group's sum of squared
    errors, and ``group_counts`` (R, curves, groups), its agents (``agent_groups``)."""
    t_record = checked_t_record(spec.t_record)
    for curve in spec.curves:
        if curve.algorithm not in ALGORITHMS or curve.rule not in RULES:
            raise ValueError(f"{curve}: algorithm must be one of {tuple(ALGORITHMS)}, rule one of {RULES}")
    if spec.test not in TESTS or spec.alpha_reset not in RESETS or spec.weights not in WEIGHTS:
        raise ValueError(f"test must be one of {TESTS}, alpha_reset one of {tuple(RESETS)}, weights one of "
                         f"{tuple(WEIGHTS)}")
    n_runs = classes.shape[0]
    if spec.n_groups and (group_sums is None or group_counts is None):
        raise ValueError(f"a panel grouped by {spec.groups} needs group_sums and group_counts to fill")
    mse = np.empty((n_runs, len(spec.curves), len(t_record)))
    if diagnostics is None:
        diagnostics = np.empty((*mse.shape[:2], len(DIAGNOSTICS), len(t_record)))
    check_shapes({"diagnostics": (diagnostics, (*mse.shape[:2], len(DIAGNOSTICS), len(t_record))),
                  "group_sums": (group_sums, (*mse.shape[:2], spec.n_groups, len(t_record))),
                  "group_counts": (group_counts, (*mse.shape[:2], spec.n_groups))})
    population = spec.population
    laws = population.kernel_laws()
    data = DataArrays.of(population.streams)
    options = {
        "stale": spec.test == "stale",
        "permanent": spec.exclusions == "permanent",
        "weight_offset": WEIGHTS[spec.weights],
        "uniform_weights": spec.weights == "uniform",
        "reset": RESETS[spec.alpha_reset],
        "first_sample": spec.start == "first_sample",
        "delta": float(spec.delta),
        "tolerance": float(spec.tolerance),
    }
    if progress is not None:  # a run's directed links: twice its edges
        progress.begin(spec.t_max * sum(len(lockstep_batches(spec.n_agents, 2 * len(valid_edges(run_edges)),
                                                             spec.curves)) for run_edges in edges))
    for run in range(n_runs):
        links = link_arrays(valid_edges(edges[run]), classes[run], spec.n_agents)
        n_links = len(links["neighbours"])
        mu = population.agent_means(classes[run]) if agent_means is None else agent_means[run]
        world = RunWorld(
            **links,
            classes=classes[run].astype(np.int64),
            agent_means=np.asarray(mu, dtype=np.float64),
            key=np.uint64(run_key(generators[run])),
            laws=laws,
            log_links=math.log(4.0 * max(n_links, 1)),
            data=data,
        )
        ranks = None if privacy_ranks is None else privacy_ranks[run]
        for batch in lockstep_batches(spec.n_agents, n_links, spec.curves):
            curves = spec.curves[batch]
            arguments = {
                "world": world,
                "algorithm": _batch_arguments(spec, curves, n_links, classes[run], ranks, options),
                "outputs": _batch_records(spec, batch, t_record, mse[run], diagnostics[run], links, classes[run],
                                          ranks, group_sums, group_counts, run),
                "workspace": Workspace.allocate(spec.n_agents, n_links, len(curves),
                                                len({curve.decisions for curve in curves}), table_depths(curves)),
            }
            where = f"run {run + 1}/{n_runs}, curve" + (
                f" {batch.start + 1}/" if len(curves) == 1 else f"s {batch.start + 1}-{batch.stop}/")
            where += str(len(spec.curves))
            for t_first, t_last in time_segments(spec.t_max, progress, where):
                call_kernel(_simulate_scalable_run, arguments | {"t_first": t_first, "t_last": t_last})
    return mse


def _batch_arguments(spec: ScalableSpec, curves: tuple, n_links: int, classes: np.ndarray,
                     ranks: np.ndarray | None, options: dict) -> CurveArrays:
    """The ``CurveArrays`` of ``curves`` (of ``spec``) in one run on ``n_links`` directed
    links: their decision sets in order of first appearance, and where each B-ColME
    curve's tables begin (``table_depths``' order)."""
    per_curve = [spec.curve_arguments(curve, classes, ranks) for curve in curves]
    deciders = {}
    for curve, arguments in zip(curves, per_curve, strict=True):
        deciders.setdefault(curve.decisions, arguments)
    is_b = np.array([curve.algorithm == "b_colme" for curve in curves])
    depths = np.array([arguments["depth"] for arguments in per_curve], dtype=np.int64)
    ends = n_links * np.cumsum(np.where(is_b, depths, 0))
    return CurveArrays(
        algorithm_code=np.array([arguments["algorithm_code"] for arguments in per_curve], dtype=np.int64),
        depth=depths,
        decider=np.array([list(deciders).index(curve.decisions) for curve in curves], dtype=np.int64),
        table_start=np.where(is_b, ends - n_links * depths, -1).astype(np.int64),
        by_class=np.array([arguments["by_class"] for arguments in deciders.values()], dtype=np.bool_),
        sigma_dp=np.stack([arguments["sigma_dp"] for arguments in deciders.values()]),
        spread=np.stack([arguments["spread"] for arguments in deciders.values()]),
        **options,
    )


def _batch_records(spec: ScalableSpec, batch: slice, t_record: np.ndarray, mse: np.ndarray, diagnostics: np.ndarray,
                   links: dict, classes: np.ndarray, ranks: np.ndarray | None, group_sums: np.ndarray | None,
                   group_counts: np.ndarray | None, run: int) -> Records:
    """The ``Records`` of the curves ``batch`` in one run: views of the run's ``mse`` (C, T)
    and ``diagnostics``, and in a grouped panel of ``group_sums``, whose agents' counts it
    writes into ``group_counts``."""
    n_curves = batch.stop - batch.start
    if not spec.n_groups:
        return Records(t_record=t_record, agent_group=np.zeros((n_curves, 0), dtype=np.int64), mse_out=mse[batch],
                       diagnostics_out=diagnostics[batch], group_out=np.zeros((n_curves, 0, len(t_record))))
    groups = np.stack([spec.agent_groups(curve, classes, ranks, links["indptr"], links["neighbours"])
                       for curve in spec.curves[batch]])
    for index, curve_groups in zip(range(batch.start, batch.stop), groups, strict=True):
        group_counts[run, index] = np.bincount(curve_groups, minlength=spec.n_groups)
    return Records(t_record=t_record, agent_group=groups, mse_out=mse[batch], diagnostics_out=diagnostics[batch],
                   group_out=group_sums[run, batch])
