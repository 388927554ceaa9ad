"""One pending wake-up for Snakemake's job scheduler, instead of one more per pass.

Snakemake 9's ``JobScheduler`` (``snakemake/scheduling/job_scheduler.py``) ends each pass of
its loop in which jobs wait by starting a ``threading.Timer`` that wakes the loop one
timespan of ``--max-jobs-per-timespan`` later (default 100/1s), so that jobs the rate limit
held back can start.  That wake-up is itself a pass, which starts another timer, and every
finished job wakes the loop once more: after k jobs have finished while others wait, k
timers wake the scheduler k times per second, and each pass re-reads every waiting job's
inputs and params.  On 2 cores the scheduler's own CPU grows through a build and takes it
from the jobs (the symptom of snakemake/snakemake#2967, "Performance degradation after
running snakemake for some time": threads and CPU grow with the jobs done).

``keep_one_pending`` makes a pass start a timer only when no wake-up is already due as
early: the loop still wakes within one timespan of any pass that asks (what the rate limit
needs), once.  Its timers are daemon threads, so a finished build exits at once rather than
after the last timer.  ``common.smk`` applies it to the scheduler of the Snakemake in use.
"""

from __future__ import annotations

import threading
import time

#: Snakemake's name of the method (sic).
METHOD = "_schedule_reevalutation"

_LOCK = threading.Lock()


def keep_one_pending(scheduler_class: type) -> bool:
    """Replace ``scheduler_class``'s ``_schedule_reevalutation(self, delay)`` by one that
    starts a timer (releasing ``self._open_jobs`` after ``delay`` seconds) only when no
    wake-up of this scheduler is due by then.  Returns whether it did: False where the class
    has no such method (a Snakemake that changed its scheduler keeps its own) or has it
    replaced already."""
    original = getattr(scheduler_class, METHOD, None)
    if original is None or getattr(original, "keeps_one_pending", False):
        return False

    def schedule_wake_up(self, delay) -> None:
        due = time.monotonic() + float(delay)
        with _LOCK:
            pending = getattr(self, "_wake_up_due", None)
            if pending is not None and pending <= due:
                return
            self._wake_up_due = due

        def wake_up() -> None:
            with _LOCK:
                if getattr(self, "_wake_up_due", None) == due:
                    self._wake_up_due = None
            self._open_jobs.release()

        timer = threading.Timer(delay, wake_up)
        timer.daemon = True
        timer.start()

    schedule_wake_up.keeps_one_pending = True
    setattr(scheduler_class, METHOD, schedule_wake_up)
    return True
