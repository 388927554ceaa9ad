"""Replaying a data file's streams (``colme.datafiles``) up to the horizon, in the kernels
and in Python: which sample serves each agent's step under each policy, and the Local
curve of a world from a file.

An agent's stream of n samples serves steps t = 1, 2, ... by passes of n steps:
``in_order`` replays it as recorded, ``permutation`` draws a fresh uniformly random order
for each pass (a Fisher-Yates shuffle keyed by the run, the agent and the pass: every
sample once per pass, each order equally likely, the same in every engine for a run's key;
one scratch slot per sample, ``DataArrays.data_order``), ``bootstrap`` draws each step's sample uniformly
with replacement from the step's data draw of the run's stream (``colme.ccolme.randoms``).
"""

from __future__ import annotations

import numba
import numpy as np

from .ccolme.randoms import _GOLDEN, _mix64, _mix_uniform
from .datafiles import REPLAYS, AgentStreams, DataArrays

_AGENT = np.uint64(0xD6E8FEB86659FD93)
_PASS = np.uint64(0xA0761D6478BD642F)


@numba.njit(cache=True, inline="always")
def shuffle_pass(order, first, n, pass_key):
    """A uniformly random order of 0..n-1 into ``order[first:first + n]``: the
    inside-out variant of the Fisher-Yates shuffle (Durstenfeld, CACM 7(7), 1964, run
    forwards, each new item placed at a uniform position of the prefix), its i-th partner
    the i-th draw of the counter stream keyed by ``pass_key``: the order is a function of
    the key only, whatever ``order`` held (uniform draws are below 1, so j <= i)."""
    for i in range(n):
        j = np.int64(_mix_uniform(pass_key + np.uint64(i + 1) * _GOLDEN) * (i + 1))
        order[first + i] = order[first + j]
        order[first + j] = i


@numba.njit(cache=True, inline="always")
def replay_index(step, n, policy, key, agent, uniform, order, first):
    """Which of an agent's ``n`` samples serves its step ``step`` (0-based: t - 1):
    ``policy`` 0 in order (step mod n), 1 a fresh uniformly random permutation per pass of
    n steps (``shuffle_pass``, keyed by the run's ``key``, the agent and the pass, written
    into the agent's slots ``order[first:first + n]`` at the pass's first step: steps must
    come in order from a pass's start, as a run's do), 2 bootstrap (the step's ``uniform``
    draw of the run's stream, times n)."""
    if policy == 0:
        return step % n
    if policy == 1:
        position = step % n
        if position == 0:
            passes = np.uint64(step // n)
            pass_key = _mix64(key ^ (np.uint64(agent) + np.uint64(1)) * _AGENT ^ (passes + np.uint64(1)) * _PASS)
            shuffle_pass(order, first, n, pass_key)
        return order[first + position]
    index = np.int64(uniform * n)
    return index if index < n else n - 1


@numba.njit(cache=True)
def _local_mse(values, start, count, order, means, replay, key, t_record, out):
    n = means.shape[0]
    sums = np.zeros(n)
    record = 0
    for t in range(1, t_record[-1] + 1):
        for a in range(n):
            draw = key + np.uint64(2 * ((t - 1) * n + a) + 1) * _GOLDEN  # the step's data draw (randoms.py)
            uniform = _mix_uniform(draw)
            sums[a] += values[start[a] + replay_index(t - 1, count[a], replay, key, a, uniform, order, start[a])]
        if t == t_record[record]:
            error = 0.0
            for a in range(n):
                error += (sums[a] / t - means[a]) ** 2
            out[record] = error / n
            record += 1


def local_mse(streams: AgentStreams, key: int, t_record: np.ndarray) -> np.ndarray:
    """Local in a world from a file, at ``t_record``: the MSE of the agents' own running
    means of their replayed samples (no noise: an agent's own data need none), for the run
    of stream ``key`` (its samples are the kernels', bootstrap draws included, as
    ``colme.ccolme.randoms`` lays the stream out).  Not sigma^2 / t: a stream replayed by
    passes gives its agent its true mean exactly at the end of every pass."""
    out = np.empty(len(t_record))
    data = DataArrays.of(streams)
    with np.errstate(over="ignore"):
        _local_mse(data.data_values, data.data_start, data.data_count, data.data_order,
                   np.asarray(streams.means, dtype=np.float64), data.replay, np.uint64(key),
                   np.asarray(t_record, dtype=np.int64), out)
    return out


def replayed(streams: AgentStreams, steps: int, policy: str, key: int, uniforms: np.ndarray | None = None
             ) -> np.ndarray:
    """(steps, M) samples the agents see at t = 1..steps under ``policy`` (``REPLAYS``) with
    the run's stream ``key``; ``uniforms`` (steps, M): the run's data draws (bootstrap).
    Python reference of the kernels' replay (tests, notebooks)."""
    code = REPLAYS[policy]
    order = np.zeros(streams.n_samples, dtype=np.int64)
    out = np.empty((steps, streams.n_agents))
    for a in range(streams.n_agents):
        n, first = int(streams.count[a]), int(streams.start[a])
        for step in range(steps):
            u = 0.0 if uniforms is None else float(uniforms[step, a])
            out[step, a] = streams.values[first + replay_index(step, n, code, np.uint64(key), a, u, order, first)]
    return out
