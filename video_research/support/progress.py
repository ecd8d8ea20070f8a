"""Progress of a long call in stages: a notification as each stage starts and at least
every HEARTBEAT_SECONDS while it runs, so a client never waits in silence.

A stage (probing a file, transcribing it, finding its scene cuts, reading its on-screen
text, indexing) may say nothing of its own for a long time: a worker loading a model, an
OCR pass over a slow keyframe, an embedding batch. `Stages` sends the stage's message when
it starts, then whatever the stage reports (`update`, callable from a worker's progress
callback, which must not await), and when nothing new came for HEARTBEAT_SECONDS the same
message again, so the client sees the call alive and where it is.

MCP progress must increase with each notification (`CallContext.report_progress` drops a
value not above the last), so each stage owns a span of the call's progress: its updates
fill the span, and a heartbeat with nothing new moves a little into what is left of it,
never to its end, so the next stage's start is always above it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from types import TracebackType

Report = Callable[[float, float | None, str | None], Awaitable[None]]
"""(progress, total, message): CallContext.report_progress."""

HEARTBEAT_SECONDS = 2.0
"""Longest silence while a stage runs (a client may call 5 s without news a stall)."""
PULSE_SECONDS = 0.5
"""How often the latest update is looked at: a worker ticks at most twice a second."""
CREEP = 0.005
"""Share of what is left of a stage's span a heartbeat with no news moves on."""


class Stages:
    """The progress of one call as stages, each a span of [0, total]; use `async with`."""

    def __init__(self, report: Report, total: float | None) -> None:
        self._report = report
        self.total = total
        self._low = self._high = 0.0
        self._fraction = 0.0
        self._message = ""
        self._fresh = False
        self._value: float | None = None
        self._sent_at = 0.0
        self._pulse: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Stages:
        self._pulse = asyncio.create_task(self._beat())
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._pulse is not None:
            self._pulse.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pulse
            self._pulse = None

    async def stage(self, low: float, high: float, message: str) -> None:
        """Begin a stage spanning [low, high) of the total, reported at once."""
        self._low, self._high = low, high
        self._fraction, self._message, self._fresh = 0.0, message, False
        await self._send(low)

    def update(self, fraction: float, message: str | None = None) -> None:
        """How far the current stage got (0-1) and, if it changed, what to say: sent by
        the next pulse. Never awaits, so a worker's progress callback may call it."""
        fraction = min(max(fraction, 0.0), 1.0)
        if fraction > self._fraction or (message and message != self._message):
            self._fraction = max(fraction, self._fraction)
            self._message = message or self._message
            self._fresh = True

    async def flush(self) -> None:
        """Send the latest update now, if it was not sent (a stage's last word)."""
        if self._fresh:
            self._fresh = False
            await self._send(self._low + (self._high - self._low) * min(self._fraction, 0.999))

    async def send(self, value: float, message: str) -> None:
        """Report `value` itself (an item done: the whole of its span)."""
        self._message = message
        await self._send(value)

    async def _send(self, value: float) -> None:
        if self._value is not None and value <= self._value:
            value = self._value + max(self._high - self._value, 0.0) * CREEP
            if value <= self._value:
                return  # past this stage's span: nothing to say that would count
        self._value = value
        self._sent_at = time.monotonic()
        await self._report(value, self.total, self._message)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(PULSE_SECONDS)
            if self._fresh:
                await self.flush()
            elif self._message and time.monotonic() - self._sent_at >= HEARTBEAT_SECONDS:
                await self._send(self._value or self._low)


class Forward:
    """The progress already sent for one progress token, so what follows only goes forward.

    MCP requires each notification's progress to be greater than the last one's for the
    same token. One call may report from several places: its handler, the handler of the
    tool it runs (`tool_call` copies the call's context for the inner tool), the server's
    start timer, a batch's per-item and per-poll reports. They all share this one object
    (a copied context shares it by reference), so the rule holds whatever reports: a
    value not above the last one sent is dropped, and a total, once sent, is kept (a
    report without one, or with a smaller one, is sent with the larger total seen).
    Reports are sent one at a time under a lock, so two tasks never cross on the wire.
    """

    def __init__(self) -> None:
        self.value: float | None = None
        self.total: float | None = None
        self._lock = asyncio.Lock()

    def admit(self, value: float, total: float | None) -> tuple[float, float | None] | None:
        """(value, total) to send for a report, or None when it would not go forward.
        Records it as sent."""
        if self.value is not None and not value > self.value:
            return None
        if total is not None and self.total is not None:
            total = max(total, self.total)
        elif total is None:
            total = self.total
        self.value, self.total = value, total
        return value, total

    async def send(
        self, report: Report, value: float, total: float | None, message: str | None
    ) -> bool:
        """Send (value, total, message) through `report` when it goes forward; True when sent."""
        async with self._lock:
            admitted = self.admit(value, total)
            if admitted is None:
                return False
            await report(admitted[0], admitted[1], message)
            return True
