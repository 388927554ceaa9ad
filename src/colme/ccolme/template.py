"""The kernel's source, generated for a given number of lanes.

Lines holding "@" are repeated once per lane (curve) with "@" replaced by the lane
index: the lane loops are unrolled in the source, so a curve's state lives in scalars
that LLVM's SLP vectorizer packs into vector registers, in power-of-two groups (12 float32
lanes: 8 + 4, on AVX2 and AVX-512 alike: ``benchmarks/vector_widths.py``), with no padding
to a register width.

State in error coordinates: per agent and curve the kernel holds e_a = mu~_a - mu_a and
the noisy-mean error X~_a - mu_a, small numbers whose float32 ulp stays far below the
consensus increments at t = 3e4 (an absolute mu~_a ~ 0.5 would lose them, biasing float32
by +1.5%).  Neighbour b's value seen from a is e_b - offset_ab, offset_ab = mu_a - mu_b
per directed edge (0 between agents with equal means): exact in real arithmetic.  The decision compares
|(X~_a - mu_a) - (X~_b - mu_b) + offset_ab| = |X~_a - X~_b| to the threshold; offset_ba =
-offset_ab makes it symmetric bit for bit.

The kernel takes four argument groups (``kernel.py``'s named tuples: the run's world, the
lane group's curves, its outputs, its workspace), each unpacked by its fields' names, and
is only ever called by keyword (``call_kernel``).
Its draws are ``randoms.py``'s; ``codegen.py`` compiles the generated module.
"""

from __future__ import annotations

import re

from .decision_rules import builtin_rules
from .weight_rules import builtin_weights

_TEMPLATE = '''
@step
def start_run(agent_means, one, sample_sum, noise_sum, accepted, clock, error, rows):
    """Algorithm 1, line 1: mu~^(0) = 0 (error -mu_a), no sample yet, every clock at 0,
    C^(0) empty (the large layout: e^(0) in the rows of parity 1, which the consensus of t = 1
    reads)."""
    zero = one - one
    for a in range(agent_means.shape[0]):
        ra = np.uint64(a) * LANES
        sample_sum[a] = 0.0
        noise_sum[a] = 0.0
        error[ra + U@] = -agent_means[a]  #:small
        rows[FIELDS * ra + np.uint64(rows.shape[0] // 2) + ERROR + U@] = -agent_means[a]  #:large
        clock[ra + U@] = zero
    for i in range(accepted.shape[0]):
        accepted[i] = 0


@step
def receive(counter, t, key, half_width, agent_class, law_code, law_a0, law_a1, law_a2, quantiles, data_values,
            data_start, data_count, data_order, replay, sample_sum, noise_sum):
    """Lines 3-4: each agent's new sample x_a^(t) - mu_a and standard Laplace noise draw,
    accumulated (sample_sum[a] = sum of x_a - mu_a); returns the stream counter.  A world
    from a data file replays its agents' centred samples (``replay.replay_index``) in
    place of the law's draw, whose uniform the bootstrap reads."""
    for a in range(sample_sum.shape[0]):
        counter += GOLDEN
        sample_sum[a] += half_width * (2.0 * mix_uniform(counter) - 1.0)  #:shared
        c = agent_class[a]  #:law
        sample_sum[a] += centred_sample(mix_uniform(counter), law_code[c], law_a0[c], law_a1[c], law_a2[c], quantiles[c])  #:law
        sample_sum[a] += data_values[data_start[a] + replay_index(t - 1, data_count[a], replay, key, a, mix_uniform(counter), data_order, data_start[a])]  #:file
        counter += GOLDEN
        noise_sum[a] += unit_laplace(mix_uniform(counter))
    return counter


@step
def set_thresholds(t, rule, sigma_dp, beta_pair, theta_k, rule_params, pair_sigma_a, pair_sigma_b, pair_beta,
                   pair_noise_a, pair_noise_b, sigma, degree, n_agents, threshold, pair_threshold):
    """The decision rule's threshold at t (Sec. III-C; ``decision_rules``), with the
    confidence schedule theta_t at the lane's k: one per lane, or one per profile pair and
    lane when agents differ."""
    theta@ = theta_schedule(t, theta_k[@])
    threshold[@] = acceptance_threshold(rule[@], t, sigma, sigma, sigma_dp[@], sigma_dp[@], beta_pair[@], theta@, degree, n_agents, rule_params, U@)  #:shared
    for q in range(pair_sigma_a.shape[0] // LANES):  #:mixed
        rq = np.uint64(q) * LANES  #:mixed
        pair_threshold[rq + U@] = acceptance_threshold(rule[@], t, pair_sigma_a[rq + U@], pair_sigma_b[rq + U@], pair_noise_a[rq + U@], pair_noise_b[rq + U@], pair_beta[rq + U@], theta@, degree, n_agents, rule_params, U@)  #:mixed


@step
def publish(t, sigma_dp, agent_noise, one, sample_sum, noise_sum, noisy, set_size, flips, rows):
    """Line 5: each agent's noisy mean X~_a^(t) (as the error X~_a - mu_a), |C_a| reset to
    {a}, and at t = 1 every C_a marked changed (C_a^(0) is empty).  The large layout's
    decision counts |C_a| and the changes itself (``fused_pass``); its X~_a^(t) goes to
    the rows of parity t - 1."""
    inv_t = 1.0 / t
    first = one if t == 1 else one - one  #:small
    slot = np.uint64((t - 1) % 2) * np.uint64(rows.shape[0] // 2) + NOISY  #:large
    noise_scale@ = sigma_dp[@]  #:shared
    for a in range(sample_sum.shape[0]):
        ra = np.uint64(a) * LANES
        s = sample_sum[a]
        z = noise_sum[a]
        noisy[ra + U@] = (s + noise_scale@ * z) * inv_t  #:shared_small
        noisy[ra + U@] = (s + agent_noise[ra + U@] * z) * inv_t  #:mixed_small
        rows[FIELDS * ra + slot + U@] = (s + noise_scale@ * z) * inv_t  #:shared_large
        rows[FIELDS * ra + slot + U@] = (s + agent_noise[ra + U@] * z) * inv_t  #:mixed_large
        set_size[ra + U@] = one  #:small
        flips[ra + U@] = first  #:small


@step
def decide(by_class, indptr, upper, neighbour_row, edge_row, offset, same, profile_row, profile_col, one,
           degree, n_agents, weight_params, threshold, pair_threshold, noisy, accepted, set_size, flips, weight_cap,
           change_count):
    """Lines 6-7, the decision rule chi_a^(t)(b) = chi_b^(t)(a), once per edge {a, b} from
    its lower end a (neighbours k >= upper[a] have b > a): |C_a^(t)|, |C_b^(t)| and whether
    C^(t) != C^(t-1) accumulate at both ends, and once C_a^(t) is complete, a's cap q_a of
    the mixing weights (``mixing_cap``, ``weight_rules``).  Each lane's count of changes
    goes to ``change_count`` (> 0 iff some C_a^(t) changed)."""
    zero = one - one
    oracle@ = one if by_class[@] > 0.0 else zero
    limit@ = threshold[@]  #:shared
    low@ = zero - limit@  #:shared
    changes@ = zero
    for a in range(indptr.shape[0] - 1):
        ra = np.uint64(a) * LANES
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
            low@ = zero - limit@  #:mixed
            # An oracle lane accepts a classmate whatever the test says: one select of a value
            # computed before it (a product inside the select's arm would be a branch per lane).
            # |gap| < limit as two bounds and the change (0 or 1) as a square: no absolute value,
            # whose sign mask held a register of the loop (docs/kernel.md, "Fewer instructions per edge").
            classmate@ = same_class * oracle@
            gap@ = mine@ - noisy[rb + U@] + d
            now@ = one if (gap@ < limit@) & (gap@ > low@) else classmate@
            moved@ = now@ - as_state(accepted[re + U@], one)
            change@ = moved@ * moved@
            accepted[re + U@] = now@
            size@ += now@
            flip@ += change@
            set_size[rb + U@] += now@
            flips[rb + U@] += change@
        set_size[ra + U@] = size@
        flips[ra + U@] = flip@
        changes@ += flip@
        weight_cap[ra + U@] = mixing_cap(size@, degree, n_agents, weight_params)
    change_count[U@] = changes@


@step
def consensus(indptr, neighbour_row, edge_row, offset, one, block_scale, block_shift, per_agent_reset, global_reset,
              change_count, accepted, weight_cap, noisy, flips, clock, error, error_next):
    """Lines 8-10, the consensus step with W^(t) of the figure's weight rule: W_ab =
    min(q_a, q_b) for accepted b (``weight_rules``; eq. (2): min(1/(|C_a|+1), 1/(|C_b|+1))),
    and alpha of the agent's clock tau: 1 - alpha = 1/(block + 2), block =
    floor(tau * block_scale) + block_shift (floor10: tau/10 and 0; theory: tau and -1).

    In increment form, (W e)_a = e_a + sum_b W_ab (e_b - e_a) and alpha m + (1 - alpha) x =
    m + (1 - alpha)(x - m): no rounded 1 - sum W or alpha multiplies a whole value.  The
    clock restarts (alpha_reset) when the agent's own C_a^(t) changed (per_agent), when
    anybody's did (global: ``change_count`` > 0), or never (none).
    """
    zero = one - one
    two = one + one
    everybody@ = global_reset * change_count[U@]
    for a in range(indptr.shape[0] - 1):
        ra = np.uint64(a) * LANES
        own@ = weight_cap[ra + U@]
        mine@ = error[ra + U@]
        pull@ = zero
        for k in range(indptr[a], indptr[a + 1]):
            rb = neighbour_row[k]
            re = edge_row[k]
            d = offset[k]
            w@ = as_state(accepted[re + U@], one) * min(own@, weight_cap[rb + U@])
            pull@ += w@ * (error[rb + U@] - d - mine@)
        trigger@ = per_agent_reset * flips[ra + U@] + everybody@
        # Loaded before the select: a load in one arm of a conditional expression is a
        # branch per lane (LLVM may not speculate it), mispredicted as often as clocks reset.
        last@ = clock[ra + U@]
        tick@ = one if trigger@ > zero else last@ + one
        clock[ra + U@] = tick@
        fresh@ = one / (np.floor(tick@ * block_scale) + block_shift + two)
        mixed@ = mine@ + pull@
        error_next[ra + U@] = mixed@ + fresh@ * (noisy[ra + U@] - mixed@)
    # A copy, not a swap: swapped references would hide from LLVM which argument each
    # name points to, and the no-alias vectorization would be lost.
    for i in range(error.shape[0]):
        error[i] = error_next[i]


@step
def record_mse(t, column, indptr, neighbour_row, edge_row, one, sample_sum, accepted, set_size, error, rows,
               group_row, group_squared, mse_out, group_out):
    """Line 11 averaged over agents into ``mse_out[:, column]``: the final if/else of
    Algorithm 1 takes the local mean when every |C_b| <= 2, b in C_a.  A grouped panel
    also sums the squared errors of each group (``group_row``: an agent's group per lane,
    premultiplied) into ``group_out[:, group, column]``.  (The large layout: |C^(t)| in
    the rows of parity t, the consensus's e^(t) in the others.)"""
    n_agents = sample_sum.shape[0]
    inv_t = 1.0 / t
    two = one + one
    here = np.uint64(t % 2) * np.uint64(rows.shape[0] // 2)  #:large
    there = np.uint64(rows.shape[0] // 2) - here  #:large
    for i in range(group_squared.shape[0]):  #:grouped
        group_squared[i] = 0.0  #:grouped
    squared@ = 0.0
    for a in range(n_agents):
        ra = np.uint64(a) * LANES
        local_error = sample_sum[a] * inv_t
        largest@ = set_size[ra + U@]  #:small
        largest@ = rows[FIELDS * ra + here + SIZE + U@]  #:large
        for k in range(indptr[a], indptr[a + 1]):
            rb = neighbour_row[k]
            re = edge_row[k]  #:small
            re = np.uint64(k) * LANES  #:large
            largest@ = max(largest@, as_state(accepted[re + U@], one) * set_size[rb + U@])  #:small
            largest@ = max(largest@, as_state(accepted[re + U@], one) * rows[FIELDS * rb + here + SIZE + U@])  #:large
        current@ = np.float64(error[ra + U@])  # loaded before the select (see ``consensus``)  #:small
        current@ = np.float64(rows[FIELDS * ra + there + ERROR + U@])  #:large
        estimate@ = local_error if largest@ <= two else current@
        squared@ += estimate@ * estimate@
        group_squared[group_row[ra + U@] + U@] += estimate@ * estimate@  #:grouped
    mse_out[@, column] = squared@ / n_agents
    for g in range(group_out.shape[1]):  #:grouped
        group_out[@, g, column] = group_squared[np.uint64(g) * LANES + U@]  #:grouped


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
            re = edge_row[k]  #:small
            re = np.uint64(k) * LANES  #:large
            same_edges += same[k]
            rejected@ += same[k] * (one - as_state(accepted[re + U@], one))
            crossing@ += (one - same[k]) * as_state(accepted[re + U@], one)
    cross_edges = (indptr[n_agents] - indptr[0]) / 2.0 - same_edges
    diagnostics_out[@, 0, column] = rejected@ / same_edges if same_edges > 0 else np.nan
    diagnostics_out[@, 1, column] = crossing@ / cross_edges if cross_edges > 0 else np.nan
    diagnostics_out[@, 2, column] = changed@ / n_agents


def kernel(world, algorithm, outputs, workspace, t_first, t_last):
    """Algorithm 1 of Private-C-ColME for one run and one lane group, steps t_first..t_last
    (t_first = 1 starts the run; a later call resumes it from the workspace).  Argument
    groups (``kernel.py``): the run's ``RunWorld``, the lane group's ``LaneCurves``, the
    ``Records`` it writes and the ``Workspace``; each is unpacked by its fields' names."""
    indptr, upper, neighbour_row, edge_row, offset, same, agent_means, agent_class, key, degree, laws, half_width, \
        sigma, data = world
    law_code, law_a0, law_a1, law_a2, quantiles = laws
    data_values, data_start, data_count, data_order, replay = data
    rule, by_class, rule_params, sigma_dp, beta_pair, theta_k, agent_noise, profile_row, profile_col, pair_sigma_a, \
        pair_sigma_b, pair_beta, pair_noise_a, pair_noise_b, weight_params, one, block_scale, block_shift, \
        per_agent_reset, global_reset = algorithm
    t_record, group_row, mse_out, diagnostics_out, group_out = outputs
    accepted, clock, noisy, error, error_next, set_size, weight_cap, flips, threshold, pair_threshold, sample_sum, \
        noise_sum, group_squared, rows, change_count = workspace
    n_agents = sample_sum.shape[0]
    if t_first == 1:
        start_run(agent_means, one, sample_sum, noise_sum, accepted, clock, error, rows)
    # Two draws per agent and step: the counter where step t_first starts (mod 2^64).
    counter = key + np.uint64(2 * n_agents) * np.uint64(t_first - 1) * GOLDEN
    next_record = 0
    while t_record[next_record] < t_first:
        next_record += 1
    # Pass t: step t's consensus (from t_first on), then step t + 1's draws and decision (up
    # to t_last); the large layout does both in one sweep over the agents (``fused_pass``).
    # A recorded step splits its pass in two, its record between them: the record reads
    # step t's sets and the samples up to t, before step t + 1's draws and decision.
    t = t_first - 1
    consensus_now = False
    while True:
        recording = consensus_now and t == t_record[next_record]
        decide_next = t < t_last and not recording
        if consensus_now:  #:small
            consensus(indptr, neighbour_row, edge_row, offset, one, block_scale, block_shift, per_agent_reset,  #:small
                      global_reset, change_count, accepted, weight_cap, noisy, flips, clock, error, error_next)  #:small
        if decide_next:
            counter = receive(counter, t + 1, key, half_width, agent_class, law_code, law_a0, law_a1, law_a2,
                              quantiles, data_values, data_start, data_count, data_order, replay, sample_sum,
                              noise_sum)
            set_thresholds(t + 1, rule, sigma_dp, beta_pair, theta_k, rule_params, pair_sigma_a, pair_sigma_b,
                           pair_beta, pair_noise_a, pair_noise_b, sigma, degree, n_agents, threshold, pair_threshold)
            publish(t + 1, sigma_dp, agent_noise, one, sample_sum, noise_sum, noisy, set_size, flips, rows)
            decide(by_class, indptr, upper, neighbour_row, edge_row, offset, same, profile_row, profile_col, one,  #:small
                   degree, n_agents, weight_params, threshold, pair_threshold, noisy, accepted, set_size, flips,  #:small
                   weight_cap, change_count)  #:small
        fused_pass(t, consensus_now, decide_next, by_class, indptr, upper, neighbour_row, offset, same,  #:large
                   profile_row, profile_col, one, degree, n_agents, weight_params, threshold, pair_threshold,  #:large
                   block_scale, block_shift, per_agent_reset, global_reset, rows, accepted, flips, clock,  #:large
                   change_count)  #:large
        if recording:
            record_mse(t, next_record, indptr, neighbour_row, edge_row, one, sample_sum, accepted, set_size, error,
                       rows, group_row, group_squared, mse_out, group_out)
            record_diagnostics(next_record, indptr, upper, edge_row, same, one, accepted, flips, diagnostics_out)
            next_record += 1
        if decide_next:
            t += 1
            consensus_now = True
        elif recording and t < t_last:
            consensus_now = False  # the same t: its pass's decision is left
        else:
            break
'''

#: How many agents ahead the large kernel prefetches the neighbour rows of.
PREFETCH_AHEAD = 4

#: The large layout's steps (``kernel_source(large=True)`` adds them to ``_TEMPLATE``).
_LARGE_TEMPLATE = '''
# Each agent's state in two rows, one in each half of ``rows`` (a's from FIELDS * a * LANES
# on in each), each row four fields of LANES: the row of parity t mod 2 holds what pass t
# reads of a neighbour, e^(t-1) (ERROR), q^(t) (CAP) and X~^(t+1) (NOISY), side by side, and
# |C^(t)| (SIZE, read by the record only): 3 cache lines in float32 with 12 lanes.
FIELDS = np.uint64(4)
ERROR = np.uint64(0) * LANES
CAP = np.uint64(1) * LANES
NOISY = np.uint64(2) * LANES
SIZE = np.uint64(3) * LANES


@step
def prefetch_fields(rows, first):
    """Ask for the cache lines of the ERROR, CAP and NOISY fields of a row from ``first`` on
    (3 LANES wide): addresses LANES apart cover every line where a field is at most 64
    bytes (float32, up to 16 lanes: the panels at scale), most of them otherwise."""
    prefetch(rows, first)
    prefetch(rows, first + LANES)
    prefetch(rows, first + LANES + LANES)
    prefetch(rows, first + NOISY + LANES - np.uint64(1))


@step
def fused_pass(t, consensus_now, decide_next, by_class, indptr, upper, neighbour_row, offset, same, profile_row,
               profile_col, one, degree, n_agents, weight_params, threshold, pair_threshold, block_scale,
               block_shift, per_agent_reset, global_reset, rows, accepted, flips, clock, change_count):
    """The large layout's pass t, one sweep over the agents, each agent doing (if
    ``consensus_now``) its consensus of step t, lines 8-10 as ``consensus`` does them, and
    then (if ``decide_next``) its decision of step t + 1, lines 6-7 as ``decide`` makes
    them, with the same numbers bit for bit:

    * an agent decides all its edges from its own end, each verdict in its CSR place
      (``accepted`` per directed edge), so nothing is scattered to a neighbour: the rule
      is symmetric bit for bit (y - x - d = -(x - y + d) in floating point, offset_ba =
      -offset_ab exactly, and -limit < gap < limit holds for both signs), a mixed panel
      reads the pair's threshold as the lower end does, and |C_a| and the change counts
      are sums of integers, exact in any order;
    * step t + 1's noisy means do not depend on step t's consensus, so one visit to a
      neighbour reads what both need: the row of parity t, e_b^(t-1), q_b^(t) and
      X~_b^(t+1), three fields side by side (``prefetch_fields``); the agent writes
      e_a^(t), q_a^(t+1) and |C_a^(t+1)| to its other row, which pass t + 1 reads.

    ``change_count`` holds step t's counts of changes (the global reset's) and receives
    step t + 1's."""
    zero = one - one
    two = one + one
    half = np.uint64(rows.shape[0] // 2)
    here = np.uint64(t % 2) * half
    there = half - here
    first = one if t == 0 else zero
    oracle@ = one if by_class[@] > 0.0 else zero
    limit@ = threshold[@]  #:shared
    low@ = zero - limit@  #:shared
    everybody@ = global_reset * change_count[U@]
    changes@ = zero
    for a in range(indptr.shape[0] - 1):
        ra = np.uint64(a) * LANES
        mine = FIELDS * ra + here
        other = FIELDS * ra + there
        ahead = a + PREFETCH_AHEAD
        if ahead < indptr.shape[0] - 1:
            for j in range(indptr[ahead], indptr[ahead + 1]):
                prefetch_fields(rows, FIELDS * neighbour_row[j] + here)
        if consensus_now:
            own@ = rows[mine + CAP + U@]
            error@ = rows[mine + ERROR + U@]
            pull@ = zero
            for k in range(indptr[a], indptr[a + 1]):
                rb = FIELDS * neighbour_row[k] + here
                rk = np.uint64(k) * LANES
                d = offset[k]
                w@ = as_state(accepted[rk + U@], one) * min(own@, rows[rb + CAP + U@])
                pull@ += w@ * (rows[rb + ERROR + U@] - d - error@)
            trigger@ = per_agent_reset * flips[ra + U@] + everybody@
            last@ = clock[ra + U@]  # loaded before the select (see ``consensus``)
            tick@ = one if trigger@ > zero else last@ + one
            clock[ra + U@] = tick@
            fresh@ = one / (np.floor(tick@ * block_scale) + block_shift + two)
            mixed@ = error@ + pull@
            rows[other + ERROR + U@] = mixed@ + fresh@ * (rows[other + NOISY + U@] - mixed@)
        if decide_next:
            noisy@ = rows[mine + NOISY + U@]
            row@ = profile_row[ra + U@]  #:mixed
            col@ = profile_col[ra + U@]  #:mixed
            size@ = one
            flip@ = first
            for k in range(indptr[a], indptr[a + 1]):
                rb = neighbour_row[k]
                rk = np.uint64(k) * LANES
                lower = k < upper[a]
                pair@ = profile_row[rb + U@] + col@ if lower else row@ + profile_col[rb + U@]  #:mixed
                limit@ = pair_threshold[pair@ + U@]  #:mixed
                low@ = zero - limit@  #:mixed
                theirs@ = rows[FIELDS * rb + here + NOISY + U@]
                classmate@ = same[k] * oracle@
                gap@ = noisy@ - theirs@ + offset[k]
                now@ = one if (gap@ < limit@) & (gap@ > low@) else classmate@
                moved@ = now@ - as_state(accepted[rk + U@], one)
                change@ = moved@ * moved@
                accepted[rk + U@] = np.uint8(now@)
                size@ += now@
                flip@ += change@
            flips[ra + U@] = flip@
            rows[other + SIZE + U@] = size@
            rows[other + CAP + U@] = mixing_cap(size@, degree, n_agents, weight_params)
            changes@ += flip@
    if decide_next:
        change_count[U@] = changes@
'''


def kernel_source(lanes: int, mixed: bool = False, large: bool = False, grouped: bool = False,
                  file: bool = False) -> str:
    """The kernel's Python source for ``lanes`` curves (lane lines unrolled).

    Lines tagged ``#:shared`` are the paper's panels (one law and sigma for all agents, one
    noise level per curve); ``#:mixed`` lines replace them when agents differ (per-class
    laws or sigma, privacy mixes): per-agent draws and noise levels, and a threshold per
    profile pair.  ``#:small`` lines are for graphs whose state fits in the caches;
    ``#:large`` lines replace them from ``kernel.LARGE_AGENTS`` agents, where the neighbour rows
    come from L3 or DRAM: the steps of ``_LARGE_TEMPLATE`` join them (``fused_pass``: one
    sweep over the agents per step instead of two, each neighbour's fields side by side in
    two rows per agent, the accepted-edge state as uint8 per directed edge,
    ``kernel.Workspace.allocate``, and software prefetch of the rows the agent
    ``PREFETCH_AHEAD`` places on will read).  A tag ``#:a_b`` keeps a line where both
    ``a`` and ``b`` hold.  ``#:grouped`` lines, kept only for panels
    that record the MSE per group (``PanelSpec.groups``), sum each group's squared errors
    at the recorded times: a panel without groups runs the kernel it always ran.  In the
    mixed kernel, ``#:law`` lines draw each agent's sample from its class's law and
    ``#:file`` lines replace them in a world from a data file (``file``): the agent's
    centred samples replayed (``replay.replay_index``).
    Everything else is one source for all.
    """
    if file and not mixed:
        raise ValueError("a world from a data file runs the mixed kernel (its classes' laws are the file's)")
    kept = {"mixed": mixed, "shared": not mixed, "large": large, "small": not large, "grouped": grouped,
            "law": mixed and not file, "file": file}

    def lane(text: str, c: int) -> str:
        return text.replace("U@", f"U{c}").replace("@", str(c))

    lines = []
    for line in (_TEMPLATE + _LARGE_TEMPLATE if large else _TEMPLATE).splitlines():
        tag = re.search(r"#:(\w+)$", line)
        if tag is not None:
            if not all(kept[part] for part in tag[1].split("_")):
                continue
            line = line[:tag.start()].rstrip()
        if "{" in line:  # {x@} -> x0, x1, ...: every lane in one expression
            lines.append(re.sub(r"\{([^{}]*@[^{}]*)\}", lambda m: ", ".join(lane(m[1], c) for c in range(lanes)), line))
        elif "@" in line and not line.startswith("@"):
            lines.extend(lane(line, c) for c in range(lanes))
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def dispatch_source(rules) -> str:
    """``acceptance_threshold``, the generated kernel's threshold of a lane's rule code: a
    branch per rule of the panel (``PanelSpec.decision_rules``, code = index), each calling
    the rule's function (compiled into the kernel) with the fixed arguments and the lane's
    parameters (``rule_params[lane, :]``)."""
    lines = [line for index, rule in enumerate(rules) for line in rule.kernel_import(f"rule_{index}").splitlines()]
    lines += [
        "@step",
        "def acceptance_threshold(rule, t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree,",
        "                         n_agents, rule_params, lane):",
    ]
    arguments = ("t", "sigma_a", "sigma_b", "sigma_dp_a", "sigma_dp_b", "beta_pair", "theta", "degree", "n_agents")
    for index, rule in enumerate(rules):
        call = rule.kernel_call(f"rule_{index}", arguments, "rule_params", "lane, ")
        if index < len(rules) - 1:
            lines += [f"    if rule == {index}:", f"        return {call}"]
        else:
            lines += [f"    return {call}"]
    return "\n".join(lines) + "\n"


def weights_source(weights) -> str:
    """``mixing_cap``, the generated kernel's cap q_a of an agent's set size (``decide``):
    the figure's weight rule (``PanelSpec.mixing_weights``, ``weight_rules``) compiled into
    the kernel, called with the fixed arguments and its parameters (``weight_params``)."""
    return "\n".join([
        *weights.kernel_import("weight_rule").splitlines(),
        "@step",
        "def mixing_cap(size, degree, n_agents, weight_params):",
        f"    return {weights.kernel_call('weight_rule', ('size', 'degree', 'n_agents'), 'weight_params')}",
    ]) + "\n"


def kernel_module_source(lanes: int, mixed: bool = False, large: bool = False, rules=None, weights=None,
                         grouped: bool = False, file: bool = False) -> str:
    """A Python module defining ``kernel``, the no-alias compiled kernel for ``lanes`` curves
    (``mixed``: agents that differ; ``large``: the layout for large graphs; ``grouped``: the
    MSE per group too; ``file``: data from a file; ``kernel_source``)
    with the panel's decision ``rules`` compiled in (``dispatch_source``; default: the
    built-in ones, codes 0, 1, 2 for oracle, bernstein, optimistic) and its mixing
    ``weights`` (``weights_source``; default: the built-in ones, eq. (2) or Metropolis by
    the ``weight_params`` offset)."""
    rules = tuple(builtin_rules().values()) if rules is None else tuple(rules)
    weights = builtin_weights()["eq2"] if weights is None else weights
    package = __package__ or "colme.ccolme"
    root = package.rpartition(".")[0]
    constants = "\n".join(f"U{c} = np.uint64({c})" for c in range(lanes))
    names = ", ".join(rule.name for rule in rules)
    return (
        f'"""Generated by {package}.template.kernel_module_source({lanes}, mixed={mixed}, large={large}, '
        f'grouped={grouped}, file={file}) '
        f'for the rules {names} and the weight rule {weights.function}: do not edit."""\n'
        "import numba\n"
        "import numpy as np\n"
        f"from {root}._jit import as_state, jit_noalias, prefetch\n"
        f"from {package}.randoms import _GOLDEN as GOLDEN, _mix_uniform as mix_uniform\n"
        f"from {package}.rules import theta_schedule\n"
        f"from {root}.user_code import load_function\n"
        f"from {root}.privacy import unit_laplace\n"
        f"from {root}.populations import centred_sample\n"
        f"from {root}.replay import replay_index\n"
        "step = numba.njit(inline='always', error_model='numpy')\n"
        f"LANES = np.uint64({lanes})\n{constants}\nPREFETCH_AHEAD = {PREFETCH_AHEAD}\n"
        + dispatch_source(rules)
        + weights_source(weights)
        + kernel_source(lanes, mixed, large, grouped, file)
        + "kernel = jit_noalias(kernel, cache=CACHE, slp_vectorize=True)\n"
    )
