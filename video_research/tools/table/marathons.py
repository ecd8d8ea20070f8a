"""The marathons toolset: saved playlists scheduled back to back."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="marathon_list",
        handler="marathons:marathon_list",
        toolset="marathons",
        title="Scheduled marathons",
        description=(
            "List scheduled and running marathons with their playlists, start and computed end "
            "times."
        ),
    ),
    ToolSpec(
        name="marathon_get",
        handler="marathons:marathon_get",
        toolset="marathons",
        title="Marathon details",
        description="A marathon's schedule: each playlist's start and end time, in order.",
    ),
    ToolSpec(
        name="marathon_create",
        handler="marathons:marathon_create",
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
        handler="marathons:marathon_delete",
        toolset="marathons",
        title="Delete a marathon",
        description="Delete a scheduled marathon (its playlists stay). Requires admin.",
        role="admin",
        read_only=False,
        destructive=True,
        audited=True,
    ),
)
