# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from ..common import defs


class CurrentVideo(TypedDict):
    uid: NotRequired[str]
    video_id: NotRequired[str]
    title: str
    duration_seconds: int | None
    elapsed_seconds: int
    started_at: NotRequired[str]


class Item(TypedDict):
    uid: str
    video_id: NotRequired[str]
    title: str
    duration_seconds: int | None
    added_by: NotRequired[str]


class QueueStatusOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    channel: NotRequired[str]
    backend: NotRequired[Literal["sqlite", "nats"]]
    current_video: CurrentVideo | None
    queue_length: int
    total_duration_seconds: int
    items: list[Item]
    revision: NotRequired[int]
    updated_at: NotRequired[str | None]
    recent_commands: NotRequired[list[str]]
    actions: NotRequired[list[str]]
