"""Staged progress: a stage is reported as it starts, its updates within a pulse, a
heartbeat when it says nothing new, and the values only ever increase, never past the
stage's span (so the next stage's start still counts)."""

from __future__ import annotations

import asyncio
import time

import pytest

from video_research.support import progress as staged


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setattr(staged, "HEARTBEAT_SECONDS", 0.2)
    monkeypatch.setattr(staged, "PULSE_SECONDS", 0.05)


class Sent:
    def __init__(self) -> None:
        self.began = time.perf_counter()
        self.events: list[tuple[float, float, float | None, str | None]] = []

    async def __call__(self, value: float, total: float | None, message: str | None) -> None:
        self.events.append((time.perf_counter() - self.began, value, total, message))


async def test_stages_updates_and_heartbeats(fast):
    sent = Sent()
    async with staged.Stages(sent, 10) as stages:
        await stages.stage(1, 4, "probe: reading")
        assert sent.events[-1][1:] == (1, 10, "probe: reading")  # at once
        await asyncio.sleep(1.0)  # silent stage: heartbeats, creeping inside [1, 4)
        beats = [e for e in sent.events if e[3] == "probe: reading"]
        assert len(beats) >= 3
        assert all(1 < value < 4 for _, value, _, _ in beats[1:])
        stages.update(0.5, "probe: half")
        stages.update(0.25)  # going back is ignored
        await asyncio.sleep(0.12)
        assert sent.events[-1][1:] == (2.5, 10, "probe: half")
        await stages.stage(4, 9, "speech: 0%")
        stages.update(2.0)  # past the end: the stage's end, never beyond
        await stages.flush()
        assert 4 < sent.events[-1][1] < 9
        await stages.send(9.5, "done")
    values = [value for _, value, _, _ in sent.events]
    assert values == sorted(set(values)), values
    gaps = [b[0] - a[0] for a, b in zip(sent.events, sent.events[1:], strict=False)]
    assert max(gaps) < 0.8  # heartbeat 0.2 + pulse 0.05, with room for a loaded machine


async def test_a_stage_that_starts_below_the_last_value_creeps_on(fast):
    sent = Sent()
    async with staged.Stages(sent, 1) as stages:
        await stages.stage(0.5, 0.9, "late")
        await stages.stage(0.2, 0.6, "earlier span")  # never sent lower than 0.5
        await asyncio.sleep(0.3)
    values = [value for _, value, _, _ in sent.events]
    assert values == sorted(set(values)) and min(values) == 0.5 and max(values) < 0.9


async def test_forward_drops_values_that_do_not_increase_and_keeps_the_total():
    sent = Sent()
    forward = staged.Forward()
    assert await forward.send(sent, 0.0196, 2.0, "item 1")
    assert not await forward.send(sent, 0.0, None, "tool_call: started")  # the bug seen
    assert not await forward.send(sent, 0.0196, 2.0, "again")
    assert await forward.send(sent, 0.5, None, "no total given")
    assert await forward.send(sent, 0.7, 1.0, "a smaller total")
    assert await forward.send(sent, 3.0, 5.0, "a larger total")
    assert [e[1:3] for e in sent.events] == [(0.0196, 2.0), (0.5, 2.0), (0.7, 2.0), (3.0, 5.0)]


async def test_forward_orders_concurrent_reports():
    """Many tasks reporting at once: what reaches the wire still only goes forward."""
    sent = Sent()
    forward = staged.Forward()

    async def slow(value: float, total: float | None, message: str | None) -> None:
        await asyncio.sleep(0.001 * (value % 3))
        await sent(value, total, message)

    await asyncio.gather(*(forward.send(slow, float(v), 10.0, None) for v in [3, 1, 2, 5, 4, 6]))
    values = [e[1] for e in sent.events]
    assert values == sorted(set(values)) and values[-1] == 6.0


async def test_a_copied_context_shares_its_progress(monkeypatch):
    """tool_call runs the inner tool with a copy of the call's context: the inner tool's
    reports and the outer call's start timer share one token, so they share one Forward."""
    import dataclasses

    from video_research.handlers.context import CallContext, Caller

    sent = Sent()
    outer = CallContext(tool="tool_call", caller=Caller("u", "owner"), progress_fn=sent)
    inner = dataclasses.replace(outer, tool="media_frames")
    await inner.report_progress(0.0196, 2.0, "inner")
    stop = outer.start_progress_timer(0.01)
    await asyncio.sleep(0.05)
    stop()
    await outer.report_progress(0.0, None, "tool_call: started")
    assert [e[1:] for e in sent.events] == [(0.0196, 2.0, "inner")]
    assert outer.last_progress == 0.0196
