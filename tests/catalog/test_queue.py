"""The watch queue through the dispatcher: SQLite by default, NATS JetStream KV with
NATS_URL (a real nats-server), including concurrent writers and NATS going away."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.catalog_helpers import ADMIN, BLESSED, VIEWER, call, ok
from tests.fixtures.nats import wait_connected
from video_research.catalog import queue as q
from video_research.support.errors import ToolFailure
from video_research.support.services import current_settings


async def queued_ids() -> list[str]:
    return [i["video_id"] for i in (await ok("queue_status"))["items"]]


async def exercise_queue() -> None:
    """The queue's behaviour, the same on every backend."""
    empty = await ok("queue_status", {}, VIEWER)
    assert empty["current_video"] is None and empty["queue_length"] == 0

    added = await ok("queue_add_video", {"video_id": "halloween"}, BLESSED)
    assert added["status"] == "ok" and added["correlation_id"] and added["uid"]
    await ok("queue_add_video", {"video_id": "elm", "position": "next"}, BLESSED)
    assert await queued_ids() == ["elm", "halloween"]

    many = await ok("queue_add_videos", {"video_ids": ["airplane", "ghost", "f13-1"]}, BLESSED)
    assert many["enqueued_count"] == 2 and many["failed"] == [
        {"video_id": "ghost", "error": "not in the catalog"}
    ]
    none = await call("queue_add_videos", {"video_ids": ["ghost"]}, BLESSED)
    assert none.error.category == "invalid_input"
    missing = await call("queue_add_video", {"video_id": "ghost"}, BLESSED)
    assert missing.error.category == "not_found"

    playing = await ok("queue_advance", {}, BLESSED)
    assert playing["now_playing"]["video_id"] == "elm"
    status = await ok("queue_status", {}, VIEWER)
    assert status["current_video"]["title"] == "A Nightmare on Elm Street"
    assert status["current_video"]["elapsed_seconds"] >= 0
    assert status["total_duration_seconds"] == 5460 + 5280 + 5700
    assert added["correlation_id"] in status["recent_commands"]

    playlist = await ok("playlist_create", {"name": "Friday", "video_ids": ["f13-1", "f13-2"]})
    pid = playlist["playlist_id"]
    applied = await ok("queue_apply_playlist", {"playlist_id": pid}, BLESSED)
    assert applied["enqueued_count"] == 2 and applied["mode"] == "append"
    assert await queued_ids() == ["halloween", "airplane", "f13-1", "f13-1", "f13-2"]

    await ok("queue_apply_playlist", {"playlist_id": pid, "mode": "preserve_current"}, BLESSED)
    status = await ok("queue_status")
    assert status["current_video"]["video_id"] == "elm"
    assert [i["video_id"] for i in status["items"]] == ["f13-1", "f13-2"]

    forbidden = await call(
        "queue_apply_playlist", {"playlist_id": pid, "mode": "hard_replace"}, BLESSED
    )
    assert forbidden.error.category == "forbidden" and "admin" in forbidden.error.error
    assert (await ok("queue_status"))["current_video"]["video_id"] == "elm"  # untouched

    await ok("queue_apply_playlist", {"playlist_id": pid, "mode": "hard_replace"}, ADMIN)
    status = await ok("queue_status")
    assert status["current_video"] is None and status["queue_length"] == 2

    uid = status["items"][0]["uid"]
    await ok("queue_remove", {"uid": uid}, BLESSED)
    gone = await call("queue_remove", {"uid": uid}, BLESSED)
    assert gone.error.category == "not_found"
    cleared = await ok("queue_clear", {}, ADMIN)
    assert cleared["removed_count"] == 1 and (await ok("queue_status"))["queue_length"] == 0


async def test_sqlite_queue(catalog):
    await exercise_queue()
    assert (await ok("queue_status"))["backend"] == "sqlite"


async def test_queued_youtube_media_is_named_by_its_url(catalog):
    """CyTube plays a YouTube video by the ID in its URL, whatever the catalog calls it."""
    await ok(
        "catalog_add",
        {"video_id": "rick", "title": "Song", "manifest_url": "https://youtu.be/dQw4w9WgXcQ?t=3"},
    )
    await ok("queue_add_videos", {"video_ids": ["rick", "elm"]}, BLESSED)
    state, _ = await q.backend().read()
    assert [i["media"] for i in state["items"]] == [
        {"type": "yt", "id": "dQw4w9WgXcQ"},
        {"type": "cm", "id": "https://media.example/elm.json"},
    ]


async def test_sqlite_queue_concurrent_appends_lose_nothing(catalog):
    await asyncio.gather(
        *(ok("queue_add_video", {"video_id": "airplane"}, BLESSED) for _ in range(20))
    )
    status = await ok("queue_status")
    assert status["queue_length"] == 20 and status["revision"] == 20


async def test_nats_queue_and_published_commands(nats_config, catalog):
    import nats

    settings = current_settings()
    watcher = await nats.connect(nats_config.url)
    received: list[dict] = []

    async def collect(msg) -> None:
        received.append(json.loads(msg.data))

    sub = await watcher.subscribe(q.command_subject(settings), cb=collect)
    await watcher.flush()
    try:
        await exercise_queue()
        assert (await ok("queue_status"))["backend"] == "nats"
        await asyncio.sleep(0.2)
    finally:
        await sub.unsubscribe()
        await watcher.close()

    assert q.command_subject(settings) == "kryten.video_research.queue.default"
    actions = [c["action"] for c in received]
    assert actions[:4] == ["add", "add", "add", "advance"]
    first = received[0]
    assert first["channel"] == "default" and first["position"] == "end"
    assert first["issued_by"] == {"username": "dj", "role": "blessed"}
    assert first["items"][0]["media"] == {
        "type": "cm",
        "id": "https://media.example/halloween.json",
    }
    revisions = [c["revision"] for c in received]
    assert revisions == sorted(revisions) and len(set(revisions)) == len(revisions)


async def test_nats_concurrent_appends_in_one_process_lose_nothing(nats_config, catalog):
    results = await asyncio.gather(
        *(ok("queue_add_video", {"video_id": "airplane"}, BLESSED) for _ in range(20))
    )
    status = await ok("queue_status")
    assert status["queue_length"] == 20
    assert {i["uid"] for i in status["items"]} == {r["uid"] for r in results}


async def test_nats_going_away_fails_cleanly_and_changes_nothing(nats_config, catalog):
    await ok("queue_add_video", {"video_id": "halloween"}, BLESSED)
    nats_config.stop()
    await wait_connected(False)
    failed = await call("queue_add_video", {"video_id": "elm"}, BLESSED)
    assert failed.error.category == "unavailable" and failed.error.retryable
    assert "NATS" in failed.error.error and "Nothing was changed" in failed.error.hint
    assert (await call("queue_status")).error.category == "unavailable"
    assert (await ok("catalog_search", {"q": "elm"}, VIEWER))["total"] == 1  # SQLite still up

    nats_config.start()
    await wait_connected()
    assert await queued_ids() == ["halloween"]  # the failed call left no trace
    await ok("queue_add_video", {"video_id": "elm"}, BLESSED)  # the retry works
    assert await queued_ids() == ["halloween", "elm"]

    audit = await ok("audit_log", {"tool": "queue_add_video", "failed_only": True})
    assert [e["category"] for e in audit["entries"]] == ["unavailable"]


async def test_nats_going_away_between_read_and_write(nats_config, catalog):
    """NATS dies after the queue was read and before the new revision is written: the
    call fails with unavailable and the queue is all-or-nothing, never half a change."""
    await ok("queue_add_video", {"video_id": "halloween"}, BLESSED)
    backend = q.backend()
    items, _ = await q.items_for(["elm", "airplane"], "dj")
    cmd = q.command("add", {"username": "dj", "role": "blessed"}, position="end", items=items)

    def change_then_lose_nats(state):
        nats_config.stop()
        return q.add(state, items, "end", cmd)

    with pytest.raises(ToolFailure) as raised:
        await backend.change(change_then_lose_nats, cmd)
    assert raised.value.category == "unavailable"

    nats_config.start()
    await wait_connected()
    status = await ok("queue_status")
    ids = [i["video_id"] for i in status["items"]]
    if cmd["correlation_id"] in status["recent_commands"]:
        assert ids == ["halloween", "elm", "airplane"]
    else:
        assert ids == ["halloween"]


async def test_two_servers_appending_at_once_lose_nothing(nats_server, server_env):
    """Two server processes (say, two bots' MCP servers) share one NATS queue."""
    import anyio

    from tests.helpers import mcp_client, tool_json

    env = {**server_env, "NATS_URL": nats_server.url}
    async with mcp_client(env) as one, mcp_client(env) as two:
        added = await one.call_tool(
            "catalog_add",
            {"video_id": "airplane", "title": "Airplane!", "manifest_url": "https://m/a"},
        )
        assert not added.is_error, added.content
        uids: list[str] = []

        async def append(session, n: int) -> None:
            for _ in range(n):
                result = await session.call_tool("queue_add_video", {"video_id": "airplane"})
                assert not result.is_error, result.content
                uids.append(tool_json(result)["uid"])

        async with anyio.create_task_group() as group:
            for session in (one, two):
                for _ in range(4):
                    group.start_soon(append, session, 5)

        status = tool_json(await two.call_tool("queue_status", {}))
        assert status["backend"] == "nats" and status["queue_length"] == 40
        assert sorted(i["uid"] for i in status["items"]) == sorted(uids)


QUEUE_CAP = 1000  # upcoming items (the number docs/tools/channel.md promises)


async def fill_to_the_cap() -> str:
    """A queue of exactly QUEUE_CAP upcoming items; returns the playlist used."""
    playlist = await ok("playlist_create", {"name": "Loop", "video_ids": ["elm"] * QUEUE_CAP})
    await ok("queue_apply_playlist", {"playlist_id": playlist["playlist_id"]}, BLESSED)
    return playlist["playlist_id"]


async def exercise_cap() -> None:
    playlist_id = await fill_to_the_cap()
    assert (await ok("queue_status"))["queue_length"] == QUEUE_CAP
    for tool, arguments in [
        ("queue_add_video", {"video_id": "halloween"}),
        ("queue_add_videos", {"video_ids": ["halloween", "airplane"], "position": "next"}),
        ("queue_apply_playlist", {"playlist_id": playlist_id}),
    ]:
        refused = await call(tool, arguments, BLESSED)
        assert refused.error.category == "invalid_input", refused.error
        assert str(QUEUE_CAP) in refused.error.error and not refused.error.retryable
    assert (await ok("queue_status"))["queue_length"] == QUEUE_CAP
    # replacing, advancing and removing still work on a full queue
    await ok("queue_apply_playlist", {"playlist_id": playlist_id, "mode": "preserve_current"})
    await ok("queue_advance", {}, BLESSED)
    await ok("queue_add_video", {"video_id": "halloween"}, BLESSED)
    assert (await ok("queue_status"))["queue_length"] == QUEUE_CAP


async def test_sqlite_queue_is_capped(catalog):
    await exercise_cap()


async def test_nats_queue_is_capped(nats_config, catalog):
    await exercise_cap()


async def test_nats_value_over_max_payload_is_a_definite_failure(nats_config):
    from video_research.catalog import nats_kv

    settings = current_settings()
    kv = await nats_kv.bucket(settings.nats_queue_bucket, settings)
    await nats_kv.update_json(kv, "big", lambda old: {"n": 1}, settings)
    with pytest.raises(ToolFailure) as raised:
        await nats_kv.update_json(kv, "big", lambda old: {"n": "x" * 2_000_000}, settings)
    failure = raised.value
    assert not isinstance(failure, nats_kv.Ambiguous)
    assert failure.category == "unavailable" and not failure.retryable
    assert "max_payload" in failure.message and "nothing was written" in failure.message
    assert await nats_kv.read_json(kv, "big", settings) == ({"n": 1}, 1)


async def test_nats_writes_outrun_every_time_are_a_retryable_conflict(nats_config, monkeypatch):
    """Another writer changes the key between every read and write: after the retries
    the call is a `conflict` the caller may retry, not an unknown error."""
    import threading

    import nats

    from video_research.catalog import nats_kv

    settings = current_settings()
    kv = await nats_kv.bucket(settings.nats_queue_bucket, settings)
    await nats_kv.update_json(kv, "busy", lambda old: {"n": 0}, settings)
    monkeypatch.setattr(nats_kv, "MAX_CONFLICT_RETRIES", 3)

    async def other_writer() -> None:
        nc = await nats.connect(nats_config.url)
        try:
            other = await nc.jetstream().key_value(settings.nats_queue_bucket)
            await other.put("busy", b'{"n": -1}')
        finally:
            await nc.close()

    attempts = []

    def outrun(old):
        attempts.append(old)
        writer = threading.Thread(target=lambda: asyncio.run(other_writer()))
        writer.start()
        writer.join()
        return {"n": 1}

    with pytest.raises(ToolFailure) as raised:
        await nats_kv.update_json(kv, "busy", outrun, settings)
    assert raised.value.category == "conflict" and raised.value.retryable
    assert len(attempts) == 3
    assert (await nats_kv.read_json(kv, "busy", settings))[0] == {"n": -1}


async def exercise_move() -> None:
    """queue_move on any backend: reorders by uid, refuses what it cannot do, leaves the queue
    as it was when it refuses, and is recorded in the audit log like the other writes."""
    await ok("queue_add_videos", {"video_ids": ["elm", "halloween", "airplane"]}, BLESSED)
    uids = [i["uid"] for i in (await ok("queue_status"))["items"]]

    moved = await ok("queue_move", {"uid": uids[2], "to_position": 1}, BLESSED)
    assert (moved["uid"], moved["from_position"], moved["position"]) == (uids[2], 3, 1)
    assert moved["queue_length"] == 3 and moved["correlation_id"]
    assert await queued_ids() == ["airplane", "elm", "halloween"]
    await ok("queue_move", {"uid": uids[2], "to_position": 3}, BLESSED)
    assert await queued_ids() == ["elm", "halloween", "airplane"]
    same = await ok("queue_move", {"uid": uids[0], "to_position": 1}, BLESSED)
    assert same["from_position"] == 1 and await queued_ids() == ["elm", "halloween", "airplane"]

    before = await ok("queue_status")
    past_end = await call("queue_move", {"uid": uids[0], "to_position": 4}, BLESSED)
    assert past_end.error.category == "invalid_input" and "3 upcoming" in past_end.error.error
    unknown = await call("queue_move", {"uid": "q_missing", "to_position": 1}, BLESSED)
    assert unknown.error.category == "not_found" and "q_missing" in unknown.error.error
    for bad in ({"uid": uids[0], "to_position": 0}, {"uid": uids[0]}, {"to_position": 1}):
        assert (await call("queue_move", bad, BLESSED)).error.category == "invalid_input"
    refused = await call("queue_move", {"uid": uids[0], "to_position": 2}, VIEWER)
    assert refused.error.category == "forbidden" and "'blessed'" in refused.error.error
    after = await ok("queue_status")
    assert after["items"] == before["items"] and after["revision"] == before["revision"]

    entries = (await ok("audit_log", {"tool": "queue_move"}, ADMIN))["entries"]
    assert sorted((e["ok"], e["category"]) for e in entries) == sorted(
        [(True, None)] * 3
        + [(False, "invalid_input")] * 4
        + [(False, "not_found")]
        + [(False, "forbidden")]
    )


async def test_sqlite_queue_move(catalog):
    await exercise_move()


async def test_nats_queue_move_is_published(nats_config, catalog):
    import nats

    watcher = await nats.connect(nats_config.url)
    received: list[dict] = []

    async def collect(msg) -> None:
        received.append(json.loads(msg.data))

    sub = await watcher.subscribe(q.command_subject(current_settings()), cb=collect)
    await watcher.flush()
    try:
        await exercise_move()
        assert (await ok("queue_status"))["backend"] == "nats"
        await asyncio.sleep(0.2)
    finally:
        await sub.unsubscribe()
        await watcher.close()
    moves = [c for c in received if c["action"] == "move"]
    assert [c["to_position"] for c in moves] == [1, 3, 1]
    assert moves[0]["issued_by"] == {"username": "dj", "role": "blessed"}


async def test_nats_concurrent_moves_and_adds_lose_nothing(nats_config, catalog):
    """Moves race adds on the KV compare-and-set: every item survives, each exactly once."""
    await ok("queue_add_videos", {"video_ids": ["elm", "halloween", "airplane"]}, BLESSED)
    uids = [i["uid"] for i in (await ok("queue_status"))["items"]]
    await asyncio.gather(
        *(
            ok("queue_move", {"uid": uids[n % 3], "to_position": 1 + n % 3}, BLESSED)
            for n in range(9)
        ),
        *(ok("queue_add_video", {"video_id": "elm"}, BLESSED) for _ in range(6)),
    )
    items = (await ok("queue_status"))["items"]
    assert (
        len(items) == 9
        and len({i["uid"] for i in items}) == 9
        and set(uids) <= {i["uid"] for i in items}
    )


async def test_queue_move_over_stdio(server_env):
    from tests.helpers import mcp_client, tool_json

    async with mcp_client(server_env) as session:
        for video_id in ("a", "b"):
            added = await session.call_tool(
                "catalog_add",
                {
                    "video_id": video_id,
                    "title": video_id.upper(),
                    "manifest_url": f"https://m/{video_id}",
                },
            )
            assert not added.is_error, added.content
        await session.call_tool("queue_add_videos", {"video_ids": ["a", "b"]})
        uids = [i["uid"] for i in tool_json(await session.call_tool("queue_status", {}))["items"]]
        moved = await session.call_tool("queue_move", {"uid": uids[1], "to_position": 1})
        assert not moved.is_error, moved.content
        assert tool_json(moved)["from_position"] == 2
        status = tool_json(await session.call_tool("queue_status", {}))
        assert [i["video_id"] for i in status["items"]] == ["b", "a"]
        wrong = await session.call_tool("queue_move", {"uid": uids[1], "to_position": 9})
        assert wrong.is_error and "past the end" in wrong.content[0].text
