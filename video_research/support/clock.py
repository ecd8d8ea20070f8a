"""The wall clock, read in one place, so a test can step it under a running server.

The operating system's clock can jump (an NTP correction, a laptop waking, an operator
setting the date); a test may not change it. Code that stamps or compares wall times
(the catalog's `now_iso`, the queue's elapsed time) reads `now()` here, and the fault rows
step it with `step()` through the test server's fault inlet (tests/faults/serve.py).
Durations and timeouts use `time.monotonic()`, which no wall-clock jump moves: where an
order matters (the queue), it is the stored order, never a time.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

_offset = 0.0
"""Seconds added to the system clock: always 0 outside the fault tests."""


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
