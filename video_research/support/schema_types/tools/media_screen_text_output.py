# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, media


class Overlay(TypedDict, closed=True):
    text: str
    seconds_on_screen: float


class Indexed(TypedDict, closed=True):
    video_id: str
    chunk_count: int


class MediaScreenTextOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    path: str
    duration_seconds: float
    complete: media.Complete
    coverage: media.Coverage
    spans: list[media.TextSpan]
    overlays: list[Overlay]
    keyframes_read: int
    ms_per_keyframe: NotRequired[float]
    indexed: Indexed | None
