"""The wall clock, read in one place, so a test can step it under a running server.

The operating system's clock can jump (an NTP correction, a laptop waking, an operator
setting the date); a test may not change it. Code that stamps or compares wall times
(the catalog's `now_iso`, the queue's elapsed time, a marathon's status, the analysis
cache's and Gemini's expiry times, a video session's last activity) reads `now()` or
`wall()` here, and the fault rows step it with `step()` through the test server's fault
inlet (tests/faults/serve.py).
Durations and timeouts use `time.monotonic()`, which no wall-clock jump moves. Where an
order matters it is a stored order, never a bare time: the queue's positions, a table's
rowid, or `stamp_ns()` (the analysis cache's newest-first list).
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

_offset = 0.0
"""Seconds added to the system clock: always 0 outside the fault tests."""
_last_stamp = 0
_stamp_lock = threading.Lock()


def now() -> datetime:
    """The current UTC wall time."""
    return datetime.now(UTC) + timedelta(seconds=_offset)


def wall() -> float:
    """The current wall time as seconds since the epoch (`time.time()`)."""
    return time.time() + _offset


def step(seconds: float) -> None:
    """Move the wall clock by `seconds` (negative: back), as a clock jump would."""
    global _offset
    _offset += seconds


def stamp_ns(floor: int = 0) -> int:
    """A wall time in nanoseconds to order writes by: never at or below the last stamp this
    process gave, nor below `floor` (the newest stamp already stored), so a clock stepped
    back cannot put what is written now before what was written earlier. After a step
    back, stamps run ahead of the clock by at most the step until it catches up."""
    global _last_stamp
    with _stamp_lock:
        _last_stamp = max(time.time_ns() + int(_offset * 1e9), _last_stamp + 1, floor + 1)
        return _last_stamp
