"""Marathon tools: saved playlists scheduled back to back from a start time."""

from __future__ import annotations

from typing import Any

from video_research.catalog import changes, marathons
from video_research.catalog.db import get_db
from video_research.handlers.context import CallContext


async def marathon_list(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    found = await get_db().read(
        lambda conn: marathons.list_all(conn, include_past=args["include_past"])
    )
    return {"marathons": found}


async def marathon_get(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return await get_db().read(marathons.get, args["marathon_id"])


async def marathon_create(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    result = await get_db().write(
        lambda conn: marathons.create(
            conn,
            name=args["name"],
            starts_at=args["starts_at"],
            playlist_ids=args["playlist_ids"],
            description=args.get("description") or "",
            created_by=ctx.caller.username,
        )
    )
    await changes.announce(changes.CATALOG_STATS)
    return result


async def marathon_delete(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    result = await get_db().write(marathons.delete, args["marathon_id"])
    await changes.announce(changes.CATALOG_STATS)
    return result
