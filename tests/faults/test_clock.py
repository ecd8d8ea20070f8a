"""A wall clock stepped back and forward an hour during queue work. The system clock is
not touched: the row steps the clock the code reads (`video_research.support.clock`, the
seam every catalog timestamp goes through) inside the running server, through the fault
inlet. The queue's order is its stored order, never a time; its elapsed time stays sane."""

from __future__ import annotations

from tests.faults.conftest import Stopwatch, ok, served


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
