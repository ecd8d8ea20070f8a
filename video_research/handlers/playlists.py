"""Playlist tools: list, get, create, update, delete saved playlists of catalog videos."""

from __future__ import annotations

from typing import TYPE_CHECKING

from video_research.catalog import changes, playlists
from video_research.catalog.db import get_db
from video_research.handlers.context import CallContext

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        PlaylistCreateInput,
        PlaylistCreateOutput,
        PlaylistDeleteInput,
        PlaylistDeleteOutput,
        PlaylistGetInput,
        PlaylistGetOutput,
        PlaylistListInput,
        PlaylistListOutput,
        PlaylistUpdateInput,
        PlaylistUpdateOutput,
    )


async def playlist_list(args: PlaylistListInput, ctx: CallContext) -> PlaylistListOutput:
    return {"playlists": await get_db().read(playlists.list_all)}


async def playlist_get(args: PlaylistGetInput, ctx: CallContext) -> PlaylistGetOutput:
    return await get_db().read(playlists.get, args["playlist_id"])


async def playlist_create(args: PlaylistCreateInput, ctx: CallContext) -> PlaylistCreateOutput:
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


async def playlist_update(args: PlaylistUpdateInput, ctx: CallContext) -> PlaylistUpdateOutput:
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


async def playlist_delete(args: PlaylistDeleteInput, ctx: CallContext) -> PlaylistDeleteOutput:
    result = await get_db().write(playlists.delete, args["playlist_id"])
    await changes.playlists_changed([args["playlist_id"]])
    await changes.announce(changes.CATALOG_STATS)
    return result
