# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import media

Time: TypeAlias = float


class MediaFramesInput(TypedDict, closed=True):
    path: media.Path
    times: NotRequired[list[Time]]
    count: NotRequired[int]
    per_scene: NotRequired[bool]
    start: NotRequired[media.Start]
    end: NotRequired[media.End]
    max_edge: NotRequired[int]
    format: NotRequired[media.ImageFormat]
    scene_threshold: NotRequired[media.SceneThreshold]
