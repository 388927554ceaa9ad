"""Recorded times of a figure's curves."""

from __future__ import annotations

import numpy as np


def time_grid(t_max: int, linear: int, log: int) -> np.ndarray:
    """Recorded times: ``log`` geometric points from 1 and ``linear`` even points up to t_max.

    The geometric part resolves the early transient, the linear part the paper's linear
    time axis; t_max is always recorded.  More points than times (``linear`` > t_max)
    record every t in 1..t_max: a point rounding to t = 0 is recorded at t = 1.
    """
    geometric = np.geomspace(1, t_max, max(log, 1))
    even = np.linspace(t_max / max(linear, 1), t_max, max(linear, 1))
    times = np.maximum(np.rint(np.concatenate([geometric, even, [t_max]])), 1.0)
    return np.unique(times.astype(np.int64))


def figure_grid(settings: dict) -> np.ndarray:
    """The recorded times of a figure with ``t_max`` and a ``grid``."""
    return time_grid(settings["t_max"], settings["grid"]["linear"], settings["grid"]["log"])


def checked_t_record(t_record) -> np.ndarray:
    """``t_record`` as int64, or ValueError unless it is strictly increasing times >= 1."""
    t_record = np.asarray(t_record, dtype=np.int64)
    if t_record.ndim != 1 or t_record[0] < 1 or np.any(np.diff(t_record) <= 0):
        raise ValueError("t_record must be strictly increasing times >= 1")
    return t_record
