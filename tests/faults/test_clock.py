"""A wall clock stepped back and forward an hour during queue work, marathons and cache
use. The system clock is not touched: the rows step the clock the code reads
(`video_research.support.clock`, the seam every catalog, marathon and cache timestamp goes
through) inside the running server, through the fault inlet. Orders are stored orders
(the queue's positions, marathons' start times, the cache's write stamps), never a wall
time; elapsed times and expiry stay sane."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.faults.conftest import Stopwatch, ok, served
from tests.fixtures.gemini import STUB_SETTINGS

pytestmark = pytest.mark.slow


async def test_wall_clock_steps_during_queue_work(fault_env, inlet, row):
    row.fault, row.tool = "wall clock stepped -1 h, then +2 h", "queue_status, queue_add_video"
    async with served(fault_env) as session:
        for video_id, title in (("airplane", "Airplane!"), ("halloween", "Halloween")):
            await ok(
                session,
                "catalog_add",
                {
                    "video_id": video_id,
                    "title": title,
                    "manifest_url": f"https://m/{video_id}",
                    "duration_seconds": 5400,
                },
            )
        await ok(session, "queue_add_videos", {"video_ids": ["airplane", "halloween", "airplane"]})
        await ok(session, "queue_advance", {})
        before = await ok(session, "queue_status", {})
        order = [item["uid"] for item in before["items"]]

        await inlet.inject("clock_step", seconds=-3600)
        back = await ok(session, "queue_status", {})
        elapsed = back["current_video"]["elapsed_seconds"]
        assert 0 <= elapsed <= 5400, f"a clock stepped back made elapsed {elapsed}"
        assert [item["uid"] for item in back["items"]] == order
        added = await ok(session, "queue_add_video", {"video_id": "halloween"})
        after_back = await ok(session, "queue_status", {})
        assert [item["uid"] for item in after_back["items"]] == [*order, added["uid"]]

        clock = Stopwatch()
        await inlet.inject("clock_step", seconds=7200)
        forward = await ok(session, "queue_status", {})
        row.recovery_s = clock.seconds()
        assert forward["current_video"]["elapsed_seconds"] <= 5400
        assert [item["uid"] for item in forward["items"]] == [*order, added["uid"]]
        await ok(session, "queue_advance", {})
        advanced = await ok(session, "queue_status", {})
        assert advanced["current_video"]["uid"] == order[0]
        row.data_lost = len(set(order) - {i["uid"] for i in forward["items"]})
        row.result = (
            f"order kept (stored order); elapsed {elapsed} s after the step back "
            f"(clamped at 0), {forward['current_video']['elapsed_seconds']} s after +2 h"
        )


def _at(minutes: float) -> str:
    """An ISO time `minutes` from now by the real clock (the server's before any step)."""
    moment = datetime.now(UTC) + timedelta(minutes=minutes)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


VIDEOS = ("dQw4w9WgXcQ", "jNQXAC9IVRw", "9bZkp7q19f0")


async def test_wall_clock_steps_during_marathons_and_cache_use(fault_env, inlet, gemini_stub, row):
    row.fault = "wall clock stepped -1 h, then +2 h"
    row.tool = "marathon_*, video_analyze, infra_cache"
    env = {**fault_env, **STUB_SETTINGS, "GEMINI_BASE_URL": gemini_stub.base_url}
    async with served(env) as session:
        for video_id in ("airplane", "halloween"):
            await ok(
                session,
                "catalog_add",
                {
                    "video_id": video_id,
                    "title": video_id,
                    "manifest_url": f"https://m/{video_id}",
                    "duration_seconds": 1800,
                },
            )
        night = await ok(
            session, "playlist_create", {"name": "Night", "video_ids": ["airplane", "halloween"]}
        )
        playlist = [night["playlist_id"]]

        async def marathon(name: str, minutes: float) -> str:
            made = await ok(
                session,
                "marathon_create",
                {"name": name, "starts_at": _at(minutes), "playlist_ids": playlist},
            )
            return made["marathon_id"]

        async def analyze(video_id: str) -> dict:
            return await ok(session, "video_analyze", {"url": f"https://youtu.be/{video_id}"})

        async def statuses(include_past: bool = True) -> dict[str, str]:
            listed = await ok(session, "marathon_list", {"include_past": include_past})
            return {m["name"]: m["status"] for m in listed["marathons"]}

        late, now = await marathon("late", 30), await marathon("now", -10)
        await analyze(VIDEOS[0])
        assert await statuses() == {"now": "running", "late": "scheduled"}

        await inlet.inject("clock_step", seconds=-3600)  # the clock an hour back
        # A schedule is in wall time: at the clock's 'an hour ago' nothing has started.
        assert await statuses() == {"now": "scheduled", "late": "scheduled"}
        soon = await marathon("soon", 10)  # created later, stamped an hour earlier
        assert (await analyze(VIDEOS[0]))["cached"] is True  # no entry expires backwards
        await analyze(VIDEOS[1])

        clock = Stopwatch()
        await inlet.inject("clock_step", seconds=7200)  # and two forward: +1 h in all
        listed = (await ok(session, "marathon_list", {"include_past": True}))["marathons"]
        row.recovery_s = clock.seconds()
        # The order is the stored start times' (never the creation stamps'); the status
        # follows the clock: 'now' (-10 .. +50 min) is past, the other two are running.
        assert [m["name"] for m in listed] == ["now", "soon", "late"]
        assert await statuses() == {"now": "past", "soon": "running", "late": "running"}
        assert await statuses(include_past=False) == {"soon": "running", "late": "running"}
        await analyze(VIDEOS[2])
        calls = len(gemini_stub.calls("generateContent"))
        assert (await analyze(VIDEOS[1]))["cached"] is True  # an hour on: days of TTL left
        assert len(gemini_stub.calls("generateContent")) == calls

        # Newest first, in the order the analyses were written, whatever their wall stamps.
        cached = await ok(session, "infra_cache", {"action": "list"})
        order = [e["content_id"] for e in cached["entries"]]
        assert order == list(reversed(VIDEOS)), [
            (e["content_id"], e["cached_at"]) for e in cached["entries"]
        ]
        stats = (await ok(session, "infra_cache", {"action": "stats"}))["stats"]
        assert stats["expired_files"] == 0, stats
        kept = {m["marathon_id"] for m in listed} | set(order)
        row.data_lost = len({late, now, soon, *VIDEOS} - kept)
        assert row.data_lost == 0
        row.result = (
            "marathons listed by stored start, status by the stepped clock; analysis cache "
            "newest-first in write order, no entry expired or re-fetched"
        )
