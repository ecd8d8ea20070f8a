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
