# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs
from ..common import media as media_1


class Cell(TypedDict, closed=True):
    time: float
    label: str
    row: int
    column: int
    link: media_1.Link


class MediaContactSheetOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    path: str
    duration_seconds: float
    complete: media_1.Complete
    coverage: media_1.Coverage
    media: NotRequired[media_1.Media]
    sheet: media_1.Image
    cells: list[Cell]
