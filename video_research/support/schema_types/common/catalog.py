# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

CatalogPlaylistQueueAndMarathonPiecesSeed004: TypeAlias = Any


VideoId: TypeAlias = str


VideoIds: TypeAlias = list[str]


PlaylistId: TypeAlias = str


MarathonId: TypeAlias = str


Categories: TypeAlias = list[str]


NullableDuration: TypeAlias = int | None


DateTime: TypeAlias = str


class Video(TypedDict):
    video_id: str
    title: str
    categories: list[str]
    duration_seconds: int | None
    thumbnail_url: str | None
    manifest_url: str
    source: NotRequired[str]
    added_at: NotRequired[str]
    updated_at: NotRequired[str]


class FailedItem(TypedDict):
    video_id: str
    error: str


class FailedRow(TypedDict):
    row: int
    video_id: str
    error: str


class PlaylistSummary(TypedDict):
    playlist_id: str
    name: str
    description: NotRequired[str]
    item_count: NotRequired[int]
    total_duration_seconds: NotRequired[int]
    created_by: NotRequired[str]
    created_at: NotRequired[str]
    updated_at: str


class QueueWrite(TypedDict):
    status: Literal["ok", "error"]
    correlation_id: str
    queue_length: int
    revision: int
    published: NotRequired[bool]


class Playlist(TypedDict):
    playlist_id: str
    name: str
    item_count: NotRequired[int]
    duration_seconds: NotRequired[int]
    starts_at: str
    ends_at: str


class Marathon(TypedDict):
    marathon_id: str
    name: str
    description: NotRequired[str]
    starts_at: str
    ends_at: str
    total_duration_seconds: int
    unknown_duration_count: NotRequired[int]
    status: Literal["scheduled", "running", "past"]
    playlists: list[Playlist]
    created_by: NotRequired[str]
    created_at: NotRequired[str]


class AuditEntry(TypedDict):
    id: int
    timestamp: str
    tool: str
    username: str
    claimed_username: NotRequired[str | None]
    role: str
    session: NotRequired[str | None]
    verified: NotRequired[bool]
    ok: bool
    category: NotRequired[str | None]
    input: dict[str, Any]
    result: dict[str, Any]


class Session(TypedDict):
    fingerprint: str
    username: str
    role: Literal["viewer", "blessed", "admin"]
    expires_at: str | None
    created_by: NotRequired[str]
    created_at: NotRequired[str]
