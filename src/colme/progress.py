"""Where a long simulation job is: t, percent done and an ETA in its log, at most every ~10 s.

The ETA is the remaining work at the rate measured since the first kernel call ended: that
call also loads or compiles the kernel (20-60 s the first time), which must not enter it.

The kernels run a run's time steps in segments (each kernel call resumes where the last
one stopped: same draws, same numbers, whatever the segmentation); between segments they
report to a ``Progress``, which prints a line when ``interval`` seconds have passed since
the job started or since its last line, and sizes the next segment so that it lasts about
``interval / 4`` seconds.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{seconds:02d}s" if hours else f"{minutes}m{seconds:02d}s"


class Progress:
    """Progress of a job's work units (one unit: one time step of one kernel call's run
    and curves), reported through ``write``; the kernel's driver says how many (``begin``)."""

    def __init__(self, interval: float = 10.0, write: Callable[..., None] = print,
                 clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self.write = write
        self.clock = clock
        self.begin(1)

    def begin(self, total: int) -> None:
        """Start counting ``total`` units from now."""
        self.total = max(int(total), 1)
        self.start = self.last = self.clock()
        self.done = 0
        self.first: tuple[float, int] | None = None  # (time, units) when the first call ended

    def rate(self, now: float) -> float | None:
        """Units per second since the first call ended (the first call also loads or
        compiles the kernel: counting it would inflate every estimate); None before a
        second call has ended."""
        if self.first is None or self.done == self.first[1] or now <= self.first[0]:
            return None
        return (self.done - self.first[1]) / (now - self.first[0])

    def steps(self, remaining: int) -> int:
        """Steps for the next kernel call (of at most ``remaining``): about interval/4 s
        at the rate measured after the first call (over all calls before that), from 16
        steps while nothing is measured."""
        now = self.clock()
        elapsed = now - self.start
        if self.done == 0 or elapsed <= 0:
            return min(remaining, 16)
        rate = self.rate(now)
        per_step = 1.0 / rate if rate else elapsed / self.done
        return max(1, min(remaining, int(self.interval / 4 / per_step)))

    def advance(self, units: int, where: str) -> None:
        """``units`` more done; ``where`` says at which run and t (e.g. "run 2/5, t = 300/30000")."""
        self.done += units
        now = self.clock()
        if self.first is None:
            self.first = (now, self.done)
        if now - self.last < self.interval:
            return
        self.last = now
        fraction = self.done / self.total
        elapsed = now - self.start
        rate = self.rate(now)
        eta = _duration((self.total - self.done) / rate) if rate else "after the first call (loading the kernel)"
        self.write(f"{where}: {100 * fraction:.1f}% done, elapsed {_duration(elapsed)}, ETA {eta}", flush=True)


def kernel_seconds(progress: Progress) -> float:
    """Seconds of kernel work so far: the first call, which also loads (or compiles) the
    kernel, counted at the rate of the later calls; all the time since ``begin`` when there
    was a single call (or none reported)."""
    now = progress.clock()
    if progress.first is None or progress.done == progress.first[1]:
        return now - progress.start
    first_time, first_units = progress.first
    return (now - first_time) * progress.done / (progress.done - first_units)


def time_segments(t_max: int, progress: Progress | None = None, where: str = "") -> Iterator[tuple[int, int]]:
    """(t_first, t_last) of the kernel calls that run t = 1..t_max: one call without a
    ``progress``; with one, calls of ``progress.steps`` steps, each reported when done."""
    if progress is None:
        yield 1, t_max
        return
    t = 1
    while t <= t_max:
        last = min(t_max, t + progress.steps(t_max - t + 1) - 1)
        yield t, last
        progress.advance(last - t + 1, f"{where}, t = {last}/{t_max}")
        t = last + 1


def log_to(path: str | Path) -> None:
    """Send this process's output (stdout and stderr, progress lines included) to a job's
    log file, line-buffered, for the rest of the process (a workflow script's first line).
    An error that ends the job is written to the log with its traceback, and its last
    line to the terminal too, so that Snakemake's output shows why the job failed (not
    only that its process did)."""
    terminal = sys.stderr
    sys.stdout = sys.stderr = open(path, "w", buffering=1)  # noqa: SIM115 - open until the process ends

    def report(kind, error, trace):
        traceback.print_exception(kind, error, trace)
        print(f"{kind.__name__}: {error}\n(the job's log, with the traceback: {path})", file=terminal, flush=True)

    sys.excepthook = report
