"""Watch-queue tools, on the SQLite or NATS backend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from video_research.catalog import changes, playlists
from video_research.catalog import queue as q
from video_research.catalog.db import get_db
from video_research.handlers.context import CallContext
from video_research.support.errors import ErrorCategory, ToolFailure, not_found

if TYPE_CHECKING:
    from video_research.support.schema_types.common.catalog import QueueWrite
    from video_research.support.schema_types.tools import (
        QueueAddVideoInput,
        QueueAddVideoOutput,
        QueueAddVideosInput,
        QueueAddVideosOutput,
        QueueAdvanceInput,
        QueueAdvanceOutput,
        QueueApplyPlaylistInput,
        QueueApplyPlaylistOutput,
        QueueClearInput,
        QueueClearOutput,
        QueueMoveInput,
        QueueMoveOutput,
        QueueRemoveInput,
        QueueRemoveOutput,
        QueueStatusInput,
        QueueStatusOutput,
    )


def _actor(ctx: CallContext) -> dict[str, str]:
    return {"username": ctx.caller.username, "role": ctx.caller.role}


async def _apply(ctx: CallContext, fn: Any, cmd: q.Command) -> QueueWrite:
    """Run one change on the backend, tell subscribers, and answer with the common fields."""
    state, revision, published = await q.backend(ctx.settings).change(fn, cmd)
    await changes.announce(changes.QUEUE_CURRENT)
    result: QueueWrite = {
        "status": "ok",
        "correlation_id": cmd["correlation_id"],
        "queue_length": len(state["items"]),
        "revision": revision,
    }
    if published is not None:
        result["published"] = published
    return result


QUEUE_ACTIONS = ("queue_advance", "queue_move", "queue_remove", "queue_add_video")
"""What a queue board may offer: skip, reorder, remove, add."""


async def queue_status(args: QueueStatusInput, ctx: CallContext) -> QueueStatusOutput:
    state, revision = await q.backend(ctx.settings).read()
    view = q.status(state, revision)
    view["backend"] = q.backend(ctx.settings).name
    view["actions"] = ctx.allowed(QUEUE_ACTIONS)
    return view


async def queue_add_video(args: QueueAddVideoInput, ctx: CallContext) -> QueueAddVideoOutput:
    items, _ = await q.items_for([args["video_id"]], ctx.caller.username)
    if not items:
        raise not_found(
            f"No video {args['video_id']!r} in the catalog; nothing was queued.",
            hint="Find videos with catalog_search and pass their video_id.",
        )
    cmd = q.command("add", _actor(ctx), position=args["position"], items=items)
    result = await _apply(ctx, lambda s: q.add(s, items, args["position"], cmd), cmd)
    return {**result, "uid": items[0]["uid"], "position": args["position"]}


async def queue_add_videos(args: QueueAddVideosInput, ctx: CallContext) -> QueueAddVideosOutput:
    items, failed = await q.items_for(args["video_ids"], ctx.caller.username)
    q.require_items(items, failed)
    cmd = q.command("add", _actor(ctx), position=args["position"], items=items)
    result = await _apply(ctx, lambda s: q.add(s, items, args["position"], cmd), cmd)
    return {
        **result,
        "enqueued_count": len(items),
        "uids": [i["uid"] for i in items],
        "failed": failed,
    }


async def queue_apply_playlist(
    args: QueueApplyPlaylistInput, ctx: CallContext
) -> QueueApplyPlaylistOutput:
    mode = args["mode"]
    if mode == "hard_replace" and not ctx.caller.has_role("admin"):
        raise ToolFailure(
            ErrorCategory.FORBIDDEN,
            f"mode 'hard_replace' requires the 'admin' role; {ctx.caller.username} has "
            f"'{ctx.caller.role}'.",
            hint="Use mode 'append' or 'preserve_current', or ask an admin.",
        )
    playlist = await get_db().read(playlists.get, args["playlist_id"])
    items, failed = await q.items_for(
        [i["video_id"] for i in playlist["items"]], ctx.caller.username
    )
    q.require_items(items, failed)
    cmd = q.command(
        "apply_playlist", _actor(ctx), mode=mode, playlist_id=playlist["playlist_id"], items=items
    )
    result = await _apply(ctx, lambda s: q.apply_playlist(s, items, mode, cmd), cmd)
    return {
        **result,
        "mode": mode,
        "playlist_id": playlist["playlist_id"],
        "enqueued_count": len(items),
        "failed": failed,
    }


async def queue_advance(args: QueueAdvanceInput, ctx: CallContext) -> QueueAdvanceOutput:
    cmd = q.command("advance", _actor(ctx))
    holder: dict[str, Any] = {}

    def step(state: dict[str, Any]) -> dict[str, Any]:
        new = q.advance(state, cmd)
        holder["current"] = new["current"]
        return new

    result = await _apply(ctx, step, cmd)
    current = holder.get("current")
    return {
        **result,
        "now_playing": None
        if current is None
        else {
            "uid": current["uid"],
            "video_id": current["video_id"],
            "title": current["title"],
            "duration_seconds": current["duration_seconds"],
        },
    }


async def queue_clear(args: QueueClearInput, ctx: CallContext) -> QueueClearOutput:
    cmd = q.command("clear", _actor(ctx))
    holder: dict[str, int] = {}

    def step(state: dict[str, Any]) -> dict[str, Any]:
        holder["removed"] = len(state["items"])
        return q.clear(state, cmd)

    result = await _apply(ctx, step, cmd)
    return {**result, "removed_count": holder["removed"]}


async def queue_remove(args: QueueRemoveInput, ctx: CallContext) -> QueueRemoveOutput:
    cmd = q.command("remove", _actor(ctx), uid=args["uid"])
    result = await _apply(ctx, lambda s: q.remove(s, args["uid"], cmd), cmd)
    return {**result, "uid": args["uid"]}


async def queue_move(args: QueueMoveInput, ctx: CallContext) -> QueueMoveOutput:
    uid, to_position = args["uid"], args["to_position"]
    cmd = q.command("move", _actor(ctx), uid=uid, to_position=to_position)
    holder: dict[str, int] = {}

    def step(state: dict[str, Any]) -> dict[str, Any]:
        uids = [item["uid"] for item in state["items"]]
        holder["from"] = uids.index(uid) + 1 if uid in uids else 0
        return q.move(state, uid, to_position, cmd)

    result = await _apply(ctx, step, cmd)
    return {**result, "uid": uid, "from_position": holder["from"], "position": to_position}
