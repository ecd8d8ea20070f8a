"""Argument completion (completion/complete) for prompts and resource templates.

Completes by argument name, wherever it appears (a prompt's `category` or
`marathon_id`, the `playlist_id` of the playlist://{playlist_id} template):

    playlist_id  saved playlists whose ID or name starts with what was typed
    marathon_id  marathons whose ID or name starts with it
    category     catalog categories that start with it (case-insensitive)

Other arguments get no suggestions. At most 100 values, as MCP allows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types as types

MAX_VALUES = 100


def _sources() -> dict[str, Callable[..., list[str]]]:
    from video_research.catalog import marathons, playlists, videos

    return {
        "playlist_id": playlists.ids_matching,
        "marathon_id": marathons.ids_matching,
        "category": videos.category_names,
    }


async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
    source = _sources().get(params.argument.name)
    values: list[str] = []
    if source is not None:
        from video_research.catalog.db import get_db

        values = await get_db().read(source, params.argument.value, MAX_VALUES + 1)
    return types.CompleteResult(
        completion=types.Completion(
            values=values[:MAX_VALUES], total=None, has_more=len(values) > MAX_VALUES
        )
    )
