"""The queue toolset: the live watch queue."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
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
        name="queue_move",
        handler="queue:queue_move",
        toolset="queue",
        title="Move a queued video",
        description=(
            "Move one upcoming item (by uid) to a 1-based position among the upcoming items. "
            "Requires blessed."
        ),
        role="blessed",
        read_only=False,
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
)
