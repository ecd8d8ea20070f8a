"""The channel's catalog, playlists, watch queue, marathons and the admin tools beside them."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- catalog
    ToolSpec(
        name="catalog_search",
        handler="catalog:catalog_search",
        toolset="catalog",
        title="Search the video catalog",
        description=(
            "Search the video catalog by title and/or category, best matches first; snapshot_id "
            "changes when the catalog does."
        ),
    ),
    ToolSpec(
        name="catalog_categories",
        handler="catalog:catalog_categories",
        toolset="catalog",
        title="Catalog categories",
        description="List the catalog's categories with how many videos each has.",
    ),
    ToolSpec(
        name="catalog_get_video",
        handler="catalog:catalog_get_video",
        toolset="catalog",
        title="Catalog video",
        description="A catalog video's details by ID.",
    ),
    ToolSpec(
        name="catalog_add",
        handler="catalog:catalog_add",
        toolset="catalog",
        title="Add a video to the catalog",
        description=(
            "Add a video to the catalog, or update the one with that video_id. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="catalog_remove",
        handler="catalog:catalog_remove",
        toolset="catalog",
        title="Remove videos from the catalog",
        description="Remove videos from the catalog and from every playlist. Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="catalog_import",
        handler="catalog:catalog_import",
        toolset="catalog",
        title="Import videos into the catalog",
        description=(
            "Import videos from a JSON or CSV file or a YouTube playlist; existing video_ids are "
            "updated.\n"
            "Bad entries are listed in failed and never stop the good ones. Requires admin."
        ),
        role="admin",
        read_only=False,
        open_world=True,
        audited=True,
    ),
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
    ToolSpec(
        name="queue_status",
        handler="queue:queue_status",
        toolset="queue",
        title="Watch queue",
        description=(
            "The queue now: the video playing (with elapsed time), the upcoming items with their "
            "uids, and the total duration."
        ),
    ),
    ToolSpec(
        name="queue_add_video",
        handler="queue:queue_add_video",
        toolset="queue",
        title="Queue a video",
        description="Add a catalog video to the queue. Requires blessed.",
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_add_videos",
        handler="queue:queue_add_videos",
        toolset="queue",
        title="Queue several videos",
        description=(
            "Add catalog videos to the queue in order; IDs not in the catalog are listed in "
            "failed. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_apply_playlist",
        handler="queue:queue_apply_playlist",
        toolset="queue",
        title="Queue a playlist",
        description="Apply a saved playlist to the live queue. Requires blessed.",
        role="blessed",
        read_only=False,
        destructive=True,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_advance",
        handler="queue:queue_advance",
        toolset="queue",
        title="Play the next video",
        description=(
            "Skip to the next queued video: it becomes the current one. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="queue_remove",
        handler="queue:queue_remove",
        toolset="queue",
        title="Remove a queued video",
        description="Remove one upcoming item from the queue by its uid. Requires blessed.",
        role="blessed",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="queue_clear",
        handler="queue:queue_clear",
        toolset="queue",
        title="Clear the queue",
        description="Remove every upcoming item; the video playing now keeps playing. Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="marathon_list",
        handler="playlists:marathon_list",
        toolset="marathons",
        title="Scheduled marathons",
        description=(
            "List scheduled and running marathons with their playlists, start and computed end "
            "times."
        ),
    ),
    ToolSpec(
        name="marathon_get",
        handler="playlists:marathon_get",
        toolset="marathons",
        title="Marathon details",
        description="A marathon's schedule: each playlist's start and end time, in order.",
    ),
    ToolSpec(
        name="marathon_create",
        handler="playlists:marathon_create",
        toolset="marathons",
        title="Schedule a marathon",
        description=(
            "Schedule saved playlists back to back from a start time; the end time follows their "
            "durations. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="marathon_delete",
        handler="playlists:marathon_delete",
        toolset="marathons",
        title="Delete a marathon",
        description="Delete a scheduled marathon (its playlists stay). Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="audit_log",
        handler="admin:audit_log",
        toolset="admin",
        title="Audit log",
        description=(
            "Read the audit log of write operations, newest first: who, which tool, the input and "
            "the result or error. Requires admin."
        ),
        role="admin",
    ),
    ToolSpec(
        name="session_register",
        handler="admin:session_register",
        toolset="admin",
        title="Register a session",
        description=(
            "Register a chat session so calls claiming it ({username, role, session_id} in "
            "_meta.session) get at most its role until it expires; unverified claims get viewer. "
            "Requires admin."
        ),
        role="admin",
        read_only=False,
        audited=True,
    ),
    ToolSpec(
        name="session_revoke",
        handler="admin:session_revoke",
        toolset="admin",
        title="Revoke a session",
        description=(
            "Remove a session from the registry; its claims count as viewer from now on. Requires "
            "admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
    ToolSpec(
        name="session_list",
        handler="admin:session_list",
        toolset="admin",
        title="Registered sessions",
        description="List the registered sessions (usernames, roles, expiry; session IDs as fingerprints). Requires admin.",
        role="admin",
    ),
)
