# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, media


class MediaScenesOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    path: str
    duration_seconds: float
    complete: media.Complete
    coverage: media.Coverage
    scene_count: int
    scenes: list[media.Scene]
    frames_compared: NotRequired[int]
    truncated: bool
