# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import media


class MediaScreenTextInput(TypedDict, closed=True):
    path: media.Path
    start: NotRequired[media.Start]
    end: NotRequired[media.End]
    sample_seconds: NotRequired[float]
    min_confidence: NotRequired[float]
    keep_overlays: NotRequired[bool]
    index: NotRequired[bool]
    video_id: NotRequired[str]
    title: NotRequired[str]
    scene_threshold: NotRequired[media.SceneThreshold]
