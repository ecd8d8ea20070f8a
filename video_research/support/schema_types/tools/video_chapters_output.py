# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs, transcripts


class VideoChaptersOutput(TypedDict, closed=True):
    video_id: str
    video_title: str
    video_url: str
    duration_seconds: float
    evidence: Literal["author", "container", "file", "computed"] | None
    chapters: list[transcripts.VideoChapter]
    injections: NotRequired[defs.Injections]
