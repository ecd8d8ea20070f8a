# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import media


class MediaContactSheetInput(TypedDict, closed=True):
    path: media.Path
    count: NotRequired[int]
    columns: NotRequired[int]
    cell_width: NotRequired[int]
    per_scene: NotRequired[bool]
    start: NotRequired[media.Start]
    end: NotRequired[media.End]
    format: NotRequired[media.ImageFormat]
    scene_threshold: NotRequired[media.SceneThreshold]
