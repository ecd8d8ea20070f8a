# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import media


class MediaScenesInput(TypedDict, closed=True):
    path: media.Path
    start: NotRequired[media.Start]
    end: NotRequired[media.End]
    threshold: NotRequired[media.SceneThreshold]
    min_scene_seconds: NotRequired[float]
    limit: NotRequired[int]
