"""Playlist tools: list, get, create, update, delete saved playlists of catalog videos."""

from __future__ import annotations

from typing import Any

from video_research.catalog import changes, playlists
from video_research.catalog.db import get_db
from video_research.handlers.context import CallContext


async def playlist_list(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"playlists": await get_db().read(playlists.list_all)}


async def playlist_get(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return await get_db().read(playlists.get, args["playlist_id"])


async def playlist_create(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    result = await get_db().write(
        lambda conn: playlists.create(
            conn,
            name=args["name"],
            video_ids=args["video_ids"],
            description=args.get("description") or "",
            created_by=ctx.caller.username,
        )
    )
    await changes.announce(changes.PLAYLIST_INDEX, changes.CATALOG_STATS)
    return result


async def playlist_update(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    result = await get_db().write(
        lambda conn: playlists.update(
            conn,
            args["playlist_id"],
            name=args.get("name"),
            description=args.get("description"),
            video_ids=args.get("video_ids"),
        )
    )
    await changes.playlists_changed([args["playlist_id"]])
    return result


async def playlist_delete(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    result = await get_db().write(playlists.delete, args["playlist_id"])
    await changes.playlists_changed([args["playlist_id"]])
    await changes.announce(changes.CATALOG_STATS)
    return result
