"""The scheduler's wake-ups (workflow/rules/scheduler_timers.py): one pending at a time, never
later than a pass asked for, and applicable to the Snakemake in use."""

import sys
import threading
import time
from pathlib import Path

import pytest
from snakemake.scheduling.job_scheduler import JobScheduler
from workflow_helpers import ROOT

sys.path.insert(0, str(ROOT / "workflow" / "rules"))
from scheduler_timers import METHOD, keep_one_pending


class LeakyScheduler:
    """Snakemake 9's method as it is: a new timer per call."""

    def __init__(self):
        self._open_jobs = threading.Semaphore(0)

    def _schedule_reevalutation(self, delay):
        threading.Timer(delay, lambda: self._open_jobs.release()).start()


def wake_ups(scheduler, within):
    """How many times the scheduler's loop would wake within ``within`` seconds."""
    count = 0
    deadline = time.monotonic() + within
    while scheduler._open_jobs.acquire(timeout=max(deadline - time.monotonic(), 0.0)):
        count += 1
    return count


@pytest.fixture
def fixed():
    class Fixed(LeakyScheduler):
        pass

    assert keep_one_pending(Fixed)
    return Fixed


def test_snakemakes_scheduler_has_the_method_the_fix_replaces():
    class Ours(JobScheduler):
        pass

    snakemakes = JobScheduler.__dict__[METHOD]
    assert callable(snakemakes)
    assert keep_one_pending(Ours)
    assert getattr(Ours, METHOD).keeps_one_pending
    assert not keep_one_pending(Ours), "applied twice"
    assert JobScheduler.__dict__[METHOD] is snakemakes, "applying it to a subclass changed Snakemake's class"


def test_passes_that_ask_while_one_is_pending_add_no_timer(fixed):
    leaky, ours = LeakyScheduler(), fixed()
    for scheduler in (leaky, ours):
        for _ in range(50):
            scheduler._schedule_reevalutation(0.2)
    assert wake_ups(leaky, 1.0) == 50
    assert wake_ups(ours, 1.0) == 1


def test_a_wake_up_after_the_last_one_fired_is_scheduled_again(fixed):
    ours = fixed()
    for _ in range(3):
        ours._schedule_reevalutation(0.05)
        assert wake_ups(ours, 0.5) == 1


def test_an_earlier_wake_up_is_not_held_back_by_a_later_pending_one(fixed):
    ours = fixed()
    ours._schedule_reevalutation(30.0)
    start = time.monotonic()
    ours._schedule_reevalutation(0.05)
    assert ours._open_jobs.acquire(timeout=5.0)
    assert time.monotonic() - start < 5.0


def test_pending_timers_do_not_hold_the_process_at_exit(fixed):
    ours = fixed()
    ours._schedule_reevalutation(30.0)
    timers = [thread for thread in threading.enumerate() if isinstance(thread, threading.Timer) and thread.is_alive()]
    assert timers and all(thread.daemon for thread in timers)
    for thread in timers:
        thread.cancel()


def test_the_benchmarks_variants_differ_by_the_fix_alone(tmp_path):
    """benchmarks/bench_scheduler.py builds Snakemake's scheduler against the fixed one: its
    variant drops exactly the line that applies the fix, and it leaves out the scale figures."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_scheduler

    fixed = bench_scheduler.tree(tmp_path / "fixed", fixed=True)
    plain = bench_scheduler.tree(tmp_path / "plain", fixed=False)
    common = Path("workflow/rules/common.smk")
    fixed_lines, plain_lines = (folder.joinpath(common).read_text().splitlines(True) for folder in (fixed, plain))
    assert bench_scheduler.FIX_LINE in fixed_lines
    removed = [line for line in fixed_lines if line not in plain_lines]
    assert removed == [bench_scheduler.FIX_LINE] and len(plain_lines) == len(fixed_lines) - 1
    names = bench_scheduler.targets(fixed, bench_scheduler.EXCLUDE)
    assert "results/figures/fig1_r20.pdf" in names
    assert not [name for name in names if "scale_m" in name or "baselines_m1" in name]
