"""Marathon tools: saved playlists scheduled back to back from a start time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from video_research.catalog import changes, marathons
from video_research.catalog.db import get_db
from video_research.handlers.context import CallContext

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        MarathonCreateInput,
        MarathonCreateOutput,
        MarathonDeleteInput,
        MarathonDeleteOutput,
        MarathonGetInput,
        MarathonGetOutput,
        MarathonListInput,
        MarathonListOutput,
    )


async def marathon_list(args: MarathonListInput, ctx: CallContext) -> MarathonListOutput:
    found = await get_db().read(
        lambda conn: marathons.list_all(conn, include_past=args["include_past"])
    )
    return {"marathons": found}


async def marathon_get(args: MarathonGetInput, ctx: CallContext) -> MarathonGetOutput:
    marathon = await get_db().read(marathons.get, args["marathon_id"])
    return {**marathon}  # as the tool's output type (which adds `injections`)


async def marathon_create(args: MarathonCreateInput, ctx: CallContext) -> MarathonCreateOutput:
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
    return {**result}


async def marathon_delete(args: MarathonDeleteInput, ctx: CallContext) -> MarathonDeleteOutput:
    result = await get_db().write(marathons.delete, args["marathon_id"])
    await changes.announce(changes.CATALOG_STATS)
    return result
