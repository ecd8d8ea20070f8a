# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

LocalMediaPieces: TypeAlias = Any


Path: TypeAlias = str


Start: TypeAlias = float


End: TypeAlias = float


ImageFormat: TypeAlias = Literal["jpeg", "png"]


SceneThreshold: TypeAlias = float


Link: TypeAlias = str


class Video(TypedDict, closed=True):
    index: int
    codec: str
    width: int
    height: int
    fps: NotRequired[float | None]
    frames: NotRequired[int | None]


class Audio(TypedDict, closed=True):
    index: int
    codec: str
    sample_rate: NotRequired[int]
    channels: NotRequired[int]


class Media(TypedDict, closed=True):
    path: str
    container: str
    size_bytes: int
    duration_seconds: float
    stream_count: int
    video: NotRequired[Video | None]
    audio: NotRequired[Audio | None]
    attached_pictures: NotRequired[int]
    notes: NotRequired[list[str]]


class Image(TypedDict, closed=True):
    time: float
    requested_time: NotRequired[float]
    label: str
    width: int
    height: int
    mime_type: str
    bytes: int
    link: Link
    content_index: NotRequired[int]


class OmittedItem(TypedDict, closed=True):
    time: float
    reason: Literal["max_frames", "max_output_bytes", "unreadable"]


Omitted: TypeAlias = list[OmittedItem]


class Scene(TypedDict, closed=True):
    index: int
    start: float
    end: float
    score: float
    keyframe_time: float
    link: Link


class TextSpan(TypedDict, closed=True):
    text: str
    appeared: float
    disappeared: float
    confidence: float
    frames: NotRequired[int]
    link: Link


class Stream(TypedDict, closed=True):
    kind: str
    index: int
    seconds_read: float
    seconds_claimed: float | None
    complete: bool


class Coverage(TypedDict, closed=True):
    complete: bool
    seconds_read: float
    seconds_claimed: float
    note: str | None
    streams: list[Stream]


Complete: TypeAlias = bool
