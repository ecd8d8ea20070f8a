"""The playlists toolset: saved playlists of catalog videos."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="playlist_list",
        handler="playlists:playlist_list",
        toolset="playlists",
        title="Saved playlists",
        description="List the saved playlists with their item counts and total durations.",
    ),
    ToolSpec(
        name="playlist_get",
        handler="playlists:playlist_get",
        toolset="playlists",
        title="Playlist details",
        description="A playlist with its items in order and its total duration.",
    ),
    ToolSpec(
        name="playlist_create",
        handler="playlists:playlist_create",
        toolset="playlists",
        title="Create a playlist",
        description="Create a playlist of catalog videos. Requires blessed.",
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="playlist_update",
        handler="playlists:playlist_update",
        toolset="playlists",
        title="Update a playlist",
        description=(
            "Rename a playlist, change its description or replace its items; fields left out or "
            "null stay as they are. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="playlist_delete",
        handler="playlists:playlist_delete",
        toolset="playlists",
        title="Delete a playlist",
        description=(
            "Delete a playlist (not its videos) unless a marathon schedules it. Requires admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
)
