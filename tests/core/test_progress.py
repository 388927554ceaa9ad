"""Long jobs report where they are; the segmented kernels give the same numbers as one call."""

import math

import numpy as np

from colme.ccolme.kernel import simulate_runs
from colme.ccolme.spec import Curve, PanelSpec
from colme.graphs import random_regular_edges
from colme.populations import Population
from colme.private_colme.kernel import simulate_colme_runs
from colme.private_colme.spec import ColmeCurve, ColmeSpec
from colme.progress import Progress, kernel_seconds, time_segments
from colme.seeding import run_generator


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_segments_cover_every_step_once_and_report_at_most_every_interval():
    clock, lines = FakeClock(), []
    progress = Progress(interval=10.0, write=lambda line, **_: lines.append(line), clock=clock)
    progress.begin(1000)
    covered = []
    for first, last in time_segments(1000, progress, "run 1/1"):
        covered.extend(range(first, last + 1))
        clock.now += 0.5 * (last - first + 1)  # 0.5 s per step
    assert covered == list(range(1, 1001))
    elapsed = [int(line.split("elapsed ")[1][0]) * 60 + int(line.split("elapsed ")[1][2:4]) for line in lines]
    gaps = np.diff([0, *elapsed])
    assert (gaps >= 10).all() and (gaps <= 13).all()  # every ~10 s: segments last ~interval/4
    assert 45 <= len(lines) <= 50  # 500 s of work
    assert lines[0] == "run 1/1, t = 21/1000: 2.1% done, elapsed 0m10s, ETA 8m10s"
    assert list(time_segments(7)) == [(1, 7)]  # without a Progress: one call


def test_the_eta_leaves_out_the_first_calls_compilation():
    """A 40 s compile in the first call must not enter the ETA: after 10% of the work the
    ETA is within a factor 2 of the time actually left (here exactly: a steady rate)."""
    clock, lines = FakeClock(), []
    progress = Progress(interval=10.0, write=lambda line, **_: lines.append(line), clock=clock)
    progress.begin(2000)
    reported = []
    for first, last in time_segments(2000, progress, "run 1/1"):
        clock.now += 0.1 * (last - first + 1) + (40.0 if first == 1 else 0.0)
        reported.append((clock.now, last))
    left = {}
    for line in lines:
        done = int(line.split("t = ")[1].split("/")[0])
        eta = line.split("ETA ")[1]
        if done >= 200 and "m" in eta:
            minutes, seconds = eta.rstrip("s").split("m")
            left[done] = int(minutes) * 60 + int(seconds)
    assert left, lines[:3]
    for done, eta in left.items():
        actual = 0.1 * (2000 - done)
        assert actual / 2 <= eta <= actual * 2, (done, eta, actual)
        assert abs(eta - actual) <= 1.0  # a steady rate: the estimate is exact, to the rounding
    assert lines[0].endswith("ETA after the first call (loading the kernel)")  # 41.6 s, one call ended


def test_kernel_seconds_count_the_first_call_at_the_later_calls_rate():
    """The first kernel call also loads or compiles the kernel: its 30 s of loading must
    not enter the recorded seconds, whose steady rate is 0.5 s per step."""
    clock = FakeClock()
    progress = Progress(interval=10.0, write=lambda *_, **__: None, clock=clock)
    progress.begin(200)
    assert kernel_seconds(progress) == 0.0
    for first, last in time_segments(200, progress, "run 1/1"):
        clock.now += 0.5 * (last - first + 1) + (30.0 if first == 1 else 0.0)
    assert math.isclose(kernel_seconds(progress), 100.0)
    single = Progress(clock=clock)
    single.begin(5)
    clock.now += 7.0
    for _ in time_segments(5, single, "run 1/1"):
        pass
    assert kernel_seconds(single) == 7.0  # one call: all of it


def test_segmented_kernels_are_bit_identical_to_one_call():
    """One-step segments (interval 0) against one call, both engines, MSE and diagnostics."""
    def silent():
        return Progress(interval=0.0, write=lambda *_, **__: None)

    grid = np.array([1, 2, 5, 9, 30, 61])
    population = Population()
    rngs = [run_generator(4, "segments", run, "instance") for run in range(2)]
    classes = np.stack([population.assign(16, g) for g in rngs])
    edges = np.stack([random_regular_edges(3, 16, g) for g in rngs])
    spec = PanelSpec(n_agents=16, degree=3, t_record=grid, curves=tuple(
        Curve(rule, eps, 6 if rule == "bernstein" else math.nan)
        for rule in ("oracle", "bernstein", "optimistic") for eps in (1.0, math.inf)))
    outputs = []
    for progress in (None, silent()):
        diagnostics = np.empty((2, 6, 3, len(grid)))
        data = [run_generator(4, "segments", run, "data") for run in range(2)]
        outputs.append((simulate_runs(spec, classes, edges, data, np.float32, diagnostics, progress), diagnostics))
    colme = ColmeSpec(n_agents=7, t_record=grid, curves=(
        ColmeCurve(schedule="rrr", mechanism="pm2", weights="mom"), ColmeCurve(variance="schvar2_bayes")))
    for progress in (None, silent()):
        diagnostics = np.empty((2, 2, 3, len(grid)))
        data = [run_generator(4, "segments", run, "data") for run in range(2)]
        outputs.append((simulate_colme_runs(colme, classes[:, :7], data, diagnostics, progress), diagnostics))
    for whole, segmented in ((outputs[0], outputs[1]), (outputs[2], outputs[3])):
        for a, b in zip(whole, segmented, strict=True):
            assert a.tobytes() == b.tobytes()
