"""Private-C-ColME (Yakimenka et al. 2025, arXiv:2511.04702, Algorithm 1): a compiled Monte
Carlo engine.

One call simulates one run (one class assignment, one graph, one data stream) for *all*
curves of a panel at once: curves differ only by the decision rule and the privacy level,
so they share the data samples and the standard noise draws (common random numbers).
The kernel is generated for the panel's number of curves (lanes) with the lane loops
unrolled, so that LLVM packs them into the CPU's vector registers; its state holds errors
from the agents' true means (float32 stays exact at the paper horizon); its draws come
from an inline counter-based generator (SplitMix64) keyed by each run's generator.

This module drives the kernel (``simulate_runs``): the panel's spec is ``spec.py``'s, the
draws ``randoms.py``'s, the kernel's source ``template.py``'s and its compilation
``codegen.py``'s.  The choices made where Private-C-ColME is silent, which this kernel
implements, are listed once, in ``choices.py`` (and recorded in every figure's metadata).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import call_kernel
from ..datafiles import DataArrays
from ..graphs import csr_edge_ids, valid_edges
from ..populations import KernelLaws
from ..progress import Progress, time_segments
from ..timegrid import checked_t_record
from .codegen import compiled_kernel
from .decision_rules import RuleError, horizon_problems
from .randoms import run_key
from .rules import ALPHA_RESETS, OPTIMISTIC_RADII, alpha_table
from .spec import DIAGNOSTICS, PanelSpec

#: Most curves per kernel call; larger panels run in groups that replay the run's draws.
MAX_LANES = 16
#: Agents from which a panel runs the ``large`` kernel (``template.kernel_source``).  Against the
#: small layout, r = 10, 12 curves, float32 (docs/kernel.md, "The layout for large graphs"):
#: x0.90 at M = 1e4, x0.99 at 2e4, x1.36 at 3e4, x1.61 at 5e4 on a Zen 3 with a 32 MB L3; a
#: CPU with a larger L3 breaks even later, hence 5e4 rather than 3e4.
LARGE_AGENTS = 50_000


def lane_groups(n_curves: int) -> tuple[int, int]:
    """(groups, lanes): the fewest kernel calls of at most MAX_LANES lanes, evenly filled."""
    groups = -(-n_curves // MAX_LANES)
    return groups, -(-n_curves // groups)


#: alpha_tau = (block + 1)/(block + 2), block = floor(tau * scale) + shift: the schedules of
#: ``rules.alpha_table`` (floor10: floor(tau/10); theory: tau - 1), computed in the
#: kernel (no table gather); 0.1 rounds up in binary, so floor(tau * 0.1) = floor(tau / 10).
BLOCKS = {"floor10": (0.1, 0.0), "theory": (1.0, -1.0)}


class RunWorld(NamedTuple):
    """The kernel's first argument group: one run's world.  Its graph in CSR form, with
    unsigned indices (no negative-index wraparound in the kernel) and rows premultiplied by
    the lanes: ``indptr``, ``upper`` (each agent's first neighbour above it),
    ``neighbour_row`` and ``edge_row`` per directed edge, ``offset`` = mu_a - mu_b and
    ``same`` (classmates) per directed edge; the agents' true means ``agent_means`` and
    classes ``agent_class``; the stream ``key`` (``randoms.run_key``); the ``degree`` of the
    radius's union bound (``run_degree``); the classes' ``laws`` and the shared law's
    ``half_width`` and ``sigma`` (the shared kernel's, whose classes all have them); in a
    world from a data file, the agents' centred samples (``data``, ``DataArrays.of``)."""

    indptr: np.ndarray
    upper: np.ndarray
    neighbour_row: np.ndarray
    edge_row: np.ndarray
    offset: np.ndarray
    same: np.ndarray
    agent_means: np.ndarray
    agent_class: np.ndarray
    key: np.uint64
    degree: float
    laws: KernelLaws
    half_width: float
    sigma: float
    data: DataArrays


class LaneCurves(NamedTuple):
    """The kernel's second argument group: the algorithm, one lane group's curves.  Per lane,
    the keys of ``PanelSpec.curve_arrays`` (``rule`` code, ``by_class``, ``rule_params``,
    ``sigma_dp``, ``beta_pair``, ``theta_k``); a mixed panel's agent profiles and profile
    pairs (``PanelSpec.agent_profiles`` and ``profile_arrays``; zeros, unread, in the shared
    kernel); the panel's options: ``weight_params``, the state's ``one``, the alpha
    schedule's ``block_scale`` and ``block_shift`` (``BLOCKS``), its resets."""

    rule: np.ndarray
    by_class: np.ndarray
    rule_params: np.ndarray
    sigma_dp: np.ndarray
    beta_pair: np.ndarray
    theta_k: np.ndarray
    agent_noise: np.ndarray
    profile_row: np.ndarray
    profile_col: np.ndarray
    pair_sigma_a: np.ndarray
    pair_sigma_b: np.ndarray
    pair_beta: np.ndarray
    pair_noise_a: np.ndarray
    pair_noise_b: np.ndarray
    weight_params: np.ndarray
    one: np.floating
    block_scale: np.floating
    block_shift: np.floating
    per_agent_reset: np.floating
    global_reset: np.floating


class Records(NamedTuple):
    """The kernel's third argument group: what it records, at the times ``t_record``: the
    MSE ``mse_out`` (lanes, T), the ``DIAGNOSTICS`` ``diagnostics_out`` (lanes, 3, T) and,
    in a grouped panel, each group's sum of squared errors ``group_out`` (lanes, G, T), agent
    a of lane c in group ``group_row[a * lanes + c] / lanes`` (``PanelSpec.agent_groups``)."""

    t_record: np.ndarray
    group_row: np.ndarray
    mse_out: np.ndarray
    diagnostics_out: np.ndarray
    group_out: np.ndarray


class Workspace(NamedTuple):
    """The kernel's last argument group: its scratch arrays, allocated once per call of
    ``simulate_runs``, each its own allocation (``call_kernel`` checks it: the kernel is
    compiled with ``jit_noalias``).  The small layout keeps one array per field; the large
    one (``template._LARGE_TEMPLATE``) keeps e, q, X~ and |C| in ``rows`` instead (the
    per-field arrays are empty there) and the accepted-edge state per directed edge."""

    accepted: np.ndarray  # per undirected edge (large: directed) and lane: b in C_a^(t) (1 or 0)
    clock: np.ndarray  # per agent and lane: the alpha clock tau
    noisy: np.ndarray  # noisy-mean error X~_a - mu_a
    error: np.ndarray  # consensus error e_a = mu~_a - mu_a
    error_next: np.ndarray  # next step's e_a
    set_size: np.ndarray  # |C_a^(t)|
    weight_cap: np.ndarray  # the weight rule's cap q_a of |C_a^(t)| (1/(|C_a^(t)| + offset) built in)
    flips: np.ndarray  # > 0 iff C_a^(t) != C_a^(t-1)
    threshold: np.ndarray  # per lane: the decision rule's threshold at t
    pair_threshold: np.ndarray  # per profile pair and lane (mixed panels): the same
    sample_sum: np.ndarray  # per agent (float64): running sum of x_a - mu_a
    noise_sum: np.ndarray  # per agent (float64): running sum of standard noise draws
    group_squared: np.ndarray  # per group and lane (grouped panels): sum of squared errors
    rows: np.ndarray  # large layout: per agent two rows of e, q, X~, |C| (``template._LARGE_TEMPLATE``)
    change_count: np.ndarray  # per lane: how many C_a^(t) changed (the global alpha reset's test)

    @classmethod
    def allocate(cls, n_agents: int, n_edges: int, lanes: int, dtype, n_pairs: int = 1,
                 large: bool = False, n_groups: int = 1) -> Workspace:
        """Zeroed arrays, each its own allocation; per-lane state in ``dtype`` (the
        accepted-edge state, 0 or 1, in uint8 per directed edge for the ``large`` kernel,
        whose ``rows`` start on a cache line); ``n_pairs`` profile pairs (mixed panels),
        ``n_groups`` groups (grouped panels)."""
        def per_agent(small_only=False):
            return np.zeros(0 if small_only and large else n_agents * lanes, dtype=dtype)

        return cls(
            accepted=np.zeros((2 if large else 1) * n_edges * lanes, dtype=np.uint8 if large else dtype),
            clock=per_agent(),
            noisy=per_agent(small_only=True),
            error=per_agent(small_only=True),
            error_next=per_agent(small_only=True),
            set_size=per_agent(small_only=True),
            weight_cap=per_agent(small_only=True),
            flips=per_agent(),
            threshold=np.zeros(lanes, dtype=dtype),
            pair_threshold=np.zeros(n_pairs * lanes, dtype=dtype),
            sample_sum=np.zeros(n_agents),
            noise_sum=np.zeros(n_agents),
            group_squared=np.zeros(n_groups * lanes),
            rows=aligned_zeros(8 * n_agents * lanes if large else 0, dtype),
            change_count=np.zeros(lanes, dtype=dtype),
        )


def aligned_zeros(size: int, dtype, alignment: int = 64) -> np.ndarray:
    """``np.zeros(size, dtype)`` starting on an ``alignment``-byte boundary (a cache line:
    each field of a row then spans the fewest lines it can)."""
    itemsize = np.dtype(dtype).itemsize
    buffer = np.zeros(size + alignment // itemsize, dtype=dtype)
    skip = (-buffer.ctypes.data % alignment) // itemsize
    return buffer[skip:skip + size]


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
    group_sums: np.ndarray | None = None,
    group_counts: np.ndarray | None = None,
) -> np.ndarray:
    """Average MSE (runs, curves, len(t_record)) of Algorithm 1, one instance per run.

    ``agent_means`` (R, M): each run's true means (default: the class means; a population
    with jitter passes its own, ``colme.instances.run_agent_means``); ``privacy_ranks``
    (R, M): each run's permutation of the agents that assigns a mix's privacy levels
    (``Curve.agent_levels``; needed when a curve has a mix).

    ``diagnostics`` (runs, curves, len(DIAGNOSTICS), len(t_record)), if given, receives the
    ``DIAGNOSTICS`` of every run and curve at the recorded times.  A panel with
    ``groups`` fills ``group_sums`` (runs, curves, n_groups, len(t_record)), each group's
    sum of squared errors, and ``group_counts`` (runs, curves, n_groups), its agents
    (``PanelSpec.agent_groups``); the panel's MSE is the same with or without them.

    ``classes`` (R, M) and ``edges`` (R, E, 2) are the runs' instances (rows (-1, -1) pad
    runs with fewer edges, ``colme.instances.make_family_instances``); ``generators`` the
    runs' data streams: each gives the run's SplitMix64 key (``run_key``; the generators
    are not advanced).  The kernel handles up to MAX_LANES curves per call; larger panels
    replay each run's stream once per group, so every curve still sees the same samples
    and noise (common random numbers).  ``dtype`` is the precision of the per-curve state,
    held in error coordinates so that float32 stays unbiased at the paper horizon
    (``tests/ccolme/test_precision.py`` checks it at t = 3e4).  With a ``progress``, each run
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
        key: np.concatenate([value, np.repeat(value[-1:], padded - n_curves, axis=0)])
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
    weights = spec.mixing_weights()
    mixed = spec.mixed
    if any(c.mix for c in spec.curves) and privacy_ranks is None:
        raise ValueError("a privacy mix needs each run's privacy_ranks")
    n_profiles = spec.population.n_classes * spec.n_levels if mixed else 1
    if large is None:
        large = spec.n_agents >= LARGE_AGENTS
    grouped = spec.n_groups > 0
    if grouped and (group_sums is None or group_counts is None):
        raise ValueError(f"a panel grouped by {spec.groups} needs group_sums and group_counts to fill")
    n_groups = max(spec.n_groups, 1)
    workspace = Workspace.allocate(spec.n_agents, edges.shape[1], lanes, dtype, n_profiles**2, large, n_groups)
    file = spec.population.streams is not None
    kernel = compiled_kernel(lanes, mixed, large, spec.decision_rules(), weights, grouped, file)
    if progress is not None:
        progress.begin(n_runs * groups * spec.t_max)
    mse = np.empty((n_runs, padded, len(t_record)))
    rates = np.empty((n_runs, padded, len(DIAGNOSTICS), len(t_record)))
    sums = np.zeros((n_runs, padded, n_groups, len(t_record)))
    counts = np.zeros((n_runs, padded, n_groups), dtype=np.int64)
    ungrouped = np.zeros(lanes, dtype=np.uint64)  # the group_row an ungrouped kernel never reads
    population = spec.population
    shared = population.laws[0]  # read by the shared kernel only, whose classes all have it
    laws = population.kernel_laws()
    data = DataArrays.of(population.streams, centred=True)  # the kernel holds errors from the means
    options = {
        "weight_params": weights.param_array(dtype),
        "one": dtype(1),
        "block_scale": dtype(block_scale),
        "block_shift": dtype(block_shift),
        "per_agent_reset": dtype(spec.alpha_reset == "per_agent"),
        "global_reset": dtype(spec.alpha_reset == "global"),
    }
    # Per lane group of a mixed panel: each profile's sigma_DP and the pair table, once.
    group_noise = {first: spec.profile_noise(padded_curves[first:first + lanes])
                   for first in range(0, padded, lanes)} if mixed else {}
    pair_tables = {first: spec.profile_arrays(padded_curves[first:first + lanes], noise)
                   for first, noise in group_noise.items()}
    for run in range(n_runs):
        run_edges = valid_edges(edges[run])  # without the padding of unequal edge counts
        indptr, neighbours, edge_id = csr_edge_ids(run_edges, spec.n_agents)
        heads = np.repeat(np.arange(spec.n_agents), np.diff(indptr))
        upper = indptr[:-1] + np.bincount(heads[neighbours < heads], minlength=spec.n_agents)
        if spec.degree is None:  # a rule was checked at the family's expected degree: now at this run's
            for name, problem in horizon_problems(spec, run_degree(spec, len(run_edges))):
                raise RuleError(f"decision rule {name!r}: {problem}, on run {run + 1}'s graph (mean degree "
                                f"{run_degree(spec, len(run_edges)):g})")
        mu = population.agent_means(classes[run]) if agent_means is None else agent_means[run]
        world = RunWorld(
            indptr=indptr.astype(np.uint64),
            upper=upper.astype(np.uint64),
            neighbour_row=(neighbours * lanes).astype(np.uint64),
            edge_row=(edge_id.reshape(-1) * lanes).astype(np.uint64),
            offset=(mu[heads] - mu[neighbours]).astype(dtype),
            same=(classes[run][heads] == classes[run][neighbours]).astype(dtype),
            agent_means=mu,
            agent_class=classes[run].astype(np.int64),
            key=np.uint64(run_key(generators[run])),
            degree=run_degree(spec, len(run_edges)),
            laws=laws,
            half_width=shared.half_width,
            sigma=shared.sigma,
            data=data,
        )
        ranks = None if privacy_ranks is None else privacy_ranks[run]
        for first in range(0, padded, lanes):
            group = slice(first, first + lanes)
            curves = {name: value[group].copy() for name, value in params.items()}
            group_curves = padded_curves[group]
            group_row = ungrouped
            if grouped:
                agent_groups = np.stack(
                    [spec.agent_groups(c, classes[run], ranks, indptr, neighbours) for c in group_curves], axis=1)
                group_row = (agent_groups * lanes).astype(np.uint64).reshape(-1)
                counts[run, group] = [np.bincount(g, minlength=n_groups) for g in agent_groups.T]
            if mixed:
                profiles = spec.agent_profiles(group_curves, group_noise[first], classes[run], ranks)
                curves |= pair_tables[first] | profiles
            else:
                curves |= unmixed
            outputs = Records(
                t_record=t_record,
                group_row=group_row,
                mse_out=np.empty((lanes, len(t_record))),
                diagnostics_out=np.empty((lanes, len(DIAGNOSTICS), len(t_record))),
                group_out=np.zeros((lanes, n_groups, len(t_record))),
            )
            arguments = {"world": world, "algorithm": LaneCurves(**curves, **options), "outputs": outputs,
                         "workspace": workspace}
            for t_first, t_last in time_segments(spec.t_max, progress, f"run {run + 1}/{n_runs}"):
                call_kernel(kernel, arguments | {"t_first": t_first, "t_last": t_last})
            mse[run, group] = outputs.mse_out
            rates[run, group] = outputs.diagnostics_out
            sums[run, group] = outputs.group_out
    if diagnostics is not None:
        diagnostics[...] = rates[:, :n_curves]
    if grouped:
        group_sums[...] = sums[:, :n_curves]
        group_counts[...] = counts[:, :n_curves]
    return mse[:, :n_curves]
