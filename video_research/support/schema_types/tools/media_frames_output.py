# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs
from ..common import media as media_1


class MediaFramesOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    path: str
    duration_seconds: float
    complete: media_1.Complete
    coverage: media_1.Coverage
    media: NotRequired[media_1.Media]
    frames: list[media_1.Image]
    omitted: media_1.Omitted
